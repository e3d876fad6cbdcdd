"""The command line: listing, running, traces, configs, and how mistakes are reported."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli import output
from cli.main import main
from cli.progress import DELAY, progress
from golden.configs import config_to_dict, load_config, preset
from golden.errors import InputError
from golden.trace.builder import KernelBuilder
from golden.trace.io import load_workload, save_workload
from golden.trace.model import Space, Workload

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def trace_cache(tmp_path_factory, monkeypatch):
    # One trace cache for the whole session: the built-in workloads are built once.
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path_factory.getbasetemp() / "trace-cache"))


def run_main(capsys, *argv):
    """``main(argv)`` -> (status, stdout, stderr)."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def assert_user_error(status, out, err, message):
    assert status == 2
    assert err.endswith("\n") and err.count("\n") == 1, err  # exactly one line
    assert err.startswith("gpucache: error: "), err
    assert message in err, err
    assert "Traceback" not in err


# --- small traces made by hand -----------------------------------------------------------------

def tiny_workload() -> Workload:
    """2 CTAs x 64 threads; each thread loads a[gtid] (4 B), two compute, stores to shared.

    4 warps, each: load (128 B = two 64 B lines), 2 compute, shared store = 4 instructions.
    Global: 4 instructions, 8 line requests, 8 distinct 64 B lines.
    """
    kb = KernelBuilder("tiny", grid=(2, 1, 1), block=(64, 1, 1), shared_bytes=256)
    kb.load(0x100, 0x1000_0000 + kb.gtid * 4)
    kb.compute(2)
    kb.store(0x108, kb.tid * 4, space=Space.SHARED)
    return Workload(name="test/tiny", kernels=[kb.build()], params={"n": 128}, source="test_cli.py")


@pytest.fixture
def tiny_npz(tmp_path):
    p = tmp_path / "tiny.npz"
    save_workload(p, tiny_workload())
    return p


TRACEG = """\
-kernel name = _Z3addPfS_
-kernel id = 1
-grid dim = (2,1,1)
-block dim = (64,1,1)
-shmem = 0
-nregs = 8
-shmem base_addr = 0x00007f0000000000
-local mem base_addr = 0x00007f1000000000
-accelsim tracer version = 4
-enable lineinfo = 0

#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width ...

#BEGIN_TB

thread block = 0,0,0

warp = 0
insts = 3
0000 ffffffff 1 R1 IMAD.MOV.U32 1 R2 0
0010 ffffffff 1 R4 LDG.E 1 R2 4 1 0x10000000 4
0020 ffffffff 0 EXIT 0 0

warp = 1
insts = 3
0000 ffffffff 1 R1 IMAD.MOV.U32 1 R2 0
0010 ffffffff 1 R4 LDG.E 1 R2 4 1 0x10000080 4
0020 ffffffff 0 EXIT 0 0
#END_TB

#BEGIN_TB

thread block = 1,0,0

warp = 0
insts = 2
0010 ffffffff 1 R4 LDG.E 1 R2 4 1 0x10000100 4
0030 0000ffff 0 STG.E 2 R2 R4 4 1 0x10000100 4

warp = 1
insts = 1
0010 ffffffff 1 R4 LDG.E 1 R2 4 1 0x10000180 4
#END_TB
"""


@pytest.fixture
def accelsim_dir(tmp_path):
    d = tmp_path / "acc"
    d.mkdir()
    (d / "kernel-1.traceg").write_text(TRACEG)
    (d / "kernelslist.g").write_text("MemcpyHtoD,0x0000000010000000,1024\nkernel-1.traceg\n")
    return d


# --- workloads ---------------------------------------------------------------------------------

def test_workloads_list(capsys):
    status, out, err = run_main(capsys, "workloads")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["workload", "suite", "paper", "size", "description"]
    row = next(line for line in lines if line.startswith("tian15/matrixmul "))
    assert row.split()[1:3] == ["tian15", "512x512"]


def test_workloads_suite(capsys):
    status, out, _ = run_main(capsys, "workloads", "--suite", "rdgc")
    assert status == 0
    rows = out.splitlines()[2:]
    assert rows and all(r.startswith("rdgc/") for r in rows)


def test_workloads_names(capsys):
    status, out, _ = run_main(capsys, "workloads", "tian15/spmv", "rdgc/nw")
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()[2:]] == ["rdgc/nw", "tian15/spmv"]
    assert_user_error(*run_main(capsys, "workloads", "nosuch"), "unknown workload 'nosuch'")


def test_workloads_stats(capsys):
    status, out, err = run_main(capsys, "workloads", "--stats", "--scale", "0.05",
                                "matrixmul", "tian15/spmv")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "tian15 (scale 0.05, seed 0, 64 B lines)"
    assert "paper MI" in lines[1]
    rows = [line.split() for line in lines[3:]]
    assert [r[0] for r in rows] == ["tian15/matrixmul", "tian15/spmv"]
    assert "395.6" in rows[0] and "215.8" in rows[1]  # tian15 Table 2's MI beside ours


# --- run ---------------------------------------------------------------------------------------

def check_result_consistency(res: dict) -> None:
    kernels, totals = res["kernels"], res["totals"]
    for key, value in totals.items():
        if key != "ipc":
            assert value == sum(k[key] for k in kernels), key
    # On the timing model, requests merged into an MSHR or sent for missing sectors call no
    # hook, so the L1's own counters leave them out.
    t = res.get("timing", {}).get("l1", {})
    unhooked = t.get("mshr_merges", 0) + t.get("sector_misses", 0)
    assert res["caches"]["l1"]["accesses"] + unhooked == totals["accesses"]
    for level, s in res["caches"].items():
        assert s["accesses"] == s["reads"] + s["writes"], level
        assert s["reads"] == s["read_hits"] + s["read_misses"], level
        assert s["writes"] == s["write_hits"] + s["write_misses"], level
        if s["accesses"]:
            hits = s["read_hits"] + s["write_hits"]
            assert s["hit_rate"] == pytest.approx(hits / s["accesses"])


def test_run_json(capsys, tmp_path):
    path = tmp_path / "out" / "mm.json"
    status, out, err = run_main(capsys, "run", "--workload", "matrixmul", "--scale", "0.05",
                                "--json", str(path))
    assert status == 0, err
    res = json.loads(path.read_text())
    assert set(res) == {"gpucache_version", "workload", "config", "policy", "scheduler", "timing",
                        "dependences", "seconds", "kernels", "totals", "caches", "policy_stats"}
    assert res["dependences"] == "next-memory"
    t = res["timing"]
    assert t["cycles"] == res["totals"]["cycles"] > 0 and 0 < t["occupancy"] <= 1
    assert t["ipc"] == pytest.approx(res["totals"]["instructions"] / t["cycles"], abs=1e-3)
    assert sum(t["issue_slots"].values()) == pytest.approx(1, abs=1e-3)
    assert t["series"]["columns"] == ["cycle", "instructions", "resident_warps", "l1_accesses", "l1_hits",
                                      "active_warps", "vta_hits"]
    assert "Timing (cycle-level model)" in out
    assert res["gpucache_version"] == output.version()
    assert res["workload"]["name"] == "tian15/matrixmul"
    assert (res["workload"]["params"]["scale"], res["workload"]["params"]["seed"]) == (0.05, 0)
    assert res["config"] == json.loads(json.dumps(config_to_dict(preset("tian15"))))
    assert (res["policy"], res["scheduler"], res["policy_stats"]) == (None, "oldest", {})
    assert set(res["caches"]) == {"l1", "l2", "l3"}
    assert set(res["caches"]["l1"]) >= {"accesses", "reads", "writes", "read_hits", "read_misses",
                                        "write_hits", "write_misses", "fills", "bypasses",
                                        "evictions", "writebacks", "hit_rate"}
    assert res["totals"]["accesses"] > 0 and res["totals"]["instructions"] > 0
    check_result_consistency(res)
    # The printed tables show the same numbers.
    assert "L1: 8 x 16 KB, 8-way, 64 B lines, plru, write-through" in out
    assert "L2: 256 KB, 16-way" in out and "L3: 4 MB, 16-way" in out
    l1_all = next(line for line in out.splitlines() if line.startswith("all "))
    assert l1_all.split()[1] == f"{res['caches']['l1']['accesses']:,}"
    total = next(line for line in out.splitlines() if line.startswith("total "))
    assert total.split()[1] == f"{res['totals']['instructions']:,}"


def test_run_trace_exact_counts(capsys, tmp_path, tiny_npz):
    path = tmp_path / "tiny.json"
    status, _, err = run_main(capsys, "run", "--trace", str(tiny_npz), "--json", str(path))
    assert status == 0, err
    res = json.loads(path.read_text())
    assert res["workload"]["trace"] == str(tiny_npz)
    t = res["totals"]
    # The timing model counts instructions of the GPU's warp width: the tian15 preset's 64-wide
    # wavefronts issue trace warps 2j and 2j+1 as one (docs/timing.md), so the 16 warp
    # instructions of the trace are 8; the interleaver counts trace warps.
    assert (t["instructions"], t["global_instructions"], t["shared_instructions"],
            t["other_memory_instructions"], t["accesses"]) == (8, 2, 2, 0, 8)
    # Eight distinct lines, read once each: cold misses all the way down.
    for level in ("l1", "l2", "l3"):
        s = res["caches"][level]
        assert (s["reads"], s["read_hits"], s["read_misses"], s["writes"]) == (8, 0, 8, 0), level
    check_result_consistency(res)


def test_run_config_file_and_scheduler(capsys, tmp_path, tiny_npz):
    cfg = tmp_path / "two.toml"
    cfg.write_text('base = "rdgc"\nn_sm = 2\n')
    path = tmp_path / "r.json"
    status, out, err = run_main(capsys, "run", "--trace", str(tiny_npz), "--config", str(cfg),
                                "--scheduler", "gto", "--json", str(path))
    assert status == 0, err
    res = json.loads(path.read_text())
    assert (res["config"]["name"], res["config"]["n_sm"], res["scheduler"]) == ("two", 2, "gto")
    assert res["config"]["l1"] == json.loads(json.dumps(config_to_dict(preset("rdgc"))["l1"]))
    assert "L1: 2 x 32 KB, 4-way, 128 B lines, lru, write-evict" in out


def test_run_accelsim_trace(capsys, accelsim_dir):
    status, out, err = run_main(capsys, "run", "--trace", str(accelsim_dir))
    assert status == 0, err
    assert "_Z3addPfS_" in out


def test_failed_run_writes_nothing(capsys, tmp_path, monkeypatch):
    import cli.run

    def fail(*args, **kwargs):
        raise InputError("trace.npz: kernel 0: field 'cta' of instruction 3 is outside 0..1")

    monkeypatch.setattr(cli.run, "simulate", fail)
    path = tmp_path / "r.json"
    status, out, err = run_main(capsys, "run", "--workload", "matrixmul", "--scale", "0.05",
                                "--json", str(path))
    assert_user_error(status, out, err, "field 'cta' of instruction 3")
    assert list(tmp_path.iterdir()) == []


def test_bug_keeps_traceback(capsys, monkeypatch):
    import cli.run

    def bug(*args, **kwargs):
        raise ZeroDivisionError("a defect")

    monkeypatch.setattr(cli.run, "simulate", bug)
    with pytest.raises(ZeroDivisionError):
        main(["run", "--workload", "matrixmul", "--scale", "0.05"])


# --- trace convert / info ----------------------------------------------------------------------

def test_trace_convert_and_info(capsys, tmp_path, accelsim_dir):
    out_npz = tmp_path / "conv" / "add.npz"
    status, out, err = run_main(capsys, "trace", "convert", str(accelsim_dir), str(out_npz))
    assert status == 0, err
    assert out.strip() == f"{out_npz}: 1 kernel, 9 warp instructions (gpucache-trace version 1)"
    wl = load_workload(out_npz)
    assert [k.name for k in wl.kernels] == ["_Z3addPfS_"]
    assert len(wl.kernels[0].insts) == 5

    status, out, err = run_main(capsys, "trace", "info", str(out_npz))
    assert status == 0, err
    lines = out.splitlines()
    assert "format    gpucache-trace version 1" in lines
    assert "workload  accelsim/acc" in lines
    row = next(line for line in lines if "_Z3addPfS_" in line).split()
    # kernel, grid, block, instructions, global, shared, local, const, texture, barriers, PCs
    assert row == ["0", "_Z3addPfS_", "2x1x1", "64x1x1", "9", "5", "0", "0", "0", "0", "0", "2"]


def test_trace_info_spaces(capsys, tiny_npz):
    status, out, err = run_main(capsys, "trace", "info", str(tiny_npz))
    assert status == 0, err
    row = next(line for line in out.splitlines() if line.startswith("0 ")).split()
    assert row == ["0", "tiny", "2x1x1", "64x1x1", "16", "4", "4", "0", "0", "0", "0", "2"]
    assert "params    n=128" in out.splitlines()


# --- configs -----------------------------------------------------------------------------------

def test_configs_list(capsys):
    status, out, _ = run_main(capsys, "configs")
    assert status == 0
    names = [line.split()[0] for line in out.splitlines()[2:]]
    assert names == ["tian15", "kim20", "ciao18", "rdgc"]


def test_configs_show_round_trip(capsys, tmp_path):
    status, out, _ = run_main(capsys, "configs", "show", "ciao18")
    assert status == 0
    (tmp_path / "ciao18.toml").write_text(out)
    assert load_config(str(tmp_path / "ciao18.toml")) == preset("ciao18")


# --- mistakes: one line, status 2, no file left behind -----------------------------------------

def test_unknown_workload(capsys, tmp_path):
    path = tmp_path / "r.json"
    status, out, err = run_main(capsys, "run", "--workload", "matrixmull", "--json", str(path))
    assert_user_error(status, out, err, "unknown workload 'matrixmull'; did you mean")
    assert not path.exists()


def test_invalid_config_field(capsys, tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text('base = "tian15"\n[l1]\nassoc = 0\n')
    path = tmp_path / "r.json"
    status, out, err = run_main(capsys, "run", "--workload", "matrixmul", "--scale", "0.05",
                                "--config", str(cfg), "--json", str(path))
    assert_user_error(status, out, err, f"{cfg}:3: l1.assoc: must be a positive integer, not 0")
    assert not path.exists()


@pytest.mark.parametrize("cmd", [["run", "--trace"], ["trace", "info"]])
def test_corrupt_trace(capsys, tmp_path, cmd):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04 this is not a zip archive")
    path = tmp_path / "r.json"
    extra = ["--json", str(path)] if cmd[0] == "run" else []
    status, out, err = run_main(capsys, *cmd, str(bad), *extra)
    assert_user_error(status, out, err, f"{bad}: not a gpucache trace file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.npz"]


def test_convert_bad_accelsim_leaves_nothing(capsys, tmp_path, accelsim_dir):
    (accelsim_dir / "kernel-1.traceg").write_text(TRACEG.replace("insts = 2", "insts = x"))
    out_npz = tmp_path / "out.npz"
    status, out, err = run_main(capsys, "trace", "convert", str(accelsim_dir), str(out_npz))
    assert_user_error(status, out, err, "kernel-1.traceg:")
    assert not out_npz.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["acc"]


@pytest.mark.parametrize("value", ["0", "2", "-0.5", "abc", "nan"])
def test_bad_scale(capsys, value):
    status, out, err = run_main(capsys, "run", "--workload", "matrixmul", "--scale", value)
    assert_user_error(status, out, err,
                      f"argument --scale: must be a number in (0, 1], not '{value}'")


def test_scale_with_trace(capsys, tiny_npz):
    status, out, err = run_main(capsys, "run", "--trace", str(tiny_npz), "--scale", "0.5")
    assert_user_error(status, out, err, "--scale and --seed size a built-in --workload")


@pytest.mark.slow  # compiles the hooked cache engine (about a minute)
def test_run_with_policy(capsys, tmp_path, tiny_npz):
    path = tmp_path / "p.json"
    status, out, err = run_main(capsys, "run", "--trace", str(tiny_npz), "--policy", "pc-bypass",
                                "--json", str(path))
    assert status == 0, err
    res = json.loads(path.read_text())
    assert res["policy"] == "pc-bypass"
    check_result_consistency(res)


def test_policy_params_the_policy_does_not_take(capsys, tmp_path):
    cfg = tmp_path / "p.toml"
    cfg.write_text('base = "tian15"\n[policy_params.pc-bypass]\nno_such_knob = 1\n')
    status, out, err = run_main(capsys, "run", "--workload", "matrixmul", "--config", str(cfg),
                                "--policy", "pc-bypass")
    # Refused when the config is loaded, naming the file, line and field.
    assert_user_error(status, out, err, "p.toml:2: policy_params.pc-bypass: ")
    assert "no_such_knob" in err


def test_unknown_policy(capsys):
    status, out, err = run_main(capsys, "run", "--workload", "matrixmul", "--scale", "0.05",
                                "--policy", "no-such-policy")
    assert_user_error(status, out, err, "no-such-policy")


def test_unknown_suite_and_preset(capsys):
    assert_user_error(*run_main(capsys, "workloads", "--suite", "nope"), "unknown suite 'nope'")
    assert_user_error(*run_main(capsys, "configs", "show", "tian16"), "did you mean tian15?")


def test_missing_arguments(capsys):
    assert_user_error(*run_main(capsys), "required")
    assert_user_error(*run_main(capsys, "run"),
                      "one of the arguments --workload --trace is required")
    assert_user_error(*run_main(capsys, "run", "--workload", "a", "--trace", "b"),
                      "not allowed with")


def test_version(capsys):
    status, out, _ = run_main(capsys, "--version")
    assert status == 0 and out.strip() == f"gpucache {output.version()}"


def test_entry_point_subprocess(tmp_path):
    # The installed command, in a fresh process: one line, status 2, no traceback.
    exe = Path(sys.executable).with_name("gpucache")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.main"]
    env = {**os.environ, "GPUCACHE_CACHE": str(tmp_path)}
    p = subprocess.run([*cmd, "run", "--workload", "nosuch"], capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=120)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr.startswith("gpucache: error: unknown workload 'nosuch'")
    assert p.stderr.count("\n") == 1


# --- output helpers and the progress bar -------------------------------------------------------

def test_format_size():
    assert [output.format_size(n) for n in (4 << 20, 768 << 10, 1536 << 10, 48, 1000)] == \
        ["4 MB", "768 KB", "1536 KB", "48 B", "1000 B"]


def test_format_table():
    text = output.format_table(("name", "n", "rate"), [("a", 1234, "5.00%"), ("bbb", 7, "-")])
    assert text.splitlines() == [
        "name      n   rate",
        "----  -----  -----",
        "a     1,234  5.00%",
        "bbb       7      -",
    ]


def test_write_json_is_atomic(tmp_path):
    path = tmp_path / "r.json"
    with pytest.raises(TypeError):
        output.write_json(path, {"x": object()})
    assert list(tmp_path.iterdir()) == []
    import numpy as np

    output.write_json(path, {"a": np.int64(3), "b": (1, 2), "c": float("nan"), "d": np.arange(2)})
    assert json.loads(path.read_text()) == {"a": 3, "b": [1, 2], "c": None, "d": [0, 1]}


def test_json_text_puts_long_number_lists_on_one_line_with_jsonable_s_values():
    import numpy as np

    n = output.BULK_ITEMS + 1
    obj = {"rows": np.arange(2 * n).reshape(n, 2), "flat": list(range(n)), "short": [1, 2],
           "nan": [float("nan")] * n, "gen": [np.int64(5)] * n, "dicts": [{"a": i} for i in range(n)],
           "text": ["x"] * n, "odd": [np.float32(0.5)] + [(1, 2)] * n}
    text = output.json_text(obj)
    assert json.loads(text) == output.jsonable(obj)
    lines = text.splitlines()
    assert '  "rows": [[0,1],[2,3],' in text and '  "flat": [0,1,2,' in text  # one line each
    assert '    1,' in lines and '    2' in lines  # a short list is indented as before
    assert json.loads(text)["nan"] == [None] * n  # a NaN list goes through jsonable
    assert len(lines) < 5 * n + 20  # dicts (3 lines each), strings and NaNs one per line, numbers not


def test_finish_compare_prints_sources_plots_and_writes_json(tmp_path, capsys):
    import argparse
    import types

    calls = []
    mod = types.ModuleType("fake_plots")
    mod.draw = lambda rows, d: calls.append((rows, d)) or [Path(d) / "a.png"]
    sys.modules["fake_plots"] = mod
    try:
        args = argparse.Namespace(plot=str(tmp_path / "p"), json=str(tmp_path / "r.json"))
        output.finish_compare(args, ["Fig. 1: x"], {"rows": [1]}, "fake_plots", ([1],), "draw")
        assert calls == [([1], str(tmp_path / "p"))]
        wrote = f"wrote {tmp_path / 'p' / 'a.png'}"
        assert capsys.readouterr().out.splitlines() == ["  paper: Fig. 1: x", wrote]
        assert json.loads((tmp_path / "r.json").read_text()) == {"rows": [1]}
        # Neither --plot nor --json: the sources only, and the chart module is not imported.
        output.finish_compare(argparse.Namespace(plot=None, json=None), ["s"], {}, "no_such_module")
        assert capsys.readouterr().out == "  paper: s\n"
    finally:
        del sys.modules["fake_plots"]


def test_progress_only_when_asked_or_on_a_tty():
    sink = io.StringIO()  # not a terminal
    assert progress(10, "x", file=sink).disable
    assert progress(10, "x", enabled=False, file=sink).disable
    bar = progress(10, "x", enabled=True, file=sink)
    assert not bar.disable and bar.delay == DELAY == 2.0
    bar.update(10)
    bar.close()
    assert sink.getvalue() == ""  # a run shorter than the delay draws nothing


def test_ci_script():
    text = (ROOT / ".ci" / "run").read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in text and "make test" in text
    assert os.access(ROOT / ".ci" / "run", os.X_OK)
    assert os.access(ROOT / "scripts" / "setup.sh", os.X_OK)


def test_a_deadlocked_run_is_one_line_and_status_4(capsys, tmp_path):
    # PVC's CTAs wait at a barrier with more warps than a limit of 4 lets issue: no warp can go on.
    out = tmp_path / "r.json"
    assert main(["run", "--workload", "ciao18/pvc", "--scale", "0.02", "--config", "ciao18",
                 "--warp-limit", "4", "--no-progress", "--json", str(out)]) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("gpucache: error: deadlock in kernel 'prescan' at cycle ")
    assert "blocked on the barrier of SM" in err
    assert not out.exists()
