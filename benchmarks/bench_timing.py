"""Speed of the cycle-level timing model on whole workloads: warp instructions and cycles per second.

The model is compiled first on a one-warp kernel, so the figures are the
simulation's own. Each line also gives the events the loop handled
(``timing.loop.events``), per warp instruction and per second: the loop's
time goes with its events (``docs/timing.md``, "The loop's work counted"),
so the warp instructions per second follow how many events a workload's
warp instruction makes. Accel-Sim's speed on the same workloads is printed by
``benchmarks/compare_accelsim.py`` (it needs an Accel-Sim build).

Run: ``python benchmarks/bench_timing.py --config tian15 tian15/matrixmul tian15/spmv``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from golden.configs.presets import preset
from golden.gpu.run import simulate_timed
from golden.trace.builder import KernelBuilder
from golden.trace.model import Workload
from golden.workloads import registry


def warm_up(gpu) -> float:
    """Compile the model (a one-warp kernel); returns the seconds it took."""
    kb = KernelBuilder("warm", (1,), (32,))
    kb.load(0x10, np.arange(32) * 4)
    t0 = time.perf_counter()
    simulate_timed(Workload("warm", [kb.build()]), gpu)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workloads", nargs="+")
    ap.add_argument("--config", default="tian15")
    ap.add_argument("--scale", type=float, default=1.0)
    args = ap.parse_args()
    gpu = preset(args.config)
    print(f"compile: {warm_up(gpu):.1f} s")
    total_inst = total_s = total_events = 0.0
    for name in args.workloads:
        wl = registry.build(name, args.scale)
        t0 = time.perf_counter()
        r = simulate_timed(wl, gpu)
        s = time.perf_counter() - t0
        inst, cycles = r["totals"]["instructions"], r["timing"]["cycles"]
        events = sum(r["timing"]["loop"]["events"].values())
        total_inst += inst
        total_s += s
        total_events += events
        print(f"{name:<22} {s:7.1f} s  {inst:>12,} warp inst  {cycles:>11,} cycles  "
              f"{inst / s:>12,.0f} warp inst/s  {cycles / s:>10,.0f} cycles/s  IPC {r['timing']['ipc']:.2f}  "
              f"{events:>12,} events ({events / max(inst, 1):.1f} per warp inst, {events / s:,.0f}/s)")
    print(f"{'all':<22} {total_s:7.1f} s  {total_inst / total_s:,.0f} warp inst/s  "
          f"{total_events / total_s:,.0f} events/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
