"""tian15 ``histogram``: AMD APP SDK 2.9 ``Histogram`` (256 bins) of a 1024x1024 input.

tian15 Table 2 gives the input as "1024"; the sample's only size options are
``-x`` (width) and ``-y`` (height), both defaulting to 1024 (``WIDTH``,
``HEIGHT`` in ``Histogram.hpp``), so "1024" is read as the default
1024 x 1024 = 1 Mi values. Follows ``Histogram_Kernels.cl`` and
``Histogram.cpp`` of the SDK 2.9 (copy read: SDK 3.0, same kernels and host):
one launch of ``histogram256_scalar`` (the sample picks the scalar kernel when
the device's preferred float vector width is 1, as on GCN GPUs, which tian15's
simulated GPU resembles) with ``width * height / GROUP_ITERATIONS`` work-items
in groups of ``GROUP_SIZE = 128``. Each work-item:

1. zeroes its group's 32 KB local histogram (``uchar`` counters, one per bin
   and work-item, interleaved to spread banks);
2. reads 128 values (coalesced: ``i * groupSize + localId``) and increments
   ``sharedArray[value * 128 + 4 * (localId % 32) + localId / 32]``;
3. sums, for 2 of the group's 256 bins, the 128 per-work-item counters
   (as 32 ``uchar4`` reads) and writes the group's bin to ``binResult``.

The host adds the 8192 per-group histograms. Values are ``rand() % 256`` in
the sample; here ``numpy.random.default_rng(seed).integers(0, 256)``.
Compute-count rule: ``docs/workloads/tian15_b.md``.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._program import Program

__all__ = ["build", "histogram_data", "histogram_kernel"]

SOURCE = ("AMD APP SDK 2.9 samples/opencl/cl/Histogram/Histogram_Kernels.cl "
          "(histogram256_scalar), Histogram.cpp")

#: tian15 Table 2: input "1024" (read as 1024 x 1024), MI 43.1.
PAPER_SIDE = 1024
BIN_SIZE = 256
GROUP_SIZE = 128  # Histogram.hpp
GROUP_ITERATIONS = BIN_SIZE // 2  # values per work-item
_SH = Space.SHARED


def histogram_data(n: int, seed: int) -> np.ndarray:
    """The sample's input: ``n`` values in ``[0, 256)`` (``rand() % binSize``)."""
    return np.random.default_rng(seed).integers(0, BIN_SIZE, size=n, dtype=np.uint32)


def histogram_kernel(data: np.ndarray, mem: DeviceMemory, pcs: PCs) -> KernelTrace:
    """The ``histogram256_scalar`` launch over ``data``; ``mem`` holds ``dataBuf`` and
    ``midDeviceBinBuf``."""
    n = len(data)
    if n % (GROUP_SIZE * GROUP_ITERATIONS):
        raise ValueError(f"input size must be a multiple of {GROUP_SIZE * GROUP_ITERATIONS}, "
                         f"not {n}")
    data0 = mem.arrays["dataBuf"][0]
    bins0 = mem.arrays["midDeviceBinBuf"][0]
    kb = KernelBuilder("histogram256_scalar", (n // GROUP_ITERATIONS // GROUP_SIZE,),
                       (GROUP_SIZE,), shared_bytes=GROUP_SIZE * BIN_SIZE)
    rec = Program(kb, pcs, "histogram256_scalar")
    lid, gid = kb.tx, kb.bx
    off1 = lid & 31
    off23 = 4 * off1 + (lid >> 5)  # offSet2 + offSet3
    rec.compute(3 + 1)  # offSet1, offSet2, offSet3; offSet2 + offSet3 (hoisted)
    for i in range(64):  # input[groupSize * i + localId] = 0 (uchar4); a loop (64 > 16)
        rec.compute(2 + 2)
        rec.store("zero.st", (GROUP_SIZE * i + lid) * 4, space=_SH)
    rec.barrier()
    i = np.arange(GROUP_ITERATIONS, dtype=np.int64)[:, None]
    elem = gid[None, :] * (GROUP_SIZE * GROUP_ITERATIONS) + i * GROUP_SIZE + lid[None, :]
    counter = data.astype(np.int64)[elem] * 128 + off23[None, :]  # uchar counter's address
    rec.compute(3)  # groupId * (groupSize * 128) + localId (hoisted)
    for k in range(GROUP_ITERATIONS):
        rec.compute(2 + 2)  # loop control; i * groupSize + ..
        rec.load("count.ld_data", data0 + elem[k] * 4)
        rec.compute(2)  # value * 128 + (offSet2 + offSet3)
        rec.load("count.ld_counter", counter[k], width=1, space=_SH)
        rec.compute(1)
        rec.store("count.st_counter", counter[k], width=1, space=_SH)
    rec.barrier()
    rec.compute(1 + 1 + 1)  # BIN_SIZE / groupSize; localId * 32; groupId * BIN_SIZE
    for p in range(BIN_SIZE // GROUP_SIZE):  # groupSize is get_local_size(): a loop
        rec.compute(2 + 2)  # loop control; passNumber
        pass_number = BIN_SIZE // 2 * 32 * p + lid * 32
        for j in range(32):
            rec.compute(2 + 2 + 1)  # loop control; bankNum = (j + offSet1) & 31; index
            rec.load("merge.ld_counters", (pass_number + ((j + off1) & 31)) * 4, space=_SH)
            rec.compute(4 + 4)  # convert_uint4, binCount += (4 lanes each)
        rec.compute(3 + 3)  # result = s0 + s1 + s2 + s3; the binResult index
        rec.store("merge.st_bin", bins0 + (gid * BIN_SIZE + GROUP_SIZE * p + lid) * 4)
    return rec.build()


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """tian15 histogram at ``scale``: width ``1024 * scale`` (a multiple of 256) by height
    ``1024 * scale`` (a multiple of 128), values from ``default_rng(seed)``."""
    width = scaled(PAPER_SIDE, scale, multiple=BIN_SIZE)
    height = scaled(PAPER_SIDE, scale, multiple=GROUP_SIZE)
    n = width * height
    mem = DeviceMemory()
    mem.alloc("dataBuf", n * 4)  # Histogram.cpp setupCL, in order
    mem.alloc("midDeviceBinBuf", n // (GROUP_SIZE * GROUP_ITERATIONS) * BIN_SIZE * 4)
    kernel = histogram_kernel(histogram_data(n, seed), mem, PCs())
    return Workload(name="tian15/histogram", kernels=[kernel],
                    params={"width": width, "height": height, "bin_size": BIN_SIZE,
                            "group_size": GROUP_SIZE, "kernel": "histogram256_scalar",
                            "data": "numpy default_rng(seed).integers(0, 256, n, uint32)",
                            "arrays": mem.sizes()},
                    source=SOURCE)


register_workload("tian15", "histogram", build, source=SOURCE, mi=43.1, size="1024",
                  description="256-bin histogram with per-work-group local histograms, 1024x1024 values")
