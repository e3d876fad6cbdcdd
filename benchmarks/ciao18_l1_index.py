"""One ciao18 benchmark under several L1 set-index functions: GTO, a scheduler, and static limits.

Runs the benchmark on the timing model with the ``ciao18`` preset, changing only ``l1.index``,
and prints per index function GTO's IPC and L1 hit rate and, for each scheduler (or ``swl:N``, a
static limit of N warps on GTO), its IPC over GTO's, its L1 hit rate and its throttled issue
slots. ``docs/policies/ciao18.md``, "Set conflicts at the paper's sizes", has the results.

Usage::

    python benchmarks/ciao18_l1_index.py atax --scale 1 --index xor prime fermi \\
        --schedulers ccws swl:4 ciao-t
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from golden.configs.presets import preset
from golden.experiments.ciao18 import run_point
from golden.workloads import registry


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload", help="a ciao18 benchmark (atax, bicg, ...)")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--index", nargs="+", default=["xor", "prime", "fermi"], help="L1 index functions")
    ap.add_argument("--schedulers", nargs="+", default=["ccws", "swl:4"],
                    help="schedulers (ccws, ciao-t, ...) or swl:N, each against GTO")
    args = ap.parse_args()
    name = args.workload if "/" in args.workload else f"ciao18/{args.workload}"
    wl = registry.build(name, args.scale)
    base = preset("ciao18")
    print(f"{name} at scale {args.scale}: IPC over GTO's under the same L1 index")
    for index in args.index:
        gpu = dataclasses.replace(base, l1=dataclasses.replace(base.l1, index=index))
        gto = run_point(wl, gpu, "gto")
        cells = [f"GTO IPC {gto['ipc']:.4f}, L1 hit rate {gto['l1_hit_rate']:.3f}"]
        for s in args.schedulers:
            limit = int(s.split(":")[1]) if s.startswith("swl:") else 0
            r = run_point(wl, gpu, "gto" if limit else s, warp_limit=limit)
            cells.append(f"{s} {r['ipc'] / gto['ipc']:.3f} (L1 {r['l1_hit_rate']:.3f}, "
                         f"throttled {r['throttled']:.3f})")
        print(f"  {index:6s} " + "; ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
