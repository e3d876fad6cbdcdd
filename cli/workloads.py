"""``gpucache workloads``: the built-in workloads, and their statistics with ``--stats``."""

from __future__ import annotations

import argparse

from cli.output import format_table
from cli.progress import progress
from cli.run import positive_int, scale
from golden.errors import InputError
from golden.workloads import registry

__all__ = ["add_parser", "workloads", "functional_l1", "timed_l1"]


def add_parser(sub) -> None:
    """Register the subcommand on ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser("workloads", help="list the built-in workloads",
                       description="List the built-in workloads (kernel emulators). With --stats, "
                                   "build each one and print its statistics next to the paper's.")
    p.add_argument("names", nargs="*", metavar="NAME", help="only these workloads (default: all)")
    p.add_argument("--suite", help="only this suite (tian15, rdgc, ...)")
    p.add_argument("--stats", action="store_true", help="build the traces and print statistics")
    p.add_argument("--scale", type=scale, default=1.0,
                   help="input size relative to the paper's, in (0, 1] (default 1)")
    p.add_argument("--seed", type=positive_int(0), default=0, help="input seed (default 0)")
    p.add_argument("--line-size", type=_line_size, default=64,
                   help="line size in bytes for the footprint statistics, a power of 2 (default 64)")
    p.add_argument("--timing", choices=("none", "cycle"), default="none",
                   help="with --stats: cycle adds kim20 Fig. 1's timed columns (L1 miss rate and "
                        "warp occupancy on the timing model, kim20 preset; slow); none: the "
                        "functional model only (default)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: on a terminal, for runs over 2 s)")
    p.set_defaults(func=workloads)


def _line_size(text: str) -> int:
    """argparse type of ``--line-size``: a power of 2 from 4 to 2**20 bytes."""
    v = positive_int(4)(text)
    if v & (v - 1) or v > 1 << 20:
        raise argparse.ArgumentTypeError(f"must be a power of 2 from 4 to {1 << 20}, not {text!r}")
    return v


def workloads(args: argparse.Namespace) -> int:
    """List the workloads, or with ``--stats`` print their statistics tables."""
    suites = registry.suites()
    if args.suite is not None and args.suite not in suites:
        raise InputError(f"unknown suite {args.suite!r} (suites: {', '.join(suites)})")
    specs = [registry.get(n) for n in registry.names(args.suite)]
    if args.names:
        wanted = {registry.get(n).key for n in args.names}  # InputError for an unknown name
        specs = [s for s in specs if s.key in wanted]
    if args.timing == "cycle" and not args.stats:
        raise InputError("--timing cycle: only the statistics use the timing model (add --stats)")
    if args.timing == "cycle" and not any(s.suite == "kim20" for s in specs):
        raise InputError("--timing cycle: only kim20's Fig. 1 table is timed; select kim20 workloads")
    if not args.stats:
        rows = [(s.key, s.suite, s.paper.get("size", "-"), s.description) for s in specs]
        print(format_table(("workload", "suite", "paper size", "description"), rows))
        return 0

    from golden.workloads.stats import (
        FIG1_SUITE,
        PAPER_FIGURE,
        SUITE_STATS,
        format_fig1_table,
        format_stats_table,
        workload_stats,
    )

    by_suite: dict[str, list[dict]] = {}
    fig1: list[dict] = []
    with progress(len(specs), "building", "workload", args.progress) as bar:
        for s in specs:
            bar.set_postfix_str(s.key)
            wl = registry.build(s.key, args.scale, args.seed)
            row = workload_stats(wl, line_size=args.line_size)
            if s.suite in SUITE_STATS:
                row.update(SUITE_STATS[s.suite](wl))
            by_suite.setdefault(s.suite, []).append(row)
            if s.suite == FIG1_SUITE:
                fig1.append(functional_l1(wl, FIG1_SUITE))
                if args.timing == "cycle":
                    fig1[-1].update(timed_l1(wl, FIG1_SUITE))
            bar.update(1)
    for i, (suite, rows) in enumerate(by_suite.items()):
        if i:
            print()
        print(f"{suite} (scale {args.scale:g}, seed {args.seed}, {args.line_size} B lines)")
        print(format_stats_table(rows, PAPER_FIGURE.get(suite)))
        if suite == FIG1_SUITE:
            print()
            timed = " and the timing model" if args.timing == "cycle" else ""
            print(f"{suite} Fig. 1 beside the functional model{timed} (config {FIG1_SUITE}; the "
                  "paper's figures are timed GPGPU-Sim runs)")
            print(format_fig1_table(fig1, FIG1_SUITE))
    return 0


def functional_l1(wl, config: str) -> dict:
    """The L1 miss rate of ``gpucache run --config <config>`` on ``wl`` (untimed model).

    Returns
    -------
    dict
        ``workload``, ``l1_accesses`` and ``l1_miss`` (misses over accesses, loads and
        stores; None without accesses).
    """
    from cli.run import simulate
    from golden.configs.loader import load_config

    l1 = simulate(wl, load_config(config), show_progress=False)["caches"]["l1"]
    n = int(l1["accesses"])
    misses = int(l1["read_misses"]) + int(l1["write_misses"])
    return {"workload": wl.name, "l1_accesses": n, "l1_miss": misses / n if n else None}


def timed_l1(wl, config: str) -> dict:
    """kim20 Fig. 1's metrics of ``wl`` on the timing model of ``config`` (no policy).

    The run is the baseline of ``gpucache compare --suite kim20``
    (:func:`golden.experiments.kim20.compare_workload`): the L1 miss rate is
    1 - hits / accesses (MSHR merges and sector misses count as misses, stores
    included) and the warp occupancy is resident warps over warp slots, over all
    SMs' cycles.

    Returns
    -------
    dict
        ``timed_l1_miss``, ``occupancy`` (fractions) and ``cycles``; ``timed_error``
        (the message) instead when the run deadlocks.
    """
    from golden.configs.loader import load_config
    from golden.experiments.kim20 import compare_workload
    from golden.gpu.model import DeadlockError

    try:
        row = compare_workload(wl, load_config(config), configs=("no-bypass",))
    except DeadlockError as e:  # one workload's deadlock is shown in its row, the others still run
        return {"timed_error": str(e)}
    return {"timed_l1_miss": row["miss_rate"], "occupancy": row["occupancy"],
            "cycles": row["runs"]["no-bypass"]["cycles"]}
