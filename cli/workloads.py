"""``gpucache workloads``: the built-in workloads, and their statistics with ``--stats``."""

from __future__ import annotations

import argparse

from cli.output import format_table
from cli.progress import progress
from cli.run import positive_int, scale
from golden.errors import InputError
from golden.workloads import registry

__all__ = ["add_parser", "workloads"]


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
    p.add_argument("--line-size", type=positive_int(4), default=64,
                   help="line size in bytes for the footprint statistics (default 64)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: on a terminal, for runs over 2 s)")
    p.set_defaults(func=workloads)


def workloads(args: argparse.Namespace) -> int:
    """List the workloads, or with ``--stats`` print their statistics tables."""
    suites = registry.suites()
    if args.suite is not None and args.suite not in suites:
        raise InputError(f"unknown suite {args.suite!r} (suites: {', '.join(suites)})")
    specs = [registry.get(n) for n in registry.names(args.suite)]
    if args.names:
        wanted = {registry.get(n).key for n in args.names}  # InputError for an unknown name
        specs = [s for s in specs if s.key in wanted]
    if not args.stats:
        rows = [(s.key, s.suite, s.paper.get("size", "-"), s.description) for s in specs]
        print(format_table(("workload", "suite", "paper size", "description"), rows))
        return 0

    from golden.workloads.stats import PAPER_FIGURE, SUITE_STATS, format_stats_table, workload_stats

    by_suite: dict[str, list[dict]] = {}
    with progress(len(specs), "building", "workload", args.progress) as bar:
        for s in specs:
            bar.set_postfix_str(s.key)
            wl = registry.build(s.key, args.scale, args.seed)
            row = workload_stats(wl, line_size=args.line_size)
            if s.suite in SUITE_STATS:
                row.update(SUITE_STATS[s.suite](wl))
            by_suite.setdefault(s.suite, []).append(row)
            bar.update(1)
    for i, (suite, rows) in enumerate(by_suite.items()):
        if i:
            print()
        print(f"{suite} (scale {args.scale:g}, seed {args.seed}, {args.line_size} B lines)")
        print(format_stats_table(rows, PAPER_FIGURE.get(suite)))
    return 0
