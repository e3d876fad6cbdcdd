"""ciao18 KMN: Mars Kmeans, map (nearest centre), group (by cluster) and reduce (new centres).

Follows ``sample_apps/Kmeans/{main.cu, map.cu, compare.cu, reduce.cu, global.h}``
of ``wenbinf/Mars`` at f47db01 and the framework in
:mod:`golden.workloads._mars`. The run script (``KM_BIN/run.sh``) runs
``Kmeans 30000 3 24``: 3-dimensional integer points (``rand() % 100``,
here drawn from ``seed``), 24 clusters seeded with the first 24 points,
``MAP_REDUCE`` called until no point changes cluster (the last call, which
changes nothing, included). ciao18 Table II gives 168 KB of input; the
number of points is chosen so that the program's arrays and the Mars input
records total that (:data:`POINTS`, docs/workloads/ciao18.md).

One map record per point (key ``{point_id, dim, K, ptrClusterId}``, value
``{ptrPoints, ptrClusters, ptrChange}``, 24 bytes each). ``map`` computes
the distance to the point's current centre and to all 24, moves the point
(``*change = 1``, ``ptrClusterId[ptId] = curClusterId``) and emits its own
key and value. ``compare`` orders keys by ``ptrClusterId[point_id]``;
``reduce`` (one thread per cluster) zeroes the centre, adds every member's
coordinates (``GET_KEY_FUNC``) and divides by the count; it emits nothing.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import Op, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._mars import Emitter, GroupPhase, Groups, MapPhase, ReducePhase, memory_after, sequence
from golden.workloads.ciao18_regs import MARS_REGS

__all__ = ["DIM", "K", "MAX_ITERATIONS", "POINTS", "build", "kmeans_iterations"]

#: Points at scale 1: 80 bytes per point (the point, its cluster id, two 24-byte structs and
#: an index entry) plus the 24 centres and the flag make ciao18 Table II's 168 KB.
POINTS = 2096
#: ``Kmeans 30000 3 24``: dimensions and clusters.
DIM, K = 3, 24
#: Bound on MapReduce calls (convergence takes far fewer at these sizes).
MAX_ITERATIONS = 100
KEY_BYTES = VAL_BYTES = 24
#: Field offsets of KM_KEY_T and KM_VAL_T (64-bit pointers, 8-byte aligned).
_PID, _DIMF, _KF, _PCID = 0, 4, 8, 16
_PPOINTS, _PCLUSTERS, _PCHANGE = 0, 8, 16
_GL = Space.GLOBAL

SOURCE = ("Mars (wenbinf/Mars) sample_apps/Kmeans/main.cu, map.cu, compare.cu, reduce.cu; "
          "MarsLib.cu, MarsScan.cu, MarsSort.cu")


def kmeans_iterations(points: np.ndarray, k: int, limit: int = MAX_ITERATIONS):
    """The cluster ids and centres every ``MapReduce`` call starts from and ends with.

    Yields ``(cid_before, cid_after, centres_before, centres_after)`` per call,
    integer arithmetic as the kernels (``minDist > curDist`` keeps the earlier
    centre on a tie; centres are C integer means; empty clusters keep theirs).
    """
    cid = np.zeros(len(points), np.int64)
    centres = points[:k].copy()
    for _ in range(limit):
        d = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        new = cid.copy()
        best = d[np.arange(len(points)), cid]
        for c in range(k):
            better = best > d[:, c]
            new[better] = c
            best[better] = d[better, c]
        after = centres.copy()
        for c in np.unique(new):
            members = points[new == c]
            after[c] = members.sum(axis=0) // len(members)
        yield cid, new, centres, after
        changed = bool((new != cid).any())
        cid, centres = new, after
        if not changed:
            return


def _kernels_of_call(mem: DeviceMemory, pcs: PCs, arrays: dict, points: np.ndarray,
                     cid: np.ndarray, new: np.ndarray, tag: str) -> list:
    n, dim = points.shape
    regs = MARS_REGS["kmn"]
    phase = MapPhase(mem, pcs, n, KEY_BYTES, VAL_BYTES, KEY_BYTES, VAL_BYTES, regs, tag)

    def map_count(kb: KernelBuilder, pcs: PCs, prefix: str, tid, live, em: Emitter) -> None:
        em.emit(live)

    def map_fn(kb: KernelBuilder, pcs: PCs, prefix: str, tid, live, em: Emitter) -> None:
        def pc(label):
            return pcs(f"{prefix}:{label}")
        p = np.where(live, tid, 0)
        key, val = phase.key_addr(p), phase.val_addr(p)
        for off, w, label in ((_DIMF, 4, "dim"), (_KF, 4, "K"), (_PID, 4, "point_id"),
                              (_PCID, 8, "ptrClusterId")):
            kb.load(pc(f"ld_key_{label}"), key + off, active=live, width=w)
        kb.load(pc("ld_clusterId"), arrays["clusterId"] + 4 * p, active=live)
        for off, label in ((_PPOINTS, "ptrPoints"), (_PCLUSTERS, "ptrClusters"), (_PCHANGE, "ptrChange")):
            kb.load(pc(f"ld_val_{label}"), val + off, active=live, width=8)
        kb.compute(6, active=live)
        point = arrays["points"] + 4 * dim * p
        origin = arrays["clusters"] + 4 * dim * cid[p]
        rows, pending = [], 0
        for i in range(dim):  # minDist to the current centre
            rows += [(Op.LOAD, pc("ld_point0"), point + 4 * i, 4, _GL, pending + 2),
                     (Op.LOAD, pc("ld_origin"), origin + 4 * i, 4, _GL, 0)]
            pending = 3
        for c in range(K):
            pending += 4
            for j in range(dim):
                rows += [(Op.LOAD, pc("ld_point"), point + 4 * j, 4, _GL, pending + 2),
                         (Op.LOAD, pc("ld_cluster"), arrays["clusters"] + 4 * (c * dim + j), 4, _GL, 0)]
                pending = 3
            pending += 2  # if (minDist > curDist)
        sequence(kb, rows, live)
        kb.compute(pending, active=live)
        moved = live & (new[p] != cid[p])
        kb.compute(1, active=live)
        kb.store(pc("st_change"), np.full(kb.n_threads, arrays["change"]), active=moved)
        kb.store(pc("st_clusterId"), arrays["clusterId"] + 4 * p, active=moved)
        em.emit(live, key, val, key_space=Space.GLOBAL, val_space=Space.GLOBAL, tag=p)

    out, _ = phase.kernels(map_count, map_fn)

    def compare(kb: KernelBuilder, pc, on, ra, rb, addr_a, addr_b) -> np.ndarray:
        pa, pb = phase.inter.tag[ra], phase.inter.tag[rb]
        rows = []
        for side, addr, pt in (("a", addr_a, pa), ("b", addr_b, pb)):
            rows += [(Op.LOAD, pc(f"cmp_ld_ptr_{side}"), addr + _PCID, 8, _GL, 0),
                     (Op.LOAD, pc(f"cmp_ld_pid_{side}"), addr + _PID, 4, _GL, 0),
                     (Op.LOAD, pc(f"cmp_ld_cid_{side}"), arrays["clusterId"] + 4 * pt, 4, _GL, 2)]
        sequence(kb, rows, on)
        kb.compute(4, active=on)
        return np.sign(new[pa] - new[pb])

    more, groups = GroupPhase(mem, pcs, phase.inter, compare, regs, tag).kernels()
    out += more

    def reduce_count(kb, pcs, prefix, tid, live, em: Emitter, g: Groups) -> None:
        em.emit(live)  # EMIT_COUNT_FUNC(sizeof(KM_KEY_T), sizeof(KM_VAL_T))

    def reduce_fn(kb, pcs, prefix, tid, live, em: Emitter, g: Groups) -> None:
        def pc(label):
            return pcs(f"{prefix}:{label}")
        t = np.where(live, tid, 0)
        first = g.start[np.minimum(t, len(g.start) - 1)]
        count = np.where(live, g.end[np.minimum(t, len(g.end) - 1)] - first, 0)
        s = g.records
        key = s.keys + s.key_off[first]
        val = s.vals + s.val_off[first]
        for off, w, label in ((_DIMF, 4, "dim"), (_PID, 4, "point_id"), (_PCID, 8, "ptrClusterId")):
            kb.load(pc(f"ld_key_{label}"), key + off, active=live, width=w)
        pid = s.tag[first]
        kb.load(pc("ld_clusterId"), arrays["clusterId"] + 4 * pid, active=live)
        kb.load(pc("ld_ptrClusters"), val + _PCLUSTERS, active=live, width=8)
        kb.load(pc("ld_ptrPoints"), val + _PPOINTS, active=live, width=8)
        kb.compute(4, active=live)
        centre = arrays["clusters"] + 4 * dim * new[pid]
        for i in range(dim):
            kb.compute(2, active=live)
            kb.store(pc("st_zero"), centre + 4 * i, active=live)
        rows = []
        for i in range(int(count.max(initial=0))):  # for each value of the key
            on = live & (i < count)
            member = np.minimum(first + i, len(s) - 1)
            pt = arrays["points"] + 4 * dim * s.tag[member]
            rows += [(Op.LOAD, pc("ld_getkey_y"), s.offsets + 16 * first + 4, 4, _GL, 3, on),
                     (Op.LOAD, pc("ld_member_pid"), key + KEY_BYTES * i + _PID, 4, _GL, 2, on)]
            for j in range(dim):
                rows += [(Op.LOAD, pc("ld_pt"), pt + 4 * j, 4, _GL, 2, on),
                         (Op.LOAD, pc("ld_sum"), centre + 4 * j, 4, _GL, 0, on),
                         (Op.STORE, pc("st_sum"), centre + 4 * j, 4, _GL, 1, on)]
        sequence(kb, rows)
        for i in range(dim):
            kb.compute(2, active=live)
            kb.load(pc("ld_div"), centre + 4 * i, active=live)
            kb.compute(2, active=live)
            kb.store(pc("st_div"), centre + 4 * i, active=live)

    more, _ = ReducePhase(mem, pcs, groups, KEY_BYTES, VAL_BYTES, regs, tag).kernels(reduce_count,
                                                                                    reduce_fn)
    return out + more


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Mars Kmeans on ``2096 * scale`` points (at least 32), 3 dimensions, 24 clusters."""
    n = scaled(POINTS, scale, minimum=32)
    rng = np.random.default_rng(seed)
    points = rng.integers(0, 100, (n, DIM)).astype(np.int64)
    mem = DeviceMemory()
    arrays = {"points": mem.alloc("d_points", 4 * n * DIM),
              "clusterId": mem.alloc("d_clusterId", 4 * n),
              "clusters": mem.alloc("d_cluster", 4 * K * DIM),
              "change": mem.alloc("d_change", 4)}
    pcs = PCs()
    kernels, calls = [], 0
    for cid, new, _, _ in kmeans_iterations(points, K):
        kernels += _kernels_of_call(memory_after(mem), pcs, arrays, points, cid, new, "")
        calls += 1
    records = n * (KEY_BYTES + VAL_BYTES + 16)
    return Workload(name="ciao18/kmn", kernels=kernels,
                    params={"points": n, "dim": DIM, "k": K, "mapreduce_calls": calls,
                            "arrays": mem.sizes(), "input_bytes": mem.footprint + records},
                    source=SOURCE)


register_workload("ciao18", "kmn", build, source=SOURCE, version=1,
                  description="Mars Kmeans: 2096 3-D points, 24 clusters, map/group/reduce to convergence",
                  apki=46, size="168KB", N=POINTS, n_warp=4, f_smem=0.01, barriers=True, cls="LWS")
