"""gpucache's golden model: traces, workloads, caches, policies, unit models, analyses.

Importing ``golden`` points numba's on-disk cache at a directory keyed by a
hash of this package's sources (unless ``NUMBA_CACHE_DIR`` is set). numba
invalidates a cached function when its own file changes, but not when a
function it calls in another file changes; a stale entry then runs old
machine code against new data layouts and can crash. A fresh directory per
source version rules that out.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path


def _numba_cache_dir() -> Path:
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "gpucache" / "numba" / digest.hexdigest()[:16]


if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = str(_numba_cache_dir())
    if "numba" in sys.modules:  # imported before us: its config has already read the variable
        sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
