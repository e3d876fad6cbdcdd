"""tian15 ``sort``: AMD APP SDK 2.9 ``RadixSort`` of 65536 4-byte keys.

tian15 (Section 4.2) calls its sort "a custom microbenchmark implementing a
4-byte radix sort with high data reuse"; the emulator follows the AMD APP
SDK 2.9 sample ``RadixSort`` (``RadixSort_Kernels.cl``, ``RadixSort.cpp``;
the copy read is the SDK 3.0 one, whose kernels and host sequence are the
same), whose 65536-key limit is exactly tian15's input. Keys are sorted 8
bits at a time (``RADIX = 8``, four passes). Each pass launches

1. ``histogram`` (``elementCount`` work-items, groups of 256): one local
   256-bin histogram per group of 256 keys;
2. ``ScanArraysdim2``, ``prefixSum``, ``blockAddition``, ``ScanArraysdim1``,
   ``FixOffset`` (``RadixSort::runFixOffsetKernel``): a device-wide exclusive
   scan of the ``group x bin`` counts; ``prefixSum`` and ``blockAddition``
   run only when ``elementCount / 256 / GROUP_SIZE != 1``;
3. ``permute`` (``elementCount / 256`` work-items, groups of ``GROUP_SIZE =
   64``): each work-item walks its own 256 consecutive keys and scatters them
   to their ranks. Each work-item re-reads its own 1 KB of keys and of scanned
   buckets: the "high data reuse" of tian15.

The keys (``rand()`` in the sample) are drawn from ``numpy.random.default_rng
(seed)`` in ``[0, 2^31)``, glibc's ``RAND_MAX`` range; the emulator sorts them
to obtain every data-dependent address. Local sizes the host leaves to the
runtime (``NULL``) and the compute-count rule: ``docs/workloads/tian15_b.md``.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload
from golden.workloads._program import Program

__all__ = ["build", "null_local_size", "radix_sort_kernels", "sort_keys"]

SOURCE = ("AMD APP SDK 2.9 samples/opencl/cl/RadixSort/RadixSort_Kernels.cl (histogram, "
          "ScanArraysdim2, prefixSum, blockAddition, ScanArraysdim1, FixOffset, permute), "
          "RadixSort.cpp")

#: tian15 Table 2: 65536 keys, MI 76.2.
PAPER_N = 65536
RADIX = 8
RADICES = 1 << RADIX
GROUP_SIZE = 64  # RadixSort.hpp
MIN_N = GROUP_SIZE * RADICES  # setupRadixSort: elementCount is a multiple of this
_SH = Space.SHARED


def null_local_size(gx: int, gy: int = 1, limit: int = 256) -> tuple[int, int]:
    """Work-group size chosen for a ``NULL`` local size (the runtime's choice, not the source's).

    Fill x first: ``lx = min(gx, limit)``, then the largest ``ly`` dividing ``gy`` with
    ``lx * ly <= limit``. ``gx`` must be a power of two up to ``limit`` or a multiple of it.
    """
    lx = min(gx, limit)
    ly = max(d for d in range(1, min(gy, limit // lx) + 1) if gy % d == 0)
    return lx, ly


def sort_keys(n: int, seed: int) -> np.ndarray:
    """The sample's ``unsortedData``: ``n`` keys, ``rand()``-like in ``[0, 2^31)``."""
    return np.random.default_rng(seed).integers(0, 1 << 31, size=n, dtype=np.uint32)


def _histogram(n, keys_in, bits, a, pcs) -> KernelTrace:
    kb = KernelBuilder("histogram", (n // 256,), (256,), shared_bytes=256 * 4)
    rec = Program(kb, pcs, "histogram")
    lid, gid = kb.tx, kb.gtid
    digit = (keys_in >> np.uint32(bits)) & np.uint32(0xFF)
    rec.store("st_zero", lid * 4, space=_SH)
    rec.barrier()
    rec.compute(2)  # get_global_id
    rec.load("ld_key", a["in"] + gid * 4)
    rec.compute(2)  # (value >> shiftCount) & 0xFF
    rec.atomic("atom_inc", digit.astype(np.int64) * 4, space=_SH)
    rec.barrier()
    rec.compute(2)  # bucketPos = groupId*groupSize + localId
    rec.load("ld_bin", lid * 4, space=_SH)
    rec.store("st_bucket", a["histogramBinsBuf"] + (kb.bx * 256 + lid) * 4)
    return rec.build()


def _scan_tree(rec: Program, tid: np.ndarray, block_size: int) -> None:
    """The Hillis-Steele loop shared by ``ScanArraysdim2`` and ``ScanArraysdim1``."""
    dis = 1
    while dis < block_size:  # block_size is a kernel argument: not unrolled
        act = tid >= dis
        rec.compute(2 + 2)  # loop control; if (tidx >= dis)
        rec.compute(1, active=act)  # tidx - dis
        rec.load("tree.ld_left", (tid - dis) * 4, active=act, space=_SH)
        rec.load("tree.ld_self", tid * 4, active=act, space=_SH)
        rec.compute(1, active=act)
        rec.barrier()
        rec.store("tree.st", tid * 4, space=_SH)
        rec.barrier()
        dis *= 2


def _scan_tail(rec: Program, tid: np.ndarray, out_addr: np.ndarray) -> None:
    """``if (tid == 0) output[pos] = 0; else output[pos] = block[tid - 1];``

    Compiled as a predicated load and one store of the selected value.
    """
    rec.compute(2 + 1)  # compare, tid - 1
    rec.load("tail.ld_prev", (tid - 1) * 4, active=tid != 0, space=_SH)
    rec.compute(1)  # select
    rec.store("tail.st_out", out_addr)


def _scan_dim2(n, a, pcs) -> KernelTrace:
    g = n // 256  # numGroups in runFixOffsetKernel
    kb = KernelBuilder("ScanArraysdim2", (g // GROUP_SIZE, RADICES), (GROUP_SIZE, 1),
                       shared_bytes=GROUP_SIZE * 4)
    rec = Program(kb, pcs, "ScanArraysdim2")
    tidx = kb.tx
    gidx, gidy = kb.bx * GROUP_SIZE + kb.tx, kb.by
    gpos = (gidx << RADIX) + gidy
    group_index = kb.by * (g // GROUP_SIZE) + kb.bx
    rec.compute(4 + 2 + 3)  # get_global_id x2 (2 each), gpos, groupIndex
    rec.load("ld_in", a["histogramBinsBuf"] + gpos * 4)
    rec.store("st_block", tidx * 4, space=_SH)
    rec.barrier()
    rec.load("ld_block0", np.zeros_like(tidx), space=_SH)  # cache = block[0]
    _scan_tree(rec, tidx, GROUP_SIZE)
    rec.compute(1)  # block_size - 1
    rec.load("ld_last", np.full_like(tidx, (GROUP_SIZE - 1) * 4), space=_SH)
    rec.store("st_sum", a["sumBufferin"] + group_index * 4)
    _scan_tail(rec, tidx, a["scanedHistogramBinsBuf"] + gpos * 4)
    return rec.build()


def _prefix_sum(n, a, pcs) -> KernelTrace:
    stride = n // 256 // GROUP_SIZE
    lx, ly = null_local_size(stride, RADICES)
    kb = KernelBuilder("prefixSum", (stride // lx, RADICES // ly), (lx, ly))
    rec = Program(kb, pcs, "prefixSum")
    gidx, gidy = kb.bx * lx + kb.tx, kb.by * ly + kb.ty
    index = gidy * stride + gidx
    out = a["sumBufferout"] + index * 4
    rec.compute(4 + 2)  # get_global_id x2 (2 each), Index
    rec.store("st_zero", out)
    rec.compute(2 + 1)  # if (gidx > 0); gidy*stride (hoisted)
    for i in range(stride - 1):  # for (i = 0; i < gidx; i++): output[Index] += input[..]
        act = i < gidx
        rec.compute(2 + 1, active=act)  # loop control, + i
        rec.load("loop.ld_in", a["sumBufferin"] + (gidy * stride + i) * 4, active=act)
        rec.compute(1, active=act)  # output[Index] is forwarded from the previous store
        rec.store("loop.st_out", out, active=act)
    last = gidx == stride - 1
    rec.compute(3)  # stride - 1, compare, branch
    rec.compute(1, active=last)
    rec.load("ld_last", a["sumBufferin"] + (gidy * stride + stride - 1) * 4, active=last)
    rec.compute(1, active=last)
    rec.store("st_summary", a["summaryBUfferin"] + gidy * 4, active=last)
    return rec.build()


def _block_addition(n, a, pcs) -> KernelTrace:
    g = n // 256
    stride = g // GROUP_SIZE
    kb = KernelBuilder("blockAddition", (g // GROUP_SIZE, RADICES), (GROUP_SIZE, 1))
    rec = Program(kb, pcs, "blockAddition")
    gidx, gidy = kb.bx * GROUP_SIZE + kb.tx, kb.by
    gpos = gidy + (gidx << RADIX)
    rec.compute(4 + 2 + 2)  # get_global_id x2 (2 each), gpos, groupIndex
    rec.load("ld_sum", a["sumBufferout"] + (kb.by * stride + kb.bx) * 4)
    rec.load("ld_out", a["scanedHistogramBinsBuf"] + gpos * 4)
    rec.compute(1)
    rec.store("st_out", a["scanedHistogramBinsBuf"] + gpos * 4)
    return rec.build()


def _scan_dim1(n, a, pcs) -> KernelTrace:
    kb = KernelBuilder("ScanArraysdim1", (1,), (RADICES,), shared_bytes=RADICES * 4)
    rec = Program(kb, pcs, "ScanArraysdim1")
    tid = kb.tx
    src = a["summaryBUfferin"] if n // 256 // GROUP_SIZE != 1 else a["sumBufferin"]
    rec.compute(2)  # get_global_id
    rec.load("ld_in", src + tid * 4)
    rec.store("st_block", tid * 4, space=_SH)
    # cache = block[0] follows without a barrier; block[0] may alias block[tid]: loaded
    rec.load("ld_block0", np.zeros_like(tid), space=_SH)
    _scan_tree(rec, tid, RADICES)
    _scan_tail(rec, tid, a["summaryBUfferout"] + tid * 4)
    return rec.build()


def _fix_offset(n, a, pcs) -> KernelTrace:
    g = n // 256
    lx, ly = null_local_size(g, RADICES)
    kb = KernelBuilder("FixOffset", (g // lx, RADICES // ly), (lx, ly))
    rec = Program(kb, pcs, "FixOffset")
    gidx, gidy = kb.bx * lx + kb.tx, kb.by * ly + kb.ty
    gpos = gidy + (gidx << RADIX)
    rec.compute(4 + 2)  # get_global_id x2 (2 each), gpos
    rec.load("ld_out", a["scanedHistogramBinsBuf"] + gpos * 4)
    rec.load("ld_summary", a["summaryBUfferout"] + gidy * 4)
    rec.compute(1)
    rec.store("st_out", a["scanedHistogramBinsBuf"] + gpos * 4)
    return rec.build()


def _permute(n, keys_in, rank, bits, a, pcs) -> KernelTrace:
    kb = KernelBuilder("permute", (n // RADICES // GROUP_SIZE,), (GROUP_SIZE,),
                       shared_bytes=GROUP_SIZE * RADICES * 2)
    rec = Program(kb, pcs, "permute")
    lid, gid = kb.tx, kb.gtid
    i = np.arange(RADICES, dtype=np.int64)[:, None]
    elem = gid[None, :] * RADICES + i  # the key each work-item handles in iteration i
    digit = ((keys_in >> np.uint32(bits)) & np.uint32(0xFF)).astype(np.int64)[elem]
    rec.compute(2 + 3 + 1)  # get_global_id; bucketPos base; localId * RADICES
    for k in range(RADICES):  # constant trip count above 16: a loop
        rec.compute(2 + 2)  # loop control; + i twice
        rec.load("copy.ld_bucket", a["scanedHistogramBinsBuf"] + elem[k] * 4)
        rec.store("copy.st_shared", (lid * RADICES + k) * 2, width=2, space=_SH)
    rec.barrier()
    rec.compute(1)  # globalId * RADICES
    for k in range(RADICES):
        rec.compute(2 + 1)  # loop control; + i
        rec.load("ld_key", a["in"] + elem[k] * 4)
        rec.compute(2 + 1)  # shift and mask; localId*RADICES + value
        rec.load("ld_index", (lid * RADICES + digit[k]) * 2, width=2, space=_SH)
        # sortedData[index] = unsortedData[..]: the key is still in a register (no store
        # since it was loaded)
        rec.store("st_sorted", a["sortedDataBuf"] + rank[elem[k]] * 4)
        rec.compute(1)  # index + 1
        rec.store("st_index", (lid * RADICES + digit[k]) * 2, width=2, space=_SH)
        rec.barrier()
    return rec.build()


def radix_sort_kernels(keys: np.ndarray, mem: DeviceMemory, pcs: PCs) -> list[KernelTrace]:
    """Every launch of ``RadixSort::runCLKernels`` on ``keys`` (``uint32``).

    ``mem`` holds the sample's buffers (see :func:`build`). The number of keys must be a
    power of two between 16384 and 65536, as ``setupRadixSort`` makes it.
    """
    n = len(keys)
    if n & (n - 1) or not MIN_N <= n <= PAPER_N:
        raise ValueError(f"elementCount must be a power of 2 in [{MIN_N}, {PAPER_N}], not {n}")
    arrays = {k: v[0] for k, v in mem.arrays.items()}
    kernels = []
    current = keys
    for bits in range(0, 32, RADIX):
        a = dict(arrays, **{"in": arrays["origUnsortedDataBuf" if bits == 0
                                         else "partiallySortedBuf"]})
        digit = (current >> np.uint32(bits)) & np.uint32(0xFF)
        order = np.argsort(digit, kind="stable")  # what the scan + permute compute
        rank = np.empty(n, np.int64)
        rank[order] = np.arange(n)
        kernels.append(_histogram(n, current, bits, a, pcs))
        kernels.append(_scan_dim2(n, a, pcs))
        if n // 256 // GROUP_SIZE != 1:
            kernels.append(_prefix_sum(n, a, pcs))
            kernels.append(_block_addition(n, a, pcs))
        kernels.append(_scan_dim1(n, a, pcs))
        kernels.append(_fix_offset(n, a, pcs))
        kernels.append(_permute(n, current, rank, bits, a, pcs))
        current = current[order]  # sortedDataBuf, copied to partiallySortedBuf
    return kernels


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """tian15 sort at ``scale``: ``65536 * scale`` keys rounded up to a power of two, at least
    16384 (the sample's own rounding and minimum), keys from ``default_rng(seed)``."""
    n = 1 << max(0, int(np.ceil(np.log2(max(1.0, PAPER_N * scale)))))
    n = min(max(n, MIN_N), PAPER_N)
    mem = DeviceMemory()
    # RadixSort.cpp setupCL, in order
    for name, size in (("origUnsortedDataBuf", n), ("partiallySortedBuf", n),
                       ("histogramBinsBuf", n), ("scanedHistogramBinsBuf", n),
                       ("sortedDataBuf", n), ("sumBufferin", n // GROUP_SIZE),
                       ("sumBufferout", n // GROUP_SIZE), ("summaryBUfferin", RADICES),
                       ("summaryBUfferout", RADICES)):
        mem.alloc(name, size * 4)
    keys = sort_keys(n, seed)
    return Workload(name="tian15/sort", kernels=radix_sort_kernels(keys, mem, PCs()),
                    params={"element_count": n, "radix": RADIX, "group_size": GROUP_SIZE,
                            "keys": "numpy default_rng(seed).integers(0, 2**31, n, uint32)",
                            "arrays": mem.sizes()},
                    source=SOURCE)


register_workload("tian15", "sort", build, source=SOURCE, mi=76.2, size="65536",
                  description="8-bit-digit radix sort of 65536 32-bit keys (AMD APP SDK RadixSort)")
