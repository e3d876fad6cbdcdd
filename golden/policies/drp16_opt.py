"""drp16's offline policies OPT and OPT+Bypass (Section 4.1), on a recorded LLC trace.

"The OPT policy implements Belady's MIN replacement algorithm extended to
handle both read and write misses": every miss, read or write, fills, and
the victim is the resident line whose next access (read or write) is the
farthest in the future. OPT+Bypass: "if the next-use distance of an
incoming new block belonging to the GPU is larger than the next-use
distances of all the blocks in the target LLC set, the block is not
allocated"; CPU blocks are always filled (inclusion).

Next uses come from :func:`~golden.policies.drp16_baselines.next_uses`
(one sort, ``O(N log N)``) over the trace given to :meth:`OptPolicy.prepare`;
the hooks keep each resident line's next use (``nu``) and the victim is the
largest of the set's ``W`` values, so a run costs ``O(N W)`` after the sort,
with no scan of the future. ``a.t`` is the access's index in that trace:
run the trace through ``LLCModel(..., private=False)`` from its start.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError
from golden.llc.streams import MAX_CORES
from golden.policies.base import BASELINE_HOOKS, LevelHooks, Policy, make_hooks, register_policy
from golden.policies.drp16_baselines import next_uses

__all__ = ["OptState", "OptPolicy", "OptBypassPolicy"]

OptState = namedtuple("OptState", ["bypass", "next_use", "nu", "valid", "events"])
OptState.__doc__ = """OPT's LLC state: ``bypass`` (int64 0/1), ``next_use`` (``int64[N]``, per trace
access), ``nu`` (``int64[S, W]``, the resident line's next use), ``valid`` (``uint8[S, W]``),
``events`` (``int64[1]``: bypassed GPU fills)."""


@nb.njit(cache=True, nogil=True)
def _on_hit(ps, a):
    ps.nu[a.set, a.way] = ps.next_use[a.t]


@nb.njit(cache=True, nogil=True)
def _on_response(ps, a, flags, resp):
    if ps.bypass == 0 or a.stream < MAX_CORES:
        return 0
    s = a.set
    mine = ps.next_use[a.t]
    for w in range(ps.nu.shape[1]):
        if ps.valid[s, w] == 0 or ps.nu[s, w] >= mine:
            return 0
    ps.events[0] += 1
    return 1


@nb.njit(cache=True, nogil=True)
def _victim(ps, a, default_way):
    s = a.set
    if ps.valid[s, default_way] == 0:
        return default_way
    v = 0
    for w in range(1, ps.nu.shape[1]):
        if ps.nu[s, w] > ps.nu[s, v]:
            v = w
    return v


@nb.njit(cache=True, nogil=True)
def _on_fill(ps, a):
    ps.valid[a.set, a.way] = 1
    ps.nu[a.set, a.way] = ps.next_use[a.t]


@register_policy
class OptPolicy(Policy):
    """Belady's MIN on the LLC over reads and writes (offline: call :meth:`prepare` first).

    Members
    -------
    llc : OptState or None
        The state, after a model asked for the LLC's hooks.
    """

    name = "drp16-opt"
    bypass = False

    def __init__(self) -> None:
        self.llc: OptState | None = None
        self._next_use: np.ndarray | None = None

    def prepare(self, trace: np.ndarray) -> None:
        """The LLC trace (``LLC_TRACE_DTYPE`` rows) the next run replays from its first access."""
        self._next_use = next_uses(trace["line"])

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        """Hooks for the ``"llc"`` level; the baseline's elsewhere.

        Raises
        ------
        InputError
            If :meth:`prepare` has not been called.
        """
        if level != "llc":
            return BASELINE_HOOKS
        if self._next_use is None:
            raise InputError(f"{self.name}: an offline policy needs the LLC trace first (prepare)")
        shape = (cfg.sets, cfg.assoc)
        self.llc = OptState(int(self.bypass), self._next_use, np.zeros(shape, np.int64),
                            np.zeros(shape, np.uint8), np.zeros(1, np.int64))
        return make_hooks(self.llc, on_hit=_on_hit, on_response=_on_response, victim=_victim,
                          on_fill=_on_fill)

    def stats(self) -> dict[str, int]:
        """``oracle_bypasses``: GPU fills not made (always 0 for OPT); zeros before a run."""
        return {"oracle_bypasses": 0 if self.llc is None else int(self.llc.events[0])}

    def reset(self) -> None:
        """Forget the resident lines' next uses and the event count (the trace stays)."""
        if self.llc is not None:
            for x in (self.llc.nu, self.llc.valid, self.llc.events):
                x.fill(0)

    def storage_bits(self, gpu: GPUConfig) -> dict[str, int]:
        """Nothing: an offline bound, not hardware."""
        return {}


@register_policy
class OptBypassPolicy(OptPolicy):
    """OPT, and GPU lines whose next use is after every resident line's are not filled."""

    name = "drp16-opt-bypass"
    bypass = True
