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

SOURCE = "Polybench/GPU 1.0 CUDA/SYRK/syrk.cu (syrk_kernel)"
N_PAPER = 256  # rdgc Table 4 (the source's default is N = M = 1024)
BLOCK = (32, 8)  # DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y


def build(scale: float = 1.0, seed: int = 0, *, accesses: str = "compiled") -> Workload:
    """Trace of one ``syrk_kernel`` launch with ``N = M = round(256 * scale)``.

    ``seed`` is unused (no data-dependent addresses); ``accesses`` is ``"compiled"`` (default)
    or ``"compiled"`` (see :mod:`golden.workloads._polybench`).
    """
    check_mode(accesses)
    n = m = problem_size(N_PAPER, scale, 1)
    mem = DeviceMemory()
    a_base = mem.alloc("A", n * m * ELEM)
    c_base = mem.alloc("C", n * n * ELEM)
    kb = KernelBuilder("syrk_kernel", grid=(ceil_div(n, BLOCK[0]), ceil_div(n, BLOCK[1])),
                       block=BLOCK)
    j = kb.bx * BLOCK[0] + kb.tx
    i = kb.by * BLOCK[1] + kb.ty
    active = (i < n) & (j < n)
    c_ij = c_base + (i * n + j) * ELEM
    em = Emitter(kb, accesses, prologue=2 + 2)  # two indices, two bound comparisons
    em.straight([ld("ld_c0", c_ij), st("st_c0", c_ij, gap=1)], active=active)  # multiply
    em.loop([ld("ld_c", c_ij, forwarded="always"),
             ld("ld_a_ik", i * m * ELEM, a_base, step=ELEM),
             ld("ld_a_jk", j * m * ELEM, a_base, step=ELEM),
             st("st_c", c_ij, gap=3)],  # two multiplications, an add
            m, active=active)
    return make_workload("syrk", [em.finish()], mem, SOURCE, n=n, m=m, accesses=accesses)


register(WorkloadSpec(
    name="syrk", suite="rdgc", build=build,
    description="Polybench/GPU SYRK: C = alpha A A^T + beta C, 256x256 float matrices",
    source=SOURCE, version=2,
    paper={"size": N_PAPER, "kernels": ["syrk_kernel"], "L": "3N + 2"},
))
