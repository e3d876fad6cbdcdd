"""rdgc's RD model beside the cycle-level timing model and the interleaver, on the 18 rdgc workloads.

rdgc's parallel RD analysis predicts L1 and L2 hit ratios of caches with
banks, ports, MSHRs and latency without cycle simulation. This script sets
its L1 read and L2 hit ratios (rdgc's shared counters and exact per-set
counting) beside those of the fixed-order interleaver with the cache
hierarchy and of the cycle-level timing model (``golden/gpu``), all on
the ``rdgc`` preset (``golden.rd.crosscheck``). ``docs/rd.md`` ("Against the
timing model") explains the gaps with these columns.

The ``ideal`` columns separate the timing model's *order* of accesses from
its *latency*: the same timing model with ideal memory (``fixed_latency``:
every access runs through the cache hierarchy when it is sent, each load's
data returns a fixed number of cycles later, no MSHRs, queues or bandwidth
limits, so no miss is in flight and nothing merges). ``--ideal`` takes the
latencies: integers, ``mem`` for the preset's ``mem_latency`` (100 cycles:
the latency the interleaver's warps wait after a load, so the two models
then differ only in their issue rules), or ``mean`` for the normal run's
mean load latency (rounded), which keeps its pace of issue but not its
misses in flight. A
gap to the fixed-order models that remains with ideal memory is the warp
order; one that vanishes comes from the latency and the misses in flight.

Usage::

    python benchmarks/rd_vs_timing.py [--scale 0.25] [--workloads rdgc/2dconv ...] [--json PATH]
                                      [--ideal 0 mem mean]
"""

from __future__ import annotations

import argparse
import json
import time

from golden.configs.presets import preset
from golden.rd.crosscheck import rd_reference, simulator_reference, timing_reference
from golden.rd.model import RDOptions
from golden.workloads import registry

COLUMNS = (("RD", "rd"), ("RD set", "rd_per_set"), ("sim", "simulator"), ("timed", "timing"))


def _timed(fn, *args, **kw):
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=0.25)
    ap.add_argument("--workloads", nargs="*", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--ideal", nargs="*", default=["0", "mem", "mean"],
                    help="ideal-memory latencies of the timing model: cycles, 'mem' (the preset's "
                         "mem_latency) or 'mean' (the normal run's mean load latency); none to skip")
    args = ap.parse_args()
    for v in args.ideal:
        if v not in ("mem", "mean") and not v.isdigit():
            ap.error(f"--ideal: a non-negative number of cycles, 'mem' or 'mean', not {v!r}")
    gpu = preset("rdgc")
    names = args.workloads or registry.names("rdgc")
    rows = []
    print(f"rdgc preset, scale {args.scale:g}: L1 read hit ratio, L2 hit ratio; 'timed+m' counts L1 "
          "MSHR merges as hits (as rdgc's model does)")
    print(f"{'workload':<13}" + "".join(f"{'L1 ' + c:>10}" for c, _ in COLUMNS) + f"{'L1 timed+m':>11}"
          + "".join(f"{'L2 ' + c:>10}" for c, _ in COLUMNS) + f"{'merges':>9}{'RD s':>7}{'timed s':>8}"
          + "".join(f"{'L1 id' + v[:4]:>10}{'L2 id' + v[:4]:>10}" for v in args.ideal)
          + (f"{'mean lat':>9}" if args.ideal else ""))
    for name in names:
        wl = registry.build(name, args.scale)
        res, secs = {}, {}
        res["rd"], secs["rd"] = _timed(rd_reference, wl, gpu)
        res["rd_per_set"], secs["rd_per_set"] = _timed(rd_reference, wl, gpu, RDOptions(counting="per-set"))
        res["simulator"], secs["simulator"] = _timed(simulator_reference, wl, gpu)
        res["timing"], secs["timing"] = _timed(timing_reference, wl, gpu)
        t = res["timing"]
        ideal = {}
        for v in args.ideal:
            named = {"mean": round(t["avg_load_latency"]), "mem": gpu.mem_latency}
            lat = int(v) if v.isdigit() else named[v]
            ideal[v] = {"fixed_latency": lat, **timing_reference(wl, gpu, fixed_latency=lat)}
        rows.append({"workload": name, **res, "ideal": ideal, "seconds": secs})
        l1 = "".join(f"{res[k]['l1_read_hit_ratio']:10.3f}" for _, k in COLUMNS)
        print(f"{name.split('/')[-1]:<13}" + l1 + f"{t['l1_read_hit_ratio_merged']:11.3f}"
              + "".join(f"{res[k]['l2_hit_ratio']:10.3f}" for _, k in COLUMNS)
              + f"{t['l1_mshr_merges']:9d}{secs['rd']:7.1f}{secs['timing']:8.1f}"
              + "".join(f"{i['l1_read_hit_ratio']:10.3f}{i['l2_hit_ratio']:10.3f}" for i in ideal.values())
              + (f"{t['avg_load_latency']:9.1f}" if ideal else ""), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scale": args.scale, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
