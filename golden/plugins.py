"""Discovery of the modules that register built-in workloads, policies and units, and of plugins.

Registries fill themselves by importing modules: the built-in ones below a
package (:func:`import_submodules`), and the user's own modules named in the
``GPUCACHE_PLUGINS`` environment variable (comma-separated importable module
names, :func:`load_plugins`). A technique kept outside the repository (a
policy, its unit models, its RTL and catalog entries) is used by naming its
modules there; nothing in the engine, ``tb/``, ``synth/`` or ``cli/`` changes.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable
from types import ModuleType

from golden.errors import InputError

__all__ = ["import_submodules", "load_plugins", "registry_loader", "PLUGINS_VARIABLE"]

#: Environment variable listing plugin modules.
PLUGINS_VARIABLE = "GPUCACHE_PLUGINS"

_PLUGINS_LOADED: set[str] = set()


def import_submodules(package: ModuleType) -> None:
    """Import every public module below ``package`` (names not starting with ``_``).

    Workload emulators, policies and catalog entries register themselves
    when imported, so this fills their registries.
    """
    prefix = package.__name__ + "."
    for mod in pkgutil.walk_packages(package.__path__, prefix=prefix):
        if not mod.name.rsplit(".", 1)[-1].startswith("_"):
            importlib.import_module(mod.name)


def registry_loader(package: str) -> Callable[[], None]:
    """The load function of a registry: the package's modules once, then any new plugins.

    Parameters
    ----------
    package : str
        The package whose modules register the built-in entries (``"golden.policies"``).
    """
    done = False

    def load() -> None:
        nonlocal done
        if not done:
            done = True
            import_submodules(importlib.import_module(package))
        load_plugins()

    load.__doc__ = f"Import every module of ``{package}`` (once) and the plugins: they register entries."
    return load


def load_plugins() -> None:
    """Import each module named in ``$GPUCACHE_PLUGINS`` (once per process).

    Raises
    ------
    InputError
        If a named module cannot be imported.
    """
    for name in filter(None, (n.strip() for n in os.environ.get(PLUGINS_VARIABLE, "").split(","))):
        if name in _PLUGINS_LOADED:
            continue
        _PLUGINS_LOADED.add(name)
        try:
            importlib.import_module(name)
        except ImportError as e:
            _PLUGINS_LOADED.discard(name)
            raise InputError(f"{PLUGINS_VARIABLE}: cannot import plugin module {name!r}: {e}") from None
