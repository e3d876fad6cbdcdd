"""rdgc Algorithm 1: the L1 of every SM, then the L2 trace, then the L2; metrics from the counters.

:func:`analyse` runs the whole physical model on a workload. Kernels run
one after another: every SM's L1 starts kernel ``k + 1`` in the step after
the last SM has drained kernel ``k``, and caches keep their contents across
kernels (as :class:`golden.cache.Hierarchy` does).

**The L2 trace** (rdgc leaves its order open, Section 4.2 line 5 of
Algorithm 1): the L1 misses (an MSHR allocation) and the bypassed accesses
(writes; every access with the L1 disabled) of all SMs are ordered by
kernel, then by the L1 step in which they were resolved, then by SM, then
by their order within that SM's step. The SMs run in lock step, so a
request made in L1 step ``t`` reaches the L2 together with the other SMs'
requests of step ``t``. The requests of one L1 step form one L2 access
list, with the SM index as priority (lower first, as lower warps are in
the L1). MSHR merges do not reach the L2.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numba as nb
import numpy as np

from golden.configs.schema import GPUConfig
from golden.errors import InputError
from golden.rd.logical import logical_trace
from golden.rd.parallel import MISS, WRITE, Latency, ParallelCache
from golden.rd.physical import MAPPINGS, Placement, bank_map, place
from golden.trace.model import Workload

__all__ = ["COUNTINGS", "RDOptions", "LevelResult", "RDResult", "analyse"]

#: ``shared``: one stack per bank, the hit limit is the bank's blocks (rdgc's one counter array
#: for every set); ``per-set``: one stack per set, the hit limit is the associativity (exact LRU).
COUNTINGS = ("shared", "per-set")


@dataclass(frozen=True)
class RDOptions:
    """Options of the physical model beyond the machine config.

    Parameters
    ----------
    l1 : bool
        L1 enabled (caches reads, write-evict) or disabled (every access bypasses it).
    latency : Latency
        Miss latency of both levels (rdgc's A2 model by default, Section 5.1).
    mapping : str
        CTA-to-SM mapping, one of :data:`golden.rd.physical.MAPPINGS`.
    seed : int
        Seed of the ``rand`` mapping.
    counting : str
        One of :data:`COUNTINGS`.
    l1_mshrs, l1_merges : int or None
        L1 MSHR entries (one set shared by the banks) and merges per entry; None: the
        config's ``l1.mshrs``/``l1.mshr_merges``, or rdgc Section 4.4.2's 32 and 8 when 0.
    l2_mshr_sets, l2_mshrs, l2_merges : int or None
        L2 MSHR sets (partitions share them in order: two per set in rdgc Section 4.4.2,
        so ``ceil(partitions / 2)`` by default), entries per set (32) and merges (8; rdgc
        gives none for the L2).
    l1_buckets, l2_buckets : int or None
        Finite-distance buckets of the counters (at least the hit limit, the default); a
        larger limit gives the RD profile beyond the cache.
    l1_sweep, l2_sweep : tuple of int
        Further capacities (blocks per stack) whose hits are counted in the same pass, with
        the access order and timing of the configured cache (at most 31 each).
    """

    l1: bool = True
    latency: Latency = field(default_factory=Latency)
    mapping: str = "rr"
    seed: int = 0
    counting: str = "shared"
    l1_mshrs: int | None = None
    l1_merges: int | None = None
    l2_mshr_sets: int | None = None
    l2_mshrs: int | None = None
    l2_merges: int | None = None
    l1_buckets: int | None = None
    l2_buckets: int | None = None
    l1_sweep: tuple[int, ...] = ()
    l2_sweep: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.mapping not in MAPPINGS:
            raise InputError(f"mapping: unknown CTA-to-SM mapping {self.mapping!r} "
                             f"(one of {', '.join(MAPPINGS)})")
        if self.counting not in COUNTINGS:
            raise InputError(f"counting: must be one of {', '.join(COUNTINGS)}, not {self.counting!r}")
        for name in ("l1_mshrs", "l2_mshr_sets", "l2_mshrs", "l1_buckets", "l2_buckets"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or v < 1):
                raise InputError(f"{name}: must be a positive integer, not {v!r}")
        for name in ("l1_sweep", "l2_sweep"):
            v = getattr(self, name)
            if len(v) > 31 or any(not isinstance(c, int | np.integer) or c < 1 for c in v):
                raise InputError(f"{name}: 0 to 31 positive block counts, not {list(v)}")
        for name in ("l1_merges", "l2_merges"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or v < 0):
                raise InputError(f"{name}: must be a non-negative integer (0: unlimited), not {v!r}")


@dataclass
class LevelResult:
    """Counters of one cache level (all instances of the level together).

    Members
    -------
    c_read, c_write : numpy.ndarray
        rdgc's ``C1R``/``C1W`` (``C2R``/``C2W``): accesses per distance ``0 .. buckets - 1``
        at resolution, and in the last bucket the rest (larger or infinite). Without
        invalidations the hits of a cache of ``b`` blocks per stack are ``sum(c[:b])``.
    hit_limit : int
        Blocks per stack of the configured cache.
    reads, writes, read_hits, write_hits, misses, merges, reservation_failures, steps : int
        Hits include MSHR merges (rdgc's counters count them as hits). Write hits are writes
        that found their block (the L1 evicts it). ``misses`` are MSHR allocations (each one
        request to the next level).
    transactions_out : int
        Requests sent to the next level (misses and bypassed accesses).
    sweep : dict
        ``{blocks: read hits}`` for every swept capacity (blocks per stack).
    """

    c_read: np.ndarray
    c_write: np.ndarray
    hit_limit: int
    reads: int = 0
    writes: int = 0
    read_hits: int = 0
    write_hits: int = 0
    misses: int = 0
    merges: int = 0
    reservation_failures: int = 0
    steps: int = 0
    transactions_out: int = 0
    sweep: dict = field(default_factory=dict)

    @property
    def read_hit_ratio(self) -> float:
        """Read hits / reads (NaN without reads)."""
        return self.read_hits / self.reads if self.reads else float("nan")

    @property
    def write_hit_ratio(self) -> float:
        """Write hits / writes (NaN without writes)."""
        return self.write_hits / self.writes if self.writes else float("nan")

    @property
    def hit_ratio(self) -> float:
        """All hits / all accesses."""
        n = self.reads + self.writes
        return (self.read_hits + self.write_hits) / n if n else float("nan")

    def to_dict(self) -> dict:
        """JSON-ready counters and ratios."""
        return {
            "reads": self.reads, "writes": self.writes, "read_hits": self.read_hits,
            "write_hits": self.write_hits, "read_hit_ratio": self.read_hit_ratio,
            "write_hit_ratio": self.write_hit_ratio, "hit_ratio": self.hit_ratio,
            "misses": self.misses, "merges": self.merges,
            "reservation_failures": self.reservation_failures, "steps": self.steps,
            "transactions_out": self.transactions_out, "hit_limit": self.hit_limit,
            "c_read": self.c_read.tolist(), "c_write": self.c_write.tolist(),
            "sweep": [{"blocks": b, "read_hits": h, "read_hit_ratio": h / self.reads if self.reads else None}
                      for b, h in self.sweep.items()],
        }


@dataclass
class RDResult:
    """The physical model's output.

    Members
    -------
    l1 : LevelResult or None
        None when the L1 is disabled.
    l2 : LevelResult
    accesses : int
        Line accesses analysed (L1 accesses, plus L2 accesses).
    streams : dict
        With ``keep_streams``: ``"l1"`` a list per SM and ``"l2"`` one entry, each
        ``(lines, writes, found, step)`` in the order the cache resolved them (``found``: a
        read hit, or a write whose block was cached; ``step``: when).
    """

    l1: LevelResult | None
    l2: LevelResult
    accesses: int
    streams: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-ready result (rdgc Section 5's metrics and the counters)."""
        l2 = self.l2.to_dict()
        return {"l1": self.l1.to_dict() if self.l1 else None, "l2": l2,
                "transactions": {"l1_to_l2": (self.l1.transactions_out if self.l1 else self.l2.reads
                                              + self.l2.writes),
                                 "l2_to_dram": self.l2.transactions_out},
                "accesses_analysed": self.accesses}


def _found(cache: ParallelCache, c: int = 0) -> np.ndarray:
    """Accesses that found their block (read hits, writes whose block was cached) at capacity ``c``."""
    return ((cache.found_bits >> np.uint32(c)) & 1).astype(bool)


@nb.njit(cache=True, nogil=True)
def _tally(kind, dist, writes, bits, buckets, n_caps):
    """One pass over a cache's outcomes: counters per bucket and totals (see :func:`_level`)."""
    c = np.zeros((2, buckets + 1), np.int64)
    tot = np.zeros(6, np.int64)  # reads, writes, read hits, write hits, misses, transactions out
    sweep = np.zeros(n_caps, np.int64)
    for i in range(kind.size):
        d = dist[i]
        if d < 0 or d >= buckets:
            d = buckets
        w = 1 if writes[i] else 0
        c[w, d] += 1
        tot[w] += 1
        if bits[i] & 1:
            tot[2 + w] += 1
        if kind[i] == MISS:
            tot[4] += 1
        if kind[i] == MISS or kind[i] == WRITE:
            tot[5] += 1
        if w == 0:
            for j in range(1, n_caps):
                sweep[j] += (bits[i] >> j) & 1
    return c, tot, sweep


@nb.njit(cache=True, nogil=True)
def _l2_count(kind, step, first):
    """Count one cache's accesses forwarded to the next level (misses, writes) in ``first[step + 1]``."""
    for i in range(kind.size):
        if kind[i] == MISS or kind[i] == WRITE:
            first[step[i] + 1] += 1


@nb.njit(cache=True, nogil=True)
def _l2_place(kind, step, keys, writes, sm, ratio, first, lines, out_writes, out_sm, out_step):
    """Write one cache's forwarded accesses at their step's next free places (``first``, advanced)."""
    for i in range(kind.size):
        if kind[i] == MISS or kind[i] == WRITE:
            t = step[i]
            p = first[t]
            first[t] = p + 1
            lines[p] = keys[i] // ratio
            out_writes[p] = writes[i]
            out_sm[p] = sm
            out_step[p] = t


def _level(cache: ParallelCache, buckets: int, res: LevelResult) -> None:
    """Add the outcomes of every access of ``cache`` to ``res``."""
    c, tot, sweep = _tally(cache.kind, cache.dist, cache.writes, cache.found_bits, buckets, cache.caps.size)
    res.c_read += c[0]
    res.c_write += c[1]
    res.reads += int(tot[0])
    res.writes += int(tot[1])
    res.read_hits += int(tot[2])
    res.write_hits += int(tot[3])
    res.misses += int(tot[4])
    res.transactions_out += int(tot[5])
    for j, blocks in enumerate(cache.caps[1:].tolist()):
        res.sweep[blocks] = res.sweep.get(blocks, 0) + int(sweep[j + 1])


def _defaults(gpu: GPUConfig, o: RDOptions) -> dict:
    l2_sets = o.l2_mshr_sets or math.ceil(gpu.l2_partitions / 2)
    if l2_sets > gpu.l2_partitions:
        raise InputError(f"l2_mshr_sets: at most one per partition ({gpu.l2_partitions}), not {l2_sets}")
    return {
        "l1_mshrs": o.l1_mshrs or gpu.l1.mshrs or 32,
        "l1_merges": o.l1_merges if o.l1_merges is not None else (gpu.l1.mshr_merges or 8),
        "l2_sets": l2_sets,
        "l2_mshrs": o.l2_mshrs or 32,
        "l2_merges": 8 if o.l2_merges is None else o.l2_merges,
    }


def analyse(workload: Workload, gpu: GPUConfig, options: RDOptions | None = None,
            *, keep_streams: bool = False) -> RDResult:
    """Run rdgc's physical model (Algorithm 1) on a workload.

    Parameters
    ----------
    workload : Workload
        The kernels, in launch order.
    gpu : GPUConfig
        The machine (``l1``, ``l2``, ``l2_partitions``, SMs and residency limits).
    options : RDOptions, optional
        Defaults: L1 on, adaptive A2 latency, ``rr`` mapping, shared counters.
    keep_streams : bool
        Keep each cache's access order and hits (for cross-checks).

    Returns
    -------
    RDResult

    Raises
    ------
    InputError
        For inconsistent options (see :class:`RDOptions`, :func:`golden.rd.physical.bank_map`).
    """
    with _small_pages():
        return _analyse(workload, gpu, options or RDOptions(), keep_streams)


@contextmanager
def _small_pages() -> Iterator[None]:
    """numpy's large arrays without its ``madvise`` for transparent huge pages, then as before.

    Why: the analysis allocates and frees arrays of hundreds of MB per workload. Where the
    kernel's ``transparent_hugepage/defrag`` is ``madvise`` (this machine's setting), a page
    fault in a huge-page-advised range may compact memory synchronously. Measured on
    ``rdgc/atax`` at the paper's size (docs/rd.md): 20.0 s wall, 6.9 s system time with the
    advice; 15.6 s and 2.4 s without; same results. The setting is numpy's process-wide one (its
    ``NUMPY_MADVISE_HUGEPAGE``), restored on exit.
    """
    toggle = getattr(getattr(np, "_core", None), "multiarray", None)
    toggle = getattr(toggle, "_set_madvise_hugepage", None)
    if toggle is None:  # another numpy: leave it as it is
        yield
        return
    before = toggle(False)
    try:
        yield
    finally:
        toggle(before)


def _analyse(workload: Workload, gpu: GPUConfig, o: RDOptions, keep_streams: bool) -> RDResult:
    dflt = _defaults(gpu, o)
    per_set = o.counting == "per-set"
    if gpu.l2.line_size < gpu.l1.line_size:
        raise InputError(f"l2.line_size: must be at least the L1's {gpu.l1.line_size} bytes, "
                         f"not {gpu.l2.line_size}")
    placements: list[Placement] = [place(logical_trace(k, gpu.l1.line_size), gpu, o.mapping, o.seed)
                                   for k in workload.kernels]
    n_sm = gpu.n_sm
    l2p = gpu.l2_partitions * gpu.l2.banks

    # -- L1 of every SM (Algorithm 2) ---------------------------------------------------------
    caches: list[ParallelCache] = []
    offsets = np.zeros((n_sm, len(placements) + 1), np.int64)
    for s in range(n_sm):
        parts = [p.sm_range(s) for p in placements]
        offsets[s, 1:] = np.cumsum([b - a for a, b in parts])
        lines = np.concatenate([p.lines[a:b] for p, (a, b) in zip(placements, parts, strict=True)])
        writes = np.concatenate([p.write[a:b] for p, (a, b) in zip(placements, parts, strict=True)])
        warps = np.concatenate([p.warp[a:b] for p, (a, b) in zip(placements, parts, strict=True)])
        bank, group, hit_limit, n_banks = bank_map(gpu.l1, 1, lines, per_set)
        caches.append(ParallelCache(
            lines, group, bank, writes, warps, n_banks=n_banks, ports=gpu.l1.ports,
            mshr_set_of_bank=np.zeros(n_banks, np.int64), entries=dflt["l1_mshrs"],
            merges=dflt["l1_merges"], hit_limit=hit_limit, latency=o.latency, write_evict=True,
            bypass=not o.l1, sweep=o.l1_sweep, depth=max(o.l1_buckets or 0, hit_limit, *o.l1_sweep)))
    l1_buckets = max(o.l1_buckets or 0, caches[0].hit_limit) if caches else 1
    l1 = LevelResult(np.zeros(l1_buckets + 1, np.int64), np.zeros(l1_buckets + 1, np.int64),
                     caches[0].hit_limit if caches else 1)
    start = 0
    kernel_start = np.zeros(len(placements), np.int64)  # first L1 step of every kernel
    for k, p in enumerate(placements):
        scale = p.active_sms / l2p
        kernel_start[k] = start
        end = start
        for s in range(n_sm):
            lists = p.list_ptr[p.sm_lists[s]:p.sm_lists[s + 1] + 1]
            if lists.size > 1:
                end = max(end, caches[s].run(lists - lists[0] + offsets[s, k], start, scale))
        l1.steps += end - start
        start = end
    for c in caches:
        _level(c, l1_buckets, l1)
        l1.reservation_failures += c.reservation_failures
        l1.merges += c.merges

    # -- the L2 trace (Algorithm 1 line 5) --------------------------------------------------
    # Kernel k's steps all precede kernel k + 1's, so (kernel, step, SM, index) order is
    # (step, SM, index) order: a counting sort by step of the SMs' forwarded accesses, taken
    # SM by SM in index order (stable), in two compiled passes.
    n_steps = max((int(c.step.max()) + 1 for c in caches if c.step.size), default=0)
    first = np.zeros(n_steps + 1, np.int64)
    for c in caches:
        _l2_count(c.kind, c.step, first)
    np.cumsum(first, out=first)
    n_l2 = int(first[-1])
    line_dtype = caches[0].keys_orig.dtype if caches else np.dtype(np.int64)
    ratio = line_dtype.type(gpu.l2.line_size // gpu.l1.line_size)  # the lines' own integer type
    l2_lines = np.empty(n_l2, line_dtype)
    l2_writes = np.empty(n_l2, np.bool_)
    sm_col = np.empty(n_l2, np.int64)
    step = np.empty(n_l2, np.int64)
    for sm, c in enumerate(caches):
        _l2_place(c.kind, c.step, c.keys_orig, c.writes, sm, ratio, first, l2_lines, l2_writes, sm_col, step)
    bank, group, hit_limit, n_banks = bank_map(gpu.l2, gpu.l2_partitions, l2_lines, per_set)
    mset = (np.arange(n_banks) // gpu.l2.banks) * dflt["l2_sets"] // gpu.l2_partitions
    l2c = ParallelCache(l2_lines, group, bank, l2_writes, sm_col, n_banks=n_banks, ports=gpu.l2.ports,
                        mshr_set_of_bank=mset, entries=dflt["l2_mshrs"], merges=dflt["l2_merges"],
                        hit_limit=hit_limit, latency=o.latency, write_evict=False, sweep=o.l2_sweep,
                        depth=max(o.l2_buckets or 0, hit_limit, *o.l2_sweep))
    l2_buckets = max(o.l2_buckets or 0, hit_limit)
    l2 = LevelResult(np.zeros(l2_buckets + 1, np.int64), np.zeros(l2_buckets + 1, np.int64), hit_limit)
    new_list = np.r_[True, step[1:] != step[:-1]][: step.size]
    list_ptr = np.r_[np.flatnonzero(new_list), step.size].astype(np.int64)
    list_kernel = np.searchsorted(kernel_start, step[new_list], side="right") - 1
    kernel_lists = np.searchsorted(list_kernel, np.arange(len(placements) + 1))
    start = 0
    for k in range(len(placements)):
        lists = list_ptr[kernel_lists[k]:kernel_lists[k + 1] + 1]
        if lists.size > 1:
            end = l2c.run(lists, start)
            l2.steps += end - start
            start = end
    _level(l2c, l2_buckets, l2)
    l2.reservation_failures, l2.merges = l2c.reservation_failures, l2c.merges

    result = RDResult(l1=l1 if o.l1 else None, l2=l2,
                      accesses=int(sum(c.keys.size for c in caches) + l2c.keys.size))
    if keep_streams:
        def stream(c: ParallelCache) -> tuple[np.ndarray, ...]:
            srt = np.argsort(c.step, kind="stable")
            return c.keys_orig[srt], c.writes[srt], _found(c)[srt], c.step[srt]
        result.streams = {"l1": [stream(c) for c in caches], "l2": stream(l2c)}
    return result
