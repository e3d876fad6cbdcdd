"""tian15 spmv: OpenDwarfs sparse-linear-algebra/SPMV, kernel ``csr``.

Follows ``sparse-linear-algebra/SPMV/src/spmv_kernel.cl`` of OpenDwarfs
(vtsynergy/OpenDwarfs): one work-item per row computes
``y[row] = y[row] + sum(Ax[jj] * x[Aj[jj]])`` over the row's CSR entries.
The host (``src/csr.c``) launches ``num_rows`` work-items in work-groups of
the largest size the device allows (``default_wg_sizes``: 256 on GCN), so a
256-row matrix is one work-group. The input follows ``rand_csr`` of
``src-common/sparse_formats.c``: row ``i`` gets ``round(N(mu, sigma))``
non-zeros (``mu = n * density``, ``sigma = 0.01 * mu``, clipped to
``[0, min(n, 2 * mu)]``) in distinct uniformly random columns, sorted.

tian15 Table 2: spmv, 256x256, MI 215.8.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled

__all__ = ["build", "csr_kernel", "csr_arrays", "random_csr", "SIZE", "DENSITY_PPM", "NORMAL_STDDEV",
           "MAX_WG_SIZE"]

#: Matrix order at scale 1.0 (tian15 Table 2: 256x256).
SIZE = 256
#: Non-zeros per million entries: ``density_ppm`` default of OpenDwarfs ``csr.c`` (50 %).
DENSITY_PPM = 500_000
#: Standard deviation of non-zeros per row, relative to their mean (``createcsr`` default).
NORMAL_STDDEV = 0.01
#: ``CL_KERNEL_WORK_GROUP_SIZE`` of the kernel on a GCN GPU (the host's default work-group).
MAX_WG_SIZE = 256

# Compute instructions: the operators the source writes between memory instructions
# (docs/workloads/tian15_a.md, "compute-count rule").
_PROLOGUE = 2 + 2  # row = get_global_id(0) (group * size + local); if (row < num_rows)
_ROW_END = 1  # Ap[row + 1]
_LOOP = 2  # jj++ and compare-and-branch, per iteration
_SUM = 1  # sum += Ax[jj] * x[Aj[jj]]: one FMA


def random_csr(n: int, density_ppm: int, normal_stddev: float, seed: int):
    """A random ``n x n`` CSR matrix with the row statistics of OpenDwarfs ``rand_csr``.

    Parameters
    ----------
    n : int
        Rows and columns.
    density_ppm : int
        Expected non-zeros per million entries.
    normal_stddev : float
        Standard deviation of non-zeros per row as a fraction of their mean.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    ap, aj : numpy.ndarray
        ``int64[n + 1]`` row pointers and ``int64[nnz]`` column indices (sorted per row).
    """
    if n < 1:
        raise ValueError(f"n: must be a positive integer, not {n}")
    if not 0 < density_ppm <= 1_000_000:
        raise ValueError(f"density_ppm: must be in (0, 1000000], not {density_ppm}")
    rng = np.random.default_rng(seed)
    mean = n * density_ppm / 1e6
    high = min(n, 2 * mean)
    per_row = rng.standard_normal(n) * (normal_stddev * mean) + mean
    # rand_csr: negative -> 0, above the bound -> the (truncated) bound, else rounded.
    nnz = np.where(per_row < 0, 0,
                   np.where(per_row > high, np.floor(high), np.round(per_row))).astype(np.int64)
    ap = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(nnz, out=ap[1:])
    # Distinct random columns per row: the nnz smallest of n random keys, sorted by column.
    keys = rng.random((n, n))
    order = np.argsort(keys, axis=1)
    take = np.arange(n)[None, :] < nnz[:, None]
    cols = np.sort(np.where(take, order, n), axis=1)
    aj = cols[cols < n]
    return ap, aj


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Trace of one ``csr`` launch on a random matrix.

    Parameters
    ----------
    scale : float
        Matrix order ``n = 256 * scale`` (a multiple of 32); the density stays 50 %.
    seed : int
        Seed of the matrix generator.

    Returns
    -------
    Workload
        One launch of ``csr``.
    """
    n = scaled(SIZE, scale, multiple=32)
    ap, aj = random_csr(n, DENSITY_PPM, NORMAL_STDDEV, seed)
    nnz = int(ap[-1])
    mem, base = csr_arrays(n, nnz)
    return Workload(
        name="tian15/spmv",
        kernels=[csr_kernel(n, ap, aj, base)],
        params={"n": n, "nnz": nnz, "density_ppm": DENSITY_PPM, "normal_stddev": NORMAL_STDDEV,
                "arrays": dict(mem.arrays)},
        source=_SOURCE,
    )


def csr_arrays(n: int, nnz: int) -> tuple[DeviceMemory, dict[str, int]]:
    """The CSR kernel's device arrays for an ``n``-row matrix with ``nnz`` non-zeros.

    Returns the allocator and the base address of ``Ap``, ``Aj``, ``Ax``, ``x``
    and ``y``, allocated in the host program's order.
    """
    mem = DeviceMemory()
    return mem, {
        "Ap": mem.alloc("Ap", 4 * (n + 1)),
        "Aj": mem.alloc("Aj", 4 * max(nnz, 1)),
        "Ax": mem.alloc("Ax", 4 * max(nnz, 1)),
        "x": mem.alloc("x", 4 * n),
        "y": mem.alloc("y", 4 * n),
    }


def _work_group_size(global_size: int) -> int:
    """``default_wg_sizes`` of OpenDwarfs csr.c: the largest size, evened out over the groups."""
    wg = MAX_WG_SIZE
    if global_size % wg:
        wg = global_size // (global_size // wg + 1)
    return wg


def csr_kernel(n: int, ap: np.ndarray, aj: np.ndarray, base: dict) -> KernelTrace:
    """One ``csr`` launch: a thread per row of the ``n``-row CSR matrix ``(ap, aj)``.

    ``base`` holds the byte addresses of ``Ap``, ``Aj``, ``Ax``, ``x`` and ``y``.
    kim20's SPMV reuses this kernel (:mod:`golden.workloads.kim20_spmv`).
    """
    wg = _work_group_size(n)
    kb = KernelBuilder("csr", grid=(-(-n // wg),), block=(wg,))
    pcs = PCs()
    row = kb.gtid
    live = row < n  # if (row < num_rows)
    row_c = np.minimum(row, n - 1)
    start, end = ap[row_c], ap[row_c + 1]
    count = np.where(live, end - start, 0)

    kb.compute(_PROLOGUE)
    kb.load(pcs("ld_y"), base["y"] + 4 * row, active=live)
    kb.load(pcs("ld_Ap_start"), base["Ap"] + 4 * row, active=live)
    kb.compute(_ROW_END, active=live)
    kb.load(pcs("ld_Ap_end"), base["Ap"] + 4 * (row + 1), active=live)
    # Data-dependent trip count: iteration j runs in the threads whose row has > j entries,
    # and its compute is charged only to warps with a thread still looping.
    for j in range(int(count.max(initial=0))):
        act = j < count
        jj = start + j
        col = aj[np.where(act, jj, 0)]
        kb.compute(_LOOP, active=act)
        kb.load(pcs("ld_Ax"), base["Ax"] + 4 * jj, active=act)
        kb.load(pcs("ld_Aj"), base["Aj"] + 4 * jj, active=act)
        kb.load(pcs("ld_x"), base["x"] + 4 * col, active=act)
        kb.compute(_SUM, active=act)
    kb.store(pcs("st_y"), base["y"] + 4 * row, active=live)
    return kb.build()


_SOURCE = "OpenDwarfs sparse-linear-algebra/SPMV/src/spmv_kernel.cl (csr)"

register_workload("tian15", "spmv", build, source=_SOURCE, mi=215.8, size="256x256",
                  description=("CSR sparse matrix-vector product y += A*x, 256x256, 50% "
                               "dense, a row per thread"))
