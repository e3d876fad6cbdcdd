"""ciao18's units: long random logs through the Verilator harness, and the area of their parts.

1. For each unit (the paper's configuration), a seeded random log of
   ``--cycles`` cycles from the golden unit model (``tb/stimulus_ciao18.py``)
   is replayed into the Verilated RTL with every output compared every
   cycle. Prints rows, mismatches, the golden log's time and the replay's
   cycles per second; exits 1 on a mismatch.
2. With ``--area``, Yosys figures (``synth/yosys.py``'s method) for the
   parts ciao18 costs in gates: the IRS test alone (``rtl.ciao.IrsTest``,
   the paper's "2112 gates"), and, for the translation unit's "translation
   + multiplexer + MSHR: 4500 gates and 64B", a 2:1 multiplexer of one
   128-byte block (the L1D / shared-memory mux, which the unit does not
   model) and the 32 x 16-bit MSHR field built from flip-flops instead of
   an SRAM.

Usage::

    python benchmarks/bench_ciao18_units.py [--cycles 200000] [--seed 2026] [--area]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

import numpy as np
from amaranth.hdl import Array, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from golden.units import ciao_interference, ciao_irs, ciao_pair_list, ciao_smem, ciao_vta
from rtl import ciao
from synth.yosys import synthesize
from tb import stimulus_ciao18 as stim
from tb.stimulus import record
from tb.verilator import replay_verilator

UNITS = {
    "vta": (ciao_vta.Vta, ciao.Vta, lambda rng: stim.vta_inputs(rng, sets=4, lines=12)),
    "interference": (ciao_interference.InterferenceList, ciao.InterferenceList,
                     lambda rng: stim.interference_inputs(rng, warps=4)),
    "pair_list": (ciao_pair_list.PairList, ciao.PairList, lambda rng: stim.pair_list_inputs(rng, warps=4)),
    "irs": (ciao_irs.IrsUnit, ciao.IrsUnit, lambda rng: stim.irs_inputs(rng, warps=48, max_active=8)),
    "smem": (ciao_smem.SmemTranslate, ciao.SmemTranslate, lambda rng: stim.smem_inputs(rng, mshr_entries=32)),
}


class BlockMux(wiring.Component):
    """A 2:1 multiplexer of one 128-byte block (the L1D / shared-memory mux on one queue)."""

    def __init__(self) -> None:
        super().__init__({"sel": In(1), "a": In(1024), "b": In(1024), "y": Out(1024)})

    def elaborate(self, platform):
        m = Module()
        with m.If(self.sel):
            m.d.comb += self.y.eq(self.b)
        with m.Else():
            m.d.comb += self.y.eq(self.a)
        return m


class FlopField(wiring.Component):
    """The MSHR field as 32 x 16-bit registers: one write, one read."""

    def __init__(self) -> None:
        super().__init__({"we": In(1), "waddr": In(5), "wdata": In(16), "raddr": In(5), "rdata": Out(16)})

    def elaborate(self, platform):
        m = Module()
        regs = Array(Signal(16, name=f"f{i}") for i in range(32))
        with m.If(self.we):
            m.d.sync += regs[self.waddr].eq(self.wdata)
        m.d.sync += self.rdata.eq(regs[self.raddr])
        return m


def replay(cycles: int, seed: int) -> bool:
    ok = True
    print(f"{'unit':<14}{'rows':>10}{'mismatches':>12}{'log s':>8}{'replay s':>10}{'cycles/s':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (golden, rtl, gen) in UNITS.items():
            t0 = time.perf_counter()
            log = record(golden(), cycles, gen(np.random.default_rng(seed)))
            t_log = time.perf_counter() - t0
            r = replay_verilator(rtl(), log, f"{tmp}/{name}")
            ok &= r.ok
            print(f"{name:<14}{r.rows:>10}{0 if r.ok else 1:>12}{t_log:>8.1f}{r.seconds:>10.3f}"
                  f"{r.cycles_per_second:>12.3g}")
            if not r.ok:
                print(f"  {r.mismatch}")
    return ok


def area() -> None:
    parts = {"irs_test (Eq. 1, both cut-offs)": ciao.IrsTest(), "block_mux (2:1, 1024 bits)": BlockMux(),
             "mshr_field_in_flops (32 x 16)": FlopField()}
    print(f"\n{'part':<36}{'FF':>6}{'NAND2':>8}{'NOT':>7}{'logic NAND2 eq':>16}{'with FF':>9}{'depth':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, comp) in enumerate(parts.items()):
            r = synthesize(comp, f"{tmp}/{i}", name=name)
            logic = r.nand2 + r.inverters * 0.532 / 0.798
            print(f"{name:<36}{r.flip_flops:>6}{r.nand2:>8}{r.inverters:>7}{logic:>16.0f}"
                  f"{r.nand2_equivalent:>9.0f}{r.depth:>7}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--area", action="store_true", help="also the Yosys figures of the parts")
    args = ap.parse_args(argv)
    ok = replay(args.cycles, args.seed)
    if args.area:
        area()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
