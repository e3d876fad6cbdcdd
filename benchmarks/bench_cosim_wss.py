"""Whole-run co-simulation of drp16's WSS cache unit through the Verilator harness.

Two kinds of runs, each recorded once with the ``drp16-wss`` policy (the
paper's WSS: 128 x 16 entries, 32-entry replacement limit, 512K-read
epochs; the LLC's own policy is drp16's Baseline) and its whole log
replayed into the Verilated RTL with every output compared every cycle:

* GPU workloads (default: Rodinia cfd euler3d, a drp16 Table 2
  application, and the tian15 suite) on the tian15 machine, the WSS
  sampling the GPU's L2 accesses as the shader stream;
* the seeded synthetic 4C1G stream of ``bench_drp16_llc.py`` (``--llc-rows``
  rows) through drp16's LLC model (private CPU caches, inclusion), a
  stand-in until drp16's mixes exist.

Prints rows checked, mismatches, golden time, replay time and cycles per
second per run; exits 1 on any mismatch.

Usage::

    python benchmarks/bench_cosim_wss.py [--scale 1.0] [--workloads NAME ...] [--llc-rows 6000000]
"""

from __future__ import annotations

import argparse
import sys
import time

from bench_drp16_llc import synthetic

from golden.configs.presets import preset
from golden.workloads import registry
from tb.cosim import CosimResult, cosim_llc, cosim_units


def _line(name: str, r: CosimResult) -> str:
    return (f"{name:<24}{r.rows:>12,}{int(r.mismatch is not None):>6}{r.record_seconds:>10.1f}"
            f"{r.replay_seconds:>10.2f}{r.cycles_per_second:>13,.0f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--workloads", nargs="*", default=None)
    ap.add_argument("--llc-rows", type=int, default=6_000_000)
    ap.add_argument("--build-dir", default="build/cosim-bench")
    args = ap.parse_args()
    names = args.workloads if args.workloads is not None else ["rdgc/cfd"] + registry.names("tian15")
    gpu = preset("tian15")
    bad = 0
    print(f"{'run':<24}{'rows':>12}{'mism.':>6}{'golden s':>10}{'replay s':>10}{'cycles/s':>13}")
    t_all = time.perf_counter()
    results = []
    for name in names:
        wl = registry.build(name, args.scale)
        (r,) = cosim_units(["wss"], wl, gpu, build_dir=args.build_dir)
        results.append((wl.name, r))
        print(_line(wl.name, results[-1][1]), flush=True)
    if args.llc_rows:
        r = cosim_llc("wss", synthetic(args.llc_rows), 4, name="synthetic 4C1G", build_dir=args.build_dir)
        results.append((f"synthetic-4c1g/{args.llc_rows // 1000}k", r))
        print(_line(*results[-1]), flush=True)
    for name, r in results:
        if r.mismatch is not None or not r.ok:
            bad += 1
            print(f"  {name}: {r.mismatch}")
    verdict = "all match" if not bad else f"{bad} runs mismatched"
    print(f"total {time.perf_counter() - t_all:.0f} s; {sum(r.rows for _, r in results):,} rows; {verdict}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
