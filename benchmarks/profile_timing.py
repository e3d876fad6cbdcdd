"""Where the timing model's compiled loop spends its time: ``perf`` samples per compiled function.

numba's JIT code carries no symbols ``perf`` can read, so this script compiles
the loop afresh (a temporary numba cache directory: code loaded from the disk
cache has no function table), takes the address of every function in the
loop's code library, runs the workload under ``perf record`` (sampling this
process) and assigns each sample to the function whose code holds it. With
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

_TMP = tempfile.mkdtemp(prefix="gpucache-profile-")
os.environ["NUMBA_CACHE_DIR"] = _TMP  # before numba is imported: compile, do not load

from numba_symbols import short_name  # noqa: E402 (this directory: the script's own)


def functions(dispatcher) -> list[tuple[int, str]]:
    """(address, short name) of every function defined in ``dispatcher``'s compiled code, sorted."""
    library = next(iter(dispatcher.overloads.values())).library
    rows = []
    for f in library._final_module.functions:
        if f.is_declaration or f.name.startswith("cfunc.") or "cpython" in f.name:
            continue
        address = library.get_pointer_to_function(f.name)
        if address:
            rows.append((address, short_name(f.name)))
    return sorted(rows)

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

    workload = registry.build(args.workload, args.scale)
    t0 = time.perf_counter()
    simulate_timed(registry.build(args.workload, min(args.scale, 0.01)), gpu, policy())
    print(f"compiled in {time.perf_counter() - t0:.0f} s", flush=True)
    key = "baseline" if args.policy is None else next(k for k in core._STEPS if k != "baseline")
    table = functions(core._STEPS[key])
    starts = [a for a, _ in table]
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
    ips = [int(x, 16) for x in subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True,
                                              text=True, check=True).stdout.split()]
    # Samples outside the loop's library (policy hooks compiled on their own, numpy, the
    # interpreter) are named by perf's own symbol or shared object.
    where = subprocess.run(["perf", "script", "-i", data, "-F", "sym,dso"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    counts: collections.Counter = collections.Counter()
    for ip, other in zip(ips, where, strict=False):
        i = bisect.bisect_right(starts, ip) - 1
        inside = i >= 0 and (i + 1 == len(starts) or ip < starts[i + 1]) and ip - starts[i] < (1 << 20)
        counts[table[i][1] if inside else f"(other) {other.strip()[:70]}"] += 1
    print(f"{args.repeat} runs in {seconds:.1f} s; {len(ips)} samples")
    for name, n in counts.most_common(args.top):
        print(f"{100 * n / len(ips):6.1f}%  {name}")
    if args.instructions:
        i = next(j for j, (_, name) in enumerate(table) if name == args.instructions)
        start = starts[i]
        size = (starts[i + 1] - start) if i + 1 < len(starts) else 1 << 16
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
