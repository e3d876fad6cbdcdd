"""Whole-workload co-simulation of tian15's units through the Verilator harness.

For every tian15 workload at the given scale (default: the paper's size),
the golden model runs once with the PC-based policy, recording the
transaction logs of SM 0's L1 tag unit (with its prediction table) and of
the L2 bypassBit store; each log is replayed into the Verilated RTL with
every output compared every cycle. Prints rows checked, mismatches, replay
time and cycles per second per workload and unit; exits 1 on any mismatch.

Usage::

    python benchmarks/bench_cosim_tian15.py [--scale 1.0] [--workloads NAME ...]
"""

from __future__ import annotations

import argparse
import sys
import time

from golden.configs.presets import preset
from golden.policies.pc_bypass import PCBypass
from golden.workloads import registry
from tb.cosim import BENCH_HEADER, bench_row, cosim_units


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--workloads", nargs="+", default=None)
    ap.add_argument("--build-dir", default="build/cosim-bench")
    args = ap.parse_args()
    gpu = preset("tian15")
    names = args.workloads or registry.names("tian15")
    bad = 0
    print(BENCH_HEADER)
    t_all = time.perf_counter()
    for name in names:
        wl = registry.build(name if "/" in name else f"tian15/{name}", args.scale)
        for r in cosim_units(list(PCBypass().units()), wl, gpu, build_dir=args.build_dir):
            bad += not r.ok
            print(bench_row(wl.name, r))
    verdict = "all match" if not bad else f"{bad} runs mismatched"
    print(f"total {time.perf_counter() - t_all:.0f} s; {verdict}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
