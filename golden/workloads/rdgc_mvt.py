"""rdgc MVT: Polybench/GPU 1.0 ``mvt_kernel1``, ``mvt_kernel2`` (``x1 += A y1``, ``x2 += A^T y2``).

Follows ``CUDA/MVT/mvt.cu`` of Polybench/GPU 1.0 (Grauer-Gray et al., 2012;
read from the mirror ``Lai-YT/polybench`` at 516ae01). Both kernels run one
thread per element, ``i = blockIdx.x*256 + threadIdx.x``, in 256 x 1 blocks::

    mvt_kernel1:  for j < N:  x1[i] += a[i * N + j] * y_1[j];  // row walk of a
    mvt_kernel2:  for j < N:  x2[i] += a[j * N + i] * y_2[j];  // column walk of a

Per trip the source reads the accumulator, ``a`` and the vector, and writes
the accumulator: L = 4N (``accesses="source"``). nvcc forwards the
accumulator from the previous trip's store: L = 3N + 1 (``"compiled"``),
rdgc Table 4's 3N + 1.
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

SOURCE = "Polybench/GPU 1.0 CUDA/MVT/mvt.cu (mvt_kernel1, mvt_kernel2)"
N_PAPER = 4096  # rdgc Table 4 (also the source's N)
BLOCK = 256  # DIM_THREAD_BLOCK_X (DIM_THREAD_BLOCK_Y = 1)


def build(scale: float = 1.0, seed: int = 0, *, accesses: str = "compiled") -> Workload:
    """Trace of ``mvt_kernel1`` then ``mvt_kernel2`` with ``N = round(4096 * scale)``.

    ``seed`` is unused (no data-dependent addresses); ``accesses`` is ``"compiled"`` (default)
    or ``"compiled"`` (see :mod:`golden.workloads._polybench`).
    """
    check_mode(accesses)
    n = problem_size(N_PAPER, scale, 1)
    mem = DeviceMemory()
    a_base = mem.alloc("a", n * n * ELEM)
    x1_base = mem.alloc("x1", n * ELEM)
    x2_base = mem.alloc("x2", n * ELEM)
    y1_base = mem.alloc("y_1", n * ELEM)
    y2_base = mem.alloc("y_2", n * ELEM)
    pcs = PCs()
    kernels = []
    # (name, accumulator, vector, a's address of (i, j=0), a's step per j)
    for k, (name, x_base, y_base, a_row, a_step) in enumerate([
        ("mvt_kernel1", x1_base, y1_base, n * ELEM, ELEM),
        ("mvt_kernel2", x2_base, y2_base, ELEM, n * ELEM),
    ], start=1):
        kb = KernelBuilder(name, grid=(ceil_div(n, BLOCK),), block=(BLOCK,))
        i = kb.bx * BLOCK + kb.tx
        em = Emitter(kb, accesses, prologue=2, pcs=pcs)  # index, bound comparison
        em.loop([ld(f"k{k}_ld_x", x_base + i * ELEM, forwarded="rest"),
                 ld(f"k{k}_ld_a", a_base + i * a_row, step=a_step),
                 ld(f"k{k}_ld_y", y_base, step=ELEM),
                 st(f"k{k}_st_x", x_base + i * ELEM, gap=2)],  # multiply, add
                n, active=i < n)
        kernels.append(em.finish())
    return make_workload("mvt", kernels, mem, SOURCE, n=n, accesses=accesses)


register(WorkloadSpec(
    name="mvt", suite="rdgc", build=build,
    description="Polybench/GPU MVT: x1 += A y1 and x2 += A^T y2, 4096x4096 float matrix",
    source=SOURCE, version=2,
    paper={"size": N_PAPER, "kernels": ["mvt_kernel1", "mvt_kernel2"], "L": "3N + 1"},
))
