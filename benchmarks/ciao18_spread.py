"""How far the ciao18 comparison's ratios move between runs that differ by one small factor.

Each input is a ``gpucache compare --suite ciao18 --json`` file of the same scale and benchmarks,
made on machines that differ in one field by a step too small to matter to a cache study (the
L2's hit latency 119, 120 and 121 cycles, for example). The epoch-driven schedulers react to such
steps, so a single run's IPC over GTO carries a spread that a one-factor difference must exceed to
be read as an effect (``docs/policies/ciao18.md``). Printed:

* per benchmark and scheduler, the ratio in each file, the mean and the spread (highest over
  lowest, minus one), for the rows whose spread is at least ``--min-spread``;
* per class and over all benchmarks, each file's geometric mean, the lowest, the highest and
  the spread, beside Fig. 8.

Usage::

    python benchmarks/ciao18_spread.py A.json B.json C.json [--labels 119 120 121] \\
        [--min-spread 0.05] [--json OUT]
"""

from __future__ import annotations

import argparse
import sys
from statistics import fmean

from cli.output import write_json
from golden.errors import InputError
from golden.experiments.ciao18 import CLASSES, PAPER_FIG8, SCHEDULERS, class_means
from golden.files import json_field, read_json_object

POLICIES = tuple(s for s in SCHEDULERS if s != "gto")


def load(paths: list[str]) -> list[dict]:
    """The comparisons, checked to share a scale and a set of benchmarks; ``InputError`` names the file."""
    runs = []
    for p in paths:
        d = read_json_object(p)
        json_field(d, "scale", (int, float), p)
        for i, r in enumerate(json_field(d, "rows", list, p)):
            if not (isinstance(r, dict) and isinstance(r.get("workload"), str)
                    and isinstance(r.get("norm"), dict) and r.get("class") in CLASSES):
                raise InputError(f"{p}: rows[{i}] is not a benchmark's row (workload, class, norm)")
        runs.append(d)
    first = runs[0]
    names = sorted(r["workload"] for r in first["rows"])
    for p, d in zip(paths[1:], runs[1:], strict=True):
        if d["scale"] != first["scale"]:
            raise InputError(f"{p}: scale {d['scale']}, not {paths[0]}'s {first['scale']}")
        if sorted(r["workload"] for r in d["rows"]) != names:
            raise InputError(f"{p}: other benchmarks than {paths[0]}'s")
    return runs


def spread(values: list[float]) -> float:
    """Highest over lowest, minus one (0 for a single value)."""
    return max(values) / min(values) - 1.0


def benchmark_spreads(runs: list[dict]) -> list[dict]:
    """Per benchmark and scheduler: the ratio over GTO in each comparison, its mean and spread."""
    by_name = [{r["workload"]: r for r in d["rows"]} for d in runs]
    out = []
    for name in sorted(by_name[0]):
        for s in POLICIES:
            ratios = [rows[name]["norm"].get(s) for rows in by_name]
            if any(v is None for v in ratios):
                continue  # a deadlocked run has no ratio
            out.append({"workload": name, "class": by_name[0][name]["class"], "scheduler": s,
                        "ratios": ratios, "mean": fmean(ratios), "spread": spread(ratios)})
    return out


def geomean_spreads(runs: list[dict]) -> dict:
    """Per class and over all benchmarks, per scheduler: each comparison's geometric mean and their spread."""
    means = [class_means(d["rows"]) for d in runs]
    out: dict = {}
    for cls in (*CLASSES, "all"):
        out[cls] = {}
        for s in POLICIES:
            vals = [m[cls][s] for m in means]
            if any(v is None for v in vals):
                continue
            out[cls][s] = {"values": vals, "low": min(vals), "high": max(vals), "spread": spread(vals)}
    return out


def _cells(values, fmt: str = "{:>9.3f}") -> str:
    return " ".join("{:>9}".format("-") if v is None else fmt.format(v) for v in values)


def report(runs: list[dict], labels: list[str], rows: list[dict], geo: dict, min_spread: float) -> list[str]:
    """The two tables as text lines: the benchmarks spread at least ``min_spread``, then the geomeans."""
    w = max(9, *(len(x) for x in labels))
    out = [f"scale {runs[0]['scale']}; IPC over GTO in each comparison: {', '.join(labels)}", "",
           f"benchmark-scheduler pairs spread at least {min_spread:.0%} ({len(rows)} pairs in all):",
           f"{'benchmark':<16} {'scheduler':<9} " + " ".join(f"{x:>{w}}" for x in labels)
           + f" {'mean':>9} {'spread':>8}"]
    for r in sorted(rows, key=lambda r: -r["spread"]):
        if r["spread"] >= min_spread:
            ratios = " ".join(f"{v:>{w}.3f}" for v in r["ratios"])
            out.append(f"{r['workload'].split('/')[-1]:<16} {r['scheduler']:<9} {ratios}"
                       f" {r['mean']:9.3f} {r['spread']:8.1%}")
    for cls in (*CLASSES, "all"):
        g = geo[cls]
        n = sum(1 for r in runs[0]["rows"] if cls == "all" or r["class"] == cls)
        out += ["", f"geometric mean, {cls} ({n} benchmarks):",
                f"{'':<{w}} " + " ".join(f"{s:>9}" for s in POLICIES)]
        table = [(lab, [g[s]["values"][i] if s in g else None for s in POLICIES], "{:>9.3f}")
                 for i, lab in enumerate(labels)]
        table += [(key, [g[s][key] if s in g else None for s in POLICIES], fmt)
                  for key, fmt in (("low", "{:>9.3f}"), ("high", "{:>9.3f}"), ("spread", "{:>9.1%}"))]
        for name, values, fmt in table:
            out.append(f"{name:<{w}} " + _cells(values, fmt))
        if cls == "all":
            out.append(f"{'Fig. 8':<{w}} " + _cells([PAPER_FIG8[s] for s in POLICIES], "{:>9.2f}"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="gpucache compare --suite ciao18 --json files")
    ap.add_argument("--labels", nargs="+", help="a name per file (default: the file names)")
    ap.add_argument("--min-spread", type=float, default=0.05,
                    help="print the benchmarks whose spread is at least this (default 0.05)")
    ap.add_argument("--json", metavar="OUT", help="also write both tables as JSON")
    args = ap.parse_args(argv)
    labels = args.labels or args.files
    if len(labels) != len(args.files):
        print(f"--labels: {len(labels)} labels for {len(args.files)} files", file=sys.stderr)
        return 2
    if len(args.files) < 2:
        print("give at least two comparisons to set side by side", file=sys.stderr)
        return 2
    try:
        runs = load(args.files)
    except InputError as e:
        print(e, file=sys.stderr)
        return 2
    rows = benchmark_spreads(runs)
    geo = geomean_spreads(runs)
    print("\n".join(report(runs, labels, rows, geo, args.min_spread)))
    if args.json:
        write_json(args.json, {"files": args.files, "labels": labels, "scale": runs[0]["scale"],
                               "benchmarks": rows, "geomeans": geo, "paper_fig8": PAPER_FIG8})
    return 0


if __name__ == "__main__":
    sys.exit(main())
