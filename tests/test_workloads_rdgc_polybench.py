"""Polybench/GPU emulators of the rdgc suite: access counts, footprints, coalescing, determinism.

Expected values are closed forms worked out from the CUDA sources (quoted in
each emulator's docstring) and from rdgc Table 4, evaluated at small sizes.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from golden.trace.analysis import thread_access_counts
from golden.trace.builder import KernelBuilder
from golden.trace.coalesce import coalesce
from golden.trace.model import KernelTrace, Op, lane_addresses
from golden.workloads import registry
from golden.workloads._common import DeviceMemory
from golden.workloads._polybench import (
    Emitter,
    Run,
    check_mode,
    ld,
    matvec_kernel,
    problem_size,
    shifted,
    st,
    update,
)
from golden.workloads.stats import paper_figure

NAMES = ["2dconv", "2mm", "3dconv", "atax", "bicg", "corr", "covar", "fdtd", "gesummv",
         "gramschmidt", "mvt", "syr2k", "syrk"]
# Scales giving N = 64 (2dconv, fdtd), 32 (the others), 16 (3dconv).
SCALE = {"2dconv": 1 / 64, "2mm": 1 / 12, "3dconv": 1 / 16, "atax": 1 / 128, "bicg": 1 / 128,
         "corr": 1 / 8, "covar": 1 / 8, "fdtd": 1 / 32, "gesummv": 1 / 128,
         "gramschmidt": 1 / 4, "mvt": 1 / 128, "syr2k": 1 / 8, "syrk": 1 / 8}
N = {name: 16 if name == "3dconv" else 64 if name in ("2dconv", "fdtd") else 32 for name in NAMES}
LINE = 128

_CACHE: dict = {}


def wl(name: str, accesses: str = "source"):
    """Small-scale build, memoised (the traces are only read)."""
    key = (name, accesses)
    if key not in _CACHE:
        mod = importlib.import_module(f"golden.workloads.rdgc_{name}")
        _CACHE[key] = mod.build(SCALE[name], accesses=accesses)
    return _CACHE[key]


def bases(workload) -> dict[str, int]:
    """Array base addresses, replaying the cudaMalloc order recorded in params."""
    mem = DeviceMemory()
    return {a: mem.alloc(a, size) for a, size in workload.params["arrays"].items()}


def touched(kernels) -> np.ndarray:
    """Sorted distinct byte addresses the active lanes of ``kernels`` access."""
    out = []
    for k in kernels:
        rows = np.flatnonzero(k.memory_mask())
        addr = lane_addresses(k, rows)
        lane = np.arange(32, dtype=np.uint32)
        on = ((k.insts["mask"][rows][:, None] >> lane[None, :]) & 1).astype(bool)
        out.append(addr[on])
    return np.unique(np.concatenate(out)).astype(np.int64)


def elements(base: int, *index_arrays, shape) -> np.ndarray:
    """Byte addresses of the float elements of a row-major array of ``shape`` at ``index_arrays``."""
    flat = np.ravel_multi_index(np.broadcast_arrays(*index_arrays), shape)
    return base + 4 * flat.ravel().astype(np.int64)


def whole(base: int, n_elems: int) -> np.ndarray:
    return base + 4 * np.arange(n_elems, dtype=np.int64)


def requests_per_row(kernel: KernelTrace, pc: int) -> np.ndarray:
    """Line requests of each instruction row with PC ``pc`` (128-byte lines)."""
    rows = np.flatnonzero(kernel.insts["pc"] == pc)
    row, _, _ = coalesce(kernel, LINE, rows=rows)
    return np.bincount(np.searchsorted(rows, row), minlength=rows.size)


def pc_of(kernel: KernelTrace, position: int) -> int:
    """PC of the ``position``-th memory instruction of warp 0 that has any row."""
    g = int(np.flatnonzero(np.diff(kernel.warp_ptr) > 0)[0])
    return int(kernel.insts["pc"][kernel.warp_ptr[g] + position])


# -- per-thread access counts (RDGC's L) ----------------------------------------------------

def _l_source(name: str, n: int) -> list[int]:
    """Most accesses of any thread in each kernel, counting the source as written."""
    return {
        "2dconv": [10],
        "2mm": [4 * n],
        "3dconv": [16] * (n - 2),
        "atax": [4 * n, 4 * n],
        "bicg": [1 + 4 * n, 1 + 4 * n],
        "corr": [1 + (n - 1) * (4 * n + 3)],
        "covar": [n * (4 * n + 3)],
        "fdtd": [4, 4, 6],
        "gesummv": [8 * n + 3],
        "gramschmidt": [1 + 8 * n] * (n - 1) + [0],
        "mvt": [4 * n, 4 * n],
        "syr2k": [2 + 6 * n],
        "syrk": [2 + 4 * n],
    }[name]


def _l_compiled(name: str, n: int) -> list[int]:
    """The same with nvcc's forwarding of re-read elements."""
    return {
        "2dconv": [10],
        "2mm": [3 * n + 1],
        "3dconv": [12] * (n - 2),
        "atax": [3 * n + 1, 3 * n + 1],
        "bicg": [1 + 3 * n, 1 + 3 * n],
        "corr": [1 + (n - 1) * (3 * n + 2)],
        "covar": [n * (3 * n + 2)],
        "fdtd": [4, 4, 6],
        "gesummv": [8 * n + 2],
        "gramschmidt": [7 * n] * (n - 1) + [0],
        "mvt": [3 * n + 1, 3 * n + 1],
        "syr2k": [2 + 5 * n],
        "syrk": [2 + 3 * n],
    }[name]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("accesses", ["source", "compiled"])
def test_max_accesses_per_thread(name, accesses):
    expect = (_l_source if accesses == "source" else _l_compiled)(name, N[name])
    got = [int(thread_access_counts(k).max()) for k in wl(name, accesses).kernels]
    assert got == expect


# rdgc Table 4's L at size n (summed over the launches of a multi-launch kernel).
RDGC_L = {
    "2dconv": lambda n: 10, "2mm": lambda n: 3 * n, "3dconv": lambda n: 12 * n,
    "atax": lambda n: 1 + 3 * n, "bicg": lambda n: 1 + 3 * n,
    "corr": lambda n: (3 * n + 2) * n + 1, "covar": lambda n: (3 * n + 2) * n,
    "gesummv": lambda n: 8 * n + 2, "gramschmidt": lambda n: 7 * n * n,
    "mvt": lambda n: 3 * n + 1, "syr2k": lambda n: 5 * n + 1, "syrk": lambda n: 3 * n + 2,
}
# Compiled count minus RDGC's, as documented in docs/workloads/rdgc_polybench.md.
RDGC_DELTA = {
    "2dconv": lambda n: 0, "atax": lambda n: 0, "bicg": lambda n: 0, "covar": lambda n: 0,
    "gesummv": lambda n: 0, "mvt": lambda n: 0, "syrk": lambda n: 0,
    "2mm": lambda n: 1,  # the first trip's load of C
    "syr2k": lambda n: 1,  # as 2MM; RDGC's SYRK (same prologue) agrees with us
    "3dconv": lambda n: -24,  # NI - 2 launches, not NI
    "corr": lambda n: -(3 * n + 2),  # thread 1 runs M - 1 trips of the j2 loop, not N
    "gramschmidt": lambda n: -7 * n,  # thread N - 1 is active in N - 1 launches, not N
}


@pytest.mark.parametrize("name", sorted(RDGC_L))
def test_compiled_counts_against_rdgc_table4(name):
    n = N[name]
    kernels = wl(name, "compiled").kernels
    if name in ("3dconv", "gramschmidt"):  # one kernel launched repeatedly: sum the launches
        got = int(sum(thread_access_counts(k) for k in kernels).max())
    else:
        got = max(int(thread_access_counts(k).max()) for k in kernels)
    assert got - RDGC_L[name](n) == RDGC_DELTA[name](n)


def test_fdtd_step1_is_rdgc_six_split_over_its_branches():
    # rdgc Table 4 lists 6 for step 1: its i == 0 branch (2 accesses) and the other (4).
    k1 = wl("fdtd").kernels[0]
    counts = thread_access_counts(k1)
    cta, tid = np.divmod(np.arange(counts.size), k1.threads_per_cta)
    i = (cta // k1.grid[0]) * 8 + tid // 32
    assert set(counts[i == 0]) == {2} and set(counts[i > 0]) == {4}


def test_per_thread_counts_of_divergent_loops():
    n = N["corr"]
    j1 = np.arange(256) + 1  # one CTA of 256 threads
    corr = thread_access_counts(wl("corr").kernels[0])
    expect = np.where(j1 < n, 1 + (n - j1) * (4 * n + 3), 0)
    assert np.array_equal(corr, expect)
    covar = thread_access_counts(wl("covar", "compiled").kernels[0])
    expect = np.where(j1 <= n, (n - j1 + 1) * (3 * n + 2), 0)
    assert np.array_equal(covar, expect)
    gs = wl("gramschmidt", "compiled").kernels
    j = np.arange(256)
    for k in (0, 5, n - 2, n - 1):
        expect = np.where((j > k) & (j < n), 7 * n, 0)
        assert np.array_equal(thread_access_counts(gs[k]), expect)


def test_2dconv_counts_every_interior_thread():
    counts = thread_access_counts(wl("2dconv").kernels[0])
    n = N["2dconv"]
    assert (counts == 10).sum() == (n - 2) ** 2 and set(np.unique(counts)) == {0, 10}


# -- footprints against the arrays -----------------------------------------------------------

def _expected_footprint(name: str, w) -> np.ndarray:
    b, n = bases(w), N[name]
    r = np.arange(n)
    inner = np.arange(1, n - 1)
    if name == "2dconv":
        parts = [whole(b["A"], n * n),
                 elements(b["B"], inner[:, None], inner[None, :], shape=(n, n))]
    elif name == "2mm":
        parts = [whole(b[a], n * n) for a in "ABC"]
    elif name == "3dconv":
        from golden.workloads.rdgc_3dconv import TERMS
        ii, jj, kk = np.meshgrid(inner, inner, inner, indexing="ij")
        parts = [elements(b["A"], ii + di, jj + dj, kk + dk, shape=(n, n, n))
                 for di, dj, dk in TERMS]
        parts.append(elements(b["B"], ii, jj, kk, shape=(n, n, n)))
    elif name in ("atax", "bicg", "mvt", "gesummv"):
        parts = [whole(b[a], s // 4) for a, s in w.params["arrays"].items()]
    elif name in ("syrk", "syr2k"):
        parts = [whole(b[a], n * n) for a in w.params["arrays"]]
    elif name in ("corr", "covar"):
        one = np.arange(1, n + 1)
        sym = elements(b["symmat"], one[:, None], one[None, :], shape=(n + 1, n + 1))
        if name == "corr":  # symmat[M][M] is set by the host, not the kernel
            sym = sym[sym != b["symmat"] + 4 * (n * (n + 1) + n)]
        parts = [elements(b["data"], one[:, None], one[None, :], shape=(n + 1, n + 1)), sym]
    elif name == "gramschmidt":
        kk, jj = np.meshgrid(r, r, indexing="ij")
        upper = kk < jj
        parts = [elements(b["A"], r[:, None], np.arange(1, n)[None, :], shape=(n, n)),
                 elements(b["R"], kk[upper], jj[upper], shape=(n, n)),
                 elements(b["Q"], r[:, None], np.arange(n - 1)[None, :], shape=(n, n))]
    elif name == "fdtd":
        parts = [np.array([b["_fict_"]]), whole(b["ex"], n * (n + 1)),
                 whole(b["ey"], (n + 1) * n), whole(b["hz"], n * n)]
    return np.unique(np.concatenate(parts))


@pytest.mark.parametrize("name", NAMES)
def test_footprint_is_the_source_index_ranges(name):
    w = wl(name)
    assert np.array_equal(touched(w.kernels), _expected_footprint(name, w))


def test_footprint_same_in_both_modes():
    for name in ("2mm", "gesummv", "corr"):
        assert np.array_equal(touched(wl(name).kernels), touched(wl(name, "compiled").kernels))


def test_array_sizes_follow_the_sources():
    n = 32
    assert wl("corr").params["arrays"] == {"data": 4 * (n + 1) ** 2, "symmat": 4 * (n + 1) ** 2,
                                           "stddev": 4 * (n + 1), "mean": 4 * (n + 1)}
    m = 64
    assert wl("fdtd").params["arrays"] == {"_fict_": 4 * 500, "ex": 4 * m * (m + 1),
                                           "ey": 4 * (m + 1) * m, "hz": 4 * m * m}
    assert list(wl("2mm").params["arrays"]) == ["A", "B", "C", "D", "E"]


# -- coalescing of the known patterns ---------------------------------------------------------

@pytest.mark.parametrize("name, kernel, position, lines", [
    ("mvt", 0, 1, 32),  # a[i*N + j]: a row per thread, consecutive threads N floats apart
    ("mvt", 1, 1, 1),  # a[j*N + i]: consecutive threads, consecutive floats
    ("atax", 0, 1, 32),
    ("atax", 1, 1, 1),
    ("bicg", 0, 2, 1),  # after the zeroing store and s[j]: A[i*NY + j], consecutive j
    ("bicg", 1, 2, 32),
    ("syrk", 0, 3, 1),  # a[i*M + k]: one address for the whole warp
    ("syrk", 0, 4, 32),  # a[j*M + k]: 128 bytes apart
])
def test_row_walks_coalesce_and_column_walks_do_not(name, kernel, position, lines):
    k = wl(name).kernels[kernel]
    per_row = requests_per_row(k, pc_of(k, position))
    assert set(per_row) == {lines}


def test_2dconv_stencil_lines():
    k = wl("2dconv").kernels[0]
    from golden.workloads.rdgc_2dconv import STENCIL
    # A warp is 32 consecutive j of one row. Warp 1 of CTA (1, 4): i = 33, j = 32 .. 63,
    # lane 31 (j = 63 = N - 1) inactive. A[i][j-1] spans j = 31 .. 61 (two lines),
    # A[i][j] 32 .. 62 and A[i][j+1] 33 .. 63 (one line each).
    g = (1 + 4 * k.grid[0]) * 8 + 1
    first = k.warp_ptr[g]
    for pos, (_, dj) in enumerate(STENCIL):
        row, _, _ = coalesce(k, LINE, rows=np.array([first + pos]))
        assert row.size == {-1: 2, 0: 1, 1: 1}[dj]
    row, _, _ = coalesce(k, LINE, rows=np.array([first + 9]))  # the store of B[i][j]
    assert row.size == 1 and k.insts["mask"][first + 9] == 0x7FFF_FFFF


def test_corr_transposed_store_scatters():
    # Warp 0, trip 0: lanes j1 = 1 .. 31 active (j1 < M = 32). data[1][j1] is 31
    # consecutive floats at bytes 136 .. 259 of data (two lines); symmat[j1 + 1][j1]
    # steps M + 2 floats = 136 bytes from lane to lane (a line each).
    n = N["corr"]
    k = wl("corr").kernels[0]
    assert requests_per_row(k, pc_of(k, 3))[0] == 2  # data[i][j1], i = 1
    assert requests_per_row(k, pc_of(k, 4 * n + 2))[0] == 31  # symmat[j2][j1]


# -- kernel sequences, launches, compute ------------------------------------------------------

def test_kernel_sequences_and_launch_shapes():
    assert [k.name for k in wl("atax").kernels] == ["atax_kernel1", "atax_kernel2"]
    assert [k.name for k in wl("fdtd").kernels] == ["fdtd_step1_kernel", "fdtd_step2_kernel",
                                                    "fdtd_step3_kernel"]
    assert [k.grid for k in wl("fdtd").kernels] == [(2, 8, 1)] * 3
    assert wl("3dconv").params["launches"] == 14 and len(wl("3dconv").kernels) == 14
    assert len(wl("gramschmidt").kernels) == 32
    assert wl("2dconv").kernels[0].block == (32, 8, 1)
    assert wl("corr").kernels[0].grid == (1, 1, 1) and wl("corr").kernels[0].block == (256, 1, 1)


def test_3dconv_launches_are_planes_apart():
    w = wl("3dconv")
    n = N["3dconv"]
    first, last = w.kernels[0], w.kernels[-1]
    assert np.array_equal(last.insts["base"] - first.insts["base"],
                          np.full(len(first.insts), 4 * n * n * (n - 3), np.uint64))
    b = bases(w)
    inner = np.arange(1, n - 1)
    jj, kk = np.meshgrid(inner, inner, indexing="ij")
    stores = last.insts["op"] == Op.STORE
    written = lane_addresses(last, np.flatnonzero(stores))
    expect = elements(b["B"], np.full_like(jj, n - 2), jj, kk, shape=(n, n, n))
    assert np.array_equal(np.unique(written[written != 0]).astype(np.int64), np.sort(expect))


def test_fdtd_steps_move_only_the_fict_read():
    mod = importlib.import_module("golden.workloads.rdgc_fdtd")
    w = mod.build(1 / 32, steps=3)
    assert len(w.kernels) == 9
    b = bases(w)
    for t in range(3):
        step1 = w.kernels[3 * t]
        loads = step1.insts[step1.insts["op"] == Op.LOAD]
        assert b["_fict_"] + 4 * t in set(loads["base"].astype(np.int64))
        assert np.array_equal(w.kernels[3 * t + 2].insts, w.kernels[2].insts)


def test_instruction_count_follows_the_compute_rule():
    # atax at N = 32: one CTA of 256 threads, warp 0 active. Per trip: 2 loop-overhead,
    # 2 arithmetic (multiply, add); prologue 2 (index, comparison); 1 EXIT.
    n = 32
    idle = 7 * (2 + 1)
    k = wl("atax").kernels[0]
    assert k.n_instructions == 4 * n + 2 + 4 * n + 1 + idle
    k = wl("atax", "compiled").kernels[0]  # dropped loads hand their compute on
    assert k.n_instructions == 3 * n + 1 + 2 + 4 * n + 1 + idle
    assert int(k.insts["gap"][0]) == 2 + 2 and int(k.insts["gap"][1]) == 0


def test_builds_are_deterministic_and_ignore_the_seed():
    for name in ("2mm", "corr", "fdtd"):
        mod = importlib.import_module(f"golden.workloads.rdgc_{name}")
        a, b = mod.build(SCALE[name], seed=0), mod.build(SCALE[name], seed=7)
        for ka, kb in zip(a.kernels, b.kernels, strict=True):
            assert ka.insts.tobytes() == kb.insts.tobytes()
            assert ka.tail.tobytes() == kb.tail.tobytes()
            assert ka.lane_addrs.tobytes() == kb.lane_addrs.tobytes()


def test_registered_with_table4_figures():
    expect = {"2dconv": "10", "2mm": "3N", "3dconv": "12N", "atax": "1 + 3N", "bicg": "1 + 3N",
              "corr": "(3N + 2)N + 1", "covar": "(3N + 2)N", "fdtd": "6, 4, 6",
              "gesummv": "8N + 2", "gramschmidt": "7N^2", "mvt": "3N + 1", "syr2k": "5N + 1",
              "syrk": "3N + 2"}
    sizes = {"2dconv": 4096, "2mm": 384, "3dconv": 256, "atax": 4096, "bicg": 4096,
             "corr": 256, "covar": 256, "fdtd": 2048, "gesummv": 4096, "gramschmidt": 128,
             "mvt": 4096, "syr2k": 256, "syrk": 256}
    for name in NAMES:
        spec = registry.get(f"rdgc/{name}")
        assert spec.paper["L"] == expect[name] and spec.paper["size"] == sizes[name]
        assert spec.source.startswith("Polybench/GPU 1.0 CUDA/")


def test_scale_sets_the_problem_size():
    assert problem_size(4096, 1.0, 3) == 4096
    assert problem_size(4096, 1 / 64, 3) == 64
    assert problem_size(256, 0.001, 3) == 3
    assert wl("gesummv").params["n"] == 32


# -- errors and helpers -----------------------------------------------------------------------

def test_errors():
    with pytest.raises(ValueError, match="accesses: must be one of source, compiled, not 'x'"):
        check_mode("x")
    with pytest.raises(ValueError, match=r"scale: must be in \(0, 1\], not 0"):
        problem_size(256, 0, 1)
    with pytest.raises(ValueError, match="only a load can be forwarded, not STORE"):
        st("s", 0, forwarded="always")
    with pytest.raises(ValueError, match="forwarded: must be one of"):
        ld("l", 0, forwarded="sometimes")
    fdtd = importlib.import_module("golden.workloads.rdgc_fdtd")
    with pytest.raises(ValueError, match="steps: must be an integer from 1 to 500, not 0"):
        fdtd.build(1 / 32, steps=0)
    with pytest.raises(ValueError, match="accesses: must be one of"):
        importlib.import_module("golden.workloads.rdgc_syrk").build(1 / 8, accesses="asm")
    with pytest.raises(ValueError, match="offset: must be non-negative, not -4"):
        shifted(wl("2dconv").kernels[0], -4)


def test_shifted_moves_explicit_lanes_of_active_lanes_only():
    kb = KernelBuilder("k", grid=(1,), block=(64,))
    rng = np.random.default_rng(3)
    addr = 0x1000 + 4 * rng.permutation(64)  # not affine: explicit lanes
    kb.load(0x100, addr, active=kb.tid % 3 != 0)
    k = kb.build()
    assert len(k.lane_addrs) == 2
    moved = shifted(k, 4096)
    before, after = lane_addresses(k), lane_addresses(moved)
    on = before != 0
    assert np.array_equal(after[on], before[on] + 4096) and not after[~on].any()


def test_emitter_loop_with_per_thread_trips_and_forwarding():
    # Two threads' worth of a loop: thread t runs t + 1 trips of [ld x (forwarded after
    # trip 0), st x]; warp-level rows follow the longest thread.
    kb = KernelBuilder("k", grid=(1,), block=(32,))
    em = Emitter(kb, "compiled", prologue=1)
    em.loop([ld("x", 0x2000 + 4 * kb.tid, forwarded="rest"), st("x_st", 0x2000 + 4 * kb.tid,
                                                                 gap=1)],
            3, active=kb.tid < 2, thread_trips=kb.tid + 1)
    k = em.finish()
    assert list(k.insts["op"]) == [Op.LOAD, Op.STORE, Op.STORE]
    assert list(k.insts["mask"]) == [0b11, 0b11, 0b10]
    assert list(thread_access_counts(k)[:3]) == [2, 3, 0]
    # gaps: prologue + overhead; flop; overhead (dropped load) + flop; tail: trip 3's rest
    assert list(k.insts["gap"]) == [1 + 2, 1, 2 + 1] and int(k.tail[0]) == 0 + 1


def test_update_loads_target_then_terms_then_stores():
    body = update("x", 100, [ld("ld_a", 200, step=4)], 8, step=16, flops=3, forwarded="rest",
                  gap=1, active=np.array([True]))
    assert [(a.op, a.label, a.offset, a.step, a.gap, a.forwarded) for a in body] == [
        (Op.LOAD, "ld_x", 8, 16, 1, "rest"), (Op.LOAD, "ld_a", 0, 4, 0, "never"),
        (Op.STORE, "st_x", 8, 16, 3, "never")]
    assert body[0].active is body[2].active and body[1].active is None


def test_run_allocates_floats_in_order():
    run = Run(64, 0.5, "source", minimum=40)
    assert run.n == 40 and run.accesses == "source"
    a, b = run.alloc(A=10, b=3)
    assert b == a + 256 and run.mem.sizes() == {"A": 40, "b": 12}
    wl_ = run.workload("x", [], "src", n=run.n)
    assert wl_.name == "rdgc/x" and wl_.params == {"n": 40, "accesses": "source",
                                                   "arrays": {"A": 40, "b": 12}}


@pytest.mark.parametrize("accesses, zeroed, count", [
    ("source", False, 4 * 3), ("compiled", False, 1 + 3 * 3),
    ("source", True, 1 + 4 * 3), ("compiled", True, 1 + 3 * 3)])
def test_matvec_kernel(accesses, zeroed, count):
    # 40 threads in blocks of 32, 3 trips: acc[t] (= 0;) acc[t] += m[t*5 + k*7] * v[k]
    run = Run(1, 1.0, accesses)
    acc, m, v = 0x10000, 0x20000, 0x30000
    k = matvec_kernel(run, "mv", threads=40, trips=3, block=32, acc=acc, matrix=m,
                      per_thread=5, per_trip=7, vector=v, zeroed=zeroed)
    assert k.grid == (2, 1, 1)
    assert thread_access_counts(k).tolist() == [count] * 40 + [0] * 24
    got = touched([k])
    t, trip = np.meshgrid(np.arange(40), np.arange(3))
    want = np.unique(np.concatenate([acc + 4 * np.arange(40), m + 4 * (t * 5 + trip * 7).ravel(),
                                     v + 4 * np.arange(3)]))
    assert np.array_equal(got, want)


@pytest.mark.parametrize("name", NAMES)
def test_registered_paper_size_is_the_formulas_n(name):
    spec = registry.get(f"rdgc/{name}")
    mod = importlib.import_module(f"golden.workloads.rdgc_{name}")
    assert spec.paper["N"] == spec.paper["size"] == mod.N_PAPER and spec.version == 2
    assert mod.build.__doc__.startswith(f"rdgc/{name} at ``N = round({mod.N_PAPER} * scale)``")
    assert paper_figure(registry.get("rdgc/corr").paper, "L") == "(3N + 2)N + 1 = 197,121"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["syrk", "corr", "gramschmidt", "atax"])
def test_paper_size_counts(name):
    mod = importlib.import_module(f"golden.workloads.rdgc_{name}")
    w = mod.build(1.0, accesses="compiled")
    n = mod.N_PAPER
    got = [int(thread_access_counts(k).max()) for k in w.kernels]
    assert got == _l_compiled(name, n)


def test_registry_cache_round_trip(tmp_path, monkeypatch):
    # GRAMSCHMIDT's last launch has no working thread (no rows): it must survive the file.
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path))
    built = registry.build("rdgc/gramschmidt", 1 / 16)
    loaded = registry.build("rdgc/gramschmidt", 1 / 16)
    assert len(list(tmp_path.iterdir())) == 1
    assert len(built.kernels) == len(loaded.kernels) == 8 and len(loaded.kernels[-1].insts) == 0
    for a, b in zip(built.kernels, loaded.kernels, strict=True):
        assert a.insts.tobytes() == b.insts.tobytes() and np.array_equal(a.tail, b.tail)
    assert loaded.params["accesses"] == "compiled" and loaded.params["n"] == 8
