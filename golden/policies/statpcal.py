"""statPCAL (Li et al., HPCA 2015, as ciao18 Section V compares it): tokens for the oldest warps.

Per SM the ``tokens`` oldest resident warps (lowest global warp id: the
first dispatched) hold a token and use the L1 as usual. The other warps
are the ones Best-SWL would throttle: while the L2/DRAM bandwidth is
under-used they run anyway and their load misses **bypass the L1** (the
line is not allocated); while it is not, they are throttled
(``SchedulerControl.blocked``).

Bandwidth: the L1 load misses of the whole GPU are counted over windows of
``window`` cycles (the hooks see each access's cycle); a window whose
missed bytes are below ``threshold`` times the DRAM's peak bytes in a
window (``dram_bus_bytes`` x DRAM/core clock x channels) marks the next
window as under-used. A GPU without a DRAM bandwidth limit is always
under-used. The decision is applied to an SM's warps at its next L1 access.
``docs/policies/ciao18.md`` lists the choices.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.configs.schema import CacheConfig, GPUConfig
from golden.policies.base import BASELINE_HOOKS, LevelHooks, Policy, make_hooks, register_policy
from golden.policies.warp_block import set_blocked

__all__ = ["StatPCAL", "PcalState", "PCAL_DEFAULTS"]

LOAD = 1
#: Our parameters (ciao18 gives none for statPCAL): tokens, window (cycles), bandwidth threshold.
PCAL_DEFAULTS = {"tokens": 4, "window": 1000, "threshold": 0.5}

# p[]: slots per SM, tokens, window, bytes per miss, threshold bytes per window (-1: no limit).
P_W, P_TOKENS, P_WINDOW, P_BYTES, P_LIMIT = range(5)
# st[]: bypassed load misses, windows, busy windows.
S_BYPASSED, S_WINDOWS, S_BUSY = range(3)
STAT_NAMES = ("load_misses_bypassed", "windows", "busy_windows")

PcalState = namedtuple("PcalState", ["blocked", "warp", "resident", "wpc", "changed", "win", "p", "st",
                                     "seen", "token"])
PcalState.__doc__ = """State of the L1 level: the SchedulerControl views, ``win`` = (window start,
bytes missed in it, busy flag of the last window), parameters ``p`` and statistics ``st``;
``seen`` is each SM's row of ``warp`` when its ``token`` flags (one per slot) were last worked out."""


@nb.njit(cache=True, nogil=True)
def _pcal_enter(ps, a):
    """Close windows up to ``a.cycle``; apply the busy flag to ``a.c``'s non-token warps.

    Returns 1 when the accessing warp holds no token, 0 when it does, -1 before ``attach_scheduler``.
    """
    p = ps.p
    W = p[P_W]
    if W == 0:
        return np.int64(-1)
    if a.cycle >= ps.win[0] + p[P_WINDOW]:
        busy = p[P_LIMIT] >= 0 and ps.win[1] >= p[P_LIMIT]
        ps.win[2] = 1 if busy else 0
        ps.st[S_WINDOWS] += 1
        ps.st[S_BUSY] += ps.win[2]
        ps.win[0] = a.cycle - (a.cycle - ps.win[0]) % p[P_WINDOW]
        ps.win[1] = 0
    base = a.c * W
    # The tokens change only with the SM's resident warps: worked out again (W x W) when its row
    # of warp ids differs from the one they were worked out for, else read (W).
    for s in range(W):
        if ps.warp[base + s] != ps.seen[base + s]:
            _tokens(ps, base, W, p[P_TOKENS])
            break
    gw = a.cta * ps.wpc[a.c] + a.warp
    mine = np.int64(0)
    for s in range(W):
        g = base + s
        if ps.warp[g] < 0:
            continue
        token = ps.token[g]
        # Applied at every access: the timing model may have released a block since (_unblock).
        set_blocked(ps.blocked, ps.changed, a.c, g, 0 if token or ps.win[2] == 0 else 1)
        if ps.warp[g] == gw and not token:
            mine = 1
    return mine


@nb.njit(cache=True, nogil=True)
def _tokens(ps, base, W, tokens):
    """Token flags of the SM whose slots start at ``base``: its ``tokens`` oldest resident warps."""
    for s in range(W):
        g = base + s
        ps.seen[g] = ps.warp[g]
        older = 0
        for s2 in range(W):
            if ps.warp[base + s2] >= 0 and ps.warp[base + s2] < ps.warp[g]:
                older += 1
        ps.token[g] = 1 if older < tokens else 0


@nb.njit(cache=True, nogil=True)
def pcal_on_hit(ps, a):
    """An L1 hit: windows and throttling only."""
    _pcal_enter(ps, a)


@nb.njit(cache=True, nogil=True)
def pcal_on_miss(ps, a):
    """A load miss counts towards the window; a warp without a token asks to bypass (flag 1)."""
    no_token = _pcal_enter(ps, a)
    if a.op != LOAD or no_token < 0:
        return np.int64(0)
    ps.win[1] += ps.p[P_BYTES]
    return no_token


@nb.njit(cache=True, nogil=True)
def pcal_on_response(ps, a, flags, resp):
    """The line of a tokenless warp's miss is not allocated."""
    if flags & 1:
        ps.st[S_BYPASSED] += 1
        return np.int64(1)
    return np.int64(0)


@register_policy
class StatPCAL(Policy):
    """statPCAL on the timing model (module docstring).

    Parameters
    ----------
    tokens : int
        Warps per SM that keep the L1 (Best-SWL's warp limit for the benchmark in the comparison).
    window : int
        Cycles per bandwidth measurement window.
    threshold : float
        Share of the DRAM's peak bandwidth under which a window counts as under-used, in (0, 1].

    Raises
    ------
    ValueError
        For a parameter that is zero, negative or unusable (the message names the field).
    """

    name = "statpcal"

    def __init__(self, *, tokens: int = PCAL_DEFAULTS["tokens"], window: int = PCAL_DEFAULTS["window"],
                 threshold: float = PCAL_DEFAULTS["threshold"]) -> None:
        for field, v in (("tokens", tokens), ("window", window)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{field}: must be a positive integer, not {v!r}")
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold <= 1:
            raise ValueError(f"threshold: must be a number in (0, 1], not {threshold!r}")
        self.tokens, self.window, self.threshold = tokens, window, threshold
        self._state: PcalState | None = None
        self._n = 0
        self._cfg: CacheConfig | None = None
        self._gpu: GPUConfig | None = None

    def _build(self, ctl=None) -> LevelHooks:
        n = self._n
        p = np.zeros(5, np.int64)
        p[[P_TOKENS, P_WINDOW, P_BYTES]] = (self.tokens, self.window, self._cfg.line_size)
        p[P_LIMIT] = -1
        g = self._gpu
        if ctl is None:
            views = {"blocked": np.zeros(0, np.int64), "warp": np.zeros(0, np.int64),
                     "resident": np.zeros(n, np.int64), "wpc": np.zeros(n, np.int64),
                     "changed": np.zeros(n, np.int64)}
        else:
            views = {name: getattr(ctl, name) for name in ("blocked", "warp", "resident", "wpc", "changed")}
            p[P_W] = len(ctl.blocked) // n
        if g is not None and g.dram_bus_bytes:
            ratio = g.dram_clock_mhz / g.core_clock_mhz if g.core_clock_mhz and g.dram_clock_mhz else 1.0
            peak = g.dram_bus_bytes * ratio * (g.dram_channels or g.l2_partitions)
            p[P_LIMIT] = max(1, round(self.threshold * peak * self.window))
        slots = len(views["blocked"])
        self._state = PcalState(**views, win=np.zeros(3, np.int64), p=p,
                                st=np.zeros(len(STAT_NAMES), np.int64),
                                seen=np.full(slots, -2, np.int64), token=np.zeros(slots, np.int64))
        return make_hooks(self._state, on_hit=pcal_on_hit, on_miss=pcal_on_miss, on_response=pcal_on_response)

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        if level != "l1":
            return BASELINE_HOOKS
        self._n, self._cfg = n_caches, cfg
        return self._build()

    def attach_gpu(self, gpu: GPUConfig) -> None:
        """The machine whose DRAM bandwidth sets the threshold (call before the timing model is built)."""
        self._gpu = gpu

    def attach_scheduler(self, ctl) -> dict[str, LevelHooks]:
        """Rebuild the L1 hooks on the timing model's scheduler control arrays."""
        return {"l1": self._build(ctl)}

    def stats(self) -> dict[str, int | float]:
        st = self._state.st if self._state is not None else np.zeros(len(STAT_NAMES), np.int64)
        return {name: int(v) for name, v in zip(STAT_NAMES, st, strict=True)}

    def reset(self) -> None:
        if self._state is not None:
            self._state.st[:] = 0
            self._state.win[:] = 0
