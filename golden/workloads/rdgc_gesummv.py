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

SOURCE = "Polybench/GPU 1.0 CUDA/GESUMMV/gesummv.cu (gesummv_kernel)"
N_PAPER = 4096  # rdgc Table 4 (also the source's N)
BLOCK = 256  # DIM_THREAD_BLOCK_X (DIM_THREAD_BLOCK_Y = 1)


def build(scale: float = 1.0, seed: int = 0, *, accesses: str = "compiled") -> Workload:
    """Trace of one ``gesummv_kernel`` launch with ``N = round(4096 * scale)``.

    ``seed`` is unused (no data-dependent addresses); ``accesses`` is ``"compiled"`` (default)
    or ``"compiled"`` (see :mod:`golden.workloads._polybench`).
    """
    check_mode(accesses)
    n = problem_size(N_PAPER, scale, 1)
    mem = DeviceMemory()
    a_base = mem.alloc("A", n * n * ELEM)
    b_base = mem.alloc("B", n * n * ELEM)
    x_base = mem.alloc("x", n * ELEM)
    y_base = mem.alloc("y", n * ELEM)
    tmp_base = mem.alloc("tmp", n * ELEM)
    kb = KernelBuilder("gesummv_kernel", grid=(ceil_div(n, BLOCK),), block=(BLOCK,))
    i = kb.bx * BLOCK + kb.tx
    active = i < n
    tmp_i, y_i, row = tmp_base + i * ELEM, y_base + i * ELEM, i * n * ELEM
    em = Emitter(kb, accesses, prologue=2)  # index, bound comparison
    em.loop([ld("ld_tmp", tmp_i),
             ld("ld_a", row, a_base, step=ELEM),
             ld("ld_x#1", x_base, step=ELEM),
             st("st_tmp", tmp_i, gap=2),  # multiply, add
             ld("ld_y", y_i),
             ld("ld_b", row, b_base, step=ELEM),
             ld("ld_x#2", x_base, step=ELEM),
             st("st_y", y_i, gap=2)],
            n, active=active)
    em.straight([ld("ld_tmp_out", tmp_i),
                 ld("ld_y_out", y_i, forwarded="always"),
                 st("st_y_out", y_i, gap=3)],  # two multiplications, an add
                active=active)
    return make_workload("gesummv", [em.finish()], mem, SOURCE, n=n, accesses=accesses)


register(WorkloadSpec(
    name="gesummv", suite="rdgc", build=build,
    description="Polybench/GPU GESUMMV: y = alpha A x + beta B x, 4096x4096 float matrices",
    source=SOURCE, version=2,
    paper={"size": N_PAPER, "kernels": ["gesummv_kernel"], "L": "8N + 2"},
))
