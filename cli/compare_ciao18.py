"""``gpucache compare --suite ciao18``: ciao18's schedulers' IPC over GTO beside Fig. 8."""

from __future__ import annotations

import argparse
import time

from cli.output import finish_compare, format_table, where_ran
from cli.progress import progress
from cli.run import timing_check
from golden.configs.loader import config_to_dict, load_config
from golden.errors import InputError
from golden.workloads import registry

__all__ = ["compare_ciao18"]


def _f(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def _print_fig12(rows: list[dict], points: dict, paper: dict) -> dict:
    """Print Fig. 12's table (IPC over GTO per benchmark, geomean over LWS and SWS); return the means."""
    from golden.experiments.ciao18 import geomean

    cols = [*points, "ciao-c-2x / statpcal-2x"]
    table = [[r["workload"].split("/")[-1], r["class"] or "-"] + [_f(r["fig12"][c]) for c in cols]
             for r in rows]
    sel = [r for r in rows if r["class"] in ("LWS", "SWS")]
    means = {c: geomean([r["fig12"][c] for r in sel]) for c in cols}
    table.append(["geomean LWS+SWS", f"n={len(sel)}"] + [_f(means[c]) for c in cols])
    table.append(["ciao18 Fig. 12", "LWS+SWS"] + [f"{paper[c]:.2f}" if c in paper else "-" for c in cols])
    print()
    print(format_table(["workload", "class", *cols], table, title="Fig. 12: IPC over GTO (the last column: "
                                                                   "CIAO-C-2X over statPCAL-2X)"))
    return means


def _print_fig11(rows: list[dict], paper: dict) -> None:
    """Print Fig. 11's tables: CIAO-C's IPC over its IPC at the paper's setting, per swept value."""
    from golden.experiments.ciao18 import FIG11

    for field, values in FIG11.items():
        sweep = [r["fig11"][field] for r in rows]
        table = [[r["workload"].split("/")[-1], r["class"] or "-", *map(_f, f["norm"]), _f(f["spread"])]
                 for r, f in zip(rows, sweep, strict=True)]
        table.append(["ciao18 Fig. 11", "LWS+SWS"] + ["-"] * len(values) + [f"<= {paper[field]:.2f}"])
        print()
        print(format_table(["workload", "class", *[f"{v:g}" for v in values], "max/min - 1"], table,
                           title=f"Fig. 11: CIAO-C's IPC over its IPC at the paper's setting, {field} varied"
                                 + (" (low_cutoff = half)" if field == "high_cutoff" else "")))


def _print_profile(rows: list[dict], limits: list[int]) -> None:
    """Print Best-SWL's profile: each limit's IPC over GTO's, the chosen limit and Table II's."""
    table = []
    for r in rows:
        gto = r["runs"]["gto"]["ipc"]
        swl = r["runs"]["best-swl"]
        by_limit = {p["warp_limit"]: p for p in swl["profile"]}
        cells = ["deadlock" if by_limit[n]["deadlock"] else _f(by_limit[n]["ipc"] / gto if gto else None)
                 for n in limits]
        table.append([r["workload"].split("/")[-1], r["class"] or "-", f"{gto:.3f}", *cells]
                     + [str(swl["warp_limit"]), str(r["paper_n_warp"])])
    print(format_table(["workload", "class", "IPC GTO", *[f"N={n}" for n in limits], "SWL N", "Table II N"],
                       table))
    print("IPC / GTO's IPC at each warp limit (deadlock: the limit is below a CTA's warps at a barrier)")


def compare_ciao18(args: argparse.Namespace) -> int:
    """Run the comparison for ``args`` (workloads, scale, swl_limits, fig11/12, workers, plot, json...)."""
    from golden.experiments.ciao18 import (
        FIG12,
        PAPER_FIG8,
        PAPER_FIG11,
        PAPER_FIG12,
        SCHEDULERS,
        TIME_SERIES,
        class_means,
        comparison_runs,
        profile_plan,
    )
    from golden.experiments.ciao18_runs import run_comparison
    from golden.experiments.sweep.store import ResultsStore

    gpu = load_config(args.config, check=timing_check)
    scale = 1.0 if args.scale is None else args.scale
    names = registry.names("ciao18")
    if args.workloads:
        names = [registry.get(w if "/" in w else f"ciao18/{w}").key for w in args.workloads]
    limits = args.swl_limits
    if limits is not None:
        for n in limits:
            if not 1 <= n <= gpu.max_warps_per_sm:
                raise InputError(f"--swl-limits: a warp limit is 1 to {gpu.max_warps_per_sm}, not {n}")
    profile_only = bool(getattr(args, "profile_only", False))
    if profile_only and (args.fig11 or args.fig12 or args.plot):
        raise InputError("--profile-only: runs GTO and Best-SWL's profile only, not with --fig11, --fig12 "
                         "or --plot")
    store = ResultsStore(args.store) if args.store else None
    t0 = time.perf_counter()
    c0 = time.process_time()
    total = sum(len(profile_plan(n, gpu, limits) if profile_only else
                    comparison_runs(n, gpu, limits, bool(args.fig12), bool(args.fig11))) for n in names)
    with progress(total, "runs", "run", args.progress) as bar:
        done = run_comparison(names, scale, gpu, limits, bool(args.fig12), bool(args.fig11),
                              workers=args.workers, scheduler=args.scheduler, store=store,
                              on_done=lambda: bar.update(1), profile_only=profile_only)
    for name, message in done.failed.items():  # one workload's deadlock is reported, the others still ran
        print(f"{name}: not compared: {message}")
    if not done.rows:
        raise InputError("no workload of the comparison ran to the end")
    rows, failed = done.rows, done.failed
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    if args.workers > 1 or args.scheduler:
        cpu += done.cpu_seconds  # the workers' runs
    reused = f", {done.reused} from the store" if store is not None else ""
    taken = ([f"{done.unbound} of them GTO's: profile limits that never bound"] if done.unbound else []) + (
        [f"{done.stood_for} CIAO-C's: CIAO acted on no warp"] if done.stood_for else [])
    not_simulated = f" ({'; '.join(taken)})" if taken else ""
    loads = f", {done.trace_loads} trace loads" if done.made else ""
    header = (f"suite ciao18  config {gpu.name}  scale {scale:g}  timing cycle  [{seconds:.1f} s wall, "
              f"{cpu:.1f} s CPU, {where_ran(args)}; {done.made} runs made{not_simulated}{reused}{loads}]")
    if profile_only:
        print(header + "  GTO and Best-SWL's profile only")
        _print_profile(rows, [p["warp_limit"] for p in rows[0]["runs"]["best-swl"]["profile"]])
        finish_compare(args, (), {"suite": "ciao18", "profile_only": True, "scale": scale,
                                  "config": config_to_dict(gpu), "seconds": seconds, "cpu_seconds": cpu,
                                  "workers": args.workers, "runs_made": done.made, "runs_reused": done.reused,
                                  "runs_unbound": done.unbound, "runs_stood_for": done.stood_for,
                                  "trace_loads": done.trace_loads,
                                  "swl_limits": limits, "rows": rows, "failed": failed})
        return 0
    means = class_means(rows)
    others = [s for s in SCHEDULERS if s != "gto"]
    table = []
    for r in rows:
        swl = r["runs"].get("best-swl")
        table.append([r["workload"].split("/")[-1], r["class"] or "-", f"{r['runs']['gto']['ipc']:.3f}"]
                     + ["deadlock" if (r["runs"].get(s) or {}).get("deadlock") else _f(r["norm"].get(s))
                        for s in others]
                     + [str(swl["warp_limit"]) if swl else "-", str(r["paper_n_warp"])])
    for cls, m in means.items():
        if m["n"]:
            table.append([f"geomean {cls}", f"n={m['n']}", "-"] + [_f(m.get(s)) for s in others] + ["", ""])
    table.append(["ciao18 Fig. 8", "all", "-"] + [f"{PAPER_FIG8[s]:.2f}" for s in others] + ["", ""])
    print(header)
    print(format_table(["workload", "class", "IPC GTO"] + others + ["SWL N", "Table II N"], table))
    profiled = (f"every limit 1..{gpu.max_warps_per_sm}" if limits is None
                else "limits " + " ".join(map(str, limits)))
    print(f"IPC / GTO's IPC (deadlock: that scheduler's run deadlocked); Best-SWL profiled over {profiled}")
    fig12 = _print_fig12(rows, FIG12, PAPER_FIG12) if args.fig12 else None
    fig11 = bool(args.fig11)
    if fig11:
        _print_fig11(rows, PAPER_FIG11)
    finish_compare(args, (), {"suite": "ciao18", "scale": scale, "config": config_to_dict(gpu),
                              "seconds": seconds, "cpu_seconds": cpu, "workers": args.workers,
                              "runs_made": done.made, "runs_reused": done.reused,
                              "runs_unbound": done.unbound, "runs_stood_for": done.stood_for,
                              "trace_loads": done.trace_loads,
                              "schedulers": list(SCHEDULERS), "swl_limits": limits, "rows": rows,
                              "failed": failed, "class_means": means, "paper_fig8": PAPER_FIG8,
                              "fig12_means": fig12,
                              "paper_fig12": PAPER_FIG12 if args.fig12 else None,
                              "paper_fig11": PAPER_FIG11 if fig11 else None},
                   "golden.experiments.ciao18_plots",
                   ([r for r in rows if r["workload"].split("/")[-1] in TIME_SERIES],), "plot_time_series")
    return 0
