"""Replay a transaction log into an Amaranth component with the Amaranth simulator."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from amaranth.lib import wiring
from amaranth.sim import Simulator

from synth.verilog import flat_ports
from tb.log import Mismatch, unit_layout

__all__ = ["ReplayResult", "replay_amaranth"]


@dataclass(frozen=True)
class ReplayResult:
    """Outcome of a replay: rows checked and the first mismatch, if any."""

    rows: int
    mismatch: Mismatch | None

    @property
    def ok(self) -> bool:
        return self.mismatch is None


def replay_amaranth(dut: wiring.Component, log: np.ndarray, *, vcd: str | None = None) -> ReplayResult:
    """Drive ``log``'s inputs into ``dut`` cycle by cycle and compare every output.

    A cycle with every input at 0 comes first (as the reset cycle of the
    Verilog replayers, so the memories' read registers hold defined data).
    Then each row is one clock cycle: inputs are set, the outputs are
    compared with the ``exp_`` columns, then the clock ticks. Stops at the
    first mismatch.

    Parameters
    ----------
    dut : wiring.Component
        The unit; its flattened port names (``a__b`` for nested members) match the log's columns.
    log : numpy.ndarray
        Transaction log (see ``golden.units.base``).
    vcd : str, optional
        Write a waveform here; also taken from ``$GPUCACHE_VCD`` when unset.
    """
    layout = unit_layout(log, dut)
    values = {p.name: p.value for p in flat_ports(dut)}
    ins = {p: log[p].tolist() for p in layout.inputs}
    exp = {p: log[f"exp_{p}"].tolist() for p in layout.outputs}
    result: dict = {"rows": 0, "mismatch": None}

    async def testbench(ctx):
        # One cycle with every input 0 first, as the Verilog replayers' reset cycle.
        await ctx.tick()
        for i in range(len(log)):
            for p in layout.inputs:
                ctx.set(values[p], ins[p][i])
            got = {p: ctx.get(values[p]) for p in layout.outputs}
            if any(got[p] != exp[p][i] for p in layout.outputs):
                result["mismatch"] = Mismatch.at(log, layout, i, got)
                return
            result["rows"] = i + 1
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    vcd = vcd or os.environ.get("GPUCACHE_VCD")
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()
    return ReplayResult(result["rows"], result["mismatch"])
