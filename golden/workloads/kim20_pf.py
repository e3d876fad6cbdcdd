"""kim20 PF: Rodinia 3.1 pathfinder (``dynproc_kernel``) at the run script's 100000 x 100, pyramid 20.

Follows ``cuda/pathfinder/pathfinder.cu`` of Rodinia 3.1; kim20 names no
input, and ``cuda/pathfinder/run`` runs ``./pathfinder 100000 100 20``:
``cols = 100000``, ``rows = 100``, ``pyramid_height = 20``. The host
(``calc_path``) launches ``dynproc_kernel<<<blockCols, 256>>>`` for ``t = 0,
20, ..., 80`` with ``iteration = min(20, rows - t - 1)`` (20, 20, 20, 20,
19), swapping the two result rows ``gpuResult[0/1]`` between launches.
``blockCols = ceil(cols / smallBlockCol)`` with ``smallBlockCol = 256 - 2 *
20 = 216``, so 463 CTAs, each owning 216 columns plus a 20-column halo on
either side. Per CTA::

    prev[tx] = gpuSrc[xidx]                     (xidx = 216*bx - 20 + tx, when in range)
    for i < iteration:                          (run-time trip count: not unrolled)
        if (tx in [i+1, 254-i] and isValid):
            result[tx] = min(prev[W], prev[tx], prev[E]) + gpuWall[cols*(t+i) + xidx]
        __syncthreads(); if last: break
        if computed: prev[tx] = result[tx]
        __syncthreads()
    if computed: gpuResults[xidx] = result[tx]

``gpuWall`` rows are read once each (the streaming that makes PF's L1
miss rate 99 % in kim20 Fig. 1), the halo columns twice. The wall's values
(``rand() % 10``) never reach an address, so ``seed`` is unused. Only the
first CTA (left halo outside the row) and the last one or two (right halo
past ``cols - 1``) take other paths: one CTA template per distinct
``(validXmin, validXmax)`` is built and copied over the grid.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads._program import Program
from golden.workloads._replicate import build_kernel

__all__ = ["build", "BLOCK_SIZE", "COLS", "ROWS", "PYRAMID", "REGS", "dynproc_launches"]

SOURCE = "Rodinia 3.1 cuda/pathfinder/pathfinder.cu (dynproc_kernel, calc_path), run"
BLOCK_SIZE = 256  # BLOCK_SIZE
HALO = 1  # HALO
COLS = 100_000  # run: ./pathfinder 100000 100 20
ROWS = 100
PYRAMID = 20
#: Registers per thread: estimate (docs/workloads/kim20.md, "Registers").
REGS = {"dynproc_kernel": 16}
#: __shared__ int prev[BLOCK_SIZE], result[BLOCK_SIZE].
SHARED_BYTES = 2 * BLOCK_SIZE * 4
_SH = Space.SHARED


def _bounds(bx, cols: int, iteration_width: int, border: int):
    """``validXmin``, ``validXmax`` of CTA ``bx`` (the source's clipping of the halo)."""
    blk_x = iteration_width * bx - border
    blk_xmax = blk_x + BLOCK_SIZE - 1
    vmin = np.where(blk_x < 0, -blk_x, 0)
    vmax = np.where(blk_xmax > cols - 1, BLOCK_SIZE - 1 - (blk_xmax - cols + 1), BLOCK_SIZE - 1)
    return vmin, vmax


def _dynproc(kb: KernelBuilder, shape: tuple, at: tuple, *, iteration: int, pyramid: int,
             cols: int, wall: int, src: int, dst: int, start_step: int, pcs: PCs) -> KernelTrace:
    """Emit one ``dynproc_kernel`` launch; control flow from ``shape[0]``, addresses from ``at[0]``."""
    p = Program(kb, pcs, "dynproc_kernel")
    tx = kb.tx
    border = pyramid * HALO
    small = BLOCK_SIZE - iteration * HALO * 2  # small_block_cols uses the launch's iteration
    vmin, vmax = _bounds(shape[0], cols, small, border)
    x_shape = small * shape[0] - border + tx  # xidx on the control-flow side
    xidx = small * at[0] - border + tx
    west = np.maximum(tx - 1, vmin)
    east = np.minimum(tx + 1, vmax)
    valid = (tx >= vmin) & (tx <= vmax)
    in_row = (x_shape >= 0) & (x_shape <= cols - 1)
    sh_prev, sh_result = 0, BLOCK_SIZE * 4
    # small_block_cols, blkX, blkXmax, xidx, validXmin/max (2 selects each), W, E clamps,
    # isValid, IN_RANGE(xidx): about 20 operators.
    p.compute(20)
    p.load("ld_src", src + xidx * 4, active=in_row)
    p.store("st_prev0", sh_prev + tx * 4, active=in_row, space=_SH)
    p.barrier()
    computed = np.zeros(kb.n_threads, dtype=bool)
    for i in range(iteration):
        computed = (tx >= i + 1) & (tx <= BLOCK_SIZE - i - 2) & valid
        p.compute(2 + 4)  # loop overhead; IN_RANGE (2 compares, and) && isValid
        p.load("ld_left", sh_prev + west * 4, active=computed, space=_SH)
        p.load("ld_up", sh_prev + tx * 4, active=computed, space=_SH)
        p.load("ld_right", sh_prev + east * 4, active=computed, space=_SH)
        p.compute(2 + 3, active=computed)  # two MIN; index = cols*(startStep+i)+xidx
        p.load("ld_wall", wall + (cols * (start_step + i) + xidx) * 4, active=computed)
        p.compute(1, active=computed)  # +
        p.store("st_result", sh_result + tx * 4, active=computed, space=_SH)
        p.barrier()
        p.compute(2)  # if (i == iteration - 1)
        if i == iteration - 1:
            break
        p.load("ld_result", sh_result + tx * 4, active=computed, space=_SH)
        p.store("st_prev", sh_prev + tx * 4, active=computed, space=_SH)
        p.barrier()
    p.load("ld_result_out", sh_result + tx * 4, active=computed, space=_SH)
    p.store("st_results", dst + xidx * 4, active=computed)
    return p.build()


def dynproc_launches(cols: int, rows: int, pyramid: int, *, mem: DeviceMemory | None = None,
                     pcs: PCs | None = None, replicate: bool = True) -> list[KernelTrace]:
    """Every ``dynproc_kernel`` launch of ``calc_path`` for a ``rows x cols`` wall.

    Parameters
    ----------
    cols, rows, pyramid : int
        The program's three arguments.
    mem, pcs : optional
        Array placement and PC numbering.
    replicate : bool
        Copy one CTA per class of CTAs (True) or build the whole grid (tests).

    Raises
    ------
    ValueError
        If ``pyramid`` leaves no column per CTA or a size is not positive.
    """
    if min(cols, rows, pyramid) < 1 or 2 * pyramid * HALO >= BLOCK_SIZE:
        raise ValueError(f"pathfinder: need cols, rows >= 1 and 1 <= pyramid_height < "
                         f"{BLOCK_SIZE // 2}, not {cols}, {rows}, {pyramid}")
    mem = DeviceMemory() if mem is None else mem
    pcs = PCs() if pcs is None else pcs
    # pathfinder.cu: cudaMalloc gpuResult[0], gpuResult[1], then gpuWall (rows - 1 rows).
    result = [mem.alloc("gpuResult0", cols * 4), mem.alloc("gpuResult1", cols * 4)]
    wall = mem.alloc("gpuWall", (rows - 1) * cols * 4)
    small_cols = BLOCK_SIZE - pyramid * HALO * 2
    block_cols = -(-cols // small_cols)
    out, src, dst = [], 1, 0
    for t in range(0, rows - 1, pyramid):
        src, dst = dst, src
        iteration = min(pyramid, rows - t - 1)
        width = BLOCK_SIZE - iteration * HALO * 2

        def emit(kb, shape, at, iteration=iteration, s=result[src], d=result[dst], t=t):
            return _dynproc(kb, shape, at, iteration=iteration, pyramid=pyramid, cols=cols,
                            wall=wall, src=s, dst=d, start_step=t, pcs=pcs)

        def classes(bx, by, width=width):
            vmin, vmax = _bounds(bx, cols, width, pyramid * HALO)
            return vmin * (BLOCK_SIZE + 1) + vmax

        out.append(build_kernel("dynproc_kernel", (block_cols, 1), (BLOCK_SIZE,), emit,
                                classes=classes, shared_bytes=SHARED_BYTES, replicate=replicate))
    return with_resources(out, REGS)


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """pathfinder with ``cols = 100000 * scale`` (at least 256), 100 rows, pyramid 20.

    ``seed`` is unused: the wall's values never reach an address.
    """
    cols = scaled(COLS, scale, minimum=BLOCK_SIZE)
    mem = DeviceMemory()
    kernels = dynproc_launches(cols, ROWS, PYRAMID, mem=mem, pcs=PCs())
    return Workload(name="kim20/pf", kernels=kernels,
                    params={"cols": cols, "rows": ROWS, "pyramid_height": PYRAMID,
                            "arrays": mem.sizes()},
                    source=SOURCE)


register_workload(SUITE, "pf", build, source=SOURCE, size="100000x100, pyramid 20",
                  description="pathfinder dynamic programming, 256-thread CTAs, 20-row pyramids",
                  **paper_figures("pf"))
