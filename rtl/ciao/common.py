"""Conventions of ciao18's units: the 6-bit warp id and parameter checks."""

from __future__ import annotations

__all__ = ["WID_BITS", "require"]

#: Width of a warp id (ciao18 Section IV-A).
WID_BITS = 6


def require(name: str, value: object, lo: int, hi: int, *, pow2: bool = False) -> int:
    """``value`` if it is an integer in ``[lo, hi]`` (a power of 2 with ``pow2``); else a ValueError."""
    ok = isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi
    if not ok or (pow2 and value & (value - 1)):
        kind = "a power of 2" if pow2 else "an integer"
        raise ValueError(f"{name}: must be {kind} from {lo} to {hi}, not {value!r}")
    return value
