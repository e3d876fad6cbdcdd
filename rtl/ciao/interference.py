"""ciao18's interference list: per warp, the most frequently interfering warp and a 2-bit counter."""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from rtl.ciao.common import WID_BITS, require
from rtl.common.saturating import sat_dec, sat_inc

__all__ = ["InterferenceList", "il_entry"]


def il_entry(counter_bits: int) -> data.StructLayout:
    """One entry: the interfering warp's WID and the saturating counter (6 + 2 = 8 bits)."""
    return data.StructLayout({"by": WID_BITS, "count": counter_bits})


class InterferenceList(wiring.Component):
    """ciao18's interference list (Sections III-A, IV-A), golden model ``golden.units.ciao_interference``.

    One SRAM ``entries`` of ``entries`` rows of :func:`il_entry`, entry *i*
    starting as (*i*, 0), with two synchronous read ports (update, lookup),
    both transparent for the one write port.

    * **update s1** (cycle *t*): entry ``wid`` is read at the edge.
    * **update s2** (*t* + 1): ``by`` equal to the entry's WID increments
      the counter (saturating); a different ``by`` decrements it, or
      replaces the WID when the counter is 0; written at the edge ending
      *t* + 1. A back-to-back update of the same entry reads that write.
    * **lookup**: read at the edge ending *t*, shown in *t* + 1.

    Parameters
    ----------
    entries : int
        Entries (64).
    counter_bits : int
        Counter width (2).

    Members
    -------
    s1_upd : In
        ``valid``, ``wid`` (the warp that lost a line), ``by`` (the warp that evicted it).
    s1_look : In
        ``valid``, ``wid``.
    s2_look : Out
        ``valid``, ``by``, ``count`` of the previous cycle's lookup (0 when not valid).

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, entries: int = 64, counter_bits: int = 2) -> None:
        self._entries = require("entries", entries, 1, 1 << WID_BITS)
        self._counter_bits = require("counter_bits", counter_bits, 1, 8)
        super().__init__({
            "s1_upd": In(wiring.Signature({"valid": Out(1), "wid": Out(WID_BITS), "by": Out(WID_BITS)})),
            "s1_look": In(wiring.Signature({"valid": Out(1), "wid": Out(WID_BITS)})),
            "s2_look": Out(wiring.Signature({"valid": Out(1), "by": Out(WID_BITS),
                                             "count": Out(counter_bits)})),
        })

    def elaborate(self, platform):
        m = Module()
        layout = il_entry(self._counter_bits)
        init = [{"by": i, "count": 0} for i in range(self._entries)]
        m.submodules.entries = entries = memory.Memory(shape=layout, depth=self._entries, init=init)
        wr = entries.write_port()
        rd_upd = entries.read_port(transparent_for=(wr,))
        rd_look = entries.read_port(transparent_for=(wr,))

        u = self.s1_upd
        s2_valid, s2_wid, s2_by = Signal(), Signal(WID_BITS), Signal(WID_BITS)
        m.d.comb += [rd_upd.addr.eq(u.wid), rd_upd.en.eq(u.valid)]
        m.d.sync += [s2_valid.eq(u.valid), s2_wid.eq(u.wid), s2_by.eq(u.by)]
        old = rd_upd.data
        new = Signal(layout)
        same = old.by == s2_by
        m.d.comb += [
            new.by.eq(Mux(same | (old.count != 0), old.by, s2_by)),
            new.count.eq(Mux(same, sat_inc(old.count), sat_dec(old.count))),
            wr.addr.eq(s2_wid), wr.data.eq(new), wr.en.eq(s2_valid),
        ]

        q = self.s1_look
        look_valid = Signal()
        m.d.comb += [rd_look.addr.eq(q.wid), rd_look.en.eq(q.valid)]
        m.d.sync += look_valid.eq(q.valid)
        r = self.s2_look
        m.d.comb += [r.valid.eq(look_valid), r.by.eq(Mux(look_valid, rd_look.data.by, 0)),
                     r.count.eq(Mux(look_valid, rd_look.data.count, 0))]
        return m
