"""Generate both built-in suites at the papers' sizes; report time, trace size and memory.

Each workload is built in a fresh subprocess (so peak memory is per
workload and no state carries over), with the trace cache off, and saved
once to a temporary directory to measure its file size. The issue's
budget: both suites under 3 minutes in all on 2 cores, under 8 GiB.

Usage::

    python benchmarks/bench_workloads.py [--suite tian15|rdgc|ciao18] [--scale 1.0] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

_CHILD = r"""
import json, os, resource, sys, time
from golden.trace.io import save_workload
from golden.workloads import registry
name, scale, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
t0 = time.perf_counter(); c0 = time.process_time()
wl = registry.build(name, scale, use_cache=False)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
save_workload(out, wl)
rows = sum(len(k.insts) for k in wl.kernels)
print(json.dumps({"name": name, "wall": wall, "cpu": cpu, "rows": rows, "kernels": len(wl.kernels),
                  "instructions": wl.n_instructions, "bytes": os.path.getsize(out),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
os.unlink(out)
"""


def measure(name: str, scale: float, tmp: str) -> dict:
    out = f"{tmp}/{name.replace('/', '-')}.npz"
    proc = subprocess.run([sys.executable, "-c", _CHILD, name, str(scale), out],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default=None, help="only this suite (default: every suite)")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=2, help="workloads built at once (2 cores)")
    args = ap.parse_args()
    from golden.workloads import registry

    if args.suite is not None and args.suite not in registry.suites():
        ap.error(f"unknown suite {args.suite!r} (suites: {', '.join(registry.suites())})")
    names = registry.names(args.suite)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda n: measure(n, args.scale, tmp), names))
    total = time.perf_counter() - t0
    print(f"{'workload':<22}{'kernels':>8}{'rows':>12}{'insts':>13}{'wall s':>8}{'cpu s':>7}"
          f"{'trace MB':>10}{'peak MB':>9}")
    for suite in sorted({n.split('/')[0] for n in names}):
        sub = [r for r in rows if r["name"].startswith(suite + "/")]
        for r in sub:
            print(f"{r['name']:<22}{r['kernels']:>8}{r['rows']:>12,}{r['instructions']:>13,}"
                  f"{r['wall']:>8.1f}{r['cpu']:>7.1f}{r['bytes'] / 1e6:>10.1f}{r['peak_mb']:>9.0f}")
        print(f"{suite + ' total':<22}{'':>8}{sum(r['rows'] for r in sub):>12,}"
              f"{sum(r['instructions'] for r in sub):>13,}{sum(r['wall'] for r in sub):>8.1f}"
              f"{sum(r['cpu'] for r in sub):>7.1f}{sum(r['bytes'] for r in sub) / 1e6:>10.1f}"
              f"{max(r['peak_mb'] for r in sub):>9.0f}")
    print(f"all workloads, {args.jobs} at a time: {total:.1f} s wall "
          f"(budget 180 s); largest peak {max(r['peak_mb'] for r in rows):.0f} MB (budget 8192)")


if __name__ == "__main__":
    main()
