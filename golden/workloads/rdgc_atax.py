"""rdgc ATAX: Polybench/GPU 1.0 ``atax_kernel1`` and ``atax_kernel2`` (``y = A^T (A x)``), N = 4096.

Follows ``CUDA/ATAX/atax.cu`` of Polybench/GPU 1.0 (Grauer-Gray et al.,
2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). Both kernels
run one thread per vector element in 256 x 1 blocks, ``blockIdx.x*256 +
threadIdx.x``::

    atax_kernel1:  for j < NY:  tmp[i] += A[i * NY + j] * x[j];    // row walk of A
    atax_kernel2:  for i < NX:  y[j]   += A[i * NY + j] * tmp[i];  // column walk of A

Per trip the source reads the accumulator, ``A`` and the vector, and writes
the accumulator: L = 4N per kernel (``accesses="source"``). nvcc forwards
the accumulator from the previous trip's store (only loads come between):
L = 3N + 1 (``"compiled"``), rdgc Table 4's 1 + 3N.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import Run, matvec_kernel, register_rdgc

SOURCE = "Polybench/GPU 1.0 CUDA/ATAX/atax.cu (atax_kernel1, atax_kernel2)"
N_PAPER = 4096  # rdgc Table 4 (also the source's NX = NY)
BLOCK = 256  # DIM_THREAD_BLOCK_X (DIM_THREAD_BLOCK_Y = 1)


def trace(run: Run) -> Workload:
    """``atax_kernel1`` then ``atax_kernel2`` with ``NX = NY = N``."""
    nx = ny = run.n
    a, x, y, tmp = run.alloc(A=nx * ny, x=ny, y=ny, tmp=nx)
    kernels = [
        # i < NX:  for j < NY:  tmp[i] += A[i * NY + j] * x[j]
        matvec_kernel(run, "atax_kernel1", threads=nx, trips=ny, block=BLOCK, acc=tmp,
                      matrix=a, per_thread=ny, per_trip=1, vector=x, prefix="k1_"),
        # j < NY:  for i < NX:  y[j] += A[i * NY + j] * tmp[i]
        matvec_kernel(run, "atax_kernel2", threads=ny, trips=nx, block=BLOCK, acc=y,
                      matrix=a, per_thread=1, per_trip=ny, vector=tmp, prefix="k2_"),
    ]
    return run.workload("atax", kernels, SOURCE, nx=nx, ny=ny)


build = register_rdgc("atax", trace, n_paper=N_PAPER, source=SOURCE, L="1 + 3N",
                      kernels=["atax_kernel1", "atax_kernel2"],
                      description="Polybench/GPU ATAX: y = A^T (A x), 4096x4096 float matrix, two kernels")
