"""Where the timing model's compiled loop spends its time: ``perf`` samples per compiled function.

numba's JIT code carries no symbols ``perf`` can read, so this script has a
child process compile the loop into a temporary numba cache directory, loads
it from there, places every function of the loaded objects
(``count_instructions.run_symbols``: a process that compiled the loop itself
runs its callees from objects of their own, outside the loop's table), runs the
workload under ``perf record`` (sampling this process) and assigns each sample
to the function whose code holds it. With
``--instructions FUNCTION`` it also prints that function's hottest
instructions (its machine code disassembled with ``objdump``); ``--listing PATH``
writes its whole disassembly, each instruction with its samples.

    python benchmarks/profile_timing.py ciao18 ciao18/gesummv --scale 0.25 --repeat 3
    python benchmarks/profile_timing.py ciao18 ciao18/gesummv --policy ccws --instructions _loop
    python benchmarks/profile_timing.py ciao18 ciao18/pvc --instructions _l1_lookup --listing l1.txt

Needs ``perf`` (and ``objdump`` for ``--instructions``); compiling takes about a minute.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import ctypes
import os
import re
import subprocess
import sys
import tempfile
import time

# Before numba is imported: a cache of the script's own, shared with its compiling child.
_TMP = os.environ.setdefault("GPUCACHE_PROFILE_CACHE", tempfile.mkdtemp(prefix="gpucache-profile-"))
os.environ["NUMBA_CACHE_DIR"] = _TMP

from count_instructions import run_symbols  # noqa: E402 (this directory: the script's own)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("workload")
    ap.add_argument("--scale", type=float, default=0.25)
    ap.add_argument("--policy", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--instructions", default=None, metavar="FUNCTION")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--listing", default=None, metavar="PATH",
                    help="with --instructions: write its whole disassembly, each line with its samples")
    ap.add_argument("--compile-only", action="store_true", help=argparse.SUPPRESS)  # the child's part
    args = ap.parse_args()

    from golden.configs.loader import load_config
    from golden.gpu import core
    from golden.gpu.run import simulate_timed
    from golden.policies import get_policy
    from golden.workloads import registry

    gpu = load_config(args.config)

    def policy():
        if args.policy is None:
            return None
        p = get_policy(args.policy)
        if hasattr(p, "attach_gpu"):
            p.attach_gpu(gpu)
        return p

    small = registry.build(args.workload, min(args.scale, 0.01))
    if args.compile_only:
        simulate_timed(small, gpu, policy())
        return 0
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *sys.argv, "--compile-only"], check=True)
    print(f"compiled in {time.perf_counter() - t0:.0f} s", flush=True)
    simulate_timed(small, gpu, policy())  # loaded from the child's cache
    workload = registry.build(args.workload, args.scale)
    table = run_symbols(core)
    starts = [a for a, _, _ in table]
    data = os.path.join(_TMP, "perf.data")
    perf = subprocess.Popen(["perf", "record", "-q", "-F", "1999", "-p", str(os.getpid()), "-o", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    t0 = time.perf_counter()
    for _ in range(args.repeat):
        simulate_timed(workload, gpu, policy())
    seconds = time.perf_counter() - t0
    perf.send_signal(2)
    perf.wait()
    # Samples outside the loops' objects (policy hooks compiled on their own, numpy, the
    # interpreter, the kernel) are named by perf's own symbol and shared object: "ip sym (dso)".
    lines = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    ips = []
    counts: collections.Counter = collections.Counter()
    for line in lines:
        if not line.strip():
            continue
        ip_text, _, other = line.strip().partition(" ")
        ip = int(ip_text, 16)
        ips.append(ip)
        i = bisect.bisect_right(starts, ip) - 1
        inside = i >= 0 and ip < starts[i] + max(table[i][1], 1)
        counts[table[i][2] if inside else f"(other) {other.strip()[:70]}"] += 1
    print(f"{args.repeat} runs in {seconds:.1f} s; {len(ips)} samples")
    for name, n in counts.most_common(args.top):
        print(f"{100 * n / len(ips):6.1f}%  {name}")
    if args.instructions:
        # The hottest copy when a function has several (one per family's object).
        start, size, _ = max((row for row in table if row[2] == args.instructions),
                             key=lambda row: sum(row[0] <= ip < row[0] + row[1] for ip in ips))
        blob = os.path.join(_TMP, "code.bin")
        with open(blob, "wb") as fh:
            fh.write(ctypes.string_at(start, min(size, 1 << 20)))
        command = ["objdump", "-D", "-b", "binary", "-mi386:x86-64", f"--adjust-vma={start:#x}", blob]
        asm = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        hits = collections.Counter(ips)
        rows = []
        for line in asm.splitlines():
            m = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(.*)", line)
            if m:
                rows.append((hits[int(m.group(1), 16)], int(m.group(1), 16) - start, m.group(2)))
        if args.listing:
            # The whole listing shows what a hot instruction waits on (the sample lands after it).
            with open(args.listing, "w") as fh:
                fh.writelines(f"{n:6d}  {off:#7x}  {text}\n" for n, off, text in rows)
        print(f"hottest instructions of {args.instructions} (samples, offset, instruction):")
        for n, off, text in sorted(rows, reverse=True)[:args.top]:
            print(f"{n:6d}  {off:#7x}  {text}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
