"""gpucache beside Accel-Sim on the same workloads: hit rates, reservation failures, cycles, speed.

Each built-in workload is exported as an Accel-Sim trace (``gpucache trace
export``) and run on both simulators with matching machines:

=============  =====================================  ==========================================
gpucache       Accel-Sim ``gpgpusim.config``           Accel-Sim ``trace.config``
=============  =====================================  ==========================================
``kim20``      ``SM6_TITANX``                          ``SM6_TITANX``
``ciao18``     ``SM2_GTX480``                          ``SM7_TITANV`` (opcode latencies: the export
                                                       writes Volta SASS, ``-binary version = 70``)
=============  =====================================  ==========================================

Overrides passed to Accel-Sim so that its L1 data cache caches global loads
as the papers' do (``-gpgpu_gmem_skip_L1D 0``). Accel-Sim is not part of
gpucache: build it with ``../shared/peers/accelsim/build.sh`` (or the public
recipe it follows) and give its build directory with ``--accelsim``.

Printed per workload, side by side: L1 and L2 hit rates (Accel-Sim counts
its sectored L1 per 32-byte sector), L1 reservation failures, cycles and
IPC, warp instructions, and both simulators' speed. gpucache's side is the
untimed functional model until the cycle timing model (``golden/gpu/``)
lands: its cycles column then says so instead of printing a number.

Run: ``python benchmarks/compare_accelsim.py --accelsim /tmp/accelsim --config kim20
--workloads rdgc/bicg rdgc/atax --scale 0.05``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from golden.configs.presets import preset
from golden.driver import simulate
from golden.trace.accelsim_export import write_accelsim
from golden.workloads import registry

#: gpucache preset -> (Accel-Sim gpgpusim.config directory, trace.config directory).
CONFIGS = {"kim20": ("SM6_TITANX", "SM6_TITANX"), "ciao18": ("SM2_GTX480", "SM7_TITANV")}
#: Options appended to Accel-Sim's command line (they override the config files).
OVERRIDES = ("-gpgpu_gmem_skip_L1D", "0")
#: Accel-Sim statistics read from its output (the last value printed: totals over all kernels).
STATS = ("L1D_total_cache_accesses", "L1D_total_cache_misses", "L1D_total_cache_reservation_fails",
         "L2_total_cache_accesses", "L2_total_cache_misses", "gpu_tot_sim_cycle", "gpu_tot_sim_insn",
         "gpu_tot_ipc")


def run_accelsim(build: Path, trace_dir: Path, config: str) -> tuple[dict[str, float], float]:
    """Run Accel-Sim on an exported trace; its statistics and the wall time in seconds."""
    framework = build / "accel-sim-framework"
    sim = framework / "gpu-simulator" / "bin" / "release" / "accel-sim.out"
    if not sim.is_file():
        sys.exit(f"compare_accelsim: no {sim}: build Accel-Sim first (../shared/peers/accelsim/build.sh)")
    gcfg, tcfg = CONFIGS[config]
    with tempfile.TemporaryDirectory(prefix="accelsim-run-") as run:
        # The config files name their interconnect file relative to the working directory.
        for f in (framework / "gpu-simulator" / "gpgpu-sim" / "configs" / "tested-cfgs" / gcfg).iterdir():
            (Path(run) / f.name).write_bytes(f.read_bytes())
        (Path(run) / "trace.config").write_bytes(
            (framework / "gpu-simulator" / "configs" / "tested-cfgs" / tcfg / "trace.config").read_bytes())
        # The simulator is Accel-Sim's own libcudart: another CUDA on the library path would be loaded.
        libs = sorted((framework / "gpu-simulator" / "gpgpu-sim" / "lib").glob("*/*/release/libcudart.so*"))
        env = dict(os.environ, LD_LIBRARY_PATH=":".join(sorted({str(lib.parent) for lib in libs})))
        cmd = [str(sim), "-trace", str(trace_dir / "kernelslist.g"), "-config", "gpgpusim.config",
               "-config", "trace.config", *OVERRIDES]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=run, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"compare_accelsim: Accel-Sim failed ({p.returncode}): {p.stdout[-400:]}{p.stderr[-400:]}")
    stats = {}
    for name in STATS:
        found = re.findall(rf"^\s*{name}\s*=\s*([0-9.]+)", p.stdout, re.M)
        stats[name] = float(found[-1]) if found else float("nan")
    return stats, seconds


def rate(hits: float, accesses: float) -> str:
    return f"{hits / accesses:6.1%}" if accesses else "    -"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--accelsim", type=Path, required=True, help="Accel-Sim build directory")
    ap.add_argument("--config", choices=sorted(CONFIGS), default="kim20")
    ap.add_argument("--workloads", nargs="+", default=["rdgc/bicg", "rdgc/atax", "rdgc/mvt"])
    ap.add_argument("--scale", type=float, default=0.05)
    args = ap.parse_args()
    gpu = preset(args.config)
    head = (f"{'workload':<16} {'L1 hit ours':>11} {'L1 hit A-S':>10} {'L2 hit ours':>11} {'L2 hit A-S':>10} "
            f"{'L1 resfail A-S':>14} {'cycles ours':>11} {'cycles A-S':>10} {'IPC A-S':>7} "
            f"{'warp insts':>10} {'ours s':>7} {'A-S s':>7}")
    print(f"gpucache {args.config} beside Accel-Sim {'/'.join(CONFIGS[args.config])}, scale {args.scale}")
    print(head)
    print("-" * len(head))
    for name in args.workloads:
        wl = registry.build(name, args.scale)
        with tempfile.TemporaryDirectory(prefix="accelsim-trace-") as tdir:
            write_accelsim(wl, tdir)
            theirs, their_s = run_accelsim(args.accelsim, Path(tdir), args.config)
        t0 = time.perf_counter()
        ours = simulate(wl, gpu)
        our_s = time.perf_counter() - t0
        l1, l2 = ours["caches"]["l1"], ours["caches"]["l2"]
        t1a, t1m = theirs["L1D_total_cache_accesses"], theirs["L1D_total_cache_misses"]
        t2a, t2m = theirs["L2_total_cache_accesses"], theirs["L2_total_cache_misses"]
        print(f"{name:<16} {rate(l1['read_hits'] + l1['write_hits'], l1['accesses']):>11} "
              f"{rate(t1a - t1m, t1a):>10} {rate(l2['read_hits'] + l2['write_hits'], l2['accesses']):>11} "
              f"{rate(t2a - t2m, t2a):>10} {theirs['L1D_total_cache_reservation_fails']:>14.0f} "
              f"{'untimed':>11} {theirs['gpu_tot_sim_cycle']:>10.0f} {theirs['gpu_tot_ipc']:>7.2f} "
              f"{wl.n_instructions:>10,} {our_s:>7.1f} {their_s:>7.1f}")
    print("ours: the functional model (interleaver order, no misses in flight); cycles need golden/gpu/.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
