"""Parameter checks and conventions shared by ciao18's unit models (``golden/units/ciao_*.py``).

ciao18 (Zhang, Gao, Kim and Jung, "CIAO: Cache Interference-Aware
Throughput-Oriented Architecture and Scheduling for GPUs", IPDPS 2018)
indexes its structures by
warp id (WID): 6 bits, up to 64 warps per SM (Section V-F: "the total
number of active warps ... does not exceed 64 (usually, 48 active warps in
each SM)"). The choices the paper leaves open are in ``docs/hardware.md``.
"""

from __future__ import annotations

__all__ = ["WID_BITS", "check_int", "check_input"]

#: Width of a warp id (ciao18 Section IV-A: "a 6-bit WID").
WID_BITS = 6


def check_int(name: str, value: object, lo: int, hi: int) -> int:
    """``value`` if it is an integer from ``lo`` to ``hi``; ValueError naming ``name`` otherwise."""
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ValueError(f"{name}: must be an integer from {lo} to {hi}, not {value!r}")
    return value


def check_input(name: str, value: int, limit: int) -> int:
    """An input port's value below ``limit`` (e.g. a warp id below the unit's warps); ValueError otherwise."""
    if not 0 <= value < limit:
        raise ValueError(f"{name}: must be 0 to {limit - 1}, not {value}")
    return value
