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

import numba as nb
import numpy as np

from golden.configs.schema import CacheConfig
from golden.errors import InputError
from golden.policies.base import BASELINE_HOOKS, LevelHooks, Policy, make_hooks, register_policy
from golden.units.bypass_bits import bypass_bit_request
from golden.units.l1_tag_unit import L1TagUnit
from golden.units.pc_hash import pc_hash
from golden.units.prediction_table import check_table_params, table_update

__all__ = ["PCBypass", "L1_LOG_COLUMNS", "L2_LOG_COLUMNS", "STAT_NAMES"]

LOAD = 1

# Parameters, one int64 vector per level.
_P_THR, _P_MAX, _P_HBITS, _P_SHIFT, _P_WAYS, _P_STORE_REUSE, _P_CORRECT, _P_LOG_SM, _P_CAP = range(9)

#: Policy statistics (summed over SMs), in the order of the ``stats`` array.
STAT_NAMES = ("predictions", "bypass_predictions", "corrections", "bypasses", "table_increments",
              "table_decrements", "table_lookups")
_S_PRED, _S_BPRED, _S_CORR, _S_BYP, _S_INC, _S_DEC, _S_LOOK = range(len(STAT_NAMES))

#: Columns of the recorded L1 log: the L1 tag unit's ports, ``ctx_access``,
#: and the embedded prediction table's ports in the same cycle.
L1_LOG_COLUMNS = ("req_valid", "req_line", "req_pc", "req_store", "l2_valid", "l2_bit",
                  "exp_req_ready", "exp_lookup_hit", "exp_lookup_way", "exp_lookup_predict",
                  "exp_fill_valid", "exp_fill_install", "exp_fill_way", "ctx_access",
                  "lookup_idx", "inc_en", "inc_idx", "dec_en", "dec_idx", "exp_lookup_count")
(_REQ_VALID, _REQ_LINE, _REQ_PC, _REQ_STORE, _L2_VALID, _L2_BIT, _READY, _HIT, _WAY, _PREDICT,
 _FILL_VALID, _FILL_INSTALL, _FILL_WAY, _CTX, _T_IDX, _T_INC_EN, _T_INC_IDX, _T_DEC_EN, _T_DEC_IDX,
 _T_COUNT) = range(len(L1_LOG_COLUMNS))
#: Columns of the recorded L2 bypassBit log.
L2_LOG_COLUMNS = ("req_valid", "req_set", "req_way", "req_bypass", "fill_valid", "fill_set", "fill_way",
                  "exp_resp_bit", "ctx_access")


@nb.njit(cache=True, nogil=True)
def _row(log, n, p):
    """Index of a fresh zeroed log row, or -1 when the log is full (counted in ``n[1]``)."""
    if n[0] >= p[_P_CAP]:
        n[1] += 1
        return -1
    r = n[0]
    n[0] += 1
    for k in range(log.shape[1]):
        log[r, k] = 0
    return r


@nb.njit(cache=True, nogil=True)
def _log_request(ps, c, line, pc, op, h, cnt, hit, w, t):
    p, counters, hpc, miss, stats, log, n = ps
    if c != p[_P_LOG_SM]:
        return -1
    r = _row(log, n, p)
    if r >= 0:
        log[r, _REQ_VALID] = 1
        log[r, _REQ_LINE] = line
        log[r, _REQ_PC] = pc
        log[r, _REQ_STORE] = 0 if op == LOAD else 1
        log[r, _READY] = 1
        log[r, _HIT] = 1 if hit else 0
        log[r, _WAY] = w if hit else 0
        log[r, _PREDICT] = 1 if cnt >= p[_P_THR] else 0
        log[r, _CTX] = t
        log[r, _T_IDX] = h
        log[r, _T_COUNT] = cnt
    return r


@nb.njit(cache=True, nogil=True)
def _l1_on_hit(ps, c, s, w, line, pc, op, t):
    p, counters, hpc, miss, stats, log, n = ps
    h = pc_hash(pc, p[_P_HBITS], p[_P_SHIFT])
    cnt = counters[c, h]
    stats[c, _S_LOOK] += 1
    r = _log_request(ps, c, line, pc, op, h, cnt, True, w, t)
    if op == LOAD or p[_P_STORE_REUSE]:
        k = s * p[_P_WAYS] + w
        table_update(counters[c], False, 0, True, hpc[c, k], p[_P_MAX])
        stats[c, _S_DEC] += 1
        if r >= 0:
            log[r, _T_DEC_EN] = 1
            log[r, _T_DEC_IDX] = hpc[c, k]
        hpc[c, k] = h


@nb.njit(cache=True, nogil=True)
def _l1_on_miss(ps, c, s, line, pc, op, t):
    p, counters, hpc, miss, stats, log, n = ps
    h = pc_hash(pc, p[_P_HBITS], p[_P_SHIFT])
    cnt = counters[c, h]
    stats[c, _S_LOOK] += 1
    r = _log_request(ps, c, line, pc, op, h, cnt, False, 0, t)
    if op != LOAD:
        return 0  # write-through store miss: no allocation, no prediction
    predicted = 1 if cnt >= p[_P_THR] else 0
    stats[c, _S_PRED] += 1
    if predicted:
        stats[c, _S_BPRED] += 1
    # The miss in flight: predicted, hashed PC, its request row, its resolve row.
    miss[c, 0] = 1
    miss[c, 1] = predicted
    miss[c, 2] = h
    miss[c, 3] = r
    miss[c, 4] = -1
    return 1 if predicted else 0


@nb.njit(cache=True, nogil=True)
def _l1_on_response(ps, c, s, line, pc, op, flags, resp, t):
    p, counters, hpc, miss, stats, log, n = ps
    predicted = (flags & 1) != 0
    bypass = predicted and not (p[_P_CORRECT] != 0 and resp != 0)
    if predicted and not bypass:
        stats[c, _S_CORR] += 1
    if bypass:
        stats[c, _S_BYP] += 1
        miss[c, 0] = 0
    if c == p[_P_LOG_SM]:
        r = _row(log, n, p)
        if r >= 0:
            log[r, _L2_VALID] = 1
            log[r, _L2_BIT] = resp
            log[r, _FILL_VALID] = 1
            log[r, _FILL_INSTALL] = 0 if bypass else 1
            log[r, _CTX] = t
            miss[c, 4] = r
    return 1 if bypass else 0


@nb.njit(cache=True, nogil=True)
def _l1_on_evict(ps, c, s, w, line, dirty, t):
    p, counters, hpc, miss, stats, log, n = ps
    if not miss[c, 0] or miss[c, 1]:
        return  # not a miss being filled, or a corrected install: no victim increment
    k = s * p[_P_WAYS] + w
    table_update(counters[c], True, hpc[c, k], False, 0, p[_P_MAX])
    stats[c, _S_INC] += 1
    r = miss[c, 3]
    if r >= 0:
        log[r, _T_INC_EN] = 1
        log[r, _T_INC_IDX] = hpc[c, k]


@nb.njit(cache=True, nogil=True)
def _l1_on_fill(ps, c, s, w, line, pc, op, t):
    p, counters, hpc, miss, stats, log, n = ps
    hpc[c, s * p[_P_WAYS] + w] = miss[c, 2]
    miss[c, 0] = 0
    r = miss[c, 4]
    if r >= 0:
        log[r, _FILL_WAY] = w


@nb.njit(cache=True, nogil=True)
def _l2_on_fill(ps, c, s, w, line, pc, op, t):
    p, bits, log, n = ps
    bits[s, w] = 0  # a new line has no bypass history
    if p[_P_LOG_SM] >= 0 and p[_P_CORRECT]:
        r = _row(log, n, p)
        if r >= 0:
            log[r, 4] = 1
            log[r, 5] = s
            log[r, 6] = w
            log[r, 8] = t


@nb.njit(cache=True, nogil=True)
def _l2_on_request(ps, c, s, w, line, flags, t):
    p, bits, log, n = ps
    if w < 0 or not p[_P_CORRECT]:
        return 0
    resp = bypass_bit_request(bits, s, w, (flags & 1) != 0)
    if p[_P_LOG_SM] >= 0:
        r = _row(log, n, p)
        if r >= 0:
            log[r, 0] = 1
            log[r, 1] = s
            log[r, 2] = w
            log[r, 3] = flags & 1
            log[r, 7] = resp
            log[r, 8] = t
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
        Record transaction logs of this SM's L1 unit and of the L2 bypassBit
        store (see :meth:`take_logs`).
    log_capacity : int
        Rows each log holds between two :meth:`take_logs` calls.

    Raises
    ------
    ValueError
        For an unusable table or hash geometry.
    InputError
        When attached to a write-back L1.
    """

    name = "pc-bypass"

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
        self.l1_state: tuple | None = None
        self.l2_state: tuple | None = None
        self.l1_cfg: CacheConfig | None = None
        self.l2_cfg: CacheConfig | None = None

    def _params(self, ways: int) -> np.ndarray:
        return np.array([self.threshold, (1 << self.counter_width) - 1, self.hash_bits, self.pc_shift,
                         ways, int(self.store_reuse), int(self.correction), self.log_sm,
                         self.log_capacity], dtype=np.int64)

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        if level == "l1":
            if cfg.write == "write-back":
                # A write-back L1 allocates on store misses, which Listing 1 does not describe.
                raise InputError(f"pc-bypass: l1.write must be write-through or write-evict (tian15's L1 "
                                 f"does not allocate on stores), not {cfg.write!r}")
            self.l1_cfg = cfg
            lines = cfg.sets * cfg.assoc
            cap = self.log_capacity if self.log_sm >= 0 else 0
            self.l1_state = (self._params(cfg.assoc),
                             np.zeros((n_caches, self.entries), np.uint8),
                             np.zeros((n_caches, lines), np.int64),
                             np.zeros((n_caches, 5), np.int64),
                             np.zeros((n_caches, len(STAT_NAMES)), np.int64),
                             np.zeros((cap, len(L1_LOG_COLUMNS)), np.int64),
                             np.zeros(2, np.int64))
            return make_hooks(self.l1_state, on_hit=_l1_on_hit, on_miss=_l1_on_miss,
                              on_response=_l1_on_response, on_evict=_l1_on_evict, on_fill=_l1_on_fill)
        if level == "l2":
            self.l2_cfg = cfg
            cap = self.log_capacity if self.log_sm >= 0 else 0
            self.l2_state = (self._params(cfg.assoc),
                             np.zeros((cfg.sets, cfg.assoc), np.uint8),
                             np.zeros((cap, len(L2_LOG_COLUMNS)), np.int64),
                             np.zeros(2, np.int64))
            return make_hooks(self.l2_state, on_fill=_l2_on_fill, on_request=_l2_on_request)
        return BASELINE_HOOKS

    def stats(self) -> dict[str, int]:
        """Predictor statistics summed over SMs (:data:`STAT_NAMES`), plus coverage."""
        if self.l1_state is None:
            raise RuntimeError("the policy has not been attached to a hierarchy")
        sums = self.l1_state[4].sum(axis=0)
        out = {name: int(v) for name, v in zip(STAT_NAMES, sums, strict=True)}
        out["coverage"] = out["bypass_predictions"] / out["predictions"] if out["predictions"] else 0.0
        return out

    def storage_bits(self, l1: CacheConfig | None = None, l2: CacheConfig | None = None) -> dict[str, int]:
        """Extra state per L1 and in the L2 (tian15 Section 4.1: 64 B + 224 B per L1, 0.5 KB in L2).

        Parameters
        ----------
        l1, l2 : CacheConfig, optional
            The caches; by default those of the hierarchy the policy is attached to.
        """
        l1 = l1 or self.l1_cfg
        l2 = l2 or self.l2_cfg
        if l1 is None or l2 is None:
            raise RuntimeError("give the L1 and L2 configs, or attach the policy to a hierarchy")
        return {"prediction_table": self.entries * self.counter_width,
                "l1_hashed_pc": l1.lines * self.hash_bits,
                "l2_bypass_bits": l2.lines if self.correction else 0}

    def unit(self, line_bits: int = 42) -> L1TagUnit:
        """The cycle-level unit model with this policy's parameters and the L1's geometry."""
        cfg = self.l1_cfg
        if cfg is None:
            raise RuntimeError("the policy has not been attached to a hierarchy")
        return L1TagUnit(sets=cfg.sets, ways=cfg.assoc, line_bits=line_bits, replacement=cfg.replacement,
                         entries=self.entries, counter_width=self.counter_width, threshold=self.threshold,
                         hash_bits=self.hash_bits, pc_shift=self.pc_shift, store_reuse=self.store_reuse)

    def take_logs(self) -> tuple[np.ndarray, np.ndarray]:
        """The L1 and L2 log rows recorded since the last call, as int64 ``[rows, columns]``.

        Raises
        ------
        RuntimeError
            If a log overflowed its capacity (run shorter chunks between calls).
        """
        out = []
        for state, log_i, n_i in ((self.l1_state, 5, 6), (self.l2_state, 2, 3)):
            log, n = state[log_i], state[n_i]
            if n[1]:
                raise RuntimeError(f"transaction log overflowed by {int(n[1])} rows "
                                   f"(capacity {self.log_capacity}); run shorter chunks")
            out.append(log[:n[0]].copy())
            n[0] = 0
        return out[0], out[1]
