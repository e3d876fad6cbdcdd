"""LLC accesses per second of every registered drp16 LLC policy on a drp16 mix.

The input is a Table 3 mix (default ``Q15``: cfd with four CPU stand-ins)
at scale 1/16 (a 1 MB LLC), built by :func:`golden.llc.mixes.build_mix`.
Online policies run the full model (private caches, inclusion); the
Baseline's run records the LLC trace, which OPT, OPT+Bypass and
Baseline+Bypass replay, as drp16 runs them. One warm-up run on 1000 rows
loads (or compiles, the first time on a machine) each policy's loop; the
timed run is the whole mix on a fresh model. Prints LLC accesses per second
by wall clock and by the process's CPU time (the machine is shared).

Run: ``PYTHONPATH=. python benchmarks/bench_drp16_llc.py [MIX [SCALE [POLICY ...]]]`` (default: every
registered drp16 policy; the offline ones need ``drp16-baseline`` before them).
"""

from __future__ import annotations

import sys
import time

from golden.experiments.drp16 import BASELINE, caches, drp16_policies
from golden.llc.mixes import build_mix, get_mix
from golden.llc.model import LLCModel
from golden.policies import get_policy

OFFLINE = ("drp16-opt", "drp16-opt-bypass", "drp16-baseline-bypass")


def main(mix: str = "Q15", scale: float = 1 / 16, names: tuple[str, ...] = ()) -> None:
    """Run each policy of ``names`` (default every drp16 policy) on mix ``mix`` at ``scale``."""
    cores = get_mix(mix).cores
    llc, l1, l2 = caches(scale)
    trace = build_mix(mix, scale)
    recorded = None
    print(f"mix {mix}, scale {scale:g} (LLC {llc.size >> 10} KB), {trace.size} rows")
    print(f"{'policy':24s} {'wall M/s':>9s} {'CPU M/s':>8s} {'accesses':>9s}  read misses (CPU, GPU)")
    for name in names or drp16_policies():
        offline = name in OFFLINE
        if offline and recorded is None:
            continue
        rows = recorded if offline else trace
        for n in (1000, rows.size):
            p = get_policy(name)
            if offline:
                p.prepare(rows[:n])
            m = LLCModel(cores, p, llc=llc, l1=l1, l2=l2, private=not offline)
            t0, c0 = time.perf_counter(), time.process_time()
            rec = m.run(rows[:n], record=name == BASELINE and n == rows.size)
            dt, ct = time.perf_counter() - t0, time.process_time() - c0
        if rec is not None:
            recorded = rec
        s = m.stats()
        print(f"{name:24s} {m.llc_accesses / dt / 1e6:9.2f} {m.llc_accesses / ct / 1e6:8.2f} "
              f"{m.llc_accesses:9d}  {s['read_misses']} ({s['cpu_read_misses']}, {s['gpu_read_misses']})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "Q15", float(sys.argv[2]) if len(sys.argv) > 2 else 1 / 16,
         tuple(sys.argv[3:]))
