"""ciao18's pair list (two WID fields per warp) and the per-warp V and I flags, set as in Algorithm 1."""

from __future__ import annotations

from amaranth.hdl import Array, Const, Module, Mux, Signal
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from rtl.ciao.common import WID_BITS, require

__all__ = ["PairList", "OP_READ", "OP_TRIGGER", "OP_RELEASE", "OP_STALL"]

#: Commands (``s1_cmd.op``).
OP_READ, OP_TRIGGER, OP_RELEASE, OP_STALL = 0, 1, 2, 3
#: Actions (``s2_cmd.act``).
ACT_NONE, ACT_ISOLATE, ACT_STALL, ACT_REACTIVATE, ACT_UNISOLATE = range(5)
CLEARED = (1 << WID_BITS) - 1


class PairList(wiring.Component):
    """ciao18's pair list and V/I flags (Sections IV-A, IV-C), golden model ``golden.units.ciao_pair_list``.

    One SRAM ``pairs`` of ``entries`` rows of two 6-bit fields (written per
    field, starting all ones = cleared), one synchronous read port
    transparent for the write port; V (reset 1) and I (reset 0) are
    registers, one pair per warp.

    A command in cycle *t* decides from the flags during *t*:
    **trigger** (op 1) stalls warp ``wid`` (V = 0, field 1 = ``src``) if it
    is isolated, else isolates it (I = 1, field 0 = ``src``); **release**
    (op 2) reactivates a stalled warp (V = 1, field 1 cleared), else sends
    an isolated warp back to L1D (I = 0, field 0 cleared), else does
    nothing; **stall** (op 3: CIAO-T, or no shared-memory cache) stalls it
    whatever I is; **read** (op 0) changes nothing. Flags and the field are
    written at the edge ending *t*; the row is read at that edge (after the
    write). In *t* + 1 the unit shows the action and the warp's flags and
    fields. Latency 1 cycle, one command per cycle.

    Parameters
    ----------
    entries : int
        Entries (64).

    Members
    -------
    s1_cmd : In
        ``valid``, ``op`` (2 bits), ``wid`` (the warp acted on), ``src`` (the interfered warp, for a trigger).
    s2_cmd : Out
        ``valid``, ``act`` (0 none, 1 isolate, 2 stall, 3 reactivate, 4 back to L1D), ``v``, ``i``,
        ``f0``, ``f1``.

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, entries: int = 64) -> None:
        self._entries = require("entries", entries, 1, 1 << WID_BITS)
        super().__init__({
            "s1_cmd": In(wiring.Signature({"valid": Out(1), "op": Out(2), "wid": Out(WID_BITS),
                                           "src": Out(WID_BITS)})),
            "s2_cmd": Out(wiring.Signature({"valid": Out(1), "act": Out(3), "v": Out(1), "i": Out(1),
                                            "f0": Out(WID_BITS), "f1": Out(WID_BITS)})),
        })

    def elaborate(self, platform):
        m = Module()
        n = self._entries
        row = data.ArrayLayout(WID_BITS, 2)
        m.submodules.pairs = pairs = memory.Memory(shape=row, depth=n, init=[[CLEARED, CLEARED]] * n)
        wr = pairs.write_port(granularity=1)
        rd = pairs.read_port(transparent_for=(wr,))
        v = Array(Signal(init=1, name=f"v{k}") for k in range(n))
        i = Array(Signal(name=f"i{k}") for k in range(n))

        c = self.s1_cmd
        cv, ci = Signal(), Signal()
        m.d.comb += [cv.eq(v[c.wid]), ci.eq(i[c.wid])]
        trigger = c.valid & ((c.op == OP_TRIGGER) | (c.op == OP_STALL))
        force = c.op == OP_STALL
        release = c.valid & (c.op == OP_RELEASE)
        act = Signal(3)
        with m.If(trigger):
            with m.If(ci | force):
                m.d.comb += act.eq(ACT_STALL)
            with m.Else():
                m.d.comb += act.eq(ACT_ISOLATE)
        with m.Elif(release):
            with m.If(~cv):
                m.d.comb += act.eq(ACT_REACTIVATE)
            with m.Elif(ci):
                m.d.comb += act.eq(ACT_UNISOLATE)
        with m.Switch(act):
            with m.Case(ACT_ISOLATE):
                m.d.sync += i[c.wid].eq(1)
            with m.Case(ACT_STALL):
                m.d.sync += v[c.wid].eq(0)
            with m.Case(ACT_REACTIVATE):
                m.d.sync += v[c.wid].eq(1)
            with m.Case(ACT_UNISOLATE):
                m.d.sync += i[c.wid].eq(0)
        field1 = (act == ACT_STALL) | (act == ACT_REACTIVATE)
        value = Mux((act == ACT_ISOLATE) | (act == ACT_STALL), c.src, Const(CLEARED, WID_BITS))
        m.d.comb += [wr.addr.eq(c.wid), wr.data[0].eq(value), wr.data[1].eq(value),
                     wr.en.eq(Mux(act == ACT_NONE, 0, Mux(field1, 0b10, 0b01))),
                     rd.addr.eq(c.wid), rd.en.eq(c.valid)]

        s2_valid, s2_wid, s2_act = Signal(), Signal(WID_BITS), Signal(3)
        m.d.sync += [s2_valid.eq(c.valid), s2_wid.eq(c.wid), s2_act.eq(act)]
        r = self.s2_cmd
        m.d.comb += [r.valid.eq(s2_valid), r.act.eq(s2_act), r.v.eq(v[s2_wid] & s2_valid),
                     r.i.eq(i[s2_wid] & s2_valid), r.f0.eq(Mux(s2_valid, rd.data[0], 0)),
                     r.f1.eq(Mux(s2_valid, rd.data[1], 0))]
        return m
