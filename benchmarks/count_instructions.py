"""The timing model's instructions and cache misses per event, counted by cachegrind.

Wall-clock time on this machine moves by 15% between runs of the same
command, so a change worth a few percent cannot be told from noise by
timing it. The instructions a run executes do not move: this script counts
them with valgrind's cachegrind (with its simulated caches: 48 KB L1 data,
2 MB last level, as this machine's per-core caches), for the simulation
alone. It runs the workload twice under cachegrind, once built and
simulated and once only built (the compiled model loaded in both), and
prints the difference, per event the loop handled (``timing.loop``), per
stepped SM-cycle and per warp instruction.

numba's cache key holds the host CPU's name, which llvmlite gives as
``emeraldrapids`` here natively and ``haswell`` under valgrind, so a model
cached natively is not found under valgrind and would be compiled there.
Every run here therefore compiles for numba's ``generic`` CPU
(``NUMBA_CPU_NAME=generic``) into a cache directory of its own, filled by a
native run first (which also gives the loop's counts and the native
seconds): the code counted is the generic CPU's (12.5 s on ``ciao18/pvc`` at
0.1 against 11.1 s for the host's, one run each).

    python benchmarks/count_instructions.py --config ciao18 --scale 0.02 ciao18/pvc
    python benchmarks/count_instructions.py --config ciao18 --scale 0.02 --functions 30 ciao18/pvc

``--functions N`` also runs the simulation under callgrind, instruction by
instruction, and prints the loop's N functions that execute the most
instructions of their own, with the calls made to each (a function inlined
into another counts as part of it). The functions' addresses come from the
object files of the loops the child loaded from numba's cache (filled by the
native run): each loop's entry address plus each function's offset in it.

The model's build is the process's (``GPUCACHE_COMPILE``, ``gpucache --compile``:
``docs/timing.md``, "The loop compiled per configuration"), printed in the
first line; ``GPUCACHE_COMPILE=generic`` counts the build of session 57's
figures.

Needs ``valgrind``. ``ciao18/pvc`` at 0.02 takes about 5 minutes under
cachegrind (and a minute to compile the first time).
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numba_symbols import short_name  # noqa: E402 (this directory is not a package)

#: Cachegrind's event names, in the order of its summary line.
EVENTS = ("Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw")
#: This machine's per-core caches (``lscpu``): size, ways, line bytes.
D1, LL = "49152,12,64", "2097152,16,64"


def loop_symbols(core, family: str) -> list[tuple[int, int, str]]:
    """``(address, size, name)`` of every function in the code section of the loop ``family``'s object.

    The object is the one the process loaded: the entry of the loop's own cache
    index (code loaded from numba's cache has no function table), or the code it
    compiled itself (numba keeps the object of code compiled with ``cache=True``).
    Addresses are the execution engine's address of the loop's entry plus each
    function's offset from it in the object's code section. Asking the engine for
    each function by name is not enough: a function linked into several
    families' code (the shared helpers) has a copy in each, and the engine
    answers with one of them, which may lie inside another function of this
    object.

    Only for a loop loaded from the cache is this the code that runs: in a
    process that compiled the loop, each function the loop calls was compiled and
    loaded first as code of its own, and the loop's calls are bound to those
    copies (its own are weak definitions), so samples land outside this table
    (session 64: 80% of ``perf``'s samples on ``rdgc/gesummv``). Profile a loop
    compiled by another process (:func:`run_symbols`).
    """
    dispatcher = core._STEPS[family]
    key, overload = next(iter(dispatcher.overloads.items()))
    entry = overload.fndesc.llvm_func_name
    obj = getattr(overload.library, "_compiled_object", None)
    if not obj:
        cache = dispatcher._cache
        data = cache._cache_file.load(cache._index_key(key, overload.library.codegen))
        obj = data[0][2][0] if data is not None and data[1].llvm_func_name == entry else None
    if not obj:
        raise SystemExit(f"{dispatcher._cache._cache_path}: no object of the loop {entry} in numba's cache")
    with tempfile.NamedTemporaryFile(suffix=".o") as fh:
        fh.write(obj)
        fh.flush()
        table = subprocess.run(["objdump", "-t", fh.name], capture_output=True, text=True, check=True).stdout
    functions = [(m[3], int(m[1], 16), int(m[4], 16), m[5]) for m in map(_SYMBOL.match, table.splitlines())
                 if m and "F" in m[2]]
    anchor = [(section, offset) for section, offset, _, name in functions if name == entry]
    if len(anchor) != 1:
        raise SystemExit(f"the loop's object defines {entry} {len(anchor)} times, not once")
    section, offset = anchor[0]
    base = overload.library._codegen._engine.get_function_address(entry) - offset
    return sorted((base + at, size, short_name(name)) for where, at, size, name in functions
                  if where == section)


def run_symbols(core) -> list[tuple[int, int, str]]:
    """:func:`loop_symbols` of every loop the process loaded, in one table sorted by address.

    Loaded from numba's cache, these objects hold all the model's code that runs:
    a helper linked into several families runs from the first family's object
    loaded (its other copies are weak definitions bound to that one), so one
    name may have several addresses here, each a copy of the same code.
    """
    return sorted(row for family in core._STEPS for row in loop_symbols(core, family))


#: A line of ``objdump -t``: value, the seven flag columns, section, size, name.
_SYMBOL = re.compile(r"^([0-9a-f]+) (.{7}) (\S+)\s+([0-9a-f]+) (\S+)$")


def per_function(callgrind_out: str, symbols: list) -> dict[str, list[int]]:
    """Instructions executed in each of ``symbols``' functions (their own, not their callees') and
    the calls made to each, from a callgrind file written with ``--dump-instr=yes
    --compress-pos=no --compress-strings=no``."""
    starts = [a for a, _, _ in symbols]
    out: dict[str, list[int]] = {}

    def owner(address: int) -> str | None:
        i = bisect.bisect_right(starts, address) - 1
        if i >= 0 and address < starts[i] + max(symbols[i][1], 1):
            return symbols[i][2]
        return None

    skip = False
    n_pos = 1  # the positions of a cost line before its cost ("positions: instr line")
    with open(callgrind_out) as fh:
        for line in fh:
            if line.startswith("positions:"):
                n_pos = len(line.split()) - 1
                continue
            if skip:  # the inclusive cost of the call on the line before: not this function's own
                skip = False
                continue
            if line.startswith("calls="):
                count, target = line[6:].split()[:2]
                name = owner(int(target, 16))
                if name:
                    out.setdefault(name, [0, 0])[1] += int(count)
                skip = True
            elif line.startswith("0x"):
                fields = line.split()
                address, cost = fields[0], fields[n_pos]
                name = owner(int(address, 16))
                if name:
                    out.setdefault(name, [0, 0])[0] += int(cost)
    return out


def child(args: argparse.Namespace) -> None:
    """Load the model, build the workload and (``--child run``) simulate it; print the loop's counts."""
    from bench_timing import warm_up  # noqa: PLC0415 (its directory is not a package)

    from golden.configs.presets import preset
    from golden.gpu.run import simulate_timed
    from golden.gpu.specialise import compile_mode
    from golden.policies.base import policy_for
    from golden.workloads import registry

    gpu = preset(args.config)
    warm_up(gpu)
    workload = registry.build(args.workload, args.scale)
    if args.child == "build":
        print(json.dumps({}))
        return
    policy = policy_for(args.policy, gpu)  # with the config's policy_params, as a comparison runs it
    if hasattr(policy, "attach_gpu"):
        policy.attach_gpu(gpu)
    t0 = time.perf_counter()
    r = simulate_timed(workload, gpu, policy)
    seconds = time.perf_counter() - t0
    if args.symbols:
        from golden.gpu import core  # noqa: PLC0415

        with open(args.symbols, "w") as fh:
            # Every loop loaded (the warm-up's baseline first): the shared helpers run from it.
            json.dump(run_symbols(core), fh)
    loop = r["timing"]["loop"]
    print(json.dumps({"seconds": seconds, "build": compile_mode(), "events": sum(loop["events"].values()),
                      "sm_cycles": loop["sm_cycles_stepped"], "gpu_cycles": loop["gpu_cycles_stepped"],
                      "instructions": r["totals"]["instructions"], "cycles": r["timing"]["cycles"]}))


def summary(path: str) -> dict[str, int]:
    """The ``summary:`` totals of a cachegrind output file."""
    with open(path) as fh:
        for line in fh:
            if line.startswith("summary:"):
                return dict(zip(EVENTS, map(int, line.split()[1:]), strict=True))
    raise SystemExit(f"{path}: no summary line (did cachegrind finish?)")


def table(native: dict, whole: dict[str, int], build: dict[str, int]) -> list[str]:
    """The simulation's counts (``whole`` less ``build``), in all and per event, stepped SM-cycle and warp
    instruction of the ``native`` run's loop counts."""
    sim = {k: whole[k] - build[k] for k in EVENTS}
    rows = [f"{'simulation':<12} {'total':>16} {'per event':>10} {'per SM-cycle':>13} {'per warp inst':>14}"]
    for name, value in (("instructions", sim["Ir"]), ("D1 misses", sim["D1mr"] + sim["D1mw"]),
                        ("LL misses", sim["DLmr"] + sim["DLmw"] + sim["ILmr"]), ("I1 misses", sim["I1mr"])):
        per = [value / native[k] for k in ("events", "sm_cycles", "instructions")]
        rows.append(f"{name:<12} {value:>16,} {per[0]:>10.1f} {per[1]:>13.1f} {per[2]:>14.1f}")
    return rows


def run_child(mode: str, args: argparse.Namespace, env: dict, out: str | None,
              symbols: str | None = None) -> dict:
    """Run this script's child ``mode``: natively, or under cachegrind when ``out`` names its output
    file, or under callgrind (instruction by instruction) when ``symbols`` also names the file for
    the loop's function table."""
    command = [sys.executable, os.path.abspath(__file__), args.workload, "--config", args.config,
               "--scale", str(args.scale), "--child", mode]
    if args.policy:
        command += ["--policy", args.policy]
    if symbols:
        command = ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-pos=no",
                   "--compress-strings=no", f"--callgrind-out-file={out}"] + command + ["--symbols", symbols]
    elif out:
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--D1={D1}", f"--LL={LL}",
                   f"--cachegrind-out-file={out}"] + command
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{mode} run failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def function_table(costs: dict[str, list[int]], top: int) -> list[str]:
    """The ``top`` functions by their own instructions: share of the loop's, calls, per call."""
    total = max(1, sum(c for c, _ in costs.values()))
    rows = [f"{'function':<24} {'instructions':>16} {'share':>7} {'calls':>12} {'per call':>9}"]
    for name, (cost, calls) in sorted(costs.items(), key=lambda kv: -kv[1][0])[:top]:
        per = f"{cost / calls:9.0f}" if calls else f"{'-':>9}"
        rows.append(f"{name[:24]:<24} {cost:>16,} {100 * cost / total:6.1f}% {calls:>12,} {per}")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workload")
    ap.add_argument("--config", default="ciao18")
    ap.add_argument("--scale", type=float, default=0.02)
    ap.add_argument("--policy", default=None)
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "gpucache-generic-cache"),
                    help="numba's cache of the generic-CPU model (kept between calls)")
    ap.add_argument("--functions", type=int, default=0, metavar="N",
                    help="also run it under callgrind and print the N functions of the loop that execute "
                         "the most instructions of their own")
    ap.add_argument("--child", choices=("run", "build"), default=None, help=argparse.SUPPRESS)
    ap.add_argument("--symbols", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind: not found (apt-get install valgrind)")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, NUMBA_CPU_NAME="generic", NUMBA_CACHE_DIR=args.cache_dir, PYTHONHASHSEED="0",
               PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    native = run_child("run", args, env, None)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        run_child("run", args, env, os.path.join(tmp, "run.out"))
        run_child("build", args, env, os.path.join(tmp, "build.out"))
        seconds = time.perf_counter() - t0
        whole, build = summary(os.path.join(tmp, "run.out")), summary(os.path.join(tmp, "build.out"))
    print(f"{args.workload} at {args.scale} ({args.config}{', ' + args.policy if args.policy else ''}, "
          f"{native['build']} build): "
          f"{native['instructions']:,} warp instructions, {native['cycles']:,} cycles, "
          f"{native['events']:,} events, {native['sm_cycles']:,} SM-cycles stepped; "
          f"native {native['seconds']:.2f} s; cachegrind {seconds:.0f} s")
    print("\n".join(table(native, whole, build)))
    if args.functions:
        with tempfile.TemporaryDirectory() as tmp:
            out, symbols = os.path.join(tmp, "callgrind.out"), os.path.join(tmp, "symbols.json")
            run_child("run", args, env, out, symbols)
            with open(symbols) as fh:
                costs = per_function(out, [tuple(row) for row in json.load(fh)])
        print("\n".join(function_table(costs, args.functions)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
