"""Policy hooks bound as globals, so that a hooked timing loop can be cached on disk.

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
from numba.extending import overload

from golden.cache.engine import _borrow
from golden.cache.hooks import BASELINE_HOOKS, HOOK_SPECS

__all__ = ["hook_key", "bind", "level_states", "engine_states"]


def _where(fn) -> tuple[str, str] | None:
    """``(module, name)`` of a module-level numba function of the ``golden`` package, else None."""
    py = getattr(fn, "py_func", None)
    if py is None or not py.__module__.startswith("golden."):
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
        exec(compile("\n".join(lines) + "\n", f"<golden.gpu.bound_hooks {spec.name}>", "exec"), names)  # noqa: S102
        out[f"_{spec.name}"] = nb.njit(nogil=True, inline="always")(names[f"dispatch_{spec.name}"])
    return out


def level_states(hooks: list) -> list:
    """What the bound loop takes for each level: ``(state,)``, or None for a baseline level."""
    return [None if h is None else (h.state,) for h in hooks]


def engine_states(h):
    """A level's ``(state,)`` with its arrays borrowed (compiled; None stays None)."""


@overload(engine_states, jit_options={"nogil": True})
def _ol_engine_states(h):
    if isinstance(h, types.NoneType):
        return lambda h: None
    return lambda h: (_borrow(h[0]),)

