"""The Mars MapReduce framework's map phase on the GPU: ``MapperCount``, prefix sums, ``Mapper``.

Mars (He et al., PACT'08; ciao18's reference [8]) runs a MapReduce job as
a fixed sequence of kernels around the user's ``map_count``/``map``
functions. This module emits that sequence as written in ``MarsLib.cu`` and
``MarsScan.cu`` of the public Mars source (``wenbinf/Mars`` at f47db01,
``sample_apps/*/``; every sample application carries the same copy), with
the application's map function supplied by the caller:

1. ``MapperCount<<<ceil(records / 256), 256>>>``: thread ``TID`` (one record
   per thread, Mars' default ``numRecTaskMap = 1``) loads its record's
   ``int4`` offset/size entry, runs ``map_count``, and every
   ``EmitInterCount`` adds to three per-thread counters (load and store each).
2. ``prefexSum`` of the three counter arrays (``MarsScan.cu``, the
   work-efficient Blelloch scan of CUDPP): ``prescan`` over blocks of
   ``2 * 256`` elements in shared memory with block sums, the block sums
   scanned recursively, then ``uniformAdd``.
3. ``Mapper<<<same grid, 256, 256 * 5 * 4>>>``: thread ``TID`` seeds
   ``interOffsetSizes[psCounts[TID]]`` with its key/value offsets, loads its
   record's entry, runs ``map``, and every ``EmitIntermediate`` copies the
   key and value byte by byte from the thread's slot of the dynamic shared
   buffer to the intermediate buffers and appends an ``int4`` index entry.

``EmitIntermediate`` starts with a ``__syncthreads()`` inside the user's
data-dependent branch; the trace format has one barrier per CTA for all its
warps, which cannot express a barrier that only some threads reach, so that
barrier is not emitted (docs/workloads/ciao18.md). The scan's barriers are.

Memory-access conventions are those of :mod:`golden.workloads._rodinia`
(one load per element a statement reads; after a store to global memory,
global arrays are read again, since no pointer is ``__restrict__``); a
struct read as a whole (``int4``, ``int2``, the record's key and value
structs) is one load of its size.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Op, Space
from golden.workloads._common import DeviceMemory, PCs

__all__ = ["BLOCK", "MapPhase", "Emitter", "Records", "GroupPhase", "Groups", "ReducePhase",
           "prefix_sum_kernels", "block_sum_arrays", "count_scans", "memory_after", "sequence",
           "REGS", "SORT_REGS"]

#: ``DEFAULT_DIMBLOCK``: threads per CTA of every Mars kernel launched by MarsLib.
BLOCK = 256
#: ``BLOCK_SIZE`` of MarsScan.cu and its ``NUM_BANKS`` (bank-conflict padding).
SCAN_BLOCK = 256
NUM_BANKS = 16
#: ``GET_OUTPUT_BUF``: 5 ints of dynamic shared memory per thread in Mapper.
OUTPUT_BUF = 5 * 4

#: Registers per thread (ptxas -v, nvcc 13.0, sm_75, as :mod:`golden.workloads.ciao18_regs`,
#: on MarsScan.cu with cutil's macros stubbed). MapperCount and Mapper inline the
#: application's map function: the application module gives theirs.
#: ptxas also gives uniformAdd's ``__shared__ int uni`` as 16 bytes of shared memory.
REGS = {"prescan": 20, "uniformAdd": 16}

_SH = Space.SHARED
_GL = Space.GLOBAL


@dataclass
class Emitter:
    """``EmitInterCount``/``EmitIntermediate`` (map) or ``EmitCount``/``Emit`` (reduce) of one launch.

    The application's function calls :meth:`emit` with the lanes that emit,
    the addresses of the key and value they emit and, when the sizes vary,
    their sizes. ``arrays`` names the launch's buffers as the map phase does
    (the reduce phase passes its output buffers under the same names).
    """

    kb: KernelBuilder
    pcs: PCs
    prefix: str
    arrays: dict[str, int]
    key_size: int
    val_size: int
    counting: bool
    tid: np.ndarray
    #: ``Emit`` of MarsLib.cu (reduce), whose statements differ from ``EmitIntermediate``'s.
    reduce: bool = False
    #: Emits, key bytes and value bytes so far per thread of the launch.
    count: np.ndarray = field(init=False)
    key_bytes: np.ndarray = field(init=False)
    val_bytes: np.ndarray = field(init=False)
    #: Exclusive prefix sums of the count pass per thread: pairs, key bytes, value
    #: bytes (emitting pass only).
    ps_counts: np.ndarray | None = None
    ps_key: np.ndarray | None = None
    ps_val: np.ndarray | None = None
    #: Emitting pass: (output record index, tag, key size, value size) of every emit.
    log: list = field(default_factory=list)

    def __post_init__(self) -> None:
        n = self.kb.n_threads
        self.count = np.zeros(n, dtype=np.int64)
        self.key_bytes = np.zeros(n, dtype=np.int64)
        self.val_bytes = np.zeros(n, dtype=np.int64)

    def _pc(self, label: str) -> int:
        return self.pcs(f"{self.prefix}:{label}")

    def _sizes(self, key_size, val_size) -> tuple[np.ndarray, np.ndarray]:
        n = self.kb.n_threads
        ks = np.broadcast_to(np.asarray(self.key_size if key_size is None else key_size, np.int64), (n,))
        vs = np.broadcast_to(np.asarray(self.val_size if val_size is None else val_size, np.int64), (n,))
        return ks, vs

    def emit(self, active: np.ndarray, key_src: np.ndarray | None = None,
             val_src: np.ndarray | None = None, *, key_size=None, val_size=None,
             key_space: Space = Space.SHARED, val_space: Space = Space.SHARED,
             tag: np.ndarray | None = None) -> None:
        """One emit by every ``active`` lane.

        Parameters
        ----------
        active : numpy.ndarray
            ``bool[n_threads]``.
        key_src, val_src : numpy.ndarray, optional
            Byte address of the key and value (emitting pass).
        key_size, val_size : int or numpy.ndarray, optional
            Bytes of the key and value per lane (default: the emitter's sizes).
        key_space, val_space : Space
            Memory the key and value are copied from (shared: ``GET_OUTPUT_BUF``).
        tag : numpy.ndarray, optional
            Per lane, what the application emits (for the group phase's compare).
        """
        kb, a = self.kb, self.arrays
        t = self.tid
        ks, vs = self._sizes(key_size, val_size)
        if self.counting:
            rows = []
            for name, label in (("interKeysSizePerTask", "keys"), ("interValsSizePerTask", "vals"),
                                ("interCountPerTask", "count")):  # counter[index] += ...
                rows += [(Op.LOAD, self._pc(f"ld_{label}"), a[name] + 4 * t, 4, _GL, 0),
                         (Op.STORE, self._pc(f"st_{label}"), a[name] + 4 * t, 4, _GL, 1)]
            sequence(kb, rows, active)
            self.count += active
            self.key_bytes += np.where(active, ks, 0)
            self.val_bytes += np.where(active, vs, 0)
            return
        j = self.count
        if self.reduce:  # pKeySet = outputKeys + psKeySizes[index] + keyValOffsets[index].x; ...
            kb.load(self._pc("ld_psKeySizes"), a["psKeySizes"] + 4 * t, active=active)
            kb.load(self._pc("ld_kvo_x"), a["keyValOffsets"] + 8 * t, active=active)
            kb.load(self._pc("ld_psValSizes"), a["psValSizes"] + 4 * t, active=active)
            kb.load(self._pc("ld_kvo_y"), a["keyValOffsets"] + 8 * t + 4, active=active)
        else:
            sequence(kb, [(Op.LOAD, self._pc("ld_keyValOffsets"), a["keyValOffsets"] + 8 * t, 8, _GL, 0),
                          (Op.LOAD, self._pc("ld_psKeySizes"), a["psKeySizes"] + 4 * t, 4, _GL, 0),
                          (Op.LOAD, self._pc("ld_psValSizes"), a["psValSizes"] + 4 * t, 4, _GL, 0)],
                     active)
        kb.compute(4, active=active)  # the two destination pointers
        key_dst = a["interKeys"] + self.ps_key + self.key_bytes
        val_dst = a["interVals"] + self.ps_val + self.val_bytes
        for src, dst, size, space, label in ((key_src, key_dst, ks, key_space, "key"),
                                             (val_src, val_dst, vs, val_space, "val")):
            trips = int(size[active].max(initial=0))
            if not trips:
                continue
            # for (i = 0; i < size; ++i) pSet[i] = s[i]; (loop increment and branch: 2)
            i = np.arange(trips)[:, None]
            on = active[None, :] & (i < size[None, :])
            addrs = np.empty((2 * trips, kb.n_threads), np.int64)
            addrs[0::2], addrs[1::2] = src[None, :] + i, dst[None, :] + i
            kb.sequence(np.array([Op.LOAD, Op.STORE] * trips),
                        np.array([self._pc(f"ld_{label}_byte"), self._pc(f"st_{label}_byte")] * trips),
                        addrs, active=np.repeat(on, 2, axis=0), widths=1,
                        gaps=np.array([2, 0] * trips), space=np.array([int(space), int(_GL)] * trips))
        cur = a["interOffsetSizes"] + 16 * (self.ps_counts + j)
        if self.reduce:
            self._emit_reduce_index(active, cur, j)
        else:  # (gaps: the offsets' sums; if (l_curIndex != 0): two sums and the sizes; ++)
            sequence(kb, [
                (Op.STORE, self._pc("st_keyValOffsets"), a["keyValOffsets"] + 8 * t, 8, _GL, 2),
                (Op.LOAD, self._pc("ld_curIndex"), a["curIndex"] + 4 * t, 4, _GL, 0),
                (Op.LOAD, self._pc("ld_psCounts"), a["psCounts"] + 4 * t, 4, _GL, 0),
                (Op.LOAD, self._pc("ld_offsets_cur"), cur, 16, _GL, 0),
                (Op.LOAD, self._pc("ld_offsets_prev"), cur - 16, 16, _GL, 0),
                (Op.STORE, self._pc("st_offsets_cur"), cur, 16, _GL, 6),
                (Op.STORE, self._pc("st_curIndex"), a["curIndex"] + 4 * t, 4, _GL, 1)], active)
        rec = (self.ps_counts + j)[active]
        self.log.append((rec, (np.zeros(len(rec), np.int64) if tag is None else tag[active]),
                         ks[active], vs[active]))
        self.count += active
        self.key_bytes += np.where(active, ks, 0)
        self.val_bytes += np.where(active, vs, 0)

    def _emit_reduce_index(self, active: np.ndarray, cur: np.ndarray, j: np.ndarray) -> None:
        """``Emit``'s field-by-field updates: every statement after a store through an
        ``int4*`` reloads ``psCounts[index]`` and ``curIndex[index]`` (they may alias)."""
        kb, a, t = self.kb, self.arrays, self.tid
        for f in ("x", "y"):  # keyValOffsets[index].x += keySize; .y += valSize
            o = 0 if f == "x" else 4
            kb.load(self._pc(f"ld_kvo_{f}2"), a["keyValOffsets"] + 8 * t + o, active=active)
            kb.compute(1, active=active)
            kb.store(self._pc(f"st_kvo_{f}"), a["keyValOffsets"] + 8 * t + o, active=active)
        kb.load(self._pc("ld_curIndex"), a["curIndex"] + 4 * t, active=active)
        kb.compute(1, active=active)
        later = active & (j != 0)
        for f, (o1, o2) in (("x", (0, 4)), ("z", (8, 12))):
            self._index_operands(later, f"{f}1")
            kb.load(self._pc(f"ld_prev_{f}a"), cur - 16 + o1, active=later)
            kb.load(self._pc(f"ld_prev_{f}b"), cur - 16 + o2, active=later)
            kb.compute(1, active=later)
            kb.store(self._pc(f"st_cur_{f}"), cur + o1, active=later)
        for f, o in (("y", 4), ("w", 12)):
            self._index_operands(active, f)
            kb.store(self._pc(f"st_cur_{f}"), cur + o, active=active)
        kb.load(self._pc("ld_curIndex2"), a["curIndex"] + 4 * t, active=active)
        kb.compute(1, active=active)
        kb.store(self._pc("st_curIndex"), a["curIndex"] + 4 * t, active=active)

    def _index_operands(self, active: np.ndarray, label: str) -> None:
        """``outputOffsetSizes[psCounts[index] + curIndex[index]]``'s two index loads."""
        kb, a, t = self.kb, self.arrays, self.tid
        kb.load(self._pc(f"ld_psCounts_{label}"), a["psCounts"] + 4 * t, active=active)
        kb.load(self._pc(f"ld_curIndex_{label}"), a["curIndex"] + 4 * t, active=active)
        kb.compute(2, active=active)

    def records(self, n: int) -> Records:
        """The ``n`` records the emitting pass wrote, in output order (index entries' order)."""
        rec = np.concatenate([r for r, *_ in self.log]) if self.log else np.zeros(0, np.int64)
        order = np.argsort(rec, kind="stable")
        if len(rec) != n or not np.array_equal(rec[order], np.arange(n)):
            raise AssertionError("emits of the two passes differ")
        tag, ks, vs = (np.concatenate([e[i] for e in self.log])[order] for i in (1, 2, 3))
        a = self.arrays
        return Records(a["interKeys"], a["interVals"], a["interOffsetSizes"],
                       _exclusive(ks), ks.astype(np.int64), _exclusive(vs), vs.astype(np.int64),
                       tag)


def _exclusive(x: np.ndarray) -> np.ndarray:
    """Exclusive prefix sum (int64)."""
    x = np.asarray(x, np.int64)
    return np.concatenate(([0], np.cumsum(x)[:-1])) if len(x) else x.copy()


@dataclass
class Records:
    """Key/value records in device memory: the buffers and every record's ``int4`` entry.

    ``key_off``/``key_size``/``val_off``/``val_size`` are the entry's x, y, z, w;
    ``tag`` is what the application emitted (its compare looks it up).
    """

    keys: int
    vals: int
    offsets: int
    key_off: np.ndarray
    key_size: np.ndarray
    val_off: np.ndarray
    val_size: np.ndarray
    tag: np.ndarray

    def __len__(self) -> int:
        return len(self.key_off)


#: ``map_fn(kb, pcs, prefix, tid, live, emitter)``: the application's map_count or map,
#: written for every thread ``tid`` of the launch; ``live`` are the threads with a record.
MapFn = Callable[[KernelBuilder, PCs, str, np.ndarray, np.ndarray, Emitter], None]


def block_sum_arrays(mem: DeviceMemory, n: int, name: str) -> list[int]:
    """``preallocBlockSums(n)``: one block-sum array per level of the recursive scan."""
    out, elts = [], n
    while True:
        blocks = max(1, -(-elts // (2 * SCAN_BLOCK)))
        if blocks > 1:
            out.append(mem.alloc(name if not out else f"{name}{len(out)}", 4 * blocks))
        elts = blocks
        if elts <= 1:
            return out


def count_scans(mem: DeviceMemory, pcs: PCs, threads: int, arrays: dict[str, int],
                tag: str) -> list[KernelTrace]:
    """The three ``prefexSum`` calls of ``startMap``/``startReduce`` over the per-thread
    counters; allocates ``psKeySizes``, ``psValSizes``, ``psCounts`` in ``arrays``."""
    out = []
    for src, dst in (("interKeysSizePerTask", "psKeySizes"),
                     ("interValsSizePerTask", "psValSizes"),
                     ("interCountPerTask", "psCounts")):
        # prefexSum: preallocBlockSums, the scan, deallocBlockSums (cudaMalloc'd again each call;
        # allocated once here).
        if "g_scanBlockSums" not in arrays:
            arrays["g_scanBlockSums"] = block_sum_arrays(mem, threads, f"g_scanBlockSums{tag}")
        arrays[dst] = mem.alloc(f"d_{dst}{tag}", 4 * threads)
        out += prefix_sum_kernels(threads, arrays[src], arrays[dst], arrays["g_scanBlockSums"], pcs)
    return out


@dataclass
class MapPhase:
    """Device arrays and launches of Mars' ``startMap`` for ``records`` input records.

    Parameters
    ----------
    mem : DeviceMemory
        Allocator; ``startMap`` allocates in the order of the source.
    pcs : PCs
        PC numbering of the workload.
    records : int
        Input records.
    key_size, val_size : int
        Bytes of each record's key and value structs (``AddMapInputRecord``).
    out_key_size, out_val_size : int
        Bytes of every intermediate key and value the application emits (when
        fixed; the application may pass per-lane sizes to :meth:`Emitter.emit`).
    regs : dict
        Registers per thread of ``MapperCount`` and ``Mapper``.
    tag : str
        Suffix of the array names (a program that runs ``MapReduce`` more than once).
    """

    mem: DeviceMemory
    pcs: PCs
    records: int
    key_size: int
    val_size: int
    out_key_size: int
    out_val_size: int
    regs: dict
    tag: str = ""

    def __post_init__(self) -> None:
        self.n_blocks = -(-self.records // BLOCK)
        self.threads = self.n_blocks * BLOCK  # h_actualNumThreads
        m, s = self.mem, self.tag
        self.arrays = {
            "inputKeys": m.alloc(f"d_inputKeys{s}", self.records * self.key_size),
            "inputVals": m.alloc(f"d_inputVals{s}", self.records * self.val_size),
            "inputOffsetSizes": m.alloc(f"d_inputOffsetSizes{s}", self.records * 16),
            "interKeysSizePerTask": m.alloc(f"d_interKeysSizePerTask{s}", 4 * self.threads),
            "interValsSizePerTask": m.alloc(f"d_interValsSizePerTask{s}", 4 * self.threads),
            "interCountPerTask": m.alloc(f"d_interCountPerTask{s}", 4 * self.threads),
        }
        #: The intermediate records ``Mapper`` wrote (after :meth:`kernels`).
        self.inter: Records | None = None

    def key_addr(self, rec: np.ndarray) -> np.ndarray:
        """``inputKeys + inputOffsetSizes[rec].x``: record ``rec``'s key struct."""
        return self.arrays["inputKeys"] + rec * self.key_size

    def val_addr(self, rec: np.ndarray) -> np.ndarray:
        """``inputVals + inputOffsetSizes[rec].z``: record ``rec``'s value struct."""
        return self.arrays["inputVals"] + rec * self.val_size

    def kernels(self, map_count: MapFn, map_fn: MapFn) -> tuple[list[KernelTrace], np.ndarray]:
        """``MapperCount``, the three prefix sums and ``Mapper``.

        Returns the launches and each thread's number of emitted pairs; the
        intermediate records are then :attr:`inter`.
        """
        a = self.arrays
        kb, em = _task_launch("MapperCount", self.n_blocks, self.records, 0, self.regs,
                              self.pcs, a, self.out_key_size, self.out_val_size, True)
        tid = em.tid
        live = tid < self.records
        self._record(kb, "MapperCount", tid, live)
        map_count(kb, self.pcs, "MapperCount", tid, live, em)
        out = [kb.build()]
        counts, key_bytes, val_bytes = em.count, em.key_bytes, em.val_bytes
        m, s = self.mem, self.tag
        out += count_scans(m, self.pcs, self.threads, a, s)
        total = int(counts.sum())
        if total == 0:  # startMap returns before Mapper when nothing was emitted
            return out, counts
        a["interKeys"] = m.alloc(f"d_interKeys{s}", int(key_bytes.sum()))
        a["interVals"] = m.alloc(f"d_interVals{s}", int(val_bytes.sum()))
        a["interOffsetSizes"] = m.alloc(f"d_interOffsetSizes{s}", 16 * total)
        a["keyValOffsets"] = m.alloc(f"d_keyValOffsets{s}", 8 * self.threads)
        a["curIndex"] = m.alloc(f"d_curIndex{s}", 4 * self.threads)
        ps = (_exclusive(counts), _exclusive(key_bytes), _exclusive(val_bytes))

        kb, em = _task_launch("Mapper", self.n_blocks, self.records, BLOCK * OUTPUT_BUF, self.regs,
                              self.pcs, a, self.out_key_size, self.out_val_size, False, ps)
        _seed_index_entry(kb, self.pcs, "Mapper", a, live, ps[0], whole=True)
        self._record(kb, "Mapper", tid, live)
        map_fn(kb, self.pcs, "Mapper", tid, live, em)
        out.append(kb.build())
        self.inter = em.records(total)
        return out, counts

    def _record(self, kb: KernelBuilder, prefix: str, tid, live) -> None:
        kb.compute(3, active=live)  # loop bound, cindex
        kb.load(self.pcs(f"{prefix}:ld_inputOffsetSizes"), self.arrays["inputOffsetSizes"] + 16 * tid,
                active=live, width=16)
        kb.compute(2, active=live)  # key and val pointers


def _task_launch(name: str, n_blocks: int, records: int, shared: int, regs: dict, pcs: PCs,
                 arrays: dict, key_size: int, val_size: int, counting: bool,
                 ps: tuple | None = None, reduce: bool = False) -> tuple[KernelBuilder, Emitter]:
    """A MapperCount/Mapper/ReducerCount/Reducer launch: one record per thread of 256."""
    kb = KernelBuilder(name, grid=(n_blocks,), block=(BLOCK,), shared_bytes=shared,
                       regs_per_thread=regs[name])
    tid = kb.gtid  # TID = BLOCK_ID * blockDim.x + threadIdx.x on a 1-D grid
    em = Emitter(kb, pcs, name, arrays, key_size, val_size, counting, tid, reduce)
    if ps is not None:
        em.ps_counts, em.ps_key, em.ps_val = ps
    kb.compute(6)  # TID, the bound check, recordBase and terminate
    return kb, em


def _seed_index_entry(kb: KernelBuilder, pcs: PCs, prefix: str, a: dict, live: np.ndarray,
                      ps_counts: np.ndarray, whole: bool) -> None:
    """The first index entry of every task: ``{psKeySizes[index], ., psValSizes[index], .}``.

    ``Mapper`` copies the ``int4`` through a local (``whole``); ``Reducer`` assigns
    ``.x`` and ``.z`` (reloading ``psCounts`` after the first store).
    """
    tid = kb.gtid
    entry = a["interOffsetSizes"] + 16 * ps_counts
    kb.load(pcs(f"{prefix}:ld_psCounts0"), a["psCounts"] + 4 * tid, active=live)
    if whole:
        kb.load(pcs(f"{prefix}:ld_offsets0"), entry, active=live, width=16)
        kb.load(pcs(f"{prefix}:ld_psKeySizes0"), a["psKeySizes"] + 4 * tid, active=live)
        kb.load(pcs(f"{prefix}:ld_psValSizes0"), a["psValSizes"] + 4 * tid, active=live)
        kb.store(pcs(f"{prefix}:st_offsets0"), entry, active=live, width=16)
        return
    kb.load(pcs(f"{prefix}:ld_psKeySizes0"), a["psKeySizes"] + 4 * tid, active=live)
    kb.store(pcs(f"{prefix}:st_offsets0_x"), entry, active=live)
    kb.load(pcs(f"{prefix}:ld_psCounts0b"), a["psCounts"] + 4 * tid, active=live)
    kb.load(pcs(f"{prefix}:ld_psValSizes0"), a["psValSizes"] + 4 * tid, active=live)
    kb.store(pcs(f"{prefix}:st_offsets0_z"), entry + 8, active=live)


def _pow2(n: int) -> bool:
    return n & (n - 1) == 0


def _floor_pow2(n: int) -> int:
    return 1 << (n.bit_length() - 1)


def prefix_sum_kernels(n: int, src: int, dst: int, block_sums, pcs: PCs) -> list[KernelTrace]:
    """The launches of ``prescanArray(dst, src, n)`` (``prescanArrayRecursive`` of MarsScan.cu).

    Blocks of ``2 * 256`` elements are scanned by ``prescan`` CTAs of 256
    threads that store their sums in the level's block-sum array; a last,
    partial block gets its own ``prescan`` launch (power-of-two threads); the
    block sums are scanned recursively (the next level's array holding theirs),
    and ``uniformAdd`` adds them back. One block's worth (``n <= 512``) is a
    single ``prescan``.

    Parameters
    ----------
    block_sums : int or sequence of int
        ``g_scanBlockSums``: the block-sum array of every level (one int: one level).

    Raises
    ------
    ValueError
        If ``n`` is not between 1 and ``512 ** (levels + 1)``.
    """
    sums = [int(block_sums)] if isinstance(block_sums, (int, np.integer)) else list(block_sums)
    per_full = 2 * SCAN_BLOCK
    limit = per_full ** (len(sums) + 1)
    if not 1 <= n <= limit:
        raise ValueError(f"n: must be from 1 to {limit}, not {n}")
    blocks = max(1, -(-n // per_full))
    if blocks > 1:
        threads = SCAN_BLOCK
    else:
        threads = n // 2 if _pow2(n) and n > 1 else max(1, _floor_pow2(n))
    per = 2 * threads
    last = n - (blocks - 1) * per
    np2 = last != per
    grid = max(1, blocks - np2)
    if blocks == 1:
        return [_prescan(1, threads, src, dst, None, pcs, n_valid=n)]
    level = sums[0]
    out = [_prescan(grid, threads, src, dst, level, pcs, n_valid=per)]
    last_threads = max(1, last // 2) if _pow2(last) else _floor_pow2(last)
    if np2:
        out.append(_prescan(1, last_threads, src, dst, level, pcs, n_valid=last,
                            base=n - last, block_index=blocks - 1))
    out += prefix_sum_kernels(blocks, level, level, sums[1:], pcs)
    out.append(_uniform_add(grid, SCAN_BLOCK, dst, level, pcs, 0, 0))
    if np2:
        out.append(_uniform_add(1, last_threads, dst, level, pcs, blocks - 1, n - last))
    return out


#: Launches already built per PC numbering: a scan of the same arrays and sizes has the
#: same trace (KMN's later MapReduce calls repeat the first one's allocations).
_LAUNCHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _memo(fn):
    """Share one :class:`KernelTrace` between launches with equal arguments (same PCs)."""
    def wrapper(*args, **kw):
        pcs = next(a for a in args if isinstance(a, PCs))
        key = (fn.__name__, tuple(a for a in args if not isinstance(a, PCs)), tuple(sorted(kw.items())))
        cache = _LAUNCHES.setdefault(pcs, {})
        if key not in cache:
            cache[key] = fn(*args, **kw)
        return cache[key]
    wrapper.__doc__ = fn.__doc__
    return wrapper


def sequence(kb: KernelBuilder, rows: list[tuple], active: np.ndarray | None = None) -> None:
    """Statements ``(op, pc, addr, width, space, gap[, active])`` of one block, in one
    :meth:`KernelBuilder.sequence` call; ``gap`` compute instructions precede each, and a
    row without its own ``active`` runs on ``active`` (all threads when None)."""
    if not rows:
        return
    n = kb.n_threads
    addrs = np.stack([np.broadcast_to(np.asarray(r[2], np.int64), (n,)) for r in rows])
    if active is None and all(len(r) == 6 for r in rows):
        act = None
    else:
        base = np.ones(n, bool) if active is None else np.asarray(active, bool)
        act = np.stack([np.broadcast_to(np.asarray(r[6], bool), (n,)) if len(r) > 6 else base
                        for r in rows])
    kb.sequence(np.array([r[0] for r in rows]), np.array([r[1] for r in rows]), addrs, active=act,
                widths=np.array([r[3] for r in rows]), gaps=np.array([r[5] for r in rows]),
                space=np.array([int(r[4]) for r in rows]))


def _bank(i):
    return i + (i >> 4)  # index + CONFLICT_FREE_OFFSET(index)


@_memo
def _prescan(grid: int, threads: int, src: int, dst: int, block_sums: int | None, pcs: PCs, *,
             n_valid: int, base: int = 0, block_index: int = 0) -> KernelTrace:
    """One ``prescan`` launch: each CTA scans ``2 * threads`` ints in shared memory.

    ``n_valid < 2 * threads`` is the ``isNP2`` variant, whose elements ``bi >= n``
    are neither loaded nor stored; ``base`` and ``block_index`` (0: from
    ``blockIdx.x``) are the kernel's ``baseIndex`` and ``blockIndex``.
    """
    per = 2 * threads
    shared = 4 * (per + per // NUM_BANKS)  # sizeof(int) * (numEltsPerBlock + extraSpace)
    kb = KernelBuilder("prescan", grid=(grid,), block=(threads,), shared_bytes=shared,
                       regs_per_thread=REGS["prescan"])
    t = kb.tx
    start = base if base else kb.bx * per  # __mul24(blockIdx.x, blockDim.x << 1)
    ai, bi = t, t + threads
    b_ok = bi < n_valid

    def pc(label):
        return pcs(f"prescan:{label}")

    kb.compute(8)  # indices and bank offsets
    kb.load(pc("ld_a"), src + 4 * (start + ai))
    kb.store(pc("st_sa"), 4 * _bank(ai), space=_SH)
    kb.load(pc("ld_b"), src + 4 * (start + bi), active=b_ok)  # (bi < n) ? g_idata[mem_bi] : 0
    kb.store(pc("st_sb"), 4 * _bank(bi), space=_SH)
    stride, d = 1, threads
    while d > 0:  # buildSum: up-sweep
        kb.barrier()
        on = t < d
        a = _bank(2 * stride * t + stride - 1)
        b = _bank(2 * stride * t + 2 * stride - 1)
        kb.compute(6, active=on)
        kb.load(pc("ld_up_a"), 4 * np.where(on, a, 0), active=on, space=_SH)
        kb.load(pc("ld_up_b"), 4 * np.where(on, b, 0), active=on, space=_SH)
        kb.store(pc("st_up_b"), 4 * np.where(on, b, 0), active=on, space=_SH)
        stride, d = stride * 2, d // 2
    last = t == 0  # clearLastElement
    top = np.full(kb.n_threads, 4 * _bank(per - 1))
    if block_sums is not None:
        kb.load(pc("ld_top"), top, active=last, space=_SH)
        at = block_index if block_index else kb.bx
        kb.store(pc("st_blockSums"), block_sums + 4 * at + 0 * kb.tx, active=last)
    kb.store(pc("st_top"), top, active=last, space=_SH)
    d = 1
    while d <= threads:  # scanRootToLeaves: down-sweep
        stride //= 2
        kb.barrier()
        on = t < d
        a = 4 * np.where(on, _bank(2 * stride * t + stride - 1), 0)
        b = 4 * np.where(on, _bank(2 * stride * t + 2 * stride - 1), 0)
        kb.compute(6, active=on)
        kb.load(pc("ld_down_a"), a, active=on, space=_SH)
        kb.load(pc("ld_down_b"), b, active=on, space=_SH)
        kb.store(pc("st_down_a"), a, active=on, space=_SH)
        kb.compute(1, active=on)
        kb.store(pc("st_down_b"), b, active=on, space=_SH)
        d *= 2
    kb.barrier()  # storeSharedChunkToMem
    kb.load(pc("ld_sa"), 4 * _bank(ai), space=_SH)
    kb.store(pc("st_a"), dst + 4 * (start + ai))
    kb.load(pc("ld_sb"), 4 * _bank(bi), active=b_ok, space=_SH)
    kb.store(pc("st_b"), dst + 4 * (start + bi), active=b_ok)
    return kb.build()


@_memo
def _uniform_add(grid: int, threads: int, data: int, uniforms: int, pcs: PCs, block_offset: int,
                 base: int) -> KernelTrace:
    """``uniformAdd<<<grid, threads>>>``: add block ``b``'s scanned sum to its ``2 * threads``
    elements (the second element's add is unconditional, scaled by a 0/1 factor)."""
    kb = KernelBuilder("uniformAdd", grid=(grid,), block=(threads,), shared_bytes=16,
                       regs_per_thread=REGS["uniformAdd"])
    t = kb.tx
    first = t == 0
    kb.load(pcs("uniformAdd:ld_uniforms"), uniforms + 4 * (kb.bx + block_offset), active=first)
    kb.store(pcs("uniformAdd:st_uni"), np.zeros(kb.n_threads, np.int64), active=first, space=_SH)
    kb.compute(3)  # address
    kb.barrier()
    addr = data + 4 * (kb.bx * 2 * threads + base + t)
    kb.load(pcs("uniformAdd:ld_a"), addr)
    kb.load(pcs("uniformAdd:ld_uni"), np.zeros(kb.n_threads, np.int64), space=_SH)
    kb.compute(1)
    kb.store(pcs("uniformAdd:st_a"), addr)
    kb.load(pcs("uniformAdd:ld_b"), addr + 4 * threads)
    kb.compute(3)  # (threadIdx.x + blockDim.x < n) * uni, add
    kb.store(pcs("uniformAdd:st_b"), addr + 4 * threads)
    return kb.build()


# -- group: MarsSort.cu ---------------------------------------------------------------

#: MarsSort.cu's constants: bitonic CTAs of 256 threads, chunks of 256 CTAs, 256 shared records.
SORT_THREADS = 256
CHUNK = 256 * 256
#: Launch shape of MarsSort.cu's element-wise helpers (``initialize``, ``getXYArray``, ...):
#: 512 CTAs of 512 threads per chunk of 262,144 elements; ``copyChunks``: 512 of 128.
HELPER_GRID, HELPER_BLOCK, COPY_BLOCK = 512, 512, 128

#: ``compare(kb, pc, on, ra, rb, addr_a, addr_b) -> int[n_threads]``: the application's
#: ``compare`` for the lanes ``on`` of records ``ra`` and ``rb`` (indices into the
#: :class:`Records` being grouped) whose keys are at byte addresses ``addr_a``, ``addr_b``;
#: ``pc(label)`` numbers its instructions. Returns -1, 0 or 1 per lane.
CompareFn = Callable[[KernelBuilder, Callable[[str], int], np.ndarray, np.ndarray, np.ndarray,
                      np.ndarray, np.ndarray], np.ndarray]

#: Registers per thread of MarsSort.cu's kernels that do not inline ``compare`` (ptxas -v,
#: nvcc 13.0, sm_75; the same in every application).
SORT_REGS = {"initialize_kernel": 10, "getIntYArray_kernel": 8, "getXYArray_kernel": 8,
             "getZWArray_kernel": 8, "setXYArray_kernel": 10, "setZWArray_kernel": 14,
             "copyChunks_kernel": 26, "writeBoundary_kernel": 10, "setBoundaryInt2_kernel": 10}


@dataclass
class Groups:
    """What ``startGroup`` leaves for the reduce phase: the sorted records and key ranges."""

    records: Records
    #: Original (intermediate) record of every sorted position.
    order: np.ndarray
    #: ``[start, end)`` of every distinct key (``interKeyListRange``), and its address.
    start: np.ndarray
    end: np.ndarray
    key_list_range: int


def _helper_chunks(n: int, block: int = HELPER_BLOCK) -> list[int]:
    """Start positions of the chunked launches of an element-wise helper over ``n`` elements."""
    size = HELPER_GRID * block
    return [i * size for i in range(max(0, -(-n // size)))]


@dataclass
class GroupPhase:
    """``startGroup``: ``sort_GPU`` of MarsSort.cu on the intermediate records.

    Parameters
    ----------
    mem, pcs
        Allocator and PC numbering.
    inter : Records
        The map phase's output.
    compare : CompareFn
        The application's ``compare``.
    regs : dict
        Registers per thread of the kernels that inline ``compare``
        (``bitonicKernel``, ``unitBitonicSortKernel``, ``partBitonicSortKernel``,
        ``bitonicSortSingleBlock_kernel``, ``getChunkBoundary_kernel``).
    tag : str
        Suffix of the array names.
    """

    mem: DeviceMemory
    pcs: PCs
    inter: Records
    compare: CompareFn
    regs: dict
    tag: str = ""

    def __post_init__(self) -> None:
        self.regs = {**SORT_REGS, **self.regs}
        self.out: list[KernelTrace] = []

    def _alloc(self, name: str, nbytes: int) -> int:
        return self.mem.alloc(f"{name}{self.tag}", nbytes)

    def _kb(self, name: str, grid: int | tuple, block: int, shared: int = 0) -> KernelBuilder:
        grid = grid if isinstance(grid, tuple) else (grid,)
        return KernelBuilder(name, grid=grid, block=(block,), shared_bytes=shared,
                             regs_per_thread=self.regs[name])

    def _pc(self, kernel: str) -> Callable[[str], int]:
        return lambda label: self.pcs(f"{kernel}:{label}")

    def kernels(self) -> tuple[list[KernelTrace], Groups]:
        """Every launch of ``startGroup`` and the groups it finds."""
        r = self.inter
        n = len(r)
        out_keys = self._alloc("d_outputKeys", int(r.key_size.sum()))
        out_vals = self._alloc("d_outputVals", int(r.val_size.sum()))
        out_offsets = self._alloc("d_outputOffsetSizes", 16 * n)
        self.sums = block_sum_arrays(self.mem, n, f"g_scanBlockSums_group{self.tag}")
        order = self._bitonic_sort(out_offsets)
        pa = self._alloc("d_PA", 8 * n)
        # Scatter the values, then the keys: getZW/XYArray, copyChunks, setZW/XYArray.
        val_off = self._scatter("ZW", "vals", r.vals, r.val_off[order], r.val_size[order], out_offsets,
                                pa, out_vals, 8)
        key_off = self._scatter("XY", "keys", r.keys, r.key_off[order], r.key_size[order], out_offsets,
                                pa, out_keys, 0)
        sorted_recs = Records(out_keys, out_vals, out_offsets, key_off, r.key_size[order], val_off,
                              r.val_size[order], r.tag[order])
        start = self._boundaries(sorted_recs, order)
        end = np.append(start[1:], n)
        rng = self._alloc("interKeyListRange", 8 * len(start))  # startGroup's copy to the device
        return self.out, Groups(sorted_recs, order, start, end, rng)

    # -- bitonicSortGPU ----------------------------------------------------------------

    def _bitonic_sort(self, d_out: int) -> np.ndarray:
        """``bitonicSortGPU``: returns the sorted order of the records."""
        r = self.inter
        n = len(r)
        level = max(0, (n - 1).bit_length())
        n_r = 1 << level
        if n <= SORT_THREADS:
            return self._single_block(d_out)
        n_r = max(n_r, SORT_THREADS)
        d_r = self._alloc("d_R", 16 * n_r)
        self._initialize(d_r, n_r)
        big = n > 256 * 1024
        blocks = n_r // SORT_THREADS
        grid = (blocks,) if blocks < (1 << 16) or not big else (1 << 15, blocks >> 15)
        R = np.full(n_r, -1, np.int64)
        R[:n] = np.arange(n)  # cudaMemcpy(d_R, d_Rin, rLen * sizeof(cmp_type_t))
        if not big:
            k = 2
            while k <= n_r:
                j = k // 2
                while j > 0:
                    self._bitonic_kernel(R, d_r, grid, k, j)
                    j //= 2
                k *= 2
        else:
            for chunk in range(n_r // CHUNK):
                self._shared_sort(R, d_r, chunk, None)
            k = 2 * SORT_THREADS
            while k <= n_r:
                j = k // 2
                while j > SORT_THREADS // 2:
                    self._bitonic_kernel(R, d_r, grid, k, j)
                    j //= 2
                for chunk in range(n_r // CHUNK):
                    self._shared_sort(R, d_r, chunk, k // SORT_THREADS)
                k *= 2
        return R[n_r - n:]  # cudaMemcpy(d_Rout, d_R + (numRecordsR - rLen), ...)

    def _initialize(self, d_r: int, n_r: int) -> None:
        """``initialize(d_R, numRecordsR, {-1, -1, ., .})``."""
        for start in _helper_chunks(n_r):
            kb = self._kb("initialize_kernel", HELPER_GRID, HELPER_BLOCK)
            pos = start + kb.gtid
            kb.compute(8)
            kb.store(self.pcs("initialize_kernel:st"), d_r + 16 * pos, active=pos < n_r, width=16)
            self.out.append(kb.build())

    def _compare(self, kb: KernelBuilder, kernel: str, on: np.ndarray, ra: np.ndarray,
                 rb: np.ndarray, key_addr: np.ndarray) -> np.ndarray:
        """``getCompareValue``: padding records (``x == -1``) sort first; ``compare`` otherwise."""
        kb.compute(4, active=on)  # v1 == -1, v2 == -1
        res = np.where(ra == rb, 0, np.where(ra < 0, -1, 1))
        real = on & (ra >= 0) & (rb >= 0)
        if real.any():
            a, b = np.where(real, ra, 0), np.where(real, rb, 0)
            got = self.compare(kb, self._pc(kernel), real, a, b, key_addr[a], key_addr[b])
            res = np.where(real, got, res)
        return np.where(on, res, 0)

    def _bitonic_kernel(self, R: np.ndarray, d_r: int, grid: tuple, k: int, j: int) -> None:
        """``bitonicKernel<<<gridSort, 256>>>(..., k, j)``: one compare-exchange step in global memory."""
        kb = self._kb("bitonicKernel", grid, SORT_THREADS)
        pc = self._pc("bitonicKernel")
        i = kb.gtid
        ixj = i ^ j
        on = ixj > i
        kb.compute(6)
        sequence(kb, [(Op.LOAD, pc("ld_R"), d_r + 16 * i, 16, _GL, 0),
                      (Op.LOAD, pc("ld_Rixj"), d_r + 16 * ixj, 16, _GL, 0)], on)
        kb.compute(2, active=on)  # (dataIdx & k) == 0
        ra, rb = R[i], R[ixj]
        c = self._compare(kb, "bitonicKernel", on, ra, rb, self.inter.keys + self.inter.key_off)
        kb.compute(1, active=on)
        swap = on & np.where((i & k) == 0, c == 1, c == -1)
        sequence(kb, [(Op.STORE, pc("st_R"), d_r + 16 * i, 16, _GL, 0),
                      (Op.STORE, pc("st_Rixj"), d_r + 16 * ixj, 16, _GL, 0)], swap)
        R[i[swap]] = rb[swap]
        R[ixj[swap]] = ra[swap]
        self.out.append(kb.build())

    def _steps(self, kb: KernelBuilder, kernel: str, V: np.ndarray, pos: np.ndarray,
               ks: list[int], ascending, load_all: bool) -> None:
        """Compare-exchange steps in shared memory (``shared[tx]`` holds ``V[pos]``).

        ``ks`` are the merge sizes ``k`` (the ``j`` loop runs from ``k / 2``, or from 128
        when ``k`` is the partial merge's fixed 256); ``ascending(k)`` is the per-thread
        direction. ``load_all``: every thread loads ``shared[tx]`` and ``shared[ixj]``
        (unit/part kernels); otherwise only the compared ones do (single-block kernel).
        """
        pc = self._pc(kernel)
        key_addr = self.inter.keys + self.inter.key_off
        tx = kb.tid
        for k in ks:
            j = min(k, SORT_THREADS) // 2
            up = ascending(k)
            while j > 0:
                ixj = tx ^ j
                p = pos - tx + ixj
                on = ixj > tx
                kb.compute(4)
                sequence(kb, [(Op.LOAD, pc("ld_s_tx"), 16 * tx, 16, _SH, 0),
                              (Op.LOAD, pc("ld_s_ixj"), 16 * ixj, 16, _SH, 0)],
                         None if load_all else on)
                ra, rb = V[pos], V[p]
                c = self._compare(kb, kernel, on, ra, rb, key_addr)
                kb.compute(2, active=on)
                swap = on & np.where(up, c > 0, c < 0)
                sequence(kb, [(Op.STORE, pc("st_s_tx"), 16 * tx, 16, _SH, 0),
                              (Op.STORE, pc("st_s_ixj"), 16 * ixj, 16, _SH, 0)], swap)
                V[pos[swap]] = rb[swap]
                V[p[swap]] = ra[swap]
                kb.barrier()
                j //= 2

    def _shared_sort(self, R: np.ndarray, d_r: int, chunk: int, unit: int | None) -> None:
        """``unitBitonicSortKernel`` (``unit`` None: sort each 256 records, alternating
        directions) or ``partBitonicSortKernel`` (finish a merge of ``unit * 256``) on one chunk."""
        name = "unitBitonicSortKernel" if unit is None else "partBitonicSortKernel"
        kb = self._kb(name, CHUNK // SORT_THREADS, SORT_THREADS, SORT_THREADS * 16)
        pc = self._pc(name)
        tx = kb.tid
        data = chunk * CHUNK + kb.gtid  # chunkIdx * CHUNK_SIZE + bx * blockDim.x + tx
        bx = kb.gtid // SORT_THREADS
        kb.compute(8)
        kb.load(pc("ld_R"), d_r + 16 * data, width=16)
        kb.store(pc("st_s"), 16 * tx, width=16, space=_SH)
        kb.barrier()
        if unit is None:
            flip = ((SORT_THREADS * chunk + bx) & 1) == 1
            ks = [1 << e for e in range(1, 9)]
            self._steps(kb, name, R, data, ks, lambda k: ((tx & k) == 0) ^ flip, True)
        else:
            flip = (((SORT_THREADS * chunk + bx) // unit) & 1) == 1
            # k = NUM_THREADS_CHUNK: (tx & k) == 0 for every thread.
            self._steps(kb, name, R, data, [SORT_THREADS], lambda k: ~flip, True)
        kb.load(pc("ld_s_out"), 16 * tx, width=16, space=_SH)
        kb.store(pc("st_R"), d_r + 16 * data, width=16)
        self.out.append(kb.build())

    def _single_block(self, d_out: int) -> np.ndarray:
        """``bitonicSortSingleBlock_kernel<<<1, 256>>>``: at most 256 records, padded to 256."""
        n = len(self.inter)
        name = "bitonicSortSingleBlock_kernel"
        kb = self._kb(name, 1, SORT_THREADS, SORT_THREADS * 16)
        pc = self._pc(name)
        tid = kb.tid
        have = tid < n
        kb.compute(4)
        kb.load(pc("ld_values"), self.inter.offsets + 16 * tid, active=have, width=16)
        kb.store(pc("st_s"), 16 * tid, active=have, width=16, space=_SH)
        kb.store(pc("st_s_pad"), 16 * tid, active=~have, space=_SH)
        kb.barrier()
        V = np.where(have, tid, -1)
        ks = [1 << e for e in range(1, 9)]
        self._steps(kb, name, V, tid.copy(), ks, lambda k: (tid & k) == 0, False)
        first = SORT_THREADS - n
        out = tid >= first
        kb.compute(2)
        kb.load(pc("ld_s_out"), 16 * tid, active=out, width=16, space=_SH)
        kb.store(pc("st_output"), d_out + 16 * (tid - first), active=out, width=16)
        self.out.append(kb.build())
        return V[first:]

    # -- scatter: copyChunks --------------------------------------------------------------

    def _elementwise(self, name: str, n: int, body, block: int = HELPER_BLOCK) -> None:
        """One launch per chunk of an element-wise helper; ``body(kb, pos, live)``."""
        for start in _helper_chunks(n, block):
            kb = self._kb(name, HELPER_GRID, block)
            pos = start + kb.gtid
            kb.compute(8)  # resultID, pos, the bound check
            body(kb, np.minimum(pos, max(n - 1, 0)), pos < n)
            self.out.append(kb.build())

    def _scatter(self, xy: str, what: str, src: int, off: np.ndarray, size: np.ndarray,
                 d_ptr: int, pa: int, dest: int, field_at: int) -> np.ndarray:
        """``get{xy}Array``, ``copyChunks`` and ``set{xy}Array``: copy every sorted record's
        key (or value) to ``dest`` in sorted order; returns the new offsets."""
        n = len(off)
        get, put = f"get{xy}Array_kernel", f"set{xy}Array_kernel"

        def get_body(kb, pos, live):
            kb.load(self.pcs(f"{get}:ld_in"), d_ptr + 16 * pos, active=live, width=16)
            kb.store(self.pcs(f"{get}:st_out"), pa + 8 * pos, active=live, width=8)
        self._elementwise(get, n, get_body)
        d_size = self._alloc(f"d_size_{what}", 4 * n)

        def size_body(kb, pos, live):
            kb.load(self.pcs("getIntYArray_kernel:ld_in"), pa + 8 * pos, active=live, width=8)
            kb.store(self.pcs("getIntYArray_kernel:st_out"), d_size + 4 * pos, active=live)
        self._elementwise("getIntYArray_kernel", n, size_body)
        d_sum = self._alloc(f"d_sum_{what}", 4 * n)
        self.out += prefix_sum_kernels(n, d_size, d_sum, self.sums, self.pcs)
        new = _exclusive(size)

        def copy_body(kb, pos, live):
            pc = self._pc("copyChunks_kernel")
            kb.load(pc("ld_Rin"), pa + 8 * pos, active=live, width=8)
            kb.load(pc("ld_sum"), d_sum + 4 * pos, active=live)
            kb.compute(4, active=live)
            sz = np.where(live, size[pos], 0)
            for i in range(int(sz.max(initial=0))):  # dest[i + startWritePos] = source[i + offset]
                on = i < sz
                kb.compute(3, active=on)
                kb.load(pc("ld_byte"), src + off[pos] + i, active=on, width=1)
                kb.store(pc("st_byte"), dest + new[pos] + i, active=on, width=1)
            kb.compute(2, active=live)
            kb.store(pc("st_Rin"), pa + 8 * pos, active=live, width=8)
        self._elementwise("copyChunks_kernel", n, copy_body, COPY_BLOCK)

        def set_body(kb, pos, live):
            kb.load(self.pcs(f"{put}:ld_in"), d_ptr + 16 * pos, active=live, width=16)
            kb.load(self.pcs(f"{put}:ld_value"), pa + 8 * pos, active=live, width=8)
            kb.store(self.pcs(f"{put}:st_in"), d_ptr + 16 * pos, active=live, width=16)
        self._elementwise(put, n, set_body)
        return new

    # -- getChunkBoundary -----------------------------------------------------------------

    def _boundaries(self, s: Records, order: np.ndarray) -> np.ndarray:
        """``getChunkBoundary``: flag each sorted record whose key differs from its left
        neighbour's (compared in the output key buffer), scan, write the boundaries."""
        n = len(s)
        d_start = self._alloc("d_startArray", 4 * n)
        key_addr = np.zeros(len(self.inter), np.int64)
        key_addr[order] = s.keys + s.key_off  # compare() sees the sorted copy of each key
        flags = np.zeros(n, bool)
        name = "getChunkBoundary_kernel"

        def flag_body(kb, pos, live):
            first = live & (pos == 0)
            rest = live & (pos > 0)
            left = np.maximum(pos - 1, 0)
            kb.load(self.pcs(f"{name}:ld_cur"), s.offsets + 16 * pos, active=rest, width=16)
            kb.load(self.pcs(f"{name}:ld_left"), s.offsets + 16 * left, active=rest, width=16)
            c = self._compare(kb, name, rest, order[pos], order[left], key_addr)
            flags[pos[live]] = (first | (c != 0))[live]
            kb.compute(2, active=live)
            kb.store(self.pcs(f"{name}:st_flag"), d_start + 4 * pos, active=live)
        self._elementwise(name, n, flag_body)
        d_sum = self._alloc("d_startSumArray", 4 * n)
        self.out += prefix_sum_kernels(n, d_start, d_sum, self.sums, self.pcs)
        start = np.flatnonzero(flags)
        write = np.cumsum(flags) - flags
        d_bound = self._alloc("d_boundary", 4 * len(start))

        def write_body(kb, pos, live):
            kb.load(self.pcs("writeBoundary_kernel:ld_flag"), d_start + 4 * pos, active=live)
            kb.load(self.pcs("writeBoundary_kernel:ld_sum"), d_sum + 4 * pos, active=live)
            hit = live & flags[pos]
            kb.compute(1, active=live)
            kb.store(self.pcs("writeBoundary_kernel:st"), d_bound + 4 * write[pos], active=hit)
        self._elementwise("writeBoundary_kernel", n, write_body)
        d_range = self._alloc("d_outputKeyListRange", 8 * len(start))
        n_keys = len(start)

        def range_body(kb, pos, live):
            kb.load(self.pcs("setBoundaryInt2_kernel:ld_x"), d_bound + 4 * pos, active=live)
            nxt = live & (pos + 1 != n_keys)
            kb.compute(2, active=live)
            kb.load(self.pcs("setBoundaryInt2_kernel:ld_y"), d_bound + 4 * (pos + 1), active=nxt)
            kb.store(self.pcs("setBoundaryInt2_kernel:st"), d_range + 8 * pos, active=live, width=8)
        self._elementwise("setBoundaryInt2_kernel", n_keys, range_body)
        return start


# -- reduce: startReduce --------------------------------------------------------------

#: ``reduce_fn(kb, pcs, prefix, tid, live, emitter, groups)``: the application's
#: reduce_count or reduce for every thread (one key per thread); ``groups`` the input.
ReduceFn = Callable[[KernelBuilder, PCs, str, np.ndarray, np.ndarray, Emitter, Groups], None]


@dataclass
class ReducePhase:
    """``startReduce``: ``ReducerCount``, three prefix sums and ``Reducer``, one key per thread.

    Parameters
    ----------
    mem, pcs
        Allocator and PC numbering.
    groups : Groups
        The group phase's output.
    out_key_size, out_val_size : int
        Bytes of every output key and value.
    regs : dict
        Registers per thread of ``ReducerCount`` and ``Reducer``.
    tag : str
        Suffix of the array names.
    """

    mem: DeviceMemory
    pcs: PCs
    groups: Groups
    out_key_size: int
    out_val_size: int
    regs: dict
    tag: str = ""

    def kernels(self, reduce_count: ReduceFn,
                reduce_fn: ReduceFn) -> tuple[list[KernelTrace], Records | None]:
        """The launches, and the output records (None when ``reduce`` emits nothing)."""
        g, m, s = self.groups, self.mem, self.tag
        n_keys = len(g.start)
        n_blocks = -(-n_keys // BLOCK)
        threads = n_blocks * BLOCK
        # Emitter's names for the reduce phase's buffers (outputKeysSizePerTask, ...).
        a = {"interKeysSizePerTask": m.alloc(f"d_outputKeysSizePerTask{s}", 4 * threads),
             "interValsSizePerTask": m.alloc(f"d_outputValsSizePerTask{s}", 4 * threads),
             "interCountPerTask": m.alloc(f"d_outputCountPerTask{s}", 4 * threads)}
        kb, em = _task_launch("ReducerCount", n_blocks, n_keys, 0, self.regs, self.pcs, a,
                              self.out_key_size, self.out_val_size, True)
        live = em.tid < n_keys
        self._key_record(kb, "ReducerCount", live)
        reduce_count(kb, self.pcs, "ReducerCount", em.tid, live, em, g)
        out = [kb.build()]
        counts, key_bytes, val_bytes = em.count, em.key_bytes, em.val_bytes
        out += count_scans(m, self.pcs, threads, a, f"_reduce{s}")
        total = int(counts.sum())
        a["interKeys"] = m.alloc(f"d_outputKeys_reduce{s}", int(key_bytes.sum()))
        a["interVals"] = m.alloc(f"d_outputVals_reduce{s}", int(val_bytes.sum()))
        a["interOffsetSizes"] = m.alloc(f"d_outputOffsetSizes_reduce{s}", 16 * total)
        a["keyValOffsets"] = m.alloc(f"d_keyValOffsets_reduce{s}", 8 * threads)
        a["curIndex"] = m.alloc(f"d_curIndex_reduce{s}", 4 * threads)
        ps = (_exclusive(counts), _exclusive(key_bytes), _exclusive(val_bytes))
        kb, em = _task_launch("Reducer", n_blocks, n_keys, BLOCK * OUTPUT_BUF, self.regs, self.pcs,
                              a, self.out_key_size, self.out_val_size, False, ps, reduce=True)
        _seed_index_entry(kb, self.pcs, "Reducer", a, live, ps[0], whole=False)
        self._key_record(kb, "Reducer", live)
        reduce_fn(kb, self.pcs, "Reducer", em.tid, live, em, g)
        out.append(kb.build())
        # KMN's reduce counts one output per key but emits none: no output records then.
        emitted = int(em.count.sum())
        return out, (em.records(total) if emitted and emitted == total else None)

    def _key_record(self, kb: KernelBuilder, prefix: str, live: np.ndarray) -> None:
        """``interKeyListRange[cindex]`` and the group's first index entry."""
        g = self.groups
        t = np.where(live, kb.gtid, 0)
        kb.compute(3, active=live)
        kb.load(self.pcs(f"{prefix}:ld_range"), g.key_list_range + 8 * t, active=live, width=8)
        first = g.start[np.minimum(t, len(g.start) - 1)]
        kb.load(self.pcs(f"{prefix}:ld_offsets"), g.records.offsets + 16 * first, active=live,
                width=16)
        kb.compute(4, active=live)  # valCount, key and vals pointers


def memory_after(mem: DeviceMemory) -> DeviceMemory:
    """A fresh allocator starting after ``mem``'s arrays: a later ``MapReduce`` call's
    buffers, which ``cudaMalloc`` places where the previous call's freed ones were."""
    end = max((addr + -(-n // 256) * 256 for addr, n in mem.arrays.values()), default=0x1000_0000)
    return DeviceMemory(base=end)


class Strings:
    """The distinct ``'\\0'``-terminated strings an application's ``compare`` walks.

    Parameters
    ----------
    strings : list of bytes
        String ``i`` without its terminator.
    """

    def __init__(self, strings: list[bytes]) -> None:
        width = max((len(s) for s in strings), default=0) + 1
        self.table = np.zeros((len(strings), width), np.uint8)
        for i, s in enumerate(strings):
            self.table[i, :len(s)] = np.frombuffer(s, np.uint8)
        self.length = np.array([len(s) for s in strings], np.int64)

    def hash(self, size: np.ndarray | None = None) -> np.ndarray:
        """``hash_func(str, len)`` of every string (``len``: its length plus the
        terminator unless given): ``hash = (hash << 4) ^ (hash >> 28) ^ str[i]`` in ``int``."""
        n = self.length + 1 if size is None else np.asarray(size, np.int64)
        h = n.astype(np.int32)
        for i in range(int(n.max(initial=0))):
            c = self.table[:, i].astype(np.int32) if i < self.table.shape[1] else np.zeros_like(h)
            h = np.where(i < n, (h << np.int32(4)) ^ (h >> np.int32(28)) ^ c, h)
        return h

    def compare(self, kb: KernelBuilder, pc: Callable[[str], int], on: np.ndarray, sa: np.ndarray,
                sb: np.ndarray, addr_a: np.ndarray, addr_b: np.ndarray, *,
                b_after_a: bool = False) -> np.ndarray:
        """Walk strings ``sa`` and ``sb`` byte by byte while equal and not at the end; -1/0/1.

        Every trip of the loop condition loads a byte of each string (``b_after_a``:
        ``*b`` only once ``*a != '\\0'``, WordCount's order), 3 compute instructions.
        """
        lanes = np.flatnonzero(on)
        res = np.zeros(kb.n_threads, np.int64)
        if not lanes.size:
            return res
        a, b = self.table[sa[lanes]], self.table[sb[lanes]]
        stop = (a != b) | (a == 0)
        lcp = stop.argmax(axis=1)  # the terminator stops it at the latest
        ca, cb = a[np.arange(len(lanes)), lcp], b[np.arange(len(lanes)), lcp]
        res[lanes] = np.sign(ca.astype(np.int64) - cb.astype(np.int64))
        trips = lcp + 1
        k = int(trips.max())
        i = np.arange(k)[:, None]
        b_on = (i < trips) & ~((i == lcp) & (ca == 0)) if b_after_a else (i < trips)
        addrs = np.empty((2 * k, len(lanes)), np.int64)
        addrs[0::2] = addr_a[lanes] + i
        addrs[1::2] = addr_b[lanes] + i
        act = np.empty((2 * k, len(lanes)), bool)
        act[0::2] = i < trips
        act[1::2] = b_on
        kb.sequence(np.array([Op.LOAD, Op.LOAD] * k), np.array([pc("cmp_ld_str_a"), pc("cmp_ld_str_b")] * k),
                    addrs, active=act, widths=1, gaps=np.array([3, 0] * k), threads=kb.gtid[lanes])
        kb.compute(3, active=on)  # the two final tests and the return
        return res
