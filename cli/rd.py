"""``gpucache rd``: rdgc's reuse-distance analysis of a workload's L1s and L2 (docs/rd.md).

Builds (or loads) a workload, runs rdgc's logical and physical models
(Algorithms 1-3 and the parallel-cache RD algorithm of Section 4.4), and
prints per level the accesses, hit ratios, MSHR misses and merges,
reservation failures, steps and transactions to the next level; a sweep
adds the hit ratio of every swept value. ``--json`` writes the same
results, ``--plot`` a PNG of hit ratio against the swept value.
"""

from __future__ import annotations

import argparse
import time

from cli.output import format_count, format_rate, format_size, format_table, plural, version, write_json
from cli.run import load_workload_arg, positive_int, scale
from golden.configs.loader import config_to_dict, load_config
from golden.errors import InputError
from golden.rd.model import COUNTINGS, RDOptions
from golden.rd.parallel import parse_latency
from golden.rd.physical import MAPPINGS
from golden.workloads import registry

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Register the subcommand on ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser("rd", help="reuse-distance analysis of the L1s and L2 (rdgc)",
                       description="rdgc's reuse-distance analysis: per-SM L1s and the L2 with banks, "
                                   "ports, MSHRs and miss latency, from one pass over the workload.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--workload", metavar="NAME", help="built-in workload (see 'gpucache workloads')")
    src.add_argument("--trace", metavar="FILE", help="a trace file (.npz) or an Accel-Sim trace")
    p.add_argument("--scale", type=scale, help="input size relative to the paper's, in (0, 1] (default 1)")
    p.add_argument("--seed", type=positive_int(0), help="input seed (default 0)")
    p.add_argument("--config", default="rdgc", metavar="PRESET|FILE",
                   help="machine preset or TOML/JSON config file (default rdgc)")
    p.add_argument("--l1", choices=("on", "off"), default="on",
                   help="L1 caches reads (write-evict) or is bypassed (default on)")
    p.add_argument("--latency", default="adaptive:2,0.25", metavar="fixed:N|adaptive:K1,K2",
                   help="miss latency in steps (default rdgc's A2, adaptive:2,0.25)")
    p.add_argument("--mapping", default="rr", metavar="|".join(MAPPINGS),
                   help="CTA-to-SM mapping (default rr)")
    p.add_argument("--mapping-seed", type=positive_int(0), default=0, help="seed of --mapping rand")
    p.add_argument("--counting", choices=COUNTINGS, default="shared",
                   help="one stack per bank (rdgc, default) or exact per-set stacks")
    p.add_argument("--l1-mshrs", type=int, metavar="N", help="L1 MSHR entries (default: config, or 32)")
    p.add_argument("--l2-mshrs", type=int, metavar="N", help="L2 MSHR entries per set (default 32)")
    p.add_argument("--sweep", metavar="FIELD=V1,V2,...",
                   help="also evaluate l1.size, l1.assoc, l2.size or l2.assoc at these values "
                        "(sizes may use K/M)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p.add_argument("--plot", metavar="PATH", help="with --sweep: PNG of hit ratio against the swept value")
    p.set_defaults(func=run)


def _options(args: argparse.Namespace) -> RDOptions:
    return RDOptions(l1=args.l1 == "on", latency=parse_latency(args.latency), mapping=args.mapping,
                     seed=args.mapping_seed, counting=args.counting, l1_mshrs=args.l1_mshrs,
                     l2_mshrs=args.l2_mshrs)


def _level_rows(name: str, lev) -> list[tuple]:
    return [(name, lev.reads, format_rate(lev.read_hit_ratio), lev.writes, format_rate(lev.write_hit_ratio),
             lev.misses, lev.merges, lev.reservation_failures, lev.steps, lev.transactions_out)]


def run(args: argparse.Namespace) -> int:
    """Run the analysis as the arguments say; print the tables, write the JSON and plot."""
    from golden.rd.model import analyse
    from golden.rd.sweep import parse_sweep, plot_sweep, sweep

    if args.trace and (args.scale is not None or args.seed is not None):
        raise InputError("--scale and --seed size a built-in --workload; a --trace runs as recorded")
    if args.plot and not args.sweep:
        raise InputError("--plot draws a sweep: give --sweep FIELD=V1,V2,...")
    gpu = load_config(args.config)
    opts = _options(args)
    swept = parse_sweep(args.sweep) if args.sweep else None
    if args.trace:
        wl = load_workload_arg(args.trace)
    else:
        wl = registry.build(args.workload, 1.0 if args.scale is None else args.scale, args.seed or 0)

    t0 = time.perf_counter()
    if swept:
        res, points, passes = sweep(wl, gpu, opts, *swept)
    else:
        res, points, passes = analyse(wl, gpu, opts), [], 1
    seconds = time.perf_counter() - t0

    print(f"workload {wl.name} ({plural(len(wl.kernels), 'kernel')})  config {gpu.name}  L1 {args.l1}  "
          f"latency {opts.latency}  mapping {opts.mapping}  counting {opts.counting}  [{seconds:.1f} s, "
          f"{format_count(res.accesses / seconds if seconds else 0)} accesses/s]")
    print()
    rows = (_level_rows("L1", res.l1) if res.l1 else []) + _level_rows("L2", res.l2)
    print(format_table(("level", "reads", "read hit", "writes", "write hit", "misses", "merges",
                        "res. fails", "steps", "trans. out"), rows))
    d = res.to_dict()
    print(f"transactions: L1->L2 {format_count(d['transactions']['l1_to_l2'])}  "
          f"L2->DRAM {format_count(d['transactions']['l2_to_dram'])}")
    if swept:
        name, _ = swept
        size = name.endswith("size")
        print()
        print(format_table((name, "read hit ratio"),
                           [(format_size(p["value"]) if size else p["value"],
                             format_rate(p["read_hit_ratio"])) for p in points],
                           title=f"sweep of {name}: {passes} RD pass{'' if passes == 1 else 'es'}"))
        if args.plot:
            plot_sweep(points, name, args.plot, f"{wl.name} ({gpu.name}, {opts.counting} counters)")
    if args.json:
        write_json(args.json, {
            "gpucache_version": version(),
            "workload": {"name": wl.name, "source": wl.source, "params": wl.params},
            "config": config_to_dict(gpu),
            "options": {"l1": args.l1, "latency": str(opts.latency), "mapping": opts.mapping,
                        "mapping_seed": opts.seed, "counting": opts.counting,
                        "l1_mshrs": args.l1_mshrs, "l2_mshrs": args.l2_mshrs},
            "seconds": round(seconds, 3),
            **d,
            "sweep": {"field": swept[0], "passes": passes, "points": points} if swept else None,
        })
    return 0
