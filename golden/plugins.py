"""Discovery of the modules that register built-in workloads and policies."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

__all__ = ["import_submodules"]


def import_submodules(package: ModuleType) -> None:
    """Import every public module below ``package`` (names not starting with ``_``).

    Workload emulators and policies register themselves when imported, so
    this fills their registries.
    """
    prefix = package.__name__ + "."
    for mod in pkgutil.walk_packages(package.__path__, prefix=prefix):
        if not mod.name.rsplit(".", 1)[-1].startswith("_"):
            importlib.import_module(mod.name)
