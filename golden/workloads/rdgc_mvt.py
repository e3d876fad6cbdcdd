"""rdgc MVT: Polybench/GPU 1.0 ``mvt_kernel1``, ``mvt_kernel2`` (``x1 += A y1``, ``x2 += A^T y2``).

Follows ``CUDA/MVT/mvt.cu`` of Polybench/GPU 1.0 (Grauer-Gray et al., 2012;
read from the mirror ``Lai-YT/polybench`` at 516ae01). Both kernels run one
thread per element, ``i = blockIdx.x*256 + threadIdx.x``, in 256 x 1 blocks::

    mvt_kernel1:  for j < N:  x1[i] += a[i * N + j] * y_1[j];  // row walk of a
    mvt_kernel2:  for j < N:  x2[i] += a[j * N + i] * y_2[j];  // column walk of a

Per trip the source reads the accumulator, ``a`` and the vector, and writes
the accumulator: L = 4N (``accesses="source"``). nvcc forwards the
accumulator from the previous trip's store: L = 3N + 1 (``"compiled"``),
rdgc Table 4's 3N + 1.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import Run, matvec_kernel, register_rdgc

SOURCE = "Polybench/GPU 1.0 CUDA/MVT/mvt.cu (mvt_kernel1, mvt_kernel2)"
N_PAPER = 4096  # rdgc Table 4 (also the source's N)
BLOCK = 256  # DIM_THREAD_BLOCK_X (DIM_THREAD_BLOCK_Y = 1)


def trace(run: Run) -> Workload:
    """``mvt_kernel1`` then ``mvt_kernel2`` on an ``N x N`` matrix."""
    n = run.n
    a, x1, x2, y1, y2 = run.alloc(a=n * n, x1=n, x2=n, y_1=n, y_2=n)
    kernels = [
        # i < N:  for j < N:  x1[i] += a[i * N + j] * y_1[j]
        matvec_kernel(run, "mvt_kernel1", threads=n, trips=n, block=BLOCK, acc=x1, matrix=a,
                      per_thread=n, per_trip=1, vector=y1, prefix="k1_"),
        # i < N:  for j < N:  x2[i] += a[j * N + i] * y_2[j]
        matvec_kernel(run, "mvt_kernel2", threads=n, trips=n, block=BLOCK, acc=x2, matrix=a,
                      per_thread=1, per_trip=n, vector=y2, prefix="k2_"),
    ]
    return run.workload("mvt", kernels, SOURCE, n=n)


build = register_rdgc("mvt", trace, n_paper=N_PAPER, source=SOURCE, L="3N + 1",
                      kernels=["mvt_kernel1", "mvt_kernel2"],
                      description="Polybench/GPU MVT: x1 += A y1 and x2 += A^T y2, 4096x4096 float matrix")
