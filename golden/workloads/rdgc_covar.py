"""rdgc COVAR: Polybench/GPU 1.0 ``covar_kernel`` (covariance matrix of 256 x 256 data).

Follows ``CUDA/COVAR/covariance.cu`` of Polybench/GPU 1.0 (Grauer-Gray et
al., 2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). rdgc
Table 4 lists the COVAR kernel only, so ``mean_kernel`` and
``reduce_kernel`` are not emitted; the program's arrays are still allocated
in its ``cudaMalloc`` order (data ``(M + 1) x (N + 1)``, symmat
``(M + 1) x (M + 1)``, mean ``M + 1`` floats, indexed from 1). One thread
per column ``j1 = blockIdx.x*256 + threadIdx.x + 1``, ``1 <= j1 <= M``, in
256 x 1 blocks::

    for (j2 = j1; j2 < M + 1; j2++) {
        symmat[j1*(M+1) + j2] = 0.0;
        for (i = 1; i < N + 1; i++)
            symmat[j1*(M+1) + j2] += data[i*(M+1) + j1] * data[i*(M+1) + j2];
        symmat[j2*(M+1) + j1] = symmat[j1*(M+1) + j2];
    }

Thread ``j1`` runs ``M - j1 + 1`` trips of the ``j2`` loop; thread 1 makes
the most accesses: M(4N + 3) as written (``accesses="source"``), M(3N + 2)
with nvcc's forwarding of ``symmat[j1][j2]`` (``"compiled"``), rdgc Table
4's (3N + 2)N.

The grid is rounded up where the source floors ``M / 256`` (see
:mod:`golden.workloads.rdgc_corr`).
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import Run, register_rdgc, symmat_kernel

SOURCE = "Polybench/GPU 1.0 CUDA/COVAR/covariance.cu (covar_kernel)"
N_PAPER = 256  # rdgc Table 4 (the source's default is M = N = 2048)
BLOCK = 256  # DIM_THREAD_BLOCK_KERNEL_3_X (DIM_THREAD_BLOCK_KERNEL_3_Y = 1)


def trace(run: Run) -> Workload:
    """One ``covar_kernel`` launch with ``M = N``."""
    m = n = run.n
    data, symmat, _ = run.alloc(data=(m + 1) * (n + 1), symmat=(m + 1) * (m + 1), mean=m + 1)
    kernel = symmat_kernel(run, "covar_kernel", m=m, n=n, first=0, block=BLOCK, data=data,
                           symmat=symmat, diagonal=False)
    return run.workload("covar", [kernel], SOURCE, m=m, n=n)


build = register_rdgc("covar", trace, n_paper=N_PAPER, source=SOURCE, L="(3N + 2)N",
                      kernels=["covar_kernel"],
                      description="Polybench/GPU COVAR: covariance kernel over 256x256 float data")
