"""rdgc ATAX: Polybench/GPU 1.0 ``atax_kernel1`` and ``atax_kernel2`` (``y = A^T (A x)``), N = 4096.

Follows ``CUDA/ATAX/atax.cu`` of Polybench/GPU 1.0 (Grauer-Gray et al.,
2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). Both kernels
run one thread per vector element in 256 x 1 blocks, ``blockIdx.x*256 +
threadIdx.x``::

    atax_kernel1:  for j < NY:  tmp[i] += A[i * NY + j] * x[j];    // row walk of A
    atax_kernel2:  for i < NX:  y[j]   += A[i * NY + j] * tmp[i];  // column walk of A

Per trip the source reads the accumulator, ``A`` and the vector, and writes
the accumulator: L = 4N per kernel (``accesses="source"``). nvcc forwards
the accumulator from the previous trip's store (only loads come between):
L = 3N + 1 (``"compiled"``), rdgc Table 4's 1 + 3N.
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

SOURCE = "Polybench/GPU 1.0 CUDA/ATAX/atax.cu (atax_kernel1, atax_kernel2)"
N_PAPER = 4096  # rdgc Table 4 (also the source's NX = NY)
BLOCK = 256  # DIM_THREAD_BLOCK_X (DIM_THREAD_BLOCK_Y = 1)


def build(scale: float = 1.0, seed: int = 0, *, accesses: str = "compiled") -> Workload:
    """Trace of ``atax_kernel1`` then ``atax_kernel2`` with ``NX = NY = round(4096 * scale)``.

    ``seed`` is unused (no data-dependent addresses); ``accesses`` is ``"compiled"`` (default)
    or ``"compiled"`` (see :mod:`golden.workloads._polybench`).
    """
    check_mode(accesses)
    n = problem_size(N_PAPER, scale, 1)
    nx = ny = n
    mem = DeviceMemory()
    a_base = mem.alloc("A", nx * ny * ELEM)
    x_base = mem.alloc("x", ny * ELEM)
    y_base = mem.alloc("y", ny * ELEM)
    tmp_base = mem.alloc("tmp", nx * ELEM)
    pcs = PCs()

    kb = KernelBuilder("atax_kernel1", grid=(ceil_div(nx, BLOCK),), block=(BLOCK,))
    i = kb.bx * BLOCK + kb.tx
    em = Emitter(kb, accesses, prologue=2, pcs=pcs)  # index, bound comparison
    em.loop([ld("k1_ld_tmp", tmp_base + i * ELEM, forwarded="rest"),
             ld("k1_ld_A", a_base + i * ny * ELEM, step=ELEM),
             ld("k1_ld_x", x_base, step=ELEM),
             st("k1_st_tmp", tmp_base + i * ELEM, gap=2)],  # multiply, add
            ny, active=i < nx)
    k1 = em.finish()

    kb = KernelBuilder("atax_kernel2", grid=(ceil_div(ny, BLOCK),), block=(BLOCK,))
    j = kb.bx * BLOCK + kb.tx
    em = Emitter(kb, accesses, prologue=2, pcs=pcs)
    em.loop([ld("k2_ld_y", y_base + j * ELEM, forwarded="rest"),
             ld("k2_ld_A", a_base + j * ELEM, step=ny * ELEM),
             ld("k2_ld_tmp", tmp_base, step=ELEM),
             st("k2_st_y", y_base + j * ELEM, gap=2)],
            nx, active=j < ny)
    return make_workload("atax", [k1, em.finish()], mem, SOURCE, nx=nx, ny=ny,
                         accesses=accesses)


register(WorkloadSpec(
    name="atax", suite="rdgc", build=build,
    description="Polybench/GPU ATAX: y = A^T (A x), 4096x4096 float matrix, two kernels",
    source=SOURCE, version=2,
    paper={"size": N_PAPER, "kernels": ["atax_kernel1", "atax_kernel2"], "L": "1 + 3N"},
))
