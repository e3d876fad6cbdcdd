"""CIAO-T/P/C with another reading of which warps an epoch examines, beside a comparison's own runs.

One factor: every ciao18 benchmark's CIAO-T, CIAO-P and CIAO-C run again with the policy's
``examine`` parameter (``"all"``: every resident warp at each epoch's end; the preset's reading is
``"front"``, ``docs/policies/ciao18.md``), on the sweep engine's Dask cluster, and printed as IPC
over GTO beside the same schedulers' ratios in a ``gpucache compare --suite ciao18 --json`` file of
the same scale (its GTO runs are the baseline; the code must be the same, or the ratios mix two
models). Geometric means per class and over all benchmarks, with Fig. 8's.

Usage::

    python benchmarks/ciao18_examine.py docs/results/ciao18_scale1.json --scale 1 --workers 2 \\
        [--examine all] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

from distributed import as_completed

from golden.configs.presets import preset
from golden.experiments.ciao18 import PAPER_FIG8, run_point
from golden.experiments.sweep.engine import dask_client
from golden.policies.ciao18 import EXAMINE
from golden.workloads import registry

SCHEDULERS = ("ciao-t", "ciao-p", "ciao-c")


def one(name: str, scheduler: str, scale: float, examine: str) -> dict:
    """``scheduler`` on ``name`` with ``examine``: IPC, cycles, the policy's counts, CPU seconds."""
    c0 = time.process_time()
    r = run_point(registry.build(name, scale), preset("ciao18"), scheduler, params={"examine": examine})
    return {"workload": name, "scheduler": scheduler, "ipc": r["ipc"], "cycles": r["cycles"],
            "policy_stats": r["policy_stats"], "cpu_seconds": time.process_time() - c0}


def geomean(values: list[float]) -> float:
    """Geometric mean."""
    return math.exp(sum(map(math.log, values)) / len(values))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("compare_json", help="a gpucache compare --suite ciao18 --json file (GTO: the base)")
    ap.add_argument("--scale", type=float, required=True, help="the input scale of that comparison")
    ap.add_argument("--examine", choices=sorted(EXAMINE), default="all")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", metavar="OUT", help="also write the runs as JSON")
    args = ap.parse_args()
    base = json.load(open(args.compare_json))
    if base.get("scale") != args.scale:
        print(f"{args.compare_json}: scale {base.get('scale')}, not {args.scale}", file=sys.stderr)
        return 2
    rows = {r["workload"]: r for r in base["rows"]}
    # The longest first (the comparison's own CPU times), so that the two workers end together.
    names = sorted(rows, key=lambda n: -rows[n]["time"]["cpu_seconds"])
    t0 = time.perf_counter()
    runs: dict = {}
    with dask_client(None, args.workers) as client:
        futures = [client.submit(one, n, s, args.scale, args.examine, pure=False)
                   for n in names for s in SCHEDULERS]
        for f in as_completed(futures):
            r = f.result()
            runs[r["workload"], r["scheduler"]] = r
    wall = time.perf_counter() - t0
    cpu = sum(r["cpu_seconds"] for r in runs.values())
    print(f"ciao18 at scale {args.scale:g}: IPC over GTO, {args.compare_json}'s runs and examine="
          f"{args.examine!r} [{wall:.1f} s wall, {cpu:.1f} s CPU, {args.workers} workers]")
    head = ["benchmark", "class"] + [f"{s} {w}" for s in SCHEDULERS for w in ("compare", args.examine)]
    print(" | ".join(head))
    means: dict = {}
    for n in sorted(rows):
        r = rows[n]
        gto = r["runs"]["gto"]["ipc"]
        cls = r["class"] or "-"
        cells = []
        for s in SCHEDULERS:
            pair = (r["norm"][s], runs[n, s]["ipc"] / gto)
            cells += [f"{v:.3f}" for v in pair]
            for key in (cls, "all"):
                for k, v in zip(("compare", args.examine), pair, strict=True):
                    means.setdefault((key, s, k), []).append(v)
        print(" | ".join([n.split("/")[-1], cls, *cells]))
    for key in ("LWS", "SWS", "CI", "all"):
        cells = [f"{geomean(means[key, s, k]):.3f}" for s in SCHEDULERS for k in ("compare", args.examine)
                 if (key, s, k) in means]
        if cells:
            print(" | ".join([f"geomean {key}", "", *cells]))
    print(" | ".join(["ciao18 Fig. 8", "all"] + [f"{PAPER_FIG8[s]:.2f}" for s in SCHEDULERS for _ in (0, 1)]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"scale": args.scale, "examine": args.examine, "compare": args.compare_json,
                       "seconds": wall, "cpu_seconds": cpu, "runs": list(runs.values())}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
