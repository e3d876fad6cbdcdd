"""benchmarks/bench_rd.py: the RD-only timing, in this process and on a Dask local cluster (``--jobs``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmark_module import load_benchmark

bench = load_benchmark("bench_rd")

NAMES = ["rdgc/gramschmidt", "rdgc/hotspot"]
SCALE = 0.02


@pytest.fixture(scope="module")
def serial():
    return {r["name"]: r for r in bench.rd_only(NAMES, SCALE, 1)}


def test_rd_only_rows(serial):
    assert set(serial) == set(NAMES)
    for r in serial.values():
        assert r["accesses"] > 0 and r["wall"] > 0 and r["cpu"] >= 0 and r["rss_gib"] > 0


def test_jobs_order_is_largest_first():
    assert max(bench.SIZE, key=bench.SIZE.get) == "rdgc/gesummv"
    assert len(bench.SIZE) == 18


@pytest.mark.slow
def test_jobs_on_a_local_cluster_gives_the_serial_results(serial):
    # As a user runs it: the script's functions reach the Dask workers from its __main__.
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, str(root / "benchmarks" / "bench_rd.py"), "--rd-only", "--jobs", "2",
           "--scale", str(SCALE), "--workloads", *NAMES]
    out = subprocess.run(cmd, capture_output=True, text=True,
                         env=env, timeout=600, check=True).stdout
    assert "on 2 Dask workers, largest first" in out and "worker 0:" in out and "worker 1:" in out
    acc = {line.split()[0]: int(line.split()[1].replace(",", "")) for line in out.splitlines()
           if line.startswith("rdgc/")}
    assert acc == {n: r["accesses"] for n, r in serial.items()}
