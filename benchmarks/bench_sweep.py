"""Speed-up of ``gpucache sweep`` with 2 local Dask workers over 1, on the same 8-point grid.

The grid (default): rdgc/2dconv at scale 0.5 on the timing model, L1 sizes
8, 16, 32 and 64 KB x the gto and lrr schedulers. Each run starts its own
local cluster (worker start-up and the workers' loading of the compiled
models are part of the wall time, as they are for a user) and a fresh
results store; the two tables must be identical. A first, untimed run of
one point compiles (or loads) the models so that neither timed run pays
for compilation alone.

The ratio is only meaningful on an otherwise idle machine with 2 free
cores: the load average is printed before and after.

Run: ``python benchmarks/bench_sweep.py [--workload W] [--scale F]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from golden.experiments.sweep.code import code_fingerprint
from golden.experiments.sweep.engine import run_sweep
from golden.experiments.sweep.fields import parse_set
from golden.experiments.sweep.grid import GridSpec, build_grid
from golden.experiments.sweep.point import run_point
from golden.experiments.sweep.store import ResultsStore
from golden.experiments.sweep.table import table_rows, write_csv


def timed_sweep(points, workers: int, root: Path) -> tuple[float, float, bytes]:
    """Wall seconds, the sum of the points' own seconds, and the CSV table of one sweep."""
    store = ResultsStore(root / f"store-{workers}")
    t0 = time.perf_counter()
    out = run_sweep(points, store, workers=workers)
    wall = time.perf_counter() - t0
    if out.failed:
        raise SystemExit(f"bench_sweep: {len(out.failed)} points failed: {out.failed[0][1]}")
    records = [store.get(p.key) for p in points]
    write_csv(root / f"table-{workers}.csv", table_rows(records))
    return wall, sum(r["seconds"] for r in records), (root / f"table-{workers}.csv").read_bytes()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workload", default="rdgc/2dconv")
    ap.add_argument("--scale", type=float, default=0.5)
    ap.add_argument("--timing", default="cycle", choices=("cycle", "none"))
    args = ap.parse_args()
    spec = GridSpec(workloads=(args.workload,), scales=(args.scale,), timings=(args.timing,),
                    fields=(parse_set("l1.size=8K,16K,32K,64K"), parse_set("scheduler=gto,lrr")))
    points = build_grid(spec, code_fingerprint())
    print(f"grid: {len(points)} points, {args.workload} scale {args.scale}, timing {args.timing}; "
          f"{len(os.sched_getaffinity(0))} CPUs, load average {os.getloadavg()[0]:.2f}")
    t0 = time.perf_counter()
    run_point(points[0].task)  # compile or load the models, build the trace cache entry
    print(f"warm-up point: {time.perf_counter() - t0:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        one, one_cpu, table1 = timed_sweep(points, 1, Path(tmp))
        two, two_cpu, table2 = timed_sweep(points, 2, Path(tmp))
    if table1 != table2:
        raise SystemExit("bench_sweep: the 1-worker and 2-worker tables differ")
    print(f"1 worker : {one:6.1f} s wall  (points' own time {one_cpu:.1f} s)")
    print(f"2 workers: {two:6.1f} s wall  (points' own time {two_cpu:.1f} s)")
    print(f"speed-up : {one / two:.2f}x   (load average now {os.getloadavg()[0]:.2f}; tables identical)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
