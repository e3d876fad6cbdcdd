"""A simulation's result as one flat row of metrics (the sweep table's metric columns).

From a :func:`golden.driver.simulate` result:

* ``cycles``: the timing model's cycles when timed, else the interleaver's
  issue slots; ``ipc``: warp instructions per cycle, timed points only;
  ``instructions``, ``global_instructions``, ``shared_instructions``,
  ``other_memory_instructions``, ``accesses``: the workload's totals;
* ``l1.<stat>``, ``l2.<stat>``, ``l3.<stat>``: every counter of each cache
  level (:data:`CACHE_STATS`), plus ``misses`` (read and write misses);
* ``timing.<name>``: every number of the timing model's summary, nested
  names joined by dots (``timing.l1.reservation_fails.mshr``; the time
  series is left out);
* ``policy.<name>``: the policy's statistics.
"""

from __future__ import annotations

__all__ = ["CACHE_STATS", "TOTALS", "flatten_result", "is_metric_name"]

#: Counters of each cache level (``Hierarchy.stats()``), and the derived ``misses``.
CACHE_STATS = ("accesses", "reads", "writes", "read_hits", "read_misses", "write_hits", "write_misses",
               "misses", "fills", "bypasses", "evictions", "writebacks", "hit_rate")
#: The workload's totals.
TOTALS = ("instructions", "global_instructions", "shared_instructions", "other_memory_instructions",
          "accesses")
_LEVELS = ("l1", "l2", "l3")


def _flat(prefix: str, data: dict, out: dict) -> None:
    for key, value in data.items():
        if isinstance(value, dict):
            _flat(f"{prefix}{key}.", value, out)
        elif isinstance(value, bool | int | float) or value is None:
            out[prefix + key] = value


def flatten_result(result: dict) -> dict:
    """The metric columns of one result, in a fixed order (see the module docstring)."""
    timing = result.get("timing")
    totals = result["totals"]
    row: dict = {"cycles": timing["cycles"] if timing else totals["cycles"],
                 "ipc": timing["ipc"] if timing else None}
    row.update({key: totals[key] for key in TOTALS})
    for level in _LEVELS:
        stats = result["caches"].get(level)
        if stats is None:
            continue
        stats = {**stats, "misses": stats["read_misses"] + stats["write_misses"]}
        row.update({f"{level}.{key}": stats[key] for key in CACHE_STATS})
    if timing:
        _flat("timing.", {k: v for k, v in timing.items() if k != "series"}, row)
    _flat("policy.", result.get("policy_stats", {}), row)
    return row


def is_metric_name(name: str) -> bool:
    """Whether ``name`` can be a metric column (timing and policy names are open-ended)."""
    if name in ("cycles", "ipc") or name in TOTALS:
        return True
    level, _, stat = name.partition(".")
    if level in _LEVELS:
        return stat in CACHE_STATS
    return level in ("timing", "policy") and bool(stat)
