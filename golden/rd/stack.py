"""Exact stack (reuse) distances in O(N log N), per group (set, bank or whole cache).

The reuse distance (RD) of an access is the number of distinct blocks of
its group touched since the previous access to the same block (rdgc
Section 3.2); the first access to a block, and the first after the block
was invalidated, has an infinite distance (``-1`` here). An LRU cache of
``K`` blocks per group hits exactly the accesses with ``0 <= RD < K``, so
one pass and a histogram of distances give the hits of every capacity up
to the histogram's limit.

Method: every touch gets a position on its group's own time line; a
Fenwick (binary indexed) tree marks the position of each block's most
recent touch. The distance of a touch at position ``p`` of a block last
touched at ``l`` is the number of marks in ``(l, p)``, then the mark moves
from ``l`` to ``p``. The groups' time lines are segments of one tree
array, sized in advance from the touches each group will receive.

The compiled helpers (``fw_*``, :func:`touch`, :func:`move`,
:func:`compact`, :func:`cached_update`) are
shared with the parallel-cache model (:mod:`golden.rd.parallel`), whose
touches come one by one in simulated time.

**Invalidations** (write-evict stores) break the plain rule "hit iff
distance < K": the invalidated line leaves an empty way, and the line just
below the cache's LRU end does not come back. With the distances taken
over the lines not invalidated, the cache holds exactly the top ``V`` of
that stack, ``V`` its number of valid lines: a miss makes ``V = min(V + 1,
K)``, invalidating a cached line ``V - 1``. :func:`lru_hits` tracks ``V``
per group for every capacity asked for, so one pass is still exact for all
of them; the histogram alone is exact only for streams without
invalidations.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["INF", "FAR", "dense_ids", "stack_distances", "lru_hits", "histogram", "hits_below", "segments",
           "cached_update", "move", "compact", "segment_sizes"]

#: Distance of a cold access (first touch, or first after an invalidation).
INF = -1
#: ``last[key]`` of a block dropped below a depth-limited stack (see :func:`compact`): cached
#: in the stack at a distance of at least the depth, but without a mark.
FAR = -2


@nb.njit(cache=True, nogil=True, inline="always")
def fw_add(tree, base, size, i, v):
    """Add ``v`` at position ``i`` (0-based) of the tree segment ``tree[base:base + size]``."""
    j = i + 1
    while j <= size:
        tree[base + j - 1] += v
        j += j & -j


@nb.njit(cache=True, nogil=True, inline="always")
def fw_prefix(tree, base, i):
    """Sum of positions ``0..i`` (inclusive) of the segment at ``base``; 0 for ``i < 0``."""
    s = 0
    j = i + 1
    while j > 0:
        s += tree[base + j - 1]
        j -= j & -j
    return s


@nb.njit(cache=True, nogil=True)
def compact(tree, owner, base, size, used, marks, last, g, depth):
    """Renumber group ``g``'s live marks ``0, 1, ...`` in time order and rebuild its tree.

    Distances only compare marks, so dropping the positions of dead touches changes none;
    a segment sized about twice the group's distinct blocks then stays small (cache-resident)
    however long the stream. With ``depth > 0`` only the ``depth`` most recent marks are kept:
    the older blocks become :data:`FAR` (their distance is at least ``depth`` and is read as
    ``depth``), so the segment needs only about twice ``depth`` positions.
    """
    b = base[g]
    sz = size[g]
    drop = 0
    if depth > 0:
        live = 0
        for p in range(used[g]):
            k = owner[b + p]
            if k >= 0 and last[k] == p:
                live += 1
        drop = max(0, live - depth)
    j = 0
    for p in range(used[g]):
        k = owner[b + p]
        if k >= 0 and last[k] == p:
            if drop > 0:
                last[k] = FAR
                drop -= 1
                continue
            owner[b + j] = k
            last[k] = j
            j += 1
    for p in range(sz):
        tree[b + p] = 1 if p < j else 0
    for i in range(1, sz + 1):  # linear-time Fenwick construction
        parent = i + (i & -i)
        if parent <= sz:
            tree[b + parent - 1] += tree[b + i - 1]
    used[g] = j
    marks[g] = j


@nb.njit(cache=True, nogil=True, inline="always")
def touch(tree, owner, base, size, used, marks, last, g, key, evict, depth):
    """Touch block ``key`` of group ``g``; return its distance (``-1``: infinite).

    ``base[g]``/``size[g]`` locate the group's segment, ``used[g]`` counts the
    positions it has used, ``marks[g]`` the marks it holds (every mark lies below
    ``used[g]``, so the marks after a position are ``marks[g]`` minus one prefix sum:
    one tree query per distance, not two), ``last[key]`` is the position of the block's mark
    (``-1``: none, :data:`FAR`: beyond the depth) and ``owner`` the block of each
    position. With ``evict`` the block is invalidated after the touch (write-evict):
    its mark is removed and its next touch is cold. A full segment is compacted
    first. With ``depth > 0`` distances of ``depth`` or more are returned as ``depth``.
    """
    if used[g] == size[g]:
        compact(tree, owner, base, size, used, marks, last, g, depth)
    b = base[g]
    sz = size[g]
    p = used[g]
    used[g] = p + 1
    lp = last[key]
    d = -1
    if lp >= 0:
        d = marks[g] - fw_prefix(tree, b, lp)
        fw_add(tree, b, sz, lp, -1)
        marks[g] -= 1
        if 0 < depth < d:
            d = depth
    elif lp == FAR:
        d = depth
    if evict:
        last[key] = -1
        owner[b + p] = -1
    else:
        fw_add(tree, b, sz, p, 1)
        marks[g] += 1
        last[key] = p
        owner[b + p] = key
    return d


@nb.njit(cache=True, nogil=True, inline="always")
def move(tree, owner, base, size, used, marks, last, g, key, depth):
    """Touch block ``key`` of group ``g`` whose distance the caller already has (no query)."""
    if used[g] == size[g]:
        compact(tree, owner, base, size, used, marks, last, g, depth)
    b = base[g]
    p = used[g]
    used[g] = p + 1
    lp = last[key]
    if lp >= 0:
        fw_add(tree, b, size[g], lp, -1)
    else:
        marks[g] += 1
    fw_add(tree, b, size[g], p, 1)
    last[key] = p
    owner[b + p] = key


@nb.njit(cache=True, nogil=True, inline="always")
def cached_update(valid, g, caps, d, evict):
    """Hit bits of an access of distance ``d`` for every capacity ``caps[c]``; update ``valid[g, c]``.

    ``valid[g, c]`` is the number of valid lines of group ``g`` in a cache of ``caps[c]``
    blocks per group; bit ``c`` of the result is set when the line is cached there (a hit, or
    for ``evict`` a write that finds and invalidates it).
    """
    bits = 0
    for c in range(caps.size):
        v = valid[g, c]
        if 0 <= d < v:
            bits |= 1 << c
            if evict:
                valid[g, c] = v - 1
        elif not evict and v < caps[c]:
            valid[g, c] = v + 1
    return bits


@nb.njit(cache=True, nogil=True)
def _serial(ids, groups, evict, base, size, n_ids, caps):
    tree = np.zeros(max(1, base[-1] + size[-1]) if base.size else 1, np.int32)
    owner = np.full(tree.size, -1, np.int64)
    used = np.zeros(base.size, np.int64)
    marks = np.zeros(base.size, np.int64)
    last = np.full(n_ids, -1, np.int64)
    out = np.empty(ids.size, np.int64)
    valid = np.zeros((base.size, caps.size), np.int64)
    bits = np.zeros(ids.size if caps.size else 0, np.uint32)
    for i in range(ids.size):
        d = touch(tree, owner, base, size, used, marks, last, groups[i], ids[i], evict[i], 0)
        out[i] = d
        if caps.size:
            bits[i] = cached_update(valid, groups[i], caps, d, evict[i])
    return out, bits


@nb.njit(cache=True, nogil=True)
def _dense(keys):
    # Open addressing, linear probing, table at most half full: O(N), no sort.
    size = 1
    while size < 2 * keys.size + 2:
        size <<= 1
    mask = size - 1
    slot_key = np.empty(size, np.int64)
    slot_id = np.full(size, -1, np.int64)
    out = np.empty(keys.size, np.int64)
    n = 0
    for i in range(keys.size):
        k = np.int64(keys[i])
        h = (k * np.int64(-7046029254386353131)) >> np.int64(17)
        j = h & mask
        while slot_id[j] >= 0 and slot_key[j] != k:
            j = (j + 1) & mask
        if slot_id[j] < 0:
            slot_key[j] = k
            slot_id[j] = n
            n += 1
        out[i] = slot_id[j]
    return out, n


@nb.njit(cache=True, nogil=True)
def _dense_span(keys, lo, span):
    # Keys within a span at most a few times their number: a direct table, no hashing.
    slot_id = np.full(span, -1, np.int64)
    out = np.empty(keys.size, np.int64)
    n = 0
    for i in range(keys.size):
        j = keys[i] - lo
        if slot_id[j] < 0:
            slot_id[j] = n
            n += 1
        out[i] = slot_id[j]
    return out, n


def dense_ids(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Keys renumbered ``0..U-1`` in order of first appearance (``int64``), and ``U``.

    Arrays indexed by block then replace a hash map in the compiled loops. Keys spanning a
    range at most four times their number (line numbers of a workload's arrays) are looked
    up in a direct table, others in a hash table; both give the same numbering.
    """
    keys = np.ascontiguousarray(keys)
    if keys.size == 0:
        return np.zeros(0, np.int64), 0
    keys = keys.astype(np.int64, copy=False)
    lo, hi = int(keys.min()), int(keys.max())
    if hi - lo < 4 * keys.size + 1024:
        out, n = _dense_span(keys, lo, hi - lo + 1)
    else:
        out, n = _dense(keys)
    return out, int(n)


def segments(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(base, size)`` of one Fenwick segment per group holding ``counts[g]`` touches."""
    size = np.ascontiguousarray(counts, dtype=np.int64)
    base = np.zeros(size.size, np.int64)
    if size.size > 1:
        np.cumsum(size[:-1], out=base[1:])
    return base, size


def segment_sizes(ids: np.ndarray, groups: np.ndarray, touches_per_access: int,
                  depth: int = 0) -> np.ndarray:
    """Tree segment size per group: room for every touch, or about twice the group's blocks.

    A segment smaller than its touches is compacted when full (:func:`compact`); at most
    ``distinct`` marks (``depth`` with a depth limit) are live then, so at least half of it is
    free again.
    """
    n_groups = int(groups.max()) + 1 if groups.size else 1
    counts = np.bincount(groups, minlength=n_groups) * touches_per_access + 1
    # Ids number the blocks in order of first access: a first access exceeds every id before it.
    first = np.r_[True, ids[1:] > np.maximum.accumulate(ids)[:-1]] if ids.size else np.zeros(0, bool)
    distinct = np.bincount(groups[first], minlength=n_groups)
    if depth > 0:
        distinct = np.minimum(distinct, depth)
    return np.minimum(counts, np.maximum(2 * distinct + 2, 1024))


def stack_distances(keys: np.ndarray, groups: np.ndarray | None = None,
                    evict: np.ndarray | None = None) -> np.ndarray:
    """Exact LRU stack distance of every access, within its group.

    Parameters
    ----------
    keys : array of int
        Block (line) numbers, in access order.
    groups : array of int, optional
        Non-negative group of each access (a cache set, a bank); one group
        when None (a fully associative cache). A block must always map to
        the same group.
    evict : array of bool, optional
        Accesses after which the block is invalidated (write-evict stores).

    Returns
    -------
    numpy.ndarray
        ``int64`` distance per access, :data:`INF` (``-1``) when infinite. Invalidated lines
        are not counted; with invalidations use :func:`lru_hits` for hits.

    Raises
    ------
    ValueError
        If the arrays differ in length or a group is negative.
    """
    keys = np.asarray(keys)
    n = keys.size
    groups = np.zeros(n, np.int64) if groups is None else np.ascontiguousarray(groups, dtype=np.int64)
    evict = np.zeros(n, np.bool_) if evict is None else np.ascontiguousarray(evict, dtype=np.bool_)
    if groups.size != n or evict.size != n:
        raise ValueError(f"keys, groups and evict must have one entry per access ({n})")
    if n == 0:
        return np.zeros(0, np.int64)
    if groups.min() < 0:
        raise ValueError("groups: must be non-negative")
    ids, n_ids = dense_ids(keys)
    base, size = segments(np.bincount(groups))
    return _serial(ids, groups, evict, base, size, n_ids, np.zeros(0, np.int64))[0]


def lru_hits(keys: np.ndarray, capacities, groups: np.ndarray | None = None,
             evict: np.ndarray | None = None) -> np.ndarray:
    """Exact LRU hits of every access for several capacities, in one pass.

    Parameters
    ----------
    keys, groups, evict
        As for :func:`stack_distances`.
    capacities : sequence of int
        Blocks per group (the associativity for per-set groups), at most 32 of them.

    Returns
    -------
    numpy.ndarray
        ``bool[n, len(capacities)]``: the access found its line (a read hit, or a write-evict
        store that invalidated it).
    """
    caps = np.asarray(capacities, dtype=np.int64).reshape(-1)
    if not 1 <= caps.size <= 32 or caps.min() < 1:
        raise ValueError(f"capacities: 1 to 32 positive block counts, not {caps.tolist()}")
    keys = np.asarray(keys)
    n = keys.size
    groups = np.zeros(n, np.int64) if groups is None else np.ascontiguousarray(groups, dtype=np.int64)
    evict = np.zeros(n, np.bool_) if evict is None else np.ascontiguousarray(evict, dtype=np.bool_)
    if groups.size != n or evict.size != n:
        raise ValueError(f"keys, groups and evict must have one entry per access ({n})")
    if n == 0:
        return np.zeros((0, caps.size), bool)
    ids, n_ids = dense_ids(keys)
    base, size = segments(np.bincount(groups))
    bits = _serial(ids, groups, evict, base, size, n_ids, caps)[1]
    return ((bits[:, None] >> np.arange(caps.size, dtype=np.uint32)) & 1).astype(bool)


def histogram(distances: np.ndarray, limit: int, mask: np.ndarray | None = None) -> np.ndarray:
    """Counts of distances ``0..limit-1`` and, in bucket ``limit``, the rest (``>= limit`` or infinite).

    rdgc Section 3.2's counter array ``C[K + 1]``.

    Parameters
    ----------
    distances : array of int
        From :func:`stack_distances`.
    limit : int
        Buckets of finite distance (the largest capacity to evaluate, in blocks per group).
    mask : array of bool, optional
        Count only these accesses (e.g. the reads).
    """
    if limit < 1:
        raise ValueError(f"limit: must be a positive integer, not {limit}")
    d = np.asarray(distances, dtype=np.int64)
    if mask is not None:
        d = d[mask]
    d = np.where((d < 0) | (d >= limit), limit, d)
    return np.bincount(d, minlength=limit + 1).astype(np.int64)


def hits_below(hist: np.ndarray, capacity: int) -> int:
    """Hits of an LRU cache of ``capacity`` blocks per group: the first ``capacity`` counters.

    Raises
    ------
    ValueError
        If the histogram does not reach ``capacity`` (its limit is smaller).
    """
    if not 0 <= capacity <= hist.size - 1:
        raise ValueError(f"capacity {capacity} is beyond the histogram's limit {hist.size - 1}")
    return int(hist[:capacity].sum())
