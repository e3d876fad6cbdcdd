"""tian15's PC-based L1 bypass predictor with the L2 ``bypassBit`` correction.

The policy is Listing 1 of tian15 (Section 3.2) put on the cache engine's
hooks, using the unit models' compiled functions (``golden.units``): the
PC hash, the prediction table's saturating update, and the bypassBit
store's read-and-clear. It is the same behaviour as the cycle-level
``golden.units.l1_tag_unit.L1TagUnit`` and ``golden.units.bypass_bits``,
whose RTL the whole-workload logs recorded here are replayed into.

Per L1 access (address, PC):

* hit: ``table[block.hpc]--``, ``block.hpc = hash(PC)`` (loads; stores too
  when ``store_reuse``), replacement update;
* load miss: ``bypass = table[hash(PC)] >= threshold``, sent with the
  request; the L2 returns the line's bypassBit and clears it;
  - not bypassed: ``table[victim.hpc]++`` (a valid victim), install with ``hash(PC)``;
  - bypassed, bit 1: install anyway, **without** the victim increment;
  - bypassed, bit 0: bypass; the L2 sets the line's bit;
* store miss: write-through without allocation; the predictor is not
  consulted or trained.

Choices tian15 leaves open (see ``docs/policies/pc_bypass.md``): the hash
(XOR-fold, ``golden.units.pc_hash``), the threshold (8 = the counter's top
bit), counters starting at 0, store handling, and that an invalid victim
trains nothing.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError
from golden.policies.base import BASELINE_HOOKS, LevelHooks, Policy, make_hooks, register_policy
from golden.policies.recording import Recorder, new_row
from golden.units.bypass_bits import TRANSACTION_DTYPE as L2_TRANSACTION_DTYPE
from golden.units.bypass_bits import bypass_bit_request
from golden.units.l1_tag_unit import TRANSACTION_DTYPE as L1_TRANSACTION_DTYPE
from golden.units.l1_tag_unit import L1TagUnit
from golden.units.pc_hash import pc_hash
from golden.units.prediction_table import check_table_params, table_update

__all__ = ["PCBypass", "L1State", "L2State", "STATS_DTYPE", "LINE_DTYPE", "PENDING_DTYPE"]

LOAD = 1

#: Predictor statistics per SM (summed over SMs by ``stats()``).
STATS_DTYPE = np.dtype([(name, "<i8") for name in (
    "predictions", "bypass_predictions", "corrections", "bypasses", "table_increments",
    "table_decrements", "table_lookups")])
#: Per-L1-line metadata: the hashed PC of the last access that touched the line (tian15's 7 bits).
LINE_DTYPE = np.dtype([("hpc", "u1")])
#: The load miss in flight at an L1 (one per SM): its prediction, hashed PC and transaction row.
PENDING_DTYPE = np.dtype([("active", "u1"), ("predicted", "u1"), ("hpc", "u1"), ("tx", "<i8")])

#: The policy's L1 state: parameters (int64 scalars), then arrays indexed by SM first.
L1State = namedtuple("L1State", [
    "threshold", "max_count", "hash_bits", "pc_shift", "store_reuse", "correction", "log_sm",
    "counters",  # uint8[n_sm, entries]: the prediction tables
    "lines",  # LINE_DTYPE[n_sm, sets, ways]
    "pending",  # PENDING_DTYPE[n_sm]
    "stats",  # STATS_DTYPE[n_sm]
    "tx", "tx_count",  # L1 unit transactions of SM log_sm (golden.units.l1_tag_unit.TRANSACTION_DTYPE)
])
#: The policy's L2 state: one bypassBit per L2 line, and the store's transactions.
L2State = namedtuple("L2State", ["correction", "log", "bits", "tx", "tx_count"])


@nb.njit(cache=True, nogil=True)
def _record_request(ps, a, h, cnt):
    """A transaction row for the logged SM's request, or -1."""
    if a.c != ps.log_sm:
        return -1
    r = new_row(ps.tx, ps.tx_count)
    if r >= 0:
        row = ps.tx[r]
        row.line = a.line
        row.pc = a.pc
        row.store = 0 if a.op == LOAD else 1
        row.hit = 1 if a.way >= 0 else 0
        row.way = a.way if a.way >= 0 else 0
        row.predict = 1 if cnt >= ps.threshold else 0
        row.hidx = h
        row.count = cnt
        row.access = a.t
    return r


@nb.njit(cache=True, nogil=True)
def _l1_on_hit(ps, a):
    h = pc_hash(a.pc, ps.hash_bits, ps.pc_shift)
    cnt = ps.counters[a.c, h]
    ps.stats[a.c].table_lookups += 1
    r = _record_request(ps, a, h, cnt)
    if a.op == LOAD or ps.store_reuse:
        line = ps.lines[a.c, a.set, a.way]
        table_update(ps.counters[a.c], False, 0, True, line.hpc, ps.max_count)
        ps.stats[a.c].table_decrements += 1
        if r >= 0:
            ps.tx[r].dec_en = 1
            ps.tx[r].dec_idx = line.hpc
        line.hpc = h


@nb.njit(cache=True, nogil=True)
def _l1_on_miss(ps, a):
    h = pc_hash(a.pc, ps.hash_bits, ps.pc_shift)
    cnt = ps.counters[a.c, h]
    st = ps.stats[a.c]
    st.table_lookups += 1
    r = _record_request(ps, a, h, cnt)
    if a.op != LOAD:
        return 0  # write-through store miss: no allocation, no prediction
    predicted = 1 if cnt >= ps.threshold else 0
    st.predictions += 1
    st.bypass_predictions += predicted
    miss = ps.pending[a.c]
    miss.active = 1
    miss.predicted = predicted
    miss.hpc = h
    miss.tx = r
    if r >= 0:
        ps.tx[r].miss = 1
    return predicted


@nb.njit(cache=True, nogil=True)
def _l1_on_response(ps, a, flags, resp):
    predicted = (flags & 1) != 0
    bypass = predicted and not (ps.correction != 0 and resp != 0)
    st = ps.stats[a.c]
    if predicted and not bypass:
        st.corrections += 1
    miss = ps.pending[a.c]
    if bypass:
        st.bypasses += 1
        miss.active = 0
    if miss.tx >= 0:
        row = ps.tx[miss.tx]
        row.l2_bit = resp
        row.install = 0 if bypass else 1
    return 1 if bypass else 0


@nb.njit(cache=True, nogil=True)
def _l1_on_evict(ps, a, way, line, dirty):
    miss = ps.pending[a.c]
    if not miss.active or miss.predicted:
        return  # not a miss being filled, or a corrected install: no victim increment
    hpc = ps.lines[a.c, a.set, way].hpc
    table_update(ps.counters[a.c], True, hpc, False, 0, ps.max_count)
    ps.stats[a.c].table_increments += 1
    if miss.tx >= 0:
        ps.tx[miss.tx].inc_en = 1
        ps.tx[miss.tx].inc_idx = hpc


@nb.njit(cache=True, nogil=True)
def _l1_on_fill(ps, a):
    miss = ps.pending[a.c]
    ps.lines[a.c, a.set, a.way].hpc = miss.hpc
    miss.active = 0
    if miss.tx >= 0:
        ps.tx[miss.tx].fill_way = a.way


@nb.njit(cache=True, nogil=True)
def _l2_on_fill(ps, a):
    ps.bits[a.set, a.way] = 0  # a new line has no bypass history
    if ps.log and ps.correction:
        r = new_row(ps.tx, ps.tx_count)
        if r >= 0:
            row = ps.tx[r]
            row.fill = 1
            row.set = a.set
            row.way = a.way
            row.access = a.t


@nb.njit(cache=True, nogil=True)
def _l2_on_request(ps, a, flags):
    if a.way < 0 or not ps.correction:
        return 0
    resp = bypass_bit_request(ps.bits, a.set, a.way, (flags & 1) != 0)
    if ps.log:
        r = new_row(ps.tx, ps.tx_count)
        if r >= 0:
            row = ps.tx[r]
            row.set = a.set
            row.way = a.way
            row.bypass = flags & 1
            row.resp = resp
            row.access = a.t
    return resp


@register_policy
class PCBypass(Policy):
    """tian15's PC-based bypass predictor (``--policy pc-bypass``).

    Parameters
    ----------
    entries, counter_width, threshold : int
        Prediction table per L1 (tian15: 128 x 4-bit; threshold 8 by default).
    hash_bits, pc_shift : int
        PC hash width (7, so ``2**hash_bits == entries``) and dropped low PC bits.
    store_reuse : bool
        A store hit trains the predictor like a load hit.
    correction : bool
        Use the L2 bypassBit to correct bypass mispredictions (tian15: on).
    log_sm : int or None
        Record the transactions of this SM's L1 unit and of the L2 bypassBit
        store (see :meth:`take_transactions`).
    log_capacity : int
        Rows each log holds between two :meth:`take_transactions` calls.

    Members
    -------
    l1 : L1State or None
        The L1 state of the latest attachment: tables, per-line hashed PCs
        (``lines["hpc"]``), the misses in flight, statistics, the L1 log.
    l2 : L2State or None
        The L2 state: ``bits[set, way]`` and the store's log.

    Raises
    ------
    ValueError
        For an unusable table or hash geometry.
    InputError
        When attached to a write-back L1.
    """

    name = "pc-bypass"
    recorders = ("l1", "l2")

    def __init__(self, *, entries: int = 128, counter_width: int = 4, threshold: int = 8,
                 hash_bits: int = 7, pc_shift: int = 3, store_reuse: bool = True,
                 correction: bool = True, log_sm: int | None = None, log_capacity: int = 1 << 20) -> None:
        check_table_params(entries, counter_width, threshold)
        if (1 << hash_bits) != entries:
            raise ValueError(f"A {hash_bits}-bit PC hash cannot index {entries} entries")
        self.entries, self.counter_width, self.threshold = entries, counter_width, threshold
        self.hash_bits, self.pc_shift = hash_bits, pc_shift
        self.store_reuse, self.correction = store_reuse, correction
        self.log_sm = -1 if log_sm is None else int(log_sm)
        self.log_capacity = int(log_capacity)
        self.l1: L1State | None = None
        self.l2: L2State | None = None
        self.l1_cfg: CacheConfig | None = None
        self.l2_cfg: CacheConfig | None = None
        self._recorders: dict[str, Recorder] = {}

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        """New state and hooks for the L1 (the predictor) and the L2 (the bypassBits)."""
        cap = self.log_capacity if self.log_sm >= 0 else 0
        if level == "l1":
            if cfg.write == "write-back":
                # A write-back L1 allocates on store misses, which Listing 1 does not describe.
                raise InputError(f"pc-bypass: l1.write must be write-through or write-evict (tian15's L1 "
                                 f"does not allocate on stores), not {cfg.write!r}")
            self.l1_cfg = cfg
            self._recorders["l1"] = rec = Recorder(L1_TRANSACTION_DTYPE, cap)
            self.l1 = L1State(
                threshold=self.threshold, max_count=(1 << self.counter_width) - 1, hash_bits=self.hash_bits,
                pc_shift=self.pc_shift, store_reuse=int(self.store_reuse), correction=int(self.correction),
                log_sm=self.log_sm, counters=np.zeros((n_caches, self.entries), np.uint8),
                lines=np.zeros((n_caches, cfg.sets, cfg.assoc), LINE_DTYPE),
                pending=np.zeros(n_caches, PENDING_DTYPE), stats=np.zeros(n_caches, STATS_DTYPE),
                tx=rec.log, tx_count=rec.count)
            return make_hooks(self.l1, on_hit=_l1_on_hit, on_miss=_l1_on_miss,
                              on_response=_l1_on_response, on_evict=_l1_on_evict, on_fill=_l1_on_fill)
        if level == "l2":
            self.l2_cfg = cfg
            self._recorders["l2"] = rec = Recorder(L2_TRANSACTION_DTYPE, cap)
            self.l2 = L2State(correction=int(self.correction), log=int(self.log_sm >= 0),
                              bits=np.zeros((cfg.sets, cfg.assoc), np.uint8), tx=rec.log, tx_count=rec.count)
            return make_hooks(self.l2, on_fill=_l2_on_fill, on_request=_l2_on_request)
        return BASELINE_HOOKS

    def stats(self) -> dict[str, int | float]:
        """Predictor statistics summed over SMs (the fields of :data:`STATS_DTYPE`), plus coverage."""
        out = dict.fromkeys(STATS_DTYPE.names, 0)
        if self.l1 is not None:
            out.update({name: int(self.l1.stats[name].sum()) for name in STATS_DTYPE.names})
        out["coverage"] = out["bypass_predictions"] / out["predictions"] if out["predictions"] else 0.0
        return out

    def reset(self) -> None:
        """Clear the tables, hashed PCs, bypassBits, statistics and logs."""
        for state in (self.l1, self.l2):
            if state is not None:
                for value in state:
                    if isinstance(value, np.ndarray):
                        value.fill(0)

    def storage_bits(self, gpu: GPUConfig) -> dict[str, int]:
        """Extra state per L1 and in the L2 (tian15 Section 4.1: 64 B + 224 B per L1, 0.5 KB in L2)."""
        bits = {"l1.prediction_table": self.entries * self.counter_width,
                "l1.hashed_pc": gpu.l1.lines * self.hash_bits}
        if self.correction:
            bits["l2.bypass_bits"] = gpu.l2.lines
        return bits

    def units(self) -> tuple[str, ...]:
        """tian15's three units."""
        return ("prediction_table", "l1_tag_unit", "bypass_bits")

    def unit(self, line_bits: int = 42) -> L1TagUnit:
        """The cycle-level unit model with this policy's parameters and the L1's geometry."""
        cfg = self.l1_cfg
        if cfg is None:
            raise RuntimeError("the policy has not been attached to a hierarchy")
        return L1TagUnit(sets=cfg.sets, ways=cfg.assoc, line_bits=line_bits, replacement=cfg.replacement,
                         entries=self.entries, counter_width=self.counter_width, threshold=self.threshold,
                         hash_bits=self.hash_bits, pc_shift=self.pc_shift, store_reuse=self.store_reuse)

    def take_transactions(self) -> dict[str, np.ndarray]:
        """The L1 unit's (``"l1"``) and the bypassBit store's (``"l2"``) transactions since the last call.

        Raises
        ------
        RuntimeError
            If a log overflowed its capacity (run shorter chunks between calls).
        """
        return {name: rec.take() for name, rec in self._recorders.items()}
