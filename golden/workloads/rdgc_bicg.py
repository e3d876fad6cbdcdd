"""rdgc BICG: Polybench/GPU 1.0 ``bicg_kernel1``, ``bicg_kernel2`` (``s = A^T r``, ``q = A p``).

Follows ``CUDA/BICG/bicg.cu`` of Polybench/GPU 1.0 (Grauer-Gray et al.,
2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). Both kernels
run one thread per vector element in 256 x 1 blocks::

    bicg_kernel1:  s[j] = 0;  for i < NX:  s[j] += A[i * NY + j] * r[i];  // column walk
    bicg_kernel2:  q[i] = 0;  for j < NY:  q[i] += A[i * NY + j] * p[j];  // row walk

The source makes 1 + 4N accesses per thread (``accesses="source"``); nvcc
forwards the accumulator from the store before it (the zeroing store, then
each trip's store; only loads come between), so compiled code makes
1 + 3N (``"compiled"``), rdgc Table 4's 1 + 3N.
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

SOURCE = "Polybench/GPU 1.0 CUDA/BICG/bicg.cu (bicg_kernel1, bicg_kernel2)"
N_PAPER = 4096  # rdgc Table 4 (also the source's NX = NY)
BLOCK = 256  # DIM_THREAD_BLOCK_X (DIM_THREAD_BLOCK_Y = 1)


def build(scale: float = 1.0, seed: int = 0, *, accesses: str = "compiled") -> Workload:
    """Trace of ``bicg_kernel1`` then ``bicg_kernel2`` with ``NX = NY = round(4096 * scale)``.

    ``seed`` is unused (no data-dependent addresses); ``accesses`` is ``"compiled"`` (default)
    or ``"compiled"`` (see :mod:`golden.workloads._polybench`).
    """
    check_mode(accesses)
    n = problem_size(N_PAPER, scale, 1)
    nx = ny = n
    mem = DeviceMemory()
    a_base = mem.alloc("A", nx * ny * ELEM)
    r_base = mem.alloc("r", nx * ELEM)
    s_base = mem.alloc("s", ny * ELEM)
    p_base = mem.alloc("p", ny * ELEM)
    q_base = mem.alloc("q", nx * ELEM)
    pcs = PCs()

    kb = KernelBuilder("bicg_kernel1", grid=(ceil_div(ny, BLOCK),), block=(BLOCK,))
    j = kb.bx * BLOCK + kb.tx
    em = Emitter(kb, accesses, prologue=2, pcs=pcs)  # index, bound comparison
    em.straight([st("k1_st_s0", s_base + j * ELEM)], active=j < ny)
    em.loop([ld("k1_ld_s", s_base + j * ELEM, forwarded="always"),
             ld("k1_ld_A", a_base + j * ELEM, step=ny * ELEM),
             ld("k1_ld_r", r_base, step=ELEM),
             st("k1_st_s", s_base + j * ELEM, gap=2)],  # multiply, add
            nx, active=j < ny)
    k1 = em.finish()

    kb = KernelBuilder("bicg_kernel2", grid=(ceil_div(nx, BLOCK),), block=(BLOCK,))
    i = kb.bx * BLOCK + kb.tx
    em = Emitter(kb, accesses, prologue=2, pcs=pcs)
    em.straight([st("k2_st_q0", q_base + i * ELEM)], active=i < nx)
    em.loop([ld("k2_ld_q", q_base + i * ELEM, forwarded="always"),
             ld("k2_ld_A", a_base + i * ny * ELEM, step=ELEM),
             ld("k2_ld_p", p_base, step=ELEM),
             st("k2_st_q", q_base + i * ELEM, gap=2)],
            ny, active=i < nx)
    return make_workload("bicg", [k1, em.finish()], mem, SOURCE, nx=nx, ny=ny,
                         accesses=accesses)


register(WorkloadSpec(
    name="bicg", suite="rdgc", build=build,
    description="Polybench/GPU BICG: s = A^T r and q = A p, 4096x4096 float matrix, two kernels",
    source=SOURCE, version=2,
    paper={"size": N_PAPER, "kernels": ["bicg_kernel1", "bicg_kernel2"], "L": "1 + 3N"},
))
