"""rdgc BICG: Polybench/GPU 1.0 ``bicg_kernel1``, ``bicg_kernel2`` (``s = A^T r``, ``q = A p``).

Follows ``CUDA/BICG/bicg.cu`` of Polybench/GPU 1.0 (Grauer-Gray et al.,
2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). Both kernels
run one thread per vector element in 256 x 1 blocks::

    bicg_kernel1:  s[j] = 0;  for i < NX:  s[j] += A[i * NY + j] * r[i];  // column walk
    bicg_kernel2:  q[i] = 0;  for j < NY:  q[i] += A[i * NY + j] * p[j];  // row walk

The source makes 1 + 4N accesses per thread (``accesses="source"``); nvcc
forwards the accumulator from the store before it (the zeroing store, then
each trip's store; only loads come between), so compiled code makes
1 + 3N (``"compiled"``), rdgc Table 4's 1 + 3N.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import Run, matvec_kernel, register_rdgc

SOURCE = "Polybench/GPU 1.0 CUDA/BICG/bicg.cu (bicg_kernel1, bicg_kernel2)"
N_PAPER = 4096  # rdgc Table 4 (also the source's NX = NY)
BLOCK = 256  # DIM_THREAD_BLOCK_X (DIM_THREAD_BLOCK_Y = 1)


def trace(run: Run) -> Workload:
    """``bicg_kernel1`` then ``bicg_kernel2`` with ``NX = NY = N``."""
    nx = ny = run.n
    a, r, s, p, q = run.alloc(A=nx * ny, r=nx, s=ny, p=ny, q=nx)
    kernels = [
        # j < NY:  s[j] = 0;  for i < NX:  s[j] += A[i * NY + j] * r[i]
        matvec_kernel(run, "bicg_kernel1", threads=ny, trips=nx, block=BLOCK, acc=s,
                      matrix=a, per_thread=1, per_trip=ny, vector=r, zeroed=True, prefix="k1_"),
        # i < NX:  q[i] = 0;  for j < NY:  q[i] += A[i * NY + j] * p[j]
        matvec_kernel(run, "bicg_kernel2", threads=nx, trips=ny, block=BLOCK, acc=q,
                      matrix=a, per_thread=ny, per_trip=1, vector=p, zeroed=True, prefix="k2_"),
    ]
    return run.workload("bicg", kernels, SOURCE, nx=nx, ny=ny)


build = register_rdgc("bicg", trace, n_paper=N_PAPER, source=SOURCE, L="1 + 3N",
                      kernels=["bicg_kernel1", "bicg_kernel2"],
                      description=("Polybench/GPU BICG: s = A^T r and q = A p, 4096x4096 float "
                                   "matrix, two kernels"))
