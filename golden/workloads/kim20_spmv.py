"""kim20 SPMV: the scalar CSR sparse matrix-vector product (a row per thread), 65536 rows.

kim20 names neither the suite nor the input of its SPMV (its text lists
Rodinia, Polybench, the CUDA SDK 8.0 and Tango, none of which has one).
Choice (docs/workloads/kim20.md): the scalar CSR kernel already emulated
for tian15 (:func:`golden.workloads.tian15_spmv.csr_kernel`, following
OpenDwarfs ``spmv_kernel.cl``; SHOC's ``spmv_csr_scalar_kernel`` is the
same program): one thread per row walks ``Ap[row] .. Ap[row+1]``, loading
``Ax[jj]``, ``Aj[jj]`` and ``x[Aj[jj]]``, and stores ``y[row]``.

Input (choice): ``n = 65536`` rows and columns, so the launch has 256 CTAs
of 256 threads, enough to fill kim20's 56 SMs (Fig. 1 reports 89 % warp
occupancy for SPMV); row ``i`` gets ``round(N(32, 0.32))`` non-zeros (the
mean of 32 per row, and the relative spread 0.01 of OpenDwarfs'
``createcsr``) in uniformly random distinct columns, sorted. The n x n
key matrix tian15's generator draws does not fit at this size: columns
are drawn per row with replacement and duplicates dropped (0.02 % of
the draws at 32 of 65536: 0.008 repeats per row on average), so a few rows
have an entry fewer than drawn.
"""

from __future__ import annotations

import numpy as np

from golden.trace.model import Workload
from golden.workloads._common import register_workload, scaled
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads.tian15_spmv import NORMAL_STDDEV, csr_arrays, csr_kernel

__all__ = ["build", "random_rows", "SIZE", "MEAN_NNZ", "REGS"]

SOURCE = ("scalar CSR SpMV, as OpenDwarfs sparse-linear-algebra/SPMV/src/spmv_kernel.cl (csr) "
          "and SHOC spmv_csr_scalar_kernel; input chosen (docs/workloads/kim20.md)")
#: Rows (and columns) at scale 1.0 (choice).
SIZE = 65536
#: Mean non-zeros per row (choice).
MEAN_NNZ = 32
#: Registers per thread: estimate (docs/workloads/kim20.md, "Registers").
REGS = {"csr": 16}


def random_rows(n: int, mean: float, stddev: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A random ``n x n`` CSR structure with ``round(N(mean, stddev * mean))`` draws per row.

    Columns are drawn uniformly with replacement, deduplicated and sorted per row.

    Parameters
    ----------
    n : int
        Rows and columns.
    mean : float
        Mean draws per row.
    stddev : float
        Standard deviation of the draws per row, relative to ``mean``.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    ap, aj : numpy.ndarray
        ``int64[n + 1]`` row pointers and ``int64[nnz]`` column indices.

    Raises
    ------
    ValueError
        If ``n`` or ``mean`` is not positive.
    """
    if n < 1 or mean <= 0:
        raise ValueError(f"random_rows: need n >= 1 and mean > 0, not {n}, {mean}")
    rng = np.random.default_rng(seed)
    draws = np.clip(np.round(rng.standard_normal(n) * stddev * mean + mean), 0, n).astype(np.int64)
    width = int(draws.max(initial=0))
    cols = np.sort(rng.integers(0, n, size=(n, max(width, 1))), axis=1)
    keep = np.arange(cols.shape[1])[None, :] < draws[:, None]
    keep[:, 1:] &= cols[:, 1:] != cols[:, :-1]  # drop repeats (sorted: they are adjacent)
    ap = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(keep.sum(axis=1), out=ap[1:])
    return ap, cols[keep]


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """One ``csr`` launch on a random ``65536 * scale`` (a multiple of 256) square matrix."""
    n = scaled(SIZE, scale, multiple=256)
    ap, aj = random_rows(n, MEAN_NNZ, NORMAL_STDDEV, seed)
    nnz = int(ap[-1])
    mem, base = csr_arrays(n, nnz)
    return Workload(name="kim20/spmv", kernels=with_resources([csr_kernel(n, ap, aj, base)], REGS),
                    params={"n": n, "nnz": nnz, "mean_nnz": MEAN_NNZ,
                            "normal_stddev": NORMAL_STDDEV, "arrays": mem.sizes()},
                    source=SOURCE)


register_workload(SUITE, "spmv", build, source=SOURCE, size="65536x65536, 32/row",
                  description="scalar CSR SpMV y += A*x, a row per thread, 65536 rows",
                  **paper_figures("spmv"))
