"""tian15's L1 tag and metadata unit: tags, hashed PCs, replacement state, predictor.

One L1 data cache's tag side with the PC-based bypass predictor of tian15
(Section 3, Listing 1). The data array is not modelled. The unit contains
the prediction table (``golden.units.prediction_table``); its hashed PCs
come from ``golden.units.pc_hash``; its replacement state and victim choice
are those of the cache engine (``golden.cache.replacement``), so the unit and
the whole-workload model share one implementation.

Ports (the RTL ``rtl.predictor.L1TagUnit`` has the same; nested signatures
flattened as in the generated Verilog, ``a__b``)::

    in   s1_req__valid, s1_req__line [line_bits], s1_req__pc [32], s1_req__store
    out  s1_req__ready                    the request is taken this cycle
    out  s2_lookup__valid, s2_lookup__hit, s2_lookup__way, s2_lookup__predict
    in   l2_resp__valid, l2_resp__bit     the L2's response to a load miss, with its bypassBit
    out  fill__valid, fill__install, fill__way

Protocol: a two-stage pipeline with a valid/ready request. A request is
taken in cycle *t* (stage s1) when ``s1_req__valid & s1_req__ready``; its
lookup shows in cycle *t* + 1 (stage s2): ``s2_lookup__valid = 1``, hit,
hit way (0 on a miss) and ``predict`` = ``table[hash(pc)] >= threshold``,
the table including every earlier request's update. Outputs are 0 when
there is nothing to show. Everything below happens at the edge ending s2:

* Hit. For a load (and for a store when ``store_reuse``):
  ``table[hpc[way]]--`` and ``hpc[way] = hash(pc)`` (Listing 1); for every
  hit the replacement state is touched.
* Store miss: no allocation (write-through, no write-allocate); nothing
  changes.
* Load miss. The unit picks the victim (the engine's rule: lowest invalid
  way, else the replacement policy's) and keeps it. If not predicted bypass
  and the victim is valid, ``table[hpc[victim]]++`` (Listing 1's increment;
  an invalid victim has no hashed PC to train). ``s1_req__ready`` is 0 in
  this s2 cycle, and the unit waits for ``l2_resp__valid``.
* In the cycle of ``l2_resp__valid`` (ignored when no miss waits):
  ``fill__valid = 1``, ``fill__install = !predicted | l2_resp__bit``
  (Listing 1: a set bypassBit overrides a bypass prediction) and
  ``fill__way`` = the victim when installing, else 0. If it installs: tag,
  ``hpc = hash(pc)`` and the replacement insert at the edge; the corrected
  install does **not** increment the victim's counter (as in Listing 1).
  Ready again in the next cycle.

Requests therefore act in order, each on the state every earlier request
left: the outputs and the state are those of the one-request-at-a-time
unit of tian15, delayed by the pipeline. The victim way shows only when it
is filled: the golden cache engine picks its victim when the line
arrives, which in this blocking unit is the same choice, and never picks
one for a bypassed line.

Latency: lookup 1 cycle; one request per cycle while requests hit or are
stores. A load miss holds ``s1_req__ready`` at 0 from its s2 cycle through
the cycle of the L2's response; with the response in the first cycle it
can come (the cycle after s2), the next request is taken 3 cycles after
the miss (2 stall cycles).
"""

from __future__ import annotations

import numpy as np

from golden.cache.replacement import choose_victim, insert, replacement_kind, seed_states, touch
from golden.units.base import UnitModel
from golden.units.pc_hash import pc_hash
from golden.units.prediction_table import PredictionTable, check_table_params

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
        self.inputs = {"s1_req__valid": 1, "s1_req__line": line_bits, "s1_req__pc": 32, "s1_req__store": 1,
                       "l2_resp__valid": 1, "l2_resp__bit": 1}
        self.outputs = {"s1_req__ready": 1, "s2_lookup__valid": 1, "s2_lookup__hit": 1, "s2_lookup__way": wb,
                        "s2_lookup__predict": 1, "fill__valid": 1, "fill__install": 1, "fill__way": wb}
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
        self.table = PredictionTable(entries=self.entries, width=self.counter_width, threshold=self.threshold)
        self.s2 = None  # (line, hashed pc, store) of the request in stage 2
        self.waiting = None  # (line, hashed pc, victim, predicted) of the load miss in flight
        self.taken = False  # whether the last cycle took its request

    @property
    def counters(self) -> np.ndarray:
        """The prediction table's counters (writes of the last cycle's updates still pending)."""
        return self.table.counters

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of recorded requests (:data:`TRANSACTION_DTYPE`), laid out by :func:`l1_cycle_log`."""
        tx = transactions
        return l1_cycle_log(self, tx["line"], tx["pc"], tx["store"], tx["hit"], tx["way"], tx["predict"],
                            tx["l2_bit"], tx["install"], tx["fill_way"], tx["access"])

    def _find(self, line: int) -> tuple[int, int]:
        s = line & (self.sets - 1)
        base = s * self.ways
        for w in range(self.ways):
            if self.tag[base + w] == line:
                return s, w
        return s, -1

    def _resolve(self, l2_bit: int, out: dict[str, int]) -> None:
        """The cycle of the L2's response: fill outputs, and the install at the edge."""
        line, h, victim, predicted = self.waiting
        install = (not predicted) or bool(l2_bit)
        out.update(fill__valid=1, fill__install=int(install), fill__way=victim if install else 0)
        if install:
            s = line & (self.sets - 1)
            self.tag[s * self.ways + victim] = line
            self.hpc[s * self.ways + victim] = h
            insert(self._kind, self.stamp, self.freq, self.tree, self.clock, s, s * self.ways, victim,
                   self.ways)
        self.waiting = None

    def _stage2(self, out: dict[str, int], update: dict[str, int]) -> bool:
        """The request in s2: lookup outputs, training (``update`` gets the table's update ports).

        Returns whether it is a load miss (which blocks the unit).
        """
        line, h, store = self.s2
        predicted = bool(self.table.lookup_output()["s2_lookup__bypass"])
        s, w = self._find(line)
        base = s * self.ways
        out.update(s2_lookup__valid=1, s2_lookup__predict=int(predicted))
        if w >= 0:
            out.update(s2_lookup__hit=1, s2_lookup__way=w)
            if not store or self.store_reuse:
                update.update(s1_dec__en=1, s1_dec__idx=int(self.hpc[base + w]))
                self.hpc[base + w] = h
            touch(self._kind, self.stamp, self.freq, self.tree, self.clock, s, base, w, self.ways)
            return False
        if store:
            return False
        victim = int(choose_victim(self._kind, self.tag, self.stamp, self.freq, self.tree, self.rng,
                                   0, s, base, self.ways))
        if not predicted and self.tag[base + victim] >= 0:
            update.update(s1_inc__en=1, s1_inc__idx=int(self.hpc[base + victim]))
        self.waiting = (line, h, victim, predicted)
        return True

    def step(self, *, s1_req__valid: int = 0, s1_req__line: int = 0, s1_req__pc: int = 0,
             s1_req__store: int = 0, l2_resp__valid: int = 0, l2_resp__bit: int = 0) -> dict[str, int]:
        out = dict.fromkeys(self.outputs, 0)
        update: dict[str, int] = {}
        blocked = self.waiting is not None
        if blocked:
            if l2_resp__valid:
                self._resolve(l2_resp__bit, out)
        elif self.s2 is not None:
            blocked = self._stage2(out, update)
        out["s1_req__ready"] = int(not blocked)
        self.taken = bool(s1_req__valid) and not blocked
        h = pc_hash(s1_req__pc, self.hash_bits, self.pc_shift)
        self.table.step(s1_lookup__valid=int(self.taken), s1_lookup__idx=h, **update)
        self.s2 = (s1_req__line, h, bool(s1_req__store)) if self.taken else None
        return out


def l1_cycle_log(model: L1TagUnit, line: np.ndarray, pc: np.ndarray, store: np.ndarray, hit: np.ndarray,
                 way: np.ndarray, predict: np.ndarray, l2_bit: np.ndarray, install: np.ndarray,
                 fill_way: np.ndarray, ctx: np.ndarray) -> np.ndarray:
    """Cycle log of the unit from per-request arrays (vectorised; no loop per row).

    Per request *k* (in order): ``line``, ``pc``, ``store``; the outcome
    tian15's one-request-at-a-time unit gives it (``hit``, hit ``way``,
    ``predict``); for a load miss the L2's bit and how it resolved
    (``l2_bit``, ``install``, the ``fill_way`` when installed).

    Timing (see the module docstring): request *k* is taken in its row
    *c_k* and answered in *c_k* + 1. After a load miss the requester keeps
    the next request presented (valid, not taken) in *c_k* + 1 and *c_k* + 2;
    the L2 answers in *c_k* + 2, the first cycle it can; the next request is
    taken in *c_k* + 3. A last row with no request answers the last
    request (after a last load miss, its response row comes first), so logs
    of consecutive chunks concatenate into a valid log.

    Returns rows of ``model.log_dtype`` plus ``ctx_access`` (the access of
    the request presented in the row, or of the last one).
    """
    n = len(line)
    load_miss = (np.asarray(hit) == 0) & (np.asarray(store) == 0)
    # Rows of "request" k (k = n: the final idle row): 2 stall rows after a load miss, then its own.
    rows_per = np.ones(n + 1, dtype=np.int64)
    rows_per[1:] += 2 * load_miss
    start = np.cumsum(rows_per) - 1  # the row where request k is taken
    log = np.zeros(int(start[-1]) + 1, dtype=np.dtype(model.log_dtype.descr + [("ctx_access", "<i8")]))
    presented = np.repeat(np.arange(n + 1), rows_per)  # the request presented in each row
    real = presented < n
    for col, values in (("s1_req__line", line), ("s1_req__pc", pc), ("s1_req__store", store)):
        log[col][real] = np.asarray(values)[presented[real]]
    log["s1_req__valid"] = real
    if n:
        log["ctx_access"] = np.asarray(ctx)[np.minimum(presented, n - 1)]
    taken = start[:n]
    answer = taken + 1
    log["exp_s1_req__ready"] = 1
    log["exp_s2_lookup__valid"][answer] = 1
    log["exp_s2_lookup__hit"][answer] = hit
    log["exp_s2_lookup__way"][answer] = np.where(np.asarray(hit) != 0, way, 0)
    log["exp_s2_lookup__predict"][answer] = predict
    miss_rows = taken[load_miss]
    log["exp_s1_req__ready"][miss_rows + 1] = 0
    log["exp_s1_req__ready"][miss_rows + 2] = 0
    resolve = miss_rows + 2
    installed = np.asarray(install)[load_miss]
    log["l2_resp__valid"][resolve] = 1
    log["l2_resp__bit"][resolve] = np.asarray(l2_bit)[load_miss]
    log["exp_fill__valid"][resolve] = 1
    log["exp_fill__install"][resolve] = installed
    log["exp_fill__way"][resolve] = np.where(installed != 0, np.asarray(fill_way)[load_miss], 0)
    return log
