"""tian15's L1 tag and metadata unit with the PC-based bypass predictor, as a 2-stage pipeline."""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out, connect
from amaranth.utils import exact_log2

from rtl.common.pc_hash import PC_WIDTH, pc_hash
from rtl.common.signature import ParamSignature
from rtl.predictor.prediction_table import CounterUpdate, LookupRequest, PredictionTable

__all__ = ["L1TagUnit", "L1Request", "L1Lookup", "L2Response", "L1Fill"]

_REPLACEMENTS = ("lru", "plru")


def _check_ways(ways: object) -> None:
    if not isinstance(ways, int) or ways < 1 or ways & (ways - 1):
        raise ValueError(f"Ways must be a positive power of 2, not {ways}")


def _way_bits(ways: int) -> int:
    return max(1, exact_log2(ways))


class L1Request(ParamSignature):
    """A request to the L1 tag unit, from the requester's side (valid/ready).

    Parameters
    ----------
    line_bits : int
        Width of the line address.

    Members
    -------
    valid : Out(1)
        A request is presented; it is taken in a cycle with ``ready``.
    line : Out(line_bits)
        Line address.
    pc : Out(32)
        Byte PC of the instruction.
    store : Out(1)
        1 for a store (or atomic).
    ready : In(1)
        The unit takes the request this cycle.
    """

    def __init__(self, *, line_bits: int) -> None:
        if not isinstance(line_bits, int) or not 1 <= line_bits <= 62:
            raise ValueError(f"Line address width must be 1 to 62 bits, not {line_bits}")
        self._line_bits = line_bits
        super().__init__({"valid": Out(1), "line": Out(line_bits), "pc": Out(PC_WIDTH), "store": Out(1),
                          "ready": In(1)}, line_bits=line_bits)

    @property
    def line_bits(self) -> int:
        return self._line_bits


class L1Lookup(ParamSignature):
    """The tag lookup of a request, from the unit's side.

    Parameters
    ----------
    ways : int
        Associativity (a power of 2).

    Members
    -------
    valid : Out(1)
        The request taken in the previous cycle is answered.
    hit, way : Out(1), Out(log2(ways))
        Hit and hit way (0 on a miss).
    predict : Out(1)
        The PC's bypass prediction.
    """

    def __init__(self, *, ways: int) -> None:
        _check_ways(ways)
        self._ways = ways
        super().__init__({"valid": Out(1), "hit": Out(1), "way": Out(_way_bits(ways)), "predict": Out(1)},
                         ways=ways)

    @property
    def ways(self) -> int:
        return self._ways


class L2Response(ParamSignature):
    """The L2's response to the waiting load miss, from the L2's side.

    Members
    -------
    valid : Out(1)
        The line (or its bypass) arrives.
    bit : Out(1)
        The line's bypassBit (tian15 Listing 1).
    """

    def __init__(self) -> None:
        super().__init__({"valid": Out(1), "bit": Out(1)})


class L1Fill(ParamSignature):
    """How a load miss resolves, from the unit's side.

    Parameters
    ----------
    ways : int
        Associativity (a power of 2).

    Members
    -------
    valid : Out(1)
        The waiting miss resolves this cycle.
    install : Out(1)
        1: the line is installed; 0: it bypasses the L1.
    way : Out(log2(ways))
        The way filled (0 when bypassing).
    """

    def __init__(self, *, ways: int) -> None:
        _check_ways(ways)
        self._ways = ways
        super().__init__({"valid": Out(1), "install": Out(1), "way": Out(_way_bits(ways))}, ways=ways)

    @property
    def ways(self) -> int:
        return self._ways


class L1TagUnit(wiring.Component):
    """Tags, per-line hashed PCs, replacement state and the prediction table of one L1.

    The golden model, with the full protocol, is
    ``golden.units.l1_tag_unit.L1TagUnit``; ports, latency and state are the
    same. The behaviour is tian15 Listing 1 with the bypassBit correction.

    Pipeline:

    * **s1** (cycle *t*): a request is taken when ``s1_req.valid &
      s1_req.ready``. Its set index addresses the three row SRAMs (valid +
      tag, hashed PCs, replacement state) and its hashed PC the prediction
      table; all are read at the edge.
    * **s2** (cycle *t* + 1): tag compare; ``s2_lookup`` shows hit, hit way
      and the prediction. A hit trains the table (decrement of the line's
      hashed PC, for a load or, with ``store_reuse``, a store), stores the
      request's hashed PC and updates the replacement state; a load miss
      picks its victim (lowest invalid way, else the policy's), increments
      the victim's counter when not predicted bypass and the victim is
      valid, and keeps victim, prediction and replacement row for the fill.
      Row writes land at the edge ending s2; counter updates are the
      table's stage 1, written one cycle later (``PredictionTable``).
    * **miss wait**: after a load miss the unit waits for ``l2_resp.valid``;
      that cycle shows ``fill`` and installs (tag, hashed PC, replacement
      insert at the edge) unless the prediction was bypass and
      ``l2_resp.bit`` is 0. A corrected install does not increment the
      victim's counter (Listing 1). A store miss changes nothing.

    Latency: lookup 1 cycle (s2). Throughput: one request per cycle
    (valid/ready) while requests hit or are stores; a load miss blocks:
    ``s1_req.ready`` is 0 in its s2 cycle and until the cycle after the
    L2's response, so a load miss costs 2 + the L2's response time cycles.

    Hazards:

    * A request to the set written by the request in s2 (back to back, same
      set): every row SRAM's read port is transparent for its write port,
      so the s1 read at the edge sees the s2 write of that edge.
    * A request whose hashed PC's counter the request in s2 updates: the
      table forwards (``PredictionTable``); the request's s2 prediction
      includes every earlier request's update.
    * The request after a load miss: stalled by ``ready`` (the unit is
      blocking, so no request follows a miss into the pipeline; the fill's
      replacement update uses the row kept from the miss's s2).

    Storage (memories, one row per set, rows are ``data.ArrayLayout``\\ s of
    the configuration; not cleared by ``rst``): valid + tag per way, a
    hashed PC per way, and the replacement state: per-way LRU ages
    (``log2(ways)`` bits each, a permutation, initialised to ``0, 1, ...,
    ways - 1``; the way with age ``ways - 1`` is the LRU way) or ``ways - 1``
    tree pseudo-LRU bits (heap order, bit = 1 points to the upper half, an
    access points the path away from the way; as ``golden.cache.replacement``).

    Parameters
    ----------
    sets, ways : int
        Geometry, powers of 2 (tian15: 32 x 8).
    line_bits : int
        Width of the line address.
    replacement : str
        ``"plru"`` or ``"lru"``.
    entries, counter_width, threshold : int
        Prediction table parameters (see ``PredictionTable``).
    hash_bits, pc_shift : int
        PC hash (``rtl.common.pc_hash``).
    store_reuse : bool
        Whether a store hit trains the predictor.

    Members
    -------
    s1_req : In(L1Request)
        Request (valid/ready): line address, 32-bit PC, store.
    s2_lookup : Out(L1Lookup)
        Hit, hit way and prediction of the request taken in the previous cycle.
    l2_resp : In(L2Response)
        The L2 response to the waiting load miss and its bypassBit.
    fill : Out(L1Fill)
        The waiting miss resolves: install or bypass, and the way filled.

    Raises
    ------
    ValueError
        For an unusable geometry, replacement policy or predictor parameter.
    """

    def __init__(self, *, sets: int = 32, ways: int = 8, line_bits: int = 42, replacement: str = "plru",
                 entries: int = 128, counter_width: int = 4, threshold: int = 8, hash_bits: int = 7,
                 pc_shift: int = 3, store_reuse: bool = True) -> None:
        if not isinstance(sets, int) or sets < 1 or sets & (sets - 1):
            raise ValueError(f"Sets must be a positive power of 2, not {sets}")
        _check_ways(ways)
        if replacement not in _REPLACEMENTS:
            raise ValueError(f"Replacement must be one of {', '.join(_REPLACEMENTS)}, not {replacement!r}")
        if not isinstance(line_bits, int) or not exact_log2(sets) < line_bits <= 62:
            raise ValueError(f"Line address width must be more than the index bits and at most 62, "
                             f"not {line_bits}")
        if (1 << hash_bits) != entries:
            raise ValueError(f"A {hash_bits}-bit PC hash cannot index {entries} entries")
        self._table = PredictionTable(entries=entries, width=counter_width, threshold=threshold)
        self._sets, self._ways, self._line_bits = sets, ways, line_bits
        self._replacement = replacement
        self._hash_bits, self._pc_shift, self._store_reuse = hash_bits, pc_shift, store_reuse
        super().__init__({
            "s1_req": In(L1Request(line_bits=line_bits)),
            "s2_lookup": Out(L1Lookup(ways=ways)),
            "l2_resp": In(L2Response()),
            "fill": Out(L1Fill(ways=ways)),
        })

    @property
    def sets(self) -> int:
        return self._sets

    @property
    def ways(self) -> int:
        return self._ways

    @property
    def replacement(self) -> str:
        return self._replacement

    @property
    def index_bits(self) -> int:
        return exact_log2(self._sets)

    @property
    def tag_bits(self) -> int:
        return self._line_bits - self.index_bits

    @property
    def tag_row(self) -> data.ArrayLayout:
        """Layout of a row of the valid + tag SRAM: per way, ``valid`` and ``tag``."""
        return data.ArrayLayout(data.StructLayout({"valid": 1, "tag": self.tag_bits}), self._ways)

    @property
    def hpc_row(self) -> data.ArrayLayout:
        """Layout of a row of the hashed-PC SRAM: a hashed PC per way."""
        return data.ArrayLayout(self._hash_bits, self._ways)

    @property
    def repl_row(self) -> data.ArrayLayout:
        """Layout of a row of the replacement SRAM: LRU ages per way, or tree pseudo-LRU bits."""
        if self._replacement == "lru":
            return data.ArrayLayout(_way_bits(self._ways), self._ways)
        return data.ArrayLayout(1, max(1, self._ways - 1))

    @property
    def storage_bits(self) -> dict[str, int]:
        """State bits by structure (the prediction table included)."""
        lines = self._sets * self._ways
        repl = (lines * exact_log2(self._ways) if self._replacement == "lru"
                else self._sets * (self._ways - 1))
        return {
            "valid+tag": lines * (1 + self.tag_bits),
            "hashed_pc": lines * self._hash_bits,
            "replacement": repl,
            "prediction_table": self._table.entries * self._table.width,
        }

    def _victim(self, m: Module, repl: Value) -> Value:
        """The replacement policy's victim way for a replacement row."""
        k = exact_log2(self._ways)
        victim = Signal(_way_bits(self._ways))
        if self._replacement == "lru":
            ages = data.ArrayLayout(_way_bits(self._ways), self._ways)(repl)
            for w in range(self._ways):
                with m.If(ages[w] == self._ways - 1):
                    m.d.comb += victim.eq(w)
        elif k:
            node = Const(1, 1)
            for _ in range(k):
                node = Cat(repl.bit_select((node - 1)[:len(node)], 1), node)
            m.d.comb += victim.eq(node[:k])
        return victim

    def _touch(self, repl: Value, way: Value) -> Value:
        """The replacement row after an access (hit or insert) to ``way``."""
        k = exact_log2(self._ways)
        if not k:
            return repl
        if self._replacement == "lru":
            ages = data.ArrayLayout(k, self._ways)(repl)
            old = ages[way]
            return Cat(*(Mux(way == w, 0, Mux(ages[w] < old, ages[w] + 1, ages[w]))[:k]
                         for w in range(self._ways)))
        bits = []
        for j in range(1, self._ways):
            lvl = j.bit_length() - 1
            on_path = (way >> (k - lvl)) == (j - (1 << lvl))
            bits.append(Mux(on_path, ~way[k - 1 - lvl], repl[j - 1]))
        return Cat(*bits)

    def elaborate(self, platform):
        m = Module()
        ways, ib, hb = self._ways, self.index_bits, self._hash_bits
        m.submodules.table = table = self._table

        init_repl = [list(range(ways))] * self._sets if self._replacement == "lru" else []
        m.submodules.tags = tags = memory.Memory(shape=self.tag_row, depth=self._sets, init=[])
        m.submodules.hpcs = hpcs = memory.Memory(shape=self.hpc_row, depth=self._sets, init=[])
        m.submodules.repl = repl = memory.Memory(shape=self.repl_row, depth=self._sets, init=init_repl)
        tags_wr = tags.write_port(granularity=1)
        hpcs_wr = hpcs.write_port(granularity=1)
        repl_wr = repl.write_port()
        tags_rd = tags.read_port(transparent_for=(tags_wr,))
        hpcs_rd = hpcs.read_port(transparent_for=(hpcs_wr,))
        repl_rd = repl.read_port(transparent_for=(repl_wr,))

        # The load miss waiting for the L2: its line, hashed PC, victim, prediction, replacement row.
        waiting = Signal()
        w_line = Signal(self._line_bits)
        w_hpc = Signal(hb)
        w_victim = Signal(_way_bits(ways))
        w_predict = Signal()
        w_repl = Signal(self.repl_row)

        # s1 -> s2 registers.
        s2_valid = Signal()
        s2_line = Signal(self._line_bits)
        s2_hpc = Signal(hb)
        s2_store = Signal()

        # ---- s1: take the request, read the rows and the counter.
        ready = Signal()
        take = self.s1_req.valid & ready
        s1_hpc = pc_hash(self.s1_req.pc, bits=hb, shift=self._pc_shift)
        for port in (tags_rd, hpcs_rd, repl_rd):
            m.d.comb += [port.addr.eq(self.s1_req.line[:ib]), port.en.eq(take)]
        lookup = LookupRequest(entries=table.entries).create(path=("s1_lookup",))
        m.d.comb += [lookup.valid.eq(take), lookup.idx.eq(s1_hpc), self.s1_req.ready.eq(ready)]
        connect(m, lookup, table.s1_lookup)
        m.d.sync += [s2_valid.eq(take), s2_line.eq(self.s1_req.line), s2_hpc.eq(s1_hpc),
                     s2_store.eq(self.s1_req.store)]

        # ---- s2: compare, decide, train.
        row = tags_rd.data
        match = Cat(*(row[w].valid & (row[w].tag == s2_line[ib:]) for w in range(ways)))
        hit = s2_valid & match.any()
        hit_way = Signal(_way_bits(ways))
        for w in reversed(range(ways)):
            with m.If(match[w]):
                m.d.comb += hit_way.eq(w)
        valid = Cat(*(row[w].valid for w in range(ways)))
        victim = Signal(_way_bits(ways))
        m.d.comb += victim.eq(self._victim(m, Value.cast(repl_rd.data)))
        for w in reversed(range(ways)):
            with m.If(~valid[w]):
                m.d.comb += victim.eq(w)
        predict = table.s2_lookup.bypass

        load = ~s2_store
        train_hit = hit & (load | self._store_reuse)
        miss_load = s2_valid & ~match.any() & load
        m.d.comb += ready.eq(~waiting & ~miss_load)
        m.d.comb += [
            self.s2_lookup.valid.eq(s2_valid),
            self.s2_lookup.hit.eq(hit),
            self.s2_lookup.way.eq(Mux(hit, hit_way, 0)),
            self.s2_lookup.predict.eq(s2_valid & predict),
        ]
        # The counter updates enter the table's stage 1 in this unit's s2.
        update = CounterUpdate(entries=table.entries)
        inc = update.create(path=("s2_inc",))
        dec = update.create(path=("s2_dec",))
        m.d.comb += [
            dec.en.eq(train_hit),
            dec.idx.eq(hpcs_rd.data[hit_way]),
            inc.en.eq(miss_load & ~predict & valid.bit_select(victim, 1)),
            inc.idx.eq(hpcs_rd.data[victim]),
        ]
        connect(m, inc, table.s1_inc)
        connect(m, dec, table.s1_dec)
        with m.If(miss_load):
            m.d.sync += [waiting.eq(1), w_line.eq(s2_line), w_hpc.eq(s2_hpc), w_victim.eq(victim),
                         w_predict.eq(predict), w_repl.eq(repl_rd.data)]

        # ---- miss wait: the L2 responds.
        resolve = waiting & self.l2_resp.valid
        install = resolve & (~w_predict | self.l2_resp.bit)
        m.d.comb += [
            self.fill.valid.eq(resolve),
            self.fill.install.eq(install),
            self.fill.way.eq(Mux(install, w_victim, 0)),
        ]
        with m.If(resolve):
            m.d.sync += waiting.eq(0)

        # ---- row writes: s2 (a hit) or the fill (an install); never both, the unit is blocking.
        for w in range(ways):
            m.d.comb += [
                tags_wr.data[w].valid.eq(install),
                tags_wr.data[w].tag.eq(w_line[ib:]),
                hpcs_wr.data[w].eq(Mux(waiting, w_hpc, s2_hpc)),
            ]
        m.d.comb += [
            tags_wr.addr.eq(w_line[:ib]),
            tags_wr.en.eq(Mux(install, 1 << w_victim, 0)),
            hpcs_wr.addr.eq(Mux(waiting, w_line[:ib], s2_line[:ib])),
            hpcs_wr.en.eq(Mux(install, 1 << w_victim, Mux(train_hit, 1 << hit_way, 0))),
            repl_wr.addr.eq(Mux(waiting, w_line[:ib], s2_line[:ib])),
            repl_wr.en.eq(hit | install),
            repl_wr.data.eq(self._touch(Mux(waiting, w_repl, Value.cast(repl_rd.data)),
                                        Mux(waiting, w_victim, hit_way))),
        ]
        return m
