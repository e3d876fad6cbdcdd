"""kim20 NW: Rodinia 3.1 Needleman-Wunsch (``needle``) at the Rodinia run script's 2048x2048.

kim20 names no input; Rodinia 3.1's ``cuda/nw/run`` runs ``./needle 2048
10``: two sequences of 2048 (a ``2049 x 2049`` score matrix) and gap
penalty 10. The host sweeps the anti-diagonals of 16x16 tiles with
``needle_cuda_shared_1<<<i, 16>>>`` for ``i = 1 .. 128`` and
``needle_cuda_shared_2<<<i, 16>>>`` for ``i = 127 .. 1``. The kernels are
the same program as rdgc's and tian15's NW and are emulated once, by
:func:`golden.workloads._rodinia.needle_kernels`; this module picks the size
and sets the registers per thread (docs/workloads/kim20.md).
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads._rodinia import BLOCK, needle_kernels

__all__ = ["build", "SIZE", "PENALTY", "REGS"]

#: Sequence length at scale 1.0 (Rodinia 3.1 cuda/nw/run: ./needle 2048 10).
SIZE = 2048
#: Gap penalty of the run script.
PENALTY = 10
#: Registers per thread: estimate (docs/workloads/kim20.md, "Registers").
REGS = {"needle_cuda_shared_1": 26, "needle_cuda_shared_2": 26}

SOURCE = ("Rodinia 3.1 cuda/nw/needle_kernel.cu (needle_cuda_shared_1, needle_cuda_shared_2), "
          "needle.cu, run")


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """The nw wavefront for sequences of ``2048 * scale`` (a multiple of 16, at least 32).

    ``seed`` is unused: the sequences and scores never reach an address.
    """
    n = scaled(SIZE, scale, multiple=BLOCK, minimum=2 * BLOCK)
    mem = DeviceMemory()
    kernels = with_resources(needle_kernels(n, PENALTY, mem=mem, pcs=PCs()), REGS)
    return Workload(name="kim20/nw", kernels=kernels,
                    params={"n": n, "max_cols": n + 1, "penalty": PENALTY,
                            "arrays": mem.sizes()},
                    source=SOURCE)


register_workload(SUITE, "nw", build, source=SOURCE, size="2048x2048",
                  description="Needleman-Wunsch wavefront, 16x16 shared-memory tiles, 2049x2049 scores",
                  **paper_figures("nw"))
