"""kim20 ADI: PolyBench-ACC CUDA adi (``adi_kernel1`` .. ``adi_kernel6``), N = 1024, one time step.

Follows ``CUDA/stencils/adi/adi.cu`` of PolyBench-ACC (cavazos-lab/PolyBench-ACC
at 70ea4ca; ``adi.cuh`` STANDARD_DATASET: ``N = 1024``, ``TSTEPS = 1``,
256 x 1 blocks, ``float``). Arrays ``A``, ``B``, ``X`` (``N x N``, in
``cudaMalloc`` order). The time step launches, on ``ceil(N/256)`` CTAs::

    adi_kernel1 (row i1):  for i2 in 1..N-1:
        X[i1][i2] = X[i1][i2] - X[i1][i2-1] * A[i1][i2] / B[i1][i2-1];
        B[i1][i2] = B[i1][i2] - A[i1][i2] * A[i1][i2] / B[i1][i2-1];
    adi_kernel2 (row i1):  X[i1][N-1] = X[i1][N-1] / B[i1][N-1];
    adi_kernel3 (row i1):  for i2 in 0..N-3:
        X[i1][N-i2-2] = (X[i1][N-2-i2] - X[i1][N-2-i2-1] * A[i1][N-i2-3]) / B[i1][N-3-i2];
    adi_kernel4 (column i2), launched for i1 = 1..N-1:
        X[i1][i2] = X[i1][i2] - X[i1-1][i2] * A[i1][i2] / B[i1-1][i2];
        B[i1][i2] = B[i1][i2] - A[i1][i2] * A[i1][i2] / B[i1-1][i2];
    adi_kernel5 (column i2):  X[N-1][i2] = X[N-1][i2] / B[N-1][i2];
    adi_kernel6 (column i2), launched for i1 = 0..N-3:
        X[N-2-i1][i2] = (X[N-2-i1][i2] - X[N-i1-3][i2] * A[N-3-i1][i2]) / B[N-2-i1][i2];

2049 launches. Kernels 1 and 3 walk one row per thread, so a warp's lanes
are ``4N`` bytes apart (32 lines per instruction); kernels 4 to 6 are
coalesced. Counting is the Polybench machinery's ``"compiled"`` rule
(:mod:`golden.workloads._polybench`): within a statement an element is
loaded once, and after a store through one pointer every other pointer is
read again; across trips of kernel 1 nothing is forwarded, because the
store to ``B`` may alias ``X`` (docs/workloads/kim20.md). Launches 2 ..
N-1 of kernel 4 (and of kernel 6) are copies of the first with every address
moved by ``(i1 - 1) * 4N`` bytes.
"""

from __future__ import annotations

from dataclasses import replace

from golden.trace.model import Workload
from golden.workloads._common import register_workload
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads._polybench import ELEM, Access, Run, ld, shifted, st

__all__ = ["build", "N_PAPER", "BLOCK", "REGS"]

SOURCE = "PolyBench-ACC CUDA/stencils/adi/adi.cu (adi_kernel1 .. adi_kernel6), adi.cuh"
N_PAPER = 1024  # adi.cuh STANDARD_DATASET (TSTEPS = 1)
BLOCK = 256  # DIM_THREAD_BLOCK_X
#: Registers per thread: estimate (docs/workloads/kim20.md, "Registers").
REGS = {"adi_kernel1": 16, "adi_kernel2": 8, "adi_kernel3": 16, "adi_kernel4": 12,
        "adi_kernel5": 8, "adi_kernel6": 12}
_PROLOGUE = 2 + 2  # index (2 operators), bounds compare and branch


def _stepped(body: list[Access], step: int) -> list[Access]:
    """``body`` with every access moving ``step`` bytes per loop trip."""
    return [replace(acc, step=step) for acc in body]


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """One ADI time step with ``N = round(1024 * scale)`` (at least 4); ``seed`` is unused."""
    run = Run(N_PAPER, scale, "compiled", minimum=4)
    n = run.n
    a, b, x = run.alloc(A=n * n, B=n * n, X=n * n)
    row = n * ELEM

    # adi_kernel1: thread i1 walks row i1; trip t is i2 = t + 1, every access moves one
    # element per trip. B[i1][i2-1] was stored by the previous trip's second statement with
    # only loads since: forwarded from trip 1 on. X[i1][i2-1] was stored too, but the
    # store to B came after it (B may alias X): loaded again.
    em, i1 = run.launch_1d("adi_kernel1", n, BLOCK, prologue=_PROLOGUE)
    at = i1 * row + ELEM  # [i1][1]
    em.loop(_stepped([ld("k1_ld_x", at, x), ld("k1_ld_x_w", at, x - ELEM), ld("k1_ld_a", at, a),
                      ld("k1_ld_b_w", at, b - ELEM, gap=1, forwarded="rest"),
                      st("k1_st_x", at, x, gap=3),
                      # B[i1][i2] = B[i1][i2] - A * A / B[i1][i2-1]: operands again after st_x
                      ld("k1_ld_b", at, b), ld("k1_ld_a2", at, a),
                      ld("k1_ld_b_w2", at, b - ELEM), st("k1_st_b", at, b, gap=3)], ELEM),
            n - 1, active=i1 < n)
    k1 = em.finish()

    em, i1 = run.launch_1d("adi_kernel2", n, BLOCK, prologue=_PROLOGUE)
    at = i1 * row + (n - 1) * ELEM
    em.straight([ld("k2_ld_x", at, x), ld("k2_ld_b", at, b), st("k2_st_x", at, x, gap=1)],
                active=i1 < n)
    k2 = em.finish()

    # adi_kernel3: trip t is i2 = t, addresses move back one element per trip;
    # X[i1][N-2-i2] was loaded as X[i1][N-3-(i2-1)] in the previous trip, and only a store
    # through X (a different element) came since: forwarded from trip 1 on.
    em, i1 = run.launch_1d("adi_kernel3", n, BLOCK, prologue=_PROLOGUE)
    at = i1 * row + (n - 2) * ELEM  # [i1][N-2]
    em.loop(_stepped([ld("k3_ld_x", at, x, forwarded="rest"), ld("k3_ld_x_w", at, x - ELEM),
                      ld("k3_ld_a_w", at, a - ELEM), ld("k3_ld_b_w", at, b - ELEM, gap=2),
                      st("k3_st_x", at, x, gap=1)], -ELEM),
            n - 2, active=i1 < n)
    k3 = em.finish()

    # adi_kernel4(i1 = 1): thread i2 = column; later launches move by (i1 - 1) rows.
    em, i2 = run.launch_1d("adi_kernel4", n, BLOCK, prologue=_PROLOGUE + 2)
    at = row + i2 * ELEM  # [1][i2]
    em.straight([ld("k4_ld_x", at, x), ld("k4_ld_x_n", at, x - row), ld("k4_ld_a", at, a),
                 ld("k4_ld_b_n", at, b - row, gap=1), st("k4_st_x", at, x, gap=3),
                 ld("k4_ld_b", at, b, gap=2), ld("k4_ld_a2", at, a),
                 ld("k4_ld_b_n2", at, b - row), st("k4_st_b", at, b, gap=3)],
                active=i2 < n)
    k4 = em.finish()

    em, i2 = run.launch_1d("adi_kernel5", n, BLOCK, prologue=_PROLOGUE)
    at = (n - 1) * row + i2 * ELEM
    em.straight([ld("k5_ld_x", at, x), ld("k5_ld_b", at, b), st("k5_st_x", at, x, gap=1)],
                active=i2 < n)
    k5 = em.finish()

    # adi_kernel6(i1 = 0): X[N-2][i2] = (X[N-2][i2] - X[N-3][i2] * A[N-3][i2]) / B[N-2][i2];
    # launch i1 moves every address back by i1 rows: built at i1 = N-3 (lowest rows) and
    # shifted forward.
    em, i2 = run.launch_1d("adi_kernel6", n, BLOCK, prologue=_PROLOGUE + 4)
    at = row + i2 * ELEM  # [N-2-i1][i2] at i1 = N-3 is row 1
    em.straight([ld("k6_ld_x", at, x), ld("k6_ld_x_n", at, x - row), ld("k6_ld_a_n", at, a - row),
                 ld("k6_ld_b", at, b, gap=2), st("k6_st_x", at, x, gap=2)],
                active=i2 < n)
    k6_low = em.finish()

    kernels = [k1, k2, k3]
    kernels += [k4] + [shifted(k4, (r - 1) * row) for r in range(2, n)]
    kernels.append(k5)
    kernels += [shifted(k6_low, (n - 3 - i) * row) for i in range(n - 2)]
    return Workload(name="kim20/adi", kernels=with_resources(kernels, REGS),
                    params={"n": n, "tsteps": 1, "arrays": run.mem.sizes()}, source=SOURCE)


register_workload(SUITE, "adi", build, source=SOURCE, size="N=1024, 1 step",
                  description="PolyBench-ACC ADI: row and column sweeps over 1024x1024 floats, "
                              "2049 launches",
                  **paper_figures("adi"))
