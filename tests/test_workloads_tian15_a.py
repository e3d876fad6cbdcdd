"""tian15 workload emulators, part 1: matrixmul, spmv, bfs, nn, kmeans, bitonic, srad.

Every expected count is derived independently of the emulator: from the
OpenCL index formulas re-evaluated per thread, from closed forms worked out
by hand (derivations in the comments), or from the generated input data.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from golden.trace.analysis import thread_access_counts, touched_lines
from golden.trace.builder import KernelBuilder
from golden.trace.coalesce import coalesce
from golden.trace.model import Op, Space, lane_addresses
from golden.workloads import (
    registry,
    tian15_bfs,
    tian15_bitonic,
    tian15_kmeans,
    tian15_matrixmul,
    tian15_nn,
    tian15_spmv,
    tian15_srad,
)
from golden.workloads._common import DeviceMemory

LINE = 128


def _lines_per_row(kernel, pc: int) -> np.ndarray:
    """Distinct 128-byte lines of every global row with PC ``pc``, in row order."""
    rows = np.flatnonzero(kernel.memory_mask() & (kernel.insts["pc"] == pc))
    row, _, _ = coalesce(kernel, LINE, rows=rows)
    return np.bincount(np.searchsorted(rows, row), minlength=rows.size)


def _array_lines(base: int, nbytes: int) -> np.ndarray:
    return np.arange(base // LINE, (base + nbytes - 1) // LINE + 1)


def _same_bytes(a, b) -> bool:
    return all(
        x.name == y.name and x.insts.tobytes() == y.insts.tobytes()
        and x.lane_addrs.tobytes() == y.lane_addrs.tobytes()
        and x.tail.tobytes() == y.tail.tobytes()
        for x, y in zip(a.kernels, b.kernels, strict=True)
    )


def test_registered_with_paper_figures():
    for name, mi in (("matrixmul", 395.6), ("spmv", 215.8), ("bfs", 202.7), ("nn", 130.4),
                     ("kmeans", 121.8), ("bitonic", 114.3), ("srad", 102.2)):
        spec = registry.get(f"tian15/{name}")
        assert spec.paper["mi"] == mi  # tian15 Table 2
        assert spec.suite == "tian15" and spec.source


# -- matrixmul ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mm64():
    return tian15_matrixmul.build(scale=64 / 512)


def test_matrixmul_launch(mm64):
    (k,) = mm64.kernels
    assert mm64.params["n"] == 64
    # global size (64/4, 64/4) in (8, 8) work-groups; blockA holds (4*8)^2 floats.
    assert (k.grid, k.block, k.shared_bytes) == ((2, 2, 1), (8, 8, 1), 4096)


def test_matrixmul_access_counts(mm64):
    (k,) = mm64.kernels
    # widthA/4/blockSize = 2 blocks of A; each: 4 A loads + 8 inner steps x 4 B loads; 4 C stores.
    assert set(thread_access_counts(k).tolist()) == {2 * (4 + 8 * 4) + 4}
    # Local memory: 4 blockA stores + 8 x 4 blockA loads per block.
    assert set(thread_access_counts(k, Space.SHARED).tolist()) == {2 * (4 + 8 * 4)}
    assert int((k.insts["op"] == Op.BARRIER).sum()) == 8 * 2 * 2  # 8 warps, 2 barriers per block


def test_matrixmul_instruction_count(mm64):
    # Per warp, by hand from the source (compute-count rule):
    #   prologue 29: blockPos 3, globalPos 7, temp 1, and the loop invariants 18
    #   per block of A: 2 (loop) + 3 (globalPosA) + 3 (A indices) + 8 rows + 1 barrier
    #     + inner loop: 8 x (2 loop + 5 blockA + 11 B indices + 8 rows) + 3 (globalPosB)
    #     + 8 x 64 (16 sum statements of 4 FMAs) + 1 barrier                  = 741
    #   epilogue: 5 (C indices) + 4 stores
    per_warp = 29 + 2 * 741 + 9
    assert mm64.n_instructions == 8 * per_warp


def test_matrixmul_addresses_follow_the_opencl_formulas(mm64):
    (k,) = mm64.kernels
    a, b, c = (mm64.params["arrays"][x][0] for x in ("matrixA", "matrixB", "matrixC"))
    n, ls, gsx = 64, 8, 16
    bx, by, lx, ly = 1, 0, 3, 5  # one work-item, checked against mmmKernel_local's index math
    gx, gy = bx * ls + lx, by * ls + ly
    expect = []
    for i in range(n // 4 // ls):
        pos_a = i * ls + lx + (gy << 2) * (n // 4)
        expect += [a + 16 * (pos_a + q * (n // 4)) for q in range(4)]
        pos_b = gx + ((i * ls) << 2) * gsx
        for j in range(0, ls * 4, 4):
            expect += [b + 16 * (pos_b + (j + q) * gsx) for q in range(4)]
    expect += [c + 16 * (gx + (gy << 2) * gsx + q * gsx) for q in range(4)]
    tid = lx + ly * ls
    cta, warp, lane = bx + by * 2, tid // 32, tid % 32
    rows = np.flatnonzero((k.insts["cta"] == cta) & (k.insts["warp"] == warp) & k.memory_mask())
    assert lane_addresses(k, rows)[:, lane].tolist() == expect


def test_matrixmul_footprint_and_coalescing(mm64):
    (k,) = mm64.kernels
    arrays = mm64.params["arrays"]
    expect = np.concatenate([_array_lines(*arrays[x]) for x in ("matrixA", "matrixB", "matrixC")])
    assert touched_lines(k, LINE).tolist() == sorted(expect.tolist())
    a, b, c = (mm64.params["arrays"][x][0] for x in ("matrixA", "matrixB", "matrixC"))
    glob = np.flatnonzero(k.memory_mask())
    row, line, _ = coalesce(k, LINE, rows=glob)
    lines = np.bincount(np.searchsorted(glob, row), minlength=glob.size)
    base = k.insts["base"][glob]
    # A row of B is read by 8 consecutive work-items (8 float4 = 128 B, the same for the 4
    # work-item rows of a warp): one line. A and C: 4 rows of 128 B each, 4 lines.
    assert set(lines[(base >= b) & (base < c)].tolist()) == {1}
    assert set(lines[(base < b) | (base >= c)].tolist()) == {4}


def test_matrixmul_deterministic():
    assert _same_bytes(tian15_matrixmul.build(0.0625), tian15_matrixmul.build(0.0625))


# -- spmv -----------------------------------------------------------------------------------


def test_random_csr_rows():
    ap, aj = tian15_spmv.random_csr(64, 500_000, 0.01, seed=3)
    counts = np.diff(ap)
    assert ap[0] == 0 and ap[-1] == aj.size
    # mean 32 non-zeros per row, sigma 0.32: every row rounds to 31..33.
    assert counts.min() >= 31 and counts.max() <= 33
    for r in range(64):
        row = aj[ap[r]:ap[r + 1]]
        assert np.all(np.diff(row) > 0) and row.min() >= 0 and row.max() < 64
    again = tian15_spmv.random_csr(64, 500_000, 0.01, seed=3)
    other = tian15_spmv.random_csr(64, 500_000, 0.01, seed=4)
    assert np.array_equal(again[1], aj) and not np.array_equal(other[1], aj)


def test_random_csr_bounds():
    # sigma = 10 * mean: clipped to [0, 2 * mean] (rand_csr's high_bound).
    ap, _ = tian15_spmv.random_csr(200, 50_000, 10.0, seed=0)
    assert np.diff(ap).min() == 0 and np.diff(ap).max() == 20
    with pytest.raises(ValueError, match="n: must be a positive integer, not 0"):
        tian15_spmv.random_csr(0, 500_000, 0.01, 0)
    with pytest.raises(ValueError, match="density_ppm"):
        tian15_spmv.random_csr(8, 0, 0.01, 0)


@pytest.mark.parametrize(("rows", "wg"),
                         [(256, 256), (64, 64), (512, 256), (300, 150), (1000, 250)])
def test_spmv_work_group_size(rows, wg):
    assert tian15_spmv._work_group_size(rows) == wg  # OpenDwarfs default_wg_sizes, max 256


@pytest.fixture(scope="module")
def spmv_full():
    return tian15_spmv.build(1.0, seed=0)


def test_spmv_access_counts(spmv_full):
    (k,) = spmv_full.kernels
    ap, _ = tian15_spmv.random_csr(256, tian15_spmv.DENSITY_PPM, tian15_spmv.NORMAL_STDDEV, 0)
    assert (k.grid, k.block) == ((1, 1, 1), (256, 1, 1))
    # y[row], Ap[row], Ap[row+1], 3 per non-zero (Ax, Aj, x), y[row] store.
    assert thread_access_counts(k).tolist() == (4 + 3 * np.diff(ap)).tolist()
    # Per warp: compute 4 + 1 + 3 per trip (loop 2, FMA 1), rows 4 + 3 per trip
    # (trips = the longest row of the warp).
    trips = np.diff(ap).reshape(8, 32).max(axis=1)
    assert spmv_full.n_instructions == int((9 + 6 * trips).sum())


def test_spmv_coalescing_and_footprint(spmv_full):
    (k,) = spmv_full.kernels
    arrays = spmv_full.params["arrays"]
    # A warp's rows start ld_y, ld_Ap_start, ld_Ap_end, ld_Ax, ...
    y_pc, ax_pc = k.insts["pc"][0], k.insts["pc"][3]
    assert set(_lines_per_row(k, y_pc).tolist()) == {1}  # consecutive rows: one line per warp
    # Ax[jj] walks each row: lanes are ~128 floats (512 B) apart, so no two share a line.
    rows = np.flatnonzero(k.insts["pc"] == ax_pc)
    pop = np.array([bin(int(m)).count("1") for m in k.insts["mask"][rows]])
    assert _lines_per_row(k, ax_pc).tolist() == pop.tolist()
    expect = np.concatenate([_array_lines(*arrays[x]) for x in ("Ap", "Aj", "Ax", "x", "y")])
    assert touched_lines(k, LINE).tolist() == sorted(set(expect.tolist()))


def test_spmv_deterministic():
    assert _same_bytes(tian15_spmv.build(0.25, seed=1), tian15_spmv.build(0.25, seed=1))
    assert not _same_bytes(tian15_spmv.build(0.25, seed=1), tian15_spmv.build(0.25, seed=2))


# -- bfs ------------------------------------------------------------------------------------


def test_bfs_adjacency_order():
    # graphgen: edge (i -> dest) is appended to i's list, then (dest -> i) to dest's.
    start, edges = tian15_bfs._adjacency(4, np.array([0, 0, 1, 3], np.int32),
                                         np.array([1, 2, 2, 3], np.int32))
    assert start.tolist() == [0, 2, 4, 6, 8]
    assert edges.tolist() == [1, 2, 0, 2, 0, 1, 3, 3]  # a loop on 3 appears twice


def test_bfs_graph_semantics():
    start, edges = tian15_bfs.rodinia_graph(2000, seed=5)
    deg = np.diff(start)
    assert deg.min() >= 2 and start[-1] == edges.size and edges.size % 2 == 0
    assert 5.8 < deg.mean() < 6.2  # 2 * E[2 + rand() % 3] = 6
    src = np.repeat(np.arange(2000), deg)
    fwd = np.sort(src.astype(np.int64) * 2000 + edges)
    back = np.sort(edges.astype(np.int64) * 2000 + src)
    assert np.array_equal(fwd, back)  # every edge is stored in both directions
    with pytest.raises(ValueError, match="at least 20 nodes"):
        tian15_bfs.rodinia_graph(19, 0)


def test_bfs_levels_match_a_plain_bfs():
    start, edges = tian15_bfs.rodinia_graph(3000, seed=1)
    level = [-1] * 3000
    level[0] = 0
    queue = deque([0])
    while queue:
        v = queue.popleft()
        for u in edges[start[v]:start[v + 1]]:
            if level[u] < 0:
                level[u] = level[v] + 1
                queue.append(int(u))
    assert tian15_bfs.bfs_levels(start, edges, 0).tolist() == level


@pytest.fixture(scope="module")
def bfs_small():
    return tian15_bfs.build(1000 / 1_000_000, seed=2)


def test_bfs_launches(bfs_small):
    start, edges = tian15_bfs.rodinia_graph(1000, 2)
    level = tian15_bfs.bfs_levels(start, edges, 0)
    names = [k.name for k in bfs_small.kernels]
    assert names == ["BFS_1", "BFS_2"] * (int(level.max()) + 1)
    assert all(k.grid == (4, 1, 1) and k.block == (256, 1, 1) for k in bfs_small.kernels)


def test_bfs_access_counts(bfs_small):
    n = 1000
    start, edges = tian15_bfs.rodinia_graph(n, 2)
    level = tian15_bfs.bfs_levels(start, edges, 0)
    deg = np.diff(start)
    live = np.arange(1024) < n
    lv_of = np.r_[level, np.full(24, -2)]
    for lv in range(int(level.max()) + 1):
        k1, k2 = bfs_small.kernels[2 * lv], bfs_small.kernels[2 * lv + 1]
        # BFS_1: mask[tid]; frontier: mask store, starting, 2 loads per loop test (deg + 1
        # tests), edges[i] and visited[id] per edge, and cost[tid], cost[id], updating[id]
        # per edge to a node not visited before this level.
        fresh = np.zeros(1024, np.int64)
        for v in np.flatnonzero(level == lv):
            nbr = edges[start[v]:start[v + 1]]
            fresh[v] = int(((level[nbr] > lv) | (level[nbr] < 0)).sum())
        front = lv_of == lv
        expect1 = live + front * (2 + 2 * (np.r_[deg, np.zeros(24, int)] + 1)
                                  + 2 * np.r_[deg, np.zeros(24, int)] + 3 * fresh)
        assert thread_access_counts(k1).tolist() == expect1.tolist()
        # BFS_2: updating[tid]; new nodes store mask, visited, *g_over and updating.
        expect2 = live + 4 * (lv_of == lv + 1)
        assert thread_access_counts(k2).tolist() == expect2.tolist()


def test_bfs_2_instruction_count(bfs_small):
    start, edges = tian15_bfs.rodinia_graph(1000, 2)
    level = np.r_[tian15_bfs.bfs_levels(start, edges, 0), np.full(24, -2)]
    for lv, k2 in enumerate(bfs_small.kernels[1::2]):
        # Every warp: 4 (get_global_id, <, &&-branch); live warps: load + 2 (test, branch);
        # warps with a new node: 4 stores.
        hit = (level == lv + 1).reshape(32, 32).any(axis=1)
        live = np.r_[[True] * 31, [(1000 - 31 * 32) > 0]]
        assert k2.n_instructions == int((4 + 3 * live + 4 * hit).sum())


def test_bfs_coalescing(bfs_small):
    start, edges = tian15_bfs.rodinia_graph(1000, 2)
    k1 = bfs_small.kernels[2]
    mask_pc = k1.insts["pc"][0]  # g_graph_mask[tid]: 32 consecutive ints, one line
    assert set(_lines_per_row(k1, mask_pc).tolist()) == {1}
    # visited[id] of the gathered neighbours: as many lines as distinct id // 32.
    visited = bfs_small.params["arrays"]["g_graph_visited"][0]
    rows = np.flatnonzero(k1.memory_mask())
    addr = lane_addresses(k1, rows)
    is_vis = (addr >= visited) & (addr < visited + 4000)
    sel = is_vis.any(axis=1)
    got = _lines_per_row(k1, int(k1.insts["pc"][rows[sel][0]]))
    want = [len({int(a) // LINE for a, on in zip(r, m, strict=True) if on})
            for r, m in zip(addr[sel], is_vis[sel], strict=True)]
    assert got.tolist() == want


def test_bfs_deterministic():
    assert _same_bytes(tian15_bfs.build(0.0005, seed=3), tian15_bfs.build(0.0005, seed=3))
    assert not _same_bytes(tian15_bfs.build(0.0005, seed=3), tian15_bfs.build(0.0005, seed=4))


def test_sequence_of_listed_threads_matches_whole_grid_sequence():
    rng = np.random.default_rng(0)
    grid, block = (3,), (96,)
    addrs = rng.integers(0, 1 << 20, size=(4, 288)) * 4
    addrs[1] = 4096 + 8 * np.arange(288)  # an affine row
    active = rng.random((4, 288)) < 0.5
    ref = KernelBuilder("k", grid, block)
    ref.compute(3)
    ref.sequence(Op.LOAD, [8, 16, 24, 32], addrs, active=active, gaps=[1, 0, 2, 0])
    sub = KernelBuilder("k", grid, block)
    sub.compute(3)
    keep = np.flatnonzero(active.any(axis=0))  # threads never active may be left out
    sub.sequence(Op.LOAD, [8, 16, 24, 32], addrs[:, keep], active=active[:, keep],
                 gaps=[1, 0, 2, 0], threads=keep)
    a, b = ref.build(), sub.build()
    assert a.insts.tobytes() == b.insts.tobytes()
    assert np.array_equal(lane_addresses(a), lane_addresses(b))
    assert np.array_equal(a.tail, b.tail)


def test_sequence_charges_compute_to_executing_warps():
    kb = KernelBuilder("k", (1,), (64,))
    kb.compute(5)  # pending in both warps
    threads = np.array([0, 40])  # lane 0 of warp 0, lane 8 of warp 1
    active = np.array([[True, False], [True, True]])
    kb.sequence(Op.LOAD, [8, 16], np.array([[0, 0], [4, 4]]), active=active, gaps=[1, 2],
                after=[3, 4], threads=threads)
    k = kb.build()
    # warp 0: row 0 gap 5 + 1, row 1 gap 3 + 2, tail 4; warp 1: row 1 gap 5 + 2, tail 4.
    assert k.insts["gap"].tolist() == [6, 5, 7]
    assert k.insts["mask"].tolist() == [1, 1, 1 << 8]
    assert k.tail.tolist() == [4, 4]
    # The same with whole-grid addresses.
    grid = KernelBuilder("k", (1,), (64,))
    grid.compute(5)
    full = np.zeros((2, 64), bool)
    full[:, threads] = active
    grid.sequence(Op.LOAD, [8, 16], np.zeros((2, 64)) + [[0], [4]], active=full, gaps=[1, 2],
                  after=[3, 4])
    assert grid.build().insts.tobytes() == k.insts.tobytes()


def test_sequence_with_no_executing_warp_charges_no_compute():
    kb = KernelBuilder("k", (1,), (64,))
    kb.compute(2)
    kb.sequence(Op.LOAD, [8, 16], np.zeros((2, 64)), active=np.zeros((2, 64), bool), gaps=4,
                after=1)
    kb.sequence(Op.LOAD, 8, np.zeros((1, 0)), gaps=4, threads=[])
    k = kb.build()
    assert len(k.insts) == 0 and k.tail.tolist() == [2, 2]


def test_sequence_rejects_unordered_threads():
    kb = KernelBuilder("k", (1,), (64,))
    for bad in ([3, 1], [0, 0], [64], [-1]):
        with pytest.raises(ValueError, match="threads: must be ascending thread indices"):
            kb.sequence(Op.LOAD, 8, np.zeros((1, len(bad))), threads=bad)


def test_builder_thread_indices_are_lazy_read_only_and_exact():
    kb = KernelBuilder("k", (3, 2, 2), (8, 4, 2))
    assert "tx" not in kb.__dict__  # nothing built up front
    tpc, n = 64, 12 * 64
    g = np.arange(n)
    cta, tid = g // tpc, g % tpc
    want = {"tid": tid, "gtid": g, "tx": tid % 8, "ty": tid // 8 % 4, "tz": tid // 32,
            "bx": cta % 3, "by": cta // 3 % 2, "bz": cta // 6}
    for name, values in want.items():
        got = getattr(kb, name)
        assert got.dtype == np.int64 and np.array_equal(got, values), name
        assert getattr(kb, name) is got  # built once
        with pytest.raises(ValueError):
            got[0] = 1


# -- nn -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nn_small():
    return tian15_nn.build(1000 / 342_080)


def test_nn_counts(nn_small):
    (k,) = nn_small.kernels
    assert nn_small.params["records"] == 1000
    assert (k.grid, k.block) == ((16, 1, 1), (64, 1, 1))  # 1000 rounded up to 1024
    # lat, lng (each read twice in the statement, loaded once) and the distance store.
    assert thread_access_counts(k).tolist() == [3] * 1000 + [0] * 24
    # Every warp: 4 (get_global_id, guard) + 2 loads + 5 (2 differences, product, FMA,
    # sqrt) + store.
    assert nn_small.n_instructions == 32 * 12


def test_nn_coalescing_and_footprint(nn_small):
    (k,) = nn_small.kernels
    arrays = nn_small.params["arrays"]
    lines = _lines_per_row(k, int(k.insts["pc"][0]))
    assert set(lines[:-1].tolist()) == {2}  # 32 LatLong of 8 bytes: 256 bytes
    assert set(_lines_per_row(k, int(k.insts["pc"][2])).tolist()) == {1}  # 32 floats
    expect = np.concatenate([_array_lines(*arrays[x]) for x in ("d_locations", "d_distances")])
    assert touched_lines(k, LINE).tolist() == sorted(expect.tolist())


# -- kmeans ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def km_small():
    return tian15_kmeans.build(512 / 16384)


def test_kmeans_launches_and_counts(km_small):
    names = [k.name for k in km_small.kernels]
    assert names == ["kmeans_swap"] + ["kmeans_kernel_c"] * tian15_kmeans.ITERATIONS
    swap, point = km_small.kernels[:2]
    assert swap.grid == point.grid == (2, 1, 1)
    assert set(thread_access_counts(swap).tolist()) == {2 * 34}  # load + store per feature
    assert set(thread_access_counts(point).tolist()) == {5 * 34 * 2 + 1}
    # Per warp, by hand: swap 3 + 34 x (2 loop + 1 + 2 indices) + 68 rows = 241;
    # kernel_c 4 + 5 x (2 loop + 1 + 34 x (2 loop + 2 + 1 indices + 2 term) + 2) + 341 = 1560.
    assert swap.n_instructions == 16 * 241
    assert point.n_instructions == 16 * 1560


def test_kmeans_coalescing(km_small):
    swap, point = km_small.kernels[:2]
    a = km_small.params["arrays"]
    base = point.insts["base"]
    rows = np.flatnonzero(point.memory_mask())
    row, _, _ = coalesce(point, LINE, rows=rows)
    lines = np.bincount(np.searchsorted(rows, row), minlength=rows.size)
    in_swap = (base[rows] >= a["d_feature_swap"][0]) & (base[rows] < a["d_cluster"][0])
    assert set(lines[in_swap].tolist()) == {1}  # feature_swap[l][pid]: consecutive points
    in_cluster = (base[rows] >= a["d_cluster"][0]) & (base[rows] < a["d_membership"][0])
    assert set(lines[in_cluster].tolist()) == {1}  # clusters[i][l]: one address for all
    # kmeans_swap reads feature[tid][i]: 34 floats (136 B) apart, one line per lane.
    assert set(_lines_per_row(swap, int(swap.insts["pc"][0])).tolist()) == {32}


def test_kmeans_rejects_bad_sizes():
    with pytest.raises(ValueError, match="npoints: must be a positive multiple of 256, not 300"):
        tian15_kmeans.kmeans_kernels(300, 34, 5, 1, DeviceMemory())
    with pytest.raises(ValueError, match="nclusters: must be a positive integer, not 0"):
        tian15_kmeans.kmeans_kernels(256, 34, 0, 1, DeviceMemory())


# -- bitonic --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bitonic_small():
    return tian15_bitonic.build(1024 / 131_072)


def test_bitonic_launches(bitonic_small):
    assert bitonic_small.params["length"] == 1024
    assert len(bitonic_small.kernels) == 10 * 11 // 2  # one per (stage, pass)
    for k in bitonic_small.kernels:
        assert (k.grid, k.block) == ((2, 1, 1), (256, 1, 1))
        assert set(thread_access_counts(k).tolist()) == {4}


def test_bitonic_trace_is_a_sorting_network(bitonic_small):
    # Replay the trace as compare-exchanges: each work-item loads (left, right) and stores
    # them through the increasing (3rd and 4th PC of the kernel) or the decreasing path.
    inc_pc = [0x100 + 8 * 2, 0x100 + 8 * 3]  # PCs() numbering: ld_left, ld_right, st_left_inc, ...
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 1 << 30, size=1024)
    base = bitonic_small.params["arrays"]["theArray"][0]
    for k in bitonic_small.kernels:
        addr = lane_addresses(k)
        ops, pcs = k.insts["op"], k.insts["pc"]
        loads = addr[ops == Op.LOAD].reshape(-1, 2, 32)  # per warp: left row, right row
        left = (loads[:, 0].ravel() - base) // 4
        right = (loads[:, 1].ravel() - base) // 4
        inc = np.zeros(left.size, bool)
        store_rows = np.flatnonzero((ops == Op.STORE) & np.isin(pcs, inc_pc))
        for r in store_rows:
            w = int(k.insts["cta"][r]) * k.warps_per_cta + int(k.insts["warp"][r])
            m = int(k.insts["mask"][r])
            inc[w * 32:(w + 1) * 32] |= [(m >> b) & 1 == 1 for b in range(32)]
        lo, hi = np.minimum(keys[left], keys[right]), np.maximum(keys[left], keys[right])
        keys[left] = np.where(inc, lo, hi)
        keys[right] = np.where(inc, hi, lo)
    assert np.all(np.diff(keys) <= 0)  # direction 0: the SDK's default descending order


def test_bitonic_coalescing(bitonic_small):
    k = bitonic_small.kernels[-1]  # stage 9, pass 9: pairDistance 1, left = 2t
    assert set(_lines_per_row(k, int(k.insts["pc"][0])).tolist()) == {2}
    k = bitonic_small.kernels[45]  # stage 9, pass 0: pairDistance 512, left = t
    assert set(_lines_per_row(k, int(k.insts["pc"][0])).tolist()) == {1}


# -- srad -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def srad_small():
    return tian15_srad.build(32 / 512)


def test_srad_launches(srad_small):
    names = [k.name for k in srad_small.kernels]
    # 32 x 32 = 1024 pixels: reduce over 4 work-groups, then over their 4 sums.
    step = ["prepare_kernel", "reduce_kernel", "reduce_kernel", "srad_kernel", "srad2_kernel"]
    assert names == ["extract_kernel"] + step * tian15_srad.ITERATIONS + ["compress_kernel"]
    assert [k.grid[0] for k in srad_small.kernels[1:6]] == [4, 4, 1, 4, 4]


def test_srad_access_counts(srad_small):
    ks = srad_small.kernels
    assert set(thread_access_counts(ks[0]).tolist()) == {2}  # extract: load, store
    assert set(thread_access_counts(ks[1]).tolist()) == {4}  # prepare: I reloaded after a store
    # srad: Jc, 4 neighbour indices, 4 neighbours; 5 stores.
    assert set(thread_access_counts(ks[4]).tolist()) == {9 + 5}
    assert set(thread_access_counts(ks[5]).tolist()) == {11}  # srad2: d_c[ei] loaded once
    tx = np.tile(np.arange(256), 4)
    # Reduce over full groups: 2 loads; the last thread stores the 2 group sums.
    assert thread_access_counts(ks[2]).tolist() == (2 + 2 * (tx == 255)).tolist()
    levels = sum(((tx + 1) % i == 0).astype(int) for i in (2, 4, 8, 16, 32, 64, 128, 256))
    shared = 2 + 6 * levels + 2 * (tx == 255)
    assert thread_access_counts(ks[2], Space.SHARED).tolist() == shared.tolist()
    assert int((ks[2].insts["op"] == Op.BARRIER).sum()) == 4 * 8 * 8
    # Second reduce: one group, 4 sums (nf = df = 4): two levels, two barriers.
    tx = np.arange(256)
    assert thread_access_counts(ks[3]).tolist() == (2 * (tx < 4) + 2 * (tx == 3)).tolist()
    shared = 2 * (tx < 4) + 6 * ((tx % 2 == 1) & (tx < 4)) + 6 * (tx == 3) + 2 * (tx == 3)
    assert thread_access_counts(ks[3], Space.SHARED).tolist() == shared.tolist()
    assert int((ks[3].insts["op"] == Op.BARRIER).sum()) == 8 * 2


def test_srad_neighbour_addresses(srad_small):
    k = srad_small.kernels[4]
    img = srad_small.params["arrays"]["d_I"][0]
    rows = np.flatnonzero((k.insts["cta"] == 0) & (k.insts["warp"] == 1) & k.memory_mask())
    addr = lane_addresses(k, rows)
    pixels = (addr[:, 1] - img) // 4  # lane 1 of warp 1: ei = 33, row 1, column 1
    # Loads in order: Jc, iN[row], I[N], iS[row], I[S], jW[col], I[W], jE[col], I[E].
    assert pixels[[0, 2, 4, 6, 8]].tolist() == [33, 32, 34, 1, 65]


def test_srad_coalescing(srad_small):
    k = srad_small.kernels[4]
    assert set(_lines_per_row(k, int(k.insts["pc"][0])).tolist()) == {1}  # I[ei]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["matrixmul", "spmv", "bfs", "nn", "kmeans", "bitonic", "srad"])
def test_full_size_builds(name):
    wl = registry.get(f"tian15/{name}").build(1.0, 0)
    glob = sum(int(k.memory_mask().sum()) for k in wl.kernels)
    assert 0 < glob < wl.n_instructions
