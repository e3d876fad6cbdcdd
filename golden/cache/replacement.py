"""Replacement policies: per-line replacement state and victim choice.

A level of ``n`` cache instances with ``S`` sets and ``W`` ways keeps its
replacement state in flat arrays (the engine indexes line ``(c, s, w)`` at
``(c * S + s) * W + w`` and set ``(c, s)`` at ``c * S + s``):

``stamp`` (int64 per line)
    LRU: time of the last access. FIFO: time of the fill. LFU: time of the
    last access (the tie-break). The time is a per-level clock that advances
    by one whenever a stamp is written, so valid lines have unique stamps
    >= 1; an invalidated line gets 0 (:func:`invalidate`). The ``*_at``
    functions take the clock as a value and return it; :func:`touch` and
    :func:`insert` keep it in ``clock[0]``.
``freq`` (int64 per line)
    LFU: accesses since the fill (1 at the fill, +1 per hit; no ageing).
``tree`` (int64 per set)
    Tree pseudo-LRU bits, see below.
``rng`` (uint64 per cache instance)
    Random replacement: xorshift64* state.

Victim choice, every policy: an invalid way is always filled first, the
lowest-numbered one. Only when every way is valid does the policy choose:

``lru``
    the way with the oldest last access.
``fifo``
    the way filled longest ago (hits do not change the order).
``lfu``
    the way with the fewest accesses since its fill; among equals, the least
    recently used one (the oldest ``stamp``).
``random``
    way ``(x >> 32) mod W`` where ``x`` is the next output of the
    instance's xorshift64* generator (Marsaglia shifts 12/25/27, multiplier
    0x2545F4914F6CDD1D), seeded with SplitMix64 of
    ``seed + (c + 1) * 0x9E3779B97F4A7C15`` for instance ``c``. The
    generator advances only when a valid line must be chosen, so results are
    bit-identical for a given seed and access order.
``plru``
    standard binary-tree pseudo-LRU over ``W = 2^k`` ways, ``W - 1`` bits.
    Nodes are numbered heap-style: the root is node 1, node ``j`` has
    children ``2j`` (lower half of its ways) and ``2j + 1`` (upper half);
    node ``j`` is bit ``j - 1`` of the set's ``tree`` word. A bit points to
    the side that holds the pseudo-LRU way: 0 = lower half, 1 = upper half.
    An access (hit or fill) to way ``w`` sets every bit on the path from the
    root to ``w`` to point *away* from ``w``; the victim is found by
    following the bits from the root. All bits start at 0.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from golden.configs.schema import REPLACEMENTS

__all__ = [
    "REPL_LRU",
    "REPL_PLRU",
    "REPL_FIFO",
    "REPL_RANDOM",
    "REPL_LFU",
    "replacement_kind",
    "seed_states",
    "touch",
    "touch_at",
    "insert",
    "insert_at",
    "choose_victim",
    "invalidate",
    "plru_victim",
    "xorshift_next",
]

#: Engine codes of the replacement policies, in the order of ``REPLACEMENTS``.
REPL_LRU, REPL_PLRU, REPL_FIFO, REPL_RANDOM, REPL_LFU = range(5)

_MASK64 = (1 << 64) - 1
_XS_MULT = np.uint64(0x2545F4914F6CDD1D)
_U12, _U25, _U27, _U32 = np.uint64(12), np.uint64(25), np.uint64(27), np.uint64(32)


def replacement_kind(name: str) -> int:
    """Engine code of a replacement policy name (``"lru"`` -> :data:`REPL_LRU`)."""
    if name not in REPLACEMENTS:
        raise ValueError(f"replacement: must be one of {', '.join(REPLACEMENTS)}, not {name!r}")
    return REPLACEMENTS.index(name)


def seed_states(seed: int, n: int) -> np.ndarray:
    """Initial xorshift64* states of ``n`` cache instances (SplitMix64 of the seed).

    Returns
    -------
    numpy.ndarray
        ``uint64[n]``, all non-zero.
    """
    out = np.empty(n, np.uint64)
    for c in range(n):
        z = (seed + (c + 1) * 0x9E3779B97F4A7C15) & _MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        z ^= z >> 31
        out[c] = z or 1
    return out


@nb.njit(cache=True, nogil=True)
def xorshift_next(rng, c):
    """Advance instance ``c``'s xorshift64* state; return the 64-bit output."""
    x = rng[c]
    x ^= x >> _U12
    x ^= x << _U25
    x ^= x >> _U27
    rng[c] = x
    return x * _XS_MULT


@nb.njit(cache=True, nogil=True)
def _plru_touch(tree, sid, w, ways):
    bits = tree[sid]
    node = 1
    lo = 0
    size = ways
    while size > 1:
        half = size >> 1
        if w < lo + half:
            bits |= np.int64(1) << (node - 1)  # accessed low half: point high
            node = 2 * node
        else:
            bits &= ~(np.int64(1) << (node - 1))
            node = 2 * node + 1
            lo += half
        size = half
    tree[sid] = bits


@nb.njit(cache=True, nogil=True)
def plru_victim(bits, ways):
    """Way the pseudo-LRU bits ``bits`` of one set point to."""
    node = 1
    lo = 0
    size = ways
    while size > 1:
        half = size >> 1
        if (bits >> (node - 1)) & 1:
            node = 2 * node + 1
            lo += half
        else:
            node = 2 * node
        size = half
    return lo


@nb.njit(cache=True, nogil=True)
def touch_at(kind, stamp, freq, tree, now, sid, base, w, ways):
    """Replacement update for a hit on way ``w`` of set ``sid`` (lines from ``base``).

    ``now`` is the level clock; returns it after the update (advanced by one
    when a stamp is written).
    """
    if kind == REPL_LRU:
        now += 1
        stamp[base + w] = now
    elif kind == REPL_PLRU:
        _plru_touch(tree, sid, w, ways)
    elif kind == REPL_LFU:
        now += 1
        stamp[base + w] = now
        freq[base + w] += 1
    return now


@nb.njit(cache=True, nogil=True)
def insert_at(kind, stamp, freq, tree, now, sid, base, w, ways):
    """Replacement update for a fill of way ``w`` of set ``sid``; returns the level clock after it."""
    if kind == REPL_PLRU:
        _plru_touch(tree, sid, w, ways)
    elif kind != REPL_RANDOM:
        now += 1
        stamp[base + w] = now
        if kind == REPL_LFU:
            freq[base + w] = 1
    return now


@nb.njit(cache=True, nogil=True)
def touch(kind, stamp, freq, tree, clock, sid, base, w, ways):
    """:func:`touch_at` with the level clock in ``clock[0]``."""
    clock[0] = touch_at(kind, stamp, freq, tree, clock[0], sid, base, w, ways)


@nb.njit(cache=True, nogil=True)
def insert(kind, stamp, freq, tree, clock, sid, base, w, ways):
    """:func:`insert_at` with the level clock in ``clock[0]``."""
    clock[0] = insert_at(kind, stamp, freq, tree, clock[0], sid, base, w, ways)


@nb.njit(cache=True, nogil=True)
def choose_victim(kind, tag, stamp, freq, tree, rng, c, sid, base, ways):
    """Way to fill in set ``sid`` of instance ``c``: the lowest invalid way, else the policy's."""
    if kind == REPL_LRU or kind == REPL_FIFO:
        # One pass: an invalid way has stamp 0 (see invalidate) and valid
        # stamps are >= 1, so the first minimum is the lowest invalid way.
        # Branch-free minimum (selects, not jumps): the comparisons are
        # unpredictable, and mispredicted branches dominated the miss path.
        v = 0
        best = stamp[base]
        for w in range(1, ways):
            x = stamp[base + w]
            older = x < best
            best = x if older else best
            v = w if older else v
        return v
    for w in range(ways):
        if tag[base + w] < 0:
            return w
    if kind == REPL_PLRU:
        return plru_victim(tree[sid], ways)
    if kind == REPL_RANDOM:
        return np.int64((xorshift_next(rng, c) >> _U32) % np.uint64(ways))
    v = 0
    for w in range(1, ways):  # LFU
        f, fv = freq[base + w], freq[base + v]
        if f < fv or (f == fv and stamp[base + w] < stamp[base + v]):
            v = w
    return v


@nb.njit(cache=True, nogil=True)
def invalidate(stamp, freq, base, w):
    """Replacement update for a line that leaves without a replacement (the tag is cleared by the caller)."""
    stamp[base + w] = 0
    freq[base + w] = 0
