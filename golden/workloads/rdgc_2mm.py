"""rdgc 2MM: Polybench/GPU 1.0 ``mm2_kernel1`` (``C += A * B``) at N = 384.

Follows ``CUDA/2MM/2mm.cu`` of Polybench/GPU 1.0 (Grauer-Gray et al., 2012;
read from the mirror ``Lai-YT/polybench`` at 516ae01). rdgc Table 4 lists
kernel K1 only, so ``mm2_kernel2`` (``E += C * D``) is not emitted; all five
arrays are still allocated in the program's ``cudaMalloc`` order (A, B, C,
D, E). One thread per element of ``C``: ``j = blockIdx.x*32 + threadIdx.x``,
``i = blockIdx.y*8 + threadIdx.y``, 32 x 8 blocks, and for ``k < NK``::

    C[i * NJ + j] += A[i * NK + k] * B[k * NJ + j];

Per trip the source reads ``C``, ``A``, ``B`` and writes ``C``: L = 4N
(``accesses="source"``). nvcc forwards ``C`` from the previous trip's store
(only loads come between), so compiled code loads it in trip 0 only:
L = 3N + 1 (``"compiled"``); rdgc Table 4 gives 3N.
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

SOURCE = "Polybench/GPU 1.0 CUDA/2MM/2mm.cu (mm2_kernel1)"
N_PAPER = 384  # rdgc Table 4 (the source's default is 2048)
BLOCK = (32, 8)  # DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y


def build(scale: float = 1.0, seed: int = 0, *, accesses: str = "compiled") -> Workload:
    """Trace of one ``mm2_kernel1`` launch with ``NI = NJ = NK = NL = round(384 * scale)``.

    ``seed`` is unused (no data-dependent addresses); ``accesses`` is ``"compiled"`` (default)
    or ``"compiled"`` (see :mod:`golden.workloads._polybench`).
    """
    check_mode(accesses)
    n = problem_size(N_PAPER, scale, 1)
    ni = nj = nk = nl = n
    mem = DeviceMemory()
    a_base = mem.alloc("A", ni * nk * ELEM)
    b_base = mem.alloc("B", nk * nj * ELEM)
    c_base = mem.alloc("C", ni * nj * ELEM)
    mem.alloc("D", nj * nl * ELEM)
    mem.alloc("E", ni * nl * ELEM)
    kb = KernelBuilder("mm2_kernel1", grid=(ceil_div(nj, BLOCK[0]), ceil_div(ni, BLOCK[1])),
                       block=BLOCK)
    j = kb.bx * BLOCK[0] + kb.tx
    i = kb.by * BLOCK[1] + kb.ty
    c_ij = c_base + (i * nj + j) * ELEM
    body = [
        ld("ld_C", c_ij, forwarded="rest"),
        ld("ld_A", a_base + i * nk * ELEM, step=ELEM),
        ld("ld_B", b_base + j * ELEM, step=nj * ELEM),
        st("st_C", c_ij, gap=2),  # multiply, add
    ]
    em = Emitter(kb, accesses, prologue=2 + 2)  # two indices, two bound comparisons
    em.loop(body, nk, active=(i < ni) & (j < nj))
    return make_workload("2mm", [em.finish()], mem, SOURCE, ni=ni, nj=nj, nk=nk, nl=nl,
                         accesses=accesses)


register(WorkloadSpec(
    name="2mm", suite="rdgc", build=build,
    description="Polybench/GPU 2MM kernel 1: C += A*B, 384x384 float matrices",
    source=SOURCE, version=2,
    paper={"size": N_PAPER, "kernels": ["mm2_kernel1"], "L": "3N"},
))
