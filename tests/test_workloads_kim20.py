"""kim20 suite: registration, closed-form counts, coalescing, resources, determinism, runs.

Counts are worked by hand from the CUDA sources each module cites (their
docstrings give the loops); see docs/workloads/kim20.md.
"""

from __future__ import annotations

import numpy as np
import pytest

from cli.main import main
from golden.trace.coalesce import coalesce
from golden.trace.model import Op, Space
from golden.workloads import registry
from golden.workloads._common import DeviceMemory, PCs
from golden.workloads._kim20 import FIG1, with_resources
from golden.workloads.kim20_cf import cifarnet_kernels
from golden.workloads.kim20_ms import _sort_shared, merge_sort_kernels
from golden.workloads.kim20_pf import dynproc_launches
from golden.workloads.kim20_shfl import integral_image_launches, scan_launches
from golden.workloads.kim20_spmv import random_rows
from golden.workloads.kim20_sqn import squeezenet_kernels
from golden.workloads.stats import format_fig1_table, workload_stats

NAMES = ("adi", "bt", "cf", "jcb1d", "lud", "ms", "nw", "pf", "shfl", "spmv", "sqn", "stc")


@pytest.fixture(autouse=True)
def trace_cache(tmp_path_factory, monkeypatch):
    """Built workloads go to a temporary trace cache, not the user's."""
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path_factory.getbasetemp() / "kim20-cache"))


def _global(kernel, pc: int | None = None) -> np.ndarray:
    sel = kernel.memory_mask(Space.GLOBAL)
    if pc is not None:
        sel &= kernel.insts["pc"] == pc
    return np.flatnonzero(sel)


def _lanes(kernel, rows) -> int:
    """Thread-level accesses of the rows (active lanes)."""
    return int(sum(bin(int(m)).count("1") for m in kernel.insts["mask"][rows]))


# -- registry ---------------------------------------------------------------------


def test_registered_with_fig1_figures():
    assert registry.names("kim20") == [f"kim20/{n}" for n in NAMES]
    fig1 = {"cf": 4.6, "pf": 99.0, "ms": 95.0, "stc": 73.0, "lud": 72.0, "shfl": 68.0}
    occupancy = {"spmv": 89.0, "bt": 84.0, "stc": 93.0, "lud": 18.0}
    for name in ("adi", "nw", "jcb1d", "shfl", "sqn"):
        occupancy[name] = "<46"
    assert {k: v["l1_miss"] for k, v in FIG1.items() if "l1_miss" in v} == fig1
    assert {k: v["occupancy"] for k, v in FIG1.items() if "occupancy" in v} == occupancy
    for name in NAMES:
        spec = registry.get(f"kim20/{name}")
        assert spec.source and spec.description
        assert {k: spec.paper[k] for k in FIG1[name]} == FIG1[name]
        assert spec.paper["figure"] == "kim20 Fig. 1"


def test_with_resources_requires_every_kernel():
    k = cifarnet_kernels((1, 1, 1))[0]
    with pytest.raises(KeyError, match="no register count for kernel 'ExecuteFirstLayer'"):
        with_resources([k], {"other": 3})


# -- shared memory and registers from the sources -----------------------------------


@pytest.mark.parametrize("name, shared", [
    ("nw", {"needle_cuda_shared_1": 2180, "needle_cuda_shared_2": 2180}),  # 17*17*4 + 16*16*4
    ("lud", {"lud_diagonal": 1024, "lud_perimeter": 3072, "lud_internal": 2048}),
    ("pf", {"dynproc_kernel": 2048}),  # prev[256], result[256]
    ("shfl", {"shfl_scan_test": 32, "uniform_add": 4, "shfl_intimage_rows": 512,
              "shfl_vertical_shfl": 1152}),
    ("jcb1d", {"runJacobiCUDA_kernel1": 0, "runJacobiCUDA_kernel2": 0}),
    ("cf", {"ExecuteFirstLayer": 0, "pooling1": 0}),
    ("bt", {"findK": 0, "findRangeK": 0}),  # no __shared__ arrays
])
def test_shared_bytes_and_registers(name, shared):
    wl = registry.build(f"kim20/{name}", 0.05, 0)
    seen = {}
    for k in wl.kernels:
        assert k.regs_per_thread > 0, k.name
        seen.setdefault(k.name, k.shared_bytes)
        assert seen[k.name] == k.shared_bytes
    for kname, nbytes in shared.items():
        assert seen[kname] == nbytes


def test_register_estimates():
    regs = {k.name: k.regs_per_thread for k in registry.build("kim20/shfl", 0.05, 0).kernels}
    assert regs == {"shfl_scan_test": 14, "uniform_add": 8, "shfl_intimage_rows": 40,
                    "shfl_vertical_shfl": 18}
    sqn = {k.name: k.regs_per_thread for k in squeezenet_kernels("all", 0.01)}
    assert sqn["global_pooling"] == 20 and sqn["pooling4"] == 24
    assert sqn["Executefire2expand3x3"] == 40 and sqn["ExecuteFirstLayer"] == 40


# -- closed-form counts ---------------------------------------------------------------


def test_jcb1d_counts_and_coalescing():
    wl = registry.build("kim20/jcb1d", 0.125, 0)  # N = 512: 2 CTAs, 16 warps
    assert wl.params["n"] == 512 and len(wl.kernels) == 200  # 100 steps x 2 kernels
    k1, k2 = wl.kernels[:2]
    assert wl.kernels[2] is k1  # later steps repeat the first's launches
    assert len(_global(k1)) == 16 * 4 and len(_global(k2)) == 16 * 2
    # threads 2 .. 510 work (1 < i < N - 1): 509 threads x (3 loads + 1 store), x (1 + 1)
    assert _lanes(k1, _global(k1)) == 509 * 4 and _lanes(k2, _global(k2)) == 509 * 2
    # 128 B lines of A[i-1], A[i], A[i+1], B[i]: warp 0 (i = 2 .. 31) reaches A[32] with
    # A[i+1]; warps 1 .. 14 straddle with A[i-1] and A[i+1]; warp 15 (i = 480 .. 510) only
    # with A[i-1]
    rows = _global(k1)
    row_of, _, _ = coalesce(k1, 128, rows=rows)
    n_lines = np.bincount(np.searchsorted(rows, row_of), minlength=len(rows))
    assert n_lines.tolist() == [1, 1, 2, 1] + [2, 1, 2, 1] * 14 + [2, 1, 1, 1]
    # A[1 .. 511] and B[2 .. 510]: within 2 KB each, 32 + 32 blocks of 64 B
    st = workload_stats(wl, line_size=64)
    assert st["blocks"] == 64 and st["kernels"] == 200


def test_adi_counts():
    wl = registry.build("kim20/adi", 1 / 32, 0)  # N = 32: one warp per launch
    n = wl.params["n"]
    assert n == 32 and len(wl.kernels) == 2 * n + 1
    names = [k.name for k in wl.kernels]
    assert names[:3] == ["adi_kernel1", "adi_kernel2", "adi_kernel3"]
    assert names.count("adi_kernel4") == n - 1 and names.count("adi_kernel6") == n - 2
    per = {name: len(_global(k)) for name, k in zip(names, wl.kernels, strict=True)}
    # kernel1: 31 trips x 9 accesses, B[i1][i2-1] forwarded in trips 1..30
    assert per["adi_kernel1"] == 31 * 9 - 30
    # kernel3: 30 trips x 5, X[i1][N-2-i2] forwarded in trips 1..29
    assert per["adi_kernel3"] == 30 * 5 - 29
    assert per["adi_kernel2"] == 3 and per["adi_kernel5"] == 3
    assert per["adi_kernel4"] == 9 and per["adi_kernel6"] == 5
    # row sweeps: lanes are rows 128 B apart, 32 lines per instruction; columns: one line
    k1, k4 = wl.kernels[0], wl.kernels[3]
    assert len(coalesce(k1, 128, rows=_global(k1)[:1])[1]) == 32
    assert len(coalesce(k4, 128, rows=_global(k4)[:1])[1]) == 1
    # launch i1 of kernel4 is the first moved by (i1 - 1) rows
    base = {k: wl.kernels[k].insts["base"].astype(np.int64) for k in (3, 4, 5)}
    assert np.all(base[4] - base[3] == 32 * 4) and np.all(base[5] - base[3] == 2 * 32 * 4)


def test_pathfinder_counts():
    pcs = PCs()
    (k,) = dynproc_launches(432, 3, 2, pcs=pcs)  # 2 CTAs of 252 columns, one launch
    wall = _global(k, pcs("dynproc_kernel:ld_wall"))
    # CTA 0: valid tx 2..255, CTA 1: 0..181; iteration i computes tx in [i+1, 254-i]
    assert _lanes(k, wall) == (253 + 252) + (181 + 180)
    out = _global(k, pcs("dynproc_kernel:st_results"))
    _, lines, _ = coalesce(k, 4, rows=out)
    assert sorted(lines.tolist()) == sorted(set(lines.tolist()))
    assert _lanes(k, out) == 432  # every column written exactly once
    src = _global(k, pcs("dynproc_kernel:ld_src"))
    assert _lanes(k, src) == 254 + 182  # xidx in [0, 431], halo columns twice


def test_pathfinder_replication_matches_whole_grid():
    from golden.trace.model import lane_addresses

    a = dynproc_launches(1000, 30, 20)
    b = dynproc_launches(1000, 30, 20, replicate=False)
    assert [k.grid for k in a] == [(5, 1, 1), (5, 1, 1)]
    for x, y in zip(a, b, strict=True):
        for f in ("cta", "warp", "pc", "op", "mask", "gap"):
            assert np.array_equal(x.insts[f], y.insts[f])
        assert np.array_equal(lane_addresses(x), lane_addresses(y))


def test_shfl_scan_counts():
    pcs = PCs()
    k1, k2, k3 = scan_launches(1024, mem=DeviceMemory(), pcs=pcs)
    assert (k1.grid[0], k2.grid[0], k2.block[0], k3.grid[0]) == (4, 1, 4, 3)
    assert len(_global(k1)) == 4 * 8 * 2 + 4  # ld/st data per warp, st_partial per CTA
    assert len(_global(k2)) == 2  # 4 partial sums, NULL partial pointer
    assert len(_global(k3)) == 3 * (1 + 8 + 8)
    shared = k1.memory_mask(Space.SHARED)
    lane31 = np.flatnonzero(shared & (k1.insts["pc"] == pcs("shfl_scan_test:st_sums_warp")))
    assert len(lane31) == 32 and set(k1.insts["mask"][lane31].tolist()) == {1 << 31}


def test_shfl_integral_image_counts_and_swizzle():
    pcs = PCs()
    rows_k, vert = integral_image_launches(16, mem=DeviceMemory(), pcs=pcs)
    assert len(_global(rows_k)) == 16 * 4 * 5  # 4 warps: one uint4 load, four uint4 stores
    assert len(_global(vert)) == 60 * 8 * 2 * 2  # 2 steps of 8 rows: load and store
    st_a = _global(rows_k, pcs("shfl_intimage_rows:st_a"))
    assert set(rows_k.insts["width"][st_a].tolist()) == {16}
    # lanes 4q .. 4q+3 write 64 contiguous bytes, groups 256 B apart: 8 lines of 128 B
    _, lines, _ = coalesce(rows_k, 128, rows=st_a[:1])
    assert len(lines) == 8


def test_cifarnet_first_layer_counts():
    ks = cifarnet_kernels((1, 1, 1))
    first = ks[0]
    # taps inside the 32x32 image per coordinate: 3, 4, 5 x 28, 4, 3 -> 154 per axis
    rows = _global(first)
    loads = rows[first.insts["op"][rows] == Op.LOAD]
    assert _lanes(first, loads) == 6 * 154 * 154
    assert len(loads) == 30 * 154  # warp y issues the 6 loads of (p, q) with j inside
    assert len(rows) - len(loads) == 32
    assert set(first.insts["width"][rows].tolist()) == {4, 8}  # int image, double weights
    assert [k.grid for k in ks] == [(1, 1, 1)] * 8
    assert [k.block for k in ks] == [(32, 32, 1)] * 6 + [(64, 1, 1), (32, 1, 1)]


def test_squeezenet_pooling_counts():
    (pool,) = squeezenet_kernels("sample", 1 / 96)[:1]  # pooling1 over one map
    assert pool.name == "pooling1" and pool.grid == (111, 1, 1) and pool.block == (111, 1, 1)
    rows = _global(pool)
    loads = rows[pool.insts["op"][rows] == Op.LOAD]
    assert _lanes(pool, loads) == 55 * 55 * 9 and _lanes(pool, rows) == 55 * 55 * 10


def test_spmv_rows_and_kernel_counts():
    ap, aj = random_rows(256, 8, 0.01, 0)
    assert ap[0] == 0 and len(aj) == ap[-1]
    for r in range(256):
        cols = aj[ap[r]:ap[r + 1]]
        assert np.all(np.diff(cols) > 0)  # distinct and sorted
    wl = registry.build("kim20/spmv", 1 / 64, 0)  # n = 1024
    (k,) = wl.kernels
    assert wl.params["n"] == 1024 and k.grid == (4, 1, 1)
    nnz = wl.params["nnz"]
    rows = _global(k)
    loads = rows[k.insts["op"][rows] == Op.LOAD]
    # per row y[row], Ap[row], Ap[row + 1]; per non-zero Ax[jj], Aj[jj], x[Aj[jj]]
    assert _lanes(k, loads) == 3 * 1024 + 3 * nnz
    assert _lanes(k, rows) - _lanes(k, loads) == 1024
    with pytest.raises(ValueError, match="random_rows"):
        random_rows(0, 8, 0.01, 0)


def test_nw_and_lud_launches():
    nw = registry.build("kim20/nw", 64 / 2048, 0)
    assert nw.params["n"] == 64 and len(nw.kernels) == 7  # 4 up, 3 down
    lud = registry.build("kim20/lud", 32 / 256, 0)
    assert lud.params["matrix_dim"] == 32
    assert [k.name for k in lud.kernels] == ["lud_diagonal", "lud_perimeter", "lud_internal",
                                             "lud_diagonal"]


def test_merge_sort_counts_and_data_dependent_addresses():
    keys = np.random.default_rng(1).integers(0, 50, 4096)
    pcs = PCs()
    shared, runs = _sort_shared(keys, 0x1000, 0x2000, 0x3000, 0x4000, pcs)
    assert np.array_equal(runs, np.sort(keys.reshape(-1, 1024), axis=1).reshape(-1))
    # per thread: 4 + 4 global; per step 4 loads, 2 x (log2(stride) + 1) probes, 4 stores
    per_warp = 8 + sum(8 + 2 * (s + 1) for s in range(10)) + 8  # + 8 shared stage/out
    assert len(shared.insts[shared.insts["op"] != 4]) == 4 * 16 * per_warp
    assert len(_global(shared)) == 4 * 16 * 8
    pcs = PCs()
    kernels, out = merge_sort_kernels(keys, pcs=pcs)
    assert np.array_equal(out, np.sort(keys))
    assert [k.name for k in kernels[:5]] == [
        "mergeSortSharedKernel", "generateSampleRanksKernel", "mergeRanksAndIndicesKernel",
        "mergeRanksAndIndicesKernel", "mergeElementaryIntervalsKernel"]
    assert len(kernels) == 1 + 4 * 2  # strides 1024 and 2048
    merge = kernels[4]
    assert merge.grid == (32, 1, 1) and merge.shared_bytes == 2 * 256 * 4 + 6 * 4
    # the merged positions of every CTA are a permutation of 0 .. lenA + lenB - 1
    from golden.trace.model import lane_addresses

    sel = np.isin(merge.insts["pc"], [pcs("mergeElementaryIntervalsKernel:st_m_keyA"),
                                      pcs("mergeElementaryIntervalsKernel:st_m_keyB")])
    rows = np.flatnonzero(sel)
    addr = lane_addresses(merge, rows)
    on = ((merge.insts["mask"][rows][:, None] >> np.arange(32, dtype=np.uint32)) & 1) == 1
    cta = np.broadcast_to(merge.insts["cta"][rows][:, None], on.shape)
    total = 0
    for c in range(merge.n_ctas):
        pos = np.sort(addr[(cta == c) & on] // 4)
        assert np.array_equal(pos, np.arange(len(pos)))
        total += len(pos)
    assert total == 4096  # every key merged once
    with pytest.raises(ValueError, match="power of two"):
        merge_sort_kernels(keys[:3000])


def test_streamcluster_counts_and_branch():
    wl = registry.build("kim20/stc", 1 / 64, 0)  # 1024 points: 2 CTAs of 512
    n = wl.params["num"]
    assert n == 1024 and len(wl.kernels) == 4
    k = wl.kernels[0]
    x, big_k = wl.params["x"][0], wl.params["K"][0]
    assert k.grid == (2, 1, 1) and k.block == (512, 1, 1) and big_k >= 10
    rows = _global(k)
    pc = {int(v) for v in k.insts["pc"][rows]}
    assert len(pc) == 2 + 2 + 4 + 4  # d_dist's two loads, weight, cost, two 4-access paths
    by_pc = {}
    for r in rows:
        by_pc.setdefault(int(k.insts["pc"][r]), []).append(r)
    counts = sorted((len(v), _lanes(k, v)) for v in by_pc.values())
    # d_dist: 256 trips x 32 warps for each of its loads; weight and cost: 32 warps
    assert counts.count((256 * 32, 256 * n)) == 2 and counts.count((32, n)) == 2
    # the two paths split the threads: the four rows of a path have equal lanes
    path = [c for c in counts if c not in ((256 * 32, 256 * n), (32, n))]
    assert len(path) == 8 and sum(c[1] for c in path) == 4 * n
    # the candidate's coordinates are one address per trip: one 4-byte lane group
    coord_x = [v for v in by_pc.values() if len(v) == 256 * 32][1]
    assert set(k.insts["dx"][coord_x].tolist()) == {32}
    assert set(k.insts["sx"][coord_x].tolist()) <= {0}
    switch = [v for v in by_pc.values() if set(k.insts["width"][v].tolist()) == {1}]
    assert len(switch) == 1  # the bool store
    with pytest.raises(ValueError, match="launches"):
        registry.get("kim20/stc").build(1 / 64, 0, launches=0)
    assert 0 <= x < n


# -- determinism ----------------------------------------------------------------------


def test_same_seed_same_bytes():
    a = registry.build("kim20/spmv", 1 / 64, 3, use_cache=False)
    b = registry.build("kim20/spmv", 1 / 64, 3, use_cache=False)
    c = registry.build("kim20/spmv", 1 / 64, 4, use_cache=False)
    assert a.kernels[0].insts.tobytes() == b.kernels[0].insts.tobytes()
    assert a.kernels[0].lane_addrs.tobytes() == b.kernels[0].lane_addrs.tobytes()
    assert a.kernels[0].lane_addrs.tobytes() != c.kernels[0].lane_addrs.tobytes()


# -- every workload through gpucache run ----------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_small_run(name, tmp_path, capsys):
    out = tmp_path / "r.json"
    status = main(["run", "--workload", f"kim20/{name}", "--config", "kim20", "--scale", "0.02",
                   "--json", str(out), "--no-progress"])
    text, err = capsys.readouterr()
    assert status == 0, err
    assert "L1:" in text and out.exists()


def test_fig1_table():
    rows = [{"workload": "kim20/pf", "l1_accesses": 1000, "l1_miss": 0.5},
            {"workload": "kim20/adi", "l1_accesses": 0, "l1_miss": None},
            {"workload": "kim20/lud", "l1_accesses": 10, "l1_miss": 0.25, "timed_l1_miss": 0.7125,
             "occupancy": 0.18},
            {"workload": "kim20/ms", "l1_accesses": 10, "l1_miss": 0.25, "timed_error": "deadlock at 5"}]
    lines = format_fig1_table(rows, "kim20").splitlines()
    assert lines[0].split("  ")[0] == "workload"
    assert "L1 miss % (functional, untimed, kim20)" in lines[0]
    assert "L1 miss % (timing model)" in lines[0] and "warp occupancy % (timing model)" in lines[0]
    assert lines[2].split() == ["kim20/pf", "99", "50.0", "-", "1,000", "-", "-"]
    assert lines[3].split() == ["kim20/adi", "-", "-", "-", "0", "<46", "-"]
    assert lines[4].split() == ["kim20/lud", "72", "25.0", "71.2", "10", "18", "18.0"]
    assert lines[5].split() == ["kim20/ms", "95", "25.0", "deadlock", "10", "-", "deadlock"]


def _fig1_rows(out: str, title: str) -> list[list[str]]:
    lines = out.splitlines()
    return [line.split() for line in lines[lines.index(title) + 3:]]


def test_stats_cli_prints_fig1(capsys):
    status = main(["workloads", "--stats", "--scale", "0.02", "--no-progress", "kim20/jcb1d",
                   "kim20/lud"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert out.splitlines()[0] == "kim20 (scale 0.02, seed 0, 64 B lines)"
    fig = _fig1_rows(out, "kim20 Fig. 1 beside the functional model (config kim20; the paper's "
                          "figures are timed GPGPU-Sim runs)")
    assert [r[0] for r in fig] == ["kim20/jcb1d", "kim20/lud"]
    assert fig[1][1] == "72" and fig[1][5] == "18"  # Fig. 1's LUD beside ours
    assert 0 <= float(fig[0][2]) <= 100
    assert fig[0][3] == fig[0][6] == "-"  # no timing model without --timing cycle


def test_stats_cli_timed_fig1(capsys):
    """``--timing cycle`` fills the timed columns with the baseline timing run's figures."""
    from golden.configs.loader import load_config
    from golden.gpu.run import simulate_timed

    status = main(["workloads", "--stats", "--timing", "cycle", "--scale", "0.02", "--no-progress",
                   "kim20/jcb1d"])
    out, err = capsys.readouterr()
    assert status == 0, err
    fig = _fig1_rows(out, "kim20 Fig. 1 beside the functional model and the timing model (config "
                          "kim20; the paper's figures are timed GPGPU-Sim runs)")
    t = simulate_timed(registry.build("kim20/jcb1d", 0.02), load_config("kim20"))["timing"]
    assert fig[0][0] == "kim20/jcb1d" and fig[0][6] != "-"
    assert float(fig[0][3]) == round(100 * (1 - t["l1"]["hits"] / t["l1"]["accesses"]), 1)
    assert float(fig[0][6]) == round(100 * t["occupancy"], 1)


@pytest.mark.parametrize("argv, field", [
    (["workloads", "--timing", "cycle", "kim20/jcb1d"], "add --stats"),
    (["workloads", "--stats", "--timing", "cycle", "--suite", "tian15"], "select kim20 workloads"),
])
def test_timing_option_errors(argv, field, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--timing cycle" in err and field in err


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_paper_size_builds(name):
    wl = registry.get(f"kim20/{name}").build(1.0, 0)
    glob = sum(int(k.memory_mask().sum()) for k in wl.kernels)
    assert 0 < glob < wl.n_instructions
    assert all(k.regs_per_thread > 0 for k in wl.kernels)
