"""Import a script of ``benchmarks/`` (not a package) as a module, once per test process."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` as module ``name``, registered in ``sys.modules``.

    Registered because dataclasses look their module up, and because one script imports another
    by name (``ldst_order`` imports ``compare_accelsim``); a second call returns the same module.
    """
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
