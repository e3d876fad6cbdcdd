"""ciao18's units: the victim tag array, the interference list, the pair list with the V/I flags,
the IRS cut-off unit and the shared-memory address translation unit.

ciao18's policies record the units' transactions for one SM (``log_sm``,
``golden/policies/ciao18.py``): CIAO-C (the default, Algorithm 1 whole) and
CIAO-P record all five, CIAO-T all but ``ciao_smem`` (``gpucache cosim
--policy``). They act on the timing model's warp schedulers, so
:func:`record_timed` runs the workload on the timing model (``golden/gpu``)
and collects the logs after every slice of cycles; each unit model's
``cycle_log`` lays them out. The RTL is built with the policy's parameters
and the machine's warps (the paper's 48 at least, so ``gpucache synth``
gives the paper's units on any preset).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np

from catalog.registry import UnitSpec, register_unit
from golden.cache.hierarchy import Hierarchy
from golden.configs.schema import GPUConfig
from golden.gpu.model import TimingModel
from golden.policies.ciao18 import INSTRUCTIONS, CiaoT
from golden.trace.model import Workload
from golden.units import ciao_interference, ciao_irs, ciao_pair_list, ciao_smem, ciao_vta
from golden.units.ciao_common import WID_BITS
from rtl.ciao import InterferenceList, IrsUnit, PairList, SmemTranslate, Vta

__all__ = ["record_timed", "warps", "irs_params"]

_PAPER = "ciao18 Sec. V-F"
#: The policy that records the units unless ``gpucache cosim --policy`` names another.
_POLICY = "ciao-c"


def warps(gpu: GPUConfig) -> int:
    """VTA sets and IRS counters: one per warp slot of ``gpu``, at least the paper's 48, at most 64."""
    return min(1 << WID_BITS, max(ciao_vta.VTA_WARPS, gpu.max_warps_per_sm))


def irs_params(gpu: GPUConfig, p: CiaoT) -> dict:
    """The IRS unit's parameters: the policy's cut-offs, epochs and instruction unit (``lanes``),
    ``gpu``'s issue width (at most 3)."""
    return dict(warps=warps(gpu), high_cutoff=p.high_cutoff, low_cutoff=p.low_cutoff, high_epoch=p.high_epoch,
                low_epoch=p.low_epoch, issue_width=min(3, gpu.schedulers_per_sm),
                lanes=INSTRUCTIONS[p.instructions])


def _irs_rtl(gpu: GPUConfig, p: CiaoT) -> IrsUnit:
    kw = irs_params(gpu, p)
    for name in ("high_cutoff", "low_cutoff"):
        kw[name] = Fraction(kw[name]).limit_denominator(ciao_irs.MAX_DENOMINATOR)
    return IrsUnit(**kw)


def record_timed(workload: Workload, gpu: GPUConfig, policy: CiaoT,
                 progress: Callable[[int], None] | None = None) -> tuple[dict[str, np.ndarray], dict]:
    """Run ``workload`` on the timing model with ``policy``; SM ``log_sm``'s transactions of each unit.

    The logs are taken after every slice of cycles (``golden.gpu.model.SLICE``),
    so each must hold one slice's transactions of one SM (``log_capacity``).

    Returns
    -------
    transactions : dict
        Per recorder of the policy (``golden.policies.ciao18.RECORDERS``), its rows in order.
    stats : dict
        The hierarchy's counters.
    """
    h = Hierarchy(gpu, policy)
    tm = TimingModel(gpu, h)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in policy.recorders}

    def collect(*_) -> None:
        for name, rows in policy.take_transactions().items():
            parts[name].append(rows)

    for i, kernel in enumerate(workload.kernels):
        timing = tm.run_kernel(kernel, i, collect)
        if progress:
            progress(timing.counters["l1_accesses"])
    collect()
    return {name: np.concatenate(p) for name, p in parts.items()}, h.stats()


register_unit(UnitSpec(
    name="ciao_vta", paper="ciao18", policy=_POLICY, recorder="vta",
    rtl=lambda gpu, p: Vta(warps=warps(gpu), ways=p.vta_ways),
    model=lambda gpu, p: ciao_vta.Vta(warps=warps(gpu), ways=p.vta_ways),
    overhead_bits=None,
    overhead_source=f"{_PAPER}: 8 victim tags per warp, 48 sets; 0.65 mm^2 per VTA for 15 SMs (CACTI), "
                    "no bits",
    overhead_memories=("entries",),
    description="victim tag array: 48 sets (one per warp) x 8 FIFO tags with the evicting warp's WID",
    record=record_timed))

register_unit(UnitSpec(
    name="ciao_interference", paper="ciao18", policy=_POLICY, recorder="interference",
    rtl=lambda gpu, p: InterferenceList(),
    model=lambda gpu, p: ciao_interference.InterferenceList(),
    overhead_bits=64 * 8, overhead_source=f"{_PAPER}: 64 entries x (6-bit WID + 2-bit counter)",
    overhead_memories=("entries",),
    description="interference list: per warp the most interfering warp and a 2-bit saturating counter",
    record=record_timed))

register_unit(UnitSpec(
    name="ciao_pair_list", paper="ciao18", policy=_POLICY, recorder="pair_list",
    rtl=lambda gpu, p: PairList(),
    model=lambda gpu, p: ciao_pair_list.PairList(),
    overhead_bits=64 * 12, overhead_source=f"{_PAPER}: 64 entries x 12 bits (V and I flags in the warp list)",
    overhead_memories=("pairs",),
    description="pair list (two WIDs per warp) and the V/I flags, updated as Algorithm 1 does",
    record=record_timed))

register_unit(UnitSpec(
    name="ciao_irs", paper="ciao18", policy=_POLICY, recorder="irs",
    rtl=_irs_rtl,
    model=lambda gpu, p: ciao_irs.IrsUnit(**irs_params(gpu, p)),
    overhead_bits=None,
    overhead_source=f"{_PAPER}: 48 x 32-bit VTA-hit registers; Eq. 1 'a few adders, a shifter, and a "
                    "comparator' 2112 gates",
    description="IRS cut-off unit: VTA-hit and instruction counters, epoch samplers, Eq. 1 without a "
                "divider",
    record=record_timed))

register_unit(UnitSpec(
    name="ciao_smem", paper="ciao18", policy=_POLICY, recorder="smem",
    rtl=lambda gpu, p: SmemTranslate(index=gpu.smem_cache_index),
    model=lambda gpu, p: ciao_smem.SmemTranslate(smem_bytes=min(gpu.shared_mem_bytes, 1 << 16),
                                                 index=gpu.smem_cache_index),
    overhead_bits=64 * 8, overhead_source=f"{_PAPER}: translation unit, multiplexer and MSHR 4500 gates and "
                                          "64 B per SM",
    overhead_memories=("mshr_smem",),
    description="shared-memory address translation (F3/B4/G1/R8, row mask, offsets) with the MSHR field",
    record=record_timed))
