"""rdgc's RD model beside the cycle-level timing model and the interleaver, on the 18 rdgc workloads.

rdgc's parallel RD analysis predicts L1 and L2 hit ratios of caches with
banks, ports, MSHRs and latency without cycle simulation. This script sets
its L1 read and L2 hit ratios beside those of the cycle-level timing model
(``golden/gpu``) and of the fixed-order interleaver with the cache
hierarchy, all on the ``rdgc`` preset (``golden.rd.crosscheck``), with the
seconds each took. ``docs/rd.md`` ("Against the timing model") explains
the gaps.

Usage::

    python benchmarks/rd_vs_timing.py [--scale 0.25] [--workloads rdgc/2dconv ...] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import time

from golden.configs.presets import preset
from golden.rd.crosscheck import rd_reference, simulator_reference, timing_reference
from golden.workloads import registry


def _timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
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
    head = (f"{'workload':<16}{'L1 RD':>8}{'L1 sim':>8}{'L1 time':>8}{'L2 RD':>8}{'L2 sim':>8}{'L2 time':>8}"
            f"{'merges':>10}{'RD s':>7}{'sim s':>7}{'time s':>8}")
    print(f"rdgc preset, scale {args.scale:g}: L1 = L1 read hit ratio, L2 = L2 hit ratio")
    print(head)
    for name in names:
        wl = registry.build(name, args.scale)
        rd, t_rd = _timed(rd_reference, wl, gpu)
        sim, t_sim = _timed(simulator_reference, wl, gpu)
        tim, t_tim = _timed(timing_reference, wl, gpu)
        row = {"workload": name, "rd": rd, "simulator": sim, "timing": tim,
               "seconds": {"rd": t_rd, "simulator": t_sim, "timing": t_tim}}
        rows.append(row)
        print(f"{name.split('/')[-1]:<16}{rd['l1_read_hit_ratio']:8.3f}{sim['l1_read_hit_ratio']:8.3f}"
              f"{tim['l1_read_hit_ratio']:8.3f}{rd['l2_hit_ratio']:8.3f}{sim['l2_hit_ratio']:8.3f}"
              f"{tim['l2_hit_ratio']:8.3f}{tim['l1_mshr_merges']:10d}{t_rd:7.1f}"
              f"{t_sim:7.1f}{t_tim:8.1f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scale": args.scale, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
