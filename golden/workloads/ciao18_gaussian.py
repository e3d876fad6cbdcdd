"""ciao18 Gaussian: Rodinia 3.1 ``gaussian`` (Gaussian elimination), a 208 x 208 system.

Follows ``cuda/gaussian/gaussian.cu`` of Rodinia 3.1 (read from
``yuhc/gpu-rodinia`` at 9c10d3e). ``ForwardSub`` allocates ``m_cuda``,
``a_cuda`` (``Size x Size`` floats) and ``b_cuda`` (``Size``), then for
``t = 0 .. Size - 2`` launches::

    Fan1<<<ceil(Size / 512), 512>>>:                 // one thread per row below t
        if (tx + bx * 512 >= Size - 1 - t) return;
        m[Size * (bx * 512 + tx + t + 1) + t] = a[Size * (bx * 512 + tx + t + 1) + t] / a[Size * t + t];

    Fan2<<<(ceil(Size / 4), ceil(Size / 4)), (4, 4)>>>:
        if (tx + bx * 4 >= Size - 1 - t) return;     // xidx: the row below t
        if (ty + by * 4 >= Size - t) return;         // yidx: the column from t
        a[Size * (xidx + 1 + t) + (yidx + t)] -= m[Size * (xidx + 1 + t) + t] * a[Size * t + (yidx + t)];
        if (yidx == 0)
            b[xidx + 1 + t] -= m[Size * (xidx + 1 + t) + (yidx + t)] * b[t];

Table II's 339 KB is the program's three arrays at Rodinia's ``matrix208.txt``
(``8 * 208^2 + 4 * 208`` bytes). Fan2's CTAs are 16 threads: one warp with
lanes 16-31 idle, whose 16 lanes read 4 rows x 4 consecutive columns.

Accesses follow the Rodinia conventions of :mod:`golden.workloads._rodinia`:
one load per distinct element a statement reads (the read-modify-write target
first), one store per element written, and after a store every array is read
again (the pointers are not ``__restrict__``), which is why ``b``'s statement
reloads ``m``. Compute counts are the source's operators between them.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads.ciao18_regs import REGS

__all__ = ["BLOCK_1D", "BLOCK_XY", "SIZE", "build", "gaussian_kernels"]

#: Matrix side at scale 1 (Rodinia matrix208.txt; ciao18 Table II: 339 KB).
SIZE = 208
#: MAXBLOCKSIZE (Fan1's CTA) and BLOCK_SIZE_XY (Fan2's CTA side).
BLOCK_1D = 512
BLOCK_XY = 4
_F4 = 4

SOURCE = "Rodinia 3.1 cuda/gaussian/gaussian.cu (Fan1, Fan2, ForwardSub)"

# Compute: the operators the source writes (docs/workloads/ciao18.md).
_FAN1_GUARD = 6  # mul, add, two subs, compare, branch
_FAN1_INDEX = 8  # Size*(bdx*bx + tx + t + 1) + t (shared by m and a), Size*t + t
_FAN2_GUARDS = 6 + 5  # as Fan1's; ty + by*bdy >= Size - t
_FAN2_INDEX = 8  # the three element indices
_RMW = 2  # multiply, subtract


def _fan1(size: int, t: int, m: int, a: int, pcs: PCs) -> KernelTrace:
    kb = KernelBuilder("Fan1", grid=(-(-size // BLOCK_1D),), block=(BLOCK_1D,),
                       regs_per_thread=REGS["Fan1"])
    row = kb.bx * BLOCK_1D + kb.tx + t + 1
    live = kb.bx * BLOCK_1D + kb.tx < size - 1 - t
    kb.compute(_FAN1_GUARD)
    kb.compute(_FAN1_INDEX, active=live)
    kb.load(pcs("Fan1:ld_a_it"), a + (size * row + t) * _F4, active=live)
    kb.load(pcs("Fan1:ld_a_tt"), np.full(kb.n_threads, a + (size * t + t) * _F4), active=live)
    kb.compute(1, active=live)  # divide
    kb.store(pcs("Fan1:st_m_it"), m + (size * row + t) * _F4, active=live)
    return kb.build()


def _fan2(size: int, t: int, m: int, a: int, b: int, pcs: PCs) -> KernelTrace:
    g = -(-size // BLOCK_XY)
    kb = KernelBuilder("Fan2", grid=(g, g), block=(BLOCK_XY, BLOCK_XY),
                       regs_per_thread=REGS["Fan2"])
    xidx = kb.bx * BLOCK_XY + kb.tx
    yidx = kb.by * BLOCK_XY + kb.ty
    live = (xidx < size - 1 - t) & (yidx < size - t)
    row = size * (xidx + 1 + t)
    kb.compute(_FAN2_GUARDS)
    kb.compute(_FAN2_INDEX, active=live)
    a_xy = a + (row + yidx + t) * _F4
    kb.load(pcs("Fan2:ld_a_xy"), a_xy, active=live)
    kb.load(pcs("Fan2:ld_m_xt"), m + (row + t) * _F4, active=live)
    kb.load(pcs("Fan2:ld_a_ty"), a + (size * t + yidx + t) * _F4, active=live)
    kb.compute(_RMW, active=live)
    kb.store(pcs("Fan2:st_a_xy"), a_xy, active=live)
    kb.compute(2, active=live)  # if (yidx == 0): compare, branch
    first = live & (yidx == 0)
    b_x = b + (xidx + 1 + t) * _F4
    kb.load(pcs("Fan2:ld_b_x"), b_x, active=first)
    kb.load(pcs("Fan2:ld_m_xy"), m + (row + yidx + t) * _F4, active=first)
    kb.load(pcs("Fan2:ld_b_t"), np.full(kb.n_threads, b + t * _F4), active=first)
    kb.compute(_RMW, active=first)
    kb.store(pcs("Fan2:st_b_x"), b_x, active=first)
    return kb.build()


def gaussian_kernels(size: int, mem: DeviceMemory, pcs: PCs) -> list[KernelTrace]:
    """The ``2 * (size - 1)`` launches of ``ForwardSub`` (Fan1, Fan2 for each ``t``).

    Raises
    ------
    ValueError
        If ``size`` is below 2.
    """
    if size < 2:
        raise ValueError(f"size: must be at least 2, not {size}")
    m = mem.alloc("m_cuda", size * size * _F4)
    a = mem.alloc("a_cuda", size * size * _F4)
    b = mem.alloc("b_cuda", size * _F4)
    out = []
    for t in range(size - 1):
        out += [_fan1(size, t, m, a, pcs), _fan2(size, t, m, a, b, pcs)]
    return out


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Gaussian elimination of a ``208 * scale`` system (at least 2); ``seed`` is unused."""
    size = scaled(SIZE, scale, minimum=2)
    mem = DeviceMemory()
    kernels = gaussian_kernels(size, mem, PCs())
    return Workload(name="ciao18/gaussian", kernels=kernels,
                    params={"size": size, "arrays": mem.sizes(), "input_bytes": mem.footprint},
                    source=SOURCE)


register_workload("ciao18", "gaussian", build, source=SOURCE, version=1,
                  description="Rodinia gaussian: forward elimination of a 208x208 system, Fan1/Fan2",
                  apki=18, size="339KB", N=SIZE, n_warp=48, f_smem=0.0, barriers=False, cls="CI")
