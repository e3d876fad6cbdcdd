"""The seam between the cache engine and the policies: the access context and the hooks.

Everything here is defined once, and the engine's per-level dispatchers and
the baseline's no-op hooks are generated from these definitions, so adding a
context field or a hook argument touches this file only.

Access context
    Every hook receives the policy's state and an :data:`Access`: one named
    record (a numba named tuple of ``int64``) describing the request at the
    level whose hook runs. Its fields are :data:`ACCESS_FIELDS`:

    ``c``
        cache instance at this level (the SM for a private L1, 0 for a shared level);
    ``sm``, ``warp``, ``cta``, ``kernel``
        who made the demand access (at a lower level: the demand access that
        caused this request);
    ``pc``
        PC of the demand access;
    ``op``
        1 load, 2 store, 3 atomic: the kind of request at this level (a
        fill request from above is a load, a write-back a store);
    ``sectors``
        sector mask of the demand access (all ones without sectors);
    ``line``, ``set``, ``way``
        the line in this level's units, its set, and the way concerned (the
        hit way in ``on_hit``, the way holding the line in ``on_request``,
        the filled way in ``on_fill``; -1 where there is none);
    ``cycle``
        issue cycle of the demand access;
    ``stream``
        stream id of the demand access (0 unless the trace labels streams);
    ``t``
        index of the demand access in the whole run.

Hooks (:data:`HOOK_SPECS`, in :class:`LevelHooks` order after ``state``)::

    on_hit(ps, a)                          a lookup hit way a.way
    on_miss(ps, a) -> flags                a lookup missed; flags go with the fill request below
    on_request(ps, a, flags) -> resp       a lower level served a fill request (a.way: -1 if it bypassed)
    on_response(ps, a, flags, resp) -> 1   the line arrived at the level that missed: 1 bypass, 0 fill
    victim(ps, a, default_way) -> way      the way to fill (default: the replacement policy's)
    on_evict(ps, a, way, line, dirty)      a valid line leaves ``way`` (replaced or write-evicted)
    on_fill(ps, a)                         a.line was installed in way a.way
    on_lookup(ps, a) -> flags              before a demand load's first-level lookup: nonzero skips
                                           that level (no lookup, no line, no MSHR); the load goes
                                           below with these flags
    on_smem(ps, a, event, entry, now)      an event of the timing model's shared-memory cache
                                           (ciao18 CIAO-P): :data:`SMEM_EVENTS`, the MSHR entry
                                           of the SM (-1: none), the current cycle

``ps`` is the policy's state for the level: a named tuple of numpy arrays
and scalars (see ``golden.policies.base``). Hooks are ``numba.njit``
functions; the order in which the engine calls them is in ``docs/cache.md``.
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numba as nb
import numpy as np

__all__ = [
    "ACCESS_FIELDS",
    "Access",
    "HookSpec",
    "HOOK_SPECS",
    "LevelHooks",
    "BASELINE_HOOKS",
    "make_hooks",
    "dispatcher_source",
    "at_level",
    "SMEM_HIT",
    "SMEM_MIGRATE",
    "SMEM_MERGE",
    "SMEM_ALLOC",
    "SMEM_FILL",
    "SMEM_EVENTS",
]

#: Fields of the per-access context, in order (all int64).
ACCESS_FIELDS = ("c", "sm", "warp", "cta", "kernel", "pc", "op", "sectors", "line", "set", "way", "cycle",
                 "stream", "t")

#: The per-access context every hook receives (see the module docstring).
Access = namedtuple("Access", ACCESS_FIELDS)

#: ``on_smem`` events (``a.set`` = -1, ``a.way`` = the block of the SM's shared-memory cache the
#: line takes), each for a redirected load (``a``: its access) but the fill:
#: a hit in the shared-memory cache; a hit in the L1D, whose line moves to the shared-memory cache
#: (a migration); a miss merged into the pending MSHR entry ``entry``; a miss that takes the MSHR
#: entry ``entry`` (its shared-memory address goes into the entry's field); and the fill of the
#: entry ``entry`` (``a``: the entry's request; the line is installed in the shared-memory cache).
SMEM_HIT, SMEM_MIGRATE, SMEM_MERGE, SMEM_ALLOC, SMEM_FILL = range(5)
SMEM_EVENTS = ("hit", "migrate", "merge", "alloc", "fill")


class HookSpec(NamedTuple):
    """One hook: its name, the arguments after ``(ps, a)``, and what the baseline returns."""

    name: str
    args: tuple[str, ...]
    #: Expression of the arguments returned by the baseline, or None for a hook that returns nothing.
    default: str | None
    doc: str


#: Every hook, in the order of :class:`LevelHooks` after ``state``.
HOOK_SPECS = (
    HookSpec("on_hit", (), None, "a lookup hit way ``a.way``"),
    HookSpec("on_miss", (), "0", "a lookup missed; returns the flags sent with the fill request"),
    HookSpec("on_request", ("flags",), "0",
             "a lower level has served a fill request; returns the response bits sent back up"),
    HookSpec("on_response", ("flags", "resp"), "0",
             "the line arrived at the level that missed; returns 1 to bypass, 0 to fill"),
    HookSpec("victim", ("default_way",), "default_way", "returns the way to fill"),
    HookSpec("on_evict", ("way", "line", "dirty"), None, "a valid line is about to leave ``way``"),
    HookSpec("on_fill", (), None, "``a.line`` has been installed in way ``a.way``"),
    # Last, so that adding it moved no other hook's position in LevelHooks.
    HookSpec("on_lookup", (), "0",
             "before a demand load's first-level lookup; nonzero: the load skips the level and goes "
             "below with these flags"),
    HookSpec("on_smem", ("event", "entry", "now"), None,
             "an event of the timing model's shared-memory cache (:data:`SMEM_EVENTS`) at cycle ``now``"),
)

#: The hooks of one cache level: the policy's ``state`` then one function per :data:`HOOK_SPECS` entry.
LevelHooks = namedtuple("LevelHooks", ("state",) + tuple(h.name for h in HOOK_SPECS))


def _noop(spec: HookSpec):
    """The baseline's version of a hook, compiled from its spec."""
    args = ", ".join(("ps", "a") + spec.args)
    body = f"return {spec.default}" if spec.default is not None else "return None"
    src = f"def noop_{spec.name}({args}):\n    {body}\n"
    names: dict = {}
    exec(compile(src, f"<golden.cache.hooks noop_{spec.name}>", "exec"), names)  # noqa: S102
    fn = names[f"noop_{spec.name}"]
    fn.__doc__ = f"Baseline ``{spec.name}``: {spec.default or 'nothing'}."
    return nb.njit(nogil=True)(fn)


#: The baseline hooks. The engine recognises this very object and runs its
#: hook-free (disk-cached) variant for such levels.
BASELINE_HOOKS = LevelHooks((), *(_noop(spec) for spec in HOOK_SPECS))


def make_hooks(state: tuple = (), **hooks) -> LevelHooks:
    """Hooks with the given functions and the baseline's for the rest.

    Parameters
    ----------
    state : tuple
        The policy's state for this level: a named tuple of numpy arrays and scalars.
    **hooks
        Any of the names in :data:`HOOK_SPECS`: numba-compiled functions.

    Raises
    ------
    TypeError
        If ``state`` is not a tuple or a hook name is unknown.
    """
    if not isinstance(state, tuple):
        raise TypeError(f"state: must be a (named) tuple of numpy arrays and scalars, "
                        f"not {type(state).__name__}")
    unknown = set(hooks) - set(LevelHooks._fields[1:])
    if unknown:
        raise TypeError(f"unknown hooks: {', '.join(sorted(unknown))}; "
                        f"hooks are {', '.join(LevelHooks._fields[1:])}")
    return BASELINE_HOOKS._replace(state=state, **hooks)


def dispatcher_source(spec: HookSpec, levels: int) -> str:
    """Python source of the engine's dispatcher for one hook over ``levels`` levels.

    The dispatcher is ``<name>(h1, ..., hN, L, a, *args)``: it calls level
    ``L``'s hook when that level has hooks (``hK is not None``, decided at
    compile time because each ``hK`` is an argument) and otherwise returns
    the baseline's value. Hooks that return a value are cast to int64.
    """
    hs = [f"h{k + 1}" for k in range(levels)]
    call_args = ", ".join(("a",) + spec.args)
    lines = [f"def dispatch_{spec.name}({', '.join(hs)}, L, {call_args}):"]
    for k, h in enumerate(hs):
        lines.append(f"    {'if' if k == 0 else 'elif'} L == {k}:")
        lines.append(f"        if {h} is not None:")
        call = f"{h}[{1 + HOOK_SPECS.index(spec)}]({h}[0], {call_args})"
        lines.append(f"            return np.int64({call})" if spec.default is not None
                     else f"            {call}")
    if spec.default is not None:
        lines.append(f"    return np.int64({spec.default})")
    return "\n".join(lines) + "\n"


def _at_level_source() -> str:
    """Source of ``at_level(a, c, op, line, set, way)``: a copy of ``a`` with those fields replaced."""
    changed = ("c", "op", "line", "set", "way")
    args = ", ".join(("a",) + changed)
    fields = ", ".join(f if f in changed else f"a.{f}" for f in ACCESS_FIELDS)
    return f"def at_level({args}):\n    return Access({fields})\n"


_names: dict = {"Access": Access, "np": np}
exec(compile(_at_level_source(), "<golden.cache.hooks at_level>", "exec"), _names)  # noqa: S102
#: ``at_level(a, c, op, line, set, way)``: the context ``a`` seen at another level, set or way.
at_level = nb.njit(nogil=True, inline="always")(_names["at_level"])
