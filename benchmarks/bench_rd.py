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
    python benchmarks/bench_rd.py --rd-only [--repeat 2] [--jobs 2]

``--rd-only --jobs N`` runs the workloads on a Dask local cluster of ``N``
worker processes (the ``gpucache sweep`` engine's
:func:`golden.experiments.sweep.engine.dask_client`), largest first, and
prints the wall time of the whole batch beside the CPU seconds and the peak
memory of each worker.
"""

from __future__ import annotations

import argparse
import os
import resource
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
#: RD-analysed accesses (L1 and L2) of every rdgc workload at the paper's size (docs/rd.md): the
#: order of ``--jobs`` runs, largest first, so that no large workload starts last.
SIZE = {"rdgc/gesummv": 72_417_792, "rdgc/atax": 37_783_040, "rdgc/bicg": 37_783_040,
        "rdgc/mvt": 37_783_040, "rdgc/syr2k": 35_704_832, "rdgc/covar": 18_498_304,
        "rdgc/syrk": 18_380_800, "rdgc/corr": 18_356_597, "rdgc/3dconv": 14_630_908,
        "rdgc/2dconv": 10_839_056, "rdgc/nw": 8_534_028, "rdgc/srad": 8_446_976, "rdgc/2mm": 7_209_216,
        "rdgc/fdtd": 4_312_648, "rdgc/bp": 4_079_635, "rdgc/cfd": 1_683_497, "rdgc/hotspot": 911_934,
        "rdgc/gramschmidt": 445_787}


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


def _warm() -> int:
    """Compile (or load from numba's cache) every compiled loop of the analysis; the process id."""
    analyse(registry.build(WARM, 0.05), preset("rdgc"))
    return os.getpid()


def rd_task(name: str, scale: float, repeat: int = 1) -> dict:
    """The RD analysis of one workload: best wall and CPU seconds of ``repeat`` runs, and the
    process's peak memory (GiB) and id (a ``--jobs`` worker's task)."""
    gpu = preset("rdgc")
    wl = registry.build(name, scale)
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        res = analyse(wl, gpu)
        wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux
    return {"name": name, "accesses": res.accesses, "wall": wall, "cpu": cpu, "rss_gib": rss,
            "pid": os.getpid()}


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def _row(name: str, acc: int, wall: float, cpu: float, rss: float, tail: str = "") -> str:
    return f"{name:<18}{acc:>12,}{wall:>8.1f}{cpu:>8.1f}{acc / wall:>12,.0f}{rss:>9.2f}{tail}"


def rd_only(names: list[str], scale: float, repeat: int, jobs: int = 1) -> list[dict]:
    """Time the RD analysis alone: best wall and CPU seconds of ``repeat`` runs per workload.

    With ``jobs > 1`` the workloads run on a Dask local cluster of ``jobs`` worker processes,
    largest first, and the total wall time is the batch's. Returns the rows of :func:`rd_task`.
    """
    _warm()  # compile (or load) every compiled loop first; --jobs workers then load it from disk
    where = f"on {jobs} Dask workers, largest first" if jobs > 1 else "in this process"
    print(f"rdgc preset, scale {scale:g}; RD analysis only, best of {repeat} run(s), {where}; "
          f"load average {_load()}")
    print(f"{'workload':<18}{'RD acc.':>12}{'wall s':>8}{'cpu s':>8}{'RD acc/s':>12}{'peak GiB':>9}"
          + ("  worker" if jobs > 1 else ""))
    rows = []
    t0 = time.perf_counter()
    if jobs == 1:
        for name in names:
            rows.append(rd_task(name, scale, repeat))
            r = rows[-1]
            print(_row(name, r["accesses"], r["wall"], r["cpu"], r["rss_gib"]), flush=True)
        wall = sum(r["wall"] for r in rows)
        pids: list[int] = []
        limit: dict = {}
    else:
        from distributed import as_completed

        from golden.experiments.sweep.engine import dask_client

        with dask_client(workers=jobs) as client:
            limit = {w["id"]: w["memory_limit"] / 2**30 for w in client.scheduler_info()["workers"].values()}
            pids = sorted(client.run(_warm).values())
            t0 = time.perf_counter()
            order = sorted(names, key=lambda n: -SIZE.get(n, 0))
            for fut in as_completed(client.map(rd_task, order, scale=scale, repeat=repeat, pure=False)):
                rows.append(fut.result())
                r = rows[-1]
                print(_row(r["name"], r["accesses"], r["wall"], r["cpu"], r["rss_gib"],
                           f"  {pids.index(r['pid'])}"), flush=True)
            wall = time.perf_counter() - t0
    acc, cpu = sum(r["accesses"] for r in rows), sum(r["cpu"] for r in rows)
    print(_row("total", acc, wall, cpu, max(r["rss_gib"] for r in rows)))
    for w, pid in enumerate(pids):
        mine = [r for r in rows if r["pid"] == pid]
        print(f"  worker {w}: {len(mine)} workloads, {sum(r['cpu'] for r in mine):.1f} s CPU, peak "
              f"{max((r['rss_gib'] for r in mine), default=0):.2f} GiB (Dask memory limit "
              f"{min(limit.values()):.1f} GiB)")
    print(f"RD analysis of all {len(names)} workloads, L1 and L2, {where}: {wall:.1f} s wall, "
          f"{cpu:.1f} s CPU (target < 120 s); load average at the end {_load()}")
    return rows


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
    ap.add_argument("--jobs", type=int, default=1,
                    help="with --rd-only: Dask worker processes (a local cluster), largest workloads first")
    args = ap.parse_args()
    if args.jobs < 1:
        ap.error(f"--jobs: must be a positive integer, not {args.jobs}")
    if args.jobs > 1 and not args.rd_only:
        ap.error("--jobs: only with --rd-only")
    gpu = preset("rdgc")
    names = args.workloads or registry.names("rdgc")
    if args.rd_only:
        rd_only(names, args.scale, args.repeat, args.jobs)
        return 0
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
