"""``gpucache compare --suite kim20``: kim20's configurations on the timing model, beside Figs. 1, 3, 4, 5."""

from __future__ import annotations

import argparse
import time

from cli.output import finish_compare, format_table, run_compare_tasks
from cli.run import timing_check
from golden.configs.loader import config_to_dict, load_config
from golden.errors import InputError
from golden.workloads import registry

__all__ = ["compare_kim20", "parse_vary"]

#: Two-level parameters ``--vary`` may change.
VARIABLE = ("threshold_l", "threshold_h", "threshold_w", "window", "min_accesses")


def _f(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def parse_vary(text: str) -> tuple[str, list]:
    """``FIELD=V1,V2,...`` -> (field, values); InputError naming ``--vary`` when malformed."""
    field, _, values = text.partition("=")
    if field not in VARIABLE or not values:
        raise InputError(f"--vary: FIELD=V1,V2,... with FIELD one of {', '.join(VARIABLE)}, not {text!r}")
    cast = int if field in ("window", "min_accesses") else float
    try:
        return field, [cast(v) for v in values.split(",")]
    except ValueError:
        raise InputError(f"--vary: {field} takes {cast.__name__} values, not {values!r}") from None


def compare_kim20(args: argparse.Namespace) -> int:
    """Run the comparison for ``args`` (workloads, config, scale, vary, plot, json)."""
    from golden.experiments.kim20 import CONFIGS, PAPER, compare_named, suite_average

    if args.timing != "cycle":
        raise InputError("--timing: kim20's comparison needs the timing model (cycle): its policy samples "
                         "the warp occupancy and 5,000-cycle windows")
    scale = 1.0 if args.scale is None else args.scale
    gpu = load_config(args.config, check=timing_check)
    names = registry.names("kim20")
    if args.workloads:
        names = [registry.get(w if "/" in w else f"kim20/{w}").key for w in args.workloads]
    vary = parse_vary(args.vary) if args.vary else None
    t0, c0 = time.perf_counter(), time.process_time()
    calls = [(name, scale, gpu, vary) for name in names]
    rows, failed = run_compare_tasks(compare_named, calls, names, args)
    avg = suite_average(rows)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    if args.workers > 1 or args.scheduler:
        cpu += sum(r["time"]["cpu_seconds"] for r in rows)  # the workers' simulations
    short = [r["workload"].split("/")[-1] for r in rows]
    print(f"suite kim20  config {gpu.name}  scale {scale:g}  timing cycle  "
          f"[{seconds:.1f} s wall, {cpu:.1f} s CPU]")
    mr, occ = PAPER["miss_rate"][0], PAPER["occupancy"][0]
    t1 = [[s, _f(r["miss_rate"]), _f(mr.get(s)), _f(r["occupancy"]), _f(occ.get(s))]
          for s, r in zip(short, rows, strict=True)]
    print(format_table(["workload", "miss rate", "kim20", "occupancy", "kim20"], t1,
                       title="Fig. 1: L1D miss rate and warp occupancy (no bypass)"))
    cfgs = [c for c in CONFIGS if c != "no-bypass"]
    per = PAPER["speedup_two-level_per"][0]
    t2 = [[s] + [_f(r.get(f"speedup_{c}")) for c in cfgs] + [_f(per.get(s))]
          for s, r in zip(short, rows, strict=True)]
    t2.append(["average"] + [_f(avg.get(f"speedup_{c}")) for c in cfgs] + ["-"])
    t2.append(["kim20", "-", "-", "-", "-", _f(PAPER["speedup_k0.9"][0]), _f(PAPER["speedup_two-level"][0]),
               "-"])
    print(format_table(["workload"] + cfgs + ["kim20 2-lvl"], t2,
                       title="Figs. 3 and 4: IPC / no bypass"))
    dl = PAPER["miss_rate_delta_per"][0]
    t3 = [[s, _f(r["accesses_norm"]), _f(r["misses_norm"]), _f(r["bypassed_share"]),
           _f(r["miss_rate_delta"]), _f(dl.get(s)), _f(r["b_share"])]
          for s, r in zip(short, rows, strict=True)]
    t3.append(["average", _f(avg["accesses_norm"]), _f(avg["misses_norm"]), _f(avg["bypassed_share"]),
               _f(avg["miss_rate_delta"]), "-", _f(avg["b_share"])])
    t3.append(["kim20", "-", "-", _f(PAPER["bypassed_share"][0]), _f(PAPER["miss_rate_delta"][0]), "-", "-"])
    print(format_table(["workload", "accesses", "misses", "bypassed", "miss rate +", "kim20", "B windows"],
                       t3, title="Fig. 5: two-level's L1 accesses and misses / no-bypass accesses"))
    if "bypassed_share_b" in avg:
        print(f"bypassed share on kim20's B-mode benchmarks: {avg['bypassed_share_b']:.3f} "
              f"(kim20: {PAPER['bypassed_share_b'][0]:.2f})")
    if vary:
        field, values = vary
        t4 = [[s] + [_f(v) for v in r["vary"]["speedup"]] for s, r in zip(short, rows, strict=True)]
        means = [sum(r["vary"]["speedup"][i] for r in rows) / len(rows) for i in range(len(values))]
        t4.append(["average"] + [_f(m) for m in means])
        print(format_table(["workload"] + [f"{field}={v:g}" for v in values], t4,
                           title="two-level IPC / no bypass"))
    finish_compare(args, [source for _, source in PAPER.values()],
                   {"suite": "kim20", "scale": scale, "timing": "cycle", "config": config_to_dict(gpu),
                    "seconds": seconds, "cpu_seconds": cpu, "rows": rows, "average": avg, "failed": failed,
                    "paper": {k: v[0] for k, v in PAPER.items()}},
                   "golden.experiments.kim20_plots", (rows, avg))
    return 0
