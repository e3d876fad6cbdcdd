"""tian15 ``backprop``: Rodinia 3.1 back-propagation, 8192 input units x 16 hidden units.

tian15 Table 2 lists backprop at "8192x16": ``layer_size = 8192`` input
units and the 16 hidden units that Rodinia's ``facetrain.c`` hard-codes
(``bpnn_create(layer_size, 16, 1)``). The two kernels,
``bpnn_layerforward_CUDA`` (shared-memory tree reduction of each 16x16
weight tile) and ``bpnn_adjust_weights_cuda``, both on a ``(1, in/16)`` grid
of 16x16 CTAs, are emulated by
:func:`golden.workloads._rodinia.backprop_kernels`, shared with rdgc's BP;
this module picks tian15's size. tian15 compiled the OpenCL port
(``backprop_kernel.cl``), whose global accesses are the same; see
``docs/workloads/tian15_b.md``.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._rodinia import BLOCK, backprop_kernels

__all__ = ["build", "SIZE"]

#: Input units at scale 1.0 (tian15 Table 2: 8192x16, MI 89.7).
SIZE = 8192

SOURCE = ("Rodinia 3.1 cuda/backprop/backprop_cuda_kernel.cu (bpnn_layerforward_CUDA, "
          "bpnn_adjust_weights_cuda), backprop_cuda.cu")


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Both backprop kernels for ``8192 * scale`` input units (a multiple of 16).

    ``seed`` is unused: backprop's addresses do not depend on its data.
    """
    n_in = scaled(SIZE, scale, multiple=BLOCK)
    mem = DeviceMemory()
    kernels = backprop_kernels(n_in, mem=mem, pcs=PCs())
    return Workload(name="tian15/backprop", kernels=kernels,
                    params={"input_units": n_in, "hidden_units": BLOCK, "output_units": 1,
                            "arrays": mem.sizes()},
                    source=SOURCE)


register_workload("tian15", "backprop", build, source=SOURCE, mi=89.7, size="8192x16",
                  description="back-propagation training step, 8192 input x 16 hidden units")
