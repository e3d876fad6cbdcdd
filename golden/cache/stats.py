"""Per-level cache counters and the dictionaries ``stats()`` returns.

The engine keeps, per cache instance, one ``int64`` row of the counters
below (column order = :data:`COUNTERS`). Every request a level receives is
one *access*: demand accesses from the SMs at the first level; fill
requests (reads) and write requests (write-through stores, atomics,
dirty-line writebacks) from the level above at the lower levels.

``accesses``     requests received (``reads + writes``)
``reads``        loads / fill requests
``writes``       stores, atomics and writebacks received
``read_hits``, ``read_misses``, ``write_hits``, ``write_misses``
                 outcome of the tag lookup
``fills``        lines installed
``bypasses``     misses the policy chose not to fill (``on_response`` returned 1)
``evictions``    valid lines removed: replaced by a fill, or invalidated by a
                 write-evict store hit
``writebacks``   dirty lines sent to the next level on eviction

``hit_rate`` is ``(read_hits + write_hits) / accesses`` (0.0 with no accesses).
"""

from __future__ import annotations

import numpy as np

__all__ = ["COUNTERS", "ENGINE_COUNTERS", "N_COUNTERS", "counter_dict"]

#: Counter names of ``stats()``, in this order.
COUNTERS = (
    "accesses",
    "reads",
    "writes",
    "read_hits",
    "read_misses",
    "write_hits",
    "write_misses",
    "fills",
    "bypasses",
    "evictions",
    "writebacks",
)
#: The counters the engine keeps (columns of ``LevelState.counters``); the
#: others are sums of these (``reads = read_hits + read_misses``, ...), which
#: saves the engine two memory updates per access.
ENGINE_COUNTERS = COUNTERS[3:]
N_COUNTERS = len(ENGINE_COUNTERS)

# Column numbers for the compiled engine (globals are frozen as constants).
(C_READ_HITS, C_READ_MISSES, C_WRITE_HITS, C_WRITE_MISSES, C_FILLS, C_BYPASSES, C_EVICTIONS,
 C_WRITEBACKS) = range(N_COUNTERS)


def counter_dict(row: np.ndarray) -> dict[str, int | float]:
    """The counters of one engine row (or a sum of rows) as a dict, plus ``hit_rate``.

    Parameters
    ----------
    row : numpy.ndarray
        ``int64[N_COUNTERS]`` in :data:`ENGINE_COUNTERS` order.

    Returns
    -------
    dict
        Every name of :data:`COUNTERS` (int) and ``hit_rate`` (float).
    """
    c = {name: int(v) for name, v in zip(ENGINE_COUNTERS, row, strict=True)}
    reads = c["read_hits"] + c["read_misses"]
    writes = c["write_hits"] + c["write_misses"]
    out: dict[str, int | float] = {"accesses": reads + writes, "reads": reads, "writes": writes, **c}
    hits = out["read_hits"] + out["write_hits"]
    out["hit_rate"] = hits / out["accesses"] if out["accesses"] else 0.0
    return out
