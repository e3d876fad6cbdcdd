"""tian15 ``nw``: Rodinia 3.1 Needleman-Wunsch (``needle``) on a 512x512 score matrix.

tian15 Table 2 lists nw at "512x512": ``./needle 512 10``, two sequences of
512 (a ``513 x 513`` score matrix with its border row and column) and gap
penalty 10. The host sweeps the anti-diagonals of 16x16 tiles with
``needle_cuda_shared_1<<<i, 16>>>`` for ``i = 1 .. 32`` and
``needle_cuda_shared_2<<<i, 16>>>`` for ``i = 31 .. 1``; each CTA stages its
tile's reference scores and borders in shared memory, fills the tile
diagonal by diagonal there and writes it back (tian15 Section 5.3.1). The
kernels are emulated by :func:`golden.workloads._rodinia.needle_kernels`,
shared with rdgc's NW; this module picks tian15's size. tian15 compiled the
OpenCL port (``nw.cl``, ``nw_kernel1/2``) with the same index arithmetic; see
``docs/workloads/tian15_b.md``.
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._rodinia import BLOCK, needle_kernels

__all__ = ["build", "SIZE", "PENALTY"]

#: Sequence length at scale 1.0 (tian15 Table 2: 512x512, MI 30.4).
SIZE = 512
#: Gap penalty of Rodinia's run script (``./needle <n> 10``).
PENALTY = 10

SOURCE = ("Rodinia 3.1 cuda/nw/needle_kernel.cu (needle_cuda_shared_1, needle_cuda_shared_2), "
          "needle.cu")


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """The nw wavefront for sequences of ``512 * scale`` (a multiple of 16, at least 32).

    ``seed`` is unused: the sequences and scores never reach an address.
    """
    n = scaled(SIZE, scale, multiple=BLOCK, minimum=2 * BLOCK)
    mem = DeviceMemory()
    kernels = needle_kernels(n, PENALTY, mem=mem, pcs=PCs())
    return Workload(name="tian15/nw", kernels=kernels,
                    params={"n": n, "max_cols": n + 1, "penalty": PENALTY,
                            "arrays": mem.sizes()},
                    source=SOURCE)


register_workload("tian15", "nw", build, source=SOURCE, mi=30.4, size="512x512",
                  description="Needleman-Wunsch wavefront, 16x16 shared-memory tiles, 513x513 scores")
