"""RD calculation for a parallel cache: banks, ports, MSHRs and miss latency (rdgc Section 4.4).

One :class:`ParallelCache` is one cache instance (the L1 of one SM, or the
L2). It receives *access lists* (rdgc Algorithm 2's ``W``: the coalesced
line accesses of the warps one scheduler group issues, lower warp first)
and processes each list in *steps* of two phases:

1. every access still pending takes a port of its bank, in priority order
   (lower warp index first; within a warp, lower bank first, then the
   warp's own order: the order that reproduces rdgc Table 3, where W0's A
   and C in bank 0 get the two MSHRs before its B and D in bank 1, and
   W0's retried B and D before W1's E and G); a bank serves at
   most ``ports`` accesses a step, the others wait. An access with a port
   looks up the bank's stack: a block with an MSHR entry merges into it
   (at most ``merges`` per entry); a block with a distance below the hit
   limit hits; otherwise it misses and reserves an entry of its bank's
   MSHR set. Without a free entry (or merge slot) the access is a
   *reservation failure* and retries the next step. A resolved access
   touches the stack (its distance is recorded then).
2. blocks whose data arrives in this step fill the cache at its end, in
   MSHR-insertion order; each fill touches the stack again.

A list ends in the step its last access is resolved and the next list
starts the following step (the scheduler stalls until its warps' accesses
are served: rdgc Section 4.4 and [36]). At the end of a kernel the
outstanding misses drain.

Timing of an MSHR entry, the reading that reproduces rdgc Table 3 row by
row (the text alone is ambiguous): a miss in step ``i`` with latency ``L``
steps has its data at the end of step ``a = i + L - 1`` (Table 3: latency
2, arrives at the end of ``i + 1``, usable from ``i + 2``); its entry
counts against the set's capacity in steps ``i .. a - 1`` and at least in
step ``i`` itself; in step ``a`` the entry no longer blocks a reservation
(Table 3: B and D reserve in step 1 while A and C arrive at its end) but
still accepts merges until its fill at the end of ``a``.

Write accesses: with ``write_evict`` (an L1 that caches reads), a write
takes a port, needs no MSHR, is forwarded to the next level and removes
the block from the stack (a hit evicts it; removing it whatever the
distance keeps every smaller capacity exact, see docs/rd.md). Otherwise
(the L2) a write is looked up like a read and allocates on a miss.

Latency: fixed ``L``, or rdgc Section 4.4.1's adaptive
``K1 + K2 * #MSHR_busy * scale`` (``scale = #active_SMs / L2P`` for the
L1; 1 for the L2), with ``#MSHR_busy`` the entries of the set counting
against its capacity when the miss reserves, rounded half up, at least 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from golden.errors import InputError
from golden.rd.stack import (
    FAR,
    INF,
    cached_update,
    dense_ids,
    fw_prefix,
    move,
    segment_sizes,
    segments,
    touch,
)

__all__ = ["HIT", "MISS", "MERGE", "WRITE", "RF", "Latency", "ParallelCache", "parse_latency"]

#: Outcome of a resolved access (and, for the event log, of a failed one).
HIT, MISS, MERGE, WRITE, RF = 0, 1, 2, 3, 4
_FIXED, _ADAPTIVE = 0, 1
#: Statistics slots: reservation failures, merges.
_S_RF, _S_MERGES = 0, 1


@dataclass(frozen=True)
class Latency:
    """Miss latency in steps: ``fixed:N`` or rdgc's ``adaptive:K1,K2`` (Section 4.4.1).

    Parameters
    ----------
    kind : str
        ``"fixed"`` or ``"adaptive"``.
    fixed : int
        Steps for ``"fixed"`` (at least 1).
    k1, k2 : float
        Constants of ``"adaptive"`` (rdgc's A2, used for its results: 2 and 0.25).
    """

    kind: str = "adaptive"
    fixed: int = 1
    k1: float = 2.0
    k2: float = 0.25

    def __post_init__(self) -> None:
        if self.kind not in ("fixed", "adaptive"):
            raise InputError(f"latency: unknown model {self.kind!r} (use fixed:N or adaptive:K1,K2)")
        if self.kind == "fixed" and (not isinstance(self.fixed, int) or self.fixed < 1):
            raise InputError(f"latency: fixed latency must be an integer >= 1 step, not {self.fixed!r}")
        if self.kind == "adaptive" and (self.k1 < 0 or self.k2 < 0):
            raise InputError(f"latency: adaptive constants must be >= 0, not {self.k1}, {self.k2}")

    def __str__(self) -> str:
        return f"fixed:{self.fixed}" if self.kind == "fixed" else f"adaptive:{self.k1:g},{self.k2:g}"


def parse_latency(text: str) -> Latency:
    """``"fixed:N"`` or ``"adaptive:K1,K2"`` as a :class:`Latency`.

    Raises
    ------
    InputError
        For an unknown model or malformed numbers (one line naming ``latency``).
    """
    kind, _, rest = text.partition(":")
    if kind not in ("fixed", "adaptive"):
        raise InputError(f"latency: unknown model {kind!r} in {text!r} (use fixed:N or adaptive:K1,K2)")
    try:
        if kind == "fixed":
            values = {"fixed": int(rest)}
        else:
            k1, k2 = (float(v) for v in rest.split(","))
            values = {"k1": k1, "k2": k2}
    except ValueError:
        raise InputError(f"latency: cannot read {text!r} (use fixed:N or adaptive:K1,K2)") from None
    return Latency(kind, **values)


@nb.njit(cache=True, nogil=True)
def _occupied(m_key, m_free, m, s):
    n = 0
    for j in range(m_key.shape[1]):
        if m_key[m, j] >= 0 and m_free[m, j] > s:
            n += 1
    return n


@nb.njit(cache=True, nogil=True, inline="always")
def _before(m_arr, m_seq, m, a, b):
    """Entry ``a`` of MSHR set ``m`` fills before entry ``b``: earlier arrival, then earlier insertion."""
    return m_arr[m, a] < m_arr[m, b] or (m_arr[m, a] == m_arr[m, b] and m_seq[m, a] < m_seq[m, b])


@nb.njit(cache=True, nogil=True, inline="always")
def _heap_push(heap, hn, m, j, m_arr, m_seq):
    """Add entry ``j`` to set ``m``'s binary heap of live entries, ordered by :func:`_before`."""
    q = hn[m]
    hn[m] = q + 1
    while q > 0:
        parent = (q - 1) >> 1
        if not _before(m_arr, m_seq, m, j, heap[m, parent]):
            break
        heap[m, q] = heap[m, parent]
        q = parent
    heap[m, q] = j


@nb.njit(cache=True, nogil=True, inline="always")
def _heap_pop(heap, hn, m, m_arr, m_seq):
    """Remove and return the first entry of set ``m``'s heap (see :func:`_heap_push`)."""
    top = heap[m, 0]
    n = hn[m] - 1
    hn[m] = n
    if n > 0:
        j = heap[m, n]
        q = 0
        while True:
            c = 2 * q + 1
            if c >= n:
                break
            if c + 1 < n and _before(m_arr, m_seq, m, heap[m, c + 1], heap[m, c]):
                c += 1
            if not _before(m_arr, m_seq, m, heap[m, c], j):
                break
            heap[m, q] = heap[m, c]
            q = c
        heap[m, q] = j
    return top


@nb.njit(cache=True, nogil=True, inline="always")
def _not_blocking(heap, hn, m, m_arr, m_free, s, stack):
    """Live entries of set ``m`` that no longer block a reservation in step ``s``.

    Such an entry arrives by step ``s`` (its ``m_free`` is at least its arrival), so only the
    heap's nodes arriving by ``s`` and their children are visited.
    """
    n = 0
    if hn[m] == 0:
        return 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        q = stack[top]
        j = heap[m, q]
        if m_arr[m, j] > s:
            continue
        if m_free[m, j] <= s:
            n += 1
        for c in (2 * q + 1, 2 * q + 2):
            if c < hn[m]:
                stack[top] = c
                top += 1
    return n


@nb.njit(cache=True, nogil=True, inline="always")
def _fills(s, m_key, m_grp, m_arr, m_seq, m_min, m_live, heap, hn, free_slots, nfree, tree, owner, tbase,
           tsize, used, marks, last, inflight, valid, caps, depth, log_fill, logc):
    """Phase 2 of step ``s``: the blocks arriving now fill the cache in MSHR-insertion order.

    Each set's live entries are a binary heap ordered by arrival step, then insertion: the
    entries arriving now are popped in insertion order, and their slots go back to the set's
    free slots.
    """
    for m in range(m_key.shape[0]):
        if m_min[m] > s:
            continue
        n = 0
        while hn[m] > 0 and m_arr[m, heap[m, 0]] <= s:
            best = _heap_pop(heap, hn, m, m_arr, m_seq)
            n += 1
            k = m_key[m, best]
            if last[k] == INF:
                # A write evicted the line while its miss was outstanding: the fill allocates again.
                cached_update(valid, m_grp[m, best], caps, -1, False)
            touch(tree, owner, tbase, tsize, used, marks, last, m_grp[m, best], k, False, depth)
            inflight[k] = -1
            m_key[m, best] = -1
            free_slots[m, nfree[m]] = best
            nfree[m] += 1
            if log_fill.shape[0] > 0:
                log_fill[logc[1], 0] = s
                log_fill[logc[1], 1] = k
                logc[1] += 1
        m_live[m] -= n
        m_min[m] = m_arr[m, heap[m, 0]] if hn[m] > 0 else np.iinfo(np.int64).max


@nb.njit(cache=True, nogil=True)
def _run(s, list_ptr, key, group, bank, prio, write, write_evict, bypass, ports, mset, entries, merges_max,
         caps, depth, lat_kind, lat_fixed, k1, k2, lat_scale,
         tree, owner, tbase, tsize, used, marks, last, inflight, m_key, m_grp, m_arr, m_free, m_merges, m_seq,
         m_min, seqc, valid, o_step, o_kind, o_dist, o_bits, stats, log_ev, log_free, log_fill, logc):
    """Process the access lists ``list_ptr`` from step ``s``, then drain; return the next step."""
    cap = m_key.shape[1]
    longest = 0
    for li in range(list_ptr.size - 1):
        longest = max(longest, list_ptr[li + 1] - list_ptr[li])
    pend = np.empty(max(1, longest), np.int64)
    pkey = np.empty(max(1, longest), np.int64)
    held = np.empty(max(1, longest), np.int64)
    n_banks = mset.size
    ports_used = np.zeros(n_banks, np.int64)
    # Per MSHR set: live entries, and the entries blocking reservations in step occ_step[m]
    # (counted once a step: a reservation adds one, nothing else changes them in phase 1).
    # Every run starts and ends with empty MSHRs.
    m_live = np.zeros(m_key.shape[0], np.int64)
    heap = np.empty(m_key.shape, np.int64)
    hn = np.zeros(m_key.shape[0], np.int64)
    stack = np.empty(cap + 1, np.int64)
    free_slots = np.empty(m_key.shape, np.int64)
    nfree = np.zeros(m_key.shape[0], np.int64)
    for m in range(m_key.shape[0]):
        for j in range(cap - 1, -1, -1):
            if m_key[m, j] < 0:
                free_slots[m, nfree[m]] = j
                nfree[m] += 1
    occ_step = np.full(m_key.shape[0], -1, np.int64)
    occ_n = np.zeros(m_key.shape[0], np.int64)
    next_fill = m_min.min()
    for li in range(list_ptr.size - 1):
        npend = 0
        ordered = True
        for i in range(list_ptr[li], list_ptr[li + 1]):
            pend[npend] = i
            pkey[npend] = prio[i] * n_banks + bank[i]
            if npend and pkey[npend] < pkey[npend - 1]:
                ordered = False
            npend += 1
        if not ordered:
            # Priority: warp, then bank, then the access's own order (a stable sort): an
            # insertion sort in place for short lists, a merge sort for long ones.
            if npend <= 64:
                for a in range(1, npend):
                    kv = pkey[a]
                    iv = pend[a]
                    b = a
                    while b > 0 and pkey[b - 1] > kv:
                        pkey[b] = pkey[b - 1]
                        pend[b] = pend[b - 1]
                        b -= 1
                    pkey[b] = kv
                    pend[b] = iv
            else:
                srt = np.argsort(pkey[:npend], kind="mergesort")
                pend[:npend] = pend[:npend][srt]
        # The pending accesses are pend[p0:npend]. A step walks them until every port is taken;
        # the ones it passes over but keeps (busy bank, reservation failure) go to held[] and
        # are put back just before the untouched rest, so a step costs the accesses it looks at,
        # not the whole list.
        p0 = 0
        while npend > p0:
            ports_used[:] = 0
            free_ports = n_banks * ports
            keep = 0
            q = p0
            while q < npend:
                if free_ports == 0:
                    break
                i = pend[q]
                q += 1
                bk = bank[i]
                if ports_used[bk] >= ports:
                    held[keep] = i
                    keep += 1
                    continue
                ports_used[bk] += 1
                free_ports -= 1
                k = key[i]
                g = group[i]
                status = RF
                d = -1
                bits = 0
                if bypass:
                    status = WRITE
                elif write[i] and write_evict:
                    d = touch(tree, owner, tbase, tsize, used, marks, last, g, k, True, depth)
                    bits = cached_update(valid, g, caps, d, True)
                    status = WRITE
                elif inflight[k] >= 0:
                    slot = inflight[k]
                    m = slot // cap
                    j = slot - m * cap
                    if merges_max == 0 or m_merges[m, j] < merges_max:
                        m_merges[m, j] += 1
                        d = touch(tree, owner, tbase, tsize, used, marks, last, g, k, False, depth)
                        # A merge sends nothing on and counts as a hit, as rdgc's counters
                        # count it (its block was touched at its miss: a short distance).
                        bits = (1 << caps.size) - 1
                        status = MERGE
                        stats[_S_MERGES] += 1
                else:
                    lp = last[k]
                    if lp >= 0:
                        d = marks[g] - fw_prefix(tree, tbase[g], lp)
                        if 0 < depth < d:
                            d = depth
                    elif lp == FAR:
                        d = depth
                    if 0 <= d < valid[g, 0]:
                        move(tree, owner, tbase, tsize, used, marks, last, g, k, depth)
                        bits = cached_update(valid, g, caps, d, False)
                        status = HIT
                    else:
                        m = mset[bk]
                        if occ_step[m] != s:
                            # Only an entry arriving in this step, reserved earlier, no longer
                            # blocks: without arrivals every live entry does.
                            occ_n[m] = m_live[m] - (0 if m_min[m] > s else
                                                   _not_blocking(heap, hn, m, m_arr, m_free, s, stack))
                            occ_step[m] = s
                        busy = occ_n[m]
                        if busy < entries:
                            if lat_kind == _FIXED:
                                lat = lat_fixed
                            else:
                                lat = max(1, int(np.floor(k1 + k2 * busy * lat_scale + 0.5)))
                            # A free slot from the set's stack of free slots (which slot an
                            # entry takes changes nothing: fills go by arrival and insertion).
                            nfree[m] -= 1
                            j = free_slots[m, nfree[m]]
                            m_key[m, j] = k
                            m_grp[m, j] = g
                            m_arr[m, j] = s + lat - 1
                            m_free[m, j] = max(s + lat - 1, s + 1)
                            m_merges[m, j] = 0
                            m_seq[m, j] = seqc[0]
                            seqc[0] += 1
                            m_min[m] = min(m_min[m], s + lat - 1)
                            next_fill = min(next_fill, s + lat - 1)
                            inflight[k] = m * cap + j
                            _heap_push(heap, hn, m, j, m_arr, m_seq)
                            m_live[m] += 1
                            occ_n[m] += 1
                            move(tree, owner, tbase, tsize, used, marks, last, g, k, depth)
                            bits = cached_update(valid, g, caps, d, False)
                            status = MISS
                if log_ev.shape[0] > 0:
                    c = logc[0]
                    log_ev[c, 0] = s
                    log_ev[c, 1] = i
                    log_ev[c, 2] = status
                    log_ev[c, 3] = d
                    logc[0] = c + 1
                if status == RF:
                    stats[_S_RF] += 1
                    held[keep] = i
                    keep += 1
                else:
                    o_step[i] = s
                    o_kind[i] = status
                    o_dist[i] = d
                    o_bits[i] = bits
            p0 = q - keep
            for r in range(keep):
                pend[p0 + r] = held[r]
            if log_free.shape[0] > 0:
                free = 0
                for m in range(m_key.shape[0]):
                    free += entries - _occupied(m_key, m_free, m, s)
                log_free[logc[2], 0] = s
                log_free[logc[2], 1] = free
                logc[2] += 1
            if next_fill <= s:  # most steps fill nothing: skip the call
                _fills(s, m_key, m_grp, m_arr, m_seq, m_min, m_live, heap, hn, free_slots, nfree, tree, owner,
                       tbase, tsize, used, marks, last, inflight, valid, caps, depth, log_fill, logc)
                next_fill = m_min.min()
            s += 1
    # The kernel ends when its last miss has returned.
    while m_min.min() != np.iinfo(np.int64).max:
        _fills(s, m_key, m_grp, m_arr, m_seq, m_min, m_live, heap, hn, free_slots, nfree, tree, owner, tbase,
               tsize, used, marks, last, inflight, valid, caps, depth, log_fill, logc)
        s += 1
    return s


class ParallelCache:
    """One cache instance of the parallel RD model, fed access lists kernel by kernel.

    Parameters
    ----------
    keys : array of int
        Line number of every access the instance will see (all kernels, in list order).
    groups : array of int
        Stack of each access: its bank (rdgc's shared counters) or its set within its bank
        (exact per-set counting).
    banks : array of int
        Bank of each access, ``0 .. n_banks - 1``.
    writes : array of bool
        Write accesses.
    warps : array of int
        Priority of each access within its list: its warp's index (lower first).
    n_banks, ports : int
        Banks and ports per bank.
    mshr_set_of_bank : array of int
        MSHR set serving each bank (``0 .. sets - 1``).
    entries, merges : int
        Entries per MSHR set; merges per entry (0: unlimited).
    hit_limit : int
        Blocks per stack (the associativity for per-set stacks): an access hits when its
        distance is below the stack's valid lines, at most this many (see
        :mod:`golden.rd.stack` on invalidations).
    sweep : sequence of int
        Further capacities (blocks per stack) to evaluate in the same pass, with this run's
        order and timing: bit ``c + 1`` of :attr:`found_bits` (at most 31).
    latency : Latency
        The miss latency model.
    write_evict : bool
        L1 behaviour for writes (see the module docstring); False for the L2.
    bypass : bool
        Every access passes through like a write-evict write, without touching the stack
        (a disabled L1: it only orders the accesses for the L2).
    log : bool
        Record every port use, the free MSHRs per step and every fill (for tests and ``explain``).
    depth : int
        0: exact distances. Otherwise distances are exact below ``depth`` and read as
        ``depth`` at or beyond it (at least the largest capacity, hit limit or sweep): the
        stacks keep only the ``depth`` most recent blocks (:func:`golden.rd.stack.compact`),
        which keeps them small and fast; hits, sweeps and counters of up to ``depth``
        buckets are unchanged. Ignored (exact) when write-evict stores may invalidate lines
        that are read: an invalidation moves the older blocks up the stack, so a block below
        the depth may come back within it (its hits stay exact, its counter bucket would
        not). Stores only to lines this cache never reads invalidate nothing.

    Members
    -------
    keys_orig : numpy.ndarray
        The line numbers as given (``keys`` holds them renumbered densely).
    step, kind, dist : numpy.ndarray
        Per access: step it was resolved, outcome (:data:`HIT`, :data:`MISS`, :data:`MERGE`,
        :data:`WRITE`), distance at resolution (-1: infinite).
    found_bits : numpy.ndarray
        ``uint32`` per access: bit 0 the access counts as a hit (a hit, a merge, or a write
        that found and evicted its line), bit ``c + 1`` the same for ``sweep[c]``.
    reservation_failures, merges : int
        Totals so far.
    """

    def __init__(self, keys, groups, banks, writes, warps, *, n_banks: int, ports: int,
                 mshr_set_of_bank, entries: int, merges: int, hit_limit: int, latency: Latency,
                 write_evict: bool, bypass: bool = False, sweep=(), log: bool = False,
                 depth: int = 0) -> None:
        for name, v in (("banks", n_banks), ("ports", ports), ("MSHR entries", entries)):
            if not isinstance(v, int | np.integer) or v < 1:
                raise InputError(f"{name}: must be a positive integer, not {v!r}")
        if not isinstance(merges, int | np.integer) or merges < 0:
            raise InputError(f"MSHR merges: must be a non-negative integer, not {merges!r}")
        if hit_limit < 1:
            raise InputError(f"hit limit: must be at least 1 block, not {hit_limit}")
        self.groups = np.ascontiguousarray(groups, dtype=np.int64)
        self.keys_orig = np.asarray(keys)
        self.keys, n_ids = dense_ids(self.keys_orig)
        self.banks = np.ascontiguousarray(banks, dtype=np.int64)
        self.writes = np.ascontiguousarray(writes, dtype=np.bool_)
        self.warps = np.ascontiguousarray(warps, dtype=np.int64)
        self.mset = np.ascontiguousarray(mshr_set_of_bank, dtype=np.int64)
        if self.mset.size != n_banks:
            raise ValueError("mshr_set_of_bank: one MSHR set per bank")
        n = self.keys.size
        self.ports, self.entries, self.merges_max = int(ports), int(entries), int(merges)
        self.hit_limit, self.latency, self.write_evict = int(hit_limit), latency, bool(write_evict)
        self.bypass = bool(bypass)
        self.caps = np.array([hit_limit, *sweep], np.int64)
        if self.caps.size > 32 or self.caps.min() < 1:
            raise InputError(f"sweep: 1 to 31 positive capacities, not {list(sweep)}")
        if depth and depth < self.caps.max():
            raise InputError(f"depth: must be 0 or at least the largest capacity {self.caps.max()}, "
                             f"not {depth}")
        self.depth = int(depth)
        if write_evict and not bypass and self.writes.any():
            read = np.zeros(max(1, n_ids), np.bool_)
            read[self.keys[~self.writes]] = True
            if read[self.keys[self.writes]].any():
                self.depth = 0
        # Every resolution and every fill touches its stack once: at most 2 touches per access.
        n_groups = int(self.groups.max()) + 1 if n else 1
        self._tbase, self._tsize = segments(segment_sizes(self.keys, self.groups, 2, self.depth))
        self._tree = np.zeros(int(self._tbase[-1] + self._tsize[-1]), np.int32)
        self._owner = np.full(self._tree.size, -1, np.int64)
        self._used = np.zeros(n_groups, np.int64)
        self._marks = np.zeros(n_groups, np.int64)
        self._last = np.full(max(1, n_ids), -1, np.int64)
        self._inflight = np.full(max(1, n_ids), -1, np.int64)
        n_sets = int(self.mset.max()) + 1
        # An arriving entry still takes merges while a new one reserves: 2 x entries slots.
        shape = (n_sets, 2 * self.entries)
        self._m = {name: np.full(shape, -1, np.int64) for name in ("key", "grp", "arr", "free",
                                                                  "merges", "seq")}
        self._m_min = np.full(n_sets, np.iinfo(np.int64).max, np.int64)
        self._seq = np.zeros(1, np.int64)
        self.step = np.full(n, -1, np.int64)
        self.kind = np.full(n, -1, np.int8)
        self.dist = np.full(n, -1, np.int64)
        self.found_bits = np.zeros(n, np.uint32)
        self._valid = np.zeros((n_groups, self.caps.size), np.int64)
        self._stats = np.zeros(2, np.int64)
        cap = 4 * n + 16 if log else 0
        self._log_ev = np.zeros((cap, 4), np.int64)
        self._log_free = np.zeros((cap, 2), np.int64)
        self._log_fill = np.zeros((cap, 2), np.int64)
        self._logc = np.zeros(3, np.int64)

    @property
    def reservation_failures(self) -> int:
        """Reservation failures so far (one per access and failed step)."""
        return int(self._stats[_S_RF])

    @property
    def merges(self) -> int:
        """Accesses merged into an outstanding MSHR entry so far."""
        return int(self._stats[_S_MERGES])

    def run(self, list_ptr: np.ndarray, start_step: int, latency_scale: float = 1.0) -> int:
        """Process the lists ``list_ptr`` (CSR over the access arrays) from ``start_step``, then drain.

        Returns
        -------
        int
            The first step after the last fill.
        """
        lat = self.latency
        m = self._m
        return int(_run(
            np.int64(start_step), np.ascontiguousarray(list_ptr, dtype=np.int64), self.keys,
            self.groups, self.banks, self.warps, self.writes, self.write_evict, self.bypass, self.ports,
            self.mset, self.entries, self.merges_max, self.caps, self.depth,
            _FIXED if lat.kind == "fixed" else _ADAPTIVE,
            int(lat.fixed), float(lat.k1), float(lat.k2), float(latency_scale),
            self._tree, self._owner, self._tbase, self._tsize, self._used, self._marks, self._last,
            self._inflight,
            m["key"], m["grp"], m["arr"], m["free"], m["merges"], m["seq"], self._m_min, self._seq,
            self._valid, self.step, self.kind, self.dist, self.found_bits, self._stats,
            self._log_ev, self._log_free, self._log_fill, self._logc))

    def log(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(events, free, fills)`` recorded with ``log=True``.

        ``events`` rows are ``(step, access, outcome, distance)`` for every port use (outcome
        :data:`RF` for a reservation failure), ``free`` rows ``(step, free MSHR entries after
        phase 1)``, ``fills`` rows ``(step, dense block id)`` in fill order.
        """
        c = self._logc
        return self._log_ev[: c[0]].copy(), self._log_free[: c[2]].copy(), self._log_fill[: c[1]].copy()
