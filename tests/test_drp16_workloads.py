"""drp16's workloads: GPU caches, CUDA emulators, game-title and SPEC stand-ins, Table 3 mixes."""

import numpy as np
import pytest

from golden.errors import InputError
from golden.llc import cuda
from golden.llc.cpu_streams import PROFILES, cpu_stream, footprint_lines
from golden.llc.frames import TITLES, Title, frame_stream
from golden.llc.gpu_caches import READ_ONLY, WRITE_BACK, WRITE_EVICT, GpuCache, GpuCaches, scaled_size
from golden.llc.mixes import CPU_REFERENCES, MIXES, build_mix, get_mix, mix_names
from golden.llc.streams import BLITTER, COLOR, DYNTEX, SHADER, TEXTURE

S = 1 / 64


def test_gpu_caches_write_back_read_only_and_write_evict():
    # One set of 2 ways each.
    c = GpuCaches([GpuCache("wb", 128, 2, WRITE_BACK), GpuCache("ro", 128, 2, READ_ONLY),
                   GpuCache("we", 128, 2, WRITE_EVICT)])
    # Write-back: W 1 and W 2 allocate with no LLC read; R 3 reads the LLC and evicts dirty 1.
    out = c.access(0, COLOR, [2, 2, 1], [1, 2, 3])
    assert out[["op", "line"]].tolist() == [(1, 3), (2, 1)]
    assert c.flush(0, COLOR)[["op", "line"]].tolist() == [(2, 2)]  # 2 is dirty, 3 is clean
    assert c.flush(0, COLOR).size == 0
    # Read-only: misses read the LLC once.
    assert c.access(1, TEXTURE, 1, [5, 5, 6, 5])["line"].tolist() == [5, 6]
    # Write-evict: a store drops the copy and goes to the LLC; the next load misses.
    out = c.access(2, SHADER, [1, 2, 1], [7, 7, 7])
    assert out[["op", "line"]].tolist() == [(1, 7), (2, 7), (1, 7)]
    assert scaled_size(32 << 10, 32, 1 / 16) == 2048 and scaled_size(32 << 10, 8, 1 / 1024) == 512


def test_cpu_stand_ins_follow_their_profiles_and_seed():
    n = 40_000
    a, b = cpu_stream("libquantum", n, S, seed=3), cpu_stream("libquantum", n, S, seed=3)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, cpu_stream("libquantum", n, S, seed=4))
    # libquantum: the cyclic sweep's lines are the footprint's first n_refs / 2 lines (it wraps later).
    lines = footprint_lines(32, S)
    assert lines == 32 * 16384 // 64
    sweep = a["line"][a["line"] < lines]
    m = sweep.size
    assert np.array_equal(np.unique(sweep), np.arange(min(lines, -(-m // 2))))
    # Every component stays inside its footprint; components are disjoint.
    for app, comps in PROFILES.items():
        rows = cpu_stream(app, 5000, S, seed=1, base=1 << 30)
        top = (1 << 30) + sum(footprint_lines(c.mb, S) + 64 for c in comps)
        assert rows["line"].min() >= 1 << 30 and rows["line"].max() < top, app
        assert set(np.unique(rows["op"])) <= {1, 2}
    with pytest.raises(InputError, match="unknown CPU application 'gobmk'"):
        cpu_stream("gobmk", 10)


def test_frames_are_seeded_and_blit_exactly_twice_the_screen_per_frame(monkeypatch):
    # A small title keeps the test fast; the generator is the one every title uses.
    t = Title("OpenGL", 2, 512, 256, 8, 2.0, 20, 256)
    monkeypatch.setitem(TITLES, "tiny-gl", t)
    monkeypatch.setitem(TITLES, "tiny-dx", t._replace(api="DirectX", bloom=True))
    a = frame_stream("tiny-gl", S, seed=5)
    assert np.array_equal(a, frame_stream("tiny-gl", S, seed=5))
    assert not np.array_equal(a, frame_stream("tiny-gl", S, seed=6))
    bw, bh = round(t.width * 0.125 / 4), round(t.height * 0.125 / 4)
    blit = a[a["stream"] == BLITTER]
    # OpenGL: every frame the blitter reads the colour buffer and writes its copy, line by line.
    assert (blit["op"] == 1).sum() == (blit["op"] == 2).sum() == t.frames * bw * bh
    assert np.unique(blit["line"]).size == 2 * bw * bh
    # Colour written in the main pass is read back as dynamic texture (from the copy).
    copy = set(blit["line"][blit["op"] == 2].tolist())
    assert copy <= set(a["line"][a["stream"] == DYNTEX].tolist())
    # DirectX samples the render target directly: no blits; its colour lines are read as dynamic texture.
    d = frame_stream("tiny-dx", S, seed=5)
    assert (d["stream"] == BLITTER).sum() == 0
    assert set(d["line"][(d["stream"] == COLOR) & (d["op"] == 2)].tolist()) & set(
        d["line"][d["stream"] == DYNTEX].tolist())


def test_cuda_emulators_closed_form_counts():
    red = cuda.cuda_stream("reduction", S)
    n = 256  # 16 K elements x 1/64
    # 100 launches; each reads every input line once (the L1s are invalidated between launches)
    # and stores one partial sum per 256-thread block (write-evict: straight to the LLC).
    assert (red["op"] == 1).sum() == 100 * n * 4 // 64 and (red["op"] == 2).sum() == 100 * n // 256
    fwt = cuda.cuda_stream("fastwalsh", S)
    n = 1 << 17  # 2^23 x 1/64
    assert (fwt["op"] == 1).sum() == (fwt["op"] == 2).sum() == 2 * n * 4 // 64
    bs = cuda.cuda_stream("blackscholes", S)
    lines = -(-62_500 * 4 // 64)  # 4 M options x 1/64, per array
    assert (bs["op"] == 1).sum() == 4 * 3 * lines and (bs["op"] == 2).sum() == 4 * 2 * lines
    assert set(np.unique(bs["stream"])) == {SHADER}
    launches = cuda._cfd(S, 0)
    assert len(launches) == 71 and sum(k is launches[4] for k in launches) == 29  # compute_flux
    assert np.array_equal(cuda.cuda_stream("reduction", S, 1), red)


def test_warp_order_coalesces_per_warp_and_runs_ctas_in_waves():
    k = cuda._Kernel(ctas=2 * cuda.SHADER_CORES * cuda.CTAS_PER_CORE, threads=64)
    tid = np.arange(k.ctas * 64, dtype=np.int64)
    k.load(tid * 4)  # 32 threads x 4 B = 2 lines per warp
    core, op, line = cuda.warp_order(k)
    assert line.size == k.ctas * 2 * 2 and set(op.tolist()) == {1}
    first_wave = cuda.SHADER_CORES * cuda.CTAS_PER_CORE * 64 * 4 // 64
    assert line[:first_wave].max() < line[first_wave:].min()  # wave 0 before wave 1
    assert core[0] == 0 and core[4] == 1  # CTA 1 (lines 4..7) runs on core 1


def test_table3_mixes():
    assert mix_names(2)[0] == "D1" and len(mix_names(4)) == 18 and len(MIXES) == 54
    assert get_mix("S3").cpu == ("lbm",) and get_mix("Q18").cpu == ("bwaves", "mcf", "milc", "omnetpp")
    assert get_mix("D15").gpu == "cfd" and get_mix("S1").gpu == "3DMark06-GT1"
    with pytest.raises(InputError, match="unknown mix 'S19'"):
        get_mix("S19")
    with pytest.raises(InputError, match="cores"):
        mix_names(3)


def test_build_mix_interleaves_every_source_in_order():
    gpu = cuda.cuda_stream("reduction", S)
    t = build_mix("D18", S, gpu=gpu)
    n = round(CPU_REFERENCES * S)
    assert t.size == gpu.size + 2 * n
    assert np.array_equal(t[t["stream"] >= 4], gpu)
    assert set(np.unique(t["stream"][t["stream"] < 4])) == {0, 1}
    assert np.array_equal(t, build_mix("D18", S, gpu=gpu))
