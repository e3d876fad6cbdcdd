"""drp16's working-set-sample (WSS) cache as a 2-stage pipeline over one entry SRAM."""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2, exact_log2

from rtl.common.signature import ParamSignature

__all__ = ["Wss", "WssAccess", "WssResponse", "entry_layout", "DYNTEX", "STREAMS", "LINE_BITS"]

#: Width of the line address: 48-bit physical byte addresses of 64-byte blocks.
LINE_BITS = 42
#: Stream ids (drp16's eleven: four CPU cores, colour, depth, texture, dynamic texture, ...).
STREAMS, STREAM_BITS = 11, 4
#: The dynamic-texture stream's id (``golden.llc.streams.DYNTEX``).
DYNTEX = 7
#: 64 blocks per 4 KB page, every 8th tracked.
PAGE_BITS, STRIDE_BITS, TRACKED = 6, 3, 8

#: State of one tracked block: valid, written, reused (dynamic texture), stream id.
BLOCK = data.StructLayout({"v": 1, "w": 1, "r": 1, "sid": STREAM_BITS})


def entry_layout(tag_bits: int) -> data.StructLayout:
    """One WSS entry: valid, page tag, eight tracked blocks (drp16 Section 5.6: 86 bits for 29-bit tags)."""
    return data.StructLayout({"valid": 1, "tag": tag_bits, "blocks": data.ArrayLayout(BLOCK, TRACKED)})


def _check(sets: object, ways: object, min_entries: object, epoch: object, counter_bits: object,
           rng_init: object) -> None:
    for name, v, hi in (("sets", sets, 1 << 13), ("ways", ways, 64)):
        if not isinstance(v, int) or not 1 <= v <= hi or v & (v - 1):
            raise ValueError(f"{name}: must be a power of 2 up to {hi}, not {v!r}")
    if sets < 2:
        raise ValueError(f"sets: must be at least 2, not {sets}")
    for name, v, lo, hi in (("min_entries", min_entries, 0, sets * ways), ("epoch", epoch, 1, 1 << 40),
                            ("counter_bits", counter_bits, 2, 32), ("rng_init", rng_init, 1, (1 << 64) - 1)):
        if not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"{name}: must be an integer from {lo} to {hi}, not {v!r}")


class WssAccess(ParamSignature):
    """An LLC access presented to the WSS cache, from the LLC's side (valid/ready).

    Members
    -------
    valid : Out(1)
        An access is presented; it is taken in a cycle with ``ready``.
    line : Out(42)
        64-byte block number.
    stream : Out(4)
        Stream id (0 to 10).
    write : Out(1)
        1 for an LLC write, 0 for a read.
    ready : In(1)
        The unit takes the access this cycle.
    """

    def __init__(self) -> None:
        super().__init__({"valid": Out(1), "line": Out(LINE_BITS), "stream": Out(STREAM_BITS),
                          "write": Out(1), "ready": In(1)})


class WssResponse(ParamSignature):
    """What an access did, and the counters before it, from the unit's side.

    Parameters
    ----------
    ways : int
        Associativity (a power of 2).
    held_bits, counter_bits : int
        Widths of the entries-per-stream count and of the counters.

    Members
    -------
    valid : Out(1)
        The access taken in the previous cycle is answered (every other member is 0 otherwise).
    hit, alloc : Out(1)
        The page was present; an entry was allocated (invalid way or random replacement).
    way : Out(log2(ways))
        The entry's way (0 when the access bypassed the WSS).
    reuse : Out(2)
        0 none, 1 write-to-read reuse, 2 read-to-read reuse.
    epoch : Out(1)
        The access ended an epoch.
    held : Out(held_bits)
        Entries the access's stream held.
    wr, rr, wa : Out(counter_bits)
        The access's stream's WR, RR and WA counters.
    max_reuse, dt_blocks, dt_reused : Out(counter_bits)
        MAX_REUSE and the dynamic-texture pair.
    """

    def __init__(self, *, ways: int, held_bits: int, counter_bits: int) -> None:
        if not isinstance(ways, int) or ways < 1 or ways & (ways - 1):
            raise ValueError(f"ways: must be a positive power of 2, not {ways!r}")
        self._ways = ways
        super().__init__({
            "valid": Out(1), "hit": Out(1), "alloc": Out(1), "way": Out(max(1, exact_log2(ways))),
            "reuse": Out(2), "epoch": Out(1), "held": Out(held_bits),
            **{k: Out(counter_bits) for k in ("wr", "rr", "wa", "max_reuse", "dt_blocks", "dt_reused")},
        }, ways=ways, held_bits=held_bits, counter_bits=counter_bits)

    @property
    def ways(self) -> int:
        return self._ways


class Wss(wiring.Component):
    """drp16's WSS cache (Section 5.1): page-tag entries sampling every 8th block, reuse counters.

    The golden model, with the full protocol, is ``golden.units.wss.Wss``;
    ports, latency and state are the same.

    Pipeline:

    * **s1** (cycle *t*): an access is taken when ``s1_acc.valid &
      s1_acc.ready``; its set index addresses the entry SRAM (one row per
      set, ``ways`` entries of :func:`entry_layout`), read at the edge.
    * **s2** (cycle *t* + 1): tag compare; the way is the hit way, else the
      lowest invalid way, else (if the stream holds fewer than
      ``min_entries`` entries) a random way: bits 58 and up of the
      xorshift64 register after one step, which the replacement keeps;
      else the access bypasses. The tracked block (``line % 8 == 0``) is
      updated and the counters (registers) counted; ``s2_resp`` shows the
      outcome and the counters as they were before the access. The row
      (byte enables per entry) and the registers are written at the edge
      ending s2.
    * **epoch end**: the read that completes ``epoch`` reads halves every
      counter (after its own increments) and clears the entries-per-stream
      counts at the edge ending its s2; ``s1_acc.ready`` is 0 in that s2
      cycle and in the ``sets`` cycles after it, which write one zero row
      each (the invalidation).

    Latency 1 cycle; one access per cycle except the ``1 + sets`` cycles of
    an epoch end. Hazard: an access to the set the access in s2 writes; the
    SRAM's read port is transparent for its write port, so the s1 read sees
    the s2 write of that edge. MAX_REUSE is a register updated with the
    incremented counter and halved at an epoch end (the maximum of halved
    counters is the halved maximum). ``rst`` does not clear the SRAM (it
    starts at 0).

    Parameters
    ----------
    sets, ways : int
        Geometry (drp16: 128 x 16), powers of 2.
    min_entries : int
        A stream with fewer entries may replace one at random (32).
    epoch : int
        LLC reads per epoch (512K).
    counter_bits : int
        Width of the saturating counters (20).
    rng_init : int
        Initial xorshift64 state (non-zero; ``golden.cache.replacement.seed_states`` of the seed).

    Members
    -------
    s1_acc : In(WssAccess)
        The LLC access (valid/ready).
    s2_resp : Out(WssResponse)
        The outcome of the access taken in the previous cycle.

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, sets: int = 128, ways: int = 16, min_entries: int = 32, epoch: int = 512 * 1024,
                 counter_bits: int = 20, rng_init: int = 1) -> None:
        _check(sets, ways, min_entries, epoch, counter_bits, rng_init)
        self._sets, self._ways, self._min_entries, self._epoch = sets, ways, min_entries, epoch
        self._counter_bits, self._rng_init = counter_bits, rng_init
        super().__init__({
            "s1_acc": In(WssAccess()),
            "s2_resp": Out(WssResponse(ways=ways, held_bits=self.held_bits, counter_bits=counter_bits)),
        })

    @property
    def sets(self) -> int:
        return self._sets

    @property
    def ways(self) -> int:
        return self._ways

    @property
    def held_bits(self) -> int:
        """Width of an entries-per-stream count (up to ``sets * ways``)."""
        return (self._sets * self._ways).bit_length()

    @property
    def tag_bits(self) -> int:
        return LINE_BITS - PAGE_BITS - exact_log2(self._sets)

    @property
    def row(self) -> data.ArrayLayout:
        """Layout of a row of the entry SRAM: ``ways`` entries."""
        return data.ArrayLayout(entry_layout(self.tag_bits), self._ways)

    @property
    def storage_bits(self) -> dict[str, int]:
        """State bits by structure: the entries (SRAM) and the registers."""
        c = self._counter_bits
        return {"entries": self._sets * self.row.size,
                "counters": (3 * STREAMS + 3) * c, "held": STREAMS * self.held_bits,
                "reads": ceil_log2(self._epoch + 1), "rng": 64}

    def _xorshift(self, x: Value) -> Value:
        """One xorshift64 step (``golden.cache.replacement.xorshift_next``'s state update)."""
        a = (x ^ (x >> 12))[:64]
        b = (a ^ (a << 25))[:64]
        return (b ^ (b >> 27))[:64]

    @staticmethod
    def _first(m: Module, bits: Value, width: int) -> tuple[Value, Value]:
        """(any, index of the lowest set bit) of ``bits``."""
        idx = Signal(width)
        for i in reversed(range(len(bits))):
            with m.If(bits[i]):
                m.d.comb += idx.eq(i)
        return bits.any(), idx

    def _owner(self, m: Module, blocks: data.View) -> tuple[Value, Value]:
        """(has an owner, the stream of the first valid tracked block) of an entry's blocks."""
        valid = Cat(*(blocks[i].v for i in range(TRACKED)))
        has, first = self._first(m, valid, exact_log2(TRACKED))
        sid = Signal(STREAM_BITS)
        m.d.comb += sid.eq(blocks[first].sid)
        return has, sid

    def elaborate(self, platform):
        m = Module()
        sets, ways, cb = self._sets, self._ways, self._counter_bits
        sb, wb = exact_log2(sets), max(1, exact_log2(ways))
        top = (1 << cb) - 1
        entry = entry_layout(self.tag_bits)

        m.submodules.entries = entries = memory.Memory(shape=self.row, depth=sets, init=[])
        wr = entries.write_port(granularity=1)
        rd = entries.read_port(transparent_for=(wr,))

        def counters(name: str, n: int, width: int) -> Array:
            return Array(Signal(width, name=f"{name}{i}") for i in range(n))

        wr_c, rr_c, wa_c = (counters(k, STREAMS, cb) for k in ("wr", "rr", "wa"))
        held = counters("held", STREAMS, self.held_bits)
        max_reuse, dt_blocks, dt_reused = Signal(cb), Signal(cb), Signal(cb)
        reads = Signal(ceil_log2(self._epoch + 1))
        rng = Signal(64, init=self._rng_init)
        flushing, frow = Signal(), Signal(max(1, sb))

        # ---- s1: take the access, read its set's row.
        s2_valid, s2_line = Signal(), Signal(LINE_BITS)
        s2_stream, s2_write = Signal(STREAM_BITS), Signal()
        ready = Signal()
        take = self.s1_acc.valid & ready
        m.d.comb += [rd.addr.eq(self.s1_acc.line[PAGE_BITS:PAGE_BITS + sb]), rd.en.eq(take),
                     self.s1_acc.ready.eq(ready)]
        m.d.sync += [s2_valid.eq(take), s2_line.eq(self.s1_acc.line), s2_stream.eq(self.s1_acc.stream),
                     s2_write.eq(self.s1_acc.write)]

        # ---- s2: lookup and way choice.
        row = rd.data
        tag = s2_line[PAGE_BITS + sb:]
        hit_any, hit_way = self._first(m, Cat(*(row[w].valid & (row[w].tag == tag) for w in range(ways))), wb)
        inv_any, inv_way = self._first(m, Cat(*(~row[w].valid for w in range(ways))), wb)
        rng_next = self._xorshift(rng)
        rand_way = rng_next[58:58 + wb] if ways > 1 else Const(0, 1)
        can_replace = held[s2_stream] < self._min_entries
        hit = s2_valid & hit_any
        replace = s2_valid & ~hit_any & ~inv_any & can_replace
        present = hit | (s2_valid & (inv_any | can_replace))
        way = Signal(wb)
        m.d.comb += way.eq(Mux(hit_any, hit_way, Mux(inv_any, inv_way, rand_way)))
        old = row[way]

        # ---- s2: the tracked block.
        blocks_in = Signal(data.ArrayLayout(BLOCK, TRACKED))
        m.d.comb += blocks_in.eq(Mux(hit_any, Value.cast(old.blocks), 0))
        m_idx = s2_line[STRIDE_BITS:PAGE_BITS]
        b = Signal(BLOCK)
        m.d.comb += b.eq(blocks_in[m_idx])
        read = ~s2_write
        upd = present & (s2_line[:STRIDE_BITS] == 0)
        dyn = s2_stream == DYNTEX
        reuse = upd & read & b.v
        wr_ev, rr_ev, wa_ev = reuse & b.w, reuse & ~b.w, upd & s2_write
        dt0_ev = upd & read & dyn & (~b.v | (b.sid != DYNTEX))
        dt1_ev = upd & read & dyn & b.v & (b.sid == DYNTEX) & ~b.r
        new_b = Signal(BLOCK)
        m.d.comb += [new_b.v.eq(1), new_b.w.eq(s2_write), new_b.sid.eq(s2_stream),
                     new_b.r.eq(read & b.v & Mux(dyn, b.sid == DYNTEX, b.r))]
        new = Signal(entry)
        # valid from ``present`` (1 whenever the entry is written), not a constant: Icarus never runs an
        # ``always @*`` block that only assigns a constant, which left the bit x.
        m.d.comb += [new.valid.eq(present), new.tag.eq(tag), new.blocks.eq(blocks_in)]
        with m.If(s2_line[:STRIDE_BITS] == 0):
            m.d.comb += new.blocks[m_idx].eq(new_b)

        # ---- s2: owners and entries per stream.
        old_has, old_sid = self._owner(m, old.blocks)
        old_has = old_has & old.valid
        new_has, new_sid = self._owner(m, new.blocks)
        moves = present & ((old_has != new_has) | (old_has & (old_sid != new_sid)))

        # ---- s2: reads and the epoch.
        read_ev = s2_valid & read
        epoch_end = read_ev & (reads + 1 == self._epoch)
        m.d.comb += ready.eq(~flushing & ~epoch_end)

        def sat(v: Value, inc: Value) -> Value:
            return Mux(inc & (v != top), v + 1, v)[:cb]

        def halve(v: Value) -> Value:
            return Mux(epoch_end, v >> 1, v)

        for i in range(STREAMS):
            m.d.sync += [wr_c[i].eq(halve(sat(wr_c[i], wr_ev & (b.sid == i)))),
                         rr_c[i].eq(halve(sat(rr_c[i], rr_ev & (b.sid == i)))),
                         wa_c[i].eq(halve(sat(wa_c[i], wa_ev & (s2_stream == i))))]
            dec = moves & old_has & (old_sid == i)
            inc = moves & new_has & (new_sid == i)
            m.d.sync += held[i].eq(Mux(epoch_end, 0, held[i] + inc - dec))
        bumped = sat(Mux(wr_ev, wr_c[b.sid], rr_c[b.sid]), 1)
        m.d.sync += [
            max_reuse.eq(halve(Mux(reuse & (bumped > max_reuse), bumped, max_reuse))),
            dt_blocks.eq(halve(sat(dt_blocks, dt0_ev))),
            dt_reused.eq(halve(sat(dt_reused, dt1_ev))),
        ]
        with m.If(read_ev):
            m.d.sync += reads.eq(Mux(epoch_end, 0, reads + 1))
        with m.If(replace):
            m.d.sync += rng.eq(rng_next)

        # ---- the invalidation after an epoch: one zero row per cycle.
        with m.If(epoch_end):
            m.d.sync += [flushing.eq(1), frow.eq(0)]
        with m.If(flushing):
            m.d.sync += frow.eq(frow + 1)
            with m.If(frow == sets - 1):
                m.d.sync += flushing.eq(0)

        # ---- the row write: the access's entry, or a zero row while flushing.
        for w in range(ways):
            m.d.comb += wr.data[w].eq(Mux(flushing, 0, Value.cast(new)))
        m.d.comb += [
            wr.addr.eq(Mux(flushing, frow, s2_line[PAGE_BITS:PAGE_BITS + sb])),
            wr.en.eq(Mux(flushing, (1 << ways) - 1, Mux(present, 1 << way, 0))),
        ]

        # ---- the response.
        r = self.s2_resp
        m.d.comb += [
            r.valid.eq(s2_valid),
            r.hit.eq(hit),
            r.alloc.eq(present & ~hit_any),
            r.way.eq(Mux(present, way, 0)),
            r.reuse.eq(Cat(wr_ev, rr_ev)),
            r.epoch.eq(epoch_end),
        ]
        shown = {"held": held[s2_stream], "wr": wr_c[s2_stream], "rr": rr_c[s2_stream], "wa": wa_c[s2_stream],
                 "max_reuse": max_reuse, "dt_blocks": dt_blocks, "dt_reused": dt_reused}
        for name, v in shown.items():
            m.d.comb += getattr(r, name).eq(Mux(s2_valid, v, 0))
        return m
