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

from golden.trace.builder import KernelBuilder
from golden.trace.model import Workload
from golden.workloads._common import DeviceMemory
from golden.workloads._polybench import (
    ELEM,
    Emitter,
    ceil_div,
    check_mode,
    ld,
    make_workload,
    problem_size,
    st,
)
from golden.workloads.registry import WorkloadSpec, register

SOURCE = "Polybench/GPU 1.0 CUDA/SYR2K/syr2k.cu (syr2k_kernel)"
N_PAPER = 256  # rdgc Table 4 (the source's default is N = M = 2048)
BLOCK = (32, 8)  # DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y


def build(scale: float = 1.0, seed: int = 0, *, accesses: str = "compiled") -> Workload:
    """Trace of one ``syr2k_kernel`` launch with ``N = M = round(256 * scale)``.

    ``seed`` is unused (no data-dependent addresses); ``accesses`` is ``"compiled"`` (default)
    or ``"compiled"`` (see :mod:`golden.workloads._polybench`).
    """
    check_mode(accesses)
    n = m = problem_size(N_PAPER, scale, 1)
    mem = DeviceMemory()
    a_base = mem.alloc("A", n * m * ELEM)
    b_base = mem.alloc("B", n * m * ELEM)
    c_base = mem.alloc("C", n * n * ELEM)
    kb = KernelBuilder("syr2k_kernel", grid=(ceil_div(n, BLOCK[0]), ceil_div(n, BLOCK[1])),
                       block=BLOCK)
    j = kb.bx * BLOCK[0] + kb.tx
    i = kb.by * BLOCK[1] + kb.ty
    active = (i < n) & (j < n)
    c_ij = c_base + (i * n + j) * ELEM
    row_i, row_j = i * m * ELEM, j * m * ELEM
    em = Emitter(kb, accesses, prologue=2 + 2)  # two indices, two bound comparisons
    em.straight([ld("ld_c0", c_ij), st("st_c0", c_ij, gap=1)], active=active)  # multiply
    em.loop([ld("ld_c", c_ij, forwarded="always"),
             ld("ld_a_ik", row_i, a_base, step=ELEM),
             ld("ld_b_jk", row_j, b_base, step=ELEM),
             ld("ld_b_ik", row_i, b_base, step=ELEM),
             ld("ld_a_jk", row_j, a_base, step=ELEM),
             st("st_c", c_ij, gap=6)],  # four multiplications, two adds
            m, active=active)
    return make_workload("syr2k", [em.finish()], mem, SOURCE, n=n, m=m, accesses=accesses)


register(WorkloadSpec(
    name="syr2k", suite="rdgc", build=build,
    description="Polybench/GPU SYR2K: C = alpha (A B^T + B A^T) + beta C, 256x256 floats",
    source=SOURCE, version=2,
    paper={"size": N_PAPER, "kernels": ["syr2k_kernel"], "L": "5N + 1"},
))
