"""``gpucache sweep``: grid, Dask engine, results store (resume), failures, killed workers, table, plots.

One local Dask cluster of 2 worker processes serves the module (joined with
``--scheduler``, which is also how an existing cluster is used); one test
lets the command start its own (``--workers 2``). Every point is a tiny
synthetic trace on the interleaver (``--timing none``), with policies that
have no hooks, so nothing compiles. The test policy ``sweep-probe``
(tests/sweep_probe.py, a plugin) fails or kills its worker on request.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from cli.main import main
from golden.configs.loader import load_config
from golden.driver import simulate
from golden.errors import InputError
from golden.experiments.sweep.fields import apply, parse_set, parse_value
from golden.experiments.sweep.metrics import flatten_result
from golden.policies.base import get_policy
from golden.trace.builder import KernelBuilder
from golden.trace.io import save_workload
from golden.trace.model import Space, Workload
from tests.test_cli import tiny_workload

PLUGIN = "tests.sweep_probe"
GRID = ["--set", "l1.size=1K,16K", "--policy", "none,baseline", "--timing", "none"]


def reuse_workload() -> Workload:
    """4 CTAs x 64 threads; each thread loads a[tid] twice and a[gtid] once: L1 hits and misses."""
    kb = KernelBuilder("reuse", grid=(4, 1, 1), block=(64, 1, 1), shared_bytes=256)
    kb.load(0x100, 0x1000_0000 + kb.tid * 4)
    kb.compute(1)
    kb.load(0x108, 0x1000_0000 + kb.tid * 4)
    kb.load(0x110, 0x2000_0000 + kb.gtid * 64)
    kb.store(0x118, kb.tid * 4, space=Space.SHARED)
    return Workload(name="test/reuse", kernels=[kb.build()], params={}, source="test_sweep.py")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """The plugin for this process and the workers, two traces, a 2-worker cluster (1 retry)."""
    import dask
    from distributed import LocalCluster

    saved = os.environ.get("GPUCACHE_PLUGINS")
    os.environ["GPUCACHE_PLUGINS"] = PLUGIN
    d = tmp_path_factory.mktemp("sweep")
    traces = [d / "tiny.npz", d / "reuse.npz"]
    save_workload(traces[0], tiny_workload())
    save_workload(traces[1], reuse_workload())
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                         silence_logs=50) as cluster:
        yield {"dir": d, "traces": [str(t) for t in traces], "scheduler": cluster.scheduler_address}
    if saved is None:
        os.environ.pop("GPUCACHE_PLUGINS", None)
    else:
        os.environ["GPUCACHE_PLUGINS"] = saved


def sweep(env, store, *args, capsys=None, cluster=True):
    argv = ["sweep", "--trace", *env["traces"], "--store", str(store), "--no-progress", *args]
    if cluster:
        argv += ["--scheduler", env["scheduler"]]
    status = main(argv)
    out, err = capsys.readouterr() if capsys else ("", "")
    return status, out, err


def read_csv(path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def first(env):
    """The 8-point grid on the module's cluster, into a fresh store."""
    store = env["dir"] / "first"
    assert sweep(env, store, *GRID)[0] == 0
    return store


def test_results_are_direct_simulate_results(env, first):
    rows = read_csv(first / "results.csv")
    assert len(rows) == 8 and len(list((first / "points").glob("*.json"))) == 8
    base = load_config("tian15")
    from golden.trace.io import load_workload

    seen = set()
    for row in rows:
        wl = load_workload(env["traces"][0 if row["workload"] == "test/tiny" else 1])
        size = int(row["l1.size"])
        gpu = base.replace(l1=base.l1.replace(size=size))
        policy = None if row["policy"] == "none" else get_policy(row["policy"])
        direct = flatten_result(simulate(wl, gpu, policy, timing="none"))
        for k, v in direct.items():
            assert row[k] == ("" if v is None else repr(v) if isinstance(v, float) else str(v)), (row, k)
        seen.add((row["workload"], size, row["policy"]))
    assert len(seen) == 8
    reuse = [r for r in rows if r["workload"] == "test/reuse"]
    assert {r["l1.hit_rate"] for r in reuse} != {"0.0"}  # the grid measures something
    # The grid's order: workloads, policies, then l1.size.
    assert [(r["workload"], r["policy"], r["l1.size"]) for r in rows[:4]] == [
        ("test/tiny", "none", "1024"), ("test/tiny", "none", "16384"),
        ("test/tiny", "baseline", "1024"), ("test/tiny", "baseline", "16384")]
    assert (first / "results.parquet").is_file()
    assert (first / "plots" / "l1.hit_rate_vs_l1.size.png").stat().st_size > 1000


def test_resume_skips_points_done(env, first, capsys, tmp_path):
    store = tmp_path / "resume"
    import shutil

    shutil.copytree(first, store)
    status, out, _ = sweep(env, store, *GRID, capsys=capsys)
    assert status == 0 and "8 points: 0 run now, 8 already in the store, 0 failed" in out
    points = sorted((store / "points").glob("*.json"))
    points[0].unlink()
    points[1].write_text('{"key": "truncated')  # damaged: ignored, reported, rerun
    status, out, err = sweep(env, store, *GRID, capsys=capsys)
    assert status == 0 and "8 points: 2 run now, 6 already in the store, 0 failed" in out
    assert f"ignored a damaged store file points/{points[1].name}" in err
    assert (store / "results.csv").read_bytes() == (first / "results.csv").read_bytes()


def test_same_grid_twice_same_table_on_own_local_cluster(env, first, tmp_path, capsys):
    store = tmp_path / "again"
    status, out, _ = sweep(env, store, *GRID, "--workers", "2", cluster=False, capsys=capsys)
    assert status == 0 and "8 run now" in out
    assert (store / "results.csv").read_bytes() == (first / "results.csv").read_bytes()
    import pyarrow.parquet as pq

    assert pq.read_table(store / "results.parquet").equals(pq.read_table(first / "results.parquet"))


def test_failing_point_is_isolated_and_reported(env, tmp_path, capsys):
    store = tmp_path / "fail"
    args = ["--policy", "sweep-probe", "--set", "policy_params.sweep-probe.fail=0,1", "--timing", "none"]
    status, out, err = sweep(env, store, *args, capsys=capsys)
    assert status == 3
    assert "4 points: 2 run now, 0 already in the store, 2 failed" in out
    lines = err.strip().splitlines()
    assert len(lines) == 2
    assert all(line.startswith("gpucache sweep: failed: workload=test/") for line in lines)
    assert all("policy_params.sweep-probe.fail=1: RuntimeError: sweep-probe: asked to fail" in line
               for line in lines)
    assert len(read_csv(store / "results.csv")) == 2
    failures = [json.loads(f.read_text()) for f in (store / "failed").glob("*.json")]
    assert len(failures) == 2 and all("RuntimeError" in f["traceback"] for f in failures)
    status, out, _ = sweep(env, store, *args, capsys=capsys)  # a rerun retries only the failures
    assert status == 3 and "4 points: 0 run now, 2 already in the store, 2 failed" in out


def test_killed_worker_point_is_retried(env, tmp_path, capsys):
    store, marker = tmp_path / "killed", tmp_path / "died-once"
    args = ["--policy", "none,sweep-probe", "--set", f"policy_params.sweep-probe.die={marker}",
            "--set", "l1.size=1K,16K", "--timing", "none"]
    status, out, err = sweep(env, store, *args, capsys=capsys)
    assert marker.exists()  # a worker was killed (SIGKILL) in the middle of the sweep
    assert status == 0, err
    assert "8 points: 8 run now, 0 already in the store, 0 failed" in out
    records = [json.loads(f.read_text()) for f in (store / "points").glob("*.json")]
    assert len(records) == 8 and all(r["key"] and r["metrics"]["accesses"] > 0 for r in records)
    assert not list((store / "points").glob(".*"))  # no temporary file left behind


def test_worker_dying_every_time_is_reported_lost(env, tmp_path, capsys):
    store = tmp_path / "lost"
    args = ["--policy", "none,sweep-probe", "--set", "policy_params.sweep-probe.die=always",
            "--timing", "none"]
    status, out, err = main_with_one_trace(env, store, args, capsys)
    assert status == 3
    assert "2 points: 1 run now, 0 already in the store, 1 failed" in out
    assert err.strip() == ("gpucache sweep: failed: workload=test/tiny policy=sweep-probe timing=none "
                           "policy_params.sweep-probe.die=always: lost: its worker died on every try "
                           "(KilledWorker)")
    assert len(read_csv(store / "results.csv")) == 1


def main_with_one_trace(env, store, args, capsys):
    status = main(["sweep", "--trace", env["traces"][0], "--store", str(store), "--no-progress",
                   "--scheduler", env["scheduler"], *args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("args, message", [
    (["--set", "l1.sise=1K"], "--set: l1.sise: unknown field; did you mean size?"),
    (["--set", "nsm=4"], "--set: nsm: unknown field; did you mean n_sm?"),
    (["--set", "l1.assoc=0,4"], "--set: l1.assoc: must be"),
    (["--set", "l1.size=big"], "--set: l1.size: must be an integer, not 'big'"),
    (["--set", "l1.size"], "--set: expected FIELD=V1,V2,... not 'l1.size'"),
    (["--set", "l1.size=1K", "--set", "l1.size=2K"], "--set l1.size: given twice"),
    (["--set", "l4.size=1K"], "--set: l4.size: l4 is not a table of this config"),
    (["--set", "policy_params.pc-bypass.threshold=4"], "policy 'pc-bypass' is not swept"),
    (["--policy", "pc-bypass", "--set", "policy_params.pc-bypass.thresh=4"],
     "--set: policy_params.pc-bypass: policy 'pc-bypass' refuses these parameters"),
    (["--policy", "pc-bypas"], "--policy: unknown policy 'pc-bypas'; did you mean pc-bypass"),
    (["--workload", "no-such-workload"], "no-such-workload"),
    (["--timing", "none", "--set", "scheduler=gto,two-level"],
     "--set: scheduler=two-level: needs the timing model (--timing cycle)"),
    (["--timing", "fast"], "--timing: must be one of cycle, none, not 'fast'"),
    (["--metric", "l1.speed"], "--metric l1.speed: not a metric"),
    (["--scale", "2"], "--scale"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "--workers and --worker-retries set up"),
    (["--scheduler", "gto"], "the warp scheduler is a config field: --set scheduler=gto"),
])
def test_bad_input_is_one_line_naming_the_field(env, tmp_path, capsys, args, message):
    status = main(["sweep", "--trace", env["traces"][0], "--store", str(tmp_path / "s"), *args])
    out, err = capsys.readouterr()
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert message in err, err


def test_unusable_store_is_one_line(env, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "store.json").write_text("{")
    for store, message in ((tmp_path / "file", "--store"),
                           (tmp_path / "other", "a non-empty directory that is not a sweep store"),
                           (tmp_path / "bad", "store.json is not a gpucache sweep store")):
        status = main(["sweep", "--trace", env["traces"][0], "--store", str(store), "--timing", "none"])
        err = capsys.readouterr().err
        assert status == 2 and err.count("\n") == 1 and message in err, err


def test_field_values_and_paths():
    assert parse_value("16K") == 16384 and parse_value("2M") == 2 << 20
    assert parse_value("0.9") == 0.9 and parse_value("true") is True and parse_value("gto") == "gto"
    f = parse_set("policy_params.pc-bypass.threshold=4, 8,4")
    assert f.values == (4, 8) and f.path == ("policy_params", "pc-bypass", "threshold")
    assert f.policy == "pc-bypass"
    data = apply({"l1": {"size": 1}, "policy_params": {}}, {("l1", "size"): 2, f.path: 4})
    assert data == {"l1": {"size": 2}, "policy_params": {"pc-bypass": {"threshold": 4}}}
    with pytest.raises(InputError, match="n_sm is not a table"):
        apply({"n_sm": 4}, {("n_sm", "x"): 1})


def test_store_never_holds_partial_files(env, first):
    for f in Path(first).rglob("*"):
        assert not f.name.startswith(".") and not f.name.endswith(".tmp"), f


@pytest.mark.slow
def test_builtin_workload_on_the_timing_model(env, tmp_path, capsys):
    """A built-in workload at two scales, timed: the table's rows are the direct simulate results."""
    store = tmp_path / "timed"
    status = main(["sweep", "--workload", "rdgc/2dconv", "--scale", "0.05,0.1",
                   "--set", "scheduler=gto,lrr", "--store", str(store), "--no-progress",
                   "--scheduler", env["scheduler"]])
    out, err = capsys.readouterr()
    assert status == 0, err
    rows = read_csv(store / "results.csv")
    assert len(rows) == 4 and all(float(r["ipc"]) > 0 for r in rows)
    from golden.workloads import registry

    base = load_config("tian15")
    for row in rows:
        wl = registry.build("rdgc/2dconv", float(row["scale"]), 0)
        direct = flatten_result(simulate(wl, base.replace(scheduler=row["scheduler"]), timing="cycle"))
        assert {k: row[k] for k in ("cycles", "ipc", "l1.hit_rate", "l2.misses")} == \
            {k: repr(direct[k]) if isinstance(direct[k], float) else str(direct[k])
             for k in ("cycles", "ipc", "l1.hit_rate", "l2.misses")}
    assert all((store / "plots" / f"ipc_vs_{d}.png").is_file() for d in ("scale", "scheduler"))


def test_map_tasks_keeps_order_and_returns_failures(env):
    # Independent tasks on the sweep's cluster (how `compare --suite kim20 --workers N` runs its
    # workloads): results in call order, a raising call's exception as its result.
    import math

    from golden.experiments.sweep.engine import map_tasks

    done = []
    out = map_tasks(math.sqrt, [(16.0,), (-1.0,), (2.25,)], scheduler=env["scheduler"], on_done=done.append)
    assert out[0] == 4.0 and out[2] == 1.5 and isinstance(out[1], ValueError)
    assert sorted(done) == [0, 1, 2]
