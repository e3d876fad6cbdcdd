"""``gpucache compare``: tian15's four configurations on a suite, beside the paper's figures."""

from __future__ import annotations

import argparse
import time

from cli.output import finish_compare, format_table, run_compare_tasks, where_ran
from cli.run import scale, timing_check
from golden.configs.loader import config_to_dict, load_config
from golden.errors import InputError
from golden.workloads import registry

__all__ = ["add_parser", "compare"]

_COLUMNS = (
    ("zero-reuse", "zero_reuse"),
    ("miss PC", "misses_norm_pc-bypass"),
    ("miss ctr", "misses_norm_counter-bypass"),
    ("miss 32KB", "misses_norm_baseline-32KB"),
    ("byp/miss", "bypass_share"),
    ("coverage", "coverage"),
    ("FP", "fp_rate"),
    ("FP sdbp", "fp_rate_sdbp"),
    ("energy", "energy_ratio"),
)


def add_parser(sub) -> None:
    from golden.experiments.tian15 import CONFIGS

    p = sub.add_parser(
        "compare", help="run tian15's comparison on a suite and print it beside the paper",
        description="Run baseline 16 KB, PC-based 16 KB, counter-based 16 KB and baseline 32 KB L1s on "
                    "every workload of a suite; print one row per workload, the averages, and tian15's "
                    "figures (zero-reuse blocks, normalised misses, bypass share, coverage, false "
                    "positives, L1 energy).")
    p.add_argument("--suite", default="tian15", help="workload suite (default tian15)")
    p.add_argument("--workloads", nargs="+", metavar="NAME", help="only these workloads of the suite")
    p.add_argument("--configs", nargs="+", choices=CONFIGS, default=list(CONFIGS), metavar="CONFIG",
                   help=f"configurations to run (default all: {', '.join(CONFIGS)})")
    p.add_argument("--config", default=None, metavar="PRESET|FILE",
                   help="machine (default: the suite's preset, tian15 or kim20)")
    p.add_argument("--scale", type=scale, default=None,
                   help="input size relative to the paper's (default 1; drp16: 1/16, the LLC too)")
    p.add_argument("--timing", choices=("none", "cycle"), default=None,
                   help="none: the interleaver's order, all metrics (default, tian15); cycle: the timing "
                        "model, speedups (Fig. 9) and misses (Fig. 8); kim20 needs (and defaults to) cycle; "
                        "not for drp16")
    p.add_argument("--cores", type=int, nargs="+", metavar="N",
                   help="drp16: configurations to run, 1, 2 and/or 4 CPU cores (default all)")
    p.add_argument("--mixes", nargs="+", metavar="MIX", help="drp16: only these Table 3 mixes (S1 .. Q18)")
    p.add_argument("--policies", nargs="+", metavar="POLICY",
                   help="drp16: only these policies (default every registered drp16- policy)")
    p.add_argument("--vary", metavar="FIELD=V1,V2,...",
                   help="kim20: also run two-level bypassing with one parameter at each value (threshold_l, "
                        "threshold_h, threshold_w, window, min_accesses)")
    p.add_argument("--swl-limits", type=int, nargs="+", metavar="N",
                   help="ciao18: warp limits Best-SWL profiles (default every limit 1..max warps per SM)")
    p.add_argument("--fig12", action="store_true",
                   help="ciao18: also run Fig. 12's variants (GTO-cap, GTO-8way, statPCAL-2X, CIAO-C-2X)")
    p.add_argument("--fig11", action="store_true",
                   help="ciao18: also run Fig. 11's sensitivity of CIAO-C (high-cut-off epoch 1K..50K, high "
                        "cut-off 0.25%%..4%% with the low one at half), one parameter at a time")
    p.add_argument("--profile-only", action="store_true",
                   help="ciao18: run only GTO and Best-SWL's profile and print the profile; with --store, a "
                        "later compare with that store makes only the other schedulers' runs")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="run on a local Dask cluster of N worker processes (a task per workload; ciao18: a "
                        "task per timed run; not drp16) (default 1: in this process)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the workloads on an existing Dask cluster (tcp://host:8786; not drp16)")
    p.add_argument("--store", metavar="DIR",
                   help="ciao18: file every run in this results store as it finishes; a rerun with the same "
                        "store makes only the runs it does not have (resumes)")
    p.add_argument("--plot", metavar="DIR", help="write PNG charts (Figures 1, 6, 8, 11 analogues)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: on a terminal)")
    p.set_defaults(func=compare)


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def compare(args: argparse.Namespace) -> int:
    from golden.experiments.tian15 import CONFIGS, PAPER, compare_named, storage_overheads, suite_average

    if args.timing is None:
        args.timing = "cycle" if args.suite in ("kim20", "ciao18") else "none"
    if args.config is None:
        args.config = args.suite if args.suite in ("kim20", "ciao18") else "tian15"
    if args.vary and args.suite != "kim20":
        raise InputError("--vary applies to --suite kim20 only")
    if args.workers < 1:
        raise InputError(f"--workers: must be a positive number of worker processes, not {args.workers}")
    if (args.workers > 1 or args.scheduler) and args.suite == "drp16":
        raise InputError("--workers and --scheduler do not apply to --suite drp16")
    for flag, field in (("--swl-limits", "swl_limits"), ("--fig12", "fig12"), ("--fig11", "fig11"),
                        ("--store", "store"), ("--profile-only", "profile_only")):
        if getattr(args, field, None) and args.suite != "ciao18":
            raise InputError(f"{flag} applies to --suite ciao18 only")
    if args.suite == "kim20":
        from cli.compare_kim20 import compare_kim20

        if args.configs != list(CONFIGS) or args.cores or args.mixes or args.policies:
            raise InputError("--configs, --cores, --mixes and --policies do not apply to --suite kim20 "
                             "(it runs no-bypass, L1 off, miss-rate k = 0.6 .. 0.9 and two-level)")
        return compare_kim20(args)
    if args.suite == "ciao18":
        from cli.compare_ciao18 import compare_ciao18

        if args.timing != "cycle":
            raise InputError("--timing: the ciao18 suite compares warp schedulers, which need the timing "
                             "model (use cycle)")
        return compare_ciao18(args)
    if args.suite == "drp16":
        from cli.compare_drp16 import compare_drp16

        if args.timing != "none":
            raise InputError("--timing: the drp16 suite runs the LLC model, which has no timing (use none)")
        return compare_drp16(args)
    if args.cores or args.mixes or args.policies:
        raise InputError("--cores, --mixes and --policies apply to --suite drp16 only")
    args.scale = 1.0 if args.scale is None else args.scale
    gpu = load_config(args.config, check=timing_check if args.timing == "cycle" else None)
    if args.suite not in registry.suites():
        raise InputError(f"unknown suite {args.suite!r}; suites are {', '.join(registry.suites())}, drp16")
    names = registry.names(args.suite)
    if args.workloads:
        names = [registry.get(w if "/" in w else f"{args.suite}/{w}").key for w in args.workloads]
    if args.timing == "cycle":
        return _compare_timed(args, gpu, names)
    t0 = time.perf_counter()
    rows, _ = run_compare_tasks(compare_named, [(n, args.scale, gpu, tuple(args.configs)) for n in names],
                                names, args)
    avg = suite_average(rows)
    seconds = time.perf_counter() - t0
    table = [[r["workload"].split("/")[-1]] + [_fmt(r.get(k)) for _, k in _COLUMNS] for r in rows]
    table.append(["average"] + [_fmt(avg.get(k)) for _, k in _COLUMNS])
    paper = {"zero_reuse": "zero_reuse", "bypass_share": "bypass_share", "coverage": "coverage",
             "fp_rate": "fp_rate", "fp_rate_sdbp": "fp_rate_sdbp", "energy_ratio": "energy_ratio"}
    table.append(["tian15"] + [_fmt(PAPER[paper[k]][0]) if k in paper else "-" for _, k in _COLUMNS])
    print(f"suite {args.suite}  config {gpu.name}  scale {args.scale:g}  "
          f"configs {', '.join(args.configs)}  [{seconds:.1f} s, {where_ran(args)}]")
    print(format_table(["workload"] + [c for c, _ in _COLUMNS], table))
    print("miss = L1 load misses / 16 KB baseline; byp/miss = bypasses / load misses; "
          "energy = L1 energy (dynamic + static) / baseline")
    storage = storage_overheads(gpu)
    print(f"storage per L1: PC-based {storage['pc-bypass']['per_l1_bytes']:.0f} B "
          f"(+ {storage['pc-bypass']['l2_bytes']:.0f} B of L2 bypassBits), counter-based "
          f"{storage['counter-bypass']['per_l1_bytes'] / 1024:.3f} KB "
          f"(tian15: {PAPER['counter_storage_kb'][0]} KB)")
    finish_compare(args, [source for _, source in PAPER.values()],
                   {"suite": args.suite, "scale": args.scale, "configs": args.configs,
                    "config": config_to_dict(gpu), "seconds": seconds, "rows": rows,
                    "average": avg, "paper": PAPER, "storage": storage},
                   "golden.experiments.tian15_plots", (rows, avg))
    return 0


_TIMED = (("speedup PC", "speedup_pc-bypass"), ("speedup ctr", "speedup_counter-bypass"),
          ("speedup 32KB", "speedup_baseline-32KB"), ("miss PC", "misses_norm_pc-bypass"),
          ("miss ctr", "misses_norm_counter-bypass"), ("miss 32KB", "misses_norm_baseline-32KB"))


def _compare_timed(args: argparse.Namespace, gpu, names: list[str]) -> int:
    """tian15 Figs. 9 and 8 on the timing model: speedups and normalised misses beside the paper."""
    from golden.experiments.tian15 import PAPER_SPEEDUP, compare_named, suite_average

    t0 = time.perf_counter()
    calls = [(n, args.scale, gpu, tuple(args.configs), True) for n in names]
    rows, _ = run_compare_tasks(compare_named, calls, names, args)
    avg = suite_average(rows)
    seconds = time.perf_counter() - t0
    table = []
    for r in rows:
        short = r["workload"].split("/")[-1]
        paper = PAPER_SPEEDUP.get(short)
        table.append([short] + [_fmt(r.get(k)) for _, k in _TIMED] + [_fmt(paper),
                     f"{r['timing']['baseline']['ipc']:.3f}"])
    table.append(["average"] + [_fmt(avg.get(k)) for _, k in _TIMED] + ["-", "-"])
    print(f"suite {args.suite}  config {gpu.name}  scale {args.scale:g}  timing cycle  "
          f"configs {', '.join(args.configs)}  [{seconds:.1f} s, {where_ran(args)}]")
    print(format_table(["workload"] + [c for c, _ in _TIMED] + ["tian15 Fig. 9 PC", "IPC base"], table))
    print("speedup = IPC / 16 KB baseline's IPC; miss = L1 load misses sent to the L2 / baseline's "
          "(MSHR merges are not misses); tian15 Fig. 9: PC-based speedups quoted in Section 5.2, "
          "and PC-based beats the 32 KB L1 on average")
    finish_compare(args, (), {"suite": args.suite, "scale": args.scale, "configs": args.configs,
                              "timing": "cycle", "config": config_to_dict(gpu), "seconds": seconds,
                              "rows": rows, "average": avg, "paper_speedup": PAPER_SPEEDUP})
    return 0
