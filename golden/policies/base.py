"""The policy protocol, the baseline policy and the policy registry.

A policy plugs into each cache level through a
:class:`~golden.cache.hooks.LevelHooks`: its state for that level and one
compiled function per hook, which the cache engine calls at fixed points of
every access with one per-access context (:data:`~golden.cache.hooks.Access`:
SM, warp, CTA, kernel, PC, op, sector mask, line, set, way, cycle, stream,
access index). The hooks and the context are defined in
:mod:`golden.cache.hooks`; the engine is compiled once per distinct set of
hook functions, so a policy never changes the engine and costs nothing at
levels it leaves alone.

State is named: a policy keeps each level's state in a named tuple of numpy
arrays and int64 scalars (numba compiles it as fast as a plain tuple), with
numpy structured dtypes for per-line metadata, per-instance statistics and
transaction logs. No hook unpacks state by position.

Every policy implements the same protocol (:class:`Policy`):
``level_hooks``, ``stats()`` (fixed keys, zeros before a run), ``reset()``,
``storage_bits(gpu)`` and ``units()``; a policy that records transaction logs
for RTL units also lists its ``recorders`` and implements
``take_transactions()``. Each call of ``level_hooks`` builds new state, so a
policy attached to two hierarchies runs two independent states
(``stats()``, ``reset()`` and ``take_transactions()`` see the latest).
"""

from __future__ import annotations

import difflib

import numpy as np

from golden.cache.hooks import ACCESS_FIELDS, BASELINE_HOOKS, Access, LevelHooks, make_hooks
from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError
from golden.plugins import registry_loader

__all__ = [
    "ACCESS_FIELDS",
    "Access",
    "LevelHooks",
    "BASELINE_HOOKS",
    "make_hooks",
    "Policy",
    "Baseline",
    "register_policy",
    "get_policy",
    "policy_names",
    "policy_for",
]


class Policy:
    """A cache-management policy: hooks per cache level, and the protocol every policy shares.

    Subclasses set :attr:`name`, register themselves with
    :func:`register_policy`, override :meth:`level_hooks` for the levels they
    act on (the other levels get the baseline hooks), and override the rest
    of the protocol where they have something to say.
    """

    #: Registry name (``"baseline"``, ``"pc-bypass"``, ...).
    name = "baseline"
    #: Names of the transaction logs the policy can record (``take_transactions`` keys).
    recorders: tuple[str, ...] = ()

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        """Hooks, with new state, for one level.

        Parameters
        ----------
        level : str
            ``"l1"``, ``"l2"`` or ``"l3"``.
        cfg : CacheConfig
            That level's configuration.
        n_caches : int
            Instances of the level (the number of SMs for ``"l1"``, 1 for shared levels).

        Returns
        -------
        LevelHooks
            :data:`BASELINE_HOOKS` unless the policy acts on this level.
        """
        return BASELINE_HOOKS

    def stats(self) -> dict[str, int | float]:
        """The policy's own statistics: always the same keys, zeros before a run."""
        return {}

    def reset(self) -> None:
        """Forget everything learned (``Hierarchy.reset`` leaves policy state alone)."""

    def storage_bits(self, gpu: GPUConfig) -> dict[str, int]:
        """Bits of each structure the policy adds to ``gpu``, per instance of its level.

        Keys are ``"<level>.<structure>"`` (``"l1.prediction_table"``): the bits
        one instance holds (one L1 of one SM, or the shared L2).
        """
        return {}

    def units(self) -> tuple[str, ...]:
        """Names of the RTL units (``catalog`` entries) that implement this policy."""
        return ()

    def take_transactions(self) -> dict[str, np.ndarray]:
        """The transactions each recorder logged since the last call (empty without recorders)."""
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


_REGISTRY: dict[str, type[Policy]] = {}


def register_policy(cls: type[Policy]) -> type[Policy]:
    """Class decorator: make a policy available to :func:`get_policy` under ``cls.name``.

    Raises
    ------
    ValueError
        If another class is already registered under the same name.
    """
    if _REGISTRY.get(cls.name, cls) is not cls:
        raise ValueError(f"Policy {cls.name!r} is registered twice")
    _REGISTRY[cls.name] = cls
    return cls


@register_policy
class Baseline(Policy):
    """No policy: every miss fills, replacement as configured."""

    name = "baseline"


_load_all = registry_loader("golden.policies")


def policy_names() -> list[str]:
    """Names of every registered policy, sorted."""
    _load_all()
    return sorted(_REGISTRY)


def get_policy(name: str, **params) -> Policy:
    """A new instance of the policy registered as ``name``.

    Parameters
    ----------
    name : str
        Registry name, or ``NAME:SPEC`` for a policy that takes its parameter ``spec`` in its name.
    **params
        Passed to the policy's constructor.

    Raises
    ------
    InputError
        If no policy has that name; the message suggests close names.
    """
    _load_all()
    if name not in _REGISTRY and ":" in name:
        # ``NAME:SPEC``: a registered policy with a parameter in its name (``kim20-miss-rate:0.9``).
        name, spec = name.split(":", 1)
        params = {**params, "spec": spec}
    if name not in _REGISTRY:
        close = difflib.get_close_matches(name, list(_REGISTRY), 3)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(sorted(_REGISTRY))}"
        raise InputError(f"unknown policy {name!r}{hint}")
    return _REGISTRY[name](**params)


def policy_for(name: str | None, gpu: GPUConfig, **overrides) -> Policy | None:
    """The policy ``name`` built with the config's ``policy_params[name]`` (None for no policy).

    Parameters
    ----------
    name : str or None
        Registry name, or None for no policy.
    gpu : GPUConfig
        The machine whose ``policy_params`` give the policy's parameters.
    **overrides
        Parameters over the config's (a one-factor run's, a Fig. 11 point's).

    Raises
    ------
    InputError
        For an unknown policy, or a parameter the policy does not take.
    """
    if name is None:
        return None
    params = {**gpu.policy_params.get(name, {}), **overrides}
    try:
        return get_policy(name, **params)
    except TypeError as e:
        # A parameter the policy does not take is the config's mistake; other TypeErrors are bugs.
        if "unexpected keyword argument" not in str(e):
            raise
        raise InputError(f"{gpu.name}: policy_params.{name}: {e}") from None
