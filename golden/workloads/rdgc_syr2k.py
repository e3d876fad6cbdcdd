"""rdgc SYR2K: Polybench/GPU 1.0 ``syr2k_kernel`` (``C = alpha (A B^T + B A^T) + beta C``).

Follows ``CUDA/SYR2K/syr2k.cu`` of Polybench/GPU 1.0 (Grauer-Gray et al.,
2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). One thread per
element of ``C``: ``j = blockIdx.x*32 + threadIdx.x``, ``i = blockIdx.y*8 +
threadIdx.y``, 32 x 8 blocks::

    c[i * N + j] *= BETA;
    for k < M:
        c[i * N + j] += ALPHA * a[i * M + k] * b[j * M + k] + ALPHA * b[i * M + k] * a[j * M + k];

As written: 2 + 6M accesses (``accesses="source"``). nvcc forwards
``c[i * N + j]`` from the store before each trip's read: 2 + 5M
(``"compiled"``); rdgc Table 4 gives 5N + 1, one fewer (it gives 3N + 2
for SYRK, whose kernel has the same ``*= beta`` prologue).
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import ELEM, Run, ld, register_rdgc, update

SOURCE = "Polybench/GPU 1.0 CUDA/SYR2K/syr2k.cu (syr2k_kernel)"
N_PAPER = 256  # rdgc Table 4 (the source's default is N = M = 2048)
BLOCK = (32, 8)  # DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y


def trace(run: Run) -> Workload:
    """One ``syr2k_kernel`` launch with ``N = M``."""
    n = m = run.n
    a_base, b_base, c_base = run.alloc(A=n * m, B=n * m, C=n * n)
    # Two indices, two bound comparisons.
    em, i, j = run.launch_2d("syr2k_kernel", n, n, BLOCK, prologue=2 + 2)
    active = (i < n) & (j < n)
    c_ij = c_base + (i * n + j) * ELEM
    row_i, row_j = i * m * ELEM, j * m * ELEM
    em.straight(update("c0", c_ij, [], flops=1), active=active)  # c *= BETA
    em.loop(update("c", c_ij, [ld("ld_a_ik", row_i, a_base, step=ELEM),
                               ld("ld_b_jk", row_j, b_base, step=ELEM),
                               ld("ld_b_ik", row_i, b_base, step=ELEM),
                               ld("ld_a_jk", row_j, a_base, step=ELEM)],
                   forwarded="always", flops=6),  # four multiplications, two adds
            m, active=active)
    return run.workload("syr2k", [em.finish()], SOURCE, n=n, m=m)


build = register_rdgc("syr2k", trace, n_paper=N_PAPER, source=SOURCE, L="5N + 1",
                      kernels=["syr2k_kernel"],
                      description="Polybench/GPU SYR2K: C = alpha (A B^T + B A^T) + beta C, 256x256 floats")
