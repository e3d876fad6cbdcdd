"""rdgc GRAMSCHMIDT: Polybench/GPU 1.0 ``gramschmidt_kernel3`` (column projections), M = N = 128.

Follows ``CUDA/GRAMSCHM/gramschmidt.cu`` of Polybench/GPU 1.0 (Grauer-Gray
et al., 2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). The
host runs ``k = 0 .. N-1`` and launches kernels 1, 2 and 3 for each ``k``;
rdgc Table 4 lists K3 only, so this trace holds the N launches of
``gramschmidt_kernel3`` (kernels 1 and 2 are not emitted). One thread per
column, ``j = blockIdx.x*256 + threadIdx.x``, 256 x 1 blocks, active for
``k < j < N``::

    r[k*N + j] = 0.0;
    for i < M:  r[k*N + j] += q[i*N + k] * a[i*N + j];
    for i < M:  a[i*N + j] -= q[i*N + k] * r[k*N + j];

As written a launch is 1 + 8M accesses per active thread
(``accesses="source"``). nvcc forwards ``r[k*N + j]`` in the first loop
(only loads follow each store) and in trip 0 of the second; from trip 1 on
the store to ``a`` may alias it, so it is reloaded: 7M per launch
(``"compiled"``). Thread ``N - 1`` is active in launches ``0 .. N-2``, so
makes 7M(N - 1) accesses over the sequence, rdgc Table 4's 7N^2.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import ELEM, Run, ld, register_rdgc, st, update

SOURCE = "Polybench/GPU 1.0 CUDA/GRAMSCHM/gramschmidt.cu (gramschmidt_kernel3)"
N_PAPER = 128  # rdgc Table 4 (the source's default is M = N = 2048)
BLOCK = 256  # DIM_THREAD_BLOCK_X (DIM_THREAD_BLOCK_Y = 1)


def trace(run: Run) -> Workload:
    """The N launches of ``gramschmidt_kernel3`` with ``M = N``."""
    m = n = run.n
    a_base, r_base, q_base = run.alloc(A=m * n, R=m * n, Q=m * n)
    kernels = []
    for k in range(n):
        # Index, two bound comparisons.
        em, j = run.launch_1d("gramschmidt_kernel3", n, BLOCK, prologue=1 + 2)
        active = (j > k) & (j < n)
        r_kj = r_base + (k * n + j) * ELEM
        a_ij = a_base + j * ELEM  # a[i*N + j] in trip i
        q_ik = q_base + k * ELEM  # q[i*N + k] in trip i
        em.straight([st("st_r0", r_kj)], active=active)
        em.loop(update("r", r_kj, [ld("ld_q#1", q_ik, step=n * ELEM),  # multiply, add
                                   ld("ld_a#1", a_ij, step=n * ELEM)], forwarded="always"),
                m, active=active)
        em.loop(update("a", a_ij, [ld("ld_q#2", q_ik, step=n * ELEM),  # multiply, subtract
                                   ld("ld_r#2", r_kj, forwarded="first")], step=n * ELEM),
                m, active=active)
        kernels.append(em.finish())
    return run.workload("gramschmidt", kernels, SOURCE, m=m, n=n, launches=n)


build = register_rdgc("gramschmidt", trace, n_paper=N_PAPER, source=SOURCE, L="7N^2",
                      kernels=["gramschmidt_kernel3"],
                      description=("Polybench/GPU GRAMSCHMIDT kernel 3: 128 launches over a 128x128 "
                                   "float matrix"))
