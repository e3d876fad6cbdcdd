"""Copies of RTL modules with one injected bug, for tests that must see a mismatch."""

from __future__ import annotations

import importlib
import inspect
import types


def mutant(module_name: str, old: str, new: str) -> types.ModuleType:
    """Load a copy of ``module_name`` whose source has ``old`` replaced by ``new`` once.

    Raises
    ------
    AssertionError
        If ``old`` does not occur exactly once (the mutation would be vacuous).
    """
    src = inspect.getsource(importlib.import_module(module_name))
    assert src.count(old) == 1, f"mutation text {old!r} occurs {src.count(old)} times in {module_name}"
    mod = types.ModuleType(f"{module_name}_mutant")
    mod.__file__ = f"<mutant of {module_name}>"
    exec(compile(src.replace(old, new), mod.__file__, "exec"), mod.__dict__)
    return mod
