"""rdgc NW: Rodinia 3.1 Needleman-Wunsch on 4096-long sequences (RDGC Table 4: K1, K2; L = 8384).

K1 is ``needle_cuda_shared_1`` (256 launches at full size), K2
``needle_cuda_shared_2`` (255 launches); the kernel emulation lives in
:func:`golden.workloads._rodinia.needle_kernels`. The source gives at most 35
global accesses per thread and launch, not RDGC's 8384
(docs/workloads/rdgc_rodinia.md).
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._common import register_workload, scaled
from golden.workloads._rodinia import BLOCK, needle_kernels

__all__ = ["build", "SIZE", "PENALTY"]

#: Sequence length at scale 1.0 (RDGC Table 4).
SIZE = 4096
#: Gap penalty of Rodinia's run script (``./needle <n> 10``).
PENALTY = 10

SOURCE = "Rodinia 3.1 cuda/nw/needle.cu, needle_kernel.cu"


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """The nw wavefront for ``SIZE * scale`` (a multiple of 16); ``seed`` is unused."""
    n = scaled(SIZE, scale, multiple=BLOCK)
    kernels = needle_kernels(n, PENALTY)
    return Workload(name="rdgc/nw", kernels=kernels,
                    params={"n": n, "penalty": PENALTY}, source=SOURCE)


register_workload("rdgc", "nw", build, source=SOURCE, L=8384, N=SIZE, size="4096", kernels="K1, K2",
                  description="Needleman-Wunsch: 16x16-tile wavefront over a 4097x4097 score matrix")
