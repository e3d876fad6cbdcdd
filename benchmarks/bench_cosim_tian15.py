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
from tb.cosim import cosim_units


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--workloads", nargs="+", default=None)
    ap.add_argument("--build-dir", default="build/cosim-bench")
    args = ap.parse_args()
    gpu = preset("tian15")
    names = args.workloads or registry.names("tian15")
    bad = 0
    print(f"{'workload':<20}{'unit':<18}{'rows':>12}{'mism.':>6}{'golden s':>10}{'replay s':>10}"
          f"{'cycles/s':>13}")
    t_all = time.perf_counter()
    for name in names:
        wl = registry.build(name if "/" in name else f"tian15/{name}", args.scale)
        for r in cosim_units(list(PCBypass().units()), wl, gpu, build_dir=args.build_dir):
            bad += r.mismatch is not None or not r.ok
            print(f"{wl.name:<20}{r.unit:<18}{r.rows:>12,}{int(r.mismatch is not None):>6}"
                  f"{r.record_seconds:>10.1f}{r.replay_seconds:>10.2f}{r.cycles_per_second:>13,.0f}")
            if r.mismatch is not None:
                print(f"  {r.mismatch}")
    verdict = "all match" if not bad else f"{bad} runs mismatched"
    print(f"total {time.perf_counter() - t_all:.0f} s; {verdict}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
