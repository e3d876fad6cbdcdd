"""Tests of the Accel-Sim trace importer (golden/trace/accelsim.py).

Expected rows, lane addresses, gaps and tails are worked out by hand from
the trace files in tests/data/accelsim (v3, v4, v5), whose lines follow the
formats the Accel-Sim tracer writes.
"""

import lzma
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from golden.errors import InputError
from golden.trace import accelsim
from golden.trace.accelsim import read_accelsim, read_kernel_trace
from golden.trace.coalesce import coalesce
from golden.trace.io import load_workload, save_workload
from golden.trace.model import WARP_SIZE, Op, Space, lane_addresses

DATA = Path(__file__).parent / "data" / "accelsim"
G = 0x7F10_0000_0000  # base of the global arrays in the v3 trace

L, S, A, B = Op.LOAD, Op.STORE, Op.ATOMIC, Op.BARRIER
GL, SH, LO, NO = Space.GLOBAL, Space.SHARED, Space.LOCAL, Space.NONE


def columns(kernel, *names):
    return [tuple(int(r[n]) for n in names) for r in kernel.insts]


def lanes(pairs):
    """uint64[32] with the given {lane: address}, zero elsewhere."""
    row = np.zeros(WARP_SIZE, np.uint64)
    for lane, addr in pairs.items():
        row[lane] = addr
    return row


# -- version 3: every address mode, mask 0, shared/global/barrier, CTAs and warps --


@pytest.fixture(scope="module")
def v3():
    return read_accelsim(DATA / "v3")


def test_v3_rows(v3):
    (k,) = v3.kernels
    assert (k.name, k.grid, k.block, k.shared_bytes, k.regs_per_thread) == (
        "_Z6gatherPfS_", (2, 1, 1), (64, 1, 1), 512, 24)
    assert columns(k, "cta", "warp", "pc", "op", "space", "width", "gap", "mask") == [
        (0, 0, 0x20, L, GL, 4, 2, 0xFFFFFFFF),  # after IMAD, S2R
        (0, 0, 0x30, L, GL, 4, 0, 0x0000000F),
        (0, 0, 0x40, L, SH, 16, 0, 0xFFFFFFFF),  # LDS.U.128: 16 bytes per lane
        (0, 0, 0x50, B, NO, 0, 0, 0xFFFFFFFF),
        (0, 1, 0x20, L, GL, 8, 1, 0xFFFF0000),  # LDG.E.64
        (0, 1, 0x50, B, NO, 0, 0, 0xFFFFFFFF),
        (0, 1, 0x70, S, GL, 4, 0, 0x80000001),
        (1, 0, 0x20, L, GL, 4, 0, 0x00000101),
    ]
    # The mask-0 STG of CTA 0 warp 0 and the EXIT of CTA 1 warp 0 are compute.
    assert k.tail.tolist() == [1, 0, 1, 0]
    assert k.n_instructions == 7 + 4 + 2 + 0


def test_v3_lane_addresses(v3):
    (k,) = v3.kernels
    got = lane_addresses(k)
    expected = [
        lanes({i: G + 4 * i for i in range(32)}),  # base_stride, stride 4
        lanes({0: G + 0x100, 1: G + 0x180, 2: G + 0x104, 3: G + 0x300}),  # list_all
        lanes({i: 0x100 + 16 * i for i in range(32)}),
        lanes({}),
        lanes({i: G + 0x400 - 8 * (i - 16) for i in range(16, 32)}),  # negative stride
        lanes({}),
        lanes({0: G + 0x2000, 31: G + 0x3000}),  # base_delta, one delta
        lanes({0: G + 0x800, 8: G + 0x800 - 32}),  # base_delta, negative delta
    ]
    np.testing.assert_array_equal(got, np.array(expected))
    # Affine where the active lanes fit base + (l % dx)*sx + (l // dx)*sy, explicit otherwise:
    # row 6 (lanes 0 and 31) fits 16-lane groups with sy = 0x1000; row 1 fits no form.
    assert k.insts["lanes"].tolist() == [-1, 0, -1, -1, -1, -1, -1, -1]
    assert k.insts["sx"][[0, 4, 7]].tolist() == [4, -8, -4]
    assert (k.insts["dx"][6], k.insts["sy"][6]) == (16, 0x1000)
    assert k.lane_addrs.shape == (1, WARP_SIZE)


def test_v3_workload_metadata(v3):
    assert v3.name == "accelsim/v3"
    assert v3.source.endswith("kernelslist.g")
    (stats,) = v3.params["accelsim"]
    assert stats == {
        "file": "kernel-1.traceg", "kernel_id": 1, "tracer_version": 3, "instructions": 13,
        "rows": 8, "barrier_rows": 2, "global_rows": 5, "shared_rows": 1, "local_rows": 0,
        "const_rows": 0, "texture_rows": 0, "compute": 5, "masked_off": 1,
        "unaddressed_memory": 0, "addressed_other": 0,
    }


def test_v3_coalesces_to_hand_counted_lines(v3):
    (k,) = v3.kernels
    row, line, _ = coalesce(k, 128)
    g = G >> 7
    assert row.tolist() == [0, 1, 1, 1, 4, 4, 6, 6, 7, 7]
    assert (line - g).tolist() == [0, 2, 3, 6, 8, 7, 0x40, 0x60, 16, 15]


def test_read_kernel_trace_equals_list_entry(v3):
    k = read_kernel_trace(DATA / "v3" / "kernel-1.traceg")
    np.testing.assert_array_equal(k.insts, v3.kernels[0].insts)
    np.testing.assert_array_equal(k.lane_addrs, v3.kernels[0].lane_addrs)
    assert read_accelsim(DATA / "v3" / "kernelslist.g").kernels[0].insts.tobytes() == \
        k.insts.tobytes()


# -- version 4: line numbers, generic addresses, local memory, 2-D rows, order --


def test_v4_lineinfo_generic_local_and_order():
    w = read_accelsim(DATA / "v4")
    k1, k2 = w.kernels
    assert [k.name for k in w.kernels] == ["_Z7stencilPfS_", "_Z6reducePf"]
    # Blocks and warps are listed out of order in the file; rows come out sorted.
    assert columns(k1, "cta", "warp", "pc", "op", "space", "width", "gap") == [
        (0, 0, 0x50, L, LO, 4, 0),  # LDL
        (0, 0, 0x60, S, LO, 8, 0),  # STL.64
        (1, 0, 0x30, L, SH, 4, 0),  # LD: first address in [shmem base, local base)
        (1, 0, 0x40, S, GL, 8, 0),  # ST: outside both windows
        (1, 1, 0x10, L, GL, 4, 1),  # after IMAD
        (1, 1, 0x20, S, LO, 4, 0),  # ST: in [local base, local base + 16 kB)
    ]
    assert k1.tail.tolist() == [0, 0, 0, 0]
    # 16x4 blocks: the full-warp LDG is one 2-D affine row (two block rows per warp).
    two_d = k1.insts[4]
    assert (int(two_d["dx"]), int(two_d["sx"]), int(two_d["sy"]), int(two_d["lanes"])) == \
        (16, 4, 1024, -1)
    base = 0x7F20_0000_0000
    np.testing.assert_array_equal(
        lane_addresses(k1, [4])[0],
        lanes({i: base + 4 * (i % 16) + 1024 * (i // 16) for i in range(32)}))
    np.testing.assert_array_equal(
        lane_addresses(k1, [5])[0], lanes({i: 0x7F00_0200_0010 + 4 * i for i in range(16)}))
    assert columns(k2, "op", "space", "mask") == [(S, SH, 0xFFFFFFFF), (B, NO, 0xFFFFFFFF),
                                                  (S, GL, 1)]
    assert [s["tracer_version"] for s in w.params["accelsim"]] == [4, 4]


# -- version 5: immediates, cluster lines, atomics, unaddressed and unknown opcodes --


def test_v5_atomics_and_unaddressed():
    (k,) = read_accelsim(DATA / "v5").kernels
    assert columns(k, "pc", "op", "space", "width", "gap", "mask") == [
        (0x10, A, GL, 4, 1, 0xFFFFFFFF),  # ATOMG, after an LDC with no addresses
        (0x20, A, GL, 8, 0, 0xF),  # RED.E.ADD.64
        (0x30, A, SH, 4, 0, 0x10),  # ATOMS, one lane, base_delta with no delta
        (0x40, L, SH, 4, 0, 0xFFFFFFFF),  # generic LD without base addresses: shared
        (0x70, L, GL, 16, 2, 0xFFFFFFFF),  # LDGSTS.E.BYPASS.128 after TEX and DEPBAR
    ]
    assert k.tail.tolist() == [2]  # CCTL (addresses, not a memory opcode) and EXIT
    got = lane_addresses(k)
    np.testing.assert_array_equal(got[0], lanes({i: 0x7F40_0000_0000 for i in range(32)}))
    np.testing.assert_array_equal(got[1], lanes({i: 0x7F40_0000_0008 + 8 * i for i in range(4)}))
    np.testing.assert_array_equal(got[2], lanes({4: 0x20}))


def test_v5_counts():
    w = read_accelsim(DATA / "v5" / "kernelslist.g")
    (stats,) = w.params["accelsim"]
    assert (stats["instructions"], stats["rows"], stats["compute"], stats["masked_off"],
            stats["unaddressed_memory"], stats["addressed_other"]) == (10, 5, 5, 0, 2, 1)


# -- file handling ----------------------------------------------------------------


def test_xz_trace_reads_the_same(tmp_path):
    src = DATA / "v3" / "kernel-1.traceg"
    with lzma.open(tmp_path / "kernel-1.traceg.xz", "wb") as f:
        f.write(src.read_bytes())
    (tmp_path / "kernelslist.g").write_text("kernel-1.traceg.xz\n")
    k = read_accelsim(tmp_path).kernels[0]
    np.testing.assert_array_equal(k.insts, read_kernel_trace(src).insts)


@pytest.mark.parametrize("version", ["v3", "v4", "v5"])
def test_chunk_and_batch_boundaries_do_not_matter(version, monkeypatch):
    whole = read_accelsim(DATA / version)
    monkeypatch.setattr(accelsim, "_CHUNK", 7)
    monkeypatch.setattr(accelsim, "_BATCH", 1)
    pieces = read_accelsim(DATA / version)
    for a, b in zip(whole.kernels, pieces.kernels, strict=True):
        np.testing.assert_array_equal(a.insts, b.insts)
        np.testing.assert_array_equal(a.lane_addrs, b.lane_addrs)
        np.testing.assert_array_equal(a.tail, b.tail)


def test_round_trip_through_npz(tmp_path):
    w = read_accelsim(DATA / "v4")
    save_workload(tmp_path / "w.npz", w)
    back = load_workload(tmp_path / "w.npz")
    assert (back.name, back.source, back.params) == (w.name, w.source, w.params)
    for a, b in zip(w.kernels, back.kernels, strict=True):
        assert (a.name, a.grid, a.block, a.shared_bytes) == (b.name, b.grid, b.block,
                                                              b.shared_bytes)
        np.testing.assert_array_equal(a.insts, b.insts)
        np.testing.assert_array_equal(lane_addresses(a), lane_addresses(b))
        np.testing.assert_array_equal(a.tail, b.tail)


def test_large_synthetic_trace(tmp_path):
    """200k instruction lines: counts come out exact; the rate is printed (pytest -s)."""
    n_ctas, wpc, per_warp = 100, 4, 500
    body = []
    for i in range(per_warp):
        if i % 4 == 1:
            body.append(f"{16 * i:04x} ffffffff 1 R2 LDG.E 1 R4 4 1 0x{{base:x}} 4 0")
        elif i % 4 == 3:
            deltas = " ".join(["4", "12"] * 15 + ["4"])
            body.append(f"{16 * i:04x} ffffffff 0 STG.E 2 R2 R3 4 2 0x{{base:x}} {deltas} 0")
        else:
            body.append(f"{16 * i:04x} ffffffff 1 R1 FFMA 3 R1 R2 R3 0 0")
    warp_text = "\n".join(body)
    parts = [f"-grid dim = ({n_ctas},1,1)\n-block dim = ({32 * wpc},1,1)\n"
             "-accelsim tracer version = 5\n"]
    for c in range(n_ctas):
        parts.append(f"#BEGIN_TB\nthread block = {c},0,0\n")
        for w in range(wpc):
            parts.append(f"warp = {w}\ninsts = {per_warp}\n")
            parts.append(warp_text.format(base=0x7F00_0000_0000 + (c * wpc + w) * 4096) + "\n")
        parts.append("#END_TB\n")
    path = tmp_path / "kernel-1.traceg"
    path.write_text("".join(parts))
    read_kernel_trace(path)  # compile or load the cached scanner outside the timing
    t = time.perf_counter()
    k = read_kernel_trace(path)
    dt = time.perf_counter() - t
    n = n_ctas * wpc * per_warp
    print(f"\n{n} lines, {path.stat().st_size / 1e6:.1f} MB in {dt:.2f} s: "
          f"{n / dt / 1e6:.2f} M lines/s")
    assert k.n_instructions == n
    assert len(k.insts) == n // 2
    # the base_delta stores (deltas 4, 12, 4, ...) fit 2-lane affine groups: sx 4, sy 16
    stores = k.insts["op"] == 2
    assert k.lane_addrs.shape == (0, WARP_SIZE)
    assert set(k.insts["dx"][stores]) == {2} and set(k.insts["sy"][stores]) == {16}
    assert k.tail.tolist() == [0] * (n_ctas * wpc)  # every warp ends with its STG
    assert k.insts["gap"].tolist() == [1] * (n // 2)


# -- bad input ----------------------------------------------------------------------

GOOD = """\
-kernel name = k
-grid dim = (2,1,1)
-block dim = (64,1,1)
-shmem base_addr = 0x00007f0000000000
-local mem base_addr = 0x00007f0002000000
-accelsim tracer version = 5
-enable lineinfo = 0

#BEGIN_TB
thread block = 0,0,0
warp = 0
insts = 3
0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0
0010 0000000f 1 R2 LDG.E 1 R4 4 0 0x1000 0x1004 0x1008 0x100c 0
0020 ffffffff 0 BAR.SYNC 0 0 0
#END_TB
"""
LDG = "0010 0000000f 1 R2 LDG.E 1 R4 4 0 0x1000 0x1004 0x1008 0x100c 0"


def write(tmp_path, text, name="kernel-1.traceg"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_good_template_reads(tmp_path):
    k = read_kernel_trace(write(tmp_path, GOOD))
    assert columns(k, "pc", "op", "gap") == [(0x10, L, 1), (0x20, B, 0)]


BAD_TRACES = [
    ("4 0 0x1000", "4 7 0x1000", "kernel-1.traceg:14: address mode 7 is not 0, 1 or 2"),
    ("insts = 3", "insts = 4", "kernel-1.traceg:12: 'insts = 4' but 3 instruction lines follow"),
    ("insts = 3", "insts = 2",
     "kernel-1.traceg:15: more instruction lines than the 'insts = 2' on line 12"),
    ("0x1008 0x100c", "0x1008",
     "kernel-1.traceg:14: address mode 0 with mask 0000000f (4 active lanes) needs 4 addresses "
     "and the immediate, but 4 fields follow the mode"),
    (LDG, "0010 0000000f 1 R2 LDG.E 1 R4 4 2 0x1000 4 4 0",
     "kernel-1.traceg:14: address mode 2 with mask 0000000f (4 active lanes) needs a base "
     "address and 3 deltas and the immediate, but 4 fields follow the mode"),
    (LDG, "0010 0000000b 1 R2 LDG.E 1 R4 4 1 0x1000 4 0",
     "kernel-1.traceg:14: address mode 1 (base_stride) needs contiguous active lanes, "
     "but mask 0000000b has gaps"),
    (LDG, "0010 0000000f 1 R2 LDG.E 1 R4 4 1 0x1000 4",
     "kernel-1.traceg:14: address mode 1 with mask 0000000f (4 active lanes) needs a base "
     "address and a stride and the immediate, but 2 fields follow the mode"),
    (LDG, "0010 0000000f 1 R2 LDG.E 1 R4 0 0",
     "kernel-1.traceg:14: 'LDG.E' is a memory instruction but has mem_width 0 (no addresses)"),
    (LDG, "0010 0000000f 1 R2 LDG.E.U4 1 R4 4 1 0x1000 4 0",
     "kernel-1.traceg:14: opcode 'LDG.E.U4' gives an access width of 0 bytes, not 1 to 255"),
    ("0x1004 0x1008", "0x1004 0x10g8",
     "kernel-1.traceg:14: address '0x10g8' is not a hexadecimal number"),
    ("0000 ffffffff", "00g0 ffffffff", "kernel-1.traceg:13: PC '00g0' is not a hexadecimal number"),
    ("0000 ffffffff", "0000 1ffffffff",
     "kernel-1.traceg:13: active mask '1ffffffff' does not fit in 32 bits"),
    ("IMAD.MOV.U32 2 R255 R255 0 0", "IMAD.MOV.U32 3 R255 R255",
     "kernel-1.traceg:13: the line ends before the source register field"),
    ("BAR.SYNC 0 0 0", "BAR.SYNC 0 0", "kernel-1.traceg:15: the line ends before the immediate"),
    ("BAR.SYNC 0 0 0", "BAR.SYNC 0 0 0 7",
     "kernel-1.traceg:15: unexpected field '7' at the end of the line"),
    ("accelsim tracer version = 5", "accelsim tracer version = 2",
     "kernel-1.traceg: Accel-Sim tracer version 2 is not supported (versions 3 to 5 are)"),
    ("accelsim tracer version = 5", "accelsim tracer version = 6",
     "kernel-1.traceg: Accel-Sim tracer version 6 is not supported (versions 3 to 5 are)"),
    ("-accelsim tracer version = 5\n", "",
     "kernel-1.traceg: the header has no '-accelsim tracer version' line"),
    ("(2,1,1)", "(2,1)",
     "kernel-1.traceg:2: '-grid dim' has an invalid value '(2,1)'; expected (x,y,z) of "
     "positive integers"),
    ("-enable lineinfo = 0", "-enable lineinfo = yes",
     "kernel-1.traceg:7: '-enable lineinfo' has an invalid value 'yes'; expected a number"),
    ("-enable lineinfo = 0", "-enable lineinfo", "kernel-1.traceg:7: header line "
     "'-enable lineinfo' is not '-key = value'"),
    ("block = 0,0,0", "block = 2,0,0",
     "kernel-1.traceg:10: thread block 2,0,0 is outside the grid (2,1,1)"),
    ("block = 0,0,0", "block = 0;0,0",
     "kernel-1.traceg:10: expected 'thread block = <x>,<y>,<z>', not 'thread block = 0;0,0'"),
    ("warp = 0", "warp = 2",
     "kernel-1.traceg:11: warp 2 is outside 0..1 (blocks of 64 threads have 2 warps)"),
    ("#END_TB", "warp = 0\ninsts = 0\n#END_TB",
     "kernel-1.traceg:16: warp 0 of thread block 0,0,0 appears twice"),
    ("insts = 3\n", "", "kernel-1.traceg:12: instruction line before the 'insts = <n>' line "
     "of warp 0"),
    ("#END_TB\n", "", "kernel-1.traceg:15: the file ends inside the thread block opened on "
     "line 9 (no #END_TB)"),
    ("#END_TB\n", "#END_TB\nwarp = 1\n",
     "kernel-1.traceg:17: 'warp = 1' is outside a #BEGIN_TB ... #END_TB block"),
    ("#END_TB\n", "#END_TB\n#END_TB\n", "kernel-1.traceg:17: #END_TB without a #BEGIN_TB"),
    ("#BEGIN_TB\nthread block = 0,0,0\n", "0 0 0 0 0000 ffffffff 0 EXIT 0 0\n",
     "kernel-1.traceg:9: expected a '-key = value' header line or '#BEGIN_TB', not "
     "'0 0 0 0 0000 ffffffff 0 EXIT 0 0' (this looks like a raw kernel-*.trace line: run "
     "Accel-Sim's post-traces-processing to group it into a .traceg file)"),
]


@pytest.mark.parametrize(("old", "new", "message"), BAD_TRACES,
                         ids=[m.split(": ", 1)[1][:40] for _, _, m in BAD_TRACES])
def test_bad_trace(tmp_path, old, new, message):
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(InputError, match=re.escape(message)) as info:
        read_kernel_trace(path)
    assert "\n" not in str(info.value)
    assert str(info.value).startswith(str(path))


def test_bad_trace_v3_has_no_immediate(tmp_path):
    text = re.sub(r" 0\n(?=[0#])", "\n", GOOD.replace("version = 5", "version = 3"))
    assert read_kernel_trace(write(tmp_path, text)).insts.size == 2
    with pytest.raises(InputError, match=re.escape(
            "kernel-1.traceg:15: unexpected field '0' at the end of the line")):
        read_kernel_trace(write(tmp_path, text.replace("BAR.SYNC 0 0", "BAR.SYNC 0 0 0")))


def test_bad_lineinfo_line_number(tmp_path):
    text = GOOD.replace("lineinfo = 0", "lineinfo = 1").replace("\n00", "\n7 00")
    assert read_kernel_trace(write(tmp_path, text)).insts.size == 2
    with pytest.raises(InputError, match=re.escape(
            "kernel-1.traceg:13: line number 'x' is not a decimal integer")):
        read_kernel_trace(write(tmp_path, text.replace("7 0000", "x 0000")))


def test_bad_kernel_lists(tmp_path):
    shutil.copy(DATA / "v3" / "kernel-1.traceg", tmp_path)
    listing = tmp_path / "kernelslist.g"
    listing.write_text("MemcpyHtoD,0x0,4\nkernel-1.traceg\n\nkernel-9.traceg\n")
    with pytest.raises(InputError, match=re.escape(
            "kernelslist.g:4: kernel trace file 'kernel-9.traceg' does not exist in")):
        read_accelsim(tmp_path)
    listing.write_text("kernel-1.traceg\nlaunch kernel-2\n")
    with pytest.raises(InputError, match=re.escape(
            "kernelslist.g:2: 'launch kernel-2' is neither a kernel trace file")):
        read_accelsim(listing)
    listing.write_text("MemcpyHtoD,0x0,4\n")
    with pytest.raises(InputError, match="kernelslist.g: lists no kernel trace files"):
        read_accelsim(listing)
    with pytest.raises(InputError, match="no such kernel list"):
        read_accelsim(tmp_path / "elsewhere")
    with pytest.raises(InputError, match="kernel-7.traceg: no such kernel trace file"):
        read_kernel_trace(tmp_path / "kernel-7.traceg")
