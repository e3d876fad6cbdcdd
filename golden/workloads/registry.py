"""Registry of the built-in workloads and the on-disk cache of their traces.

A workload is registered once, in the module of its emulator, with
:func:`register`. Names are ``suite/name`` (``tian15/matrixmul``); a bare
name (``matrixmul``) resolves when exactly one suite has it.

Generated traces are cached under ``$GPUCACHE_CACHE`` (default
``~/.cache/gpucache/traces``), keyed by workload, scale, seed and the
emulator's ``version``; bumping ``version`` makes every old entry stale,
and a stale entry is never read (its key no longer matches). An entry that
fails to load for any reason is deleted and rebuilt.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from golden.errors import InputError
from golden.plugins import registry_loader
from golden.trace.io import FORMAT_VERSION, load_workload, save_workload
from golden.trace.model import Workload

__all__ = ["WorkloadSpec", "register", "get", "names", "suites", "build", "cache_dir"]


@dataclass(frozen=True)
class WorkloadSpec:
    """A built-in workload.

    Parameters
    ----------
    name : str
        Workload name without the suite (``"matrixmul"``).
    suite : str
        Suite (``"tian15"`` or ``"rdgc"``).
    build : callable
        ``build(scale: float, seed: int) -> Workload``; ``scale = 1.0`` gives the paper's size.
    description : str
        One line: what the kernel computes and at which size.
    source : str
        The source file the emulator follows (``"Rodinia 3.1 bfs/kernel.cu"``).
    version : int
        Generator version: bump whenever the emitted trace changes.
    paper : dict
        The paper's figures for this workload (``{"mi": 395.6}``, ``{"L": "3N"}``).
    """

    name: str
    suite: str
    build: Callable[[float, int], Workload]
    description: str = ""
    source: str = ""
    version: int = 1
    paper: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        """``suite/name``."""
        return f"{self.suite}/{self.name}"


_REGISTRY: dict[str, WorkloadSpec] = {}


def register(spec: WorkloadSpec) -> WorkloadSpec:
    """Add a workload; a second registration of the same ``suite/name`` is an error."""
    if spec.key in _REGISTRY:
        raise ValueError(f"Workload {spec.key!r} is registered twice")
    _REGISTRY[spec.key] = spec
    return spec


_load_all = registry_loader("golden.workloads")


def names(suite: str | None = None) -> list[str]:
    """``suite/name`` of every registered workload, optionally of one suite, sorted."""
    _load_all()
    return sorted(k for k, s in _REGISTRY.items() if suite is None or s.suite == suite)


def suites() -> list[str]:
    """Names of the suites."""
    _load_all()
    return sorted({s.suite for s in _REGISTRY.values()})


def get(name: str) -> WorkloadSpec:
    """Look a workload up by ``suite/name`` or by an unambiguous bare name.

    Raises
    ------
    InputError
        If the name is unknown or ambiguous; the message suggests close names.
    """
    _load_all()
    if name in _REGISTRY:
        return _REGISTRY[name]
    hits = [s for s in _REGISTRY.values() if s.name == name]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise InputError(f"workload {name!r} is ambiguous: say one of "
                         f"{', '.join(sorted(s.key for s in hits))}")
    close = difflib.get_close_matches(name, list(_REGISTRY) + [s.name for s in _REGISTRY.values()], 3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; 'gpucache workloads' lists them"
    raise InputError(f"unknown workload {name!r}{hint}")


def cache_dir() -> Path:
    """Directory of the trace cache (``$GPUCACHE_CACHE`` or ``~/.cache/gpucache/traces``)."""
    env = os.environ.get("GPUCACHE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "gpucache" / "traces"


def build(name: str, scale: float = 1.0, seed: int = 0, *, use_cache: bool = True) -> Workload:
    """The trace of a built-in workload, from the cache when a current entry exists.

    Parameters
    ----------
    name : str
        ``suite/name`` or a bare unambiguous name.
    scale : float
        Input size relative to the paper's (``0 < scale <= 1`` shrinks it).
    seed : int
        Seed of the input generator of data-dependent kernels.
    use_cache : bool
        Read and write the on-disk cache.

    Raises
    ------
    InputError
        For an unknown workload or a scale outside ``(0, 1]``.
    """
    spec = get(name)
    if not 0 < scale <= 1:
        raise InputError(f"--scale must be in (0, 1], not {scale}")
    key = f"{spec.suite}-{spec.name}-s{scale:g}-seed{seed}-v{spec.version}-f{FORMAT_VERSION}"
    path = cache_dir() / f"{key}.npz"
    if use_cache and path.is_file():
        try:
            return load_workload(path)
        except Exception:  # noqa: BLE001
            # A cache entry that fails to load, for whatever reason, is rebuilt, never trusted:
            # the cache only saves time, and one bad entry must not break every later run.
            try:
                path.unlink(missing_ok=True)
            except OSError:
                pass
    wl = spec.build(scale, seed)
    wl.params = {**wl.params, "scale": scale, "seed": seed, "version": spec.version}
    if use_cache:
        try:
            save_workload(path, wl)
        except OSError:
            pass  # an unwritable cache only costs time
    return wl
