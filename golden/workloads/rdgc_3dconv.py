"""rdgc 3DCONV: Polybench/GPU 1.0 ``convolution3D_kernel`` over a 256^3 volume.

Follows ``CUDA/3DCONV/3DConvolution.cu`` of Polybench/GPU 1.0 (Grauer-Gray
et al., 2012; read from the mirror ``Lai-YT/polybench`` at 5360ec3). The
host launches the kernel once per plane ``i = 1 .. NI-2``; one thread per
``(j, k)``: ``k = blockIdx.x*32 + threadIdx.x``, ``j = blockIdx.y*8 +
threadIdx.y``, 32 x 8 blocks. An interior thread evaluates the kernel's
15-term expression over ``A`` and stores ``B[i][j][k]``.

The expression reads ``A[i-1][j-1][k-1]`` three times and
``A[i+1][j-1][k-1]`` three times. As written a launch is 15 loads and a
store (16 per thread, ``accesses="source"``); nvcc loads each distinct
element once (no store comes between), so compiled code is 11 loads and a
store (``"compiled"``). Over the ``NI - 2`` launches a thread makes
12 (N - 2) accesses, rdgc Table 4's 12N.

Launch ``i`` addresses exactly what launch 1 does, ``(i - 1) * NJ * NK``
elements further, so launches 2 .. NI-2 are copies of launch 1 moved by
:func:`~golden.workloads._polybench.shifted`.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import ELEM, Run, ld, register_rdgc, shifted, st

SOURCE = "Polybench/GPU 1.0 CUDA/3DCONV/3DConvolution.cu (convolution3D_kernel)"
N_PAPER = 256  # rdgc Table 4 (also the source's NI = NJ = NK)
BLOCK = (32, 8)  # DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y
# (di, dj, dk) of the 15 loads in the kernel's order (c11 c13 c21 c23 c31 c33 c12 c22 c32
# c11 c13 c21 c23 c31 c33).
TERMS = [(-1, -1, -1), (1, -1, -1), (-1, -1, -1), (1, -1, -1), (-1, -1, -1), (1, -1, -1),
         (0, -1, 0), (0, 0, 0), (0, 1, 0), (-1, -1, 1), (1, -1, 1), (-1, 0, 1), (1, 0, 1),
         (-1, 1, 1), (1, 1, 1)]
FLOPS = 29  # 15 multiplications and 14 additions before the store


def trace(run: Run) -> Workload:
    """The ``NI - 2`` launches of ``convolution3D_kernel``, ``NI = NJ = NK = N``."""
    ni = nj = nk = run.n
    a_base, b_base = run.alloc(A=ni * nj * nk, B=ni * nj * nk)
    plane = nj * nk
    # k is the column index, j the row. Prologue: two indices, six bound comparisons.
    em, j, k = run.launch_2d("convolution3D_kernel", nk, nj, BLOCK, prologue=2 + 6)
    first = 1  # the template launch; its i-conditions hold
    centre = (first * plane + j * nk + k) * ELEM
    body, seen = [], set()
    for di, dj, dk in TERMS:
        # A repeated term is the same element: nvcc reuses the value it loaded.
        body.append(ld(f"ld_A[{di:+d}][{dj:+d}][{dk:+d}]#{len(body)}", centre,
                       a_base + (di * plane + dj * nk + dk) * ELEM,
                       forwarded="always" if (di, dj, dk) in seen else "never"))
        seen.add((di, dj, dk))
    body.append(st("st_B", centre, b_base, gap=FLOPS))
    em.straight(body, active=(j < nj - 1) & (k < nk - 1) & (j > 0) & (k > 0))
    template = em.finish()
    kernels = [template] + [shifted(template, (i - first) * plane * ELEM)
                            for i in range(first + 1, ni - 1)]
    return run.workload("3dconv", kernels, SOURCE, ni=ni, nj=nj, nk=nk, launches=len(kernels))


build = register_rdgc("3dconv", trace, n_paper=N_PAPER, minimum=3, source=SOURCE, L="12N",
                      kernels=["convolution3D_kernel"],
                      description=("Polybench/GPU 3DCONV: 3D convolution of a 256^3 float volume, a "
                                   "launch per plane"))
