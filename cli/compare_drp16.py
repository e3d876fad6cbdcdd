"""``gpucache compare --suite drp16``: drp16's LLC policies on the Table 3 mixes, beside Figures 2 and 14."""

from __future__ import annotations

import argparse
import time

from cli.output import finish_compare, format_table
from cli.progress import progress
from golden.errors import InputError

__all__ = ["DEFAULT_SCALE", "compare_drp16"]

#: The drp16 comparison's default scale: a 1 MB LLC (1024 sets, the fewest drp16's 8-per-1K dueling needs).
DEFAULT_SCALE = 1 / 16


def _f(v: float) -> str:
    return f"{v:.3f}"


def compare_drp16(args: argparse.Namespace) -> int:
    """Run the comparison for ``args`` (``cores``, ``mixes``, ``policies``, ``scale``, ``plot``, ``json``)."""
    from golden.experiments.drp16 import PAPER, caches, drp16_policies, run_suite
    from golden.llc.mixes import CONFIGS, get_mix

    scale = DEFAULT_SCALE if args.scale is None else args.scale
    cores = args.cores or list(CONFIGS)
    for c in cores:
        if c not in CONFIGS:
            raise InputError(f"--cores: drp16's configurations have 1, 2 or 4 CPU cores, not {c}")
    mixes = [get_mix(m).name for m in args.mixes] if args.mixes else None
    known = drp16_policies()
    policies = args.policies or known
    for p in policies:
        if p not in known:
            raise InputError(f"--policies: {p!r} is not a drp16 policy; they are {', '.join(known)}")
    llc = caches(scale)[0]
    if llc.sets < 1024:
        raise InputError(f"--scale: {scale:g} gives a {llc.size >> 10} KB LLC of {llc.sets} sets, too few "
                         "for drp16's dueling groups (8 sets per group per 1024 sets); use --scale 0.0625 "
                         "or more")
    n = sum(1 for c in cores for m in range(1, 19) if mixes is None or f"{CONFIGS[c]}{m}" in mixes)
    t0 = time.perf_counter()
    c0 = time.process_time()
    with progress(n, "mixes", "mix", args.progress) as bar:
        result = run_suite(cores, scale, 0, policies, mixes, lambda _: bar.update(1))
    seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
    pols = [p for p in known if p in policies] if args.policies else known
    print(f"suite drp16  LLC {llc.size >> 10} KB {llc.assoc}-way (scale {scale:g})  "
          f"[{seconds:.1f} s wall, {cpu_seconds:.1f} s CPU]")
    print("GPU workloads 1-14 and all CPU applications are STAND-INS (golden/llc/frames.py, "
          "cpu_streams.py); 15-18 are CUDA emulators")
    for c, cfg in result["configs"].items():
        rows = [[r["mix"], r["gpu"], r["llc_accesses"]] + [_f(r["policies"][p]["norm"]) for p in pols]
                for r in cfg["rows"]]
        avg = cfg["average"]
        rows.append(["mean", "", ""] + [_f(avg[p]["norm"]) for p in pols])
        rows.append(["mean CPU", "", ""] + [_f(avg[p]["norm_cpu"]) for p in pols])
        rows.append(["mean GPU", "", ""] + [_f(avg[p]["norm_gpu"]) for p in pols])
        k = {1: 0, 2: 1, 4: 2}[c]
        rows.append(["drp16", "", ""] + [_f(PAPER[p][0][k]) if p in PAPER else "-" for p in pols])
        print(format_table(["mix", "GPU", "LLC acc"] + [p.removeprefix("drp16-") for p in pols], rows,
                           title=f"{cfg['label']}: LLC read misses / Baseline (SRRIP)"))
    finish_compare(args, [source for _, source in PAPER.values()],
                   {"suite": "drp16", "scale": scale, "llc": {"size": llc.size, "assoc": llc.assoc},
                    "seconds": seconds, "cpu_seconds": cpu_seconds, "policies": pols,
                    "stand_ins": "game titles and SPEC CPU2006 applications: synthetic",
                    "paper": PAPER, **result},
                   "golden.experiments.drp16_plots", (result,))
    return 0
