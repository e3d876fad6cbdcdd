"""ciao18's units: the victim tag array, the interference list, the pair list with the V/I flags,
the IRS cut-off unit and the shared-memory address translation unit.

ciao18's policies (CIAO-T, CIAO-P, CIAO-C on the timing model,
``golden/policies/ciao18.py``) do not record these units' transactions yet,
so each entry has ``policy=None``. ``gpucache synth`` builds them (with the paper's
parameters; they do not depend on ``--config``), the unit tests check
each RTL unit against its unit model on every cycle (``tests/test_rtl_ciao18.py``),
and ``gpucache cosim --unit`` says that there is no whole-workload
co-simulation for them yet.
"""

from __future__ import annotations

from fractions import Fraction

from catalog.registry import UnitSpec, register_unit
from golden.units import ciao_interference, ciao_irs, ciao_pair_list, ciao_smem, ciao_vta
from rtl.ciao import InterferenceList, IrsUnit, PairList, SmemTranslate, Vta

__all__: list[str] = []

_PAPER = "ciao18 Sec. V-F"

register_unit(UnitSpec(
    name="ciao_vta", paper="ciao18", policy=None, recorder=None,
    rtl=lambda gpu, p: Vta(),
    model=lambda gpu, p: ciao_vta.Vta(),
    overhead_bits=None,
    overhead_source=f"{_PAPER}: 8 victim tags per warp, 48 sets; 0.65 mm^2 per VTA for 15 SMs (CACTI), "
                    "no bits",
    overhead_memories=("entries",),
    description="victim tag array: 48 sets (one per warp) x 8 FIFO tags with the evicting warp's WID"))

register_unit(UnitSpec(
    name="ciao_interference", paper="ciao18", policy=None, recorder=None,
    rtl=lambda gpu, p: InterferenceList(),
    model=lambda gpu, p: ciao_interference.InterferenceList(),
    overhead_bits=64 * 8, overhead_source=f"{_PAPER}: 64 entries x (6-bit WID + 2-bit counter)",
    overhead_memories=("entries",),
    description="interference list: per warp the most interfering warp and a 2-bit saturating counter"))

register_unit(UnitSpec(
    name="ciao_pair_list", paper="ciao18", policy=None, recorder=None,
    rtl=lambda gpu, p: PairList(),
    model=lambda gpu, p: ciao_pair_list.PairList(),
    overhead_bits=64 * 12, overhead_source=f"{_PAPER}: 64 entries x 12 bits (V and I flags in the warp list)",
    overhead_memories=("pairs",),
    description="pair list (two WIDs per warp) and the V/I flags, updated as Algorithm 1 does"))

register_unit(UnitSpec(
    name="ciao_irs", paper="ciao18", policy=None, recorder=None,
    rtl=lambda gpu, p: IrsUnit(high_cutoff=Fraction(ciao_irs.HIGH_CUTOFF).limit_denominator(1 << 16),
                               low_cutoff=Fraction(ciao_irs.LOW_CUTOFF).limit_denominator(1 << 16)),
    model=lambda gpu, p: ciao_irs.IrsUnit(),
    overhead_bits=None,
    overhead_source=f"{_PAPER}: 48 x 32-bit VTA-hit registers; Eq. 1 'a few adders, a shifter, and a "
                    "comparator' 2112 gates",
    description="IRS cut-off unit: VTA-hit and instruction counters, epoch samplers, Eq. 1 without a "
                "divider"))

register_unit(UnitSpec(
    name="ciao_smem", paper="ciao18", policy=None, recorder=None,
    rtl=lambda gpu, p: SmemTranslate(),
    model=lambda gpu, p: ciao_smem.SmemTranslate(),
    overhead_bits=64 * 8, overhead_source=f"{_PAPER}: translation unit, multiplexer and MSHR 4500 gates and "
                                          "64 B per SM",
    overhead_memories=("mshr_smem",),
    description="shared-memory address translation (F3/B4/G1/R8, row mask, offsets) with the MSHR field"))
