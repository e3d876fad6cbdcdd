"""kim20 LUD: Rodinia 3.1 LU decomposition (``lud_cuda``) at the run script's 256x256.

kim20 names no input; Rodinia 3.1's ``cuda/lud/run`` runs ``lud_cuda -s 256
-v``: a generated 256x256 float matrix. For every block step ``i = 0, 16,
..., 224`` the host launches ``lud_diagonal<<<1, 16>>>``,
``lud_perimeter<<<(256 - i)/16 - 1, 32>>>`` and ``lud_internal<<<((256 -
i)/16 - 1)^2, (16, 16)>>>``, then a final ``lud_diagonal``. The kernels
are the same program as tian15's lud and are emulated once, by
:func:`golden.workloads.tian15_lud.lud_kernels`; this module picks the size
and sets the registers per thread. The small matrix is what gives LUD its
low warp occupancy (kim20 Fig. 1: 18 %): most launches have a handful of
CTAs.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads.tian15_lud import BS, lud_kernels

__all__ = ["build", "DIM", "REGS"]

#: Matrix side at scale 1.0 (Rodinia 3.1 cuda/lud/run: -s 256).
DIM = 256
#: Registers per thread: estimate (docs/workloads/kim20.md, "Registers").
REGS = {"lud_diagonal": 24, "lud_perimeter": 32, "lud_internal": 20}

SOURCE = "Rodinia 3.1 cuda/lud/lud_kernel.cu (lud_diagonal, lud_perimeter, lud_internal), lud.cu, run"


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """lud at side ``256 * scale`` (a multiple of 16, at least 32); ``seed`` is unused."""
    dim = scaled(DIM, scale, multiple=BS, minimum=2 * BS)
    mem = DeviceMemory()
    m0 = mem.alloc("m", dim * dim * 4)  # lud.cu: cudaMalloc d_m
    kernels = with_resources(lud_kernels(dim, m0, PCs()), REGS)
    return Workload(name="kim20/lud", kernels=kernels,
                    params={"matrix_dim": dim, "block_size": BS, "arrays": mem.sizes()},
                    source=SOURCE)


register_workload(SUITE, "lud", build, source=SOURCE, size="256x256",
                  description="LU decomposition, 16x16 shared-memory tiles, 256x256 floats",
                  **paper_figures("lud"))
