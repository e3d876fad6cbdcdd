"""Compiled containers of the timing model: an event queue and per-table line maps.

Event queue
    Events are ``(time, value)`` pairs that leave by ``time``, then in the
    order they came (first in, first out within a cycle), so runs are
    deterministic. A timing wheel holds the events of the next ``WHEEL``
    cycles: one first-in-first-out list per cycle (``slot = time % WHEEL``),
    so adding and taking an event costs the same however many are queued.
    An event further ahead waits in an overflow heap ordered by time, then by
    a 64-bit arrival number; when the queue's clock (``advance``) brings its
    cycle within the wheel's reach it moves to its cycle's list, before any
    event added later can reach that list, so the order is exact.

    Session 35 replaced a binary heap keyed ``time << 24 | sequence``: its
    sequence wrapped every 2**24 events, so two events of one cycle queued
    across a wrap left in the wrong order (a scale-0.25 ``ciao18/pvc`` run:
    19,628,755 cycles against 19,650,531 with the order kept exact).

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

__all__ = ["new_events", "event_push", "event_push_near", "event_push_far", "event_advance", "event_due",
           "event_pop", "event_top_time", "map_find", "map_put", "map_del", "map_size", "NEVER", "WHEEL"]

#: Cycles the wheel reaches ahead of the queue's clock (a power of two).
WHEEL = 4096
_MASK = WHEEL - 1
#: Time of an empty queue's top.
NEVER = np.int64(1) << 62

# Rows of the node table (the wheel's lists; free nodes chain through NEXT).
_NEXT, _VAL = 0, 1
# Rows of the bucket table: first and last node of each cycle's list (-1: empty).
_HEAD, _TAIL = 0, 1
# Rows of the overflow heap (1-based): time, arrival number, value.
_OT, _OS, _OV = 0, 1, 2
# meta: events queued (all), free node, clock, events in the overflow heap, arrivals so far.
_COUNT, _FREE, _CLOCK, _N_OVF, _SEQ = 0, 1, 2, 3, 4


def new_events(capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An empty event queue for ``capacity`` events: ``(node, bucket, overflow, meta)``, clock 0."""
    node = np.zeros((2, capacity), np.int64)
    node[_NEXT] = np.arange(1, capacity + 1)
    node[_NEXT, -1:] = -1
    bucket = np.full((2, WHEEL), -1, np.int64)
    overflow = np.zeros((3, capacity + 1), np.int64)
    meta = np.array([0, 0 if capacity else -1, 0, 0, 0], np.int64)
    return node, bucket, overflow, meta


@nb.njit(cache=True, nogil=True, inline="always")
def _ovf_less(ovf, i, j):
    return ovf[_OT, i] < ovf[_OT, j] or (ovf[_OT, i] == ovf[_OT, j] and ovf[_OS, i] < ovf[_OS, j])


@nb.njit(cache=True, nogil=True)
def _ovf_push(ovf, meta, time, seq, value):
    i = meta[_N_OVF] + 1
    meta[_N_OVF] = i
    ovf[_OT, i], ovf[_OS, i], ovf[_OV, i] = time, seq, value
    while i > 1:
        parent = i >> 1
        if not _ovf_less(ovf, i, parent):
            break
        for r in range(3):
            ovf[r, i], ovf[r, parent] = ovf[r, parent], ovf[r, i]
        i = parent


@nb.njit(cache=True, nogil=True)
def _ovf_pop(ovf, meta):
    """Drop the overflow heap's top (read it first)."""
    n = meta[_N_OVF]
    for r in range(3):
        ovf[r, 1] = ovf[r, n]
    n -= 1
    meta[_N_OVF] = n
    i = 1
    while True:
        child = i << 1
        if child > n:
            break
        if child + 1 <= n and _ovf_less(ovf, child + 1, child):
            child += 1
        if not _ovf_less(ovf, child, i):
            break
        for r in range(3):
            ovf[r, i], ovf[r, child] = ovf[r, child], ovf[r, i]
        i = child


@nb.njit(cache=True, nogil=True, inline="always")
def _append(node, bucket, meta, time, value):
    n = meta[_FREE]
    meta[_FREE] = node[_NEXT, n]
    node[_NEXT, n] = -1
    node[_VAL, n] = value
    s = time & _MASK
    if bucket[_HEAD, s] < 0:
        bucket[_HEAD, s] = n
    else:
        node[_NEXT, bucket[_TAIL, s]] = n
    bucket[_TAIL, s] = n


@nb.njit(cache=True, nogil=True, inline="always")
def event_push_near(node, bucket, meta, time, value):
    """Add an event at ``time`` if the wheel reaches it: 1; 0 when the queue is full (or ``time`` is
    before the clock); -1, with nothing done, when it lies further ahead (:func:`event_push_far`).

    The overflow heap is not an argument: a caller that holds the queue in a structure reads the
    heap's descriptor only on the rare far path (read before the wheel's stores, it would be read
    for every event: they may alias).
    """
    # A node for every queued event, so one is free whenever an overflow event joins the wheel.
    if meta[_COUNT] >= node.shape[1] or time < meta[_CLOCK]:
        return 0
    if time - meta[_CLOCK] >= WHEEL:
        return -1
    meta[_COUNT] += 1
    meta[_SEQ] += 1
    _append(node, bucket, meta, time, value)
    return 1


@nb.njit(cache=True, nogil=True)
def event_push_far(ovf, meta, time, value):
    """Add an event beyond the wheel's reach (:func:`event_push_near` gave -1) to the overflow heap."""
    meta[_COUNT] += 1
    seq = meta[_SEQ]
    meta[_SEQ] = seq + 1
    _ovf_push(ovf, meta, time, seq, value)


@nb.njit(cache=True, nogil=True, inline="always")
def event_push(node, bucket, ovf, meta, time, value):
    """Add an event at ``time``; returns False when the queue is full (or ``time`` is before the clock)."""
    done = event_push_near(node, bucket, meta, time, value)
    if done < 0:
        event_push_far(ovf, meta, time, value)
        return True
    return done == 1


@nb.njit(cache=True, nogil=True, inline="always")
def event_advance(node, bucket, ovf, meta, now):
    """Move the clock to ``now``; overflow events now in reach join the wheel.

    No event may lie strictly between the clock and ``now`` (the loop moves
    the clock by one cycle, or to the earliest event). Events left at the old
    clock's cycle (added after its events were taken) are earlier than any at
    ``now``, so they go to the front of ``now``'s list, as a heap would give them.
    """
    old = meta[_CLOCK]
    if now == old:
        return
    meta[_CLOCK] = now
    s, d = old & _MASK, now & _MASK
    if bucket[_HEAD, s] >= 0:
        if bucket[_HEAD, d] < 0:
            bucket[_TAIL, d] = bucket[_TAIL, s]
        else:
            node[_NEXT, bucket[_TAIL, s]] = bucket[_HEAD, d]
        bucket[_HEAD, d] = bucket[_HEAD, s]
        bucket[_HEAD, s] = -1
        bucket[_TAIL, s] = -1
    while meta[_N_OVF] > 0 and ovf[_OT, 1] - now < WHEEL:
        time, value = ovf[_OT, 1], ovf[_OV, 1]
        _ovf_pop(ovf, meta)
        _append(node, bucket, meta, time, value)


@nb.njit(cache=True, nogil=True, inline="always")
def event_due(bucket, meta):
    """An event is due at the clock's cycle."""
    return bucket[_HEAD, meta[_CLOCK] & _MASK] >= 0


@nb.njit(cache=True, nogil=True)
def event_top_time(node, bucket, ovf, meta):
    """Time of the earliest event, or NEVER when the queue is empty."""
    if meta[_COUNT] == meta[_N_OVF]:
        return ovf[_OT, 1] if meta[_N_OVF] > 0 else NEVER
    now = meta[_CLOCK]
    for d in range(WHEEL):
        if bucket[_HEAD, (now + d) & _MASK] >= 0:
            return now + d
    return NEVER  # not reached: the wheel holds an event


@nb.njit(cache=True, nogil=True, inline="always")
def event_pop(node, bucket, meta):
    """Remove the first event due at the clock's cycle and return its value (one must be due)."""
    s = meta[_CLOCK] & _MASK
    n = bucket[_HEAD, s]
    nxt = node[_NEXT, n]
    bucket[_HEAD, s] = nxt
    if nxt < 0:
        bucket[_TAIL, s] = -1
    node[_NEXT, n] = meta[_FREE]
    meta[_FREE] = n
    meta[_COUNT] -= 1
    return node[_VAL, n]


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
