"""``gpucache cosim``: run a workload through the golden model and replay a unit's log into its RTL."""

from __future__ import annotations

import argparse
from pathlib import Path

from cli.output import format_count
from cli.progress import progress
from cli.run import positive_int, scale
from golden.configs.loader import load_config
from golden.workloads import registry

__all__ = ["add_parser", "cosim"]


def add_parser(sub) -> None:
    from catalog import unit_names
    from tb.cosim import SIMULATORS

    p = sub.add_parser(
        "cosim", help="co-simulate an RTL unit against the golden model on a workload",
        description="Run a workload through the golden model with the unit's policy, record the unit's "
                    "transaction log, replay it into the RTL and compare every output every cycle. "
                    "Exit status 1 when the RTL and the golden model disagree.")
    p.add_argument("--unit", required=True, choices=unit_names(), help="RTL unit")
    p.add_argument("--workload", required=True, metavar="NAME", help="built-in workload")
    p.add_argument("--sim", choices=SIMULATORS, default="verilator",
                   help="replayer (default verilator; amaranth and icarus suit short --limit runs)")
    p.add_argument("--scale", type=scale, default=1.0, help="input size relative to the paper's")
    p.add_argument("--seed", type=positive_int(0), default=0, help="input generator seed")
    p.add_argument("--config", default="tian15", metavar="PRESET|FILE", help="machine (default tian15)")
    p.add_argument("--sm", type=positive_int(0), default=0, help="SM whose private units are logged")
    p.add_argument("--policy", default=None, metavar="NAME",
                   help="record with this policy instead of the unit's own (e.g. ciao-t for ciao18's units)")
    p.add_argument("--limit", type=positive_int(1), default=None, metavar="ROWS",
                   help="replay only the first ROWS log rows")
    p.add_argument("--build-dir", default="build/cosim", metavar="DIR", help="simulator build directory")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar while recording (default: on a terminal)")
    p.set_defaults(func=cosim)


def cosim(args: argparse.Namespace) -> int:
    from catalog.registry import get_unit, policy_for, require_policy
    from tb.cosim import cosim as run_cosim

    spec = get_unit(args.unit)
    require_policy(spec)  # before the workload is built
    gpu = load_config(args.config)
    if args.policy is not None:
        policy_for(spec, gpu, args.policy)  # a policy that does not record the unit: before the workload too
    wl = registry.build(args.workload, args.scale, args.seed)
    # The bar counts accesses; their total is known only kernel by kernel, so it has none.
    with progress(None, "recording", "acc", args.progress) as bar:
        r = run_cosim(args.unit, wl, gpu, sim=args.sim, sm=args.sm, build_dir=Path(args.build_dir),
                      limit=args.limit, progress=bar.update, policy=args.policy)
    print(f"unit {r.unit}  workload {wl.name}  config {gpu.name}  policy {args.policy or spec.policy}  "
          f"simulator {r.sim}")
    print(f"rows checked   {format_count(r.rows)} of {format_count(r.log_rows)}")
    print(f"mismatches     {0 if r.mismatch is None else 1}")
    if r.mismatch is not None:
        print(f"first          {r.mismatch}")
    print(f"golden run     {r.record_seconds:.1f} s (records the log)")
    print(f"replay         {r.replay_seconds:.2f} s, {r.cycles_per_second:,.0f} cycles/s")
    return 0 if r.ok else 1
