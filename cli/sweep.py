"""``gpucache sweep``: a grid of simulations on Dask, a resumable results store, a table and plots.

The grid is checked whole before anything runs (one-line errors naming
the option or field); the points the store already has are skipped; the
others run on a local Dask cluster (``--workers``) or an existing one
(``--scheduler``), and each is filed in the store as it finishes. At the
end: the table (CSV, and Parquet when pyarrow is installed), the plots,
a summary, and one line per failed point. Exit status 0 when every point
has a result, 3 when some failed, 2 for a user's mistake.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from cli.output import format_rate, format_table, version
from cli.progress import progress
from cli.run import DEPENDENCE_CHOICES, positive_int
from golden.errors import InputError

__all__ = ["add_parser", "sweep", "EXIT_FAILED_POINTS"]

#: Exit status when some points failed (the others are filed and tabled).
EXIT_FAILED_POINTS = 3

#: Metrics shown in the printed summary table, where the points have them.
_SHOWN = ("cycles", "ipc", "l1.hit_rate", "l2.hit_rate", "l1.bypasses")


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _list(kind, name: str):
    """argparse type: comma-separated values of ``kind``."""

    def parse(text: str) -> list:
        try:
            return [kind(v) for v in text.split(",") if v.strip()] or [kind("")]
        except (ValueError, argparse.ArgumentTypeError) as e:
            raise argparse.ArgumentTypeError(f"{name}: {e}") from None

    return parse


def add_parser(sub) -> None:
    """Register the subcommand on ``sub`` (an argparse subparsers object)."""
    from cli.run import scale

    p = sub.add_parser(
        "sweep", help="run a grid of simulations on Dask, resumable, with a table and plots",
        description="Run every combination of workloads, config field values, policies, timing "
                    "models and scales on a Dask cluster; file each point's metrics in a results "
                    "store as it finishes (a rerun skips the points done), then write a table "
                    "(CSV, Parquet) and plots. See docs/sweep.md.")
    p.add_argument("--workload", nargs="+", action="extend", default=[], metavar="NAME",
                   help="built-in workloads (see 'gpucache workloads')")
    p.add_argument("--trace", nargs="+", action="extend", default=[], metavar="FILE",
                   help="trace files (.npz or Accel-Sim), run as recorded")
    p.add_argument("--scale", type=_list(scale, "--scale"), action="extend", metavar="F[,F...]",
                   help="input sizes of the built-in workloads, in (0, 1] (default 1)")
    p.add_argument("--seed", type=_list(positive_int(0), "--seed"), action="extend", metavar="N[,N...]",
                   help="input seeds of the built-in workloads (default 0)")
    p.add_argument("--config", default="tian15", metavar="PRESET|FILE",
                   help="base machine: preset or TOML/JSON config file (default tian15)")
    p.add_argument("--set", dest="fields", action="append", default=[], metavar="FIELD=V1,V2,...",
                   help="sweep a config field, named as in a config file (l1.size=16K,32K; "
                        "scheduler=gto,lrr; policy_params.pc-bypass.threshold=4,8)")
    p.add_argument("--policy", type=_list(str, "--policy"), action="extend", metavar="NAME[,NAME...]",
                   help="policies (as 'gpucache run --policy' takes them; 'none' for no policy; "
                        "default none)")
    p.add_argument("--timing", type=_list(str, "--timing"), action="extend", metavar="cycle|none",
                   help="cycle: the timing model (default); none: the interleaver; both: cycle,none")
    p.add_argument("--dependences", choices=DEPENDENCE_CHOICES, default="auto",
                   help="what a warp with loads outstanding waits for (timing model; as 'gpucache run')")
    p.add_argument("--store", required=True, metavar="DIR",
                   help="results store: one JSON file per finished point; a rerun resumes from it")
    p.add_argument("--csv", metavar="PATH", help="the table as CSV (default STORE/results.csv)")
    p.add_argument("--parquet", metavar="PATH",
                   help="the table as Parquet (default STORE/results.parquet, when pyarrow is installed)")
    p.add_argument("--plot", metavar="DIR", help="PNG plots (default STORE/plots)")
    p.add_argument("--metric", action="append", metavar="NAME",
                   help="metric to plot against each swept field (repeatable; default ipc when "
                        "timed, else l1.hit_rate)")
    p.add_argument("--workers", type=positive_int(1), metavar="N",
                   help=f"worker processes of the local Dask cluster, one thread each (default: the "
                        f"CPUs, {_cpus()} here)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on an existing Dask cluster (tcp://host:8786) instead of a local one")
    p.add_argument("--worker-retries", type=positive_int(0), metavar="N",
                   help="reruns of a point whose worker died (local cluster; default 3)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: on a terminal)")
    p.set_defaults(func=sweep)


def _spec(args: argparse.Namespace):
    from golden.experiments.sweep.fields import parse_set
    from golden.experiments.sweep.grid import NO_POLICY, GridSpec

    if args.trace and not args.workload and (args.scale or args.seed):
        raise InputError("--scale and --seed size a built-in --workload; a --trace runs as recorded")
    return GridSpec(
        workloads=tuple(dict.fromkeys(args.workload)), traces=tuple(dict.fromkeys(args.trace)),
        scales=tuple(dict.fromkeys(args.scale or [1.0])), seeds=tuple(dict.fromkeys(args.seed or [0])),
        config=args.config, fields=tuple(parse_set(s) for s in args.fields),
        policies=tuple(dict.fromkeys(args.policy or [NO_POLICY])),
        timings=tuple(dict.fromkeys(args.timing or ["cycle"])), dependences=args.dependences)


def _plot_metrics(args: argparse.Namespace, spec) -> list[str]:
    from golden.experiments.sweep.metrics import is_metric_name

    for m in args.metric or []:
        if not is_metric_name(m):
            raise InputError(f"--metric {m}: not a metric (cycles, ipc, instructions, l1.hit_rate, "
                             "l2.misses, timing.<name>, policy.<name>; docs/sweep.md lists them)")
    return args.metric or ["ipc" if "cycle" in spec.timings else "l1.hit_rate"]


def sweep(args: argparse.Namespace) -> int:
    """Run the sweep the arguments describe; print the summary; write the table and plots."""
    from golden.experiments.sweep.code import code_fingerprint
    from golden.experiments.sweep.engine import DEFAULT_WORKER_RETRIES, run_sweep
    from golden.experiments.sweep.grid import PARAM_COLUMNS, build_grid
    from golden.experiments.sweep.plots import plot_sweep
    from golden.experiments.sweep.store import ResultsStore
    from golden.experiments.sweep.table import parquet_available, table_rows, write_csv, write_parquet

    if args.scheduler is not None and (args.workers is not None or args.worker_retries is not None):
        raise InputError("--workers and --worker-retries set up a local cluster; with --scheduler "
                         "the existing cluster decides")
    from golden.configs.schema import SCHEDULERS

    if args.scheduler in SCHEDULERS:
        raise InputError(f"--scheduler {args.scheduler}: takes a Dask scheduler's address; the warp "
                         f"scheduler is a config field: --set scheduler={args.scheduler}")
    spec = _spec(args)
    metrics = _plot_metrics(args, spec)
    code = code_fingerprint()
    points = build_grid(spec, code)
    store = ResultsStore(args.store)
    for name in store.damaged:
        print(f"gpucache sweep: ignored a damaged store file points/{name} (its point runs again)",
              file=sys.stderr)

    todo = sum(not store.done(p.key) for p in points)
    with progress(todo, "sweep", "point", args.progress) as bar:
        outcome = run_sweep(points, store, scheduler=args.scheduler, workers=args.workers or _cpus(),
                            worker_retries=DEFAULT_WORKER_RETRIES if args.worker_retries is None
                            else args.worker_retries,
                            on_result=lambda p, ok: bar.update(1),
                            meta={"gpucache_version": version(), "code": code})

    done = [p for p in points if store.done(p.key)]
    # The grid's params (their order and values), the store's metrics (in the order they were filed).
    rows = table_rows([{**store.get(p.key), "params": p.params} for p in done])
    root = Path(args.store)
    written = []
    if rows:
        csv_path = args.csv or root / "results.csv"
        write_csv(csv_path, rows)
        written.append(str(csv_path))
        if args.parquet or parquet_available():
            if not parquet_available():
                raise InputError("--parquet: needs pyarrow (pip install pyarrow)")
            parquet_path = args.parquet or root / "results.parquet"
            write_parquet(parquet_path, rows)
            written.append(str(parquet_path))
        dims = ["scale", *(f.name for f in spec.fields)]
        pngs = plot_sweep(rows, metrics, dims, args.plot or root / "plots")
        written += [str(p) for p in pngs]

    varying = [c for c in (*PARAM_COLUMNS, *(f.name for f in spec.fields))
               if len({repr(p.params.get(c)) for p in points}) > 1] or ["workload"]
    shown = [m for m in _SHOWN if any(r.get(m) is not None for r in rows)]
    if rows:
        print(format_table((*varying, *shown),
                           [(*("-" if r.get(c) is None else r[c] for c in varying),
                             *(_shown(m, r.get(m)) for m in shown)) for r in rows]))
        print()
    print(f"sweep: {len(points)} points: {len(outcome.ran)} run now, {len(outcome.skipped)} already in "
          f"the store, {len(outcome.failed)} failed  [{outcome.seconds:.1f} s]")
    for path in written:
        print(f"wrote {path}")
    for p, why in outcome.failed:
        print(f"gpucache sweep: failed: {p.label()}: {why}", file=sys.stderr)
    return EXIT_FAILED_POINTS if outcome.failed else 0


def _shown(metric: str, v) -> str:
    if v is None:
        return "-"
    if metric.endswith("hit_rate"):
        return format_rate(v)
    return f"{v:.3f}" if isinstance(v, float) else f"{v:,}"
