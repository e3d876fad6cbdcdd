"""tian15 kmeans: Rodinia OpenCL kmeans, kernels ``kmeans_swap`` and ``kmeans_kernel_c``.

Follows ``opencl/kmeans/kmeans.cl`` and the host code in ``kmeans.cpp``,
``kmeans_clustering.c`` and ``cluster.c`` of Rodinia (the OpenCL twins of CUDA
``invert_mapping`` and ``kmeansPoint``: the same index arithmetic, but the
features and cluster centres are read from global memory instead of texture
and constant memory). ``allocate()`` launches ``kmeans_swap`` once to
transpose ``feature[npoints][nfeatures]`` into ``feature_swap[nfeatures][npoints]``;
every iteration of the clustering loop launches ``kmeans_kernel_c``, in which
each work-item finds the nearest of ``nclusters`` centres for its point by
walking all features of all centres. Both use work-groups of 256
(``BLOCK_SIZE``, ``BLOCK_SIZE2``).

No address or loop bound of either kernel depends on the data, so every
``kmeans_kernel_c`` launch has the same trace. Rodinia iterates until no point
changes cluster (at most 500 times): on Rodinia ``datagen`` inputs of 16384
points (34 uniform integer features in 0..255) that takes 150-350 iterations,
which would make this trace 150-350 copies of one launch; the emulator
emits :data:`ITERATIONS` launches instead (docs/workloads/tian15_a.md).

tian15 Table 2: kmeans, 16384 points, MI 121.8.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Op, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled

__all__ = ["build", "kmeans_kernels", "POINTS", "FEATURES", "CLUSTERS", "ITERATIONS",
           "WORK_GROUP"]

#: Points at scale 1.0 (tian15 Table 2: 16384).
POINTS = 16_384
#: Features per point (Rodinia datagen and kdd_cup: 34).
FEATURES = 34
#: Clusters (Rodinia ``-m``/``-n`` default: 5).
CLUSTERS = 5
#: ``kmeans_kernel_c`` launches emitted (Rodinia iterates to convergence; see the docstring).
ITERATIONS = 5
#: ``BLOCK_SIZE`` and ``BLOCK_SIZE2`` of kmeans.cpp.
WORK_GROUP = 256

# Compute instructions: the operators the source writes between memory instructions
# (docs/workloads/tian15_a.md, "compute-count rule").
_GID = 2  # get_global_id(0)
_GUARD = 2  # if (point_id < npoints): compare, branch
_LOOP = 2  # increment, compare-and-branch, per iteration
_SWAP_HOIST = 1  # tid * nfeatures (loop invariant)
_SWAP_LOAD = 1  # (tid * nfeatures) + i
_SWAP_STORE = 2  # i * npoints + tid
_CLUSTER_ROW = 1  # i * nfeatures (invariant in the feature loop)
_FEATURE_INDEX = 2  # l * npoints + point_id
_CLUSTER_INDEX = 1  # (i * nfeatures) + l
_TERM = 2  # ans += (f - c) * (f - c): the difference once, one FMA
_MIN = 2  # if (dist < min_dist): compare, branch


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Trace of ``kmeans_swap`` and :data:`ITERATIONS` ``kmeans_kernel_c`` launches.

    Parameters
    ----------
    scale : float
        Points ``= 16384 * scale``, a multiple of 256 (``kmeans_swap`` has no bounds
        check, so the emulator keeps every work-item inside the arrays).
    seed : int
        Unused (the addresses do not depend on the features).

    Returns
    -------
    Workload
        ``kmeans_swap`` followed by the clustering launches.
    """
    n = scaled(POINTS, scale, multiple=WORK_GROUP)
    mem = DeviceMemory()
    kernels = kmeans_kernels(n, FEATURES, CLUSTERS, ITERATIONS, mem)
    return Workload(
        name="tian15/kmeans",
        kernels=kernels,
        params={"points": n, "features": FEATURES, "clusters": CLUSTERS,
                "iterations": ITERATIONS, "arrays": dict(mem.arrays)},
        source=_SOURCE,
    )


def kmeans_kernels(npoints: int, nfeatures: int, nclusters: int, iterations: int,
                   mem: DeviceMemory) -> list[KernelTrace]:
    """``kmeans_swap`` then ``iterations`` launches of ``kmeans_kernel_c``.

    The clustering launches are one :class:`KernelTrace` object repeated (their
    traces are identical).

    Parameters
    ----------
    npoints, nfeatures, nclusters : int
        Problem size.
    iterations : int
        Launches of ``kmeans_kernel_c``.
    mem : DeviceMemory
        Allocator of the four device arrays (in ``clCreateBuffer`` order).

    Returns
    -------
    list of KernelTrace
        ``kmeans_swap`` and the clustering launches.

    Raises
    ------
    ValueError
        If ``npoints`` is not a positive multiple of 256 or a count is not positive.
    """
    if npoints < WORK_GROUP or npoints % WORK_GROUP:
        raise ValueError(f"npoints: must be a positive multiple of {WORK_GROUP}, not {npoints}")
    for label, v in (("nfeatures", nfeatures), ("nclusters", nclusters),
                     ("iterations", iterations)):
        if v < 1:
            raise ValueError(f"{label}: must be a positive integer, not {v}")
    feature = mem.alloc("d_feature", 4 * npoints * nfeatures)
    swap = mem.alloc("d_feature_swap", 4 * npoints * nfeatures)
    cluster = mem.alloc("d_cluster", 4 * nclusters * nfeatures)
    membership = mem.alloc("d_membership", 4 * npoints)
    pcs = PCs()
    grid = (npoints // WORK_GROUP,)

    # kmeans_swap: feature_swap[i * npoints + tid] = feature[tid * nfeatures + i]
    kb = KernelBuilder("kmeans_swap", grid=grid, block=(WORK_GROUP,))
    tid = kb.gtid
    i = np.arange(nfeatures)[:, None]
    addrs = np.empty((2 * nfeatures, kb.n_threads), dtype=np.int64)
    addrs[0::2] = feature + 4 * (tid * nfeatures + i)
    addrs[1::2] = swap + 4 * (i * npoints + tid)
    ops = np.tile([Op.LOAD, Op.STORE], nfeatures)
    kb.compute(_GID + _SWAP_HOIST)
    kb.sequence(ops, np.tile([pcs("swap:ld_feature"), pcs("swap:st_feature_swap")], nfeatures),
                addrs, gaps=np.tile([_LOOP + _SWAP_LOAD, _SWAP_STORE], nfeatures))
    swap_kernel = kb.build()

    # kmeans_kernel_c: for each cluster i, for each feature l, load feature_swap[l][pid]
    # and clusters[i][l]; then membership[pid] = index.
    kb = KernelBuilder("kmeans_kernel_c", grid=grid, block=(WORK_GROUP,))
    pid = kb.gtid
    k = nclusters * nfeatures
    ci, fl = np.divmod(np.arange(k), nfeatures)
    addrs = np.empty((2 * k, kb.n_threads), dtype=np.int64)
    addrs[0::2] = swap + 4 * (fl[:, None] * npoints + pid)
    addrs[1::2] = cluster + 4 * (ci * nfeatures + fl)[:, None]
    gaps = np.empty(2 * k, dtype=np.int64)
    gaps[1::2] = _CLUSTER_INDEX
    # Before feature load (i, l): the loop step and index, plus the previous term;
    # at l == 0 also the cluster loop step and row, and the previous cluster's comparison.
    gaps[0::2] = _LOOP + _FEATURE_INDEX + np.where(fl > 0, _TERM, 0)
    gaps[0::2] += np.where(fl == 0, _LOOP + _CLUSTER_ROW, 0)
    gaps[0::2] += np.where((fl == 0) & (ci > 0), _TERM + _MIN, 0)
    kb.compute(_GID + _GUARD)
    kb.sequence(Op.LOAD, np.tile([pcs("c:ld_feature"), pcs("c:ld_clusters")], k), addrs,
                gaps=gaps)
    kb.compute(_TERM + _MIN)
    kb.store(pcs("c:st_membership"), membership + 4 * pid)
    point_kernel = kb.build()
    return [swap_kernel] + [point_kernel] * iterations


_SOURCE = ("Rodinia opencl/kmeans/kmeans.cl (kmeans_swap, kmeans_kernel_c) with kmeans.cpp, "
           "kmeans_clustering.c")

register_workload("tian15", "kmeans", build, source=_SOURCE, mi=121.8, size="16384 points",
                  description="k-means assignment step, 16384 points x 34 features, 5 clusters, 5 iterations")
