"""tian15 workload emulators, part 2: backprop, dct, sort, histogram, nw, lud.

Expected values come from the sources' index formulas re-evaluated here per
thread, from closed forms counted by hand from the kernel sources (the
counts are spelled out in the comments), or from the generated input data
(numpy's sort and bincount). CTA replication is checked against plain
KernelBuilder builds of the same kernels.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from golden.trace.analysis import thread_access_counts, touched_lines
from golden.trace.builder import KernelBuilder
from golden.trace.coalesce import coalesce
from golden.trace.model import Space, lane_addresses
from golden.workloads import (
    registry,
    tian15_backprop,
    tian15_dct,
    tian15_histogram,
    tian15_lud,
    tian15_nw,
    tian15_sort,
)
from golden.workloads._common import DeviceMemory, PCs
from golden.workloads._replicate import build_kernel, cta_template, tile

LINE = 128
NAMES = ("backprop", "dct", "sort", "histogram", "nw", "lud")


def _rows(kernel, pc: int) -> np.ndarray:
    return np.flatnonzero(kernel.memory_mask(Space.GLOBAL) & (kernel.insts["pc"] == pc))


def _lines_per_row(kernel, pc: int) -> np.ndarray:
    """Distinct 128-byte lines of every global row with PC ``pc``."""
    rows = _rows(kernel, pc)
    row, _, _ = coalesce(kernel, LINE, rows=rows)
    return np.bincount(np.searchsorted(rows, row), minlength=rows.size)


def _array_lines(mem_arrays: dict, name: str) -> set[int]:
    base, nbytes = mem_arrays[name]
    return set(range(base // LINE, (base + nbytes - 1) // LINE + 1))


def _same_trace(a, b) -> bool:
    return (a.name == b.name and a.grid == b.grid and a.block == b.block
            and a.insts.tobytes() == b.insts.tobytes()
            and a.lane_addrs.tobytes() == b.lane_addrs.tobytes()
            and a.tail.tobytes() == b.tail.tobytes() and a.shared_bytes == b.shared_bytes)


def _same_bytes(a, b) -> bool:
    return len(a.kernels) == len(b.kernels) and all(
        _same_trace(x, y) for x, y in zip(a.kernels, b.kernels, strict=True))


def _mi(kernels) -> float:
    return 1000 * sum(int(k.memory_mask().sum()) for k in kernels) / sum(
        k.n_instructions for k in kernels)


# -- registry ---------------------------------------------------------------------


def test_registered_with_paper_figures():
    mi = {"backprop": 89.7, "dct": 76.2, "sort": 76.2, "histogram": 43.1, "nw": 30.4,
          "lud": 14.2}
    for name in NAMES:
        spec = registry.get(f"tian15/{name}")
        assert spec.paper["mi"] == mi[name]
        assert spec.source
    assert registry.get("tian15/lud").paper["size"] == "1024x1024"


def test_registry_build_and_json_params():
    wl = registry.build("tian15/lud", scale=0.03, seed=0, use_cache=False)
    assert wl.name == "tian15/lud"
    assert wl.params["matrix_dim"] == 32
    json.dumps(wl.params)
    for mod in (tian15_dct, tian15_sort, tian15_histogram, tian15_nw, tian15_backprop):
        json.dumps(mod.build(0.05).params)


# -- CTA replication (golden.workloads._replicate) -----------------------------------------


def _affine_emit(kb: KernelBuilder, shape: tuple, at: tuple):
    # a 2-D stencil-like kernel: row-major global loads, a shared round trip, a store
    x = at[0] * 8 + kb.tx
    y = at[1] * 4 + kb.ty
    kb.compute(3)
    kb.load(0x100, 0x1000 + (y * 64 + x) * 4)
    kb.store(0x108, (kb.ty * 8 + kb.tx) * 4, space=Space.SHARED)
    kb.barrier()
    kb.load(0x110, (kb.tx * 4 + kb.ty) * 4, space=Space.SHARED, active=kb.tx < 5)
    kb.compute(2, active=kb.ty == 0)
    kb.store(0x118, 0x9000 + (x * 64 + y) * 4)
    return kb.build()


@pytest.mark.parametrize("grid", [(5, 3), (1, 3), (4,)])
def test_replicated_kernel_equals_whole_grid_build(grid):
    tiled = build_kernel("k", grid, (8, 4), _affine_emit, shared_bytes=128)
    whole = build_kernel("k", grid, (8, 4), _affine_emit, shared_bytes=128, replicate=False)
    assert _same_trace(tiled, whole)
    assert tiled.n_ctas == int(np.prod(grid))


def test_tile_copies_a_template_over_block_and_launch_axes():
    # The address is linear in (bx, by) and in a launch-wide argument `off`.
    def emit(kb, shape, at):
        bx, by, off = at
        kb.load(0x100, 0x1000 + off * 4096 + (by * 3 + bx) * 128 + kb.tx * 4)
        return kb.build()

    t = cta_template("k", (32,), emit, (), (0, 0, 0))
    got = tile(t, (3, 2), 5)
    want = KernelBuilder("k", (3, 2), (32,))
    assert _same_trace(got, emit(want, (), (want.bx, want.by, 5)))
    assert got.insts["base"].tolist() == [0x1000 + 5 * 4096 + c * 128 for c in range(6)]


def test_cta_template_rejects_ctas_that_are_not_shifted_copies():
    def guarded(kb, shape, at):
        kb.load(0x100, 0x1000 + kb.tx * 4, active=at[0] == 0)
        return kb.build()

    with pytest.raises(RuntimeError, match="depend on its position"):
        build_kernel("g", (4,), (32,), guarded)

    def cross(kb, shape, at):  # linear along each axis alone: only the diagonal copy shows it
        kb.load(0x100, 0x100000 + at[0] * at[1] * 4096 + kb.tx * 4)
        return kb.build()

    with pytest.raises(RuntimeError, match="not affine"):
        build_kernel("q", (3, 3), (32,), cross)
    with pytest.raises(ValueError, match="1-D or 2-D"):
        build_kernel("z", (2, 2, 2), (32,), cross)
    with pytest.raises(ValueError, match="cannot tile"):  # two block axes, a 1-D grid
        tile(cta_template("k", (8, 4), _affine_emit, (), (0, 0)), (4,))


# -- dct ----------------------------------------------------------------------------


def _dct(side: int):
    mem = DeviceMemory()
    for name, size in (("input", side * side * 4), ("output", side * side * 4),
                       ("dct8x8", 256)):
        mem.alloc(name, size)
    pcs = PCs()
    return mem, pcs, tian15_dct.dct_kernel(side, side, mem, pcs)


def test_dct_tiled_equals_direct_build():
    mem, pcs, kernel = _dct(24)
    kb = KernelBuilder("DCT", (3, 3), (8, 8), shared_bytes=256)
    assert _same_trace(kernel, tian15_dct.dct_emit(24, mem, pcs)(kb, (), (kb.bx, kb.by)))


def test_dct_counts_and_memory_intensity():
    side = 32
    _, _, k = _dct(side)
    assert k.grid == (4, 4, 1) and k.block == (8, 8, 1)
    # per thread: 8 dct8x8 + 8 input loads, 8 dct8x8 loads, 1 output store
    assert (thread_access_counts(k) == 25).all()
    assert (thread_access_counts(k, Space.SHARED) == 9).all()  # inter: 1 store, 8 loads
    warps = 16 * 2
    assert len(k.insts) == warps * 35  # 25 global + 9 shared + 1 barrier
    # compute per warp: 9 prologue + 8*7 + 7 FMAs (loop 1) + 1 + 2 + 8*5 + 1 + 7 + 1 (loop 2)
    assert k.n_instructions == warps * (35 + 124)
    assert _mi([k]) == pytest.approx(1000 * 25 / 159)


def test_dct_addresses_follow_the_opencl_indexing():
    side = 32
    mem, pcs, k = _dct(side)
    a_in = mem.arrays["input"][0]
    # work-group (gx, gy) = (1, 2), warp 1 holds local ids j = 4..7, i = 0..7
    cta, warp = 2 * 4 + 1, 1
    rows = _rows(k, pcs("DCT:ld_input"))
    rows = rows[(k.insts["cta"][rows] == cta) & (k.insts["warp"][rows] == warp)]
    got = lane_addresses(k, rows)
    lane = np.arange(32)
    i, j = lane % 8, 4 + lane // 8
    for kk in range(8):  # input[getIdx(groupIdx, groupIdy, j, k)], k in program order
        want = a_in + ((2 * 8 + kk) * side + 1 * 8 + j) * 4
        assert (got[kk] == want).all()
    rows = _rows(k, pcs("DCT:ld_dct8x8.1"))
    rows = rows[(k.insts["cta"][rows] == cta) & (k.insts["warp"][rows] == warp)]
    got = lane_addresses(k, rows)
    for kk in range(8):  # dct8x8[k * blockWidth + i] (forward transform)
        assert (got[kk] == mem.arrays["dct8x8"][0] + (kk * 8 + i) * 4).all()


def test_dct_footprint_and_coalescing():
    mem, pcs, k = _dct(32)
    want = set().union(*(_array_lines(mem.arrays, a) for a in ("input", "output", "dct8x8")))
    assert set(touched_lines(k, LINE).tolist()) == want
    # a warp reads 4 distinct input words, contiguous (j = 4 rows of the block): one line
    assert (_lines_per_row(k, pcs("DCT:ld_input")) == 1).all()
    # it writes 4 rows of 8 floats, each row in another matrix row: four lines
    assert (_lines_per_row(k, pcs("DCT:st_output")) == 4).all()


def test_dct_scale():
    assert tian15_dct.build(0.25).params["width"] == 512
    assert tian15_dct.build(0.001).params["width"] == 8


# -- lud ------------------------------------------------------------------------------


def test_lud_launch_sequence():
    dim = 64
    ks = tian15_lud.lud_kernels(dim, 0x1000_0000, PCs())
    steps = dim // 16 - 1
    assert len(ks) == 3 * steps + 1
    assert [k.name for k in ks[:3]] == ["lud_diagonal", "lud_perimeter", "lud_internal"]
    for s in range(steps):
        n = dim // 16 - 1 - s
        assert ks[3 * s].grid == (1, 1, 1) and ks[3 * s].block == (16, 1, 1)
        assert ks[3 * s + 1].grid == (n, 1, 1) and ks[3 * s + 1].block == (32, 1, 1)
        assert ks[3 * s + 2].grid == (n, n, 1) and ks[3 * s + 2].block == (16, 16, 1)
    assert ks[-1].name == "lud_diagonal"


def test_lud_shifted_and_tiled_launches_equal_direct_builds():
    dim, m0 = 48, 0x1000_0000
    pcs = PCs()
    ks = tian15_lud.lud_kernels(dim, m0, pcs)
    for offset, per, intl in ((0, ks[1], ks[2]), (16, ks[4], ks[5])):
        n = (dim - offset) // 16 - 1
        kb = KernelBuilder("lud_perimeter", (n,), (32,), shared_bytes=3 * 1024)
        assert _same_trace(per, tian15_lud.perimeter_emit(dim, m0, pcs)(kb, (), (kb.bx, offset)))
        kb = KernelBuilder("lud_internal", (n, n), (16, 16), shared_bytes=2 * 1024)
        assert _same_trace(intl, tian15_lud.internal_emit(dim, m0, pcs)(
            kb, (), (kb.bx, kb.by, offset)))


def test_lud_access_counts():
    dim = 48
    ks = tian15_lud.lud_kernels(dim, 0x1000_0000, PCs())
    diag, per, intl = ks[0], ks[1], ks[2]
    # diagonal: 16 row loads, 15 row stores (row 0 is not written back)
    assert (thread_access_counts(diag) == 31).all()
    # perimeter: lanes 0-15 load 8 dia + 16 peri_row rows, store 15 rows;
    # lanes 16-31 load 8 dia + 16 peri_col rows, store 16 rows
    c = thread_access_counts(per).reshape(-1, 32)
    assert (c[:, :16] == 39).all() and (c[:, 16:] == 40).all()
    # internal: two tile loads, then m -= sum (a load and a store)
    assert (thread_access_counts(intl) == 4).all()
    assert (thread_access_counts(intl, Space.SHARED) == 2 + 32).all()
    # rows per launch, counted from the source:
    #   diagonal: 32 (stage) + 1 barrier + sum_{i<15} (3+3i) + 1 + 3(i+1) + 1 + 1 + 30 = 828
    #   perimeter: 96 (stage) + 1 + 256 (row half: 16 peri_row + 120 dia loads, 120
    #   stores) + 288 (col half: 16 + 120 + 16 loads, 136 stores) + 1 + 62 = 704 per CTA
    #   internal: 2 + 2 + 1 + 32 + 2 = 39 per warp
    assert len(diag.insts) == 828
    assert len(per.insts) == 704 * per.n_ctas
    assert len(intl.insts) == 39 * intl.n_warps
    # internal compute per warp: 12 + 4 (indices) + 16 FMAs + 2 + 1 = 35
    assert intl.n_instructions == intl.n_warps * (39 + 35)
    # diagonal compute: 3 + 16*2 (stage) + sum_{i<15} (2 + i FMAs + 1 divide + 2 + (i+1))
    # + 3 + 15*2 = 3 + 32 + 300 + 33 = 368
    assert diag.n_instructions == 828 + 368
    # perimeter compute per CTA: staging 6 + 16 + 32 + 4 + 16 + 4 + 32 = 110, updates
    # 2 + 120 FMAs + 120 FMAs + 16 divides = 258, write-back 5 + 30 + 4 + 32 = 71
    assert per.n_instructions == per.n_ctas * (704 + 110 + 258 + 71)


def test_lud_footprint_and_coalescing():
    dim, m0 = 64, 0x1000_0000
    pcs = PCs()
    ks = tian15_lud.lud_kernels(dim, m0, pcs)
    lines = set()
    for k in ks:
        lines |= set(touched_lines(k, LINE).tolist())
    assert lines == set(range(m0 // LINE, (m0 + dim * dim * 4) // LINE))
    # lud_internal reads 2 rows of 16 floats per warp, 64-byte aligned: two lines
    intl = ks[2]
    assert (_lines_per_row(intl, pcs("lud_internal:ld_m_row")) == 2).all()
    assert (_lines_per_row(intl, pcs("lud_internal:ld_m")) == 2).all()
    # lud_diagonal reads one 64-byte row segment per instruction
    assert (_lines_per_row(ks[0], pcs("lud_diagonal:ld_m[3]")) == 1).all()


def test_lud_shifts_every_step():
    dim, m0 = 48, 0x1000_0000
    pcs = PCs()
    ks = tian15_lud.lud_kernels(dim, m0, pcs)
    pc = pcs("lud_diagonal:ld_m[0]")
    for step, k in enumerate(ks[::3]):
        offset = 16 * step
        row = _rows(k, pc)
        assert k.insts["base"][row[0]] == m0 + (offset * dim + offset) * 4


# -- nw ---------------------------------------------------------------------------------


def test_nw_launches_and_counts():
    wl = tian15_nw.build(64 / 512)
    n = 64
    assert wl.params["n"] == n
    ks = wl.kernels
    assert len(ks) == 2 * n // 16 - 1
    assert [k.grid[0] for k in ks] == [1, 2, 3, 4, 3, 2, 1]
    assert [k.name for k in ks] == ["needle_cuda_shared_1"] * 4 + ["needle_cuda_shared_2"] * 3
    for k in ks:
        c = thread_access_counts(k).reshape(-1, 16)
        # tx == 0 loads the north-west corner: 1 + 16 ref + west + north + 16 stores
        assert (c[:, 0] == 35).all() and (c[:, 1:] == 34).all()


def test_nw_footprint_and_coalescing():
    n = 64
    mem, pcs = DeviceMemory(), PCs()
    ks = tian15_nw.needle_kernels(n, 10, mem=mem, pcs=pcs)
    cols = n + 1
    ref0, mat0 = mem.arrays["referrence_cuda"][0], mem.arrays["matrix_cuda"][0]
    lines = set()
    for k in ks:
        lines |= set(touched_lines(k, LINE).tolist())
    r, c = np.meshgrid(np.arange(1, cols), np.arange(1, cols), indexing="ij")
    want = set(((ref0 + (r * cols + c) * 4) // LINE).ravel().tolist())
    want |= set(((mat0 + np.arange(cols * cols) * 4) // LINE).tolist())  # every score cell
    assert lines == want
    # the west border is a column walk: each of the 16 lanes reads another row
    assert all((_lines_per_row(k, pcs(f"{k.name}:ld_w")) == 16).all() for k in ks)


# -- backprop ------------------------------------------------------------------------


def test_backprop_size_and_rdgc_access_count():
    wl = tian15_backprop.build(0.05)
    n_in = 416  # 8192 * 0.05 = 409.6, to a multiple of 16
    assert wl.params["input_units"] == n_in
    fwd, adj = wl.kernels
    assert fwd.grid == (1, n_in // 16, 1) and fwd.block == (16, 16, 1)
    # layerforward: tx == 0 also loads input_cuda and stores hidden_partial_sum
    c = thread_access_counts(fwd).reshape(-1, 16, 16)
    assert (c[:, :, 0] == 4).all() and (c[:, :, 1:] == 2).all()
    # adjust_weights: 9 per thread; 16 for ty == 0 in CTA 0 (RDGC Table 4: L = 16)
    c = thread_access_counts(adj).reshape(-1, 16, 16)
    assert c.max() == 16 and (c[0, 0] == 16).all()
    assert (c[1:] == 9).all() and (c[0, 1:] == 9).all()


# -- sort -------------------------------------------------------------------------------


def _sort(n: int, seed: int = 0):
    mem = DeviceMemory()
    for name, size in (("origUnsortedDataBuf", n), ("partiallySortedBuf", n),
                       ("histogramBinsBuf", n), ("scanedHistogramBinsBuf", n),
                       ("sortedDataBuf", n), ("sumBufferin", n // 64), ("sumBufferout", n // 64),
                       ("summaryBUfferin", 256), ("summaryBUfferout", 256)):
        mem.alloc(name, size * 4)
    keys = tian15_sort.sort_keys(n, seed)
    pcs = PCs()
    return mem, pcs, keys, tian15_sort.radix_sort_kernels(keys, mem, pcs)


def test_sort_kernel_sequence():
    names7 = ["histogram", "ScanArraysdim2", "prefixSum", "blockAddition", "ScanArraysdim1",
              "FixOffset", "permute"]
    ks = tian15_sort.build(0.5).kernels  # 32768 keys: 128 groups, 2 scan blocks
    assert [k.name for k in ks] == names7 * 4
    ks = tian15_sort.build(0.25).kernels  # 16384: one scan block, no prefixSum/blockAddition
    assert [k.name for k in ks] == [n for n in names7 if n not in names7[2:4]] * 4
    assert tian15_sort.build(1.0 / 3).params["element_count"] == 32768  # rounded up
    assert tian15_sort.null_local_size(4, 256) == (4, 64)
    assert tian15_sort.null_local_size(256, 256) == (256, 1)
    assert tian15_sort.null_local_size(128, 256) == (128, 2)


def test_sort_scatter_addresses_sort_the_keys():
    n = 32768
    mem, pcs, keys, ks = _sort(n, seed=3)
    out0 = mem.arrays["sortedDataBuf"][0]
    pc = pcs("permute:st_sorted")
    current = keys
    for p in ks[6::7]:  # the four permute launches
        rows = _rows(p, pc)
        dest = (lane_addresses(p, rows).astype(np.int64) - out0) // 4  # [256 iters x warps]
        # row r of warp w is iteration k = r % 256 of threads 32w..32w+31
        w = p.insts["cta"][rows] * p.warps_per_cta + p.insts["warp"][rows]
        it = np.arange(rows.size) % 256
        elem = (w[:, None] * 32 + np.arange(32)[None, :]) * 256 + it[:, None]
        nxt = np.empty_like(current)
        nxt[dest.ravel()] = current[elem.ravel()]
        assert np.sort(dest.ravel()).tolist() == list(range(n))  # a permutation
        current = nxt
    assert (current == np.sort(keys)).all()


def test_sort_local_histograms_match_the_keys():
    n = 16384
    mem, pcs, keys, ks = _sort(n)
    h = ks[0]
    rows = np.flatnonzero(h.insts["pc"] == pcs("histogram:atom_inc"))
    addr = lane_addresses(h, rows).reshape(-1, 8, 32)  # [group, warp, lane]
    for g in (0, 17, n // 256 - 1):
        got = np.bincount(addr[g].ravel() // 4, minlength=256)
        assert (got == np.bincount(keys[g * 256:(g + 1) * 256] & 0xFF, minlength=256)).all()


def test_sort_access_counts_and_reuse_pattern():
    n = 65536
    mem, pcs, keys, ks = _sort(n)
    per_kernel = {k.name: thread_access_counts(k) for k in ks[:7]}
    assert (per_kernel["histogram"] == 2).all()
    assert (per_kernel["ScanArraysdim2"] == 3).all()
    # prefixSum: store 0, then gidx iterations of (load, store), then load + store for
    # the last column: 1 + 2*3 + 2 = 9 at most (stride 4)
    assert per_kernel["prefixSum"].max() == 9 and per_kernel["prefixSum"].min() == 1
    assert (per_kernel["blockAddition"] == 3).all()
    assert (per_kernel["ScanArraysdim1"] == 2).all()
    assert (per_kernel["FixOffset"] == 3).all()
    # permute: 256 bucket loads, 256 x (key load, scatter store)
    assert (per_kernel["permute"] == 768).all()
    p = ks[6]
    # each work-item walks its own 1 KB: 32 lanes, 32 different lines per instruction ...
    assert (_lines_per_row(p, pcs("permute:ld_key")) == 32).all()
    # ... and the same 8 lines per work-item over the 256 iterations (the data reuse)
    rows = _rows(p, pcs("permute:ld_key"))
    first_warp = rows[(p.insts["cta"][rows] == 0) & (p.insts["warp"][rows] == 0)]
    _, lines, _ = coalesce(p, LINE, rows=first_warp)
    assert np.unique(lines).size == 32 * 1024 // LINE
    assert (_lines_per_row(ks[0], pcs("histogram:ld_key")) == 1).all()


def test_sort_determinism():
    a, b, c = tian15_sort.build(0.25, 1), tian15_sort.build(0.25, 1), tian15_sort.build(0.25, 2)
    assert _same_bytes(a, b)
    assert not _same_bytes(a, c)


# -- histogram ---------------------------------------------------------------------------


def test_histogram_counters_match_the_data():
    wl = tian15_histogram.build(0.25, seed=5)
    assert (wl.params["width"], wl.params["height"]) == (256, 256)
    data = tian15_histogram.histogram_data(256 * 256, 5)
    pcs = PCs()
    mem = DeviceMemory()
    mem.alloc("dataBuf", data.size * 4)
    mem.alloc("midDeviceBinBuf", data.size // 16384 * 1024)
    k = tian15_histogram.histogram_kernel(data, mem, pcs)
    rows = np.flatnonzero(k.insts["pc"] == pcs("histogram256_scalar:count.ld_counter"))
    addr = lane_addresses(k, rows).astype(np.int64).reshape(k.n_ctas, 4, 128, 32)
    for g in (0, k.n_ctas - 1):
        a = addr[g]
        # counter of (bin, work-item) is bin * 128 + 4 * (localId % 32) + localId / 32
        lid = np.arange(4)[:, None, None] * 32 + np.arange(32)[None, None, :]
        assert (a % 128 == 4 * (lid % 32) + lid // 32).all()
        vals = data[g * 16384:(g + 1) * 16384]
        assert (np.bincount((a // 128).ravel(), minlength=256)
                == np.bincount(vals, minlength=256)).all()


def test_histogram_counts_and_memory_intensity():
    k = tian15_histogram.build(0.25).kernels[0]
    assert k.grid == (4, 1, 1) and k.block == (128, 1, 1)
    assert (thread_access_counts(k) == 130).all()  # 128 loads, 2 bin stores
    # per warp: 64 zeroing stores + 1 + 128 x (load, counter load, counter store) + 1
    # + 2 x (32 counter loads + 1 store) = 516 rows; compute 4 + 64*4 + 3 + 128*7 + 3
    # + 2 * (4 + 32*13 + 6) = 2014
    assert len(k.insts) == 516 * k.n_warps
    assert k.n_instructions == (516 + 2014) * k.n_warps
    assert _mi([k]) == pytest.approx(1000 * 130 / 2530)
    pcs = PCs()
    mem = DeviceMemory()
    data = tian15_histogram.histogram_data(65536, 0)
    mem.alloc("dataBuf", data.size * 4)
    mem.alloc("midDeviceBinBuf", 4096)
    k = tian15_histogram.histogram_kernel(data, mem, pcs)
    assert (_lines_per_row(k, pcs("histogram256_scalar:count.ld_data")) == 1).all()


def test_histogram_determinism_and_scale():
    a, b = tian15_histogram.build(0.25, 7), tian15_histogram.build(0.25, 7)
    assert _same_bytes(a, b)
    assert not _same_bytes(a, tian15_histogram.build(0.25, 8))
    with pytest.raises(ValueError, match="multiple of 16384"):
        tian15_histogram.histogram_kernel(np.zeros(1000, np.uint32), DeviceMemory(), PCs())


def test_seed_free_workloads_ignore_the_seed():
    for mod in (tian15_dct, tian15_lud, tian15_nw, tian15_backprop):
        assert _same_bytes(mod.build(0.05, 0), mod.build(0.05, 9))


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_full_size_builds(name):
    wl = registry.build(f"tian15/{name}", scale=1.0, use_cache=False)
    grids = {"dct": [(256, 256, 1)], "backprop": [(1, 512, 1)] * 2,
             "histogram": [(64, 1, 1)]}
    if name in grids:
        assert [k.grid for k in wl.kernels] == grids[name]
    counts = {"lud": 190, "nw": 63, "sort": 28}
    if name in counts:
        assert len(wl.kernels) == counts[name]
    if name == "dct":
        assert _mi(wl.kernels) == pytest.approx(1000 * 25 / 159)
