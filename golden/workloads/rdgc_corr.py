"""rdgc CORR: Polybench/GPU 1.0 ``corr_kernel`` (correlation matrix of 256 x 256 data).

Follows ``CUDA/CORR/correlation.cu`` of Polybench/GPU 1.0 (Grauer-Gray et
al., 2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). rdgc
Table 4 lists the CORR kernel only, so ``mean_kernel``, ``std_kernel`` and
``reduce_kernel`` are not emitted; the program's four arrays are still
allocated in its ``cudaMalloc`` order (data, symmat, stddev, mean; data and
symmat hold ``(M + 1) x (N + 1)`` floats, indexed from 1). One thread per
column ``j1 = blockIdx.x*256 + threadIdx.x + 1``, ``1 <= j1 < M``, in
256 x 1 blocks::

    symmat[j1*(M+1) + j1] = 1.0;
    for (j2 = j1 + 1; j2 < M + 1; j2++) {
        symmat[j1*(M+1) + j2] = 0.0;
        for (i = 1; i < N + 1; i++)
            symmat[j1*(M+1) + j2] += data[i*(M+1) + j1] * data[i*(M+1) + j2];
        symmat[j2*(M+1) + j1] = symmat[j1*(M+1) + j2];
    }

Thread ``j1`` runs ``M - j1`` trips of the ``j2`` loop; a warp runs while
any lane does. Thread 1 makes the most accesses: 1 + (M - 1)(4N + 3) as
written (``accesses="source"``), 1 + (M - 1)(3N + 2) with nvcc's
forwarding of ``symmat[j1][j2]`` (``"compiled"``). rdgc Table 4 gives
(3N + 2)N + 1, counting N trips of the ``j2`` loop where the source runs
M - 1 = N - 1.

The source sizes the grid as ``(size_t)(ceil((float)M) / 256.0)``, which
floors M / 256 (the same as rounding up for the M it ships with, a multiple
of 256); this emulator rounds up so scaled-down sizes keep their threads.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import Run, register_rdgc, symmat_kernel

SOURCE = "Polybench/GPU 1.0 CUDA/CORR/correlation.cu (corr_kernel)"
N_PAPER = 256  # rdgc Table 4 (the source's default is M = N = 2048)
BLOCK = 256  # DIM_THREAD_BLOCK_KERNEL_4_X (DIM_THREAD_BLOCK_KERNEL_4_Y = 1)


def trace(run: Run) -> Workload:
    """One ``corr_kernel`` launch with ``M = N``."""
    m = n = run.n
    data, symmat, _, _ = run.alloc(data=(m + 1) * (n + 1), symmat=(m + 1) * (n + 1), stddev=m + 1,
                                   mean=m + 1)
    kernel = symmat_kernel(run, "corr_kernel", m=m, n=n, first=1, block=BLOCK, data=data,
                           symmat=symmat, diagonal=True)
    return run.workload("corr", [kernel], SOURCE, m=m, n=n)


build = register_rdgc("corr", trace, n_paper=N_PAPER, minimum=2, source=SOURCE, L="(3N + 2)N + 1",
                      kernels=["corr_kernel"],
                      description="Polybench/GPU CORR: correlation kernel over 256x256 float data")
