"""tian15 ``dct``: AMD APP SDK 2.x ``DCT`` (8x8 blocks, local memory) on a 2048x2048 input.

Follows ``samples/opencl/cl/app/DCT/DCT_Kernels.cl`` and ``DCT.cpp`` of the
AMD APP SDK 2.x (the copy read is ``clockfort/amd-app-sdk-fixes``; SDK 2.9
ships the same kernel). One launch of kernel ``DCT`` with the forward
transform (``inverse = 0``, the sample's default): global size
``(width, height)``, work-groups of ``8 x 8``. Each work-item computes one
element of ``A^T X`` into local memory ``inter`` and then one element of
``(A^T X) A`` into ``output``. Choices the source leaves open and the rule
for compute counts are in ``docs/workloads/tian15_b.md``.

Every work-group issues the same instructions at addresses linear in its
group id, so one is built and copied over the grid
(:mod:`golden.workloads._replicate`): the million-thread launch costs
milliseconds instead of seconds.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Op, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._replicate import Emit, build_kernel

__all__ = ["build", "dct_emit", "dct_kernel"]

SOURCE = "AMD APP SDK 2.x samples/opencl/cl/app/DCT/DCT_Kernels.cl (kernel DCT), DCT.cpp"

#: tian15 Table 2: input 2048x2048, MI 76.2.
PAPER_SIDE = 2048
BLOCK_WIDTH = 8  # DCT.hpp: blockWidth = 8


def dct_kernel(width: int, height: int, mem: DeviceMemory, pcs: PCs) -> KernelTrace:
    """The ``DCT`` launch (forward transform) on a ``width x height`` float matrix.

    ``mem`` must hold ``input``, ``output`` and ``dct8x8``.
    """
    return build_kernel("DCT", (width // BLOCK_WIDTH, height // BLOCK_WIDTH),
                        (BLOCK_WIDTH, BLOCK_WIDTH), dct_emit(width, mem, pcs),
                        shared_bytes=BLOCK_WIDTH * BLOCK_WIDTH * 4)


def dct_emit(width: int, mem: DeviceMemory, pcs: PCs) -> Emit:
    """``emit(kb, shape, at)`` of the ``DCT`` kernel for a matrix ``width`` floats wide.

    ``at = (groupIdx, groupIdy)`` (``shape`` is unused: every group takes the same paths).
    """
    bw = BLOCK_WIDTH
    a_in, a_out, a_dct = (mem.arrays[k][0] for k in ("input", "output", "dct8x8"))
    pc_ld_dct1, pc_ld_in = pcs("DCT:ld_dct8x8.1"), pcs("DCT:ld_input")
    pc_st_inter = pcs("DCT:st_inter")
    pc_ld_inter, pc_ld_dct2 = pcs("DCT:ld_inter"), pcs("DCT:ld_dct8x8.2")
    pc_st_out = pcs("DCT:st_output")
    k = np.arange(bw, dtype=np.int64)[:, None]

    def emit(kb: KernelBuilder, shape: tuple, at: tuple) -> KernelTrace:
        i, j = kb.tx, kb.ty  # get_local_id(0), get_local_id(1)
        gx, gy = at  # get_group_id
        idx = (gy * bw + j) * width + gx * bw + i
        # get_global_id x2 (2 each), idx (2), hoisted getIdx parts groupIdx*bw + j (2),
        # groupIdy*bw (1)
        kb.compute(9)
        # Loop 1 (blockWidth is a kernel argument: not unrolled): per iteration loop
        # control (2), index1 = k*bw + i (2), index2 = (gy*bw + k)*width + .. (3), then
        # both loads and the FMA (1), which lands before the next iteration's loads.
        addrs = np.empty((2 * bw, kb.n_threads), np.int64)
        addrs[0::2] = a_dct + (k * bw + i) * 4  # dct8x8[index1], inverse == 0
        addrs[1::2] = a_in + ((gy * bw + k) * width + gx * bw + j) * 4  # input[getIdx(.., j, k)]
        gaps = np.zeros(2 * bw, np.int64)
        gaps[0::2] = 7
        gaps[2::2] += 1
        kb.sequence(Op.LOAD, np.tile([pc_ld_dct1, pc_ld_in], bw), addrs, gaps=gaps)
        kb.compute(1 + 2)  # last FMA; j*bw + i
        kb.store(pc_st_inter, (j * bw + i) * 4, space=Space.SHARED)
        kb.barrier()
        # Loop 2: loop control (2), index1 = i*bw + k (1, i*bw hoisted), index2 = k*bw + j (2).
        addrs[0::2] = (i * bw + k) * 4  # inter[index1]
        addrs[1::2] = a_dct + (k * bw + j) * 4  # dct8x8[index2]
        gaps[0::2] = 5
        gaps[0] += 1  # i*bw, hoisted
        gaps[2::2] += 1
        kb.sequence(Op.LOAD, np.tile([pc_ld_inter, pc_ld_dct2], bw), addrs, gaps=gaps,
                    space=np.tile([Space.SHARED, Space.GLOBAL], bw))
        kb.compute(1)
        kb.store(pc_st_out, a_out + idx * 4)
        return kb.build()

    return emit


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """tian15 dct at ``scale`` (each side ``2048 * scale``, a multiple of 8; ``seed`` unused).

    The input values never reach an address, so the trace does not depend on ``seed``.
    """
    side = scaled(PAPER_SIDE, scale, multiple=BLOCK_WIDTH)
    mem = DeviceMemory()
    # DCT.cpp setupCL: inputBuffer, outputBuffer, dctBuffer (blockSize floats)
    mem.alloc("input", side * side * 4)
    mem.alloc("output", side * side * 4)
    mem.alloc("dct8x8", BLOCK_WIDTH * BLOCK_WIDTH * 4)
    kernel = dct_kernel(side, side, mem, PCs())
    return Workload(name="tian15/dct", kernels=[kernel],
                    params={"width": side, "height": side, "block_width": BLOCK_WIDTH,
                            "inverse": 0,
                            "arrays": mem.sizes()},
                    source=SOURCE)


register_workload("tian15", "dct", build, source=SOURCE, mi=76.2, size="2048x2048",
                  description="8x8 discrete cosine transform with local memory, 2048x2048 floats")
