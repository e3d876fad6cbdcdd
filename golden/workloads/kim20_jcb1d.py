"""kim20 JCB1D: PolyBench-ACC CUDA jacobi-1d-imper (``runJacobiCUDA_kernel1/2``), N = 4096.

Follows ``CUDA/stencils/jacobi-1d-imper/jacobi1D.cu`` of PolyBench-ACC
(cavazos-lab/PolyBench-ACC at 70ea4ca; the STANDARD_DATASET of
``jacobi1D.cuh``: ``N = 4096``, ``TSTEPS = 10000``, 256 x 1 blocks). Every
time step launches, one thread per element (``i = blockIdx.x*256 +
threadIdx.x``)::

    kernel1 (1 < i < N-1):  B[i] = 0.33333f * (A[i-1] + A[i] + A[i+1]);
    kernel2 (1 < j < N-1):  A[j] = B[j];

Per thread 3 + 1 and 1 + 1 accesses (no element is read twice, so
``"source"`` and ``"compiled"`` counting agree). Every step repeats the
first's addresses; the workload holds ``steps`` (default
:data:`STEPS`, of the source's 10000) steps as repeated launches of the same
two kernel traces. The whole 32 KB working set is touched every step, so
100 steps show the steady state of any cache (docs/workloads/kim20.md).
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._common import register_workload
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads._polybench import ELEM, Run, ld, st

__all__ = ["build", "N_PAPER", "TSTEPS", "STEPS", "BLOCK", "REGS"]

SOURCE = ("PolyBench-ACC CUDA/stencils/jacobi-1d-imper/jacobi1D.cu (runJacobiCUDA_kernel1, "
          "runJacobiCUDA_kernel2), jacobi1D.cuh")
N_PAPER = 4096  # jacobi1D.cuh STANDARD_DATASET
TSTEPS = 10000  # jacobi1D.cuh STANDARD_DATASET
STEPS = 100  # time steps emitted by default (module docstring)
BLOCK = 256  # DIM_THREAD_BLOCK_X
#: Registers per thread: estimate (docs/workloads/kim20.md, "Registers").
REGS = {"runJacobiCUDA_kernel1": 8, "runJacobiCUDA_kernel2": 6}


def build(scale: float = 1.0, seed: int = 0, *, steps: int = STEPS) -> Workload:
    """``steps`` time steps of jacobi-1d with ``N = round(4096 * scale)`` (at least 4).

    ``seed`` is unused (no data-dependent address).

    Raises
    ------
    ValueError
        For ``steps`` outside 1 .. 10000.
    """
    if not (isinstance(steps, int) and 1 <= steps <= TSTEPS):
        raise ValueError(f"steps: must be an integer from 1 to {TSTEPS}, not {steps!r}")
    run = Run(N_PAPER, scale, "compiled", minimum=4)
    n = run.n
    a, b = run.alloc(A=n, B=n)
    # Prologue: i (2 operators), (i > 1) && (i < n - 1) (3) and the branch.
    em, i = run.launch_1d("runJacobiCUDA_kernel1", n, BLOCK, prologue=6)
    off = i * ELEM
    em.straight([ld("k1_ld_a_w", off, a - ELEM), ld("k1_ld_a", off, a),
                 ld("k1_ld_a_e", off, a + ELEM, gap=1),  # first +
                 st("k1_st_b", off, b, gap=2)],  # +, *
                active=(i > 1) & (i < n - 1))
    k1 = em.finish()
    em, j = run.launch_1d("runJacobiCUDA_kernel2", n, BLOCK, prologue=6)
    off = j * ELEM
    em.straight([ld("k2_ld_b", off, b), st("k2_st_a", off, a)], active=(j > 1) & (j < n - 1))
    k2 = em.finish()
    kernels = with_resources([k1, k2], REGS) * steps
    return Workload(name="kim20/jcb1d", kernels=kernels,
                    params={"n": n, "tsteps": TSTEPS, "steps": steps, "arrays": run.mem.sizes()},
                    source=SOURCE)


register_workload(SUITE, "jcb1d", build, source=SOURCE, size="N=4096, 100 of 10000 steps",
                  description="PolyBench-ACC jacobi-1d: 3-point stencil and copy-back, 4096 floats",
                  **paper_figures("jcb1d"))
