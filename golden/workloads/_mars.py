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

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Space
from golden.workloads._common import DeviceMemory, PCs

__all__ = ["BLOCK", "MapPhase", "Emitter", "prefix_sum_kernels", "REGS"]

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


@dataclass
class Emitter:
    """``EmitInterCount`` (count pass) or ``EmitIntermediate`` (map pass) for one launch.

    The application's map function calls :meth:`emit` with the lanes that emit
    and the shared-memory addresses of the key and value it emits.
    """

    kb: KernelBuilder
    pcs: PCs
    prefix: str
    arrays: dict[str, int]
    key_size: int
    val_size: int
    counting: bool
    tid: np.ndarray
    #: Emits so far per thread of the launch.
    count: np.ndarray = field(init=False)
    #: Exclusive prefix sums of the count pass per thread: pairs, key bytes, value
    #: bytes (map pass only).
    ps_counts: np.ndarray | None = None
    ps_key: np.ndarray | None = None
    ps_val: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.count = np.zeros(self.kb.n_threads, dtype=np.int64)

    def _pc(self, label: str) -> int:
        return self.pcs(f"{self.prefix}:{label}")

    def emit(self, active: np.ndarray, key_smem: np.ndarray | None = None,
             val_smem: np.ndarray | None = None) -> None:
        """One emit by every ``active`` lane.

        Parameters
        ----------
        active : numpy.ndarray
            ``bool[n_threads]``.
        key_smem, val_smem : numpy.ndarray, optional
            Shared-memory byte address of the key and value (map pass).
        """
        kb, a = self.kb, self.arrays
        t = self.tid
        if self.counting:
            for name, label in (("interKeysSizePerTask", "keys"), ("interValsSizePerTask", "vals"),
                                ("interCountPerTask", "count")):
                kb.load(self._pc(f"ld_{label}"), a[name] + 4 * t, active=active)
                kb.compute(1, active=active)
                kb.store(self._pc(f"st_{label}"), a[name] + 4 * t, active=active)
            self.count += active
            return
        j = self.count
        kb.load(self._pc("ld_keyValOffsets"), a["keyValOffsets"] + 8 * t, active=active, width=8)
        kb.load(self._pc("ld_psKeySizes"), a["psKeySizes"] + 4 * t, active=active)
        kb.load(self._pc("ld_psValSizes"), a["psValSizes"] + 4 * t, active=active)
        kb.compute(4, active=active)  # the two destination pointers
        # Fixed-size keys and values: a thread's j-th pair sits j sizes into its range.
        key_dst = a["interKeys"] + self.ps_key + j * self.key_size
        val_dst = a["interVals"] + self.ps_val + j * self.val_size
        for src, dst, size, label in ((key_smem, key_dst, self.key_size, "key"),
                                      (val_smem, val_dst, self.val_size, "val")):
            for i in range(size):  # for (i = 0; i < size; ++i) pSet[i] = s[i];
                kb.compute(2, active=active)  # loop increment and branch
                kb.load(self._pc(f"ld_{label}_byte"), src + i, active=active, width=1, space=_SH)
                kb.store(self._pc(f"st_{label}_byte"), dst + i, active=active, width=1)
        kb.compute(2, active=active)
        kb.store(self._pc("st_keyValOffsets"), a["keyValOffsets"] + 8 * t, active=active, width=8)
        kb.load(self._pc("ld_curIndex"), a["curIndex"] + 4 * t, active=active)
        kb.load(self._pc("ld_psCounts"), a["psCounts"] + 4 * t, active=active)
        cur = a["interOffsetSizes"] + 16 * (self.ps_counts + j)
        kb.load(self._pc("ld_offsets_cur"), cur, active=active, width=16)
        kb.load(self._pc("ld_offsets_prev"), cur - 16, active=active, width=16)
        kb.compute(6, active=active)  # if (l_curIndex != 0): two sums; the sizes
        kb.store(self._pc("st_offsets_cur"), cur, active=active, width=16)
        kb.compute(1, active=active)
        kb.store(self._pc("st_curIndex"), a["curIndex"] + 4 * t, active=active)
        self.count += active


#: ``map_fn(kb, pcs, prefix, tid, live, emitter)``: the application's map_count or map,
#: written for every thread ``tid`` of the launch; ``live`` are the threads with a record.
MapFn = Callable[[KernelBuilder, PCs, str, np.ndarray, np.ndarray, Emitter], None]


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
        Bytes of every intermediate key and value the application emits.
    regs : dict
        Registers per thread of ``MapperCount`` and ``Mapper``.
    """

    mem: DeviceMemory
    pcs: PCs
    records: int
    key_size: int
    val_size: int
    out_key_size: int
    out_val_size: int
    regs: dict

    def __post_init__(self) -> None:
        self.n_blocks = -(-self.records // BLOCK)
        self.threads = self.n_blocks * BLOCK  # h_actualNumThreads
        m = self.mem
        self.arrays = {
            "inputKeys": m.alloc("d_inputKeys", self.records * self.key_size),
            "inputVals": m.alloc("d_inputVals", self.records * self.val_size),
            "inputOffsetSizes": m.alloc("d_inputOffsetSizes", self.records * 16),
            "interKeysSizePerTask": m.alloc("d_interKeysSizePerTask", 4 * self.threads),
            "interValsSizePerTask": m.alloc("d_interValsSizePerTask", 4 * self.threads),
            "interCountPerTask": m.alloc("d_interCountPerTask", 4 * self.threads),
        }

    def key_addr(self, rec: np.ndarray) -> np.ndarray:
        """``inputKeys + inputOffsetSizes[rec].x``: record ``rec``'s key struct."""
        return self.arrays["inputKeys"] + rec * self.key_size

    def val_addr(self, rec: np.ndarray) -> np.ndarray:
        """``inputVals + inputOffsetSizes[rec].z``: record ``rec``'s value struct."""
        return self.arrays["inputVals"] + rec * self.val_size

    def _launch(self, name: str, counting: bool, shared: int,
                ps: tuple | None) -> tuple[KernelBuilder, Emitter, np.ndarray, np.ndarray]:
        kb = KernelBuilder(name, grid=(self.n_blocks,), block=(BLOCK,), shared_bytes=shared,
                           regs_per_thread=self.regs[name])
        tid = kb.gtid  # TID = BLOCK_ID * blockDim.x + threadIdx.x on a 1-D grid
        live = tid < self.records  # index * recordsPerTask < recordNum
        em = Emitter(kb, self.pcs, name, self.arrays, self.out_key_size, self.out_val_size,
                     counting, tid)
        if ps is not None:
            em.ps_counts, em.ps_key, em.ps_val = ps
        kb.compute(6)  # TID, the bound check, recordBase and terminate
        return kb, em, tid, live

    def _record(self, kb: KernelBuilder, prefix: str, tid, live) -> None:
        kb.compute(3, active=live)  # loop bound, cindex
        kb.load(self.pcs(f"{prefix}:ld_inputOffsetSizes"), self.arrays["inputOffsetSizes"] + 16 * tid,
                active=live, width=16)
        kb.compute(2, active=live)  # key and val pointers

    def kernels(self, map_count: MapFn, map_fn: MapFn) -> tuple[list[KernelTrace], np.ndarray]:
        """``MapperCount``, the three prefix sums and ``Mapper``.

        Returns the launches and each thread's number of emitted pairs.
        """
        kb, em, tid, live = self._launch("MapperCount", True, 0, None)
        self._record(kb, "MapperCount", tid, live)
        map_count(kb, self.pcs, "MapperCount", tid, live, em)
        out = [kb.build()]
        counts = em.count
        m, a = self.mem, self.arrays
        # preallocBlockSums: one level of block sums, cudaMalloc'd again (same place) per call.
        sums = m.alloc("g_scanBlockSums", 4 * max(1, -(-self.threads // (2 * SCAN_BLOCK))))
        for src, dst in (("interKeysSizePerTask", "psKeySizes"),
                         ("interValsSizePerTask", "psValSizes"),
                         ("interCountPerTask", "psCounts")):
            a[dst] = m.alloc(f"d_{dst}", 4 * self.threads)
            out += prefix_sum_kernels(self.threads, a[src], a[dst], sums, self.pcs)
        total = int(counts.sum())
        if total == 0:  # startMap returns before Mapper when nothing was emitted
            return out, counts
        a["interKeys"] = m.alloc("d_interKeys", total * self.out_key_size)
        a["interVals"] = m.alloc("d_interVals", total * self.out_val_size)
        a["interOffsetSizes"] = m.alloc("d_interOffsetSizes", 16 * total)
        a["keyValOffsets"] = m.alloc("d_keyValOffsets", 8 * self.threads)
        a["curIndex"] = m.alloc("d_curIndex", 4 * self.threads)
        ps_counts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        ps = (ps_counts, ps_counts * self.out_key_size, ps_counts * self.out_val_size)

        kb, em, tid, live = self._launch("Mapper", False, BLOCK * OUTPUT_BUF, ps)
        # l_psCounts = psCounts[index]; interOffsetSizes[l_psCounts] = {psKeySizes, ., psValSizes, .}
        kb.load(self.pcs("Mapper:ld_psCounts0"), a["psCounts"] + 4 * tid, active=live)
        kb.load(self.pcs("Mapper:ld_offsets0"), a["interOffsetSizes"] + 16 * ps_counts,
                active=live, width=16)
        kb.load(self.pcs("Mapper:ld_psKeySizes0"), a["psKeySizes"] + 4 * tid, active=live)
        kb.load(self.pcs("Mapper:ld_psValSizes0"), a["psValSizes"] + 4 * tid, active=live)
        kb.store(self.pcs("Mapper:st_offsets0"), a["interOffsetSizes"] + 16 * ps_counts,
                 active=live, width=16)
        self._record(kb, "Mapper", tid, live)
        map_fn(kb, self.pcs, "Mapper", tid, live, em)
        out.append(kb.build())
        return out, counts


def _pow2(n: int) -> bool:
    return n & (n - 1) == 0


def _floor_pow2(n: int) -> int:
    return 1 << (n.bit_length() - 1)


def prefix_sum_kernels(n: int, src: int, dst: int, block_sums: int, pcs: PCs) -> list[KernelTrace]:
    """The launches of ``prefexSum(src, dst, n)`` (``prescanArrayRecursive`` of MarsScan.cu).

    Blocks of ``2 * 256`` elements are scanned by ``prescan`` CTAs of 256
    threads that store their sums in ``block_sums``; a last, partial block gets
    its own ``prescan`` launch (power-of-two threads); the block sums are
    scanned in one CTA, and ``uniformAdd`` adds them back. One block's worth
    (``n <= 512``) is a single ``prescan``.

    Raises
    ------
    ValueError
        If ``n`` is not between 1 and ``512^2`` (the recursion would need a second
        level of block sums).
    """
    per_full = 2 * SCAN_BLOCK
    if not 1 <= n <= per_full * per_full:
        raise ValueError(f"n: must be from 1 to {per_full * per_full}, not {n}")
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
    out = [_prescan(grid, threads, src, dst, block_sums, pcs, n_valid=per)]
    last_threads = max(1, last // 2) if _pow2(last) else _floor_pow2(last)
    if np2:
        out.append(_prescan(1, last_threads, src, dst, block_sums, pcs, n_valid=last,
                            base=n - last, block_index=blocks - 1))
    out += prefix_sum_kernels(blocks, block_sums, block_sums, block_sums, pcs)
    out.append(_uniform_add(grid, SCAN_BLOCK, dst, block_sums, pcs, 0, 0))
    if np2:
        out.append(_uniform_add(1, last_threads, dst, block_sums, pcs, blocks - 1, n - last))
    return out


def _bank(i):
    return i + (i >> 4)  # index + CONFLICT_FREE_OFFSET(index)


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
