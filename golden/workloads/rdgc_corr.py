"""rdgc CORR: Polybench/GPU 1.0 ``corr_kernel`` (correlation matrix of 256 x 256 data).

Follows ``CUDA/CORR/correlation.cu`` of Polybench/GPU 1.0 (Grauer-Gray et
al., 2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). rdgc
Table 4 lists the CORR kernel only, so ``mean_kernel``, ``std_kernel`` and
``reduce_kernel`` are not emitted; the program's four arrays are still
allocated in its ``cudaMalloc`` order (data, symmat, stddev, mean; data and
symmat hold ``(M + 1) x (N + 1)`` floats, indexed from 1). One thread per
column ``j1 = blockIdx.x*256 + threadIdx.x + 1``, ``1 <= j1 < M``, in
256 x 1 blocks::

    symmat[j1*(M+1) + j1] = 1.0;
    for (j2 = j1 + 1; j2 < M + 1; j2++) {
        symmat[j1*(M+1) + j2] = 0.0;
        for (i = 1; i < N + 1; i++)
            symmat[j1*(M+1) + j2] += data[i*(M+1) + j1] * data[i*(M+1) + j2];
        symmat[j2*(M+1) + j1] = symmat[j1*(M+1) + j2];
    }

Thread ``j1`` runs ``M - j1`` trips of the ``j2`` loop; a warp runs while
any lane does. Thread 1 makes the most accesses: 1 + (M - 1)(4N + 3) as
written (``accesses="source"``), 1 + (M - 1)(3N + 2) with nvcc's
forwarding of ``symmat[j1][j2]`` (``"compiled"``). rdgc Table 4 gives
(3N + 2)N + 1, counting N trips of the ``j2`` loop where the source runs
M - 1 = N - 1.

The source sizes the grid as ``(size_t)(ceil((float)M) / 256.0)``, which
floors M / 256 (the same as rounding up for the M it ships with, a multiple
of 256); this emulator rounds up so scaled-down sizes keep their threads.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import Workload
from golden.workloads._common import DeviceMemory
from golden.workloads._polybench import (
    ELEM,
    Emitter,
    ceil_div,
    check_mode,
    make_workload,
    problem_size,
    st,
    symmat_body,
)
from golden.workloads.registry import WorkloadSpec, register

SOURCE = "Polybench/GPU 1.0 CUDA/CORR/correlation.cu (corr_kernel)"
N_PAPER = 256  # rdgc Table 4 (the source's default is M = N = 2048)
BLOCK = 256  # DIM_THREAD_BLOCK_KERNEL_4_X (DIM_THREAD_BLOCK_KERNEL_4_Y = 1)


def build(scale: float = 1.0, seed: int = 0, *, accesses: str = "compiled") -> Workload:
    """Trace of one ``corr_kernel`` launch with ``M = N = round(256 * scale)`` (at least 2).

    ``seed`` is unused (no data-dependent addresses); ``accesses`` is ``"compiled"`` (default)
    or ``"compiled"`` (see :mod:`golden.workloads._polybench`).
    """
    check_mode(accesses)
    m = n = problem_size(N_PAPER, scale, 2)
    m1 = m + 1
    mem = DeviceMemory()
    data = mem.alloc("data", (m + 1) * (n + 1) * ELEM)
    symmat = mem.alloc("symmat", (m + 1) * (n + 1) * ELEM)
    mem.alloc("stddev", (m + 1) * ELEM)
    mem.alloc("mean", (m + 1) * ELEM)
    kb = KernelBuilder("corr_kernel", grid=(ceil_div(m, BLOCK),), block=(BLOCK,))
    j1 = kb.bx * BLOCK + kb.tx + 1
    active = (j1 >= 1) & (j1 < m)
    em = Emitter(kb, accesses, prologue=1 + 2)  # index, two bound comparisons
    em.straight([st("st_sym_diag", j1 * (m1 + 1) * ELEM, symmat)], active=active)
    em.loop(symmat_body(j1, 1, m1, n, data, symmat), m - 1, active=active,
            thread_trips=np.where(active, m - j1, 0))
    return make_workload("corr", [em.finish()], mem, SOURCE, m=m, n=n, accesses=accesses)


register(WorkloadSpec(
    name="corr", suite="rdgc", build=build,
    description="Polybench/GPU CORR: correlation kernel over 256x256 float data",
    source=SOURCE, version=2,
    paper={"size": N_PAPER, "kernels": ["corr_kernel"], "L": "(3N + 2)N + 1"},
))
