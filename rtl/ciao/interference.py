"""ciao18's interference list: per warp, the most frequently interfering warp and a 2-bit counter."""

from __future__ import annotations

from amaranth.hdl import Const, Module, Mux, Signal
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

    One SRAM ``entries`` of ``entries`` rows of :func:`il_entry` (entry *i*
    reads as (*i*, 0) until written), with two synchronous read ports (update, lookup),
    both transparent for the one write port, and a valid bit per entry (a
    register; an invalid entry reads as (*i*, 0)), set by each write and
    cleared by ``kernel_start`` at the edge (over that edge's write).

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
    kernel_start : In
        A kernel starts: every entry back to (*i*, 0).
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
            "kernel_start": In(1),
            "s1_upd": In(wiring.Signature({"valid": Out(1), "wid": Out(WID_BITS), "by": Out(WID_BITS)})),
            "s1_look": In(wiring.Signature({"valid": Out(1), "wid": Out(WID_BITS)})),
            "s2_look": Out(wiring.Signature({"valid": Out(1), "by": Out(WID_BITS),
                                             "count": Out(counter_bits)})),
        })

    def elaborate(self, platform):
        m = Module()
        layout = il_entry(self._counter_bits)
        # No reset value: an entry is (i, 0) until its valid bit is set.
        m.submodules.entries = entries = memory.Memory(shape=layout, depth=self._entries, init=[])
        wr = entries.write_port()
        rd_upd = entries.read_port(transparent_for=(wr,))
        rd_look = entries.read_port(transparent_for=(wr,))

        # Valid bits after this edge: set by its write, all cleared by a kernel start.
        valid = Signal(self._entries)
        written = Mux(wr.en, Const(1, self._entries) << wr.addr, 0)
        valid_next = Mux(self.kernel_start, 0, valid | written)
        m.d.sync += valid.eq(valid_next)

        u = self.s1_upd
        s2_valid, s2_wid, s2_by, s2_ok = Signal(), Signal(WID_BITS), Signal(WID_BITS), Signal()
        m.d.comb += [rd_upd.addr.eq(u.wid), rd_upd.en.eq(u.valid)]
        m.d.sync += [s2_valid.eq(u.valid), s2_wid.eq(u.wid), s2_by.eq(u.by),
                     s2_ok.eq(valid_next.bit_select(u.wid, 1))]
        old = Signal(layout)
        m.d.comb += [old.by.eq(Mux(s2_ok, rd_upd.data.by, s2_wid)),
                     old.count.eq(Mux(s2_ok, rd_upd.data.count, 0))]
        new = Signal(layout)
        same = old.by == s2_by
        m.d.comb += [
            new.by.eq(Mux(same | (old.count != 0), old.by, s2_by)),
            new.count.eq(Mux(same, sat_inc(old.count), sat_dec(old.count))),
            wr.addr.eq(s2_wid), wr.data.eq(new), wr.en.eq(s2_valid),
        ]

        q = self.s1_look
        look_valid, look_wid, look_ok = Signal(), Signal(WID_BITS), Signal()
        m.d.comb += [rd_look.addr.eq(q.wid), rd_look.en.eq(q.valid)]
        m.d.sync += [look_valid.eq(q.valid), look_wid.eq(q.wid), look_ok.eq(valid_next.bit_select(q.wid, 1))]
        r = self.s2_look
        m.d.comb += [r.valid.eq(look_valid),
                     r.by.eq(Mux(look_valid, Mux(look_ok, rd_look.data.by, look_wid), 0)),
                     r.count.eq(Mux(look_valid & look_ok, rd_look.data.count, 0))]
        return m
