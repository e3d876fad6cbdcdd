"""rdgc BP: Rodinia 3.1 backprop with 262144 input units (RDGC Table 4: kernels K1, K2; L = 16).

K1 is ``bpnn_layerforward_CUDA``, K2 ``bpnn_adjust_weights_cuda``; the kernel
emulation lives in :func:`golden.workloads._rodinia.backprop_kernels`.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._common import register_workload, scaled
from golden.workloads._rodinia import BLOCK, backprop_kernels

__all__ = ["build", "SIZE"]

#: Input units at scale 1.0 (RDGC Table 4).
SIZE = 262_144

SOURCE = "Rodinia 3.1 cuda/backprop/backprop_cuda.cu, backprop_cuda_kernel.cu"


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Both backprop kernels for ``SIZE * scale`` input units (a multiple of 16).

    ``seed`` is unused: backprop's addresses do not depend on its data.
    """
    n_in = scaled(SIZE, scale, multiple=BLOCK)
    kernels = backprop_kernels(n_in)
    return Workload(name="rdgc/bp", kernels=kernels,
                    params={"input_units": n_in, "hidden_units": BLOCK}, source=SOURCE)


register_workload("rdgc", "bp", build, source=SOURCE, L=16, N=SIZE, size="262144", kernels="K1, K2",
                  description="backprop: forward layer + weight adjustment, 262144 inputs x 16 hidden units")
