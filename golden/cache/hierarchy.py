"""Front ends of the cache model: a GPU cache hierarchy and a single cache.

:class:`Hierarchy` is a private L1 per SM, a shared L2 and an optional
memory-side L3, driven by a stream of coalesced line accesses
(:data:`golden.trace.coalesce.ACCESS_DTYPE`) in global order. :class:`Cache`
is one cache in front of main memory, for tests and benchmarks. Both run
the same compiled engine (:mod:`golden.cache.engine`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from golden.cache.engine import BYPASSED, STORE, EngineState, LevelState, run, run_loads
from golden.cache.hooks import BASELINE_HOOKS, HOOK_SPECS, LevelHooks
from golden.cache.stats import counter_dict
from golden.configs.schema import CacheConfig, GPUConfig
from golden.trace.coalesce import ACCESS_DTYPE

if TYPE_CHECKING:
    from golden.policies.base import Policy

__all__ = ["Hierarchy", "Cache", "OUTCOME_BYPASSED", "check_accesses", "as_access_rows"]

#: Bit 7 of an outcome: the first level bypassed the access.
OUTCOME_BYPASSED = BYPASSED

_OP_DTYPE = np.uint8


def check_accesses(accesses: np.ndarray, n_sm: int) -> None:
    """Raise ValueError unless ``accesses`` is a valid access stream for ``n_sm`` SMs.

    It needs the fields ``sm``, ``op``, ``pc`` and ``line``; ``op`` must be
    1 (load), 2 (store) or 3 (atomic) and ``sm`` below ``n_sm``.
    """
    names = accesses.dtype.names or ()
    missing = [f for f in ("sm", "op", "pc", "line") if f not in names]
    if missing:
        raise ValueError(f"accesses: missing field(s) {', '.join(missing)}; use ACCESS_DTYPE")
    if len(accesses) == 0:
        return
    op = accesses["op"]
    if op.min() < 1 or op.max() > 3:
        bad = op[(op < 1) | (op > 3)][0]
        raise ValueError(f"accesses: op must be 1 (load), 2 (store) or 3 (atomic), not {bad}")
    top = int(accesses["sm"].max())
    if top >= n_sm:
        raise ValueError(f"accesses: sm {top} does not exist on a GPU with {n_sm} SMs")
    if int(accesses["line"].max()) >= 1 << 62:
        raise ValueError("accesses: line numbers must be below 2**62")


def as_access_rows(accesses: np.ndarray) -> np.ndarray:
    """``accesses`` as contiguous :data:`ACCESS_DTYPE` rows (the engine's input).

    A stream that already has that dtype is used as it is; one with only some
    of its fields (at least ``sm``, ``op``, ``pc``, ``line``) is copied, the
    missing fields 0.
    """
    if accesses.dtype == ACCESS_DTYPE:
        return np.ascontiguousarray(accesses)
    rows = np.zeros(len(accesses), ACCESS_DTYPE)
    for name in accesses.dtype.names:
        if name in ACCESS_DTYPE.names:
            rows[name] = accesses[name]
    return rows


def _column(values: np.ndarray | None, n: int, name: str) -> np.ndarray | None:
    """``values`` as a 1-D array of length ``n`` (None stays None)."""
    if values is None:
        return None
    values = np.atleast_1d(np.asarray(values))
    if values.size != n:
        raise ValueError(f"{name}: must have one entry per line ({n}), not {values.size}")
    return values


class Hierarchy:
    """Private L1 per SM, shared L2, optional memory-side L3.

    Parameters
    ----------
    gpu : GPUConfig
        ``n_sm`` L1 instances of ``gpu.l1``, one ``gpu.l2``, and ``gpu.l3`` if set.
        The L2 is modelled as one cache (``l2_partitions`` is not split out).
    policy : Policy, optional
        Cache-management policy; the baseline (no bypassing) when None.

    Members
    -------
    levels : dict of str to LevelState
        ``"l1"``, ``"l2"`` (and ``"l3"``): the inspectable state of each level
        (``tag``, ``valid``, ``dirty``, ``stamp``, ``freq``, ``tree``,
        ``counters``; the L1 arrays have one row per SM).
    policy : Policy
        The policy in use.
    hooks : dict of str to LevelHooks
        The hooks the policy gave each level.
    t : int
        Demand accesses run so far (the ``t`` the hooks see continues from it).

    Raises
    ------
    ValueError
        If a lower level has smaller lines than the level above it, or the
        policy returns something other than ``LevelHooks``.
    """

    def __init__(self, gpu: GPUConfig, policy: Policy | None = None) -> None:
        # Imported here: golden.policies builds on golden.cache.
        from golden.policies.base import Baseline

        configs = gpu.levels
        self.gpu = gpu
        self.policy = policy if policy is not None else Baseline()
        counts = [gpu.n_sm if name == "l1" else 1 for name, _ in configs]
        self._state = EngineState([(name, cfg, n) for (name, cfg), n in zip(configs, counts, strict=True)])
        self.levels: dict[str, LevelState] = {name: st for (name, _), st in
                                              zip(configs, self._state.levels, strict=True)}
        self.hooks: dict[str, LevelHooks] = {}
        for (name, cfg), n in zip(configs, counts, strict=True):
            hooks = self.policy.level_hooks(name, cfg, n)
            if not isinstance(hooks, LevelHooks) or not isinstance(hooks.state, tuple):
                raise ValueError(f"policy {self.policy.name!r}: level_hooks({name!r}) must return "
                                 f"LevelHooks with a tuple state, not {hooks!r}")
            self.hooks[name] = hooks
        self.t = 0

    def run(self, accesses: np.ndarray, outcomes: bool = False) -> np.ndarray | None:
        """Run a stream of accesses; the cache state carries over between calls.

        Parameters
        ----------
        accesses : numpy.ndarray
            Rows of :data:`~golden.trace.coalesce.ACCESS_DTYPE` (at least the
            fields ``sm``, ``op``, ``pc``, ``line``) in global order. ``line``
            is in L1 line units; lower levels with larger lines use
            ``line >> log2(their line size / L1 line size)``.
        outcomes : bool
            Return the outcome of every access.

        Returns
        -------
        numpy.ndarray or None
            With ``outcomes``: ``uint8`` per access, the first level whose
            lookup hit (1 L1, 2 L2, 3 L3; 4 memory), with bit 7
            (:data:`OUTCOME_BYPASSED`) set when the L1 bypassed the access.

        Raises
        ------
        ValueError
            If the stream is malformed (see :func:`check_accesses`).
        """
        check_accesses(accesses, self.gpu.n_sm)
        out = run(self._state, self.engine_hooks(), as_access_rows(accesses), self.t)
        self.t += len(accesses)
        return out if outcomes else None

    @property
    def engine(self) -> EngineState:
        """The engine state of every level (the timing model runs the engine's phases on it)."""
        return self._state

    def engine_hooks(self) -> list:
        """Each level's hooks as the engine takes them: None for a level whose hooks are all the
        baseline's (whatever its state: drp16's GPU levels), which then runs the disk-cached
        baseline loops of the engine and of the timing model."""
        return [None if all(getattr(h, s.name) is getattr(BASELINE_HOOKS, s.name) for s in HOOK_SPECS)
                else h for h in self.hooks.values()]

    def stats(self, per_sm: bool = False) -> dict:
        """Counters per level.

        Returns
        -------
        dict
            ``{"l1": {...}, "l2": {...}, "l3": {...}}`` (``"l3"`` only when
            present), each with the keys of :data:`golden.cache.stats.COUNTERS`
            and ``hit_rate``; the L1 entry sums the SMs. With ``per_sm``, also
            ``"l1_per_sm"``: a list with one such dict per SM.
        """
        out = {name: counter_dict(st.counters.sum(axis=0)) for name, st in self.levels.items()}
        if per_sm:
            out["l1_per_sm"] = [counter_dict(row) for row in self.levels["l1"].counters]
        return out

    def reset(self) -> None:
        """Empty every cache and zero the counters (policy state is the policy's to reset)."""
        for st in self.levels.values():
            st.reset()
        self.t = 0


class Cache:
    """One cache in front of main memory, with the baseline policy.

    Parameters
    ----------
    cfg : CacheConfig
        The cache.

    Members
    -------
    state : LevelState
        Its arrays; :attr:`tags`, :attr:`valid` and :attr:`dirty` are the
        ``[sets, assoc]`` views of the single instance.
    """

    def __init__(self, cfg: CacheConfig) -> None:
        self.cfg = cfg
        self._engine = EngineState([("cache", cfg, 1)])
        self.state = self._engine.levels[0]
        self.t = 0

    def access(self, lines: np.ndarray, ops: np.ndarray | None = None,
               pcs: np.ndarray | None = None) -> np.ndarray:
        """Access line numbers in order; return which ones hit.

        Parameters
        ----------
        lines : array of int
            Line numbers (byte address // line size), non-negative.
        ops : array of int, optional
            1 load, 2 store, 3 atomic per access; all loads when None.
        pcs : array of int, optional
            PCs (only policies look at them).

        Returns
        -------
        numpy.ndarray
            ``bool`` per access: the lookup hit.
        """
        lines = np.ascontiguousarray(np.atleast_1d(lines), dtype=np.int64)
        n = lines.size
        if n and lines.min() < 0:
            raise ValueError("lines: must be non-negative line numbers")
        if ops is None:  # loads only: the specialised loop (same results)
            self.t += n
            return run_loads(self._engine, lines)
        ops = _column(ops, n, "ops")
        if n and (ops.min() < 1 or ops.max() > 3):
            raise ValueError("ops: must be 1 (load), 2 (store) or 3 (atomic)")
        rows = np.zeros(n, ACCESS_DTYPE)
        rows["line"] = lines
        rows["op"] = ops
        pcs = _column(pcs, n, "pcs")
        if pcs is not None:
            rows["pc"] = pcs
        out = run(self._engine, [None], rows, self.t)
        self.t += n
        return out == 1

    def load(self, lines: np.ndarray) -> np.ndarray:
        """Load line numbers; ``bool`` hit per access."""
        return self.access(lines)

    def store(self, lines: np.ndarray) -> np.ndarray:
        """Store to line numbers; ``bool`` hit per access."""
        lines = np.atleast_1d(np.asarray(lines))
        return self.access(lines, np.full(lines.size, STORE, _OP_DTYPE))

    def stats(self) -> dict:
        """The counters (keys of :data:`golden.cache.stats.COUNTERS`) and ``hit_rate``."""
        return counter_dict(self.state.counters[0])

    @property
    def tags(self) -> np.ndarray:
        """``int64[sets, assoc]``: line number held by each way, -1 when invalid."""
        return self.state.tag[0]

    @property
    def valid(self) -> np.ndarray:
        """``bool[sets, assoc]``."""
        return self.state.valid[0]

    @property
    def dirty(self) -> np.ndarray:
        """``bool[sets, assoc]``."""
        return self.state.dirty[0].astype(bool)

    def reset(self) -> None:
        """Empty the cache and zero the counters."""
        self.state.reset()
        self.t = 0
