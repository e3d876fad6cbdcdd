"""rdgc FDTD: Polybench/GPU 1.0 FDTD-2D ``fdtd_step1/2/3_kernel`` on a 2048 x 2048 grid.

Follows ``CUDA/FDTD-2D/fdtd2d.cu`` of Polybench/GPU 1.0 (Grauer-Gray et
al., 2012; read from the mirror ``Lai-YT/polybench`` at 516ae01). The host
loops over ``t < tmax`` (500) launching the three step kernels, one thread
per grid point, ``j = blockIdx.x*32 + threadIdx.x``, ``i = blockIdx.y*8 +
threadIdx.y``, 32 x 8 blocks. Arrays (``float``, in ``cudaMalloc`` order):
``_fict_[tmax]``, ``ex[NX][NY+1]``, ``ey[NX+1][NY]``, ``hz[NX][NY]``::

    step1 (i, j < N):  if (i == 0) ey[0][j] = _fict_[t];
                       else ey[i][j] = ey[i][j] - 0.5f*(hz[i][j] - hz[i-1][j]);
    step2 (j > 0):     ex[i][j] = ex[i][j] - 0.5f*(hz[i][j] - hz[i][j-1]);
    step3:             hz[i][j] = hz[i][j] - 0.7f*(ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j]);

Per thread: 4 (step 1, either branch at most 4), 4 and 6 accesses in both
access modes (no element is read twice). rdgc Table 4 gives 6, 4, 6: its
6 for step 1 is both branches together (2 + 4), which no thread executes.

Time steps: ``steps`` (default 1) of the source's 500. Every step launches
the same three kernels over the same addresses (only step 1's one-element
read of ``_fict_[t]`` moves), and one step sweeps 48 MiB (three 16 MiB
arrays at 2048^2), more than any cache the papers model (rdgc's GTX 970 L2
is 1.75 MB, rdgc Table 5; drp16's LLC 16 MB), so under LRU no data
survives from one step to the next and every step behaves like the first.
All 500 steps would be 917 M instruction rows (about 40 GB of trace). A
policy that keeps part of a cyclic working set (RRIP, drp16's) can carry
data across steps; ask for ``steps >= 2`` to measure that. Steps after the
first are copies of the first with the ``_fict_`` read moved
(:func:`~golden.workloads._polybench.shifted`).
"""

from __future__ import annotations

from golden.trace.model import Workload
from golden.workloads._polybench import ELEM, Run, ld, register_rdgc, shifted, st, update

SOURCE = "Polybench/GPU 1.0 CUDA/FDTD-2D/fdtd2d.cu (fdtd_step1_kernel, fdtd_step2_kernel, " \
         "fdtd_step3_kernel)"
N_PAPER = 2048  # rdgc Table 4 (also the source's NX = NY)
TMAX = 500  # the source's tmax: size of _fict_ and its number of time steps
BLOCK = (32, 8)  # DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y


def trace(run: Run, steps: int = 1) -> Workload:
    """``steps`` time steps (three launches each) with ``NX = NY = N``.

    Parameters
    ----------
    run : Run
        The program (``"source"`` and ``"compiled"`` give the same trace here).
    steps : int
        Time steps to emit, 1 to 500 (module docstring).

    Raises
    ------
    ValueError
        For ``steps`` outside 1 .. 500.
    """
    if not (isinstance(steps, int) and 1 <= steps <= TMAX):
        raise ValueError(f"steps: must be an integer from 1 to {TMAX}, not {steps!r}")
    nx = ny = run.n
    fict, ex, ey, hz = run.alloc(_fict_=TMAX, ex=nx * (ny + 1), ey=(nx + 1) * ny, hz=nx * ny)

    def kernel(name: str, comparisons: int):
        # Prologue: two indices and the kernel's comparisons.
        return run.launch_2d(name, ny, nx, BLOCK, prologue=2 + comparisons)

    em, i, j = kernel("fdtd_step1_kernel", 3)
    top, rest = i == 0, i > 0
    ij = (i * ny + j) * ELEM  # [i][j] of ey and hz (rows of NY)
    em.straight([ld("s1_ld_fict", 0, fict, active=top),
                 st("s1_st_ey0", ij, ey, active=top),
                 *update("s1_ey", ij, [ld("s1_ld_hz", ij, hz, active=rest),
                                       ld("s1_ld_hz_up", ij, hz - ny * ELEM, active=rest)],
                         ey, flops=3, active=rest)],  # two subtractions, multiply
                active=(i < nx) & (j < ny))
    step1 = em.finish()
    fict_rows = step1.insts["pc"] == run.pcs("s1_ld_fict")

    em, i, j = kernel("fdtd_step2_kernel", 3)
    x_ij = (i * (ny + 1) + j) * ELEM  # [i][j] of ex (rows of NY + 1)
    ij = (i * ny + j) * ELEM
    em.straight(update("s2_ex", x_ij, [ld("s2_ld_hz", ij, hz),
                                        ld("s2_ld_hz_left", ij, hz - ELEM)],
                       ex, flops=3),  # two subtractions, multiply
                active=(i < nx) & (j < ny) & (j > 0))
    step2 = em.finish()

    em, i, j = kernel("fdtd_step3_kernel", 2)
    x_ij = (i * (ny + 1) + j) * ELEM
    ij = (i * ny + j) * ELEM
    em.straight(update("s3_hz", ij, [ld("s3_ld_ex_right", x_ij, ex + ELEM),
                                      ld("s3_ld_ex", x_ij, ex),
                                      ld("s3_ld_ey_down", ij, ey + ny * ELEM),
                                      ld("s3_ld_ey", ij, ey)],
                       hz, flops=5),  # four adds/subtractions, multiply
                active=(i < nx) & (j < ny))
    step3 = em.finish()

    kernels = [step1, step2, step3]
    for t in range(1, steps):
        kernels += [shifted(step1, t * ELEM, fict_rows), shifted(step2, 0), shifted(step3, 0)]
    return run.workload("fdtd", kernels, SOURCE, nx=nx, ny=ny, tmax=TMAX, steps=steps)


build = register_rdgc("fdtd", trace, n_paper=N_PAPER, minimum=2, source=SOURCE, L="6, 4, 6",
                      kernels=["fdtd_step1_kernel", "fdtd_step2_kernel", "fdtd_step3_kernel"],
                      description=("Polybench/GPU FDTD-2D: one time step (3 kernels) on a "
                                   "2048x2048 float grid"))
