"""tian15's prediction table: 128 x 4-bit saturating counters indexed by hashed PC.

The table is an SRAM with synchronous read ports: a lookup or an update
presented in stage 1 (``s1_``) reads the array at the clock edge, and its
result (stage 2, ``s2_``) appears in the next cycle.
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import exact_log2

from rtl.common.saturating import sat_dec, sat_inc
from rtl.common.signature import ParamSignature
from rtl.common.stage import register_bundle

__all__ = ["PredictionTable", "LookupRequest", "LookupResponse", "CounterUpdate"]


def _check_entries(entries: object) -> None:
    if not isinstance(entries, int) or entries < 2 or entries & (entries - 1):
        raise ValueError(f"Entries must be a power of 2 of at least 2, not {entries}")


def _check_width(width: object) -> None:
    if not isinstance(width, int) or not 1 <= width <= 8:
        raise ValueError(f"Counter width must be 1 to 8 bits, not {width}")


class LookupRequest(ParamSignature):
    """A table lookup, from the requester's side.

    Parameters
    ----------
    entries : int
        Number of counters (a power of 2).

    Members
    -------
    valid : Out(1)
        A lookup is requested.
    idx : Out(log2(entries))
        Entry to read.
    """

    def __init__(self, *, entries: int) -> None:
        _check_entries(entries)
        self._entries = entries
        super().__init__({"valid": Out(1), "idx": Out(exact_log2(entries))}, entries=entries)

    @property
    def entries(self) -> int:
        return self._entries


class LookupResponse(ParamSignature):
    """A table lookup's result, from the table's side.

    Parameters
    ----------
    width : int
        Counter width in bits.

    Members
    -------
    valid : Out(1)
        The lookup of the previous cycle is answered.
    count : Out(width)
        The counter (0 when not ``valid``).
    bypass : Out(1)
        ``count >= threshold``: predict zero reuse (0 when not ``valid``).
    """

    def __init__(self, *, width: int) -> None:
        _check_width(width)
        self._width = width
        super().__init__({"valid": Out(1), "count": Out(width), "bypass": Out(1)}, width=width)

    @property
    def width(self) -> int:
        return self._width


class CounterUpdate(ParamSignature):
    """A saturating increment or decrement of one counter, from the requester's side.

    The table has two ports of this signature, ``s1_inc`` and ``s1_dec``.

    Parameters
    ----------
    entries : int
        Number of counters (a power of 2).

    Members
    -------
    en : Out(1)
        Update the entry.
    idx : Out(log2(entries))
        Entry to update.
    """

    def __init__(self, *, entries: int) -> None:
        _check_entries(entries)
        self._entries = entries
        super().__init__({"en": Out(1), "idx": Out(exact_log2(entries))}, entries=entries)

    @property
    def entries(self) -> int:
        return self._entries


class PredictionTable(wiring.Component):
    """Saturating-counter prediction table: one lookup and two update ports, two stages.

    The golden model is ``golden.units.prediction_table.PredictionTable``;
    ports, latency and state are the same.

    Pipeline (one lookup and one increment and one decrement per cycle):

    * **s1** (cycle *t*): ``s1_lookup``, ``s1_inc`` and ``s1_dec`` address
      the counter SRAM; its three synchronous read ports sample at the edge.
    * **s2** (cycle *t* + 1): an update writes its saturated counter
      (holding at ``2**width - 1`` and 0) at the edge ending the cycle;
      ``s2_lookup`` shows the lookup's counter.

    Latency: lookup 1 cycle; an update is written 1 cycle after it is
    requested. Throughput: one lookup and two updates per cycle, no stall.

    Hazards, all resolved without stalling:

    * An update (read-modify-write) of an entry written by the update of the
      previous cycle: the read ports are transparent for both write ports, so
      the read at the edge sees the value written at that edge.
    * A lookup of an entry updated in the same cycle or the previous one: the
      previous one is covered by transparency; the same cycle's update is
      written one cycle after the lookup's read, so ``s2_lookup.count`` is
      forwarded from the write port when the addresses match. Hence
      **a lookup sees every update requested up to its own cycle.**
    * An increment and a decrement of the same entry in the same cycle cancel
      (neither is written); of different entries, both apply.

    ``rst`` does not clear the counters (a memory): they start at ``init``.

    Parameters
    ----------
    entries : int
        Number of counters, a power of 2 (tian15: 128).
    width : int
        Counter width in bits, 1 to 8 (tian15: 4).
    threshold : int
        ``bypass`` is ``count >= threshold``; ``2**width`` never predicts.
    init : int
        Initial value of every counter.

    Members
    -------
    s1_lookup : In(LookupRequest)
        Lookup request.
    s1_inc, s1_dec : In(CounterUpdate)
        Increment and decrement requests.
    s2_lookup : Out(LookupResponse)
        The counter at the previous cycle's lookup, and the prediction.

    Raises
    ------
    ValueError
        For a non-power-of-2 size, a width outside 1..8, or a threshold or init out of range.
    """

    def __init__(self, *, entries: int = 128, width: int = 4, threshold: int = 8, init: int = 0) -> None:
        _check_entries(entries)
        _check_width(width)
        if not isinstance(threshold, int) or not 0 <= threshold <= (1 << width):
            raise ValueError(f"Threshold must be 0 to {1 << width}, not {threshold}")
        if not isinstance(init, int) or not 0 <= init < (1 << width):
            raise ValueError(f"Initial counter value must be 0 to {(1 << width) - 1}, not {init}")
        self._entries, self._width, self._threshold, self._init = entries, width, threshold, init
        super().__init__({
            "s1_lookup": In(LookupRequest(entries=entries)),
            "s1_inc": In(CounterUpdate(entries=entries)),
            "s1_dec": In(CounterUpdate(entries=entries)),
            "s2_lookup": Out(LookupResponse(width=width)),
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

    @property
    def index_bits(self) -> int:
        """Width of an entry index."""
        return exact_log2(self._entries)

    def elaborate(self, platform):
        m = Module()
        m.submodules.table = table = memory.Memory(
            shape=self._width, depth=self._entries, init=[self._init] * self._entries)
        inc_wr = table.write_port()
        dec_wr = table.write_port()
        lookup, inc_rd, dec_rd = (table.read_port(transparent_for=(inc_wr, dec_wr)) for _ in range(3))

        # Stage 2 registers: the updates and the lookup read in stage 1.
        update = CounterUpdate(entries=self._entries)
        s2_inc = register_bundle(m, update, self.s1_inc, name="s2_inc")
        s2_dec = register_bundle(m, update, self.s1_dec, name="s2_dec")
        s2 = register_bundle(m, LookupRequest(entries=self._entries), self.s1_lookup, name="s2_lookup_req")
        s2_valid, s2_idx = s2.valid, s2.idx
        m.d.comb += [
            lookup.addr.eq(self.s1_lookup.idx),
            lookup.en.eq(self.s1_lookup.valid),
            inc_rd.addr.eq(self.s1_inc.idx),
            dec_rd.addr.eq(self.s1_dec.idx),
        ]

        clash = s2_inc.en & s2_dec.en & (s2_inc.idx == s2_dec.idx)
        m.d.comb += [
            inc_wr.addr.eq(s2_inc.idx),
            inc_wr.data.eq(sat_inc(inc_rd.data)),
            inc_wr.en.eq(s2_inc.en & ~clash),
            dec_wr.addr.eq(s2_dec.idx),
            dec_wr.data.eq(sat_dec(dec_rd.data)),
            dec_wr.en.eq(s2_dec.en & ~clash),
        ]

        # Forward this cycle's write to the lookup (at most one port writes the entry: a clash
        # writes neither).
        count = Signal(self._width)
        m.d.comb += count.eq(Mux(inc_wr.en & (inc_wr.addr == s2_idx), inc_wr.data,
                                 Mux(dec_wr.en & (dec_wr.addr == s2_idx), dec_wr.data, lookup.data)))
        m.d.comb += [
            self.s2_lookup.valid.eq(s2_valid),
            self.s2_lookup.count.eq(Mux(s2_valid, count, 0)),
            self.s2_lookup.bypass.eq(s2_valid & (count >= self._threshold)),
        ]
        return m
