"""Compiled containers of the timing model: an event heap and per-table line maps.

Event heap
    Events are ``(time, value)`` pairs kept in a binary min-heap ordered by
    ``time``, then by insertion order, so events of one cycle are handled
    first in, first out and runs are deterministic. ``heap[0]`` holds the
    number of events; event ``i`` (1-based) is at ``key[i]``/``val[i]`` with
    ``key = time << 24 | sequence`` (the sequence wraps at 2**24; it only
    orders events of the same cycle, far fewer than that).

Line maps
    MSHR tables find their entry for a line through an open-addressing hash
    table (linear probing, deletion by backward shift, so there are no
    tombstones and a probe stops at the first empty slot). One map is a row
    of ``keys``/``vals`` (``size`` a power of two, at least twice the
    entries it holds); an empty slot has key -1.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["new_heap", "heap_push", "heap_pop", "heap_top_time", "map_find", "map_put", "map_del",
           "map_size"]

_SEQ_BITS = 24
_SEQ_MASK = (1 << _SEQ_BITS) - 1
#: Time of an empty heap's top.
NEVER = np.int64(1) << 62


def new_heap(capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty heap for ``capacity`` events: ``(key, val, meta)``; ``meta = [count, sequence]``."""
    return (np.zeros(capacity + 1, np.int64), np.zeros(capacity + 1, np.int64), np.zeros(2, np.int64))


@nb.njit(cache=True, nogil=True)
def heap_push(key, val, meta, time, value):
    """Add an event; returns False when the heap is full."""
    n = meta[0] + 1
    if n >= key.size:
        return False
    k = (time << _SEQ_BITS) | (meta[1] & _SEQ_MASK)
    meta[1] += 1
    i = n
    while i > 1:
        parent = i >> 1
        if key[parent] <= k:
            break
        key[i] = key[parent]
        val[i] = val[parent]
        i = parent
    key[i] = k
    val[i] = value
    meta[0] = n
    return True


@nb.njit(cache=True, nogil=True)
def heap_top_time(key, meta):
    """Time of the earliest event, or NEVER when the heap is empty."""
    if meta[0] == 0:
        return NEVER
    return key[1] >> _SEQ_BITS


@nb.njit(cache=True, nogil=True)
def heap_pop(key, val, meta):
    """Remove the earliest event and return its value (the heap must not be empty)."""
    out = val[1]
    n = meta[0]
    k = key[n]
    v = val[n]
    n -= 1
    meta[0] = n
    i = 1
    while True:
        child = i << 1
        if child > n:
            break
        if child + 1 <= n and key[child + 1] < key[child]:
            child += 1
        if key[child] >= k:
            break
        key[i] = key[child]
        val[i] = val[child]
        i = child
    key[i] = k
    val[i] = v
    return out


def map_size(entries: int) -> int:
    """Slots of a line map holding up to ``entries`` lines: a power of two, at least twice as many."""
    size = 4
    while size < 2 * entries:
        size *= 2
    return size


@nb.njit(cache=True, nogil=True, inline="always")
def _slot(line, mask):
    # Fibonacci hashing spreads consecutive lines over the table.
    return np.int64((np.uint64(line) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask


@nb.njit(cache=True, nogil=True)
def map_find(keys, vals, off, size, line):
    """Entry of ``line`` in the map at ``keys[off:off + size]``, or -1."""
    mask = size - 1
    i = _slot(line, mask)
    while True:
        k = keys[off + i]
        if k == line:
            return vals[off + i]
        if k < 0:
            return np.int64(-1)
        i = (i + 1) & mask


@nb.njit(cache=True, nogil=True)
def map_put(keys, vals, off, size, line, entry):
    """Map ``line`` (not present) to ``entry``."""
    mask = size - 1
    i = _slot(line, mask)
    while keys[off + i] >= 0:
        i = (i + 1) & mask
    keys[off + i] = line
    vals[off + i] = entry


@nb.njit(cache=True, nogil=True)
def map_del(keys, vals, off, size, line):
    """Remove ``line`` (present) and close the gap (backward-shift deletion)."""
    mask = size - 1
    i = _slot(line, mask)
    while keys[off + i] != line:
        i = (i + 1) & mask
    j = i
    while True:
        j = (j + 1) & mask
        k = keys[off + j]
        if k < 0:
            break
        home = _slot(k, mask)
        # Move k back into the hole at i unless its home lies cyclically in (i, j].
        if (j > i and (home <= i or home > j)) or (j < i and (home <= i and home > j)):
            keys[off + i] = k
            vals[off + i] = vals[off + j]
            i = j
    keys[off + i] = -1
