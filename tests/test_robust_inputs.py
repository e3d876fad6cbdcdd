"""The issue's hand-made bad inputs: each gives one line and exit 2, or is handled as documented.

Trace files (``.npz``), configs, Accel-Sim traces, output paths, the trace
cache and the command line's own arguments. Messages are checked exactly
enough to show that the right field is named.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from golden.configs import dump_toml, load_config, preset
from golden.configs.loader import config_from_dict
from golden.errors import InputError
from golden.files import atomic_write, check_output_dir, check_output_file, json_field, read_json_object
from golden.trace.accelsim import read_kernel_trace
from golden.trace.io import MAX_ADDRESS, load_workload, save_workload
from golden.workloads import registry
from tests.fuzz.targets import tiny_workload

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def trace_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path_factory.getbasetemp() / "trace-cache"))


def user_error(capsys, argv, message):
    """Run the command line; assert exit 2 with exactly one line holding ``message``."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert status == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("gpucache: error: "), err
    assert message in err, err
    return err


# --- .npz traces ---------------------------------------------------------------------------------

@pytest.fixture
def npz(tmp_path):
    p = tmp_path / "t.npz"
    save_workload(p, tiny_workload())
    return p


def members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def write_members(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


def npy(arr: np.ndarray, allow_pickle: bool = False) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=allow_pickle)
    return buf.getvalue()


def test_npz_round_trip_is_exact(npz):
    wl, again = tiny_workload(), load_workload(npz)
    assert [k.name for k in again.kernels] == ["affine", "gather", "empty"]
    for a, b in zip(wl.kernels, again.kernels, strict=True):
        assert np.array_equal(a.insts, b.insts) and np.array_equal(a.lane_addrs, b.lane_addrs)
        assert np.array_equal(a.tail, b.tail) and a.grid == b.grid and a.block == b.block


def _member_data_offset(path: Path, name: str) -> int:
    """Where member ``name``'s bytes start in the file (after its local header)."""
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(name)
    raw = path.read_bytes()
    head = raw[info.header_offset:info.header_offset + 30]
    name_len, extra_len = int.from_bytes(head[26:28], "little"), int.from_bytes(head[28:30], "little")
    return info.header_offset + 30 + name_len + extra_len


def test_npz_stored_member_with_a_flipped_byte_fails_its_crc(npz, tmp_path):
    # Stored members are read past zipfile (io._StoredMember); their CRC-32 is still checked.
    raw = bytearray(npz.read_bytes())
    at = _member_data_offset(npz, "k0_insts.npy") + len(members(npz)["k0_insts.npy"]) - 3  # data, not header
    raw[at] ^= 0x01
    bad = tmp_path / "bad.npz"
    bad.write_bytes(bytes(raw))
    with pytest.raises(InputError, match=r"kernel 0: member 'k0_insts' cannot be read \(bad CRC-32"):
        load_workload(bad)


def test_npz_stored_member_with_a_damaged_local_header(npz, tmp_path):
    raw = bytearray(npz.read_bytes())
    with zipfile.ZipFile(npz) as z:
        at = z.getinfo("k1_insts.npy").header_offset
    raw[at:at + 4] = b"PK\x05\x06"
    bad = tmp_path / "bad.npz"
    bad.write_bytes(bytes(raw))
    with pytest.raises(InputError, match=r"kernel 1: member 'k1_insts' cannot be read \(bad magic number"):
        load_workload(bad)


def test_npz_deflated_members_load_as_stored_ones(npz, tmp_path):
    # np.savez_compressed's files take zipfile's own path; the result is the same workload.
    files = members(npz)
    deflated = tmp_path / "deflated.npz"
    with zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    a, b = load_workload(npz), load_workload(deflated)
    for x, y in zip(a.kernels, b.kernels, strict=True):
        assert np.array_equal(x.insts, y.insts) and np.array_equal(x.lane_addrs, y.lane_addrs)
        assert np.array_equal(x.tail, y.tail)


def test_npz_pickled_member_is_not_unpickled(npz, tmp_path):
    files = members(npz)
    files["k0_tail.npy"] = npy(np.array([{"x": 1}], dtype=object), allow_pickle=True)
    bad = write_members(tmp_path / "bad.npz", files)
    with pytest.raises(InputError, match=r"kernel 0: member 'k0_tail' has dtype '\|O', expected '<u4'"):
        load_workload(bad)


def test_npz_header_text_is_never_evaluated(npz, tmp_path):
    # np.load would hand this header to ast.literal_eval; the loader matches numpy's layout only.
    files = members(npz)
    head = b"{'descr': __import__('os').getcwd(), 'fortran_order': False, 'shape': (3,), }"
    files["k0_tail.npy"] = b"\x93NUMPY\x01\x00" + len(head + b"\n").to_bytes(2, "little") + head + b"\n"
    bad = write_members(tmp_path / "bad.npz", files)
    with pytest.raises(InputError, match="member 'k0_tail' has a .npy header gpucache does not read"):
        load_workload(bad)


def test_npz_shape_is_checked_against_the_data_before_allocating(npz, tmp_path):
    files = members(npz)
    data = files["k0_lanes.npy"]
    # Same header length (the padding shrinks), so only the shape differs.
    files["k0_lanes.npy"] = data.replace(b"'shape': (0, 32), }" + b" " * 12,
                                         b"'shape': (9999999999999, 32), }")
    assert files["k0_lanes.npy"] != data
    bad = write_members(tmp_path / "bad.npz", files)
    with pytest.raises(InputError, match=r"member 'k0_lanes' holds 0 bytes of data, but its header says "
                                         r"319,999,999,999,968 x 8"):
        load_workload(bad)


def test_npz_tail_length_against_the_grid(npz, tmp_path):
    files = members(npz)
    meta = json.loads(np.load(io.BytesIO(files["meta.npy"])).item())
    meta["kernels"][0]["grid"] = [3, 1, 1]
    files["meta.npy"] = npy(np.array(json.dumps(meta)))
    bad = write_members(tmp_path / "bad.npz", files)
    with pytest.raises(InputError, match=r"kernel 0: member 'k0_tail' has shape \(4,\), expected \(6,\)"):
        load_workload(bad)


@pytest.mark.parametrize("field, value, message", [
    ("block", [4294967296, 1, 1], "field 'block' (4294967296, 1, 1) is outside CUDA's limits"),
    ("block", [64, 32, 1], "field 'block' (64, 32, 1) has 2048 threads; CUDA allows at most 1024"),
    ("grid", [65535, 65535, 65535],
     "grid (65535, 65535, 65535) x block (48, 1, 1) is 562,924,184,010,750 warps; "
     "gpucache reads at most 16,777,216 per kernel"),
    ("grid", [1, 2], "field 'grid' must be three integers, not [1, 2]"),
    ("grid", [1.5, 1, 1], "field 'grid' must be three integers"),
    ("shared_bytes", -1, "field 'shared_bytes' in 'meta' must be an integer 0..4294967296, not -1"),
])
def test_npz_meta_fields(npz, tmp_path, field, value, message):
    files = members(npz)
    meta = json.loads(np.load(io.BytesIO(files["meta.npy"])).item())
    meta["kernels"][0][field] = value
    files["meta.npy"] = npy(np.array(json.dumps(meta)))
    with pytest.raises(InputError) as e:
        load_workload(write_members(tmp_path / "bad.npz", files))
    assert message in str(e.value)


def test_npz_version_true_is_not_version_1(npz, tmp_path):
    files = members(npz)
    meta = json.loads(np.load(io.BytesIO(files["meta.npy"])).item())
    meta["version"] = True
    files["meta.npy"] = npy(np.array(json.dumps(meta)))
    with pytest.raises(InputError, match="trace format version True is not supported"):
        load_workload(write_members(tmp_path / "bad.npz", files))


def test_npz_deep_json_meta(npz, tmp_path):
    files = members(npz)
    files["meta.npy"] = npy(np.array("[" * 100000 + "]" * 100000))
    with pytest.raises(InputError, match="member 'meta' is nested too deeply"):
        load_workload(write_members(tmp_path / "bad.npz", files))


def test_npz_address_beyond_57_bits_is_refused(tmp_path):
    # This file loaded before and then failed inside the cache hierarchy.
    wl = tiny_workload()
    wl.kernels[0].insts["base"][0] = 0xFFFF_FFFF_FFFF_FF00
    save_workload(tmp_path / "bad.npz", wl)
    with pytest.raises(InputError, match=rf"kernel 0: field 'base' of instruction 0 gives an active lane an "
                                         rf"address outside 0..{MAX_ADDRESS - 1:#x}"):
        load_workload(tmp_path / "bad.npz")


def test_npz_gaps_bounded_by_the_file_size(tmp_path):
    wl = tiny_workload()
    wl.kernels[1].insts["gap"][:] = 0xFFFF_FFFF  # would make the interleaver issue them one by one
    save_workload(tmp_path / "bad.npz", wl)
    with pytest.raises(InputError, match="kernel 1: fields 'gap' and member 'k1_tail' hold"):
        load_workload(tmp_path / "bad.npz")


def test_npz_width_zero_memory_row(tmp_path):
    wl = tiny_workload()
    wl.kernels[0].insts["width"][0] = 0
    save_workload(tmp_path / "bad.npz", wl)
    with pytest.raises(InputError, match="field 'width' of instruction 0 is 0 bytes for a memory instr"):
        load_workload(tmp_path / "bad.npz")


def test_npz_not_a_zip_via_cli(capsys, tmp_path):
    p = tmp_path / "x.npz"
    p.write_bytes(b"PK\x03\x04" + b"\0" * 40)
    user_error(capsys, ["trace", "info", str(p)], f"{p}: not a gpucache trace file")


# --- configs -------------------------------------------------------------------------------------

def cfg_file(tmp_path, text: str, suffix: str = ".toml") -> str:
    p = tmp_path / f"c{suffix}"
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("text, message", [
    ('base = "tian15"\n[policy_params.pc-bypass]\nentries = 64\n',
     ":2: policy_params.pc-bypass: policy 'pc-bypass' refuses these parameters: "
     "A 7-bit PC hash cannot index 64 entries"),
    ('base = "tian15"\n[policy_params.pc-bypass]\nthreshold = 96\n',
     ":2: policy_params.pc-bypass: policy 'pc-bypass' refuses these parameters: Threshold must be 0 to 16"),
    ('base = "tian15"\n[policy_params.pc-bypass]\nname = "x"\n',
     "policy_params.pc-bypass: policy 'pc-bypass' refuses these parameters: "),
    ('base = "tian15"\n[policy_params.counter-bypass]\nhash_bits = "7"\n',
     "policy_params.counter-bypass: policy 'counter-bypass' refuses these parameters"),
    ('base = "tian15"\nn_sm = 4611686018427387904\n',
     ":2: n_sm: must be at most 1,024, not 4,611,686,018,427,387,904"),
    ('base = "tian15"\nmem_latency = 9223372036854775807\n',
     ":2: mem_latency: must be at most 1,048,576, not 9,223,372,036,854,775,807"),
    ('base = "tian15"\nschedulers_per_sm = 4611686018427387904\n',
     ":2: schedulers_per_sm: must be at most 64, not 4,611,686,018,427,387,904"),
    ('base = "tian15"\n[l1]\nassoc = 128\nsize = 16384\nline_size = 128\nreplacement = "plru"\n',
     ":6: l1.replacement: tree pseudo-LRU supports at most 64 ways, not 128"),
    ('base = "tian15"\n[l2]\nline_size = 32\n',
     ":3: l2.line_size: must be at least l1's 64 bytes, not 32"),
    ('base = "tian15"\ncore_clock_mhz = nan\n',
     ":2: core_clock_mhz: must be a number from 0 to 1e+06, not nan"),
    ('base = "tian15"\n[l2]\nsize = 4294967296\nline_size = 128\n',
     ":3: l2.size: 4,294,967,296 bytes is 33,554,432 lines; gpucache models at most 8,388,608"),
    ('base = "tian15"\n[policy_params.pc-bypass]\nthreshold = 1979-05-27\n',
     "policy_params: pc-bypass.threshold must be a string, a boolean, a 64-bit integer or a finite number"),
    ("a = " + "[" * 5000 + "]" * 5000 + "\n", "the config is nested too deeply"),
])
def test_config_refused_at_load(tmp_path, text, message):
    with pytest.raises(InputError) as e:
        load_config(cfg_file(tmp_path, text))
    assert message in str(e.value), str(e.value)


def test_config_deep_json(tmp_path):
    with pytest.raises(InputError, match="nested too deeply"):
        load_config(cfg_file(tmp_path, '{"a": ' + "[" * 100000 + "]" * 100000 + "}", ".json"))


def test_config_too_large(tmp_path):
    with pytest.raises(InputError, match="a config file is at most 1,048,576 bytes"):
        load_config(cfg_file(tmp_path, "# x\n" * 300000))


def test_config_errors_via_cli(capsys, tmp_path):
    path = cfg_file(tmp_path, 'base = "tian15"\n[policy_params.pc-bypass]\nentries = 64\n')
    user_error(capsys, ["run", "--workload", "nn", "--scale", "0.01", "--config", path],
               "policy_params.pc-bypass: policy 'pc-bypass' refuses these parameters")


@pytest.mark.parametrize("text, argv, message", [
    ('base = "ciao18"\n[l1]\nlookup_latency = 2\n', ["run", "--workload", "rdgc/gesummv"],
     ":3: l1.lookup_latency: the lookup pipeline is part of the hit latency, so it must be at most l1's "
     "hit latency (1), not 2"),
    ('base = "ciao18"\nwarp_limit = 99\n', ["run", "--workload", "rdgc/gesummv"],
     ":2: warp_limit: must be at most max_warps_per_sm (48), not 99"),
    ('base = "kim20"\n[l1]\nwrite = "write-back"\n', ["compare", "--suite", "kim20", "--workloads", "nn"],
     ":3: l1.write: the timing model runs write-through or write-evict L1s"),
    ('base = "ciao18"\n[l2]\nmiss_latency = 5\n', ["compare", "--suite", "ciao18", "--workloads", "nn"],
     ":3: l2.miss_latency: the timing model has it at the L1 only"),
])
def test_timing_config_refused_at_load_with_its_line(capsys, tmp_path, text, argv, message):
    # Valid configs the timing model cannot run: refused by the commands that run it, before any work.
    path = cfg_file(tmp_path, text)
    load_config(path)  # the functional model's view: nothing wrong
    user_error(capsys, [*argv, "--scale", "0.01", "--config", path], message)


def test_timing_config_mistakes_without_a_file_are_one_line(capsys, tmp_path):
    user_error(capsys, ["run", "--workload", "rdgc/gesummv", "--scale", "0.01", "--config", "ciao18",
                        "--warp-limit", "99"],
               "warp_limit: must be at most max_warps_per_sm (48), not 99")
    # a CTA that can never be resident (gesummv's CTAs hold 256 threads)
    path = cfg_file(tmp_path, 'base = "ciao18"\nmax_threads_per_sm = 64\n')
    user_error(capsys, ["run", "--workload", "rdgc/gesummv", "--scale", "0.01", "--config", path],
               "max_threads_per_sm: a CTA of kernel 'gesummv_kernel' needs 256 threads, more than the 64")


def test_config_show_round_trips_odd_keys_and_strings(tmp_path):
    gpu = config_from_dict({
        "base": "tian15", "name": 'we"ird\\ name\x01\x7f\u00e9\U0001f600',
        "policy_params": {"my policy.v2": {"a key": "x\ny", "b": -1.5e300, "c": True, "d": -(1 << 63)}},
    })
    text = dump_toml(gpu)
    assert '[policy_params."my policy.v2"]' in text
    assert load_config(cfg_file(tmp_path, text)) == gpu


def test_config_show_round_trip_every_preset(capsys, tmp_path):
    for name in ("tian15", "rdgc", "ciao18", "kim20", "drp16"):
        try:
            gpu = preset(name)
        except InputError:
            continue
        assert main(["configs", "show", name]) == 0
        out = capsys.readouterr().out
        assert load_config(cfg_file(tmp_path, out)) == gpu, name


# --- Accel-Sim traces ----------------------------------------------------------------------------

HEADER = """-kernel name = k
-kernel id = 1
-grid dim = {grid}
-block dim = {block}
-shmem = 0
-nregs = 8
-accelsim tracer version = 4
-enable lineinfo = 0

#BEGIN_TB
thread block = 0,0,0
warp = 0
insts = 1
0010 ffffffff 1 R4 LDG.E 1 R2 4 1 {addr} 4
#END_TB
"""


def traceg(tmp_path, grid="(1,1,1)", block="(32,1,1)", addr="0x10000000") -> Path:
    p = tmp_path / "kernel-1.traceg"
    p.write_text(HEADER.format(grid=grid, block=block, addr=addr))
    return p


def test_accelsim_valid_case_loads(tmp_path):
    k = read_kernel_trace(traceg(tmp_path))
    assert k.grid == (1, 1, 1) and len(k.insts) == 1 and int(k.insts["base"][0]) == 0x10000000


@pytest.mark.parametrize("kw, message", [
    ({"block": "(4294967296,1,1)"}, "field '-block dim' (4294967296, 1, 1) is outside CUDA's limits"),
    ({"block": "(64,32,1)"}, "field '-block dim' (64, 32, 1) has 2048 threads; CUDA allows at most 1024"),
    ({"grid": "(2147483647,65535,1)"}, "warps; gpucache reads at most 16,777,216 per kernel"),
    ({"grid": "(99999999999999999999999999999999,1,1)"},
     "field '-grid dim' (99999999999999999999999999999999, 1, 1) is outside CUDA's limits (1..2147483647"),
    ({"grid": "(1,1,1" + ",1" * 40 + ")"},
     "'-grid dim' has an invalid value '(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"),
    ({"addr": "0xffffffffffffff00"}, ":14: the address of lane 0 is outside 0..0x1ffffffffffffff"),
    ({"addr": "0x1fffffffffffffe"}, ":14: the address of lane 0 is outside"),
])
def test_accelsim_header_and_addresses(tmp_path, kw, message):
    with pytest.raises(InputError) as e:
        read_kernel_trace(traceg(tmp_path, **kw))
    assert message in str(e.value), str(e.value)


def test_accelsim_huge_shmem_and_base(tmp_path):
    p = traceg(tmp_path)
    p.write_text(p.read_text().replace("-shmem = 0", "-shmem = 99999999999999999999"))
    with pytest.raises(InputError, match="'-shmem' has an invalid value '99999999999999999999'; "
                                         "expected 0..4294967296"):
        read_kernel_trace(p)
    p.write_text(p.read_text().replace("-shmem = 99999999999999999999",
                                       "-shmem base_addr = 0x" + "f" * 20))
    with pytest.raises(InputError, match="'-shmem base_addr' has an invalid value"):
        read_kernel_trace(p)


def test_accelsim_line_without_end(tmp_path):
    from golden.trace import accelsim

    p = traceg(tmp_path)
    p.write_bytes(p.read_bytes().replace(b"#END_TB\n", b"#END_TB " + b"x" * (accelsim.MAX_LINE + 10)))
    with pytest.raises(InputError, match=r":15: the line is longer than 65,536 bytes"):
        read_kernel_trace(p)


# --- output paths --------------------------------------------------------------------------------

def test_output_file_checks(tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "dir").mkdir()
    with pytest.raises(InputError, match=r"--json .*dir: is a directory, not a file gpucache can replace"):
        check_output_file(tmp_path / "dir", "--json")
    with pytest.raises(InputError, match=r"file is not a directory"):
        check_output_file(tmp_path / "file" / "x.json", "--json")
    assert check_output_file(tmp_path / "missing" / "x.json", "--json") == tmp_path / "missing" / "x.json"
    with pytest.raises(InputError, match=r"file is a file, so no directory can be made below it"):
        check_output_file(tmp_path / "file" / "sub" / "x.json", "--json")
    with pytest.raises(InputError, match=r"names a directory, not a file"):
        check_output_file(str(tmp_path) + "/", "--json")
    with pytest.raises(InputError, match="is a character device"):
        check_output_file("/dev/null", "--json")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(InputError, match="is a FIFO, not a file gpucache can replace"):
        check_output_file(tmp_path / "fifo", "--json")
    assert check_output_file(tmp_path / "new.json", "--json") == tmp_path / "new.json"
    with pytest.raises(InputError, match="is a regular file, not a directory"):
        check_output_dir(tmp_path / "file", "--out")
    with pytest.raises(InputError, match="is a file, so no directory can be made below it"):
        check_output_dir(tmp_path / "file" / "sub" / "deeper", "--out")
    assert check_output_dir(tmp_path / "a" / "b", "--out") == tmp_path / "a" / "b"
    assert not (tmp_path / "a").exists()  # checking creates nothing
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "fifo", "file"]  # nothing made


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write into a read-only directory")
def test_output_unwritable_directory(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(InputError, match="cannot write in"):
            check_output_file(ro / "x.json", "--json")
    finally:
        ro.chmod(0o700)


def test_output_below_an_unsearchable_directory(tmp_path, monkeypatch):
    # A non-root user's stat() below a mode-0700 directory of another user fails with EACCES.
    real = Path.exists

    def exists(self):
        if self == tmp_path / "locked":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "exists", exists)
    with pytest.raises(InputError, match=r"--json .*: cannot use this path \(Permission denied\)"):
        check_output_file(tmp_path / "locked" / "x.json", "--json")


def test_symlink_output_is_followed(tmp_path):
    target = tmp_path / "results" / "r.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    assert check_output_file(link, "--json") == target
    atomic_write(link, lambda tmp: Path(tmp).write_text("new"))
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(p.name for p in target.parent.iterdir()) == ["r.json"]  # no temporary left


@pytest.mark.parametrize("argv, message", [
    (["run", "--workload", "nn", "--json", "{tmp}"], "--json {tmp}: is a directory"),
    (["run", "--workload", "nn", "--json", "{tmp}/file/r.json"], "{tmp}/file is not a directory"),
    (["run", "--workload", "nn", "--json", "{tmp}/file/no/r.json"], "{tmp}/file is a file, so no directory"),
    (["run", "--workload", "nn", "--json", "/dev/null"], "--json /dev/null: is a character device"),
    (["compare", "--plot", "{tmp}/file"], "--plot {tmp}/file: is a regular file, not a directory"),
    (["compare", "--json", "{tmp}"], "--json {tmp}: is a directory"),
    (["synth", "--unit", "all", "--out", "{tmp}/file"], "--out {tmp}/file: is a regular file"),
    (["cosim", "--unit", "l1_tag_unit", "--workload", "nn", "--build-dir", "{tmp}/file"],
     "--build-dir {tmp}/file: is a regular file"),
    (["trace", "convert", "{acc}", "{tmp}"], "OUT.npz {tmp}: is a directory"),
    (["trace", "convert", "{acc}", "{acc}/kernelslist.g"], "is also an input of this command"),
    (["trace", "convert", "{acc}", "{acc}/kernel-1.traceg"], "is also an input of this command"),
    (["run", "--config", "{tmp}/c.json", "--workload", "nn", "--json", "{tmp}/c.json"],
     "is also an input of this command"),
])
def test_cli_output_paths_refused_before_work(capsys, tmp_path, monkeypatch, argv, message):
    import cli.run
    from tests.test_cli import TRACEG

    (tmp_path / "file").write_text("x")
    (tmp_path / "c.json").write_text('{"base": "tian15"}')
    acc = tmp_path / "acc"
    acc.mkdir()
    (acc / "kernel-1.traceg").write_text(TRACEG)
    (acc / "kernelslist.g").write_text("kernel-1.traceg\n")

    def no_work(*a, **k):
        raise AssertionError("work started before the output path was checked")

    monkeypatch.setattr(cli.run, "simulate", no_work)
    monkeypatch.setattr(registry, "build", no_work)
    argv = [a.format(tmp=tmp_path, acc=acc) for a in argv]
    user_error(capsys, argv, message.format(tmp=tmp_path, acc=acc))
    assert (acc / "kernelslist.g").read_text() == "kernel-1.traceg\n"


# --- trace cache, command line ---------------------------------------------------------------------

def test_corrupt_cache_entry_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path))
    wl = registry.build("tian15/nn", 0.01)
    entry = next(tmp_path.glob("*.npz"))
    entry.write_bytes(b"\x93NUMPY garbage")
    again = registry.build("tian15/nn", 0.01)
    assert again.n_instructions == wl.n_instructions
    assert load_workload(entry).n_instructions == wl.n_instructions  # rewritten, loadable


def test_cache_entry_that_fails_in_any_way_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path))
    wl = registry.build("tian15/nn", 0.01)

    def broken(path):
        raise RuntimeError("a defect in an old loader")

    monkeypatch.setattr(registry, "load_workload", broken)
    assert registry.build("tian15/nn", 0.01).n_instructions == wl.n_instructions


def test_line_size_48(capsys):
    user_error(capsys, ["workloads", "--stats", "--line-size", "48"],
               "argument --line-size: must be a power of 2 from 4 to 1048576, not '48'")


def test_ctrl_c_during_imports(capsys, monkeypatch):
    import cli.main

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.main, "build_parser", interrupted)
    assert cli.main.main(["workloads"]) == 130
    assert capsys.readouterr().err == "gpucache: interrupted\n"


def test_importing_the_cli_loads_no_numba():
    # The heavy imports happen inside main(), where a Ctrl-C is caught.
    code = "import sys, cli.main; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True).stdout
    assert out.strip() == "False"


def test_a_result_file_read_back_is_one_line_naming_file_line_or_field(tmp_path):
    p = tmp_path / "r.json"
    for text, message in (('{"scale": 1,\n "rows": [1,', r"r\.json: line 2: not JSON"),
                          ("[1, 2]", r"r\.json: not a JSON object"),
                          (b"\xff\xfe{", r"r\.json: not JSON text")):
        p.write_bytes(text if isinstance(text, bytes) else text.encode())
        with pytest.raises(InputError, match=message):
            read_json_object(p)
    with pytest.raises(InputError, match=r"missing\.json: No such file"):
        read_json_object(tmp_path / "missing.json")
    p.write_text('{"scale": "1", "rows": []}')
    d = read_json_object(p)
    assert json_field(d, "rows", list, p) == []
    with pytest.raises(InputError, match=r"r\.json: field 'scale' missing or not a int or float$"):
        json_field(d, "scale", (int, float), p)
    with pytest.raises(InputError, match=r"field 'seed' missing or not a int$"):
        json_field(d, "seed", int, p)

