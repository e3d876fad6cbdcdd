"""tian15's L1 tag and metadata unit with the PC-based bypass predictor."""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import exact_log2

from rtl.common.pc_hash import PC_WIDTH, pc_hash
from rtl.predictor.prediction_table import PredictionTable

__all__ = ["L1TagUnit"]

_REPLACEMENTS = ("lru", "plru")


class L1TagUnit(wiring.Component):
    """Tags, per-line hashed PCs, replacement state and the prediction table of one L1.

    The golden model, with the full protocol, is
    ``golden.units.l1_tag_unit.L1TagUnit``; ports, latency and state are the
    same. In short: a blocking unit; a request is taken when ``req_valid &
    req_ready`` and its lookup outputs are combinational in that cycle; a
    load miss waits (``req_ready = 0``) for ``l2_valid``, whose cycle shows
    ``fill_*`` and installs unless the prediction was bypass and ``l2_bit``
    is 0 (tian15 Listing 1).

    Storage (memories, one row per set, read asynchronously): valid + tag
    per way, a hashed PC per way, and the replacement state: per-way LRU
    ages (``log2(ways)`` bits each, a permutation, initialised to
    ``0, 1, ..., ways - 1``; way ``w`` with age ``ways - 1`` is the LRU way)
    or ``ways - 1`` tree pseudo-LRU bits (heap order, bit = 1 points to the
    upper half, an access points the path away from the way; as
    ``golden.cache.replacement``). A victim is the lowest invalid way, else
    the policy's choice. Memories are not cleared by ``rst``.

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
    req_valid, req_line, req_pc, req_store : In
        Request: line address, 32-bit PC, 1 for a store (or atomic).
    l2_valid, l2_bit : In
        The L2 response to the waiting load miss and its bypassBit.
    req_ready : Out(1)
        No load miss is waiting.
    lookup_hit, lookup_way, lookup_predict : Out
        Hit, hit way (0 on a miss), and the PC's bypass prediction.
    fill_valid, fill_install, fill_way : Out
        The waiting miss resolves: install (1) or bypass (0), and the way filled (0 when bypassing).

    Raises
    ------
    ValueError
        For an unusable geometry, replacement policy or predictor parameter.
    """

    def __init__(self, *, sets: int = 32, ways: int = 8, line_bits: int = 42, replacement: str = "plru",
                 entries: int = 128, counter_width: int = 4, threshold: int = 8, hash_bits: int = 7,
                 pc_shift: int = 3, store_reuse: bool = True) -> None:
        for name, v in (("Sets", sets), ("Ways", ways)):
            if not isinstance(v, int) or v < 1 or v & (v - 1):
                raise ValueError(f"{name} must be a positive power of 2, not {v}")
        if replacement not in _REPLACEMENTS:
            raise ValueError(f"Replacement must be one of {', '.join(_REPLACEMENTS)}, not {replacement!r}")
        if not exact_log2(sets) < line_bits <= 62:
            raise ValueError(f"Line address width must be more than the index bits and at most 62, "
                             f"not {line_bits}")
        if (1 << hash_bits) != entries:
            raise ValueError(f"A {hash_bits}-bit PC hash cannot index {entries} entries")
        self._table = PredictionTable(entries=entries, width=counter_width, threshold=threshold)
        self._sets, self._ways, self._line_bits = sets, ways, line_bits
        self._replacement = replacement
        self._hash_bits, self._pc_shift, self._store_reuse = hash_bits, pc_shift, store_reuse
        wb = max(1, exact_log2(ways))
        super().__init__({
            "req_valid": In(1),
            "req_line": In(line_bits),
            "req_pc": In(PC_WIDTH),
            "req_store": In(1),
            "l2_valid": In(1),
            "l2_bit": In(1),
            "req_ready": Out(1),
            "lookup_hit": Out(1),
            "lookup_way": Out(wb),
            "lookup_predict": Out(1),
            "fill_valid": Out(1),
            "fill_install": Out(1),
            "fill_way": Out(wb),
        })

    @property
    def sets(self) -> int:
        return self._sets

    @property
    def ways(self) -> int:
        return self._ways

    @property
    def index_bits(self) -> int:
        return exact_log2(self._sets)

    @property
    def tag_bits(self) -> int:
        return self._line_bits - self.index_bits

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

    def elaborate(self, platform):
        m = Module()
        ways, ib, tb, hb = self._ways, self.index_bits, self.tag_bits, self._hash_bits
        k = exact_log2(ways)
        m.submodules.table = table = self._table

        slot = 1 + tb
        m.submodules.tags = tags = memory.Memory(shape=ways * slot, depth=self._sets, init=[])
        m.submodules.hpcs = hpcs = memory.Memory(shape=ways * hb, depth=self._sets, init=[])
        if self._replacement == "lru":
            ages0 = sum(w << (w * k) for w in range(ways))
            repl_shape = max(1, ways * k)
            m.submodules.repl = repl = memory.Memory(shape=repl_shape, depth=self._sets,
                                                     init=[ages0] * self._sets)
        else:
            repl_shape = max(1, ways - 1)
            m.submodules.repl = repl = memory.Memory(shape=repl_shape, depth=self._sets, init=[])
        tags_rd, hpcs_rd, repl_rd = (mem.read_port(domain="comb") for mem in (tags, hpcs, repl))
        tags_wr = tags.write_port(granularity=slot)
        hpcs_wr = hpcs.write_port(granularity=hb)
        repl_wr = repl.write_port()

        # State of the load miss waiting for the L2.
        waiting = Signal()
        w_line = Signal(self._line_bits)
        w_hpc = Signal(hb)
        w_victim = Signal(max(1, k))
        w_predict = Signal()

        take = self.req_valid & ~waiting
        line = Mux(waiting, w_line, self.req_line)
        set_idx = line[:ib]
        m.d.comb += [a.addr.eq(set_idx) for a in (tags_rd, hpcs_rd, repl_rd, tags_wr, hpcs_wr, repl_wr)]

        valid = [tags_rd.data[w * slot] for w in range(ways)]
        tag = [tags_rd.data[w * slot + 1:(w + 1) * slot] for w in range(ways)]
        hpc = [hpcs_rd.data[w * hb:(w + 1) * hb] for w in range(ways)]
        req_tag = self.req_line[ib:]

        match = Cat(*(valid[w] & (tag[w] == req_tag) for w in range(ways)))
        hit = match.any()
        hit_way = Signal(max(1, k))
        for w in reversed(range(ways)):
            with m.If(match[w]):
                m.d.comb += hit_way.eq(w)

        # Victim: the lowest invalid way, else the replacement policy's.
        policy_victim = Signal(max(1, k))
        if self._replacement == "lru":
            ages = [repl_rd.data[w * k:(w + 1) * k] for w in range(ways)] if k else [Const(0, 1)]
            for w in range(ways):
                with m.If(ages[w] == ways - 1):
                    m.d.comb += policy_victim.eq(w)
        else:
            node = Const(1, 1)
            for _ in range(k):
                node = Cat(repl_rd.data.bit_select((node - 1)[:len(node)], 1), node)
            m.d.comb += policy_victim.eq(node[:max(1, k)])
        victim = Signal(max(1, k))
        m.d.comb += victim.eq(policy_victim)
        for w in reversed(range(ways)):
            with m.If(~valid[w]):
                m.d.comb += victim.eq(w)
        victim_valid = Cat(*valid).bit_select(victim, 1)

        h = pc_hash(self.req_pc, bits=hb, shift=self._pc_shift)
        m.d.comb += table.lookup_idx.eq(h)
        predict = table.lookup_bypass

        load = ~self.req_store
        train_hit = take & hit & (load | self._store_reuse)
        miss_load = take & ~hit & load
        m.d.comb += [
            self.req_ready.eq(~waiting),
            self.lookup_hit.eq(take & hit),
            self.lookup_way.eq(Mux(take & hit, hit_way, 0)),
            self.lookup_predict.eq(take & predict),
            table.dec_en.eq(train_hit),
            table.dec_idx.eq(Cat(*hpc).word_select(hit_way, hb)),
            table.inc_en.eq(miss_load & ~predict & victim_valid),
            table.inc_idx.eq(Cat(*hpc).word_select(victim, hb)),
        ]

        fill = waiting & self.l2_valid
        install = fill & (~w_predict | self.l2_bit)
        m.d.comb += [
            self.fill_valid.eq(fill),
            self.fill_install.eq(install),
            self.fill_way.eq(Mux(install, w_victim, 0)),
        ]

        # Writes: the hashed PC of a trained hit, or a whole installed line.
        touched = Signal(max(1, k))
        m.d.comb += touched.eq(Mux(waiting, w_victim, hit_way))
        with m.If(train_hit):
            m.d.comb += [hpcs_wr.en.eq(1 << hit_way), hpcs_wr.data.eq(Cat(*([h] * ways)))]
        with m.If(install):
            m.d.comb += [
                hpcs_wr.en.eq(1 << w_victim),
                hpcs_wr.data.eq(Cat(*([w_hpc] * ways))),
                tags_wr.en.eq(1 << w_victim),
                tags_wr.data.eq(Cat(*([Cat(Const(1, 1), w_line[ib:])] * ways))),
            ]
        m.d.comb += repl_wr.en.eq((take & hit) | install)
        if self._replacement == "lru":
            old = Cat(*ages).word_select(touched, k) if k else Const(0, 1)
            new_ages = [Mux(touched == w, 0, Mux(ages[w] < old, ages[w] + 1, ages[w]))[:k]
                        for w in range(ways)] if k else [Const(0, 1)]
            m.d.comb += repl_wr.data.eq(Cat(*new_ages))
        else:
            bits = []
            for j in range(1, ways):
                lvl = j.bit_length() - 1
                on_path = (touched >> (k - lvl)) == (j - (1 << lvl))
                bits.append(Mux(on_path, ~touched[k - 1 - lvl], repl_rd.data[j - 1]))
            m.d.comb += repl_wr.data.eq(Cat(*bits) if bits else Const(0, 1))

        with m.If(miss_load):
            m.d.sync += [waiting.eq(1), w_line.eq(self.req_line), w_hpc.eq(h),
                         w_victim.eq(victim), w_predict.eq(predict)]
        with m.If(fill):
            m.d.sync += waiting.eq(0)
        return m
