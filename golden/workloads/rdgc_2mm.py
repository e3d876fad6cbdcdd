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

from golden.trace.model import Workload
from golden.workloads._polybench import ELEM, Run, ld, register_rdgc, update

SOURCE = "Polybench/GPU 1.0 CUDA/2MM/2mm.cu (mm2_kernel1)"
N_PAPER = 384  # rdgc Table 4 (the source's default is 2048)
BLOCK = (32, 8)  # DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y


def trace(run: Run) -> Workload:
    """One ``mm2_kernel1`` launch with ``NI = NJ = NK = NL = N``."""
    ni = nj = nk = nl = run.n
    a_base, b_base, c_base, _, _ = run.alloc(A=ni * nk, B=nk * nj, C=ni * nj, D=nj * nl, E=ni * nl)
    # Two indices, two bound comparisons.
    em, i, j = run.launch_2d("mm2_kernel1", nj, ni, BLOCK, prologue=2 + 2)
    em.loop(update("C", c_base + (i * nj + j) * ELEM,  # multiply, add
                   [ld("ld_A", a_base + i * nk * ELEM, step=ELEM),
                    ld("ld_B", b_base + j * ELEM, step=nj * ELEM)], forwarded="rest"),
            nk, active=(i < ni) & (j < nj))
    return run.workload("2mm", [em.finish()], SOURCE, ni=ni, nj=nj, nk=nk, nl=nl)


build = register_rdgc("2mm", trace, n_paper=N_PAPER, source=SOURCE, L="3N",
                      kernels=["mm2_kernel1"],
                      description="Polybench/GPU 2MM kernel 1: C += A*B, 384x384 float matrices")
