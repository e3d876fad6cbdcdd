"""HeLM (Mekkat et al., PACT 2013) as drp16 compares against it (Sections 2.2 and 6.1), on a functional LLC.

drp16: HeLM "considers not allocating a fraction of the GPU data ... in the
shared LLC if it is estimated that the CPU workload is LLC-sensitive and
the GPU workload can tolerate LLC miss latency"; the tolerance is measured
by "letting [two sampled shader cores] bypass their misses at two different
rates (one low and one high)". A functional, stream-labelled LLC trace has
no shader cores and no ready-thread counts, so both measurements become set
duels on LLC read misses (``docs/policies/drp16.md``):

* **CPU sensitivity** (duel 0): in group A's leader sets GPU read misses
  bypass at the high rate, in group B's never; the PSEL counts CPU read
  misses. The CPU is LLC-sensitive when it misses less in A (PSEL below
  its midpoint).
* **GPU tolerance** (duel 1): A bypasses GPU read misses at the high
  rate, B at the low rate; the PSEL counts GPU read misses. The GPU
  tolerates the high rate when it misses less in A (PSEL below its midpoint).
* **Followers**: GPU read misses bypass at the high rate when the CPU is
  sensitive and the GPU tolerant, else at the low rate.

A rate is in sixteenths (``low_rate`` 4: 25 %, ``high_rate`` 16: every
GPU read miss, drp16 Section 4.3's range); of each 16 GPU read misses
that meet a rate ``r``, the first ``r`` bypass (one counter per rate,
deterministic). Everything else is the Baseline: SRRIP insertion at
RRPV 2, read hits to 0, its write-miss rules and depth-write duel (duel
2), write hits leave the block. CPU read misses always fill (inclusion).
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.cache.engine import LOAD
from golden.configs.schema import CacheConfig
from golden.llc.streams import MAX_CORES
from golden.policies import drp16_rrip as rrip
from golden.policies.base import BASELINE_HOOKS, LevelHooks, make_hooks, register_policy
from golden.policies.drp16_baselines import ExtendedRripPolicy, check_int

__all__ = ["HelmState", "HelmPolicy", "EVENTS", "RATE_STEPS", "hooks"]

#: A bypass rate is a number of sixteenths.
RATE_STEPS = 16
#: The duels: CPU sensitivity, GPU tolerance, the Baseline's depth-write duel.
_D_CPU, _D_GPU = 0, 1
_N_DUELS = 3
#: Policy event counters (besides the Baseline's write events).
EVENTS = ("gpu_read_bypasses", "high_rate_misses", "low_rate_misses")
EVENTS_DTYPE = np.dtype([(e, "<i8") for e in EVENTS])
_RRIP_EVENTS = ("write_bypasses", "depth_write_bypasses", "depth_write_fills")

HelmState = namedtuple("HelmState", ["rrip", "low", "high", "count", "events"])
HelmState.__doc__ = """HeLM's LLC state: ``rrip`` (the Baseline's
:class:`~golden.policies.drp16_rrip.RripState`, with three duels), ``low`` and
``high`` (int64 rates in sixteenths), ``count`` (``int64[17]``: GPU read misses
met per rate), ``events`` (``EVENTS_DTYPE[1]``: ``high_rate_misses`` and
``low_rate_misses`` count the followers' GPU read misses by verdict)."""


@nb.njit(cache=True, nogil=True)
def bypass_rate(ps, s):
    """The rate, in sixteenths, at which GPU read misses in set ``s`` bypass."""
    r = ps.rrip
    j = r.lead[s]
    if j == 2 * _D_CPU or j == 2 * _D_GPU:
        return ps.high
    if j == 2 * _D_CPU + 1:
        return 0
    if j == 2 * _D_GPU + 1:
        return ps.low
    mid = (r.psel_max + 1) // 2
    if r.psel[_D_CPU] < mid and r.psel[_D_GPU] < mid:
        ps.events[0].high_rate_misses += 1
        return ps.high
    ps.events[0].low_rate_misses += 1
    return ps.low


@nb.njit(cache=True, nogil=True)
def on_hit(ps, a):
    rrip.on_hit(ps.rrip, a)


@nb.njit(cache=True, nogil=True)
def on_miss(ps, a):
    if a.op == LOAD:
        rrip.duel_miss(ps.rrip, a.set, _D_CPU if a.stream < MAX_CORES else _D_GPU)
        rrip.duel_miss(ps.rrip, a.set, ps.rrip.depth_duel)
    return 0


@nb.njit(cache=True, nogil=True)
def on_response(ps, a, flags, resp):
    if a.op != LOAD or a.stream < MAX_CORES:
        return rrip.on_response(ps.rrip, a, flags, resp)
    rate = bypass_rate(ps, a.set)
    k = ps.count[rate]
    ps.count[rate] = k + 1
    if k % RATE_STEPS < rate:
        ps.events[0].gpu_read_bypasses += 1
        return 1
    return 0


@nb.njit(cache=True, nogil=True)
def victim(ps, a, default_way):
    return rrip.victim(ps.rrip, a, default_way)


@nb.njit(cache=True, nogil=True)
def on_fill(ps, a):
    rrip.on_fill(ps.rrip, a)


def hooks():
    """The hook functions, by name (for :func:`golden.cache.hooks.make_hooks`)."""
    return {"on_hit": on_hit, "on_miss": on_miss, "on_response": on_response, "victim": victim,
            "on_fill": on_fill}


@register_policy
class HelmPolicy(ExtendedRripPolicy):
    """HeLM on drp16's LLC: the Baseline with GPU read misses bypassing at a duelled rate.

    Parameters
    ----------
    region, leaders, psel_bits
        Set dueling, as for :class:`~golden.policies.drp16_baselines.RripLLCPolicy`
        (8 leader sets per group per 1K sets, 10-bit PSELs).
    low_rate, high_rate : int
        Bypass rates in sixteenths (4: 25 %; 16: 100 %); ``low_rate <= high_rate``.

    Members
    -------
    llc : RripState or None
        The Baseline's part of the state, after a model asked for the LLC's hooks.
    ext : HelmState or None
        The whole state (``ext.rrip is llc``).
    """

    name = "drp16-helm"
    rrip_events = _RRIP_EVENTS
    events = EVENTS

    def __init__(self, region: int = 1024, leaders: int = 8, psel_bits: int = 10, low_rate: int = 4,
                 high_rate: int = 16) -> None:
        super().__init__(region, leaders, psel_bits)
        check_int(self.name, "high_rate", high_rate, 0, RATE_STEPS)
        check_int(self.name, "low_rate", low_rate, 0, high_rate)
        self.low_rate, self.high_rate = low_rate, high_rate

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        """Hooks for the ``"llc"`` level (new state); the baseline's elsewhere.

        Raises
        ------
        InputError
            If the LLC is too small for the three duels' leader sets.
        """
        if level != "llc":
            return BASELINE_HOOKS
        self.ext = HelmState(rrip=self.new_llc_state(cfg, duels=_N_DUELS), low=self.low_rate,
                              high=self.high_rate, count=np.zeros(RATE_STEPS + 1, np.int64),
                              events=np.zeros(1, EVENTS_DTYPE))
        return make_hooks(self.ext, **hooks())

    def reset_ext(self) -> None:
        """Forget the rate counters (the RRPVs and PSELs go too)."""
        self.ext.count.fill(0)
