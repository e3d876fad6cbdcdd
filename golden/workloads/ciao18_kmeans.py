"""ciao18 kmeans: Rodinia 3.1 CUDA kmeans, ``invert_mapping`` then ``kmeansPoint``.

Follows ``cuda/kmeans/kmeans_cuda_kernel.cu`` and ``kmeans_cuda.cu`` of
Rodinia 3.1 (read from ``yuhc/gpu-rodinia`` at 9c10d3e). This is not the
OpenCL program tian15 uses (:mod:`golden.workloads.tian15_kmeans`): the CUDA
kernel reads the features through the texture ``t_features``
(``tex1Dfetch``, ``Space.TEXTURE`` rows here: the texture cache, not L1D)
and the cluster centres from ``__constant__ c_clusters`` (``Space.CONST``),
so its only global accesses are ``invert_mapping``'s transpose and the
``membership`` stores. ``GPU_DELTA_REDUCTION`` and
``GPU_NEW_CENTER_REDUCTION`` are commented out in the source, so
``kmeansPoint`` has no shared memory and no barrier.

``allocateMemory`` sizes the grid as ``num_blocks = ceil(npoints / 256)``
rounded up to a square ``perdim^2``; ``invert_mapping<<<perdim^2, 256>>>``
runs once::

    point_id = threadIdx.x + 256 * blockIdx.x;
    if (point_id < npoints)
        for (i = 0; i < nfeatures; i++)
            output[point_id + npoints * i] = input[point_id * nfeatures + i];

and every clustering iteration launches ``kmeansPoint<<<(perdim, perdim), 256>>>``::

    point_id = (gridDim.x * blockIdx.y + blockIdx.x) * 256 + threadIdx.x;
    if (point_id < npoints) {
        for (i = 0; i < nclusters; i++)
            for (j = 0; j < nfeatures; j++)
                diff = tex1Dfetch(t_features, point_id + j * npoints) - c_clusters[i * nfeatures + j];
                ...
        membership[point_id] = index;
    }

No address depends on the data, so every ``kmeansPoint`` launch is the same
trace; :data:`~golden.workloads.tian15_kmeans.ITERATIONS` launches are
emitted (Rodinia iterates to convergence). Table II's 101 MB is matched by the
two ``npoints x 34`` feature arrays at 389,376 points (docs/workloads/ciao18.md).
"""

from __future__ import annotations

import math

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._program import Program
from golden.workloads.ciao18_regs import REGS
from golden.workloads.tian15_kmeans import CLUSTERS, FEATURES, ITERATIONS

__all__ = ["BLOCK", "POINTS", "build", "kmeans_cuda_kernels"]

#: Points at scale 1: two feature arrays of 389,376 x 34 floats are 101 MiB (Table II).
POINTS = 389_376
#: THREADS_PER_BLOCK (16 x 16 threads as one dimension).
BLOCK = 256
_F4 = 4

SOURCE = "Rodinia 3.1 cuda/kmeans/kmeans_cuda_kernel.cu (invert_mapping, kmeansPoint), kmeans_cuda.cu"

# Compute: the source's operators (docs/workloads/ciao18.md).
_INDEX = 2 + 2  # point_id; if (point_id < npoints)
_BLOCK_INDEX = 2 + 2 + 2  # block_id, point_id; the bound check
_LOOP = 2  # increment, compare-and-branch
_ADDR = 2  # point_id + j * npoints
_DIFF = 2  # subtract, multiply-add
_MIN = 3  # cluster base, compare, select


def kmeans_cuda_kernels(npoints: int, nfeatures: int, nclusters: int, iterations: int,
                        mem: DeviceMemory, pcs: PCs) -> list[KernelTrace]:
    """``invert_mapping`` then ``iterations`` launches of ``kmeansPoint`` (one repeated object).

    Raises
    ------
    ValueError
        If a count is not positive.
    """
    for label, v in (("npoints", npoints), ("nfeatures", nfeatures), ("nclusters", nclusters),
                     ("iterations", iterations)):
        if v < 1:
            raise ValueError(f"{label}: must be a positive integer, not {v}")
    perdim = math.isqrt(-(-npoints // BLOCK) - 1) + 1
    flipped = mem.alloc("feature_flipped_d", npoints * nfeatures * _F4)
    features = mem.alloc("feature_d", npoints * nfeatures * _F4)
    membership = mem.alloc("membership_d", npoints * _F4)
    mem.alloc("clusters_d", nclusters * nfeatures * _F4)
    mem.alloc("block_clusters_d", perdim * perdim * nclusters * nfeatures * _F4)
    mem.alloc("block_deltas_d", perdim * perdim * _F4)

    kb = KernelBuilder("invert_mapping", grid=(perdim * perdim,), block=(BLOCK,),
                       regs_per_thread=REGS["invert_mapping"])
    p = Program(kb, pcs, "invert_mapping")
    pid = kb.gtid
    live = pid < npoints
    p.compute(_INDEX)
    for i in range(nfeatures):
        p.compute(_LOOP + 2, active=live)  # loop; the two index expressions
        p.load("ld_input", flipped + (pid * nfeatures + i) * _F4, active=live)
        p.store("st_output", features + (pid + npoints * i) * _F4, active=live)
    inverted = p.build()

    kb = KernelBuilder("kmeansPoint", grid=(perdim, perdim), block=(BLOCK,),
                       regs_per_thread=REGS["kmeansPoint"])
    p = Program(kb, pcs, "kmeansPoint")
    pid = (perdim * kb.by + kb.bx) * BLOCK + kb.tx
    live = pid < npoints
    p.compute(_BLOCK_INDEX)
    # The bound check makes every instruction below conditional; give the rows
    # the mask only where some thread is out of range (the last CTAs).
    act = None if live.all() else live
    for i in range(nclusters):
        for j in range(nfeatures):
            p.compute(_LOOP + _ADDR, active=act)
            p.load("ld_tex_features", features + (pid + j * npoints) * _F4, active=act,
                   space=Space.TEXTURE)
            p.load("ld_c_clusters", (i * nfeatures + j) * _F4, active=act, space=Space.CONST)
            p.compute(_DIFF, active=act)
        p.compute(_LOOP + _MIN, active=act)
    p.store("st_membership", membership + pid * _F4, active=live)
    point = p.build()
    return [inverted] + [point] * iterations


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """kmeans on ``389376 * scale`` points (at least 256) of 34 features, 5 clusters.

    ``seed`` is unused: no address or trip count depends on the features.
    """
    n = scaled(POINTS, scale, minimum=BLOCK)
    mem = DeviceMemory()
    kernels = kmeans_cuda_kernels(n, FEATURES, CLUSTERS, ITERATIONS, mem, PCs())
    return Workload(name="ciao18/kmeans", kernels=kernels,
                    params={"points": n, "features": FEATURES, "clusters": CLUSTERS,
                            "iterations": ITERATIONS, "arrays": mem.sizes(),
                            "input_bytes": mem.footprint},
                    source=SOURCE)


register_workload("ciao18", "kmeans", build, source=SOURCE, version=1,
                  description="Rodinia CUDA kmeans: 389376 points x 34 features, 5 clusters",
                  apki=85, size="101MB", N=POINTS, n_warp=2, f_smem=0.0, barriers=True,
                  cls="LWS")
