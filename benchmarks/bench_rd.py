"""Speed of rdgc's RD analysis on the 18 rdgc workloads, beside the cache simulator on the same trace.

For every rdgc workload at the paper's size (``--scale``), on the ``rdgc``
preset (L1 on, adaptive A2 latency, RR mapping, shared counters):

* the RD analysis of the L1s and the L2 (logical model, physical model,
  parallel RD): wall seconds, CPU seconds of the process (less sensitive to
  other jobs on a shared machine) and RD-analysed accesses per second;
* the cache simulator (:class:`golden.cache.Hierarchy`, the same L1 and L2)
  on the same L1 access order (every SM's accesses in RD step order, SMs in
  lock step): seconds and accesses per second, and both models' L1 read and
  L2 hit ratios;
* the cost of 8 L1 sizes from one pass (``l1_sweep``) against the pass alone,
  and, for ``--separate`` workloads, against 8 separate passes with the
  largest hit-ratio difference.

Trace generation is not timed (traces come from the workload cache). The
paper's figure (rdgc Table 4, Section 5.2.1): the physical model is 47 K x
slower than a GTX 970 on average and 59 x faster than GPGPU-Sim.

Usage::

    python benchmarks/bench_rd.py [--scale 1.0] [--workloads NAME ...] [--separate NAME ...]
    python benchmarks/bench_rd.py --rd-only [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from golden.cache import Hierarchy
from golden.configs.presets import preset
from golden.rd.model import RDOptions, analyse
from golden.trace.coalesce import ACCESS_DTYPE
from golden.workloads import registry

KB = 1024
SWEEP = tuple(s * KB for s in (4, 8, 16, 24, 32, 48, 64, 128))
#: Warm-up workload (at 5% size): small, but it runs every compiled loop of the analysis
#: (``rdgc/gramschmidt`` at 1%, used before, never ran the parallel caches' loop, so the
#: first timed workload paid for compiling or loading it).
WARM = "rdgc/2dconv"


def simulator_trace(streams: dict) -> np.ndarray:
    """The L1 accesses of every SM, SMs in lock step by RD step, as a hierarchy access stream."""
    parts = []
    for sm, (lines, writes, _, step) in enumerate(streams["l1"]):
        a = np.zeros(lines.size, ACCESS_DTYPE)
        a["sm"] = sm
        a["line"] = lines
        a["op"] = np.where(writes, 2, 1)
        a["cycle"] = step
        parts.append(a)
    acc = np.concatenate(parts)
    return acc[np.lexsort((acc["sm"], acc["cycle"]))]


def rd_only(names: list[str], scale: float, repeat: int) -> int:
    """Time the RD analysis alone: best wall and CPU seconds of ``repeat`` runs per workload."""
    gpu = preset("rdgc")
    analyse(registry.build(WARM, 0.05), gpu)  # compile (or load) every compiled loop first
    print(f"rdgc preset, scale {scale:g}; RD analysis only, best of {repeat} run(s); load average "
          + " ".join(f"{v:.2f}" for v in os.getloadavg()))
    print(f"{'workload':<18}{'RD acc.':>12}{'wall s':>8}{'cpu s':>8}{'RD acc/s':>12}")
    tot_acc, tot_wall, tot_cpu = 0, 0.0, 0.0
    for name in names:
        wl = registry.build(name, scale)
        best = (float("inf"), float("inf"))
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            res = analyse(wl, gpu)
            best = (min(best[0], time.perf_counter() - t0), min(best[1], time.process_time() - c0))
        print(f"{name:<18}{res.accesses:>12,}{best[0]:>8.1f}{best[1]:>8.1f}{res.accesses / best[0]:>12,.0f}",
              flush=True)
        tot_acc, tot_wall, tot_cpu = tot_acc + res.accesses, tot_wall + best[0], tot_cpu + best[1]
    print(f"{'total':<18}{tot_acc:>12,}{tot_wall:>8.1f}{tot_cpu:>8.1f}{tot_acc / tot_wall:>12,.0f}")
    print(f"RD analysis of all {len(names)} workloads, L1 and L2: {tot_wall:.1f} s wall, {tot_cpu:.1f} s CPU "
          "(target < 120 s); load average at the end " + " ".join(f"{v:.2f}" for v in os.getloadavg()))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--workloads", nargs="+", default=None)
    ap.add_argument("--separate", nargs="*", default=["rdgc/2mm"],
                    help="workloads whose sweep is also run as 8 separate passes")
    ap.add_argument("--gap", action="store_true",
                    help="also run exact per-set counting; print both counters' hit ratios")
    ap.add_argument("--rd-only", action="store_true",
                    help="time the RD analysis alone (no simulator, no sweep), best of --repeat runs")
    ap.add_argument("--repeat", type=int, default=1, help="timed RD runs per workload with --rd-only")
    args = ap.parse_args()
    gpu = preset("rdgc")
    names = args.workloads or registry.names("rdgc")
    if args.rd_only:
        return rd_only(names, args.scale, args.repeat)
    blocks = tuple(s // gpu.l1.line_size for s in SWEEP)
    # Compile everything first: the timings are of compiled code.
    warm = registry.build(WARM, 0.05)
    w = analyse(warm, gpu, RDOptions(l1_sweep=blocks), keep_streams=True)
    Hierarchy(gpu).run(simulator_trace(w.streams))
    print(f"rdgc preset, scale {args.scale:g}; sweep of l1.size over {len(SWEEP)} sizes")
    print(f"{'workload':<18}{'RD acc.':>12}{'RD s':>7}{'cpu s':>7}{'RD acc/s':>11}{'sim acc.':>12}"
          f"{'sim s':>7}{'sim acc/s':>11}{'L1 RD':>8}{'L1 sim':>8}{'L2 RD':>8}{'L2 sim':>8}{'sweep s':>9}"
          f"{'x pass':>7}")
    tot = {"rd_acc": 0, "rd_s": 0.0, "rd_cpu": 0.0, "sim_acc": 0, "sim_s": 0.0, "sweep_s": 0.0}
    gaps = []
    for name in names:
        wl = registry.build(name, args.scale)
        t0, c0 = time.perf_counter(), time.process_time()
        res = analyse(wl, gpu)
        rd_s, rd_cpu = time.perf_counter() - t0, time.process_time() - c0
        # The same pass again, keeping the access order for the simulator (not timed).
        acc = simulator_trace(analyse(wl, gpu, keep_streams=True).streams)
        h = Hierarchy(gpu)
        t0 = time.perf_counter()
        h.run(acc)
        sim_s = time.perf_counter() - t0
        st = h.stats()
        t0 = time.perf_counter()
        sw = analyse(wl, gpu, RDOptions(l1_sweep=blocks))
        sweep_s = time.perf_counter() - t0
        assert sw.l1.read_hits == res.l1.read_hits  # the sweep does not change the pass
        l1_sim = st["l1"]["read_hits"] / st["l1"]["reads"] if st["l1"]["reads"] else float("nan")
        print(f"{name:<18}{res.accesses:>12,}{rd_s:>7.1f}{rd_cpu:>7.1f}{res.accesses / rd_s:>11,.0f}"
              f"{len(acc):>12,}{sim_s:>7.1f}{len(acc) / sim_s:>11,.0f}{100 * res.l1.read_hit_ratio:>7.1f}%"
              f"{100 * l1_sim:>7.1f}%{100 * res.l2.hit_ratio:>7.1f}%{100 * st['l2']['hit_rate']:>7.1f}%"
              f"{sweep_s:>9.1f}{sweep_s / rd_s:>7.2f}", flush=True)
        tot["rd_acc"] += res.accesses
        tot["rd_s"] += rd_s
        tot["rd_cpu"] += rd_cpu
        tot["sim_acc"] += len(acc)
        tot["sim_s"] += sim_s
        tot["sweep_s"] += sweep_s
        if args.gap:
            ps = analyse(wl, gpu, RDOptions(counting="per-set"))
            l1m = res.l1.merges / res.l1.reads if res.l1.reads else float("nan")
            gaps.append((name, res.l1.read_hit_ratio, ps.l1.read_hit_ratio, l1_sim, l1m, res.l2.hit_ratio,
                         ps.l2.hit_ratio, st["l2"]["hit_rate"]))
        if name in args.separate:
            t0 = time.perf_counter()
            sep = []
            for size in SWEEP:
                g = gpu.replace(l1=gpu.l1.replace(size=size))
                sep.append(analyse(wl, g).l1.read_hit_ratio)
            sep_s = time.perf_counter() - t0
            one = [sw.l1.sweep[b] / sw.l1.reads for b in blocks]
            diff = max(abs(a - b) for a, b in zip(one, sep, strict=True))
            print(f"  {name}: 8 separate passes {sep_s:.1f} s vs one pass with the sweep {sweep_s:.1f} s; "
                  f"largest L1 read hit ratio difference {100 * diff:.2f} points")
            print("  size KB   one pass  separate")
            for s, a, b in zip(SWEEP, one, sep, strict=True):
                print(f"  {s // KB:>7} {100 * a:>9.2f}% {100 * b:>8.2f}%")
    print(f"{'total':<18}{tot['rd_acc']:>12,}{tot['rd_s']:>7.1f}{tot['rd_cpu']:>7.1f}"
          f"{tot['rd_acc'] / tot['rd_s']:>11,.0f}"
          f"{tot['sim_acc']:>12,}{tot['sim_s']:>7.1f}{tot['sim_acc'] / tot['sim_s']:>11,.0f}"
          f"{'':>32}{tot['sweep_s']:>9.1f}{tot['sweep_s'] / tot['rd_s']:>7.2f}")
    if gaps:
        print("\nshared counters (rdgc: one stack per bank) vs exact per-set counting, and the simulator")
        print(f"{'workload':<18}{'L1 shared':>10}{'L1 set':>9}{'diff':>7}{'L1 sim':>9}{'L1 merg.':>9}"
              f"{'L2 shared':>10}{'L2 set':>9}{'diff':>7}{'L2 sim':>9}")
        for name, a, b, c, m, d, e, g in gaps:
            print(f"{name:<18}{100 * a:>9.2f}%{100 * b:>8.2f}%{100 * (a - b):>+7.2f}{100 * c:>8.2f}%"
                  f"{100 * m:>8.2f}%{100 * d:>9.2f}%{100 * e:>8.2f}%{100 * (d - e):>+7.2f}{100 * g:>8.2f}%")
        print("(L1 merg.: share of L1 reads merged into an outstanding miss, counted as hits)")
    ratio = (tot["rd_acc"] / tot["rd_s"]) / (tot["sim_acc"] / tot["sim_s"])
    load = os.getloadavg()
    print(f"RD analysis of all {len(names)} workloads, L1 and L2: {tot['rd_s']:.1f} s wall, "
          f"{tot['rd_cpu']:.1f} s CPU (target < 120 s); RD accesses/s over simulator accesses/s "
          f"{ratio:.2f}; load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("paper (rdgc Table 4, Section 5.2.1): physical model 47 K x slower than a GTX 970 on average, "
          "59 x faster than GPGPU-Sim (a cycle-accurate simulator; ours is a functional cache model)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
