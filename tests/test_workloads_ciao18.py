"""ciao18 suite: Polybench and Rodinia workloads, their resources, APKI and F_smem (ciao18 Table II)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli.main import main
from golden.trace.builder import KernelBuilder
from golden.trace.coalesce import coalesce
from golden.trace.model import Op, Space, Workload, lane_addresses
from golden.workloads import ciao18_mars, ciao18_polybench, rdgc_syr2k, registry
from golden.workloads._common import DeviceMemory, PCs
from golden.workloads._mars import REGS as MARS_REGS
from golden.workloads._mars import SORT_REGS, MapPhase, prefix_sum_kernels
from golden.workloads._polybench import Run
from golden.workloads.ciao18_gaussian import gaussian_kernels
from golden.workloads.ciao18_mars import records_of
from golden.workloads.ciao18_regs import MARS_REGS as APP_REGS
from golden.workloads.ciao18_regs import REGS
from golden.workloads.stats import apki, ctas_per_sm, f_smem, thread_instructions

#: Small scale of every workload: a few hundred to a few thousand warps.
SMALL = {
    "atax": 1 / 64, "bicg": 1 / 64, "mvt": 1 / 64, "gesummv": 1 / 64, "syr2k": 1 / 64,
    "syrk": 0.25, "2dconv": 1 / 64, "corr": 1 / 16,
    "backprop": 1 / 64, "hotspot": 1 / 16, "lud": 0.4, "nn": 0.01, "nw": 1 / 64,
    "gaussian": 10 / 208, "kmeans": 512 / 389_376, "sm": 1 / 16,
    "kmn": 32 / 2096, "ii": 2 / 1024, "pvc": 64 / 144_300, "ss": 16 / 1024, "wc": 0.05,
}

#: Static shared memory per CTA of every kernel that has some (ptxas -v agrees).
SHARED = {"bpnn_layerforward_CUDA": 16 * 4 + 16 * 16 * 4, "calculate_temp": 3 * 16 * 16 * 4,
          "lud_diagonal": 16 * 16 * 4, "lud_perimeter": 3 * 16 * 16 * 4,
          "lud_internal": 2 * 16 * 16 * 4, "needle_cuda_shared_1": 17 * 17 * 4 + 16 * 16 * 4,
          "needle_cuda_shared_2": 17 * 17 * 4 + 16 * 16 * 4,
          "Mapper": 256 * 5 * 4, "uniformAdd": 16, "Reducer": 256 * 5 * 4,
          "bitonicSortSingleBlock_kernel": 256 * 16, "unitBitonicSortKernel": 256 * 16,
          "partBitonicSortKernel": 256 * 16}


@pytest.fixture(autouse=True)
def trace_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path_factory.getbasetemp() / "trace-cache"))


def small(name: str) -> Workload:
    return registry.build(f"ciao18/{name}", SMALL[name], 0, use_cache=False)


def distinct(wl: Workload):
    return list({id(k): k for k in wl.kernels}.values())


def test_suite_lists_table_ii():
    assert {n.split("/")[1] for n in registry.names("ciao18")} == set(SMALL)
    for name in SMALL:
        paper = registry.get(f"ciao18/{name}").paper
        assert set(paper) >= {"apki", "size", "n_warp", "f_smem", "barriers", "cls"}
    assert registry.get("ciao18/lud").paper["f_smem"] == 0.50
    assert registry.get("ciao18/gesummv").paper["apki"] == 136


@pytest.mark.parametrize("name", ["atax", "gesummv", "syrk", "2dconv", "corr"])
def test_polybench_is_the_rdgc_kernel_at_ciao18_size(name):
    wl = small(name)
    n = round(ciao18_polybench.SIZES[name] * SMALL[name])
    assert wl.name == f"ciao18/{name}" and wl.params["N"] == n
    module = ciao18_polybench._MODULES[name]
    ref = module.trace(Run(n, 1.0, "compiled", 2))
    assert ref.name == f"rdgc/{name}"
    # ciao18's CORR runs mean, std and reduce kernels before rdgc's corr_kernel.
    # (Their PCs then come later in the numbering; every other field is the same.)
    fields = [f for f in ref.kernels[0].insts.dtype.names if f != "pc"]
    for ours, theirs in zip(wl.kernels[-len(ref.kernels):], ref.kernels, strict=True):
        assert all(np.array_equal(ours.insts[f], theirs.insts[f]) for f in fields)
        assert ours.regs_per_thread == REGS[ours.name] and ours.shared_bytes == 0


def test_corr_program_hand_worked():
    wl = small("corr")  # M = N = 32: one live warp per 1-D launch
    assert [k.name for k in wl.kernels] == ["mean_kernel", "std_kernel", "reduce_kernel",
                                            "corr_kernel"]
    mean, std, red, _ = (int(k.memory_mask().sum()) for k in wl.kernels)
    assert mean == 1 + 2 * 32 + 1  # mean[j] = 0; (ld data, st mean) per trip; the division's st
    # std[j] = 0; (ld data, ld mean, st std) per trip; the division's and the sqrt's stores;
    # std[j] = 1.0 for the columns whose std is at most EPS: j = 1 and 2 at this size.
    assert std == 1 + 3 * 32 + 2 + 1
    one = wl.kernels[1].insts[wl.kernels[1].insts["pc"] == wl.kernels[1].insts["pc"].max()]
    assert one["mask"].tolist() == [0b11]
    assert red == 4 * 8 * 5  # 32 warps: ld data, ld mean, st, ld std, st (data forwarded)
    assert [k.regs_per_thread for k in wl.kernels] == [28, 26, 16, 32]


def test_atax_input_bytes():
    # A (N x N), x, y, tmp floats at N = 64.
    assert small("atax").params["input_bytes"] == 4 * (64 * 64 + 3 * 64)


def test_syr2k_emits_the_first_row_of_ctas_exactly():
    wl = small("syr2k")  # N = 32: a (1, 4) grid of 32 x 8 CTAs, one row of it emitted
    (k,) = wl.kernels
    assert k.grid == (1, 1, 1) and k.block == (32, 8, 1)
    ref = rdgc_syr2k.trace(Run(32, 1.0, "compiled")).kernels[0]
    assert ref.grid == (1, 4, 1)
    first = ref.insts[ref.insts["cta"] < 1]
    assert k.insts.tobytes() == first.tobytes()
    assert len(k.insts) == 8 * (2 + 5 * 32)  # 8 warps: c *= beta (ld, st), 5 per trip


def test_gaussian_counts_and_addresses():
    s = 10
    kernels = gaussian_kernels(s, DeviceMemory(), PCs())
    assert [k.name for k in kernels[:4]] == ["Fan1", "Fan2", "Fan1", "Fan2"]
    assert len(kernels) == 2 * (s - 1)
    fan1 = sum(int(k.memory_mask().sum()) for k in kernels[0::2])
    fan2 = sum(int(k.memory_mask().sum()) for k in kernels[1::2])
    assert fan1 == 3 * 9  # one warp per launch: ld a[i][t], ld a[t][t], st m[i][t]
    # Per t: 4 rows in each active CTA, 4 more in the active CTAs of row by = 0.
    assert fan2 == 48 + 32 + 24 + 24 + 24 + 12 + 8 + 8 + 8
    # Fan2 at t = 0, CTA (0, 0): lanes tx + 4 ty read a[tx + 1][ty] (row pitch 10 floats).
    k = kernels[1]
    a = 10 * 10 * 4  # a_cuda follows m_cuda (400 B, 256-aligned: 512)
    a_base = 0x1000_0000 + 512
    row = np.flatnonzero((k.insts["cta"] == 0) & (k.insts["op"] == Op.LOAD))[0]
    lanes = lane_addresses(k, [row])[0][:16].astype(np.int64)
    tx, ty = np.arange(16) % 4, np.arange(16) // 4
    assert a == 400 and (lanes == a_base + ((tx + 1) * 10 + ty) * 4).all()
    assert k.block == (4, 4, 1) and k.warps_per_cta == 1
    assert k.insts["mask"][row] == 0xFFFF  # half a warp


def test_kmeans_counts_spaces_and_coalescing():
    wl = small("kmeans")  # 512 points: a 2 x 2 grid of 256-thread CTAs, 16 of 32 warps live
    inv, point = wl.kernels[0], wl.kernels[1]
    assert len(wl.kernels) == 1 + 5 and all(k is point for k in wl.kernels[1:])
    assert inv.grid == (4, 1, 1) and point.grid == (2, 2, 1)
    assert int(inv.memory_mask().sum()) == 16 * 34 * 2
    assert int(point.memory_mask(Space.TEXTURE).sum()) == 16 * 5 * 34
    assert int(point.memory_mask(Space.CONST).sum()) == 16 * 5 * 34
    assert int(point.memory_mask().sum()) == 16  # membership stores only
    rows, _, _ = coalesce(inv, 128)
    per_row = np.bincount(rows, minlength=len(inv.insts))[inv.memory_mask()]
    ld = inv.insts["op"][inv.memory_mask()] == Op.LOAD
    assert (per_row[ld] == 32).all()  # input[pid * 34 + i]: 136 B apart, a line per lane
    assert (per_row[~ld] == 1).all()  # output[pid + npoints * i]: one 128 B line
    assert wl.params["input_bytes"] == 2 * 512 * 34 * 4 + 512 * 4 + 5 * 34 * 4 + 4 * 5 * 34 * 4 + 4 * 4


def test_nn_is_cuda_euclid():
    wl = small("nn")  # 428 records, 256-thread CTAs
    (k,) = wl.kernels
    assert k.name == "euclid" and k.block == (256, 1, 1) and k.grid == (2, 1, 1)
    assert int(k.memory_mask().sum()) == 3 * 14  # ld lat, ld lng, st dist in 14 live warps
    rows, _, _ = coalesce(k, 128)
    # 8-byte records: a full warp's load spans 256 B, two lines, its store one line; the last
    # warp's 12 lanes (records 416-427) span 96 B per load: a line each.
    assert len(rows) == 13 * (2 + 2 + 1) + 3


@pytest.mark.parametrize("name", sorted(SMALL))
def test_registers_and_shared_memory(name):
    regs = {**REGS, **MARS_REGS, **SORT_REGS, **APP_REGS.get(name, {})}
    for k in distinct(small(name)):
        assert k.regs_per_thread == regs[k.name]
        if k.name == "prescan":  # dynamic: 2 * threads ints plus one pad per 16
            assert k.shared_bytes == 4 * (2 * k.block[0] + 2 * k.block[0] // 16)
        else:
            assert k.shared_bytes == SHARED.get(k.name, 0)


def test_residency_and_f_smem_hand_worked():
    # backprop forward: 256 threads, 20 regs, 1088 B -> min(8, 1536/256, 32768/5120) = 6 CTAs.
    # hotspot: 256 threads, 35 regs -> 32768 / 8960 = 3 CTAs, 3 * 3072 / 49152 = 18.75 %.
    # lud_perimeter: 32 threads, 64 regs -> 8 CTAs (CTA limit), 8 * 3072 / 49152 = 50 %.
    # nw: 16 threads padded to a warp, 54 regs -> 8 CTAs, 8 * 2180 / 49152.
    bp, hs, lud, nw = (distinct(small(n)) for n in ("backprop", "hotspot", "lud", "nw"))
    assert ctas_per_sm(bp[0]) == 6 and f_smem(Workload("bp", bp))[0] == pytest.approx(6 * 1088 / 49152)
    assert ctas_per_sm(hs[0]) == 3 and f_smem(Workload("hs", hs)) == (0.1875, "calculate_temp")
    assert {k.name: ctas_per_sm(k) for k in lud} == {"lud_diagonal": 8, "lud_perimeter": 8,
                                                      "lud_internal": 4}
    assert f_smem(Workload("lud", lud)) == (0.5, "lud_perimeter")
    assert f_smem(Workload("nw", nw))[0] == pytest.approx(8 * 2180 / 49152)
    assert f_smem(small("atax")) == (0.0, "")
    # Registers are allocated per whole warp: 48 threads take 2 x 32 x 100 = 6400 registers.
    kb = KernelBuilder("k", grid=(1,), block=(48,), regs_per_thread=100, shared_bytes=5000)
    kb.load(0x100, 4 * kb.tid)
    k = kb.build()
    assert ctas_per_sm(k) == 5
    assert ctas_per_sm(k, {"threads": 1536, "ctas": 8, "registers": 65536,
                           "shared_bytes": 49152}) == 8  # the CTA limit, then shared (9)


def test_apki_hand_worked():
    kb = KernelBuilder("k", grid=(2,), block=(48,))  # warps of 32 and 16 threads per CTA
    kb.compute(3)
    kb.load(0x100, 0x1000 + 4 * kb.tid)  # one 128 B line per warp
    kb.compute(2)
    kb.store(0x108, 0x9000 + 128 * kb.tid, active=kb.tid < 8)  # 8 lines, warp 0 only
    wl = Workload("t", [kb.build()])
    # Per CTA: warp 0 issues 32 x (1 + 3) + 8 x (1 + 2); warp 1 16 x (1 + 3) and a tail of
    # 2 compute instructions over 16 threads.
    assert thread_instructions(wl) == 2 * (128 + 24 + 64 + 32)
    assert apki(wl) == pytest.approx(1000 * 2 * (1 + 1 + 8) / 496)
    assert apki(wl, line_size=32) == pytest.approx(1000 * 2 * (4 + 2 + 8) / 496)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_deterministic(name):
    a, b = small(name), small(name)
    assert len(a.kernels) == len(b.kernels)
    for x, y in zip(a.kernels, b.kernels, strict=True):
        assert x.insts.tobytes() == y.insts.tobytes()
        assert x.lane_addrs.tobytes() == y.lane_addrs.tobytes()
        assert x.tail.tobytes() == y.tail.tobytes()


#: The generators' smoke runs use the interleaver; with the timing model (the default) the Mars
#: sort's fixed 262,144-thread helper grids take minutes each, too long for every CI run.
TIMING = ("--timing", "none")


@pytest.mark.parametrize("name", sorted(SMALL))
def test_runs_through_gpucache_run(name, tmp_path, capsys):
    out = tmp_path / "r.json"
    status = main(["run", "--workload", f"ciao18/{name}", "--scale", f"{SMALL[name]!r}",
                   "--config", "ciao18", "--json", str(out), "--no-progress", *TIMING])
    assert status == 0, capsys.readouterr().err
    res = json.loads(out.read_text())
    assert res["workload"]["name"] == f"ciao18/{name}"
    assert res["totals"]["accesses"] > 0 and res["totals"]["instructions"] > 0


def test_stats_table_prints_paper_beside_ours(capsys):
    status = main(["workloads", "--suite", "ciao18", "--stats", "--scale", "0.0625",
                   "--no-progress", "ciao18/hotspot"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    header = out[1].split("  ")
    header = [h.strip() for h in header if h.strip()]
    for h in ("APKI", "paper APKI", "F_smem", "paper F_smem", "paper N_warp", "paper bar.",
              "input MiB", "paper input"):
        assert h in header
    assert header.index("paper APKI") == header.index("APKI") + 1
    row = out[3]
    assert "18.8%" in row and "19%" in row and "calculate_temp" in row


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SMALL))
def test_paper_size(name):
    wl = registry.build(f"ciao18/{name}", 1.0, 0, use_cache=False)
    expected = {"atax": 4 * (4096**2 + 3 * 4096), "gaussian": 8 * 208**2 + 4 * 208,
                "lud": 80 * 80 * 4, "nw": 2 * 2049**2 * 4}
    if name in expected:
        assert wl.params["input_bytes"] == expected[name]
    assert wl.n_instructions > 0


# -- Mars ------------------------------------------------------------------------------


def test_mars_records_cut_at_line_ends():
    start = np.arange(200) * 10  # 200 words of 9 letters: newlines at 10k + 9
    first, sizes = records_of(start, np.full(200, 9))
    # 1024 bytes, then on to the newline at 1029; the rest (970 bytes) is the last record.
    assert first.tolist() == [0, 103] and sizes.tolist() == [1030, 970]


def test_mars_prefix_sum_launches():
    pcs = PCs()
    ks = prefix_sum_kernels(1024, 0x1000, 0x2000, 0x3000, pcs)
    assert [(k.name, k.grid[0], k.block[0], k.shared_bytes) for k in ks] == [
        ("prescan", 2, 256, 4 * (512 + 32)), ("prescan", 1, 1, 8), ("uniformAdd", 2, 256, 16)]
    # Per CTA: two loads and two stores of 256 lanes (8 warps each) and thread 0's block sum.
    assert int(ks[0].memory_mask().sum()) == 2 * (4 * 8 + 1)
    assert int((ks[0].insts["op"] == Op.BARRIER).sum()) == 2 * 8 * (9 + 9 + 1)
    ks = prefix_sum_kernels(768, 0x1000, 0x2000, 0x3000, pcs)  # a partial last block of 256
    assert [(k.name, k.grid[0], k.block[0]) for k in ks] == [
        ("prescan", 1, 256), ("prescan", 1, 128), ("prescan", 1, 1), ("uniformAdd", 1, 256),
        ("uniformAdd", 1, 128)]
    (k,) = prefix_sum_kernels(256, 0x1000, 0x2000, 0x3000, pcs)
    assert (k.block[0], k.shared_bytes) == (128, 4 * (256 + 16))
    (k,) = prefix_sum_kernels(3, 0x1000, 0x2000, 0x3000, pcs)  # isNP2: 2 threads, 4 slots
    ld_b = k.insts[k.insts["pc"] == pcs("prescan:ld_b")]
    st_b = k.insts[k.insts["pc"] == pcs("prescan:st_b")]
    assert k.block[0] == 2 and ld_b["mask"].tolist() == [0b01] and st_b["mask"].tolist() == [0b01]
    with pytest.raises(ValueError, match="n: must be"):
        prefix_sum_kernels(512 * 512 + 1, 0, 0, 0, pcs)


def test_string_match_hand_worked():
    text = np.frombuffer(b"org\nxy\norg\nabc\n", np.uint8).copy()
    start, length = np.array([0, 4, 7, 11]), np.array([3, 2, 3, 3])
    first, sizes = records_of(start, length)
    assert first.tolist() == [0] and sizes.tolist() == [15]
    mem, pcs = DeviceMemory(), PCs()
    d_file, d_kw = mem.alloc("d_filebuf", 15), mem.alloc("d_keyword", 4)
    phase = MapPhase(mem, pcs, 1, 16, 16, 4, 4, {"MapperCount": 28, "Mapper": 50})
    fn = ciao18_mars._string_match(text, start, length, first, sizes, d_file, d_kw)
    kernels, counts = phase.kernels(fn, fn)
    assert counts.tolist()[:1] == [2] and int(counts.sum()) == 2  # both "org", not "abc"
    assert [k.name for k in kernels] == ["MapperCount", "prescan", "prescan", "prescan", "Mapper"]
    # MapperCount, one live thread: the record entry, key and value structs, 15 byte loads
    # scanning 4 words (letters and newlines), the compares (4 evaluations of s and k for each
    # "org", 1 for "abc"), two emits of 3 loads and 3 stores.
    count = kernels[0]
    assert int(count.memory_mask().sum()) == 3 + 15 + 2 * (4 + 4 + 1) + 2 * 6
    # Mapper: 5 prologue accesses, the same walk, and per emit 3 loads, 4 + 4 copied bytes
    # (global stores; their loads come from shared memory), 7 more global accesses.
    mapper = kernels[-1]
    assert int(mapper.memory_mask().sum()) == 5 + 3 + 15 + 18 + 2 * (3 + 8 + 7)
    assert int(mapper.memory_mask(Space.SHARED).sum()) == 2 * (2 + 8)
    assert mapper.shared_bytes == 256 * 20 and mapper.regs_per_thread == 50
    keys = mapper.insts[mapper.insts["pc"] == pcs("Mapper:st_key_byte")]
    assert keys["base"].tolist() == [phase.arrays["interKeys"] + i for i in range(8)]



def test_string_match_reads_past_its_record():
    # 200 words of 9 letters but words 113 and 115, which are "org".
    length = np.full(200, 9)
    length[[113, 115]] = 3
    start = np.concatenate(([0], np.cumsum(length + 1)[:-1]))
    text = np.full(int(start[-1] + 10), ord("a"), np.uint8)
    text[start + length] = ord("\n")
    for w in (113, 115):
        text[start[w]:start[w] + 3] = np.frombuffer(b"org", np.uint8)
    first, sizes = records_of(start, length)
    assert first.tolist() == [0, 103] and sizes.tolist() == [1030, len(text) - 1030]
    mem, pcs = DeviceMemory(), PCs()
    d_file, d_kw = mem.alloc("d_filebuf", len(text)), mem.alloc("d_keyword", 4)
    phase = MapPhase(mem, pcs, 2, 16, 16, 4, 4, {"MapperCount": 28, "Mapper": 50})
    fn = ciao18_mars._string_match(text, start, length, first, sizes, d_file, d_kw)
    kernels, counts = phase.kernels(fn, fn)
    # Thread 0 counts letters, not bytes: 1029 letters after word 114 are fewer than its 1030
    # bytes, so it scans word 115 too (1032) but breaks before comparing it: one match.
    # Thread 1 starts at word 103 and runs to the end of the file: both matches.
    assert counts.tolist()[:2] == [1, 2]
    k = kernels[0]
    rows = k.insts[k.insts["pc"] == pcs("MapperCount:ld_char")]
    lane = [int(((rows["mask"] >> i) & 1).sum()) for i in (0, 1)]
    assert lane == [114 * 10 + 2 * 4, 95 * 10 + 2 * 4]  # letters and newlines, words 0-115


def test_sm_text_follows_the_seed():
    a = registry.build("ciao18/sm", SMALL["sm"], 0, use_cache=False)
    b = registry.build("ciao18/sm", SMALL["sm"], 1, use_cache=False)
    assert a.params["records"] > 0 and a.params["emitted"] > 0
    assert a.kernels[0].insts.tobytes() != b.kernels[0].insts.tobytes()
