"""Replay a transaction log into an Amaranth component with the Amaranth simulator."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from amaranth.lib import wiring
from amaranth.sim import Simulator

from tb.log import Mismatch, layout_of

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

    Each row is one clock cycle: inputs are set, the combinational outputs
    are compared with the ``exp_`` columns, then the clock ticks. Stops at
    the first mismatch.

    Parameters
    ----------
    dut : wiring.Component
        The unit; its signature's port names match the log's columns.
    log : numpy.ndarray
        Transaction log (see ``golden.units.base``).
    vcd : str, optional
        Write a waveform here; also taken from ``$GPUCACHE_VCD`` when unset.
    """
    members = dut.signature.members
    in_ports = [n for n, m in members.items() if m.flow == wiring.In]
    out_ports = [n for n, m in members.items() if m.flow == wiring.Out]
    layout = layout_of(log, in_ports, out_ports)
    ins = {p: log[p].tolist() for p in in_ports}
    exp = {p: log[f"exp_{p}"].tolist() for p in out_ports}
    result: dict = {"rows": 0, "mismatch": None}

    async def testbench(ctx):
        for i in range(len(log)):
            for p in in_ports:
                ctx.set(getattr(dut, p), ins[p][i])
            got = {p: ctx.get(getattr(dut, p)) for p in out_ports}
            if any(got[p] != exp[p][i] for p in out_ports):
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
