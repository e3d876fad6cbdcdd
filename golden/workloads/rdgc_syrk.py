"""rdgc SYRK: Polybench/GPU 1.0 ``syrk_kernel`` (``C = alpha A A^T + beta C``), N = M = 256.

Follows ``CUDA/SYRK/syrk.cu`` of Polybench/GPU 1.0 (Grauer-Gray et al.,
2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). One thread per
element of ``C``: ``j = blockIdx.x*32 + threadIdx.x``, ``i = blockIdx.y*8 +
threadIdx.y``, 32 x 8 blocks::

    c[i * N + j] *= beta;
    for k < M:  c[i * N + j] += alpha * a[i * M + k] * a[j * M + k];

As written: 2 + 4M accesses (``accesses="source"``). nvcc forwards
``c[i * N + j]`` from the store before each trip's read (only loads come
between): 2 + 3M (``"compiled"``), rdgc Table 4's 3N + 2.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import ELEM, Run, ld, register_rdgc, update

SOURCE = "Polybench/GPU 1.0 CUDA/SYRK/syrk.cu (syrk_kernel)"
N_PAPER = 256  # rdgc Table 4 (the source's default is N = M = 1024)
BLOCK = (32, 8)  # DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y


def trace(run: Run) -> Workload:
    """One ``syrk_kernel`` launch with ``N = M``."""
    n = m = run.n
    a_base, c_base = run.alloc(A=n * m, C=n * n)
    # Two indices, two bound comparisons.
    em, i, j = run.launch_2d("syrk_kernel", n, n, BLOCK, prologue=2 + 2)
    active = (i < n) & (j < n)
    c_ij = c_base + (i * n + j) * ELEM
    em.straight(update("c0", c_ij, [], flops=1), active=active)  # c *= beta
    em.loop(update("c", c_ij, [ld("ld_a_ik", i * m * ELEM, a_base, step=ELEM),
                               ld("ld_a_jk", j * m * ELEM, a_base, step=ELEM)],
                   forwarded="always", flops=3),  # two multiplications, an add
            m, active=active)
    return run.workload("syrk", [em.finish()], SOURCE, n=n, m=m)


build = register_rdgc("syrk", trace, n_paper=N_PAPER, source=SOURCE, L="3N + 2",
                      kernels=["syrk_kernel"],
                      description="Polybench/GPU SYRK: C = alpha A A^T + beta C, 256x256 float matrices")
