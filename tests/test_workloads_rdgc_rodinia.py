"""The rdgc suite's Rodinia 3.1 emulators: bp, cfd, hotspot, nw, srad (and their building blocks).

Per-thread access counts are checked against closed forms worked out from the
CUDA sources, stored footprints against the arrays the kernels write (every
output element exactly once), coalescing against known row and column walks,
the CTA tiling against whole-grid builds, and RDGC Table 4's L.
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.trace.analysis import thread_access_counts
from golden.trace.builder import KernelBuilder
from golden.trace.coalesce import coalesce
from golden.trace.io import load_workload, save_workload
from golden.trace.model import INST_DTYPE, KernelTrace, Op, Space, lane_addresses
from golden.workloads import registry
from golden.workloads._common import DeviceMemory, PCs
from golden.workloads._program import Program
from golden.workloads._replicate import cta_template
from golden.workloads._rodinia import backprop_kernels, needle_kernels, srad_v2_kernels
from golden.workloads.rdgc_cfd import FAR_FIELD, WING, flux_kernel, tet_mesh
from golden.workloads.rdgc_hotspot import hotspot_kernels

# -- helpers ------------------------------------------------------------------------------


def coords(k: KernelTrace):
    """(tx, ty, bx, by) of every thread, in thread_access_counts order."""
    tpc = k.threads_per_cta
    idx = np.arange(k.n_ctas * tpc)
    cta, tid = idx // tpc, idx % tpc
    return tid % k.block[0], tid // k.block[0], cta % k.grid[0], cta // k.grid[0]


def addresses(k: KernelTrace, op: Op, pc: int | None = None) -> np.ndarray:
    """Sorted addresses of the active lanes of the kernel's global ``op`` rows (optionally one PC)."""
    sel = k.memory_mask(Space.GLOBAL) & (k.insts["op"] == op)
    if pc is not None:
        sel &= k.insts["pc"] == pc
    rows = np.flatnonzero(sel)
    lanes = lane_addresses(k, rows)
    active = (k.insts["mask"][rows, None] >> np.arange(32, dtype=np.uint32)) & 1
    return np.sort(lanes[active.astype(bool)].astype(np.int64))


def requests_per_row(k: KernelTrace, pc: int, line: int = 64) -> np.ndarray:
    """Line requests of each row of PC ``pc``."""
    rows = np.flatnonzero(k.insts["pc"] == pc)
    row, _, _ = coalesce(k, line, rows=rows)
    return np.bincount(np.searchsorted(rows, row), minlength=rows.size)


def grid_elements(base: int, rows: range, cols: range, pitch: int) -> np.ndarray:
    """Sorted byte addresses of a 2-D block of 4-byte elements."""
    r, c = np.meshgrid(np.array(rows), np.array(cols), indexing="ij")
    return np.sort((base + (r * pitch + c) * 4).ravel())


def assert_same_kernel(a: KernelTrace, b: KernelTrace) -> None:
    """Equal launches: every field, lane addresses expanded (explicit rows may be shared)."""
    assert (a.name, a.grid, a.block, a.shared_bytes) == (b.name, b.grid, b.block, b.shared_bytes)
    for f in INST_DTYPE.names:
        if f != "lanes":
            assert np.array_equal(a.insts[f], b.insts[f]), f
    assert np.array_equal(a.insts["lanes"] >= 0, b.insts["lanes"] >= 0)
    assert np.array_equal(lane_addresses(a), lane_addresses(b))
    assert np.array_equal(a.tail, b.tail)


# -- the building blocks ------------------------------------------------------------------


def test_program_matches_kernel_builder():
    """Batched statements, barriers included, give the rows KernelBuilder's own calls give."""
    def direct():
        kb = KernelBuilder("k", grid=(3,), block=(48,))
        pcs = PCs()
        kb.compute(3)
        kb.load(pcs("k:a"), 1000 + kb.gtid * 4, active=kb.tx < 24)
        kb.barrier()
        kb.compute(2)
        kb.store(pcs("k:b"), kb.tx * 4, space=Space.SHARED)
        kb.compute(5, active=kb.tx >= 32)
        kb.load(pcs("k:c"), 5000 + kb.tx * 8, width=8)
        kb.barrier()
        kb.compute(1)
        kb.load(pcs("k:ld_d"), 9000 + kb.gtid * 4, active=kb.tx > 40)
        kb.store(pcs("k:st_d"), kb.tx * 4, active=kb.tx > 40, space=Space.SHARED)
        kb.atomic(pcs("k:e"), 64 + kb.tx % 3 * 4, space=Space.SHARED)
        return kb.build()

    def batched():
        kb = KernelBuilder("k", grid=(3,), block=(48,))
        p = Program(kb, PCs(), "k")
        p.compute(3)
        p.load("a", 1000 + kb.gtid * 4, active=kb.tx < 24)
        p.barrier()
        p.compute(2)
        p.store("b", kb.tx * 4, space=Space.SHARED)
        p.compute(5, active=kb.tx >= 32)
        p.load("c", 5000 + kb.tx * 8, width=8)
        p.barrier()
        p.compute(1)
        p.stage("d", 9000 + kb.gtid * 4, kb.tx * 4, active=kb.tx > 40)
        p.atomic("e", 64 + kb.tx % 3 * 4, space=Space.SHARED)
        return p.build()

    a, b = direct(), batched()
    assert a.insts.tobytes() == b.insts.tobytes()
    assert np.array_equal(a.tail, b.tail)
    # Per CTA: warp 0 issues 5 rows, the atomic and 3 + 2 + 1 compute; warp 1 (no lane of
    # the first load, every lane of the staging) 4 + 3 rows and 3 + 2 + 5 + 1 compute: the 3
    # before the load are every warp's.
    assert b.n_instructions == 3 * (6 + 6 + 7 + 11)
    assert np.sum(a.insts["op"] == Op.BARRIER) == 2 * 6  # 2 barriers x 3 CTAs x 2 warps


@pytest.mark.parametrize("make", [
    lambda r: backprop_kernels(64, replicate=r),
    lambda r: needle_kernels(64, replicate=r),
    lambda r: srad_v2_kernels(48, 64, replicate=r),
    lambda r: srad_v2_kernels(16, 32, replicate=r),
    lambda r: hotspot_kernels(40, replicate=r),
    lambda r: hotspot_kernels(70, 3, 7, replicate=r),  # 3 launches, the last with 1 step
], ids=["bp", "nw", "srad", "srad-1-row", "hotspot", "hotspot-3-launches"])
def test_tiled_ctas_equal_whole_grid_build(make):
    tiled, whole = make(True), make(False)
    assert len(tiled) == len(whole)
    for a, b in zip(tiled, whole, strict=True):
        assert_same_kernel(a, b)


def test_cta_template_rejects_untileable_kernels():
    def squared(kb, shape, at):
        p = Program(kb, PCs(), "k")
        p.load("a", 4096 + at[0] ** 2 * 128 + kb.tx * 4)
        return p.build()

    def positional(kb, shape, at):  # control flow from `at`, which the template varies
        p = Program(kb, PCs(), "k")
        p.load("a", 4096 + kb.tx * 4, active=at[0] == 1)
        return p.build()

    def crossed(kb, shape, at):  # affine along each axis alone
        p = Program(kb, PCs(), "k")
        p.load("a", 4096 + at[0] * at[1] * 128 + kb.tx * 4)
        return p.build()

    with pytest.raises(RuntimeError, match="not affine"):
        cta_template("k", (32,), squared, (0,), (1,))
    with pytest.raises(RuntimeError, match="not affine"):
        cta_template("k", (32,), crossed, (0,), (1, 1))
    with pytest.raises(RuntimeError, match="depend on its position"):
        cta_template("k", (32,), positional, (0,), (0,))


# -- bp -----------------------------------------------------------------------------------


def test_bp_access_counts_and_l():
    forward, adjust = backprop_kernels(64)
    assert forward.name == "bpnn_layerforward_CUDA" and adjust.name == "bpnn_adjust_weights_cuda"
    assert forward.grid == (1, 4, 1) and forward.block == (16, 16, 1)
    tx, ty, _, by = coords(forward)
    # K1: tx == 0 loads input and stores the partial sum besides the weight load/store.
    assert np.array_equal(thread_access_counts(forward), np.where(tx == 0, 4, 2))
    # K2: 9 accesses (w += ..., oldw = ... re-reading every operand); thread (tx, 0) of CTA 0
    # adjusts the bias row too: 7 more. RDGC Table 4: L = 16.
    assert np.array_equal(thread_access_counts(adjust), 9 + 7 * ((ty == 0) & (by == 0)))
    assert thread_access_counts(adjust).max() == 16


def test_bp_footprint_against_arrays():
    mem = DeviceMemory()
    forward, _ = backprop_kernels(64, mem=mem)
    weights, partial, inputs = (mem.arrays[n][0] for n in
                                ("input_hidden_cuda", "hidden_partial_sum", "input_cuda"))
    w = grid_elements(weights, range(1, 65), range(1, 17), 17)  # rows 1..in, columns 1..hid
    expect_stores = np.sort(np.concatenate([w, partial + 4 * np.arange(64)]))
    assert np.array_equal(addresses(forward, Op.STORE), expect_stores)
    expect_loads = np.sort(np.concatenate([w, inputs + 4 * np.arange(1, 65)]))
    assert np.array_equal(addresses(forward, Op.LOAD), expect_loads)


def test_bp_shared_memory_and_barriers():
    forward, adjust = backprop_kernels(16)  # one CTA of 8 warps
    ops, space = forward.insts["op"], forward.insts["space"]
    assert np.sum(ops == Op.BARRIER) == 8 * 8  # 3 + 4 (reduction loop) + 1 per warp
    # Shared: st_input_node (warps with tx == 0: all 8), st_wm, ld_wm, ld_input_node,
    # st_wm_scaled (8 each); reduction i = 1..4 with ty % 2^i == 0: 8, 4, 2, 1 warps x 3;
    # ld_wm_out 8; ld_wm_col 8.
    assert np.sum(space == Space.SHARED) == 8 * 7 + 3 * (8 + 4 + 2 + 1)
    assert np.sum(adjust.insts["space"] == Space.SHARED) == 0


def test_bp_weight_rows_are_misaligned():
    """Each half-warp reads 16 floats of a 17-float row: 64 B that cross a 64 B line but once."""
    pcs, mem = PCs(), DeviceMemory()
    forward, _ = backprop_kernels(64, mem=mem, pcs=pcs)
    base = mem.arrays["input_hidden_cuda"][0]
    got = requests_per_row(forward, pcs("bpnn_layerforward_CUDA:ld_weight"))
    tx, ty, _, by = coords(forward)
    addr = base + ((16 * by + ty + 1) * 17 + tx + 1) * 4
    expect = [np.unique(a // 64).size for a in addr.reshape(-1, 32)]
    assert got.tolist() == expect and set(expect) <= {3, 4}


# -- nw -----------------------------------------------------------------------------------


def test_nw_launches_counts_and_l():
    launches = needle_kernels(64)
    names = [k.name for k in launches]
    assert names == ["needle_cuda_shared_1"] * 4 + ["needle_cuda_shared_2"] * 3
    assert [k.grid[0] for k in launches] == [1, 2, 3, 4, 3, 2, 1]
    for k in launches:
        tx = coords(k)[0]
        # 16 reference loads + 16 stores + north + west (+ the corner for tx == 0).
        assert np.array_equal(thread_access_counts(k), np.where(tx == 0, 35, 34))
        i = k.grid[0]
        assert np.sum(k.memory_mask(Space.GLOBAL)) == 35 * i
        # 16 + 1 + 1 + 1 stores, 31 wavefront cells x (4 loads + 1 store), 16 loads.
        assert np.sum(k.memory_mask(Space.SHARED)) == 190 * i
        assert np.sum(k.insts["op"] == Op.BARRIER) == 34 * i
        # Compute: 17 + 16 x 2 + 2 + 31 cells x (3 + 7) + 16 x 2 = 393 per CTA.
        assert k.n_instructions == (35 + 190 + 34 + 393) * i


def test_nw_footprint_every_score_once():
    mem = DeviceMemory()
    launches = needle_kernels(64, mem=mem)
    cols = 65
    reference, matrix = mem.arrays["referrence_cuda"][0], mem.arrays["matrix_cuda"][0]
    stored = np.sort(np.concatenate([addresses(k, Op.STORE) for k in launches]))
    assert np.array_equal(stored, grid_elements(matrix, range(1, 65), range(1, 65), cols))
    loads = np.concatenate([addresses(k, Op.LOAD) for k in launches])
    ref = np.sort(loads[loads < matrix])
    assert np.array_equal(ref, grid_elements(reference, range(1, 65), range(1, 65), cols))
    # Matrix reads: per tile its corner, west column and north row: 16 x 16 tiles x 33.
    assert np.sum(loads >= matrix) == 16 * 33


def test_nw_coalescing_row_versus_column():
    pcs = PCs()
    k = needle_kernels(64, pcs=pcs)[3]  # 4 CTAs
    # Reference rows: 16 consecutive ints, at most 2 lines of 64 B.
    assert set(requests_per_row(k, pcs("needle_cuda_shared_1:ld_ref5")).tolist()) <= {1, 2}
    # The west column: 16 lanes 65 ints apart, one line each.
    assert requests_per_row(k, pcs("needle_cuda_shared_1:ld_w")).tolist() == [16] * 4


def test_nw_rejects_bad_size():
    with pytest.raises(ValueError, match="n: must be a positive multiple of 16, not 40"):
        needle_kernels(40)


# -- srad -----------------------------------------------------------------------------------


def test_srad_access_counts_and_l():
    k1, k2 = srad_v2_kernels(48, 64)  # grid 4 x 3
    assert k1.grid == (4, 3, 1) and k2.grid == (4, 3, 1)
    _, _, bx, by = coords(k1)
    edge_y = (by == 0) | (by == 2)
    edge_x = (bx == 0) | (bx == 3)
    # K1: 5 J loads + 5 stores, one more load on a top/bottom and on a left/right CTA.
    assert np.array_equal(thread_access_counts(k1), 10 + edge_y + edge_x)
    assert thread_access_counts(k1).max() == 12  # RDGC Table 4
    # K2: J, C south, C east, C, N/S/W/E loads and the J store; bottom and right fix-ups.
    assert np.array_equal(thread_access_counts(k2), 9 + (by == 2) + (bx == 3))


def test_srad_k2_instructions_one_cta():
    """srad_cuda_2 on one CTA (it is the last row and column), counted from the source.

    Every warp: 21 memory rows outside the border paths, 2 loads in each of the e and
    interior paths and 5 barriers (30 rows); compute 13 + 2 + 9 + 2 + 9 around the loads,
    the four paths' conditions (4 x 2), the e and interior paths' moves (2 x 2), 7 + 3
    (57). Warp 7 (ty = 14, 15) also takes the se and s paths: 4 rows and 4 compute more.
    """
    _, k2 = srad_v2_kernels(16, 16)
    assert len(k2.insts) == 7 * 30 + 34
    assert k2.n_instructions == 7 * (30 + 57) + (34 + 61)


def test_srad_footprint_every_pixel_once():
    mem = DeviceMemory()
    k1, k2 = srad_v2_kernels(48, 64, mem=mem)
    image = [grid_elements(mem.arrays[a][0], range(48), range(64), 64)
             for a in ("C_cuda", "E_C", "W_C", "S_C", "N_C")]
    assert np.array_equal(addresses(k1, Op.STORE), np.sort(np.concatenate(image)))
    assert np.array_equal(addresses(k2, Op.STORE),
                          grid_elements(mem.arrays["J_cuda"][0], range(48), range(64), 64))


def test_srad_row_walk_coalesces():
    pcs = PCs()
    k1, _ = srad_v2_kernels(48, 64, pcs=pcs)
    # Two image rows of 16 floats, 64 B aligned: two 64 B lines per warp, one 128 B line.
    assert set(requests_per_row(k1, pcs("srad_cuda_1:ld_temp")).tolist()) == {2}
    assert set(requests_per_row(k1, pcs("srad_cuda_1:ld_temp"), 128).tolist()) == {2}
    assert set(requests_per_row(k1, pcs("srad_cuda_1:st_c"), 32).tolist()) == {4}


def test_srad_iterations_and_errors():
    ks = srad_v2_kernels(16, 16, 3)
    assert [k.name for k in ks] == ["srad_cuda_1", "srad_cuda_2"] * 3
    with pytest.raises(ValueError, match="niter: must be a positive integer, not 0"):
        srad_v2_kernels(16, 16, 0)
    with pytest.raises(ValueError, match="cols: must be a positive multiple of 16, not 20"):
        srad_v2_kernels(16, 20)


# -- hotspot ------------------------------------------------------------------------------


def test_hotspot_counts_footprint_and_l():
    mem = DeviceMemory()
    (k,) = hotspot_kernels(40, mem=mem)
    assert k.grid == (4, 4, 1)  # ceil(40 / (16 - 2 * 2))
    tx, ty, bx, by = coords(k)
    y, x = 12 * by - 2 + ty, 12 * bx - 2 + tx
    inside = (y >= 0) & (y < 40) & (x >= 0) & (x < 40)
    writes = inside & (tx >= 2) & (tx <= 13) & (ty >= 2) & (ty <= 13)
    assert np.array_equal(thread_access_counts(k), 2 * inside + writes)
    assert thread_access_counts(k).max() == 3  # RDGC Table 4
    # The pyramid's inner tiles cover the grid: every temperature written once.
    dst = mem.arrays["MatrixTemp1"][0]
    assert np.array_equal(addresses(k, Op.STORE), grid_elements(dst, range(40), range(40), 40))


def test_hotspot_launches_and_errors():
    assert [k.grid for k in hotspot_kernels(64, 1, 3)] == [(5, 5, 1)] * 3
    with pytest.raises(ValueError, match="pyramid_height: must be an integer from 1 to 7"):
        hotspot_kernels(64, 8)


# -- cfd ----------------------------------------------------------------------------------


def test_cfd_mesh_structure():
    nb = tet_mesh(5000, seed=1)
    assert nb.shape == (5000, 4) and nb.dtype == np.int32
    assert nb.min() >= FAR_FIELD and nb.max() < 5000
    assert np.any(nb == WING) and np.any(nb == FAR_FIELD)
    a = np.repeat(np.arange(5000), 4)[nb.ravel() >= 0]
    b = nb.ravel()[nb.ravel() >= 0]
    assert not np.any(a == b)
    # Face adjacency is symmetric: every interior face is listed by both its elements.
    assert np.array_equal(np.sort(a * 5000 + b), np.sort(b * 5000 + a))
    # The seed only orders each element's faces.
    other = tet_mesh(5000, seed=2)
    assert not np.array_equal(nb, other)
    assert np.array_equal(np.sort(nb, axis=1), np.sort(other, axis=1))
    with pytest.raises(ValueError, match="n_elements: must be a positive integer, not 0"):
        tet_mesh(0)


def test_cfd_counts_footprint_and_coalescing():
    nb = tet_mesh(1000, seed=0)
    mem, pcs = DeviceMemory(), PCs()
    k = flux_kernel(nb, mem=mem, pcs=pcs)
    nelr = 192 * 6  # 1000 elements padded to whole CTAs
    assert k.grid == (6, 1, 1) and k.block == (192, 1, 1)
    padded = np.concatenate([nb, np.repeat(nb[-1:], nelr - 1000, axis=0)])
    # 5 own variables, 4 x (neighbour, 3 normals), 5 per real neighbour, 5 fluxes.
    assert np.array_equal(thread_access_counts(k), 26 + 5 * np.sum(padded >= 0, axis=1))
    assert thread_access_counts(k).max() == 46
    fluxes = mem.arrays["fluxes"][0]
    assert np.array_equal(addresses(k, Op.STORE), fluxes + 4 * np.arange(5 * nelr))
    # Own variables: 32 consecutive floats per warp, two 64 B lines.
    assert set(requests_per_row(k, pcs("cuda_compute_flux:ld_var0")).tolist()) == {2}
    # Neighbour gathers touch the neighbours' variables only.
    gathered = addresses(k, Op.LOAD, pcs("cuda_compute_flux:ld_nbvar2_0"))
    variables = mem.arrays["variables"][0]
    expect = np.sort(variables + 4 * padded[:, 2][padded[:, 2] >= 0].astype(np.int64))
    assert np.array_equal(gathered, expect)


def test_cfd_determinism(tmp_path):
    spec = registry.get("rdgc/cfd")
    a, b, c = spec.build(0.005, 7), spec.build(0.005, 7), spec.build(0.005, 8)
    assert a.kernels[0].insts.tobytes() == b.kernels[0].insts.tobytes()
    assert np.array_equal(a.kernels[0].lane_addrs, b.kernels[0].lane_addrs)
    assert a.kernels[0].insts.tobytes() != c.kernels[0].insts.tobytes()
    save_workload(tmp_path / "a.npz", a)
    back = load_workload(tmp_path / "a.npz")
    assert back.kernels[0].insts.tobytes() == a.kernels[0].insts.tobytes()
    assert back.params == a.params


# -- the registered workloads ----------------------------------------------------------------

PAPER_L = {"bp": 16, "cfd": 83, "hotspot": 3, "nw": 8384, "srad": 12}
#: L the CUDA sources give (docs/workloads/rdgc_rodinia.md explains cfd and nw).
OUR_L = {"bp": 16, "cfd": 46, "hotspot": 3, "nw": 35, "srad": 12}


@pytest.mark.parametrize("name", sorted(PAPER_L))
def test_registered_small_scale(name):
    spec = registry.get(f"rdgc/{name}")
    assert spec.suite == "rdgc" and spec.paper["L"] == PAPER_L[name]
    wl = spec.build(0.02, 0)
    assert wl.name == f"rdgc/{name}"
    assert max(int(thread_access_counts(k).max()) for k in wl.kernels) == OUR_L[name]
    again = spec.build(0.02, 0)
    assert all(x.insts.tobytes() == y.insts.tobytes()
               for x, y in zip(wl.kernels, again.kernels, strict=True))


def test_scale_sets_sizes():
    assert registry.get("rdgc/nw").build(64 / 4096, 0).params["n"] == 64
    assert registry.get("rdgc/bp").build(1 / 64, 0).params["input_units"] == 4096
    assert registry.get("rdgc/srad").build(1 / 16, 0).params["rows"] == 128
    assert registry.get("rdgc/hotspot").build(1 / 16, 0).params["n"] == 64
    assert registry.get("rdgc/cfd").build(0.01, 0).params["elements"] == 1935


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PAPER_L))
def test_full_size(name):
    wl = registry.get(f"rdgc/{name}").build(1.0, 0)
    assert max(int(thread_access_counts(k).max()) for k in wl.kernels) == OUR_L[name]
