"""Which issue rule makes the timing model's access order differ from the interleaver's (rdgc workloads).

``benchmarks/rd_vs_timing.py`` leaves L1 and L2 hit-ratio gaps between the
timing model with ideal memory at the interleaver's latency (``ideal 100``)
and the interleaver (``sim``) on cfd, hotspot, srad and bp: both models then
look every access up in the same cache hierarchy when it is issued, so the
gap is their order of accesses. This script varies one factor at a time, in
one model or in both, and prints the L1 read and L2 hit ratios of every
variant beside the RD model's (exact per-set counting, Algorithm 2's order):

* ``mem_latency`` of the interleaver (how long a warp waits after a load),
  and the fixed latency of the timing model's ideal memory;
* the warp scheduler (``lrr``, ``gto``, ``oldest``; ``two-level`` in the
  timing model only), in both models;
* the LD/ST unit's width (``l1.ports``: line requests the timing model sends
  per cycle of one warp instruction; the interleaver sends them all at once);
* the CTA-to-SM mapping, in the RD model (which gives the interleaver's ratios
  on these workloads with its ``rr`` mapping): ``bpart1``/``bpart2`` put 4/8
  consecutive CTAs on one SM, ``rand`` a seeded random balanced mapping;
* the CTA launch: the interleaver runs *waves* of ``CB`` CTAs per SM (a wave
  ends before the next starts, CTA ``i`` on SM ``i % n_sm``), the timing
  model launches a CTA whenever one has finished, on whichever SM is free.
  ``waves`` runs every wave as a kernel of its own (the CTAs of wave ``w`` on
  every SM, renumbered), which imposes the interleaver's waves and mapping on
  the timing model (and adds a barrier across SMs between waves to both).

Usage::

    python benchmarks/rd_order_gaps.py [--scale 0.25] [--workloads rdgc/hotspot ...] [--json PATH]
                                       [--factors latency scheduler l1.ports "CTA mapping" "CTA launch"]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from golden.configs.presets import preset
from golden.configs.schema import GPUConfig
from golden.gpu.model import DeadlockError
from golden.rd.crosscheck import rd_reference, simulator_reference, timing_reference
from golden.rd.model import RDOptions
from golden.trace.interleave import concurrent_ctas
from golden.trace.model import KernelTrace, Workload
from golden.workloads import registry

DEFAULT = ("rdgc/cfd", "rdgc/hotspot", "rdgc/srad", "rdgc/bp")


def wave_kernels(workload: Workload, gpu: GPUConfig) -> Workload:
    """Every kernel split into its interleaver waves, one kernel per wave (CTAs renumbered from 0).

    Wave ``w`` holds CTAs ``w * CB * n_sm`` to ``(w + 1) * CB * n_sm - 1``: with CTA ``i`` on
    SM ``i % n_sm`` these are the ``w``-th ``CB`` CTAs of every SM (rdgc Algorithms 2 and 3;
    ``CB`` of the SM with the most CTAs). Instructions, addresses and compute gaps are kept.
    """
    kernels = []
    for k in workload.kernels:
        per_sm = -(-k.n_ctas // gpu.n_sm)
        cb = max(1, concurrent_ctas(per_sm, k.warps_per_cta, k.threads_per_cta, gpu)[0])
        wave = cb * gpu.n_sm
        cta = k.insts["cta"]
        wpc = k.warps_per_cta
        for a in range(0, k.n_ctas, wave):
            b = min(k.n_ctas, a + wave)
            rows = (cta >= a) & (cta < b)
            insts = k.insts[rows].copy()
            insts["cta"] -= a
            kernels.append(KernelTrace(name=f"{k.name}.w{a // wave}", grid=(b - a, 1, 1), block=k.block,
                                       insts=insts, lane_addrs=k.lane_addrs, tail=k.tail[a * wpc:b * wpc],
                                       shared_bytes=k.shared_bytes, regs_per_thread=k.regs_per_thread))
    return Workload(name=f"{workload.name}+waves", kernels=kernels)


def variants(gpu: GPUConfig) -> list[tuple[str, str, str, object]]:
    """``(factor, value, model, run)``: each run maps a workload to ``{l1_read_hit_ratio, l2_hit_ratio}``."""
    out: list[tuple[str, str, str, object]] = [
        ("(reference)", "RD per-set", "RD", lambda wl: rd_reference(wl, gpu, RDOptions(counting="per-set"))),
        ("(reference)", "preset", "sim", lambda wl: simulator_reference(wl, gpu)),
        ("(reference)", "ideal 100", "timed", lambda wl: timing_reference(wl, gpu, fixed_latency=100)),
        ("(reference)", "full memory", "timed", lambda wl: timing_reference(wl, gpu)),
    ]
    for lat in (0, 50, 200, 1000, 10000):
        out.append(("latency", str(lat), "sim",
                    lambda wl, lat=lat: simulator_reference(wl, gpu.replace(mem_latency=lat))))
        out.append(("latency", str(lat), "timed",
                    lambda wl, lat=lat: timing_reference(wl, gpu, fixed_latency=lat)))
    for sch in ("gto", "oldest", "two-level"):
        g = gpu.replace(scheduler=sch)
        if sch != "two-level":
            out.append(("scheduler", sch, "sim", lambda wl, g=g: simulator_reference(wl, g)))
        out.append(("scheduler", sch, "timed", lambda wl, g=g: timing_reference(wl, g, fixed_latency=100)))
    for ports in (1, 4, 32):
        g = gpu.replace(l1=gpu.l1.replace(ports=ports))
        out.append(("l1.ports", str(ports), "timed",
                    lambda wl, g=g: timing_reference(wl, g, fixed_latency=100)))
    for mapping in ("bpart1", "bpart2", "rand"):
        out.append(("CTA mapping", mapping, "RD",
                    lambda wl, m=mapping: rd_reference(wl, gpu, RDOptions(counting="per-set", mapping=m))))
    out.append(("CTA launch", "waves", "RD", lambda wl: rd_reference(wave_kernels(wl, gpu), gpu,
                                                                      RDOptions(counting="per-set"))))
    out.append(("CTA launch", "waves", "sim", lambda wl: simulator_reference(wave_kernels(wl, gpu), gpu)))
    out.append(("CTA launch", "waves", "timed",
                lambda wl: timing_reference(wave_kernels(wl, gpu), gpu, fixed_latency=100)))
    out.append(("CTA launch", "waves, 10000", "sim",
                lambda wl: simulator_reference(wave_kernels(wl, gpu), gpu.replace(mem_latency=10000))))
    out.append(("CTA launch", "waves, 10000", "timed",
                lambda wl: timing_reference(wave_kernels(wl, gpu), gpu, fixed_latency=10000)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=0.25)
    ap.add_argument("--workloads", nargs="*", default=list(DEFAULT))
    ap.add_argument("--json", default=None)
    ap.add_argument("--factors", nargs="*", default=None, help="only these factors (and the references)")
    args = ap.parse_args()
    gpu = preset("rdgc")
    rows = []
    print(f"rdgc preset, scale {args.scale:g}; sim: interleaver (mem_latency 100 unless varied), "
          "timed: timing model with ideal memory (fixed latency 100 unless varied); load average "
          + " ".join(f"{v:.2f}" for v in os.getloadavg()))
    t_all = time.perf_counter()
    for name in args.workloads:
        wl = registry.build(name, args.scale)
        print(f"\n{name}: {sum(k.n_ctas for k in wl.kernels)} CTAs in {len(wl.kernels)} kernel(s)")
        print(f"{'factor':<12}{'value':<14}{'model':<7}{'L1 read':>9}{'L2':>9}{'s':>7}")
        for factor, value, model, run in variants(gpu):
            if args.factors is not None and factor not in (*args.factors, "(reference)"):
                continue
            t0 = time.perf_counter()
            try:
                r = run(wl)
            except DeadlockError as e:  # a run that cannot finish is reported, not fatal
                print(f"{factor:<12}{value:<14}{model:<7}  {str(e).split(':')[0]}", flush=True)
                rows.append({"workload": name, "factor": factor, "value": value, "model": model,
                             "error": str(e)})
                continue
            s = time.perf_counter() - t0
            l1, l2 = r["l1_read_hit_ratio"], r["l2_hit_ratio"]
            print(f"{factor:<12}{value:<14}{model:<7}{l1:>9.3f}{l2:>9.3f}{s:>7.1f}", flush=True)
            rows.append({"workload": name, "factor": factor, "value": value, "model": model,
                         "l1_read_hit_ratio": float(l1), "l2_hit_ratio": float(l2), "seconds": s})
    print(f"\n{time.perf_counter() - t_all:.0f} s wall; load average at the end "
          + " ".join(f"{v:.2f}" for v in os.getloadavg()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scale": args.scale, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    raise SystemExit(main())
