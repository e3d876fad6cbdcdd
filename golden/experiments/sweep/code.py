"""The fingerprint of the code a sweep point runs: part of every point's key.

A finished point is reused only by a sweep running the same code: the
fingerprint hashes the source of the golden model (every ``.py`` file of
the ``golden`` package) and of the plugin modules named in
``GPUCACHE_PLUGINS``, so any change to a workload emulator, the cache
engine, the timing model or a policy makes the store's old points stale
(they stay on disk, under their old keys, and are not read).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

import golden
from golden.plugins import PLUGINS_VARIABLE

__all__ = ["code_fingerprint"]


def _sources() -> list[Path]:
    files = sorted(Path(golden.__file__).parent.rglob("*.py"))
    for name in filter(None, (n.strip() for n in os.environ.get(PLUGINS_VARIABLE, "").split(","))):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None  # the plugin loader reports it when the policies load
        if spec is None or spec.origin is None:
            continue
        origin = Path(spec.origin)
        files += sorted(origin.parent.rglob("*.py")) if origin.name == "__init__.py" else [origin]
    return files


def code_fingerprint() -> str:
    """A 16-hex-digit hash of the golden model's and the plugins' source files."""
    h = hashlib.sha256()
    root = Path(golden.__file__).parent.parent
    for path in _sources():
        name = path.relative_to(root) if path.is_relative_to(root) else path
        h.update(str(name).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]
