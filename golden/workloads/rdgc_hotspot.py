"""rdgc HSPOT: Rodinia 3.1 hotspot on a 1024 x 1024 grid (RDGC Table 4: kernel HSPOT; L = 3).

Follows ``cuda/hotspot/hotspot.cu``: ``compute_tran_temp`` launches
``calculate_temp`` on 16 x 16 CTAs, each loading a 16 x 16 tile of
temperature and power into shared memory and computing ``pyramid_height``
time steps on it before writing back the inner ``(16 - 2 * pyramid_height)``
square. Parameters follow Rodinia's run script (``./hotspot <n> 2 2 ...``):
pyramid height 2 and 2 simulated steps, hence one launch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._program import Program
from golden.workloads._replicate import build_kernel
from golden.workloads._rodinia import BLOCK

__all__ = ["build", "hotspot_kernels", "SIZE", "PYRAMID_HEIGHT", "SIM_TIME"]

#: Grid rows and columns at scale 1.0 (RDGC Table 4).
SIZE = 1024
#: Time steps per launch and total steps (Rodinia's run script: ``2 2``).
PYRAMID_HEIGHT = 2
SIM_TIME = 2

SOURCE = "Rodinia 3.1 cuda/hotspot/hotspot.cu"

_F4 = 4


def hotspot_kernels(n: int, pyramid_height: int = PYRAMID_HEIGHT, sim_time: int = SIM_TIME, *,
                    mem: DeviceMemory | None = None, pcs: PCs | None = None,
                    replicate: bool = True) -> list[KernelTrace]:
    """The ``calculate_temp`` launches of ``compute_tran_temp`` for an ``n x n`` grid.

    Parameters
    ----------
    n : int
        Grid rows and columns.
    pyramid_height : int
        Time steps per launch (1 to 7, so that the inner tile is not empty).
    sim_time : int
        Total time steps; ``ceil(sim_time / pyramid_height)`` launches.
    mem : DeviceMemory, optional
        Allocator to place the arrays with (a new one when None).
    pcs : PCs, optional
        PC numbering (a new one when None).
    replicate : bool
        Tile CTAs (see :func:`golden.workloads._replicate.build_kernel`); False builds
        the whole grid.

    Raises
    ------
    ValueError
        If a parameter is out of range.
    """
    for label, value in (("n", n), ("sim_time", sim_time)):
        if int(value) != value or value < 1:
            raise ValueError(f"{label}: must be a positive integer, not {value}")
    if int(pyramid_height) != pyramid_height or not 1 <= pyramid_height < BLOCK // 2:
        raise ValueError(f"pyramid_height: must be an integer from 1 to {BLOCK // 2 - 1}, "
                         f"not {pyramid_height}")
    mem = DeviceMemory() if mem is None else mem
    pcs = PCs() if pcs is None else pcs
    temp = [mem.alloc("MatrixTemp0", n * n * _F4), mem.alloc("MatrixTemp1", n * n * _F4)]
    power = mem.alloc("MatrixPower", n * n * _F4)
    blocks = -(-n // (BLOCK - 2 * pyramid_height))
    border = pyramid_height  # borderCols = pyramid_height * EXPAND_RATE / 2
    out = []
    src, dst = 1, 0
    for t in range(0, sim_time, pyramid_height):
        src, dst = dst, src
        launch = _Launch(min(pyramid_height, sim_time - t), border, n, power, temp[src],
                         temp[dst], pcs)
        out.append(build_kernel("calculate_temp", (blocks, blocks), (BLOCK, BLOCK), launch.emit,
                                classes=launch.classes, shared_bytes=3 * BLOCK * BLOCK * _F4,
                                replicate=replicate))
    return out


@dataclass(frozen=True)
class _Launch:
    """The arguments of one calculate_temp launch."""

    iteration: int
    border: int
    n: int
    power: int
    temp_src: int
    temp_dst: int
    pcs: PCs

    def corner(self, bx, by):
        """blkY, blkX: the tile's first row and column (may be negative)."""
        small = BLOCK - 2 * self.iteration  # small_block_rows/cols
        return small * by - self.border, small * bx - self.border

    def classes(self, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
        """CTAs whose tiles overhang the grid by the same amounts take the same paths."""
        key = np.zeros_like(bx)
        for first in self.corner(bx, by):
            lo = np.minimum(first, 0)
            hi = np.maximum(first + BLOCK - self.n, 0)
            key = (key * 64 + lo + 32) * 64 + hi
        return key

    def emit(self, kb: KernelBuilder, shape: tuple, at: tuple) -> KernelTrace:
        """calculate_temp: control flow at CTA ``shape``, addresses at CTA ``at``."""
        n = self.n
        tile = BLOCK * BLOCK * _F4
        # temp_on_cuda, power_on_cuda, temp_t: declaration order.
        sh_temp, sh_power, sh_t = 0, tile, 2 * tile
        p = Program(kb, self.pcs, kb.name)
        tx, ty = kb.tx, kb.ty
        blk_y, blk_x = self.corner(*shape)
        at_y, at_x = self.corner(*at)
        index = n * (at_y + ty) + at_x + tx

        def sh(base, y, x):
            return base + (y * BLOCK + x) * _F4

        yidx, xidx = blk_y + ty, blk_x + tx
        inside = (yidx >= 0) & (yidx <= n - 1) & (xidx >= 0) & (xidx <= n - 1)
        # step_div_Cap, Rx_1, Ry_1, Rz_1 (4); small block (4), blkY/X, max (6), y/xidx (2),
        # index (2), the IN_RANGE test (8) and branch.
        p.compute(27)
        p.load("ld_temp", self.temp_src + index * _F4, active=inside)
        p.store("st_temp", sh(sh_temp, ty, tx), active=inside, space=Space.SHARED)
        p.load("ld_power", self.power + index * _F4, active=inside)
        p.store("st_power", sh(sh_power, ty, tx), active=inside, space=Space.SHARED)
        p.barrier()
        blk_ymax, blk_xmax = blk_y + BLOCK - 1, blk_x + BLOCK - 1
        valid_ymin = np.where(blk_y < 0, -blk_y, 0)
        valid_ymax = np.where(blk_ymax > n - 1, BLOCK - 1 - (blk_ymax - n + 1), BLOCK - 1)
        valid_xmin = np.where(blk_x < 0, -blk_x, 0)
        valid_xmax = np.where(blk_xmax > n - 1, BLOCK - 1 - (blk_xmax - n + 1), BLOCK - 1)
        north = np.maximum(ty - 1, valid_ymin)
        south = np.minimum(ty + 1, valid_ymax)
        west = np.maximum(tx - 1, valid_xmin)
        east = np.minimum(tx + 1, valid_xmax)
        p.compute(24)  # four valid bounds (4 selects of 3-4 operators), N/S/W/E (4 +-, 4 selects)
        # The loop bound `iteration` is a kernel argument: not unrolled.
        computed = np.zeros(kb.n_threads, dtype=bool)
        for i in range(self.iteration):
            computed = ((tx >= i + 1) & (tx <= BLOCK - i - 2) & (ty >= i + 1)
                        & (ty <= BLOCK - i - 2) & (tx >= valid_xmin) & (tx <= valid_xmax)
                        & (ty >= valid_ymin) & (ty <= valid_ymax))
            p.compute(2 + 10)  # loop overhead; computed = false, 8 comparisons, branch
            # temp_t[ty][tx] = temp[ty][tx] + step_div_Cap * (power[ty][tx] + (temp[S][tx] +
            #   temp[N][tx] - 2.0 * temp[ty][tx]) * Ry_1 + (temp[ty][E] + temp[ty][W] -
            #   2.0 * temp[ty][tx]) * Rx_1 + (amb_temp - temp[ty][tx]) * Rz_1)
            on = {"active": computed, "space": Space.SHARED}
            p.load("ld_t_c", sh(sh_temp, ty, tx), **on)
            p.load("ld_p_c", sh(sh_power, ty, tx), **on)
            p.load("ld_t_s", sh(sh_temp, south, tx), **on)
            p.load("ld_t_n", sh(sh_temp, north, tx), **on)
            p.load("ld_t_e", sh(sh_temp, ty, east), **on)
            p.load("ld_t_w", sh(sh_temp, ty, west), **on)
            p.compute(15, active=computed)  # 7 +-, 7 *, the row/column offsets folded
            p.store("st_t", sh(sh_t, ty, tx), **on)
            p.barrier()
            p.compute(2)  # i == iteration - 1, branch
            if i == self.iteration - 1:
                break
            p.compute(1)  # if (computed)
            p.load("ld_t_copy", sh(sh_t, ty, tx), **on)
            p.store("st_t_copy", sh(sh_temp, ty, tx), **on)
            p.barrier()
        p.compute(1)  # if (computed)
        p.load("ld_t_out", sh(sh_t, ty, tx), active=computed, space=Space.SHARED)
        p.store("st_out", self.temp_dst + index * _F4, active=computed)
        return p.build()


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """hotspot on an ``SIZE * scale`` square grid; ``seed`` is unused (addresses are data-free)."""
    n = scaled(SIZE, scale, minimum=BLOCK)
    kernels = hotspot_kernels(n, mem=DeviceMemory(), pcs=PCs())
    return Workload(name="rdgc/hotspot", kernels=kernels,
                    params={"n": n, "pyramid_height": PYRAMID_HEIGHT, "sim_time": SIM_TIME},
                    source=SOURCE)


register_workload("rdgc", "hotspot", build, source=SOURCE, L=3, N=SIZE, size="1024", kernels="HSPOT",
                  description="hotspot: thermal simulation stencil, 1024x1024 grid, pyramid height 2")
