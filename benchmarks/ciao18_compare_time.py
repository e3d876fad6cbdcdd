"""Time the pieces of ``gpucache compare --suite ciao18`` on a few benchmarks, to estimate the whole.

After an untimed warm-up (GTO and the policy on the first benchmark at scale 0.02: the compiled
loops are loaded or compiled there), for each benchmark: building its trace, one GTO run, one
Best-SWL profiling point (GTO with a warp limit) and one run of a CIAO scheduler, each with its
wall and CPU seconds (this process's), and the simulated cycles. The estimate of one benchmark's
task of the comparison is then

    build + (1 + len(limits) + 1) x (mean of GTO and the SWL point) + 5 x the CIAO run

(GTO, the profile and Best-SWL's own run are GTO-family runs; CCWS, statPCAL, CIAO-T, CIAO-P and
CIAO-C are policy runs; an SWL point that deadlocks is left out of the mean), in wall and CPU
seconds, printed per benchmark; ``docs/policies/ciao18.md`` has the measurement.

    python benchmarks/ciao18_compare_time.py atax syrk --scale 1 --limit 2 --policy ciao-c --json t.json
"""

from __future__ import annotations

import argparse
import json
import time

from golden.configs.loader import load_config
from golden.experiments.ciao18 import run_point
from golden.gpu.model import DeadlockError
from golden.workloads import registry


def _timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def time_benchmark(name: str, scale: float, limit: int, policy: str, n_limits: int,
                   gto_only: bool = False) -> dict:
    """Wall and CPU seconds of building ``name`` and of its GTO, SWL-``limit`` and ``policy`` runs.

    With ``gto_only``, only the build and the GTO run (no estimate).
    """
    gpu = load_config("ciao18")
    wl, bw, bc = _timed(lambda: registry.build(f"ciao18/{name}", scale))
    print(f"{name}: build {bw:.1f} s wall, {bc:.1f} s CPU", flush=True)
    row: dict = {"workload": name, "scale": scale, "build": {"wall": bw, "cpu": bc}}
    runs = (("gto", "gto", 0),) if gto_only else (("gto", "gto", 0), (f"swl{limit}", "gto", limit),
                                                  (policy, policy, 0))
    for key, sched, wlim in runs:
        try:
            r, w, c = _timed(lambda s=sched, n=wlim: run_point(wl, gpu, s, n))
        except DeadlockError as e:  # a warp limit below a CTA's warps: not a Best-SWL candidate
            print(f"{name}: {key} deadlocks ({e})", flush=True)
            continue
        row[key] = {"wall": w, "cpu": c, "cycles": r["cycles"], "instructions": r["instructions"],
                    "ipc": r["ipc"]}
        print(f"{name}: {key} {w:.1f} s wall, {c:.1f} s CPU, {r['cycles']:,} cycles, IPC {r['ipc']:.3f}",
              flush=True)
    if gto_only:
        return row
    for t in ("wall", "cpu"):
        gto_like = [row[k][t] for k in ("gto", f"swl{limit}") if k in row]
        row[f"estimate_{t}"] = (row["build"][t] + (n_limits + 2) * sum(gto_like) / len(gto_like)
                                + 5 * row[policy][t])
    print(f"{name}: estimated task ({n_limits} SWL limits): {row['estimate_wall']:.0f} s wall, "
          f"{row['estimate_cpu']:.0f} s CPU", flush=True)
    return row


def warm_up(name: str, policy: str) -> None:
    """Load (or compile) GTO's and ``policy``'s compiled loops on a tiny input, untimed."""
    gpu = load_config("ciao18")
    wl = registry.build(f"ciao18/{name}", 0.02)
    for sched in ("gto", policy):
        run_point(wl, gpu, sched)


def main(argv: list[str] | None = None) -> int:
    """Command line: benchmarks, ``--scale``, ``--limit``, ``--policy``, ``--limits N``, ``--gto-only``,
    ``--json``."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("workloads", nargs="+", help="ciao18 benchmarks (atax, syrk, ...)")
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--limit", type=int, default=2, help="warp limit of the timed SWL point (default 2)")
    p.add_argument("--policy", default="ciao-c", help="the timed policy run (default ciao-c)")
    p.add_argument("--limits", type=int, default=8, help="SWL limits the comparison profiles (default 8)")
    p.add_argument("--gto-only", action="store_true", help="time the build and the GTO run only")
    p.add_argument("--json", metavar="PATH", help="the rows so far, rewritten after each benchmark")
    a = p.parse_args(argv)
    warm_up(a.workloads[0], a.policy)
    rows = []
    for w in a.workloads:
        rows.append(time_benchmark(w, a.scale, a.limit, a.policy, a.limits, a.gto_only))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
