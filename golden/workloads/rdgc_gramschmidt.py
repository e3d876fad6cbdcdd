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

from golden.trace.builder import KernelBuilder
from golden.trace.model import Workload
from golden.workloads._common import DeviceMemory, PCs
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

SOURCE = "Polybench/GPU 1.0 CUDA/GRAMSCHM/gramschmidt.cu (gramschmidt_kernel3)"
N_PAPER = 128  # rdgc Table 4 (the source's default is M = N = 2048)
BLOCK = 256  # DIM_THREAD_BLOCK_X (DIM_THREAD_BLOCK_Y = 1)


def build(scale: float = 1.0, seed: int = 0, *, accesses: str = "compiled") -> Workload:
    """Trace of the N launches of ``gramschmidt_kernel3`` with ``M = N = round(128 * scale)``.

    ``seed`` is unused (no data-dependent addresses); ``accesses`` is ``"compiled"`` (default)
    or ``"compiled"`` (see :mod:`golden.workloads._polybench`).
    """
    check_mode(accesses)
    m = n = problem_size(N_PAPER, scale, 1)
    mem = DeviceMemory()
    a_base = mem.alloc("A", m * n * ELEM)
    r_base = mem.alloc("R", m * n * ELEM)
    q_base = mem.alloc("Q", m * n * ELEM)
    pcs = PCs()
    kernels = []
    for k in range(n):
        kb = KernelBuilder("gramschmidt_kernel3", grid=(ceil_div(n, BLOCK),), block=(BLOCK,))
        j = kb.bx * BLOCK + kb.tx
        active = (j > k) & (j < n)
        r_kj = r_base + (k * n + j) * ELEM
        em = Emitter(kb, accesses, prologue=1 + 2, pcs=pcs)  # index, two bound comparisons
        em.straight([st("st_r0", r_kj)], active=active)
        em.loop([ld("ld_r#1", r_kj, forwarded="always"),
                 ld("ld_q#1", q_base + k * ELEM, step=n * ELEM),
                 ld("ld_a#1", a_base + j * ELEM, step=n * ELEM),
                 st("st_r", r_kj, gap=2)],  # multiply, add
                m, active=active)
        em.loop([ld("ld_a#2", a_base + j * ELEM, step=n * ELEM),
                 ld("ld_q#2", q_base + k * ELEM, step=n * ELEM),
                 ld("ld_r#2", r_kj, forwarded="first"),
                 st("st_a", a_base + j * ELEM, step=n * ELEM, gap=2)],  # multiply, subtract
                m, active=active)
        kernels.append(em.finish())
    return make_workload("gramschmidt", kernels, mem, SOURCE, m=m, n=n, launches=n,
                         accesses=accesses)


register(WorkloadSpec(
    name="gramschmidt", suite="rdgc", build=build,
    description="Polybench/GPU GRAMSCHMIDT kernel 3: 128 launches over a 128x128 float matrix",
    source=SOURCE, version=2,
    paper={"size": N_PAPER, "kernels": ["gramschmidt_kernel3"], "L": "7N^2"},
))
