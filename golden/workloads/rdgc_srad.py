"""rdgc SRAD: Rodinia 3.1 srad_v2 on a 2048 x 2048 image (RDGC Table 4: K1, K2; L = 12).

K1 is ``srad_cuda_1``, K2 ``srad_cuda_2``, one launch each (one SRAD
iteration); the kernel emulation lives in
:func:`golden.workloads._rodinia.srad_v2_kernels`.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._common import register_workload, scaled
from golden.workloads._rodinia import BLOCK, srad_v2_kernels

__all__ = ["build", "SIZE", "NITER"]

#: Image rows and columns at scale 1.0 (RDGC Table 4).
SIZE = 2048
#: SRAD iterations: one launch of each kernel, the K1, K2 RDGC Table 4 names.
NITER = 1

SOURCE = "Rodinia 3.1 cuda/srad/srad_v2/srad.cu, srad_kernel.cu"


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """srad_cuda_1 and srad_cuda_2 on a square image of ``SIZE * scale`` (a multiple of 16).

    ``seed`` is unused: srad_v2's addresses do not depend on the image.
    """
    n = scaled(SIZE, scale, multiple=BLOCK)
    kernels = srad_v2_kernels(n, n, NITER)
    return Workload(name="rdgc/srad", kernels=kernels,
                    params={"rows": n, "cols": n, "niter": NITER}, source=SOURCE)


register_workload("rdgc", "srad", build, source=SOURCE, L=12, N=SIZE, size="2048", kernels="K1, K2",
                  description=("srad_v2: speckle-reducing anisotropic diffusion, 2048x2048 "
                               "image, one iteration"))
