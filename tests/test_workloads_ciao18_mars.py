"""ciao18 Mars: the group (MarsSort.cu) and reduce phases, and the KMN, II, PVC, SS, WC apps."""

from __future__ import annotations

import numpy as np
import pytest

from golden.trace.builder import KernelBuilder
from golden.trace.coalesce import coalesce
from golden.trace.model import Op, Space
from golden.workloads import ciao18_ii, ciao18_kmn, ciao18_pvc, ciao18_ss, ciao18_wc, registry
from golden.workloads._common import DeviceMemory, PCs
from golden.workloads._mars import (
    GroupPhase,
    Groups,
    MapPhase,
    Records,
    ReducePhase,
    Strings,
    block_sum_arrays,
    prefix_sum_kernels,
)
from golden.workloads.ciao18_regs import MARS_REGS

REGS = MARS_REGS["pvc"]


def records(keys: np.ndarray, mem: DeviceMemory) -> Records:
    """``n`` 4-byte keys (the tag is the key) with 8-byte values."""
    n = len(keys)
    off = np.arange(n, dtype=np.int64)
    return Records(mem.alloc("k", 4 * n), mem.alloc("v", 8 * n), mem.alloc("o", 16 * n),
                   4 * off, np.full(n, 4), 8 * off, np.full(n, 8), np.asarray(keys, np.int64))


def int_compare(keys):
    """One 4-byte load of each key; ascending."""
    def compare(kb, pc, on, ra, rb, addr_a, addr_b):
        kb.load(pc("cmp_a"), addr_a, active=on)
        kb.load(pc("cmp_b"), addr_b, active=on)
        return np.sign(keys[ra] - keys[rb])
    return compare


def group(keys, **kw):
    keys = np.asarray(keys, np.int64)
    mem, pcs = DeviceMemory(), PCs()
    ph = GroupPhase(mem, pcs, records(keys, mem), int_compare(keys), REGS, **kw)
    kernels, g = ph.kernels()
    return kernels, g, pcs


def rows_of(kernels, name, pc=None):
    return sum(int(((k.insts["pc"] == pc) if pc else k.memory_mask()).sum())
               for k in kernels if k.name == name)


@pytest.mark.parametrize("n", [1, 100, 256, 257, 1000])
def test_sort_groups_keys(n):
    rng = np.random.default_rng(n)
    keys = rng.integers(0, max(1, n // 4), n)
    kernels, g, _ = group(keys)
    assert np.array_equal(keys[g.order], np.sort(keys))  # ascending, every record once
    assert sorted(g.order.tolist()) == list(range(n))
    distinct = np.unique(keys)
    assert len(g.start) == len(distinct) and (keys[g.order[g.start]] == distinct).all()
    assert np.array_equal(g.end - g.start, np.bincount(keys)[distinct])
    names = [k.name for k in kernels]
    if n <= 256:  # bitonicSortSingleBlock_kernel: 8 merge sizes, 36 steps, 37 barriers a warp
        assert names[0] == "bitonicSortSingleBlock_kernel" and "bitonicKernel" not in names
        k = kernels[0]
        assert int((k.insts["op"] == Op.BARRIER).sum()) == 8 * 37
    else:  # initialize, then log2(n_r) * (log2(n_r) + 1) / 2 bitonicKernel launches
        levels = (n - 1).bit_length()
        assert names[0] == "initialize_kernel"
        assert names.count("bitonicKernel") == levels * (levels + 1) // 2


def test_bitonic_kernel_counts_and_coalescing():
    n = 1024  # n_r = 1024: 4 CTAs of 256 threads, 32 warps
    keys = np.arange(n)[::-1].copy()  # descending: data-dependent swaps
    kernels, g, pcs = group(keys)
    steps = [k for k in kernels if k.name == "bitonicKernel"]
    assert len(steps) == 55
    # (k, j) = (2, 1) first: every warp has lanes with ixj > i (half of them); j >= 32 later:
    # only the warps whose (i & j) == 0 run the loads.
    first, wide = steps[0], steps[-10]  # the last k = 1024 stage starts at j = 512
    ld = pcs("bitonicKernel:ld_R")
    assert int((first.insts["pc"] == ld).sum()) == 32
    assert int((wide.insts["pc"] == ld).sum()) == 16
    rows, _, _ = coalesce(wide, 128)
    per_row = np.bincount(rows, minlength=len(wide.insts))[wide.insts["pc"] == ld]
    assert (per_row == 4).all()  # 32 lanes x 16 B: 4 lines
    # The compare's two loads run on the same lanes (no padding at n = n_r).
    assert int((first.insts["pc"] == pcs("bitonicKernel:cmp_a")).sum()) == 32
    # initialize_kernel: one launch of 512 x 512 threads, 1024 x 16 B stores (32 warps).
    init = kernels[0]
    assert init.grid == (512, 1, 1) and init.block == (512, 1, 1)
    assert int(init.memory_mask().sum()) == 32


def test_padding_records_sort_first():
    keys = np.arange(300)[::-1].copy()  # n_r = 512: 212 padding records
    kernels, g, pcs = group(keys)
    assert np.array_equal(g.order, np.arange(300)[::-1])
    # The compare never runs on a padding record: its loads are fewer than the steps' lanes.
    ld = sum(int(k.insts["mask"][k.insts["pc"] == pcs("bitonicKernel:ld_R")].astype(np.uint64)
                 .view(np.uint64).sum() > 0) for k in kernels if k.name == "bitonicKernel")
    assert ld == 45


def test_scatter_and_boundaries():
    keys = np.array([3, 1, 3, 2, 1, 3])
    kernels, g, pcs = group(keys)
    assert g.start.tolist() == [0, 2, 3] and g.end.tolist() == [2, 3, 6]
    # copyChunks copies 8 value bytes and 4 key bytes a record, byte by byte.
    assert rows_of(kernels, "copyChunks_kernel", pcs("copyChunks_kernel:st_byte")) == 8 + 4
    k = next(k for k in kernels if k.name == "copyChunks_kernel")
    assert k.grid == (512, 1, 1) and k.block == (128, 1, 1)
    assert g.records.key_off.tolist() == [0, 4, 8, 12, 16, 20]
    # getChunkBoundary compares 5 neighbour pairs (position 0 is a start without compare).
    kb = next(k for k in kernels if k.name == "getChunkBoundary_kernel")
    ld = kb.insts[kb.insts["pc"] == pcs("getChunkBoundary_kernel:cmp_a")]
    assert ld["mask"].tolist() == [0b111110]
    # writeBoundary stores the 3 starts; setBoundaryInt2 loads 3 x, 2 y and stores 3 ranges.
    w = next(k for k in kernels if k.name == "writeBoundary_kernel")
    assert w.insts["mask"][w.insts["pc"] == pcs("writeBoundary_kernel:st")].tolist() == [0b1101]


def test_block_sums_and_multilevel_scan():
    mem = DeviceMemory()
    assert block_sum_arrays(mem, 512, "s") == []
    sums = block_sum_arrays(mem, 512 * 512 + 1, "t")  # 513 blocks, then 2, then 1
    assert [mem.sizes()[n] for n in ("t", "t1")] == [4 * 513, 4 * 2]
    ks = prefix_sum_kernels(512 * 512 + 1, 0x1000, 0x2000, sums, PCs())
    assert [(k.name, k.grid[0], k.block[0]) for k in ks][:3] == [
        ("prescan", 512, 256), ("prescan", 1, 1), ("prescan", 1, 256)]


def test_reduce_phase_one_key_per_thread():
    keys = np.array([5, 5, 7, 9, 9, 9])
    mem, pcs = DeviceMemory(), PCs()
    _, g = GroupPhase(mem, pcs, records(keys, mem), int_compare(keys), REGS).kernels()

    def count(kb, pcs, prefix, tid, live, em, groups: Groups):
        em.emit(live)

    def reduce(kb, pcs, prefix, tid, live, em, groups: Groups):
        s = groups.records
        first = groups.start[np.minimum(tid, 2)]
        em.emit(live, s.keys + s.key_off[first], s.vals + s.val_off[first],
                key_space=Space.GLOBAL, val_space=Space.GLOBAL, tag=s.tag[first])

    ks, out = ReducePhase(mem, pcs, g, 4, 8, REGS).kernels(count, reduce)
    assert [k.name for k in ks] == ["ReducerCount"] + ["prescan"] * 3 + ["Reducer"]
    assert out.tag.tolist() == [5, 7, 9] and out.key_off.tolist() == [0, 4, 8]
    red = ks[-1]
    assert red.shared_bytes == 256 * 20 and red.regs_per_thread == REGS["Reducer"]
    # One warp, 3 live lanes: the prologue's 4 loads and 2 field stores, 2 key loads; the emit's
    # 4 loads, 4 + 8 copied bytes (a load and a store each), 4 keyValOffsets updates,
    # curIndex, 2 x (2 loads + store) for .y and .w, curIndex's load and store.
    assert int(red.memory_mask().sum()) == 6 + 2 + 4 + 2 * 12 + 4 + 1 + 6 + 2
    cnt = ks[0]
    assert int(cnt.memory_mask().sum()) == 2 + 6  # range and entry loads, 3 counters


def test_strings_hash_and_compare():
    s = Strings([b"ab", b"abc", b"b"])
    # hash_func("ab", 2): h = 2; (2 << 4) ^ 0 ^ 'a' = 65; (65 << 4) ^ 0 ^ 'b' = 1138.
    assert s.hash(s.length).tolist()[0] == 1138
    # With the terminator (len 3): h = 3; 48 ^ 'a' = 81; 1296 ^ 'b' = 1394; 1394 << 4 ^ 0.
    assert s.hash().tolist()[0] == 22304
    kb = KernelBuilder("k", grid=(1,), block=(32,))
    on = np.arange(32) < 3
    a, b = np.array([0, 1, 2] + [0] * 29), np.array([1, 1, 0] + [0] * 29)
    got = s.compare(kb, lambda label: 0x100 if label.endswith("a") else 0x108, on, a, b,
                    0x1000 + 16 * a, 0x2000 + 16 * b)
    assert got[:3].tolist() == [-1, 0, 1]  # "ab" < "abc", equal, "b" > "ab"
    k = kb.build()
    # Trips: lcp + 1 = 3, 4, 1: rows for trips 0..3 of lanes (0, 1, 2), (0, 1), (0, 1), (1).
    assert k.insts["mask"][k.insts["pc"] == 0x100].tolist() == [0b111, 0b011, 0b011, 0b010]


def test_kmeans_iterations_converge():
    rng = np.random.default_rng(3)
    pts = rng.integers(0, 100, (200, 3))
    calls = list(ciao18_kmn.kmeans_iterations(pts, 24))
    *_, (before, after, _, centres) = calls
    assert np.array_equal(before, after)  # the last call moves nothing
    for c in np.unique(after):
        assert (centres[c] == pts[after == c].sum(axis=0) // (after == c).sum()).all()


def test_kmn_map_counts():
    wl = registry.build("ciao18/kmn", 32 / 2096, 0, use_cache=False)
    mapper = wl.kernels[4]
    assert mapper.name == "Mapper" and wl.params["points"] == 32
    # One live warp: the prologue (4 loads, a store) and the record entry; 4 key-struct, 1
    # clusterId and 3 value-struct loads; 3 x 2 loads for minDist and 24 x 3 x 2 for the
    # centres; the first call moves points (*change and clusterId stores); the emit: 3 loads,
    # 24 + 24 bytes copied from global memory (a load and a store each), 7 more accesses.
    total = int(mapper.memory_mask().sum())
    assert total == 5 + 1 + 8 + 6 + 144 + 2 + 3 + 2 * 48 + 7
    assert wl.params["mapreduce_calls"] >= 2
    # Points, cluster ids, 24 centres, the flag; 24 + 24 + 16 bytes of records a point.
    assert wl.params["input_bytes"] == 32 * (12 + 4) + 24 * 3 * 4 + 4 + 32 * 64


def test_ss_map_coalescing():
    wl = registry.build("ciao18/ss", 16 / 1024, 0, use_cache=False)
    assert wl.params["records"] == 120  # 16 documents: 16 * 15 / 2 pairs
    assert wl.params["input_bytes"] == 16 * 256 * 4 + 120 * (8 + 16 + 16)
    mapper = next(k for k in wl.kernels if k.name == "Mapper")
    rows, _, _ = coalesce(mapper, 128)
    per_row = np.bincount(rows, minlength=len(mapper.insts))
    ld16 = (mapper.insts["width"] == 16) & (mapper.insts["op"] == Op.LOAD) & mapper.memory_mask()
    # Warp 0 holds pairs (0, 1..15), (1, 2..15), (2, 3..4): a[i] of 3 documents, b[i] of 15.
    w0 = ld16 & (mapper.insts["warp"] == 0) & (mapper.insts["cta"] == 0)
    pcs, counts = np.unique(mapper.insts["pc"][w0], return_counts=True)
    a_pc, b_pc = pcs[counts == 64]  # the loop's float4 loads of a and b (a first)
    assert per_row[w0 & (mapper.insts["pc"] == a_pc)].max() == 3  # documents 0, 1, 2
    assert per_row[w0 & (mapper.insts["pc"] == b_pc)].max() == 15  # documents 1 to 15


def test_pvc_log_and_hash_loop():
    text, start, url, ip = ciao18_pvc.make_log(3, 0)
    lines = text.decode().splitlines()
    assert len(lines) == 3 and lines[0].startswith("http://www.abcdefg.com/")
    u, i, n = lines[0].split("\t")
    assert len(u) == url[0] and len(i) == ip[0] and 0 <= int(n) < 1000
    wl = registry.build("ciao18/pvc", 64 / 144_300, 0, use_cache=False)
    names = [k.name for k in wl.kernels]
    assert names.count("Mapper") == 2 and names.count("Reducer") == 1
    assert wl.params["entries_reduced"] == 64  # no two entries alike
    assert wl.params["input_bytes"] == wl.params["file_bytes"] + 1 + 64 * (16 + 8 + 16)
    m0 = wl.kernels[names.index("Mapper")]
    one_byte = (m0.insts["width"] == 1) & (m0.insts["op"] == Op.LOAD)
    # hash_func walks each entry (its size counts the newline turned '\0'): rows per warp are
    # the longest entry of the warp; two warps of 32.
    sizes = np.diff(np.append(ciao18_pvc.make_log(64, 0)[1], len(ciao18_pvc.make_log(64, 0)[0])))
    hash_rows = int(sizes[:32].max() + sizes[32:].max())
    assert int(one_byte.sum()) == hash_rows + 2 * 24  # and the emits' 16 + 8 copied bytes


def test_wc_records_and_walk():
    b = np.frombuffer(b"ABCDEFG HI  JKLMNOPQ\0", np.uint8).copy()
    assert ciao18_wc.walk(b, 0, len(b)) == [(0, 7, 1), (8, 10, 2), (12, 20, 0)]
    buf = np.frombuffer(b"A" * 2047 + b"BC D" + b"E" * 10 + b"\0", np.uint8).copy()
    # 2048 bytes end inside "BC": on to the space (2049), which becomes '\0'; the rest
    # (fileSize - offset) is the last record.
    assert ciao18_wc.records_of(buf) == [(0, 2050), (2050, 12)]
    assert buf[2049] == 0


def test_ii_state_machine():
    html = b'<p>x <a href="http://u">y</a>\n'
    trips = ciao18_ii.trips_of(html, 0, len(html))
    kinds = [t[0] for t in trips]
    assert trips[8] == (ciao18_ii.HREF, 8, 5)  # 'h' then "href\0" against "href="
    assert trips[11] == (ciao18_ii.LINK, 14, 8)  # the URL's 8 bytes up to the quote
    assert kinds.count(ciao18_ii.PLAIN) == len(trips) - 2
    assert ciao18_ii.records_of(10, np.array([3, 9])) == [(0, 10)]


def test_ss_sort_is_descending():
    rng = np.random.default_rng(0)
    m = rng.integers(0, 100, (12, 256)).astype(np.float32)
    _, _, res = ciao18_ss.similarity(m)
    mem, pcs = DeviceMemory(), PCs()
    phase = MapPhase(mem, pcs, len(res), 8, 16, 4, 8, MARS_REGS["ss"])
    inter = Records(mem.alloc("k", 4 * len(res)), mem.alloc("v", 8 * len(res)), mem.alloc("o", 16 * len(res)),
                    4 * np.arange(len(res)), np.full(len(res), 4), 8 * np.arange(len(res)),
                    np.full(len(res), 8), np.arange(len(res)))
    assert phase.records == 66
    _, g = GroupPhase(mem, pcs, inter, ciao18_ss.ss_compare(res), MARS_REGS["ss"]).kernels()
    assert (np.diff(res[g.order]) <= 1e-7).all()


@pytest.mark.slow
def test_sort_chunk_path():
    # More than 256 K records: unitBitonicSortKernel per chunk of 64 K, bitonicKernel for
    # j >= 256, partBitonicSortKernel per chunk for the rest of every merge.
    n = 256 * 1024 + 5
    keys = np.random.default_rng(1).integers(0, 1000, n)
    kernels, g, _ = group(keys)
    assert np.array_equal(keys[g.order], np.sort(keys))
    names = [k.name for k in kernels]
    assert names.count("unitBitonicSortKernel") == 8  # n_r = 512 K: 8 chunks
    # k = 512 .. 512 K (11 merges): j from k / 2 down to 256 (1 .. 11 launches), 8 chunks each.
    assert names.count("bitonicKernel") == sum(range(1, 12))
    assert names.count("partBitonicSortKernel") == 8 * 11
