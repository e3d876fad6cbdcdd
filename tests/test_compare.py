"""``gpucache compare``: tian15's four configurations on workloads of a suite.

Each run is almost all compilation of hooked cache engines (the reuse
observer, the PC-based and the counter-based policies: 8-15 s each on the
2-core machine), so the checks share one module-scoped run per command.
The full command (all four configurations) compiles three of them and is
``slow``; the same checks also run on ``--configs baseline pc-bypass``,
whose two engines the policy and metrics tests compile in the same process.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json

import numpy as np
import pytest

from cli.main import main
from cli.output import where_ran

# Per-workload metrics the suite average covers (the printed table shows all but the last).
COLUMNS = ("zero_reuse", "misses_norm_pc-bypass", "misses_norm_counter-bypass", "misses_norm_baseline-32KB",
           "bypass_share", "coverage", "fp_rate", "fp_rate_sdbp", "energy_ratio", "dynamic_energy_ratio")
ROW_KEYS = COLUMNS + ("workload", "accesses", "cycles", "l1", "predictor", "lost_hits", "wrongly_bypassed",
                      "energy_baseline_nj", "energy_pc_bypass_nj")
CONFIGS = ("baseline", "pc-bypass", "counter-bypass", "baseline-32KB")
FIGURES = ("fig1_zero_reuse.png", "fig6_bypass_share.png", "fig8_misses.png", "fig11_coverage_fp.png")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
N_SM = 8  # the tian15 preset (tian15 Table 1)
# tian15 Table 3, nJ per access: tag + data array, baseline and bypassing L1; static mW.
NJ_BASE, NJ_BYPASS, NJ_TABLE = 0.00134096 + 0.106434, 0.0017867 + 0.106434, 0.000126232
MW_BASE, MW_BYPASS = 7.538627, 7.72904


def gpucache(*argv: str) -> tuple[int, str, str]:
    """``main(argv)`` -> (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module", params=[pytest.param(CONFIGS, id="all", marks=pytest.mark.slow),
                                        pytest.param(CONFIGS[:2], id="pc-bypass")])
def compared(request, tmp_path_factory):
    """One ``compare`` run: (configs, status, stdout, stderr, JSON document, plot directory)."""
    configs = request.param
    with pytest.MonkeyPatch.context() as mp:
        # Built workloads go to a temporary trace cache, not the user's.
        mp.setenv("GPUCACHE_CACHE", str(tmp_path_factory.getbasetemp() / "trace-cache"))
        out_dir = tmp_path_factory.mktemp("compare")
        path, plots = out_dir / "cmp.json", out_dir / "plots"
        only = [] if configs == CONFIGS else ["--configs", *configs]  # the default is all four
        status, out, err = gpucache("compare", "--suite", "tian15", "--workloads", "spmv", "nw",
                                    "--scale", "0.05", "--json", str(path), "--plot", str(plots),
                                    "--no-progress", *only)
    data = json.loads(path.read_text()) if path.exists() else None
    return configs, status, out, err, data, plots


def columns(configs) -> tuple[str, ...]:
    """The column keys a run of ``configs`` fills (a normalised-miss column per other config)."""
    prefix = "misses_norm_"
    return tuple(k for k in COLUMNS if not k.startswith(prefix) or k.removeprefix(prefix) in configs)


def test_status_and_table(compared):
    configs, status, out, err, _, _ = compared
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("suite tian15  config tian15  scale 0.05  configs " + ", ".join(configs))
    firsts = [ln.split()[0] for ln in lines[3:7]]
    assert firsts == ["spmv", "nw", "average", "tian15"]


def test_json_rows(compared):
    configs, _, _, _, data, _ = compared
    assert data["suite"] == "tian15" and data["scale"] == 0.05 and data["configs"] == list(configs)
    rows = data["rows"]
    assert [r["workload"] for r in rows] == ["tian15/spmv", "tian15/nw"]
    keys = set(ROW_KEYS) - set(COLUMNS) | set(columns(configs))
    for r in rows:
        assert keys <= set(r), keys - set(r)
        assert set(r["l1"]) == set(configs)
        base, pc = r["l1"]["baseline"], r["l1"]["pc-bypass"]
        assert r["accesses"] == base["accesses"] > 0
        # Every configuration sees the same stream.
        assert {c["accesses"] for c in r["l1"].values()} == {base["accesses"]}
        # The predictor looks up every L1 access and predicts on every load miss.
        assert r["predictor"]["table_lookups"] == pc["accesses"]
        assert r["predictor"]["predictions"] == pc["read_misses"]
        assert r["misses_norm_pc-bypass"] == pc["read_misses"] / base["read_misses"]
        # Energies from tian15 Table 3 (static: 8 L1s over the run's cycles at 1 GHz).
        e = r["energy_baseline_nj"]
        assert e["dynamic"] == pytest.approx((base["accesses"] + base["fills"]) * NJ_BASE, rel=1e-12)
        assert e["static"] == pytest.approx(MW_BASE * N_SM * r["cycles"] * 1e-3, rel=1e-12)
        table = sum(r["predictor"][k] for k in ("table_lookups", "table_increments", "table_decrements"))
        e = r["energy_pc_bypass_nj"]
        assert e["dynamic"] == pytest.approx((pc["accesses"] + pc["fills"]) * NJ_BYPASS + table * NJ_TABLE,
                                             rel=1e-12)
        assert e["static"] == pytest.approx(MW_BYPASS * N_SM * r["cycles"] * 1e-3, rel=1e-12)
        assert r["energy_ratio"] == pytest.approx(e["total"] / r["energy_baseline_nj"]["total"], rel=1e-12)


def test_json_average_is_the_mean_of_the_rows(compared):
    configs, _, _, _, data, _ = compared
    rows, avg = data["rows"], data["average"]
    assert set(avg) == set(columns(configs)) | {"zero_reuse_max", "energy_saving_max"}
    for key in columns(configs):
        assert avg[key] == pytest.approx(np.mean([r[key] for r in rows]), rel=1e-12), key
    assert avg["zero_reuse_max"] == max(r["zero_reuse"] for r in rows)
    assert avg["energy_saving_max"] == pytest.approx(1 - min(r["energy_ratio"] for r in rows), rel=1e-12)
    assert data["storage"]["pc-bypass"]["per_l1_bytes"] == 288  # tian15 Section 4.1: 64 B + 224 B


def test_plots_are_pngs(compared):
    _, _, out, _, _, plots = compared
    assert sorted(p.name for p in plots.iterdir()) == sorted(FIGURES)
    for name in FIGURES:
        assert (plots / name).read_bytes()[:8] == PNG_MAGIC
        assert f"wrote {plots / name}" in out


@pytest.mark.parametrize("argv, message", [
    (("--suite", "nosuch"), "unknown suite 'nosuch'"),
    (("--workloads", "nosuch"), "unknown workload 'tian15/nosuch'"),
    (("--configs", "nosuch"), "invalid choice: 'nosuch'"),
])
def test_user_errors(tmp_path, monkeypatch, argv, message):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    path = tmp_path / "out.json"
    status, out, err = gpucache("compare", *argv, "--scale", "0.05", "--json", str(path),
                                "--plot", str(tmp_path / "plots"))
    assert status == 2
    assert err.startswith("gpucache: error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert message in err and "Traceback" not in err
    assert not path.exists() and not (tmp_path / "plots").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["trace-cache"])


@pytest.mark.parametrize("timing", ["none", pytest.param("cycle", marks=pytest.mark.slow)])
def test_workers_give_the_one_process_rows(tmp_path, monkeypatch, timing):
    """``--workers 2``: a task per workload on a local Dask cluster, the rows of one process."""
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    docs = {}
    for workers in ("1", "2"):
        path = tmp_path / f"w{workers}.json"
        status, out, err = gpucache("compare", "--suite", "tian15", "--workloads", "spmv", "nw",
                                    "--scale", "0.05", "--timing", timing, "--configs", "baseline",
                                    "pc-bypass", "--workers", workers, "--json", str(path), "--no-progress")
        assert status == 0, err
        assert ("2 local workers" in out) == (workers == "2")
        docs[workers] = json.loads(path.read_text())
    for d in docs.values():
        assert [r["workload"] for r in d["rows"]] == ["tian15/spmv", "tian15/nw"]
        for r in d["rows"]:
            assert r.pop("time")["cpu_seconds"] > 0
    assert docs["2"]["rows"] == docs["1"]["rows"] and docs["2"]["average"] == docs["1"]["average"]


def test_timed_speedups_and_misses(tmp_path, monkeypatch):
    """``--timing cycle``: Fig. 9's speedups are IPC ratios, Fig. 8's misses ratios, beside the paper."""
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    path = tmp_path / "timed.json"
    status, out, err = gpucache("compare", "--suite", "tian15", "--timing", "cycle", "--workloads", "spmv",
                                "--scale", "0.05", "--configs", "baseline", "pc-bypass", "--json", str(path),
                                "--no-progress")
    assert status == 0 and err == "", err
    data = json.loads(path.read_text())
    assert data["timing"] == "cycle" and data["paper_speedup"]["spmv"] > 0
    (row,) = data["rows"]
    base, pc = row["timing"]["baseline"], row["timing"]["pc-bypass"]
    assert base["cycles"] > 0 and pc["cycles"] > 0
    assert row["speedup_pc-bypass"] == pc["ipc"] / base["ipc"]
    assert row["misses_norm_pc-bypass"] == pc["l1_read_misses"] / base["l1_read_misses"]
    assert data["average"] == {"misses_norm_pc-bypass": row["misses_norm_pc-bypass"],
                               "speedup_pc-bypass": row["speedup_pc-bypass"]}
    line = next(line for line in out.splitlines() if line.startswith("spmv "))
    assert f"{row['speedup_pc-bypass']:.3f}" in line and f"{data['paper_speedup']['spmv']:.3f}" in line


@pytest.mark.parametrize("workers, scheduler, said", [(1, None, "1 process"), (2, None, "2 local workers"),
                                                      (1, "tcp://h:8786", "cluster tcp://h:8786")])
def test_the_header_says_where_the_workloads_ran(workers, scheduler, said):
    assert where_ran(argparse.Namespace(workers=workers, scheduler=scheduler)) == said
