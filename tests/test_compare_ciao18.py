"""``gpucache compare --suite ciao18``: Fig. 11's sweep (a tiny kernel), flags, and ``--workers 2`` (slow).

The Fig. 11 check runs CIAO-C on the thrashing kernel of ``tests/test_policy_ciao18.py``; the
comparison on a 2-worker local cluster is checked against the same comparison in one process on a
small input (slow: every worker process loads the compiled policies).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from golden.configs.presets import preset
from golden.experiments.ciao18 import (
    CIAO_STANDS_FOR,
    FIG11,
    FIG11_DEFAULT,
    Run,
    as_stood_for,
    ciao_stands_for,
    comparison_runs,
    fig11_workload,
    profile_runs,
    run_point,
    unbound_limit,
)
from golden.experiments.ciao18_runs import (
    as_made,
    chain_order,
    chains,
    held,
    longest_first,
    profile_input,
    run_comparison,
)
from golden.experiments.sweep.store import ResultsStore
from golden.policies.ciao18 import STAT_NAMES
from golden.trace.model import Workload
from golden.workloads import registry
from tests.test_compare import gpucache
from tests.test_policy_ciao18 import thrash
from tests.test_timing import gpu


def test_fig11_varies_one_parameter_and_reuses_the_default_run():
    g = gpu(l1=dict(size=4096, assoc=4))
    wl = Workload(name="t/thrash", kernels=[thrash()])
    default = run_point(wl, g, "ciao-c")
    out = fig11_workload(wl, g, default)
    assert set(out) == set(FIG11)
    for field, values in FIG11.items():
        sweep = out[field]
        assert sweep["values"] == list(values) and len(sweep["runs"]) == len(values)
        i = list(values).index(FIG11_DEFAULT[field])
        assert sweep["ipc"][i] == default["ipc"] and sweep["norm"][i] == 1.0
        assert sweep["spread"] == pytest.approx(max(sweep["ipc"]) / min(sweep["ipc"]) - 1)
        for v, r in zip(values, sweep["runs"], strict=True):
            # One factor: only the swept parameter (and, for the cut-off, the low one at half) moves.
            assert r["params"] == ({"high_cutoff": v, "low_cutoff": v / 2} if field == "high_cutoff"
                                   else {field: v})
    # The kernel's warps have an IRS just under 1% in thread instructions: the default cut-off and
    # the higher ones never trigger, whatever the epoch, and the two lower ones redirect warps.
    epochs, cutoffs = out["high_epoch"]["runs"], out["high_cutoff"]["runs"]

    def acted(r):  # the units' counts and Algorithm 1's actions; the epochs and tests follow the epoch
        return {k: r["policy_stats"][k] for k in STAT_NAMES[:10]}, r["policy_stats"]["high_tests_over"]

    assert all(acted(r) == acted(default) for r in epochs)
    assert default["policy_stats"]["high_tests_over"] == 0
    assert len({r["policy_stats"]["high_epochs"] for r in epochs}) == len(epochs)
    assert default["policy_stats"]["redirects"] == 0
    assert [r["policy_stats"] == default["policy_stats"] for r in cutoffs] == [False, False, True, True, True]
    assert cutoffs[0]["policy_stats"]["redirects"] > 0
    # Without the default run, it is run again, with the same result (the sweep is deterministic).
    again = fig11_workload(wl, g)
    assert again["high_cutoff"]["ipc"] == out["high_cutoff"]["ipc"]


def test_a_config_s_policy_params_reach_the_comparison_s_policies():
    """``[policy_params.ciao-c]`` in the machine's config sets CIAO-C's parameters in a comparison's
    run, as ``gpucache run`` takes them; a run's own parameters (Fig. 11, ``--set``) go over them."""
    g = gpu(l1=dict(size=4096, assoc=4))
    wl = Workload(name="t/thrash", kernels=[thrash()])
    default = run_point(wl, g, "ciao-c")
    assert default["policy_stats"]["redirects"] == 0
    low = {"high_cutoff": FIG11["high_cutoff"][0], "low_cutoff": FIG11["high_cutoff"][0] / 2}
    configured = g.replace(policy_params={**g.policy_params, "ciao-c": low})
    r = run_point(wl, configured, "ciao-c")
    assert r["policy_stats"]["redirects"] > 0  # the lower cut-off redirects warps (Fig. 11's test above)
    assert r == run_point(wl, g, "ciao-c", params=low)
    # the run's own parameters win over the config's
    back = {"high_cutoff": FIG11_DEFAULT["high_cutoff"], "low_cutoff": FIG11_DEFAULT["high_cutoff"] / 2}
    assert run_point(wl, configured, "ciao-c", params=back)["policy_stats"] == default["policy_stats"]
    # another scheduler's parameters are not CIAO-C's
    other = g.replace(policy_params={**g.policy_params, "ciao-t": low})
    assert run_point(wl, other, "ciao-c") == default


def test_a_limit_of_every_warp_is_gto():
    # comparison_runs takes GTO's run as the profile's point at max_warps_per_sm: the same run.
    g = gpu(l1=dict(size=4096, assoc=4), max_warps_per_sm=8)
    wl = Workload(name="t/thrash", kernels=[thrash()])
    a, b = run_point(wl, g, "gto"), run_point(wl, g, "gto", g.max_warps_per_sm)
    assert {**a, "warp_limit": 8} == b
    assert run_point(wl, g, "gto", 7)["cycles"] != a["cycles"]  # one fewer binds


def test_a_limit_at_or_above_gto_s_peak_is_gto():
    # The kernel has 8 warps: with 16 slots an SM holds 8 at most, so limits 8 and 9 never bind.
    g = gpu(l1=dict(size=4096, assoc=4), max_warps_per_sm=16)
    wl = Workload(name="t/thrash", kernels=[thrash()])
    a = run_point(wl, g, "gto")
    assert a["peak_warps_per_sm"] == 8
    for limit in (8, 9):
        assert run_point(wl, g, "gto", limit) == {**a, "warp_limit": limit}
        assert unbound_limit(Run("t/thrash", "gto", limit), a)
    assert run_point(wl, g, "gto", 7)["cycles"] != a["cycles"]
    assert not unbound_limit(Run("t/thrash", "gto", 7), a)
    assert not unbound_limit(Run("t/thrash", "ccws", 8), a)
    assert not unbound_limit(Run("t/thrash", "gto", 8), {**a, "peak_warps_per_sm": 9})


@pytest.mark.parametrize("scale, acts", [(0.02, False), (0.1, True)])
def test_ciao_c_s_run_is_gto_s_ciao_t_s_and_ciao_p_s_when_ciao_acts_on_no_warp(tmp_path, monkeypatch, scale,
                                                                              acts):
    # ATAX at 0.02: CIAO never stalls nor redirects a warp; at 0.1 it does (11 stalls, 14 redirects).
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    g = preset("ciao18")
    wl = registry.build("ciao18/atax", scale)
    c = run_point(wl, g, "ciao-c")
    assert (c["policy_stats"]["stalls"] + c["policy_stats"]["redirects"] > 0) == acts
    for s in CIAO_STANDS_FOR:
        run = Run("ciao18/atax", s)
        assert ciao_stands_for(run, c) != acts
        made = run_point(wl, g, s)
        if not acts:
            assert as_stood_for(run, c) == made  # every field, the series and statistics too
            assert as_made(as_stood_for(run, held(c))) == made  # from the series as the comparison holds it
        elif s == "gto":
            assert made["cycles"] != c["cycles"]
    assert not ciao_stands_for(Run("ciao18/atax", "ccws"), c)
    assert not ciao_stands_for(Run("ciao18/atax", "gto", 8), c)
    assert not ciao_stands_for(Run("ciao18/atax", "ciao-t", params=(("high_epoch", 1000),)), c)
    assert not ciao_stands_for(Run("ciao18/atax", "gto"), {**c, "scheduler": "ciao-t"})
    for stalls, redirects in ((1, 0), (0, 1)):  # either action alone is one
        stats = {**c["policy_stats"], "stalls": stalls, "redirects": redirects}
        assert not ciao_stands_for(Run("ciao18/atax", "gto"), {**c, "policy_stats": stats})


def test_a_comparison_takes_gto_s_run_for_limits_that_never_bind(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    g = preset("ciao18")
    wl = registry.build("ciao18/atax", 0.02)
    peak = run_point(wl, g, "gto")["peak_warps_per_sm"]
    assert peak < 47
    limits = [peak - 1, peak, 47]
    done = run_comparison(["ciao18/atax"], 0.02, g, limits)
    assert done.unbound == 2
    runs, profile = done.rows[0]["runs"], done.rows[0]["runs"]["best-swl"]["profile"]
    for limit in (peak, 47):  # the same as simulating them
        assert run_point(wl, g, "gto", limit) == {**runs["gto"], "warp_limit": limit}
    assert [p["ipc"] for p in profile[1:]] == [runs["gto"]["ipc"]] * 2
    assert profile[0]["ipc"] == run_point(wl, g, "gto", peak - 1)["ipc"]


def test_a_comparison_lists_each_run_once_and_statpcal_last():
    g = preset("ciao18")
    runs = comparison_runs("ciao18/atax", g, [2, 8, 48], fig12=True, fig11=True)
    assert len(runs) == len(set(runs))
    # GTO (also the profile's 48), 2 and 8, CCWS, CIAO-T/P/C; Fig. 12's GTO-cap, GTO-8way and
    # CIAO-C-2X (its CIAO-C is Fig. 8's); Fig. 11's 3 other epochs and 4 other cut-offs; statPCAL
    # and statPCAL-2X, which wait for the profile, last.
    assert len(runs) == 1 + 2 + 4 + 3 + 7 + 2
    assert [r.scheduler for r in runs[-2:]] == ["statpcal", "statpcal"] and all(r.tokens for r in runs[-2:])
    assert not any(r.tokens for r in runs[:-2])
    assert Run("ciao18/atax", "gto", 48) not in runs and Run("ciao18/atax", "gto", 8) in runs
    assert sum(r == Run("ciao18/atax", "ciao-c") for r in runs) == 1


def _untimed(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "time"} for r in rows]


def test_a_comparison_resumes_from_its_store(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    g = preset("ciao18")
    names = ["ciao18/atax"]
    store = ResultsStore(tmp_path / "store")
    first = run_comparison(names, 0.02, g, [2, 48], store=store)
    assert (first.made, first.reused) == (7, 0) and len(list((tmp_path / "store" / "points").iterdir())) == 7
    assert first.trace_loads == 1  # in one process the benchmark's 7 runs share its trace
    again = run_comparison(names, 0.02, g, [2, 48], store=ResultsStore(tmp_path / "store"))
    assert (again.made, again.reused, again.trace_loads) == (0, 7, 0)
    assert _untimed(again.rows) == _untimed(first.rows)
    assert again.rows[0]["time"] == first.rows[0]["time"]  # the runs' own times, kept in the store
    # statPCAL's token count is Best-SWL's limit, whichever process chose it.
    runs = first.rows[0]["runs"]
    tokens = runs["best-swl"]["warp_limit"]
    assert runs["statpcal"] == run_point(registry.build("ciao18/atax", 0.02), g, "statpcal",
                                         params={"tokens": tokens})
    # Other profile limits: the new limit's run and statPCAL's (its token count may change) are made;
    # GTO, CCWS and CIAO-T/P/C are the store's.
    other = run_comparison(names, 0.02, g, [4, 48], store=ResultsStore(tmp_path / "store"))
    assert (other.made, other.reused) == (2, 5)
    fresh = run_comparison(names, 0.02, g, [4, 48])
    assert fresh.made == 7 and _untimed(other.rows) == _untimed(fresh.rows)


def test_a_profile_only_run_leaves_the_comparison_only_the_other_schedulers(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    g = preset("ciao18")
    names = ["ciao18/atax"]
    store = tmp_path / "store"
    prof = run_comparison(names, 0.02, g, [2, 48], store=ResultsStore(store), profile_only=True)
    assert (prof.made, prof.reused) == (2, 0)  # GTO (also the profile's 48) and N=2
    row = prof.rows[0]
    assert set(row["runs"]) == {"gto", "best-swl"} and set(row["norm"]) == {"best-swl"}
    assert [p["warp_limit"] for p in row["runs"]["best-swl"]["profile"]] == [2, 48]
    rest = run_comparison(names, 0.02, g, [2, 48], store=ResultsStore(store))
    assert (rest.made, rest.reused) == (5, 2)  # CCWS, CIAO-T/P/C, statPCAL
    fresh = run_comparison(names, 0.02, g, [2, 48])
    assert _untimed(rest.rows) == _untimed(fresh.rows)
    for s in ("gto", "best-swl"):
        assert rest.rows[0]["runs"][s] == row["runs"][s]
    assert rest.rows[0]["norm"]["best-swl"] == row["norm"]["best-swl"]
    out_json = tmp_path / "p.json"
    status, out, err = gpucache("compare", "--suite", "ciao18", "--workloads", "atax", "--scale", "0.02",
                                "--swl-limits", "2", "48", "--profile-only", "--store", str(store),
                                "--json", str(out_json), "--no-progress")
    assert status == 0, err
    assert "0 runs made, 2 from the store" in out and "profile only" in out and "N=2" in out
    doc = json.loads(out_json.read_text())
    assert doc["profile_only"] and _untimed(doc["rows"]) == _untimed(prof.rows)


@pytest.mark.parametrize("argv, message", [
    (("--suite", "tian15", "--fig11"), "--fig11 applies to --suite ciao18 only"),
    (("--suite", "kim20", "--fig12"), "--fig12 applies to --suite ciao18 only"),
    (("--suite", "drp16", "--workers", "2"), "--workers and --scheduler do not apply to --suite drp16"),
    (("--suite", "ciao18", "--workers", "0"), "--workers: must be a positive number"),
    (("--suite", "kim20", "--store", "s"), "--store applies to --suite ciao18 only"),
    (("--suite", "tian15", "--profile-only"), "--profile-only applies to --suite ciao18 only"),
    (("--suite", "ciao18", "--profile-only", "--fig11"), "--profile-only: runs GTO and Best-SWL's profile"),
    (("--suite", "ciao18", "--profile-only", "--plot", "p"), "not with --fig11, --fig12 or --plot"),
])
def test_flags_name_their_suite(argv, message):
    status, _, err = gpucache("compare", *argv, "--no-progress")
    assert status == 2 and err.count("\n") == 1 and message in err, err


@pytest.mark.slow
def test_two_workers_give_the_one_process_results(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    docs = {}
    for workers in ("1", "2"):
        path = tmp_path / f"w{workers}.json"
        status, out, err = gpucache("compare", "--suite", "ciao18", "--workloads", "atax", "syrk",
                                    "--scale", "0.05", "--swl-limits", "2", "8", "--fig11", "--fig12",
                                    "--workers", workers, "--json", str(path), "--no-progress")
        assert status == 0, err
        assert "s CPU" in out and "Fig. 11" in out and ("2 local workers" in out) == (workers == "2")
        docs[workers] = json.loads(path.read_text())
    for d in docs.values():
        for row in d["rows"]:
            assert row.pop("time")["cpu_seconds"] > 0
    # One process loads each benchmark's trace once; on the cluster each worker makes one
    # benchmark's runs in a row, so it loads each trace at most once (_on_dask's queue order).
    assert docs["1"]["trace_loads"] == 2 and 2 <= docs["2"]["trace_loads"] <= 4
    assert [r["workload"] for r in docs["2"]["rows"]] == ["ciao18/atax", "ciao18/syrk"]
    assert docs["2"]["rows"] == docs["1"]["rows"]
    assert docs["2"]["class_means"] == docs["1"]["class_means"]
    assert docs["2"]["fig12_means"] == docs["1"]["fig12_means"]


@pytest.mark.parametrize("profiled", [False, True], ids=["fresh", "profile-in-store"])
def test_on_the_cluster_each_worker_makes_one_benchmark_s_runs_in_a_row(monkeypatch, profiled):
    # Every run of a 4-benchmark comparison (profile points after GTO's run, statPCAL after the
    # profile), each a task that only says which worker made it: a worker keeps the trace of its
    # last run, so it should visit each benchmark once. With the profile done (a comparison after
    # --profile-only), statPCAL waits for nothing and is queued with the other runs.
    from golden.experiments import ciao18_runs
    from tests.fake_ciao18_task import fake_task

    monkeypatch.setattr(ciao18_runs, "make_task", fake_task)
    g, limits = preset("ciao18"), [2, 8, 48]
    names = ["ciao18/atax", "ciao18/bicg", "ciao18/syrk", "ciao18/mvt"]
    plans = {n: comparison_runs(n, g, limits) for n in names}
    # A done profile point's record holds the run's time series; statPCAL's task gets only what
    # chooses its token count (profile_input), not the series, in the task graph.
    result = {"ipc": 1.0, "warp_limit": 2, "series": {"rows": [[0] * 8] * 1000}}
    done = {(n, p): {"result": result, "cpu_seconds": 1.0} for n in names
            for p in profile_runs(n, g, limits)} if profiled else {}
    made: list[tuple[int, str]] = []
    inputs = []
    sequence: dict[str, list[Run]] = {}

    def file(nr, rec):
        made.append((rec["pid"], nr[0]))
        inputs.extend(rec["profile_keys"])
        sequence.setdefault(nr[0], []).append(rec["run"])

    ciao18_runs._on_dask(plans, 0.05, g, limits, done, file, 2, None)
    assert len(made) == sum(map(len, plans.values())) - len(done)
    if profiled:
        assert inputs and all(keys == ["ipc", "warp_limit"] for keys in inputs)
    visits = {}  # each worker's benchmarks, in the order it made their runs
    for pid, name in made:
        order = visits.setdefault(pid, [])
        if not order or order[-1] != name:
            order.append(name)
    assert len(visits) == 2  # both workers made runs
    for names_made in visits.values():
        assert len(names_made) == len(set(names_made)), names_made
    for i, n in enumerate(names):  # CIAO-C's run first (it may stand for the next ones), then GTO's
        first = [Run(n, "ciao-c"), Run(n, "ccws" if profiled else "gto")]
        if i == 1 and not profiled:  # the second chain starts with GTO (chains: one compilation)
            first.reverse()
        assert sequence[n][:2] == first, sequence[n]


def test_on_the_cluster_a_run_s_error_stops_its_chain_and_is_raised_after_the_others(monkeypatch):
    from golden.experiments import ciao18_runs
    from tests.fake_ciao18_task import failing_task

    monkeypatch.setattr(ciao18_runs, "make_task", failing_task)
    g, limits = preset("ciao18"), [2, 48]
    names = ["ciao18/atax", "ciao18/bicg", "ciao18/syrk", "ciao18/mvt"]
    plans = {n: comparison_runs(n, g, limits) for n in names}
    made = []
    with pytest.raises(RuntimeError, match="ccws failed"):
        ciao18_runs._on_dask(plans, 0.05, g, limits, {}, lambda nr, rec: made.append(nr), 2, None)
    atax = [r for n, r in made if n == "ciao18/atax"]
    # ATAX's chain: CIAO-C, GTO, N=2, then CCWS raised; CIAO-T, CIAO-P and statPCAL were not made.
    assert [r.scheduler for r in atax] == ["ciao-c", "gto", "gto"]
    assert len(made) == 3 + 3 * 7  # every other benchmark's runs were made and filed


def test_chains_keep_a_benchmark_on_one_worker_unless_workers_would_idle():
    g, limits = preset("ciao18"), [2, 48]
    names = [f"ciao18/{n}" for n in ("atax", "bicg", "syrk", "mvt", "pvc")]
    plans = {n: comparison_runs(n, g, limits) for n in names}
    one = chains(plans, {}, 2)  # 5 benchmarks, 2 workers: a chain each, CIAO-C and GTO first
    assert [c[0][0] for c in one] == names and [len(c) for c in one] == [7] * 5
    assert [[r.scheduler for _, r in c[:2]] for c in one] == [["ciao-c", "gto"], ["gto", "ciao-c"]] + [
        ["ciao-c", "gto"]] * 3  # the second of the two chains that start at once: GTO's first
    assert all(c[-1][1].scheduler == "statpcal" for c in one)
    # 3 workers, 5 benchmarks: two chains each (the first holds CIAO-C's and GTO's runs), 3 at once.
    assert [[r.scheduler for _, r in c[:2]] for c in chains(plans, {}, 3)][:4] == [
        ["ciao-c", "gto"], ["ciao-t", "ciao-p"], ["gto", "ciao-c"], ["ciao-t", "ciao-p"]]
    two = chains({n: plans[n] for n in names[:2]}, {}, 2)  # 2 benchmarks: 2 chains each
    assert [len(c) for c in two] == [4, 3, 4, 3] and [c[0][1].scheduler for c in two[::2]] == ["ciao-c"] * 2
    done = {(names[0], Run(names[0], "gto")): {"cpu_seconds": 5.0}}  # not made again; ranked by it
    ranked = chains(plans, done, 2)
    assert [len(c) for c in ranked] == [7, 7, 7, 7, 6] and ranked[-1][0][0] == names[0]
    assert chain_order(reversed(plans[names[0]]))[:2] == [Run(names[0], "ciao-c"), Run(names[0], "gto")]


def test_the_time_series_plots_show_ipc_active_warps_and_vta_hits_per_period(tmp_path):
    from golden.experiments.ciao18 import SCHEDULERS
    from golden.experiments.ciao18_plots import per_period, plot_time_series
    from golden.gpu.state import series_columns

    # Three rows (cumulative counts): at cycle 0, then 470 and 1,000 warp instructions in 1,000
    # cycles each; 10 then 20 VTA hits; 6 then 4 active warps.
    run = {"series": {"columns": list(series_columns()),
                      "rows": [[0, 30, 8, 0, 0, 8, 0], [1000, 500, 8, 100, 50, 6, 10],
                               [2000, 1500, 8, 200, 120, 4, 30]]},
           "warp_limit": 0}
    p = per_period(run)
    assert np.isnan(p["ipc"][0]) and p["ipc"][1:].tolist() == [0.47, 1.0]
    assert p["vta_hits"].tolist() == [0, 10, 20]
    assert p["active_warps"].tolist() == [8, 6, 4] and p["resident_warps"].tolist() == [8, 8, 8]
    paths = plot_time_series([{"workload": "ciao18/syrk", "runs": {s: run for s in SCHEDULERS}}], tmp_path)
    assert [x.name for x in paths] == ["fig9_10_syrk.png"] and paths[0].stat().st_size > 10_000


def test_the_cluster_hands_out_the_benchmarks_whose_stored_runs_took_longest_first():
    names = ["ciao18/atax", "ciao18/pvc", "ciao18/nn", "ciao18/ii", "ciao18/syrk"]
    plans = {n: [Run(n, "ccws")] for n in names}
    done = {("ciao18/atax", Run("ciao18/atax", "gto")): {"cpu_seconds": 8.0},
            ("ciao18/atax", Run("ciao18/atax", "gto", 2)): {"cpu_seconds": 12.0},  # its longest counts
            ("ciao18/pvc", Run("ciao18/pvc", "gto")): {"cpu_seconds": 150.0},
            ("ciao18/ii", Run("ciao18/ii", "gto")): {"cpu_seconds": 90.0},
            ("ciao18/gesummv", Run("ciao18/gesummv", "gto")): {"cpu_seconds": 999.0}}  # not planned
    # nn and syrk have no run done: their cost is unknown, they come first, in their order.
    assert longest_first(plans, done) == ["ciao18/nn", "ciao18/syrk", "ciao18/pvc", "ciao18/ii",
                                          "ciao18/atax"]
    assert longest_first(plans, {}) == names


def test_statpcal_s_profile_input_chooses_the_limit_the_whole_records_choose():
    from golden.experiments.ciao18 import best_swl

    g, limits = preset("ciao18"), [2, 8, 48]
    runs = profile_runs("ciao18/atax", g, limits)
    series = {"columns": ["cycle"], "rows": [[i] for i in range(100)]}
    whole = [{"result": {"ipc": ipc, "warp_limit": run.warp_limit, "cycles": 10, "series": series},
              "cpu_seconds": 1.0} for run, ipc in zip(runs, (0.5, 0.9, 0.7), strict=True)]
    whole[0] = {"result": {"warp_limit": 2, "ipc": 0.0, "deadlock": "barrier"}}
    slim = [profile_input(rec) for rec in whole]
    assert slim[1] == {"result": {"ipc": 0.9, "warp_limit": 8}}
    assert slim[0] == whole[0]
    chosen = best_swl(g, limits, [r["result"] for r in slim])
    assert chosen == best_swl(g, limits, [r["result"] for r in whole]) == 8


def test_a_comparison_holds_each_run_s_series_as_one_array_and_files_and_returns_lists(tmp_path):
    # The comparing process keeps every run's result until the end: as lists of Python ints the
    # 315 series at scale 1 took 4.8 GB of it (session 60's out-of-memory kill of a worker).
    result = {"ipc": 1.5, "series": {"columns": ["cycle", "instructions"], "rows": [[0, 3], [1000, 7]]}}
    h = held(result)
    assert h["series"]["rows"].dtype == np.int64 and h["series"]["rows"].shape == (2, 2)
    assert held(h) is h and as_made(h) == result and as_made(result) is result
    empty = {"series": {"columns": ["cycle", "instructions"], "rows": []}}
    assert held(empty)["series"]["rows"].shape == (0, 2) and as_made(held(empty)) == empty
    deadlock = {"warp_limit": 2, "ipc": 0.0, "deadlock": "barrier"}
    assert held(deadlock) is deadlock
    store = ResultsStore(tmp_path / "store")
    store.put({"key": "k1", "params": {}, "metrics": h, "seconds": 1.0})
    assert store.get("k1")["metrics"] == result
