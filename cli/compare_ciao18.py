"""``gpucache compare --suite ciao18``: ciao18's schedulers' IPC over GTO beside Fig. 8."""

from __future__ import annotations

import argparse
import time

from cli.output import finish_compare, format_table
from cli.progress import progress
from golden.configs.loader import config_to_dict, load_config
from golden.errors import InputError
from golden.workloads import registry

__all__ = ["compare_ciao18"]


def _f(v) -> str:
    return "missing" if v is None else f"{v:.3f}"


def compare_ciao18(args: argparse.Namespace) -> int:
    """Run the comparison for ``args`` (workloads, config, scale, swl_limits, plot, json)."""
    from golden.experiments.ciao18 import (
        NOT_BUILT,
        PAPER_FIG8,
        SCHEDULERS,
        TIME_SERIES,
        class_means,
        compare_workload,
    )

    gpu = load_config(args.config)
    scale = 1.0 if args.scale is None else args.scale
    names = registry.names("ciao18")
    if args.workloads:
        names = [registry.get(w if "/" in w else f"ciao18/{w}").key for w in args.workloads]
    limits = args.swl_limits
    if limits is not None:
        for n in limits:
            if not 1 <= n <= gpu.max_warps_per_sm:
                raise InputError(f"--swl-limits: a warp limit is 1 to {gpu.max_warps_per_sm}, not {n}")
    t0 = time.perf_counter()
    c0 = time.process_time()
    rows = []
    with progress(len(names), "workloads", "wl", args.progress) as bar:
        for name in names:
            rows.append(compare_workload(registry.build(name, scale), gpu, SCHEDULERS, limits))
            bar.update(1)
    means = class_means(rows)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
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
    print(f"suite ciao18  config {gpu.name}  scale {scale:g}  timing cycle  "
          f"[{seconds:.1f} s wall, {cpu:.1f} s CPU]")
    print(format_table(["workload", "class", "IPC GTO"] + others + ["SWL N", "Table II N"], table))
    print(f"IPC / GTO's IPC; not built here (printed as missing): {', '.join(NOT_BUILT)}; "
          "Best-SWL profiled over " + ("every limit 1.." + str(gpu.max_warps_per_sm) if limits is None
                                       else "limits " + " ".join(map(str, limits))))
    finish_compare(args, (), {"suite": "ciao18", "scale": scale, "config": config_to_dict(gpu),
                              "seconds": seconds, "cpu_seconds": cpu, "schedulers": list(SCHEDULERS),
                              "not_built": list(NOT_BUILT), "swl_limits": limits, "rows": rows,
                              "class_means": means, "paper_fig8": PAPER_FIG8},
                   "golden.experiments.ciao18_plots",
                   ([r for r in rows if r["workload"].split("/")[-1] in TIME_SERIES],), "plot_time_series")
    return 0
