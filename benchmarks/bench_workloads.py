"""Generate both built-in suites at the papers' sizes; report time, trace size and memory.

Each workload is built in a fresh subprocess (so peak memory is per
workload and no state carries over), with the trace cache off, and saved
once to a temporary directory to measure its file size. The issue's
budget: both suites under 3 minutes in all on 2 cores, under 8 GiB.

Usage::

    python benchmarks/bench_workloads.py [NAME ...] [--suite S ...] [--scale 1.0] [--jobs 2]
                                         [--no-save] [--hash] [--json FILE]

``--suite`` may be repeated (``--suite kim20 --suite ciao18``); all suites by default.
``wall s`` and ``cpu s`` are the build alone (``cpu`` is user + system time of the
child, the fair figure on a loaded machine); ``--hash`` prints a sha256 of each
trace's arrays, to check that a faster generator emits the same trace.
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
import hashlib, json, os, resource, sys, time
import numpy as np
from golden.trace.io import save_workload
from golden.workloads import registry
name, scale, out, save, digest = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
t0 = time.perf_counter(); c0 = time.process_time()
wl = registry.build(name, scale, use_cache=False)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
size = None
if save == "1":
    save_workload(out, wl)
    size = os.path.getsize(out)
    os.unlink(out)
h = None
if digest == "1":
    h = hashlib.sha256()
    for k in wl.kernels:
        h.update(repr((k.name, k.grid, k.block, k.shared_bytes, k.regs_per_thread)).encode())
        for a in (k.insts, k.lane_addrs, k.tail):
            h.update(repr((a.dtype.descr, a.shape)).encode())
            h.update(np.ascontiguousarray(a))
    h = h.hexdigest()[:16]
rows = sum(len(k.insts) for k in wl.kernels)
print(json.dumps({"name": name, "wall": wall, "cpu": cpu, "rows": rows, "kernels": len(wl.kernels),
                  "instructions": wl.n_instructions, "bytes": size, "peak_mb": peak, "sha256": h}))
"""


def measure(name: str, scale: float, tmp: str, save: bool = True, digest: bool = False) -> dict:
    """Build ``name`` in a fresh process; its time, CPU (user + system), rows, size and peak RSS.

    Parameters
    ----------
    name : str
        ``suite/name`` of a built-in workload.
    scale : float
        Input size relative to the paper's.
    tmp : str
        Directory for the saved trace (deleted after its size is taken).
    save : bool
        Save the trace to measure its file size (``bytes`` is None otherwise).
    digest : bool
        Add ``sha256``: the first 16 hex digits of a hash of every kernel's header and arrays.

    Returns
    -------
    dict
        The child's JSON line.
    """
    out = f"{tmp}/{name.replace('/', '-')}.npz"
    proc = subprocess.run([sys.executable, "-c", _CHILD, name, str(scale), out, str(int(save)),
                           str(int(digest))], capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"{name}: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _mb(n: int | None) -> str:
    return "-" if n is None else f"{n / 1e6:.1f}"


def main() -> None:
    """Measure the workloads the command line names and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", metavar="NAME", help="only these workloads (suite/name)")
    ap.add_argument("--suite", action="append", default=None, help="only these suites")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=2, help="workloads built at once (2 cores)")
    ap.add_argument("--no-save", dest="save", action="store_false",
                    help="do not save the traces (no trace size; less disk traffic)")
    ap.add_argument("--hash", action="store_true",
                    help="print a sha256 of each trace (to check a change keeps traces identical)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON to FILE")
    args = ap.parse_args()
    from golden.workloads import registry

    unknown = set(args.suite or ()) - set(registry.suites())
    if unknown:
        ap.error(f"unknown suite(s) {', '.join(sorted(unknown))} (suites: "
                 f"{', '.join(registry.suites())})")
    names = [n for n in registry.names() if args.suite is None or n.split("/")[0] in args.suite]
    if args.names:
        names = [registry.get(n).key for n in args.names]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda n: measure(n, args.scale, tmp, args.save, args.hash), names))
    total = time.perf_counter() - t0
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scale": args.scale, "jobs": args.jobs, "wall": total, "rows": rows}, f, indent=1)
    print(f"{'workload':<22}{'kernels':>8}{'rows':>12}{'insts':>13}{'wall s':>8}{'cpu s':>7}"
          f"{'trace MB':>10}{'peak MB':>9}" + ("  sha256" if args.hash else ""))
    for suite in sorted({n.split('/')[0] for n in names}):
        sub = [r for r in rows if r["name"].startswith(suite + "/")]
        for r in sub:
            print(f"{r['name']:<22}{r['kernels']:>8}{r['rows']:>12,}{r['instructions']:>13,}"
                  f"{r['wall']:>8.1f}{r['cpu']:>7.1f}{_mb(r['bytes']):>10}{r['peak_mb']:>9.0f}"
                  + (f"  {r['sha256']}" if args.hash else ""))
        sizes = [r["bytes"] for r in sub]
        print(f"{suite + ' total':<22}{'':>8}{sum(r['rows'] for r in sub):>12,}"
              f"{sum(r['instructions'] for r in sub):>13,}{sum(r['wall'] for r in sub):>8.1f}"
              f"{sum(r['cpu'] for r in sub):>7.1f}{_mb(None if None in sizes else sum(sizes)):>10}"
              f"{max(r['peak_mb'] for r in sub):>9.0f}")
    print(f"all workloads, {args.jobs} at a time: {total:.1f} s wall "
          f"(budget 180 s); largest peak {max(r['peak_mb'] for r in rows):.0f} MB (budget 8192)")


if __name__ == "__main__":
    main()
