"""The measurements tian15 reports, computed from golden runs.

* **Zero-reuse blocks** (tian15 Figure 1): blocks evicted from the baseline
  L1 before they were touched again, as a share of all evicted blocks. A
  :class:`ReuseObserver` (baseline behaviour, hooks that only count) gives it.
* **Coverage** (Figure 11): bypass predictions / predictions made on L1
  load misses (from the ``pc-bypass`` policy's counters).
* **False positives**, both of the paper's definitions (Section 5.3), from
  a *shadow tag array*: the baseline L1 run on the same access stream (its
  per-access outcomes). A bypass prediction is a *positive*.

  - ``fp_rate`` (tian15's definition, "incorrectly bypassed or replaced
    blocks"): accesses that miss in the bypassing L1 but hit in the shadow
    baseline L1 — the block was bypassed or replaced when the baseline kept
    it — per bypass prediction.
  - ``fp_rate_sdbp`` (sampling dead block prediction's definition,
    "accesses to predicted dead blocks / dead predictions"): bypassed
    accesses whose block is re-referenced by the same SM while the shadow
    baseline L1 still holds it, per bypass prediction.

* **Energy** (Figure 7, Table 3): L1 dynamic energy from CACTI 6.5 per-access
  energies, and static energy as Table 3's static power over the run's
  cycles at tian15's 1 GHz clock (:func:`l1_energy`).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numba as nb
import numpy as np

from golden.cache.engine import BYPASSED
from golden.configs.schema import CacheConfig
from golden.policies.base import BASELINE_HOOKS, LevelHooks, Policy, make_hooks

__all__ = ["ReuseObserver", "false_positives", "CACTI", "l1_energy"]


#: The observer's state: whether each L1 line was hit since its fill, and eviction counts per SM.
ObserverState = namedtuple("ObserverState", ["reused", "counts"])
#: Per-SM eviction counts of the observer.
COUNTS_DTYPE = np.dtype([("evictions", "<i8"), ("zero_reuse", "<i8")])


@nb.njit(cache=True, nogil=True)
def _obs_hit(ps, a):
    ps.reused[a.c, a.set, a.way] = 1


@nb.njit(cache=True, nogil=True)
def _obs_fill(ps, a):
    ps.reused[a.c, a.set, a.way] = 0


@nb.njit(cache=True, nogil=True)
def _obs_evict(ps, a, way, line, dirty):
    counts = ps.counts[a.c]
    counts.evictions += 1
    if not ps.reused[a.c, a.set, way]:
        counts.zero_reuse += 1


class ReuseObserver(Policy):
    """Baseline behaviour; counts L1 evictions and those of never-reused blocks."""

    name = "reuse-observer"

    def __init__(self) -> None:
        self.counts: np.ndarray | None = None

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        if level != "l1":
            return BASELINE_HOOKS
        self.counts = np.zeros(n_caches, COUNTS_DTYPE)
        state = ObserverState(reused=np.zeros((n_caches, cfg.sets, cfg.assoc), np.uint8), counts=self.counts)
        return make_hooks(state, on_hit=_obs_hit, on_fill=_obs_fill, on_evict=_obs_evict)

    def stats(self) -> dict[str, int | float]:
        """Evictions, zero-reuse evictions and their share (zeros before a run)."""
        return {"evictions": self.evictions, "zero_reuse_evictions": self.zero_reuse_evictions,
                "zero_reuse_share": self.zero_reuse_share}

    def reset(self) -> None:
        if self.counts is not None:
            self.counts.fill(0)

    @property
    def evictions(self) -> int:
        """L1 evictions, all SMs."""
        return 0 if self.counts is None else int(self.counts["evictions"].sum())

    @property
    def zero_reuse_evictions(self) -> int:
        """L1 evictions of blocks never hit since their fill, all SMs."""
        return 0 if self.counts is None else int(self.counts["zero_reuse"].sum())

    @property
    def zero_reuse_share(self) -> float:
        """Share of evicted blocks never touched again (tian15 Figure 1)."""
        return self.zero_reuse_evictions / self.evictions if self.evictions else 0.0


@nb.njit(cache=True, nogil=True)
def _next_reference(key_order, sm, line):
    """For each access, the index of the next access by the same SM to the same line (-1: none)."""
    nxt = np.full(sm.size, -1, np.int64)
    for k in range(key_order.size - 1):
        a, b = key_order[k], key_order[k + 1]
        if sm[a] == sm[b] and line[a] == line[b]:
            nxt[a] = b
    return nxt


def false_positives(sm: np.ndarray, line: np.ndarray, shadow: np.ndarray, bypassing: np.ndarray,
                    bypass_predictions: int) -> dict[str, float]:
    """Both of tian15's false-positive rates (see the module docstring).

    Parameters
    ----------
    sm, line : numpy.ndarray
        SM and line of every access of the stream.
    shadow : numpy.ndarray
        Outcome of every access in the baseline L1 (``Hierarchy.run(..., outcomes=True)``).
    bypassing : numpy.ndarray
        Outcome of every access with the bypass policy.
    bypass_predictions : int
        Bypass predictions the policy made.
    """
    shadow_hit = (shadow & 0x7F) == 1
    real_hit = (bypassing & 0x7F) == 1
    bypassed = (bypassing & BYPASSED) != 0
    order = np.lexsort((np.arange(sm.size), line, sm))
    nxt = _next_reference(order, sm.astype(np.int64), line.astype(np.int64))
    has_next = nxt >= 0
    wrong_bypass = int(np.count_nonzero(bypassed & has_next
                                        & shadow_hit[np.where(has_next, nxt, 0)]))
    lost = int(np.count_nonzero(shadow_hit & ~real_hit))
    denom = max(bypass_predictions, 1)
    return {"fp_rate": lost / denom if bypass_predictions else 0.0,
            "fp_rate_sdbp": wrong_bypass / denom if bypass_predictions else 0.0,
            "lost_hits": lost, "wrongly_bypassed": wrong_bypass}


@dataclass(frozen=True)
class CactiFigures:
    """L1 energy figures of tian15 Table 3 (CACTI 6.5, 16 KB L1)."""

    tag_nj_baseline: float = 0.00134096
    tag_nj_bypass: float = 0.0017867
    data_nj: float = 0.106434
    table_nj: float = 0.000126232
    static_mw_baseline: float = 7.538627
    static_mw_bypass: float = 7.72904
    dynamic_mw_baseline: float = 44.2935
    dynamic_mw_bypass: float = 36.1491
    clock_ghz: float = 1.0  # tian15 Table 1


#: tian15 Table 3.
CACTI = CactiFigures()


def l1_energy(accesses: int, fills: int, cycles: int, *, table_accesses: int = 0,
              bypassing: bool = False, n_l1: int = 1, cacti: CactiFigures = CACTI) -> dict[str, float]:
    """L1 energy in nJ, the way tian15 Section 5.1 accounts it.

    Every access reads the tag and data arrays in parallel; every fill
    writes them again; with bypassing, tags are wider (Table 3's larger tag
    energy) and each prediction-table access (lookup or update) costs
    ``table_nj``. Static energy is the static power of Table 3 for ``n_l1``
    caches over ``cycles`` at the 1 GHz clock.

    Returns
    -------
    dict
        ``dynamic``, ``static`` and ``total`` in nJ.
    """
    tag = cacti.tag_nj_bypass if bypassing else cacti.tag_nj_baseline
    dynamic = (accesses + fills) * (tag + cacti.data_nj) + table_accesses * cacti.table_nj
    static_mw = cacti.static_mw_bypass if bypassing else cacti.static_mw_baseline
    static = static_mw * 1e-3 * n_l1 * cycles / (cacti.clock_ghz * 1e9) * 1e9  # mW x s -> nJ
    return {"dynamic": dynamic, "static": static, "total": dynamic + static}
