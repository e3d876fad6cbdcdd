"""``gpucache rd``: the hand-worked kernel through the command line, sweeps, plots, and bad input."""

from __future__ import annotations

import json

import pytest

from cli.main import main
from golden.trace.io import save_workload
from golden.trace.model import Workload
from tests.test_rd_model import _kernel

# The machine of tests/test_rd_model.py::test_algorithm1_by_hand, as a config file.
MACHINE = """base = "rdgc"
n_sm = 2
schedulers_per_sm = 2
max_ctas_per_sm = 1
l2_partitions = 1

[l1]
size = 4096
assoc = 4
ports = 2
mshrs = 32
mshr_merges = 8

[l2]
size = 16384
assoc = 4
banks = 1
ports = 2
"""


@pytest.fixture(autouse=True)
def trace_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path_factory.getbasetemp() / "trace-cache"))


@pytest.fixture
def files(tmp_path):
    trace = tmp_path / "k.npz"
    save_workload(trace, Workload("k", [_kernel()]))
    cfg = tmp_path / "m.toml"
    cfg.write_text(MACHINE)
    return trace, cfg


def run_main(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_hand_worked_kernel(capsys, tmp_path, files):
    trace, cfg = files
    out_json = tmp_path / "r.json"
    status, out, err = run_main(capsys, "rd", "--trace", str(trace), "--config", str(cfg),
                                "--latency", "fixed:2", "--json", str(out_json))
    assert status == 0, err
    assert "L1        12    16.67%" in out
    assert "transactions: L1->L2 13  L2->DRAM 11" in out
    d = json.loads(out_json.read_text())
    assert (d["l1"]["reads"], d["l1"]["read_hits"], d["l1"]["steps"]) == (12, 2, 6)
    assert (d["l2"]["merges"], d["l2"]["steps"], d["transactions"]["l2_to_dram"]) == (2, 8, 11)
    assert d["options"]["latency"] == "fixed:2" and d["sweep"] is None


def test_sweep_json_and_plot(capsys, tmp_path):
    png, js = tmp_path / "s.png", tmp_path / "s.json"
    status, out, err = run_main(capsys, "rd", "--workload", "rdgc/gramschmidt", "--scale", "0.05",
                                "--sweep", "l1.size=4K,8K,16K,32K", "--plot", str(png), "--json", str(js))
    assert status == 0, err
    assert "sweep of l1.size: 1 RD pass" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    d = json.loads(js.read_text())
    points = d["sweep"]["points"]
    assert [p["value"] for p in points] == [4096, 8192, 16384, 32768]
    ratios = [p["read_hit_ratio"] for p in points]
    assert ratios == sorted(ratios)  # LRU inclusion: a larger cache never hits less
    assert ratios[-1] == d["l1"]["read_hit_ratio"]  # 32 KB is the configured L1
    # Per-set counting: one pass per point plus the configured one.
    status, out, _ = run_main(capsys, "rd", "--workload", "rdgc/gramschmidt", "--scale", "0.05",
                              "--counting", "per-set", "--sweep", "l1.assoc=2,4")
    assert status == 0 and "sweep of l1.assoc: 3 RD passes" in out


@pytest.mark.parametrize("argv, message", [
    (["--mapping", "zigzag"], "mapping: unknown CTA-to-SM mapping 'zigzag'"),
    (["--latency", "poisson:3"], "latency: unknown model 'poisson'"),
    (["--latency", "fixed:0"], "latency: fixed latency must be an integer >= 1"),
    (["--l1-mshrs", "0"], "l1_mshrs: must be a positive integer, not 0"),
    (["--l2-mshrs", "0"], "l2_mshrs: must be a positive integer, not 0"),
    (["--sweep", "l3.size=1K"], "sweep: unknown field 'l3.size'"),
    (["--sweep", "l1.size=8K,abc"], "sweep: l1.size: 'abc' is not a positive integer"),
    (["--plot", "x.png"], "--plot draws a sweep"),
])
def test_bad_input(capsys, files, argv, message):
    trace, cfg = files
    status, out, err = run_main(capsys, "rd", "--trace", str(trace), "--config", str(cfg), *argv)
    assert status == 2 and err.count("\n") == 1 and message in err, err
    assert err.startswith("gpucache: error: ")


@pytest.mark.parametrize("field", ["banks", "ports"])
def test_zero_banks_or_ports_in_the_config(capsys, tmp_path, files, field):
    trace, _ = files
    cfg = tmp_path / "z.toml"
    cfg.write_text(MACHINE.replace("ports = 2\nmshrs", f"{field} = 0\nmshrs", 1))
    status, _, err = run_main(capsys, "rd", "--trace", str(trace), "--config", str(cfg))
    assert status == 2 and err.count("\n") == 1
    assert f"l1.{field}: must be a positive integer, not 0" in err, err
