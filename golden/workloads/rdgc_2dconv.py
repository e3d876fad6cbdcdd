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

SOURCE = "Polybench/GPU 1.0 CUDA/2DCONV/2DConvolution.cu (Convolution2D_kernel)"
N_PAPER = 4096  # rdgc Table 4 (also the source's NI = NJ)
BLOCK = (32, 8)  # DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y
# (di, dj) of the nine loads in the kernel's order: c11 c21 c31 c12 c22 c32 c13 c23 c33.
STENCIL = [(di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1)]
FLOPS = 17  # 9 multiplications and 8 additions before the store


def build(scale: float = 1.0, seed: int = 0, *, accesses: str = "compiled") -> Workload:
    """Trace of one ``Convolution2D_kernel`` launch.

    Parameters
    ----------
    scale : float
        ``NI = NJ = round(4096 * scale)`` (at least 3).
    seed : int
        Unused: the kernel's addresses do not depend on data.
    accesses : str
        ``"source"`` or ``"compiled"`` (see :mod:`golden.workloads._polybench`).
    """
    check_mode(accesses)
    n = problem_size(N_PAPER, scale, 3)
    ni = nj = n
    mem = DeviceMemory()
    a_base = mem.alloc("A", ni * nj * ELEM)
    b_base = mem.alloc("B", ni * nj * ELEM)
    # The source sizes grid.x by NI and grid.y by NJ (equal here).
    kb = KernelBuilder("Convolution2D_kernel",
                       grid=(ceil_div(ni, BLOCK[0]), ceil_div(nj, BLOCK[1])), block=BLOCK)
    j = kb.bx * BLOCK[0] + kb.tx
    i = kb.by * BLOCK[1] + kb.ty
    active = (i < ni - 1) & (j < nj - 1) & (i > 0) & (j > 0)
    centre = (i * nj + j) * ELEM
    body = [ld(f"ld_A[{di:+d}][{dj:+d}]", centre, a_base + (di * nj + dj) * ELEM)
            for di, dj in STENCIL]
    body.append(st("st_B", centre, b_base, gap=FLOPS))
    # Prologue: two thread indices and four bound comparisons.
    em = Emitter(kb, accesses, prologue=2 + 4)
    em.straight(body, active=active)
    return make_workload("2dconv", [em.finish()], mem, SOURCE, ni=ni, nj=nj, accesses=accesses)


register(WorkloadSpec(
    name="2dconv", suite="rdgc", build=build,
    description="Polybench/GPU 2DCONV: 3x3 convolution of a 4096x4096 float image",
    source=SOURCE, version=2,
    paper={"size": N_PAPER, "kernels": ["Convolution2D_kernel"], "L": "10"},
))
