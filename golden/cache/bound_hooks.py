"""Policy hooks bound as globals, so that a hooked loop can be cached on disk.

Used by the timing model's loop (:mod:`golden.gpu.core`) and by the functional
engine's bound families (:func:`golden.cache.engine.run`).

The engine's dispatchers (``golden.cache.engine._on_hit`` ...) call a level's
hooks through the ``LevelHooks`` tuple the loop receives: first-class
functions, whose types name the dispatcher objects of one process, so numba
cannot cache such a loop and compiles it in every process (about a minute of
CPU per policy). When every hook of a hierarchy is a module-level numba
function of the ``golden`` package, :func:`bind` generates dispatchers that
call those functions by global name instead, and the loop then takes only
each level's state (``(state,)`` or None). The loop compiled against them is
named after :func:`hook_key`, so numba keeps one disk-cache entry per set of
hook functions. The cache directory is keyed by a hash of the package's
sources (``golden/__init__.py``), so an edited hook gives a new entry.

Hooks from elsewhere (plugins, tests, closures) keep the in-memory family.
"""

from __future__ import annotations

import hashlib
import sys

import numba as nb
import numpy as np
from numba.core import types
from numba.extending import intrinsic

from golden.cache.by_ref import TupleRef, stored
from golden.cache.engine import borrowed
from golden.cache.hooks import BASELINE_HOOKS, HOOK_SPECS

__all__ = ["hook_key", "bind", "level_states", "level_refs"]


def _where(fn) -> tuple[str, str] | None:
    """``(module, name)`` of a module-level numba function of the ``golden`` package, else None."""
    py = getattr(fn, "py_func", None)
    # Functions made by exec (drp16-wss's hooks) have no module: they cannot be named.
    if py is None or not (py.__module__ or "").startswith("golden."):
        return None
    mod = sys.modules.get(py.__module__)
    if mod is None or getattr(mod, py.__name__, None) is not fn:
        return None
    return py.__module__, py.__name__


def hook_key(hooks: list) -> str | None:
    """A name for the hook functions of ``hooks`` (one ``LevelHooks`` or None per level), or None.

    None when some hook cannot be named across processes (see the module docstring).
    """
    parts = []
    for k, h in enumerate(hooks):
        if h is None:
            continue
        for spec in HOOK_SPECS:
            fn = getattr(h, spec.name)
            if fn is getattr(BASELINE_HOOKS, spec.name):
                continue
            at = _where(fn)
            if at is None:
                return None
            parts.append(f"{k}.{spec.name}={at[0]}.{at[1]}")
    return hashlib.sha256(";".join(parts).encode()).hexdigest()[:16]


def bind(hooks: list, levels: int) -> dict:
    """Dispatchers ``_on_hit`` ... calling the hook functions of ``hooks`` as globals.

    Each takes ``(h1, ..., hN, L, a, *args)`` like the engine's, where ``hK``
    is level K's ``(state,)`` or None; a baseline hook of a hooked level
    returns its default without a call.
    """
    hooks = list(hooks) + [None] * (levels - len(hooks))
    out = {}
    for spec in HOOK_SPECS:
        hs = [f"h{k + 1}" for k in range(levels)]
        args = ", ".join(("a",) + spec.args)
        names: dict = {"np": np}
        lines = [f"def dispatch_{spec.name}({', '.join(hs)}, L, {args}):"]
        for k, h in enumerate(hooks):
            fn = None if h is None else getattr(h, spec.name)
            if fn is None or fn is getattr(BASELINE_HOOKS, spec.name):
                continue
            names[f"hook{k}"] = fn
            call = f"hook{k}(h{k + 1}[0], {args})"
            lines += [f"    if L == {k}:", f"        return np.int64({call})" if spec.default is not None
                      else f"        {call}\n        return"]
        lines.append(f"    return np.int64({spec.default})" if spec.default is not None else "    return")
        exec(compile("\n".join(lines) + "\n", f"<golden.cache.bound_hooks {spec.name}>", "exec"), names)  # noqa: S102
        out[f"_{spec.name}"] = nb.njit(nogil=True, inline="always")(names[f"dispatch_{spec.name}"])
    return out


def level_states(hooks: list) -> list:
    """What the bound loop takes for each level: ``(state,)``, or None for a baseline level."""
    return [None if h is None else (h.state,) for h in hooks]


@intrinsic
def level_refs(typingctx, h):
    """A level's ``(state,)`` as the bound loop takes it (None stays None).

    The state's arrays are borrowed (no reference counts, :func:`golden.cache.engine.borrowed`).
    A named-tuple state goes by reference (:class:`golden.cache.by_ref.TupleRef`, a pointer to
    a copy in the calling function's frame): by value, every call of the loop that carries the
    levels' states would copy them (ciao18's some 40 arrays, about 2.5 KB), and a profile of
    a CIAO-T run had it take twice the baseline's time with the same cycles and events.
    An intrinsic, not a function, so the copy lives in the caller's frame (the loop's entry).
    """
    if isinstance(h, types.NoneType):
        return types.none(h), lambda context, builder, sig, args: context.get_dummy_value()
    if not (isinstance(h, types.BaseTuple) and len(h) == 1 and isinstance(h.types[0], types.BaseTuple)):
        return None
    state = h.types[0]
    by_pointer = isinstance(state, types.BaseNamedTuple)
    out = types.Tuple([TupleRef(state) if by_pointer else state])

    def codegen(context, builder, sig, args):
        value = borrowed(context, builder, state, builder.extract_value(args[0], 0))
        return context.make_tuple(builder, out, [stored(context, builder, value) if by_pointer else value])

    return out(h), codegen
