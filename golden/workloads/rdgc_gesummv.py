"""rdgc GESUMMV: Polybench/GPU 1.0 ``gesummv_kernel`` (``y = alpha A x + beta B x``), N = 4096.

Follows ``CUDA/GESUMMV/gesummv.cu`` of Polybench/GPU 1.0 (Grauer-Gray et
al., 2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). One
thread per row, ``i = blockIdx.x*256 + threadIdx.x``, 256 x 1 blocks::

    for j < N:
        tmp[i] += a[i * N + j] * x[j];
        y[i]   += b[i * N + j] * x[j];
    y[i] = ALPHA * tmp[i] + BETA * y[i];

As written: 8 accesses per trip and 3 after the loop, L = 8N + 3
(``accesses="source"``). nvcc can forward nothing inside the loop (every
reload follows a store through another pointer that may alias it), but
after the loop ``y[i]`` is forwarded from the last store: L = 8N + 2
(``"compiled"``), rdgc Table 4's 8N + 2.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import ELEM, Run, ld, register_rdgc, st, update

SOURCE = "Polybench/GPU 1.0 CUDA/GESUMMV/gesummv.cu (gesummv_kernel)"
N_PAPER = 4096  # rdgc Table 4 (also the source's N)
BLOCK = 256  # DIM_THREAD_BLOCK_X (DIM_THREAD_BLOCK_Y = 1)


def trace(run: Run) -> Workload:
    """One ``gesummv_kernel`` launch on ``N x N`` matrices."""
    n = run.n
    a_base, b_base, x_base, y_base, tmp_base = run.alloc(A=n * n, B=n * n, x=n, y=n, tmp=n)
    em, i = run.launch_1d("gesummv_kernel", n, BLOCK, prologue=2)  # index, bound comparison
    active = i < n
    tmp_i, y_i, row = tmp_base + i * ELEM, y_base + i * ELEM, i * n * ELEM
    em.loop(update("tmp", tmp_i, [ld("ld_a", row, a_base, step=ELEM),
                                  ld("ld_x#1", x_base, step=ELEM)])  # multiply, add
            + update("y", y_i, [ld("ld_b", row, b_base, step=ELEM),
                                ld("ld_x#2", x_base, step=ELEM)]),
            n, active=active)
    em.straight([ld("ld_tmp_out", tmp_i),
                 ld("ld_y_out", y_i, forwarded="always"),
                 st("st_y_out", y_i, gap=3)],  # two multiplications, an add
                active=active)
    return run.workload("gesummv", [em.finish()], SOURCE, n=n)


build = register_rdgc("gesummv", trace, n_paper=N_PAPER, source=SOURCE, L="8N + 2",
                      kernels=["gesummv_kernel"],
                      description="Polybench/GPU GESUMMV: y = alpha A x + beta B x, 4096x4096 float matrices")
