"""tian15's prediction table: 128 x 4-bit saturating counters indexed by hashed PC."""

from __future__ import annotations

from amaranth.hdl import Module
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import exact_log2

from rtl.common.saturating import sat_dec, sat_inc

__all__ = ["PredictionTable"]


class PredictionTable(wiring.Component):
    """Saturating-counter prediction table with one lookup and two update ports.

    The golden model is ``golden.units.prediction_table.PredictionTable``;
    ports, latency and state are the same.

    * The lookup is combinational: ``lookup_count`` shows the entry at
      ``lookup_idx`` before this cycle's updates (the memory's asynchronous
      read ports are not transparent to its writes).
    * ``inc_en``/``dec_en`` update their entry at the clock edge, holding at
      ``2**width - 1`` and 0. An increment and a decrement of the same entry
      in the same cycle cancel; of different entries, both apply.
    * ``rst`` does not clear the table (it is a memory): the contents after
      configuration are ``init``.

    Parameters
    ----------
    entries : int
        Number of counters, a power of 2 (tian15: 128).
    width : int
        Counter width in bits, 1 to 8 (tian15: 4).
    threshold : int
        ``lookup_bypass`` is ``lookup_count >= threshold``; ``2**width`` never predicts.
    init : int
        Initial value of every counter.

    Members
    -------
    lookup_idx : In(log2(entries))
        Entry to read.
    inc_en, inc_idx : In(1), In(log2(entries))
        Increment request.
    dec_en, dec_idx : In(1), In(log2(entries))
        Decrement request.
    lookup_count : Out(width)
        Counter at ``lookup_idx``.
    lookup_bypass : Out(1)
        Zero-reuse prediction.

    Raises
    ------
    ValueError
        For a non-power-of-2 size, a width outside 1..8, or a threshold or init out of range.
    """

    def __init__(self, *, entries: int = 128, width: int = 4, threshold: int = 8, init: int = 0) -> None:
        if not isinstance(entries, int) or entries < 2 or entries & (entries - 1):
            raise ValueError(f"Entries must be a power of 2 of at least 2, not {entries}")
        if not isinstance(width, int) or not 1 <= width <= 8:
            raise ValueError(f"Counter width must be 1 to 8 bits, not {width}")
        if not isinstance(threshold, int) or not 0 <= threshold <= (1 << width):
            raise ValueError(f"Threshold must be 0 to {1 << width}, not {threshold}")
        if not isinstance(init, int) or not 0 <= init < (1 << width):
            raise ValueError(f"Initial counter value must be 0 to {(1 << width) - 1}, not {init}")
        self._entries, self._width, self._threshold, self._init = entries, width, threshold, init
        bits = exact_log2(entries)
        super().__init__({
            "lookup_idx": In(bits),
            "inc_en": In(1),
            "inc_idx": In(bits),
            "dec_en": In(1),
            "dec_idx": In(bits),
            "lookup_count": Out(width),
            "lookup_bypass": Out(1),
        })

    @property
    def entries(self) -> int:
        return self._entries

    @property
    def width(self) -> int:
        return self._width

    @property
    def threshold(self) -> int:
        return self._threshold

    @property
    def init(self) -> int:
        return self._init

    def elaborate(self, platform):
        m = Module()
        m.submodules.table = table = memory.Memory(
            shape=self._width, depth=self._entries, init=[self._init] * self._entries)
        lookup = table.read_port(domain="comb")
        inc_rd = table.read_port(domain="comb")
        dec_rd = table.read_port(domain="comb")
        inc_wr = table.write_port()
        dec_wr = table.write_port()

        clash = self.inc_en & self.dec_en & (self.inc_idx == self.dec_idx)
        m.d.comb += [
            lookup.addr.eq(self.lookup_idx),
            self.lookup_count.eq(lookup.data),
            self.lookup_bypass.eq(lookup.data >= self._threshold),
            inc_rd.addr.eq(self.inc_idx),
            inc_wr.addr.eq(self.inc_idx),
            inc_wr.data.eq(sat_inc(inc_rd.data)),
            inc_wr.en.eq(self.inc_en & ~clash),
            dec_rd.addr.eq(self.dec_idx),
            dec_wr.addr.eq(self.dec_idx),
            dec_wr.data.eq(sat_dec(dec_rd.data)),
            dec_wr.en.eq(self.dec_en & ~clash),
        ]
        return m
