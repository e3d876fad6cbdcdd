"""kim20 STC: Rodinia 3.1 streamcluster (``kernel_compute_cost`` in ``pgain``), the first pgain launches.

Follows ``cuda/streamcluster/streamcluster_cuda.cu`` (``pgain``,
``kernel_compute_cost``) and the host algorithm of
``streamcluster_cuda_cpu.cpp`` (``pkmedian``, ``pspeedy``,
``selectfeasible_fast``, ``pFL``) of Rodinia 3.1, at the run script's
input ``./sc_gpu 10 20 256 65536 65536 1000 none output.txt 1``: ``kmin =
10``, ``kmax = 20``, 256 dimensions, one chunk of 65536 points generated
(``none``: ``SimStream``, coordinates uniform in ``[0, 1)``, weight 1).

Each ``pgain(x)`` launches ``kernel_compute_cost<<<128, 512>>>``: thread
``tid`` computes the distance of point ``tid`` to the candidate ``x`` over
the column-major coordinates (``coord[i*num + tid]``, coalesced, and
``coord[i*num + x]``, the same address in every lane) for ``i < 256``, loads
``p[tid].weight`` and ``p[tid].cost`` (``Point`` is 32 bytes: ``weight``,
``coord``, ``assign``, ``cost``), and then either marks
``switch_membership[tid]`` and adds to ``work_mem[tid*stride + K]``
(``x_cost < cost``, reloading ``cost`` after the ``bool`` store, which may
alias) or adds to ``work_mem[tid*stride + center_table[p[tid].assign]]``:
a data-dependent address. ``stride = K + 1`` for the ``K`` open centers.

The host decides which launches happen and with which state: ``pkmedian``
computes ``z`` (half the total distance to point 0), runs ``pspeedy`` (open
a center at point ``i`` with probability ``cost_i / z``) halving ``z`` until
at least ``kmin`` centers are open, picks ``3 kmin ln kmin = 69`` feasible
candidates (``selectfeasible_fast``), and ``pFL`` calls ``pgain`` for them in
shuffled order (``3 kmax ln kmax = 179`` calls per pass), each call
possibly opening ``x`` and closing centers. All of this is carried out here
(float32 arithmetic; ``numpy.random.default_rng(seed)`` in place of
``lrand48``; the points' initial ``shuffle`` is skipped, which changes
nothing for i.i.d. points), so every launch's ``x``, ``K``, branch and
``center_table`` index is the one the host would produce for that draw.

The run makes hundreds of ``pgain`` calls of about 1 M warp memory
instructions each; the workload holds the **first** :data:`LAUNCHES` (4) of
the first ``pFL`` pass (``build(launches=...)``, up to 179, for more). kim20
does not say how long GPGPU-Sim ran it. ``--scale`` shrinks the number of
points (a multiple of 512).
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads._polybench import Emitter, ld, st

__all__ = ["build", "host_state", "compute_cost_kernel", "LAUNCHES", "NUM", "DIM", "REGS"]

SOURCE = ("Rodinia 3.1 cuda/streamcluster/streamcluster_cuda.cu (kernel_compute_cost, pgain), "
          "streamcluster_cuda_cpu.cpp (pkmedian, pspeedy, selectfeasible_fast, pFL), run")
NUM, DIM = 65536, 256  # run: sc_gpu 10 20 256 65536 65536 1000 none output.txt 1
KMIN, KMAX = 10, 20
THREADS_PER_BLOCK = 512
SP, ITER = 1, 3
#: pgain launches emitted by default (module docstring).
LAUNCHES = 4
#: Registers per thread: estimate (docs/workloads/kim20.md, "Registers").
REGS = {"kernel_compute_cost": 20}
POINT_BYTES = 32  # struct Point {float weight; float *coord; long assign; float cost;}
_F = 4


class _Host:
    """The host's clustering state between pgain calls (points, centers, ``z``)."""

    def __init__(self, coords: np.ndarray, rng: np.random.Generator) -> None:
        self.c = coords
        self.n = len(coords)
        self.rng = rng
        self.weight = np.ones(self.n, dtype=np.float32)
        self.cost = np.zeros(self.n, dtype=np.float32)
        self.assign = np.zeros(self.n, dtype=np.int64)
        self.is_center = np.zeros(self.n, dtype=bool)
        self.k = 0

    def dist(self, i: int) -> np.ndarray:
        """Squared distances (float32) of every point to point ``i`` (``dist``)."""
        d = self.c - self.c[i]
        return np.einsum("ij,ij->i", d, d, dtype=np.float32)

    def pspeedy(self, z: float) -> None:
        self.cost = self.dist(0) * self.weight
        self.assign[:] = 0
        self.k = 1
        draws = self.rng.random(self.n).astype(np.float32)
        for i in range(1, self.n):  # each opening changes later points' costs
            if draws[i] < self.cost[i] / np.float32(z):
                self.k += 1
                d = self.dist(i) * self.weight
                better = d < self.cost
                self.cost[better] = d[better]
                self.assign[better] = i


def host_state(n: int, seed: int, launches: int):
    """Run the host up to ``launches`` pgain calls; yield each call's kernel inputs.

    Yields
    ------
    tuple
        ``(x, K, cost, assign, center_table, weight, dist)`` as the kernel sees them;
        ``dist`` holds every point's float32 distance to ``x`` (``d_dist``).
    """
    rng = np.random.default_rng(seed)
    coords = rng.random((n, DIM), dtype=np.float32)
    h = _Host(coords, rng)
    hiz = float(np.sum(h.dist(0) * h.weight, dtype=np.float32))
    loz = 0.0
    z = (hiz + loz) / 2.0
    h.pspeedy(z)
    i = 0
    while h.k < KMIN and i < SP:
        h.pspeedy(z)
        i += 1
    while h.k < KMIN:
        if i >= SP:
            hiz, z, i = z, (z + loz) / 2.0, 0
        h.pspeedy(z)
        i += 1
    # selectfeasible_fast: weights are all 1, so the weighted pick is uniform.
    numfeasible = min(n, int(ITER * KMIN * np.log(np.float32(KMIN))))
    if numfeasible == n:
        feasible = np.arange(n)
    else:
        accum = np.cumsum(h.weight)
        w = rng.random(numfeasible).astype(np.float32) * accum[-1]
        feasible = np.minimum(np.searchsorted(accum, w, side="right"), n - 1)
    h.is_center[h.assign] = True
    # numcenters is pspeedy's count of openings, which may exceed the centers that kept a
    # point (is_center marks only assigned ones): K and stride use it, as the host does.
    numcenters = h.k
    rng.shuffle(feasible)  # pFL: intshuffle
    for call in range(launches):
        x = int(feasible[call % numfeasible])
        k = numcenters
        center_table = np.cumsum(h.is_center) - 1
        dist = h.dist(x)
        yield x, k, h.cost.copy(), h.assign.copy(), center_table, h.weight, dist
        # pgain's host half: costs of opening x and closing each center.
        x_cost = dist * h.weight
        switch = x_cost < h.cost
        stride = k + 1
        work = np.zeros((n, stride), dtype=np.float32)
        work[switch, k] = (x_cost - h.cost)[switch]
        ct = center_table[h.assign]
        np.add.at(work, (np.flatnonzero(~switch), ct[~switch]), (h.cost - x_cost)[~switch])
        centers = np.flatnonzero(h.is_center)
        low = np.float32(z) + work[:, center_table[centers]].sum(axis=0, dtype=np.float32)
        gl_lower = np.zeros(stride, dtype=np.float32)
        gl_lower[center_table[centers]] = low
        closing = centers[low > 0]
        work[closing, k] -= low[low > 0]
        if np.float32(z) + work[:, k].sum(dtype=np.float32) < 0:
            moved = switch | (gl_lower[ct] > 0)
            h.cost[moved] = x_cost[moved]
            h.assign[moved] = x
            h.is_center[closing] = False
            h.is_center[x] = True
            numcenters += 1 - len(closing)


def compute_cost_kernel(n: int, x: int, k: int, cost: np.ndarray, assign: np.ndarray,
                        center_table: np.ndarray, weight: np.ndarray, dist: np.ndarray,
                        a: dict, pcs: PCs) -> KernelTrace:
    """One ``kernel_compute_cost<<<n/512, 512>>>`` launch for candidate ``x`` and ``K = k``.

    ``dist`` is every point's float32 distance to ``x``: it decides the branch.
    """
    kb = KernelBuilder("kernel_compute_cost", grid=(-(-n // THREADS_PER_BLOCK),),
                       block=(THREADS_PER_BLOCK,))
    em = Emitter(kb, "compiled", prologue=6, pcs=pcs)  # bid, tid, tid < num
    tid = kb.gtid
    live = tid < n
    t = np.minimum(tid, n - 1)
    stride = k + 1
    # d_dist: for i < dim: tmp = coord[i*num + p1] - coord[i*num + p2]; retval += tmp*tmp
    em.loop([ld("ld_coord_tid", t * _F, a["coord"], step=n * _F),
             ld("ld_coord_x", 0, a["coord"] + x * _F, step=n * _F, gap=0),
             ], DIM, active=live)
    point = a["p"] + t * POINT_BYTES
    take = live & (dist[t] * weight[t] < cost[t])
    em.straight([ld("ld_weight", point, 0, gap=2), ld("ld_cost", point, 24, gap=1)], active=live)
    lower = a["work_mem"] + t * stride * _F
    em.straight([st("st_switch", t, a["switch_membership"], gap=2, active=take, width=1),
                 ld("ld_cost_again", point, 24, active=take),
                 ld("ld_lower_K", lower, k * _F, active=take),
                 st("st_lower_K", lower, k * _F, gap=2, active=take)], active=live)
    other = live & ~take
    ct = center_table[assign[t]]
    em.straight([ld("ld_assign", point, 16, gap=2, active=other, width=8),
                 ld("ld_center_table", a["center_table"] + assign[t] * _F, 0, active=other),
                 ld("ld_lower_c", lower + ct * _F, 0, active=other),
                 st("st_lower_c", lower + ct * _F, 0, gap=2, active=other)], active=live)
    return em.finish()


def build(scale: float = 1.0, seed: int = 0, *, launches: int = LAUNCHES) -> Workload:
    """The first ``launches`` pgain launches on ``65536 * scale`` points (a multiple of 512).

    Raises
    ------
    ValueError
        For ``launches`` outside 1 .. 179 (the first pFL pass).
    """
    per_pass = int(ITER * KMAX * np.log(np.float32(KMAX)))
    if not (isinstance(launches, int) and 1 <= launches <= per_pass):
        raise ValueError(f"launches: must be an integer from 1 to {per_pass}, not {launches!r}")
    n = scaled(NUM, scale, multiple=THREADS_PER_BLOCK)
    states = list(host_state(n, seed, launches))
    mem, pcs = DeviceMemory(), PCs()
    max_stride = max(k for _, k, *_ in states) + 1
    a = {"work_mem": mem.alloc("work_mem_d", max_stride * (n + 1) * _F)}  # cudaMalloc'd first
    for name, size in (("center_table", n * 4), ("switch_membership", n), ("p", n * POINT_BYTES),
                       ("coord", n * DIM * _F)):  # allocDevMem
        a[name] = mem.alloc(f"{name}_d", size)
    kernels, xs, ks = [], [], []
    for x, k, cost, assign, center_table, weight, dist in states:
        kernels.append(compute_cost_kernel(n, x, k, cost, assign, center_table, weight, dist, a,
                                           pcs))
        xs.append(x)
        ks.append(k)
    return Workload(name="kim20/stc", kernels=with_resources(kernels, REGS),
                    params={"num": n, "dim": DIM, "kmin": KMIN, "kmax": KMAX, "x": xs, "K": ks,
                            "arrays": mem.sizes()},
                    source=SOURCE)


register_workload(SUITE, "stc", build, source=SOURCE, size="65536 x 256, first 4 pgain",
                  description="streamcluster pgain cost kernel, 128 CTAs x 512 threads, "
                              "the first 4 of the run's launches",
                  **paper_figures("stc"))
