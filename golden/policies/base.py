"""The policy hook interface, the baseline policy and the policy registry.

A policy plugs into each cache level through a :class:`LevelHooks`: a tuple
of numpy arrays it owns (``state``) and seven compiled functions that the
cache engine calls at fixed points of every access. The engine is compiled
once per distinct set of hook functions (numba specialises it on them), so a
policy never changes the engine and costs nothing at levels it leaves alone.

Hook signatures (every hook takes the policy's ``state`` tuple first; all
other arguments are int64):

``on_hit(ps, c, s, w, line, pc, op, t) -> None``
    a lookup hit way ``w`` of set ``s``.
``on_miss(ps, c, s, line, pc, op, t) -> int``
    a lookup missed; returns the request flags sent with the fill request
    to the next level (bit 0: "predicted bypass"; other bits are free).
``on_request(ps, c, s, w, line, flags, t) -> int``
    at a lower level, after it has served a fill request from the level
    above (``w`` is the way now holding the line, -1 if this level
    bypassed it); returns the response bits sent back up.
``on_response(ps, c, s, line, pc, op, flags, resp, t) -> int``
    at the level that missed, when the line arrives: 1 = bypass (do not
    fill), 0 = fill.
``victim(ps, c, s, default_way, t) -> int``
    the way to fill; return ``default_way`` to keep the replacement policy's
    choice (which is the lowest invalid way when there is one).
``on_evict(ps, c, s, w, line, dirty, t) -> None``
    a valid line is about to leave way ``w`` (replaced, or invalidated by a
    write-evict store hit).
``on_fill(ps, c, s, w, line, pc, op, t) -> None``
    ``line`` has been installed in way ``w``.

``c`` is the cache instance (the SM for an L1, 0 for a shared level), ``s``
the set, ``line`` the line number in the level's own line units, ``pc`` the
PC of the access, ``op`` 1 load / 2 store / 3 atomic (at a lower level: the
kind of request, a writeback being a store), and ``t`` the index of the
demand access in the whole stream. The order in which the engine calls the
hooks is given in ``docs/cache.md``.

Hooks must be ``numba.njit`` functions. A policy keeps everything it
learns in ``state`` arrays, which the engine passes through untouched.
"""

from __future__ import annotations

import difflib
from collections import namedtuple

import numba as nb

from golden.configs.schema import CacheConfig
from golden.errors import InputError
from golden.plugins import import_submodules

__all__ = [
    "LevelHooks",
    "BASELINE_HOOKS",
    "make_hooks",
    "Policy",
    "Baseline",
    "register_policy",
    "get_policy",
    "policy_names",
]

#: The hooks of one cache level; see the module docstring.
LevelHooks = namedtuple(
    "LevelHooks", ["state", "on_hit", "on_miss", "on_request", "on_response", "victim", "on_evict", "on_fill"]
)


@nb.njit(cache=True, nogil=True)
def noop_on_hit(ps, c, s, w, line, pc, op, t):
    """Baseline ``on_hit``: nothing."""
    return None


@nb.njit(cache=True, nogil=True)
def noop_on_miss(ps, c, s, line, pc, op, t):
    """Baseline ``on_miss``: no request flags."""
    return 0


@nb.njit(cache=True, nogil=True)
def noop_on_request(ps, c, s, w, line, flags, t):
    """Baseline ``on_request``: no response bits."""
    return 0


@nb.njit(cache=True, nogil=True)
def noop_on_response(ps, c, s, line, pc, op, flags, resp, t):
    """Baseline ``on_response``: always fill."""
    return 0


@nb.njit(cache=True, nogil=True)
def noop_victim(ps, c, s, default_way, t):
    """Baseline ``victim``: the replacement policy's choice."""
    return default_way


@nb.njit(cache=True, nogil=True)
def noop_on_evict(ps, c, s, w, line, dirty, t):
    """Baseline ``on_evict``: nothing."""
    return None


@nb.njit(cache=True, nogil=True)
def noop_on_fill(ps, c, s, w, line, pc, op, t):
    """Baseline ``on_fill``: nothing."""
    return None


#: The baseline hooks. The cache engine recognises this very object and runs
#: its hook-free (disk-cached) variant for such levels.
BASELINE_HOOKS = LevelHooks(
    (), noop_on_hit, noop_on_miss, noop_on_request, noop_on_response, noop_victim, noop_on_evict, noop_on_fill
)


def make_hooks(state: tuple = (), **hooks) -> LevelHooks:
    """Hooks with the given functions and the baseline's for the rest.

    Parameters
    ----------
    state : tuple
        The policy's arrays for this level.
    **hooks
        Any of ``on_hit``, ``on_miss``, ``on_request``, ``on_response``,
        ``victim``, ``on_evict``, ``on_fill``: numba-compiled functions.

    Raises
    ------
    TypeError
        If ``state`` is not a tuple or a hook name is unknown.
    """
    if not isinstance(state, tuple):
        raise TypeError(f"state: must be a tuple of numpy arrays, not {type(state).__name__}")
    unknown = set(hooks) - set(LevelHooks._fields[1:])
    if unknown:
        raise TypeError(f"unknown hooks: {', '.join(sorted(unknown))}; "
                        f"hooks are {', '.join(LevelHooks._fields[1:])}")
    return BASELINE_HOOKS._replace(state=state, **hooks)


class Policy:
    """A cache-management policy: hooks per cache level.

    Subclasses set :attr:`name`, register themselves with
    :func:`register_policy`, and override :meth:`level_hooks` for the levels
    they act on; the other levels get the baseline hooks.
    """

    #: Registry name (``"baseline"``, ``"tian15"``, ...).
    name = "baseline"

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        """Hooks for one level.

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

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


_REGISTRY: dict[str, type[Policy]] = {}
_LOADED = False


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


def _load_all() -> None:
    """Import every module of ``golden.policies``, which registers its policies."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import golden.policies

    import_submodules(golden.policies)


def policy_names() -> list[str]:
    """Names of every registered policy, sorted."""
    _load_all()
    return sorted(_REGISTRY)


def get_policy(name: str, **params) -> Policy:
    """A new instance of the policy registered as ``name``.

    Parameters
    ----------
    name : str
        Registry name.
    **params
        Passed to the policy's constructor.

    Raises
    ------
    InputError
        If no policy has that name; the message suggests close names.
    """
    _load_all()
    if name not in _REGISTRY:
        close = difflib.get_close_matches(name, list(_REGISTRY), 3)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(sorted(_REGISTRY))}"
        raise InputError(f"unknown policy {name!r}{hint}")
    return _REGISTRY[name](**params)
