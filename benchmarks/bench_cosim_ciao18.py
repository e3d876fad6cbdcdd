"""Whole-workload co-simulation of ciao18's five units through the Verilator harness.

For each workload, the ciao18 preset runs it once on the timing model with
a CIAO policy recording SM 0's transactions of the VTA, the interference
list, the pair list, the IRS unit and the shared-memory translation unit
(``catalog.ciao18.record_timed``); each unit's log is laid out by its unit
model and replayed into the Verilated RTL with every output compared every
cycle. Prints, per workload and unit, rows checked, mismatches, the golden
run's wall time (shared by the units), the replay's time and cycles per
second, then the workload's CPU time (user + sys, Verilator's builds
included); exits 1 on any mismatch.

Usage::

    python benchmarks/bench_cosim_ciao18.py [--scale 0.25] [--policy ciao-c] [--workloads atax kmn ...]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from golden.configs.presets import preset
from golden.workloads import registry
from tb.cosim import BENCH_HEADER, bench_row, cosim_units

UNITS = ["ciao_vta", "ciao_interference", "ciao_pair_list", "ciao_irs", "ciao_smem"]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=0.25)
    ap.add_argument("--policy", default="ciao-c", choices=["ciao-t", "ciao-p", "ciao-c"])
    ap.add_argument("--workloads", nargs="+", default=["atax", "kmn", "syrk", "backprop"])
    ap.add_argument("--build-dir", default="build/cosim-bench")
    args = ap.parse_args()
    gpu = preset("ciao18")
    units = [u for u in UNITS if args.policy != "ciao-t" or u != "ciao_smem"]
    bad = 0
    print(f"policy {args.policy}, scale {args.scale}, SM 0")
    print(BENCH_HEADER)
    t_all = time.perf_counter()
    for name in args.workloads:
        wl = registry.build(name if "/" in name else f"ciao18/{name}", args.scale)
        cpu0 = _cpu()
        results = cosim_units(units, wl, gpu, build_dir=args.build_dir, policy=args.policy)
        cpu = _cpu() - cpu0  # golden run, layouts, Verilator builds (cached) and replays of every unit
        for r in results:
            bad += not r.ok
            print(bench_row(wl.name, r))
        print(f"{wl.name:<20}cpu {cpu:.1f} s (user + sys)", flush=True)
    verdict = "all match" if not bad else f"{bad} runs mismatched"
    print(f"total {time.perf_counter() - t_all:.0f} s; {verdict}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
