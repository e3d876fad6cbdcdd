"""tian15 matrixmul: AMD APP SDK 2.9 MatrixMultiplication, kernel ``mmmKernel_local``.

Follows ``samples/opencl/cl/MatrixMultiplication/MatrixMultiplication_Kernels.cl``
of the AMD APP SDK 2.9 (2013, the SDK version tian15 cites as [4]). The host
(``MatrixMultiplication.cpp``) launches ``mmmKernel_local`` on every device
whose ``CL_DEVICE_LOCAL_MEM_TYPE`` is ``CL_LOCAL`` (all GPUs), with
``blockSize = 8``: a ``(8, 8)`` work-group, a global size of
``(widthB / 4, heightA / 4)`` and ``(4 * blockSize)^2`` floats of local memory.
Each work-item computes a 4x4 tile of C from ``float4`` loads: per block of A
it copies a 4x8 ``float4`` tile of A into local memory (``blockA``), then
walks four rows of B per inner step.

tian15 Table 2: matrixmul, 512x512, MI 395.6.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import Op, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled

__all__ = ["build", "SIZE", "BLOCK_SIZE"]

#: Matrix order at scale 1.0 (tian15 Table 2: 512x512).
SIZE = 512
#: ``blockSize`` of the SDK host (work-group is ``BLOCK_SIZE x BLOCK_SIZE``).
BLOCK_SIZE = 8
#: float4 components: each work-item computes a ``TILE x TILE`` tile of C.
TILE = 4
F4 = 16  # bytes of a float4

# Compute instructions: the operators the source writes between memory instructions
# (docs/workloads/tian15_a.md, "compute-count rule"); get_global_id(d) counts 2
# (group id * local size + local id), get_local_id/get_local_size/get_global_size 0.
# Loop-invariant expressions are counted once, in the prologue.
_GID = 2
_PROLOGUE = (
    3 + (3 + 2 * _GID) + 1  # blockPos, globalPos, temp = widthA / 4
    + 1 + 1 + 2  # temp / lsz (loop bound); (gid1 << 2) * temp; 2 * temp, 3 * temp
    + 2 + 3  # 2 * lsz, 3 * lsz; blockPos + c * lsz (c = 1..3)
    + 2 + 2 * 3  # lid1 * TILEY * lsz; (lid1 * TILEY + c) * lsz (c = 1..3)
    + 1  # lsz * 4 (inner loop bound)
)
_LOOP = 2  # increment, compare-and-branch, per iteration
_POS_A = 3  # i * lsz + lid0 + (invariant)
_POS_B = 3  # gid0 + ((i * lsz) << 2) * gsz0, i * lsz reused
_IDX_A = (0, 1, 1, 1)  # globalPosA + c * temp
_IDX_BLOCK_STORE = (0, 0, 0, 0)  # blockPos + c * lsz: invariant
_IDX_BLOCK_LOAD = (2, 1, 1, 1)  # (j >> 2), computed once, + invariant row offset
_IDX_B = (2, 3, 3, 3)  # globalPosB + (j + c) * gsz0
_IDX_C = (0, 1, 2, 2)  # globalPos + c * gsz0
_SUMS = 16 * 4  # 16 statements sumK.c += a.x*b0 + a.y*b1 + a.z*b2 + a.w*b3: 4 FMAs each


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Trace of ``C = A * B`` for square ``n x n`` float matrices.

    Parameters
    ----------
    scale : float
        ``n = 512 * scale`` rounded to a multiple of ``4 * blockSize = 32``
        (the SDK rounds every dimension up to that multiple).
    seed : int
        Unused: the kernel's addresses do not depend on the data.

    Returns
    -------
    Workload
        One launch of ``mmmKernel_local``.
    """
    n = scaled(SIZE, scale, multiple=TILE * BLOCK_SIZE)
    mem = DeviceMemory()
    a_base = mem.alloc("matrixA", n * n * 4)
    b_base = mem.alloc("matrixB", n * n * 4)
    c_base = mem.alloc("matrixC", n * n * 4)
    return Workload(
        name="tian15/matrixmul",
        kernels=[_mmm_kernel_local(n, a_base, b_base, c_base)],
        params={"n": n, "block_size": BLOCK_SIZE, "arrays": dict(mem.arrays)},
        source=_SOURCE,
    )


def _mmm_kernel_local(n: int, a_base: int, b_base: int, c_base: int):
    ls = BLOCK_SIZE  # get_local_size(0) == get_local_size(1)
    g_size_x = n // TILE  # get_global_size(0), in float4
    temp = n // TILE  # widthA / 4: a row of A in float4
    groups = n // TILE // ls
    kb = KernelBuilder(
        "mmmKernel_local", grid=(groups, groups), block=(ls, ls),
        shared_bytes=(TILE * ls) ** 2 * 4,
    )
    pcs = PCs()
    lx, ly = kb.tx, kb.ty
    gx, gy = kb.bx * ls + lx, kb.by * ls + ly
    block_pos = lx + ls * (ly << 2)
    global_pos = gx + (gy << 2) * g_size_x

    kb.compute(_PROLOGUE)
    for i in range(temp // ls):
        # blockA[blockPos + c*lSizeX] = matrixA[globalPosA + c*temp], c = 0..3
        pos_a = i * ls + lx + (gy << 2) * temp
        addrs, ops, pc, space = [], [], [], []
        for c in range(TILE):
            addrs += [a_base + (pos_a + c * temp) * F4, (block_pos + c * ls) * F4]
            ops += [Op.LOAD, Op.STORE]
            pc += [pcs(f"ld_matrixA{c}"), pcs(f"st_blockA{c}")]
            space += [Space.GLOBAL, Space.SHARED]
        gaps = [g for c in range(TILE) for g in (_IDX_A[c], _IDX_BLOCK_STORE[c])]
        gaps[0] += _LOOP + _POS_A
        kb.sequence(ops, pc, np.stack(addrs), widths=F4, gaps=gaps, space=space)
        kb.barrier()

        # Inner loop over the lSizeX float4 columns of blockA: 4 local loads of A,
        # 4 global loads of B, then 16 multiply-add statements.
        pos_b = gx + ((i * ls) << 2) * g_size_x
        addrs, pc, space, gaps = [], [], [], []
        for jj in range(ls):
            j = 4 * jj
            for c in range(TILE):
                addrs.append(((j >> 2) + (ly * TILE + c) * ls) * F4)
                pc.append(pcs(f"ld_blockA{c}"))
                space.append(Space.SHARED)
            for c in range(TILE):
                addrs.append(b_base + (pos_b + (j + c) * g_size_x) * F4)
                pc.append(pcs(f"ld_matrixB{c}"))
                space.append(Space.GLOBAL)
            gaps += list(_IDX_BLOCK_LOAD) + list(_IDX_B)
            gaps[-2 * TILE] += _LOOP + (_SUMS if jj else _POS_B)
        kb.sequence(Op.LOAD, pc, np.stack(addrs), widths=F4, gaps=gaps, space=space)
        kb.compute(_SUMS)
        kb.barrier()

    for c in range(TILE):  # matrixC[globalPos + c*gSizeX] = sumc
        kb.compute(_IDX_C[c])
        kb.store(pcs(f"st_matrixC{c}"), c_base + (global_pos + c * g_size_x) * F4, width=F4)
    return kb.build()


_SOURCE = ("AMD APP SDK 2.9 samples/opencl/cl/MatrixMultiplication/"
           "MatrixMultiplication_Kernels.cl (mmmKernel_local)")

register_workload("tian15", "matrixmul", build, source=_SOURCE, mi=395.6, size="512x512",
                  description="dense float matrix product C = A*B, 512x512, float4 4x4 tiles, A tile in LDS")
