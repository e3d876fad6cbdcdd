"""tian15 bitonic: AMD APP SDK 2.9 BitonicSort, kernel ``bitonicSort``.

Follows ``samples/opencl/cl/BitonicSort/BitonicSort_Kernels.cl`` and the host
loop of ``BitonicSort.cpp`` of the AMD APP SDK 2.9: for ``length = 2^N``
elements the host enqueues one ``bitonicSort`` launch per stage
``0 <= stage < N`` and pass ``0 <= passOfStage <= stage`` (``N (N + 1) / 2``
launches), each of ``length / 2`` work-items in work-groups of
``GROUP_SIZE = 256`` (BitonicSort.hpp). Work-item ``t`` compares the pair
``leftId = (t % d) + (t / d) * 2d``, ``rightId = leftId + d`` with
``d = 2^(stage - passOfStage)`` and writes both back, in increasing or
decreasing order depending on ``(t / 2^stage) % 2`` and the host's sort
direction (``desc`` by default, ``direction = 0``).

Which value goes where depends on the data, but the addresses do not, so
the trace needs no input data and ``seed`` is unused.

tian15 Table 2: bitonic, 131072 elements, MI 114.3.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Op, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload

__all__ = ["build", "bitonic_kernels", "LENGTH", "GROUP_SIZE", "DIRECTION"]

#: Elements at scale 1.0 (tian15 Table 2: 131072).
LENGTH = 131_072
#: ``GROUP_SIZE`` of BitonicSort.hpp.
GROUP_SIZE = 256
#: ``direction`` argument: the SDK's default sort order ``desc`` passes 0.
DIRECTION = 0

# Compute instructions: the operators the source writes between memory instructions
# (docs/workloads/tian15_a.md, "compute-count rule").
_IDS = 2 + 2 + 1 + 4 + 1  # threadId, pairDistance, blockWidth, leftId, rightId
_SAME_DIR = 1 + 3 + 1  # 1 << stage; (threadId / w) % 2 == 1; branch
_FLIP = 1  # sortIncreasing = 1 - sortIncreasing
_COMPARE = 2 + 2  # if (leftElement > rightElement); if (sortIncreasing)


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Trace of a whole bitonic sort.

    Parameters
    ----------
    scale : float
        ``length = 131072 * scale`` rounded to a power of two (as the SDK does),
        at least ``2 * GROUP_SIZE``.
    seed : int
        Unused (the addresses do not depend on the keys).

    Returns
    -------
    Workload
        One ``bitonicSort`` launch per (stage, pass).
    """
    length = max(2 * GROUP_SIZE, 1 << int(round(np.log2(LENGTH * scale))))
    mem = DeviceMemory()
    kernels = bitonic_kernels(length, mem)
    return Workload(
        name="tian15/bitonic",
        kernels=kernels,
        params={"length": length, "group_size": GROUP_SIZE, "direction": DIRECTION,
                "launches": len(kernels), "arrays": dict(mem.arrays)},
        source=_SOURCE,
    )


def bitonic_kernels(length: int, mem: DeviceMemory) -> list[KernelTrace]:
    """The ``N (N + 1) / 2`` launches sorting ``length = 2^N`` ``uint`` keys in place.

    Parameters
    ----------
    length : int
        Keys (a power of two).
    mem : DeviceMemory
        Allocator of ``theArray``.

    Returns
    -------
    list of KernelTrace
        One launch per (stage, pass), in host order.

    Raises
    ------
    ValueError
        If ``length`` is not a power of two of at least ``2 * GROUP_SIZE``.
    """
    if length < 2 * GROUP_SIZE or length & (length - 1):
        raise ValueError(f"length: must be a power of 2 of at least {2 * GROUP_SIZE}, not {length}")
    array = mem.alloc("theArray", 4 * length)
    pcs = PCs()
    pc_loads = [pcs("ld_left"), pcs("ld_right")]
    # if (sortIncreasing) {left = lesser; right = greater} else {left = greater; right = lesser}
    pc_stores = [pcs("st_left_inc"), pcs("st_right_inc"), pcs("st_left_dec"), pcs("st_right_dec")]
    stages = length.bit_length() - 1
    kernels = []
    for stage in range(stages):
        for pass_of_stage in range(stage + 1):
            kb = KernelBuilder("bitonicSort", grid=(length // 2 // GROUP_SIZE,),
                               block=(GROUP_SIZE,))
            t = kb.gtid
            dist = 1 << (stage - pass_of_stage)
            left = t % dist + (t // dist) * 2 * dist
            right = left + dist
            flip = (t >> stage) % 2 == 1
            increasing = np.where(flip, 1 - DIRECTION, DIRECTION).astype(bool)
            kb.compute(_IDS)
            kb.sequence(Op.LOAD, pc_loads, np.stack([array + 4 * left, array + 4 * right]))
            kb.compute(_SAME_DIR)
            kb.compute(_FLIP, active=flip)
            kb.compute(_COMPARE)
            kb.sequence(Op.STORE, pc_stores,
                        np.stack([array + 4 * left, array + 4 * right] * 2),
                        active=np.stack([increasing, increasing, ~increasing, ~increasing]))
            kernels.append(kb.build())
    return kernels


_SOURCE = ("AMD APP SDK 2.9 samples/opencl/cl/BitonicSort/BitonicSort_Kernels.cl (bitonicSort) "
           "with BitonicSort.cpp")

register_workload("tian15", "bitonic", build, source=_SOURCE, mi=114.3, size="131072 elements",
                  description="bitonic sort of 131072 uint keys, one launch per (stage, pass), 153 launches")
