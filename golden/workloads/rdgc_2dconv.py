"""rdgc 2DCONV: Polybench/GPU 1.0 ``Convolution2D_kernel``, a 3x3 stencil over a 4096 x 4096 image.

Follows ``CUDA/2DCONV/2DConvolution.cu`` of Polybench/GPU 1.0 (Grauer-Gray
et al., 2012; read from the mirror ``Lai-YT/polybench`` at 5360ec3). One
thread per pixel, ``j = blockIdx.x*32 + threadIdx.x`` (column),
``i = blockIdx.y*8 + threadIdx.y`` (row), 32 x 8 thread blocks; interior
threads read the nine neighbours of ``A`` (``float``, row-major, ``NJ``
columns) in the order the kernel writes them and store ``B[i][j]``.

L = 10 in both access modes (9 distinct loads and a store), as rdgc Table 4.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import ELEM, Run, ld, register_rdgc, st

SOURCE = "Polybench/GPU 1.0 CUDA/2DCONV/2DConvolution.cu (Convolution2D_kernel)"
N_PAPER = 4096  # rdgc Table 4 (also the source's NI = NJ)
BLOCK = (32, 8)  # DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y
# (di, dj) of the nine loads in the kernel's order: c11 c21 c31 c12 c22 c32 c13 c23 c33.
STENCIL = [(di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1)]
FLOPS = 17  # 9 multiplications and 8 additions before the store


def trace(run: Run) -> Workload:
    """One ``Convolution2D_kernel`` launch with ``NI = NJ = N``."""
    ni = nj = run.n
    a_base, b_base = run.alloc(A=ni * nj, B=ni * nj)
    # The source sizes grid.x by NI and grid.y by NJ (equal here). Prologue: two thread
    # indices and four bound comparisons.
    em, i, j = run.launch_2d("Convolution2D_kernel", ni, nj, BLOCK, prologue=2 + 4)
    centre = (i * nj + j) * ELEM
    body = [ld(f"ld_A[{di:+d}][{dj:+d}]", centre, a_base + (di * nj + dj) * ELEM)
            for di, dj in STENCIL]
    body.append(st("st_B", centre, b_base, gap=FLOPS))
    em.straight(body, active=(i < ni - 1) & (j < nj - 1) & (i > 0) & (j > 0))
    return run.workload("2dconv", [em.finish()], SOURCE, ni=ni, nj=nj)


build = register_rdgc("2dconv", trace, n_paper=N_PAPER, minimum=3, source=SOURCE, L="10",
                      kernels=["Convolution2D_kernel"],
                      description="Polybench/GPU 2DCONV: 3x3 convolution of a 4096x4096 float image")
