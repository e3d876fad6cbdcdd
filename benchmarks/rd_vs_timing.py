"""rdgc's RD model beside the cycle-level timing model and the interleaver, on the 18 rdgc workloads.

rdgc's parallel RD analysis predicts L1 and L2 hit ratios of caches with
banks, ports, MSHRs and latency without cycle simulation. This script sets
its L1 read and L2 hit ratios (rdgc's shared counters and exact per-set
counting) beside those of the fixed-order interleaver with the cache
hierarchy and of the cycle-level timing model (``golden/gpu``), all on
the ``rdgc`` preset (``golden.rd.crosscheck``). ``docs/rd.md`` ("Against the
timing model") explains the gaps with these columns.

Usage::

    python benchmarks/rd_vs_timing.py [--scale 0.25] [--workloads rdgc/2dconv ...] [--json PATH]
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
    args = ap.parse_args()
    gpu = preset("rdgc")
    names = args.workloads or registry.names("rdgc")
    rows = []
    print(f"rdgc preset, scale {args.scale:g}: L1 read hit ratio, L2 hit ratio; 'timed+m' counts L1 "
          "MSHR merges as hits (as rdgc's model does)")
    print(f"{'workload':<13}" + "".join(f"{'L1 ' + c:>10}" for c, _ in COLUMNS) + f"{'L1 timed+m':>11}"
          + "".join(f"{'L2 ' + c:>10}" for c, _ in COLUMNS) + f"{'merges':>9}{'RD s':>7}{'timed s':>8}")
    for name in names:
        wl = registry.build(name, args.scale)
        res, secs = {}, {}
        res["rd"], secs["rd"] = _timed(rd_reference, wl, gpu)
        res["rd_per_set"], secs["rd_per_set"] = _timed(rd_reference, wl, gpu, RDOptions(counting="per-set"))
        res["simulator"], secs["simulator"] = _timed(simulator_reference, wl, gpu)
        res["timing"], secs["timing"] = _timed(timing_reference, wl, gpu)
        rows.append({"workload": name, **res, "seconds": secs})
        t = res["timing"]
        l1 = "".join(f"{res[k]['l1_read_hit_ratio']:10.3f}" for _, k in COLUMNS)
        print(f"{name.split('/')[-1]:<13}" + l1 + f"{t['l1_read_hit_ratio_merged']:11.3f}"
              + "".join(f"{res[k]['l2_hit_ratio']:10.3f}" for _, k in COLUMNS)
              + f"{t['l1_mshr_merges']:9d}{secs['rd']:7.1f}{secs['timing']:8.1f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scale": args.scale, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
