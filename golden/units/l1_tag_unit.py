"""tian15's L1 tag and metadata unit: tags, hashed PCs, replacement state, predictor.

One L1 data cache's tag side with the PC-based bypass predictor of tian15
(Section 3, Listing 1). The data array is not modelled. The unit contains
the prediction table (``golden.units.prediction_table``); its hashed PCs
come from ``golden.units.pc_hash``; its replacement state and victim choice
are those of the cache engine (``golden.cache.replacement``), so the unit and
the whole-workload model share one implementation.

Ports (the RTL ``rtl.predictor.L1TagUnit`` has the same)::

    in   req_valid, req_line [line_bits], req_pc [32], req_store
    in   l2_valid, l2_bit                 the L2's response to a load miss, with its bypassBit
    out  req_ready                        1 while no load miss waits for the L2
    out  lookup_hit, lookup_way, lookup_predict
    out  fill_valid, fill_install, fill_way

Protocol. The unit is *blocking*: it takes a request when ``req_valid &
req_ready``; the lookup outputs are combinational in that cycle (0 when no
request is taken). ``lookup_predict`` is the prediction for the request's
PC (``table[hash(pc)] >= threshold``), shown on every request.

* Hit (``lookup_way`` = hit way). At the clock edge, for a load (and for a
  store when ``store_reuse``): ``table[hpc[way]]--`` and ``hpc[way] =
  hash(pc)`` (Listing 1); for every hit the replacement state is touched.
* Store miss: no allocation (write-through, no write-allocate); nothing
  changes; ``lookup_way = 0``.
* Load miss (``lookup_way = 0``). The unit picks the victim now (the
  engine's rule: lowest invalid way, else the replacement policy's) and
  keeps it. If not predicted bypass and the victim is valid,
  ``table[hpc[victim]]++`` at the edge (Listing 1's increment; an invalid
  victim has no hashed PC to train). The unit then waits (``req_ready = 0``)
  for ``l2_valid``.
* In the cycle of ``l2_valid``: ``fill_valid = 1``, ``fill_install =
  !predicted | l2_bit`` (Listing 1: a set bypassBit overrides a bypass
  prediction) and ``fill_way`` = the victim when installing, else 0. If it
  installs: tag, ``hpc = hash(pc)`` and the replacement insert at the edge;
  the corrected install does **not** increment the victim's counter (as in
  Listing 1). Then ready again.

The victim way shows only when it is filled: the golden cache engine picks
its victim when the line arrives, which in this blocking unit is the same
choice, and never picks one for a bypassed line.

Latency: hit 1 cycle; load miss 1 cycle + the L2's response time.
"""

from __future__ import annotations

import numpy as np

from golden.cache.replacement import choose_victim, insert, replacement_kind, seed_states, touch
from golden.units.base import UnitModel
from golden.units.pc_hash import pc_hash
from golden.units.prediction_table import check_table_params, table_update

__all__ = ["L1TagUnit", "UNIT_REPLACEMENTS", "TRANSACTION_DTYPE"]

#: One request the unit takes, as the golden policy records it (``pc-bypass``, recorder ``"l1"``):
#: the request, its lookup (hit way, prediction, the table entry read and its count), the
#: table updates it causes, and for a load miss the L2 response and the fill.
TRANSACTION_DTYPE = np.dtype([
    ("line", "<i8"), ("pc", "<i8"), ("store", "u1"),
    ("hit", "u1"), ("way", "<i2"), ("predict", "u1"), ("hidx", "<u2"), ("count", "u1"),
    ("dec_en", "u1"), ("dec_idx", "<u2"), ("inc_en", "u1"), ("inc_idx", "<u2"),
    ("miss", "u1"),  # a load miss: the unit waits for the L2 response
    ("l2_bit", "u1"), ("install", "u1"), ("fill_way", "<i2"),
    ("access", "<i8"),  # position of the demand access in the workload's stream
])

#: Replacement policies the unit (and its RTL) implement.
UNIT_REPLACEMENTS = ("lru", "plru")


class L1TagUnit(UnitModel):
    """Cycle-level model of tian15's L1 tag and metadata unit.

    Parameters
    ----------
    sets, ways : int
        Geometry (tian15: 32 sets of 8 ways = 16 KB of 64 B lines). Powers of 2.
    line_bits : int
        Width of the line address (byte address bits minus line offset bits).
    replacement : str
        ``"plru"`` (tian15's evaluation) or ``"lru"`` (Listing 1).
    entries, counter_width, threshold : int
        Prediction table (tian15: 128 x 4 bits; threshold: see docs).
    hash_bits, pc_shift : int
        PC hash width (tian15: 7) and the low PC bits it drops.
    store_reuse : bool
        Whether a store hit trains the predictor like a load hit.

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
        if replacement not in UNIT_REPLACEMENTS:
            raise ValueError(f"Replacement must be one of {', '.join(UNIT_REPLACEMENTS)}, "
                             f"not {replacement!r}")
        if not (sets.bit_length() - 1) < line_bits <= 62:
            raise ValueError(f"Line address width must be more than the index bits and at most 62, "
                             f"not {line_bits}")
        check_table_params(entries, counter_width, threshold)
        if (1 << hash_bits) != entries:
            raise ValueError(f"A {hash_bits}-bit PC hash cannot index {entries} entries")
        self.sets, self.ways, self.line_bits = sets, ways, line_bits
        self.replacement = replacement
        self.entries, self.counter_width, self.threshold = entries, counter_width, threshold
        self.hash_bits, self.pc_shift, self.store_reuse = hash_bits, pc_shift, store_reuse
        self._kind = replacement_kind(replacement)
        wb = max(1, (ways - 1).bit_length())
        self.inputs = {"req_valid": 1, "req_line": line_bits, "req_pc": 32, "req_store": 1,
                       "l2_valid": 1, "l2_bit": 1}
        self.outputs = {"req_ready": 1, "lookup_hit": 1, "lookup_way": wb, "lookup_predict": 1,
                        "fill_valid": 1, "fill_install": 1, "fill_way": wb}
        self.reset()

    def reset(self) -> None:
        n = self.sets * self.ways
        self.tag = np.full(n, -1, dtype=np.int64)
        self.hpc = np.zeros(n, dtype=np.uint8)
        self.stamp = np.zeros(n, dtype=np.int64)
        self.freq = np.zeros(n, dtype=np.int64)
        self.tree = np.zeros(self.sets, dtype=np.int64)
        self.rng = seed_states(0, 1)
        self.clock = np.zeros(1, dtype=np.int64)
        self.counters = np.zeros(self.entries, dtype=np.uint8)
        self.waiting = None  # (line, hashed pc, victim, predicted) of the load miss in flight

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of recorded requests: one cycle per request, and one more per load miss.

        A request is taken in its own cycle (lookup outputs in that cycle);
        a load miss then waits, and the L2 response arrives in the next cycle
        (the log leaves out the idle cycles of the L2's latency: the unit
        holds its state while waiting, so they carry nothing).
        """
        tx = transactions
        miss = tx["miss"].astype(bool)
        before = np.cumsum(miss) - miss  # load misses before each request
        req = np.arange(len(tx)) + before
        resp = req[miss] + 1
        log = np.zeros(len(tx) + int(miss.sum()), self.cycle_log_dtype)
        hit = tx["hit"].astype(bool)
        for name, value in (("req_valid", 1), ("req_line", tx["line"]), ("req_pc", tx["pc"]),
                            ("req_store", tx["store"]), ("exp_req_ready", 1), ("exp_lookup_hit", hit),
                            ("exp_lookup_way", np.where(hit, tx["way"], 0)),
                            ("exp_lookup_predict", tx["predict"]), ("ctx_access", tx["access"])):
            log[name][req] = value
        m = tx[miss]
        install = m["install"].astype(bool)
        for name, value in (("l2_valid", 1), ("l2_bit", m["l2_bit"]), ("exp_fill_valid", 1),
                            ("exp_fill_install", install),
                            ("exp_fill_way", np.where(install, m["fill_way"], 0)),
                            ("ctx_access", m["access"])):
            log[name][resp] = value
        return log

    def _find(self, line: int) -> tuple[int, int]:
        s = line & (self.sets - 1)
        base = s * self.ways
        for w in range(self.ways):
            if self.tag[base + w] == line:
                return s, w
        return s, -1

    def step(self, *, req_valid: int = 0, req_line: int = 0, req_pc: int = 0, req_store: int = 0,
             l2_valid: int = 0, l2_bit: int = 0) -> dict[str, int]:
        out = dict.fromkeys(self.outputs, 0)
        maxval = (1 << self.counter_width) - 1
        if self.waiting is not None:
            if l2_valid:
                line, h, victim, predicted = self.waiting
                install = (not predicted) or bool(l2_bit)
                out.update(fill_valid=1, fill_install=int(install), fill_way=victim if install else 0)
                if install:
                    s = line & (self.sets - 1)
                    self.tag[s * self.ways + victim] = line
                    self.hpc[s * self.ways + victim] = h
                    insert(self._kind, self.stamp, self.freq, self.tree, self.clock, s, s * self.ways,
                           victim, self.ways)
                self.waiting = None
            return out
        out["req_ready"] = 1
        if not req_valid:
            return out
        h = pc_hash(req_pc, self.hash_bits, self.pc_shift)
        predicted = bool(self.counters[h] >= self.threshold)
        s, w = self._find(req_line)
        base = s * self.ways
        out["lookup_predict"] = int(predicted)
        if w >= 0:
            out.update(lookup_hit=1, lookup_way=w)
            if not req_store or self.store_reuse:
                table_update(self.counters, False, 0, True, int(self.hpc[base + w]), maxval)
                self.hpc[base + w] = h
            touch(self._kind, self.stamp, self.freq, self.tree, self.clock, s, base, w, self.ways)
            return out
        victim = int(choose_victim(self._kind, self.tag, self.stamp, self.freq, self.tree, self.rng,
                                   0, s, base, self.ways))
        if req_store:
            return out
        if not predicted and self.tag[base + victim] >= 0:
            table_update(self.counters, True, int(self.hpc[base + victim]), False, 0, maxval)
        self.waiting = (req_line, h, victim, predicted)
        return out
