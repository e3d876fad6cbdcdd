"""Why PC-based bypassing had 1.75x the misses on tian15's matrixmul in the open-loop model.

Runs matrixmul at the paper's size with and without ``pc-bypass`` on the
timing model with the tian15 preset's 64-wide wavefronts, again with 32-wide
warps (twice the warp slots, the same threads), and on the open-loop
interleaver; prints L1 read misses, hits and MSHR merges and the ratio of
misses. ``docs/results/tian15.md`` ("Where we differ") quotes the output.

Usage::

    python benchmarks/tian15_merging.py [--scale 1.0]
"""

from __future__ import annotations

import argparse

from golden.configs.presets import preset
from golden.driver import simulate
from golden.policies.base import get_policy
from golden.workloads import registry


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0)
    args = ap.parse_args()
    wl = registry.build("tian15/matrixmul", args.scale)
    g64 = preset("tian15")
    g32 = g64.replace(warp_size=32, max_warps_per_sm=2 * g64.max_warps_per_sm)
    runs = (("timing, wavefront 64", g64, "cycle"), ("timing, warp 32", g32, "cycle"),
            ("open loop", g64, "none"))
    for label, gpu, timing in runs:
        misses = {}
        for name in (None, "pc-bypass"):
            r = simulate(wl, gpu, None if name is None else get_policy(name), timing=timing)
            l1 = r["caches"]["l1"]
            merges = r["timing"]["l1"]["mshr_merges"] if timing == "cycle" else 0
            misses[name] = l1["read_misses"]
            print(f"{label:<22} {name or 'baseline':<10} misses {l1['read_misses']:>9,} "
                  f"hits {l1['read_hits']:>9,} merges {merges:>9,}", flush=True)
        print(f"{label:<22} misses pc-bypass / baseline = {misses['pc-bypass'] / misses[None]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
