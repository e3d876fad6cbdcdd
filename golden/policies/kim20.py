"""kim20's two-level L1D bypassing and the comparison points of its Figs. 3 and 4.

``kim20-two-level`` samples each SM's L1 for ``window`` cycles (kim20: 5,000) from the SM's first
CTA of every kernel, with the cache in use; at the window's end the BDU's rule
(:func:`golden.units.bdu.decide`, the same function the unit model steps) sets the SM's mode for
the rest of the kernel: B mode sends loads past the L1 before its lookup (``on_lookup``: no tag
lookup, no hit, no MSHR, no line; kim20: "the cache resources as well as the additional access
cycles are not consumed"), C mode caches. Stores are write-through without allocation whatever the
mode (the L1's configuration).

The monitors' counts come from the timing model (``SchedulerControl``: the window's load lookups,
misses, MSHR merges and the sum of warps able to issue, ``docs/timing.md``), read through the
counters' saturation (:func:`golden.units.mrmu.saturated`); the policy therefore needs
``timing="cycle"``. Under the interleaver (``timing="none"``) no window ever closes and the L1 is
always used (``stats()["timed"]`` is 0).

The policy applies a window's decision at the SM's first load after the window (its ``on_lookup``);
the unit decides at the window's last cycle from the same counts, and co-simulation checks the two
agree. The mode of a load is the mode when it reaches the L1: a load sent while sampling looks the
L1 up and allocates even when its data returns in B mode. Lines cached before B mode stay in the
L1 (stores still look it up and update them) but B-mode loads no longer see them.

``kim20-miss-rate`` (parameter ``k``, or the name ``kim20-miss-rate:K``) is the same unit with
``threshold_L = threshold_H = k`` and ``threshold_W = 0`` (B mode when the sampled miss rate
exceeds *k*, Fig. 3); ``kim20-l1-off`` sends every load past the L1 from the start (no sampling).
``docs/policies/kim20.md`` gives every choice the paper leaves open.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.cache.engine import LOAD
from golden.configs.schema import CacheConfig, GPUConfig
from golden.policies.base import LevelHooks, Policy, make_hooks, register_policy
from golden.policies.recording import Recorder, new_row
from golden.units.bdu import BduParams, decide, quantize
from golden.units.mrmu import COUNTER_BITS
from golden.units.womu import sum_bits

__all__ = ["Kim20State", "DECISION_DTYPE", "Kim20TwoLevel", "Kim20MissRate", "Kim20L1Off", "DEFAULTS"]

#: Default thresholds: the midpoints of the bounds kim20's own data give (docs/policies/kim20.md).
DEFAULTS = {"threshold_l": round((0.046 + 0.68) / 2, 3), "threshold_h": round((0.73 + 0.95) / 2, 3),
            "threshold_w": round((0.46 + 0.84) / 2, 3)}

#: One BDU decision of the logged SM: kernel, cycle the policy applied it (its first load lookup after
#: the window), the saturated counts, the mode (1 B, 0 C).
DECISION_DTYPE = np.dtype([("kernel", "<i8"), ("cycle", "<i8"), ("first_cta", "<i8"), ("accesses", "<i8"),
                           ("misses", "<i8"), ("occupancy", "<i8"), ("mode", "<i8")])

# params[]: the BDU's integers and the policy's switches, then MAX_CANDIDATES (q_l, q_h, occ_limit)
# triples of other thresholds whose decisions are checked against this run's (see ``candidates``).
P_WINDOW, P_QL, P_QH, P_OCC_LIMIT, P_MIN_ACC, P_MERGED, P_OCC_MAX, P_ALWAYS, P_LOG_SM, P_SHADOW, P_N_CAND, \
    P_CAND = range(12)
#: Threshold sets one run can check at most (``candidates``).
MAX_CANDIDATES = 8
# stats[]: loads sent past the L1, load misses cached, decisions to B, to C.
S_BYPASSED, S_CACHED, S_DEC_B, S_DEC_C = range(4)

Kim20State = namedtuple("Kim20State", ["ready", "first_cta", "window", "win_ready", "win_loads", "win_misses",
                                       "win_merges", "kern", "mode", "params", "stats", "tx", "tx_count",
                                       "agree"])
Kim20State.__doc__ = """State of the L1 level: the timing model's per-SM monitors
(``SchedulerControl`` fields of the same names; zeros before ``attach_scheduler``), the kernel
each SM's mode belongs to, the mode (-1 sampling, 0 C, 1 B), ``params`` and ``stats`` (the
``P_*``/``S_*`` indices), the decision log (:data:`DECISION_DTYPE`) and ``agree[0]``, the bit mask
of the candidate threshold sets that have decided as this run at every decision so far."""


@nb.njit(cache=True, nogil=True)
def sm_mode(ps, sm, kernel, cycle):
    """SM ``sm``'s mode for a load looked up at ``cycle``: -1 sampling, 0 C, 1 B (deciding when due)."""
    p = ps.params
    if p[P_ALWAYS]:
        return 1
    if ps.kern[sm] != kernel:
        ps.kern[sm] = kernel
        ps.mode[sm] = -1
    if ps.mode[sm] < 0 and ps.first_cta[sm] >= 0 and cycle >= ps.first_cta[sm] + p[P_WINDOW]:
        cap = (1 << COUNTER_BITS) - 1
        acc = min(ps.win_loads[sm], cap)
        miss = min(ps.win_misses[sm] + p[P_MERGED] * ps.win_merges[sm], cap)
        occ = min(ps.win_ready[sm], p[P_OCC_MAX])
        m = 0 if p[P_SHADOW] else decide(acc, miss, occ, p[P_QL], p[P_QH], p[P_OCC_LIMIT], p[P_MIN_ACC])
        for j in range(p[P_N_CAND]):
            c = P_CAND + 3 * j
            if decide(acc, miss, occ, p[c], p[c + 1], p[c + 2], p[P_MIN_ACC]) != m:
                ps.agree[0] &= ~(1 << j)
        ps.mode[sm] = m
        ps.stats[S_DEC_B if m else S_DEC_C] += 1
        if sm == p[P_LOG_SM]:
            r = new_row(ps.tx, ps.tx_count) if ps.tx.size > 0 else -1
            if r >= 0:
                ps.tx[r].kernel = kernel
                ps.tx[r].cycle = cycle
                ps.tx[r].first_cta = ps.first_cta[sm]
                ps.tx[r].accesses = acc
                ps.tx[r].misses = miss
                ps.tx[r].occupancy = occ
                ps.tx[r].mode = m
    return ps.mode[sm]


@nb.njit(cache=True, nogil=True)
def kim20_on_lookup(ps, a):
    """Before a load's L1 lookup: in B mode the load goes past the L1 (flag 1); the mode is decided
    here when due."""
    if sm_mode(ps, a.c, a.kernel, a.cycle) == 1:
        ps.stats[S_BYPASSED] += 1
        return 1
    return 0


@nb.njit(cache=True, nogil=True)
def kim20_on_miss(ps, a):
    """A load that looked the L1 up (sampling or C mode) and missed: it caches (counted)."""
    if a.op == LOAD:
        ps.stats[S_CACHED] += 1
    return 0


class Kim20TwoLevel(Policy):
    """kim20's two-level L1D bypassing (see the module docstring).

    Parameters
    ----------
    window : int
        Sampling window in cycles (kim20: 5,000).
    threshold_l, threshold_h, threshold_w : float
        Miss-rate thresholds and the occupancy threshold (fraction of the SM's warp slots), in [0, 1],
        quantized to 1/256 (:data:`DEFAULTS`).
    min_accesses : int
        A window with fewer load lookups decides B mode (kim20's LUD case).
    merged_misses : bool
        Count MSHR merges as misses (default: accesses that hit a pending line, not misses).
    log_sm : int
        SM whose decisions are recorded (recorder ``"bdu"``).
    log_capacity : int
        Decision rows held between two ``take_transactions`` calls (0: no recording).
    candidates : sequence of (threshold_l, threshold_h, threshold_w)
        Up to :data:`MAX_CANDIDATES` other threshold sets (same window, ``min_accesses`` and
        ``merged_misses``). At every decision the policy also evaluates each of them on the same
        counts; ``stats()["candidates_agree"]`` has bit *j* set when candidate *j* decided as this
        run every time. The policy acts only through its decisions, so a run with that candidate's
        thresholds would have been identical, cycle for cycle (``golden.experiments.kim20`` reuses
        such runs).
    shadow : bool
        Sample and decide, but never bypass (every decision is C mode): the run is the no-bypass
        baseline's, and the candidates tell which thresholds would never have left it.
    """

    name = "kim20-two-level"
    recorders = ("bdu",)

    def __init__(self, *, window: int = 5000, threshold_l: float = DEFAULTS["threshold_l"],
                 threshold_h: float = DEFAULTS["threshold_h"], threshold_w: float = DEFAULTS["threshold_w"],
                 min_accesses: int = 32, merged_misses: bool = False, log_sm: int = 0,
                 log_capacity: int = 0, candidates: tuple = (), shadow: bool = False) -> None:
        self.q = (quantize(threshold_l, "threshold_l"), quantize(threshold_h, "threshold_h"),
                  quantize(threshold_w, "threshold_w"))
        BduParams(window, 32, *self.q, min_accesses)  # checks the fields, names the bad one
        if not isinstance(merged_misses, bool):
            raise ValueError(f"merged_misses: must be true or false, not {merged_misses!r}")
        if not isinstance(log_sm, int) or log_sm < 0:
            raise ValueError(f"log_sm: must be a non-negative integer, not {log_sm!r}")
        self.window, self.min_accesses, self.merged_misses = window, min_accesses, merged_misses
        self.thresholds = (threshold_l, threshold_h, threshold_w)
        if not isinstance(shadow, bool):
            raise ValueError(f"shadow: must be true or false, not {shadow!r}")
        if len(candidates) > MAX_CANDIDATES:
            raise ValueError(f"candidates: at most {MAX_CANDIDATES} threshold sets, not {len(candidates)}")
        self.candidates = [tuple(quantize(v, name) for v, name in
                                 zip(c, ("threshold_l", "threshold_h", "threshold_w"), strict=True))
                           for c in candidates]
        self.shadow = shadow
        self.log_sm = log_sm
        self.always = False
        self._rec = Recorder(DECISION_DTYPE, log_capacity)
        self._state: Kim20State | None = None
        self._n = 0
        self.warps = 32
        self.timed = False

    def bdu_params(self, warps: int | None = None) -> BduParams:
        """The unit's parameters for SMs of ``warps`` warp slots (default: the attached machine's)."""
        return BduParams(self.window, warps or self.warps, *self.q, self.min_accesses)

    def _build(self, ctl=None) -> LevelHooks:
        n = self._n
        if ctl is None:
            mon = {name: np.zeros(n, np.int64) for name in Kim20State._fields[:7]}
            mon["first_cta"][:] = -1
        else:
            mon = {name: getattr(ctl, name) for name in Kim20State._fields[:7]}
        b = self.bdu_params()
        params = np.zeros(P_CAND + 3 * MAX_CANDIDATES, np.int64)
        params[[P_WINDOW, P_QL, P_QH, P_OCC_LIMIT, P_MIN_ACC]] = (b.window, b.q_l, b.q_h, b.occ_limit,
                                                                   b.min_accesses)
        params[P_MERGED] = int(self.merged_misses)
        params[P_OCC_MAX] = (1 << sum_bits(b.window, b.warps)) - 1
        params[P_ALWAYS] = int(self.always)
        params[P_LOG_SM] = self.log_sm
        params[P_SHADOW] = int(self.shadow)
        params[P_N_CAND] = len(self.candidates)
        for j, (ql, qh, qw) in enumerate(self.candidates):
            params[P_CAND + 3 * j:P_CAND + 3 * j + 3] = (ql, qh, BduParams(b.window, b.warps, ql, qh, qw,
                                                                             b.min_accesses).occ_limit)
        old = self._state
        self._state = Kim20State(**mon, kern=np.full(n, -1, np.int64), mode=np.full(n, -1, np.int64),
                                 params=params, stats=np.zeros(4, np.int64) if old is None else old.stats,
                                 tx=self._rec.log, tx_count=self._rec.count,
                                 agree=np.array([(1 << len(self.candidates)) - 1], np.int64)
                                 if old is None else old.agree)
        return make_hooks(self._state, on_lookup=kim20_on_lookup, on_miss=kim20_on_miss)

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        if level != "l1":
            return super().level_hooks(level, cfg, n_caches)
        self._n = n_caches
        self.timed = False
        return self._build()

    def attach_scheduler(self, ctl) -> dict[str, LevelHooks]:
        """Rebuild the L1 hooks on the timing model's monitors; set each SM's window."""
        if not self.always:
            ctl.window[:] = self.window
        self.warps = len(ctl.blocked) // len(ctl.window)
        self.timed = True
        return {"l1": self._build(ctl)}

    def stats(self) -> dict[str, int | float]:
        s = self._state.stats if self._state is not None else np.zeros(4, np.int64)
        decisions = int(s[S_DEC_B] + s[S_DEC_C])
        return {"loads_bypassed": int(s[S_BYPASSED]), "load_misses_cached": int(s[S_CACHED]),
                "decisions_b": int(s[S_DEC_B]), "decisions_c": int(s[S_DEC_C]),
                "b_share": s[S_DEC_B] / decisions if decisions else 0.0, "timed": int(self.timed),
                "candidates_agree": int(self._state.agree[0]) if self._state is not None else 0}

    def reset(self) -> None:
        if self._state is not None:
            self._state.stats[:] = 0
            self._state.kern[:] = -1
            self._state.mode[:] = -1
            self._state.agree[0] = (1 << len(self.candidates)) - 1

    def storage_bits(self, gpu: GPUConfig) -> dict[str, int]:
        if self.always:
            return {}
        b = self.bdu_params(gpu.max_warps_per_sm)
        return {"l1.mrmu": 2 * COUNTER_BITS, "l1.womu": sum_bits(b.window, b.warps),
                "l1.bdu": b.timer_bits + 2}

    def units(self) -> tuple[str, ...]:
        return () if self.always else ("kim20_bypass",)

    def take_transactions(self) -> dict[str, np.ndarray]:
        return {"bdu": self._rec.take()}


register_policy(Kim20TwoLevel)


@register_policy
class Kim20MissRate(Kim20TwoLevel):
    """Miss-rate-only bypassing with a fixed threshold ``k`` (kim20 Fig. 3): B mode when the sampled
    miss rate exceeds ``k`` (default 0.9, Fig. 3's best on average). ``spec`` is the ``K`` of the name
    ``kim20-miss-rate:K``."""

    name = "kim20-miss-rate"

    def __init__(self, *, k: float = 0.9, spec: str | None = None, **params) -> None:
        if spec is not None:
            try:
                k = float(spec)
            except ValueError:
                raise ValueError(f"k: kim20-miss-rate:K needs a number K, not {spec!r}") from None
        super().__init__(threshold_l=k, threshold_h=k, threshold_w=0.0, **params)
        self.k = k


@register_policy
class Kim20L1Off(Kim20TwoLevel):
    """The L1 always off for loads (kim20 Figs. 3 and 4): every load goes past it from the start."""

    name = "kim20-l1-off"

    def __init__(self, **params) -> None:
        super().__init__(**params)
        self.always = True


