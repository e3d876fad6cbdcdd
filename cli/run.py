"""``gpucache run``: a workload through the interleaver and the cache hierarchy.

The main job: build (or load) a workload, interleave it kernel by kernel on
the configured GPU, stream the accesses through the cache hierarchy, print a
table per cache level and the instruction counts, and write the results as
JSON. Nothing is written unless the whole run succeeds.
"""

from __future__ import annotations

import argparse
import time

from cli.output import (
    format_count,
    format_rate,
    format_size,
    format_table,
    plural,
    version,
    write_json,
)
from cli.progress import progress
from golden.configs.loader import config_to_dict, load_config
from golden.configs.schema import SCHEDULERS, GPUConfig
from golden.errors import InputError
from golden.gpu.layout import DEPENDENCES
from golden.policies.base import policy_for
from golden.trace.interleave import INSTRUCTION_FIELDS
from golden.trace.io import load_trace
from golden.trace.model import Workload
from golden.workloads import registry

#: ``--dependences`` values: ``auto`` and the timing model's rules.
DEPENDENCE_CHOICES = ("auto", *DEPENDENCES)

__all__ = ["add_parser", "run", "simulate", "load_workload_arg", "scale", "positive_int", "timing_check"]

#: Accesses handed to the hierarchy at a time: bounds memory and paces the progress bar.
CHUNK = 1 << 20



def timing_check(gpu: GPUConfig) -> None:
    """The timing model's check of a config (:func:`golden.gpu.state.check_timing_config`).

    Given to :func:`~golden.configs.loader.load_config` by the commands that run the timing model,
    so a config file the timing model cannot run is refused with its file and line before any
    work. Imported here, when called: the timing model's modules load the compiled loop's code.
    """
    from golden.gpu.state import check_timing_config

    check_timing_config(gpu)


def scale(text: str) -> float:
    """argparse type of ``--scale``: a number in (0, 1]."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0 < v <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], not {text!r}")
    return v


def positive_int(minimum: int):
    """argparse type: an integer of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = minimum - 1
        if v < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, not {text!r}")
        return v

    return parse


def add_parser(sub) -> None:
    """Register the subcommand on ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser("run", help="run a workload through the cache hierarchy",
                       description="Build (or load) a workload, interleave it on the configured "
                                   "GPU, run the cache hierarchy and print per-level statistics.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--workload", metavar="NAME",
                     help="built-in workload (see 'gpucache workloads')")
    src.add_argument("--trace", metavar="FILE",
                     help="a trace file (.npz) or an Accel-Sim trace (directory or kernelslist.g)")
    p.add_argument("--scale", type=scale,
                   help="input size relative to the paper's, in (0, 1] (default 1)")
    p.add_argument("--seed", type=positive_int(0), help="input seed (default 0)")
    p.add_argument("--config", default="tian15", metavar="PRESET|FILE",
                   help="machine preset or TOML/JSON config file (default tian15)")
    p.add_argument("--policy", metavar="NAME", help="cache-management policy (default: none)")
    p.add_argument("--scheduler", choices=SCHEDULERS, help="warp scheduler (default: the config's)")
    p.add_argument("--timing", choices=("cycle", "none"), default="cycle",
                   help="cycle: the cycle-level timing model (IPC, MSHRs, latencies; default); "
                        "none: the open-loop interleaver (fast, no timing feedback)")
    p.add_argument("--dependences", choices=DEPENDENCE_CHOICES, default="auto",
                   help="what a warp with loads outstanding waits for (timing model). auto (default): "
                        "the trace's registers where it has them (Accel-Sim imports: registers), "
                        "else its next memory or barrier instruction (next-memory)")
    p.add_argument("--warp-limit", type=positive_int(0), metavar="N",
                   help="static warp limiting (swl:N): only the N oldest warps of an SM issue")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: on a terminal, for runs over 2 s)")
    p.set_defaults(func=run)


def load_workload_arg(path: str) -> Workload:
    """A workload from a gpucache ``.npz`` or an Accel-Sim trace (directory or kernelslist.g)."""
    return load_trace(path)


def run(args: argparse.Namespace) -> int:
    """Run the main job as the arguments say; print the tables, write the JSON."""
    if args.trace and (args.scale is not None or args.seed is not None):
        raise InputError("--scale and --seed size a built-in --workload; a --trace runs as recorded")
    gpu = load_config(args.config, check=timing_check if args.timing == "cycle" else None)
    if args.scheduler:
        gpu = gpu.replace(scheduler=args.scheduler)
    if args.warp_limit is not None:
        if args.timing != "cycle":
            raise InputError("--warp-limit needs the timing model (--timing cycle)")
        gpu = gpu.replace(warp_limit=args.warp_limit)
    if args.timing == "none" and gpu.scheduler not in ("lrr", "gto", "oldest"):
        raise InputError(f"--scheduler {gpu.scheduler}: needs the timing model (--timing cycle)")
    policy = policy_for(args.policy, gpu)
    if args.trace:
        wl, trace = load_workload_arg(args.trace), args.trace
    else:
        size = 1.0 if args.scale is None else args.scale
        wl, trace = registry.build(args.workload, size, args.seed or 0), None

    t0 = time.perf_counter()
    result = simulate(wl, gpu, policy, show_progress=args.progress, timing=args.timing,
                      dependences=args.dependences)
    seconds = time.perf_counter() - t0

    print(f"workload {wl.name} ({plural(len(wl.kernels), 'kernel')})  config {gpu.name}  "
          f"policy {args.policy or 'none'}  scheduler {gpu.scheduler}  timing {args.timing}  "
          f"[{seconds:.1f} s]")
    print()
    print(format_results(result, gpu))
    if args.json:
        write_json(args.json, {
            "gpucache_version": version(),
            "workload": {"name": wl.name, "source": wl.source, "params": wl.params, "trace": trace},
            "config": config_to_dict(gpu),
            "policy": args.policy,
            "scheduler": gpu.scheduler,
            "timing": args.timing,
            "dependences": result["timing"]["dependences"] if args.timing == "cycle" else None,
            "seconds": round(seconds, 3),
            **result,
        })
    return 0


def simulate(wl: Workload, gpu: GPUConfig, policy=None, show_progress: bool | None = None,
             timing: str = "none", dependences: str = "auto") -> dict:
    """:func:`golden.driver.simulate` with a progress bar counting warp instructions.

    Parameters
    ----------
    wl : Workload
        The kernels to run, in launch order.
    gpu : GPUConfig
        Machine (SMs, scheduler, caches).
    policy : optional
        A cache-management policy from :func:`golden.policies.base.get_policy`, or None.
    show_progress : bool or None
        Progress bar: see :func:`cli.progress.progress`.
    """
    # Imported here so that the other commands do not load the compiled cache model.
    from golden.driver import simulate as run_simulation

    if timing == "cycle":
        total = sum(k.n_ctas for k in wl.kernels)
        with progress(total, "simulating", "CTA", show_progress) as bar:
            before = [sum(k.n_ctas for k in wl.kernels[:i]) for i in range(len(wl.kernels))]
            seen = [0]

            def advance(kernel: int, done: int, ctas: int) -> None:
                bar.update(before[kernel] + done - seen[0])
                seen[0] = before[kernel] + done

            return run_simulation(wl, gpu, policy, timing="cycle", dependences=dependences,
                                  on_progress=advance)

    with progress(wl.n_instructions, "simulating", "inst", show_progress) as bar:
        shown: dict[int, int] = {}

        def advance(chunk) -> None:
            # The bar counts instructions; a kernel's share is spread over its chunks.
            k = chunk.kernel.n_instructions
            target = k if chunk.total == 0 else k * chunk.done // chunk.total
            bar.update(target - shown.get(chunk.kernel_index, 0))
            shown[chunk.kernel_index] = target

        return run_simulation(wl, gpu, policy, on_chunk=advance, chunk=CHUNK)


def format_results(result: dict, gpu: GPUConfig) -> str:
    """The per-level cache tables and the instruction table of a :func:`simulate` result."""
    blocks = []
    for level, cfg in gpu.levels:
        s = result["caches"].get(level)
        if s is None:
            continue
        reads, writes = s["reads"], s["writes"]
        rh, wh = s["read_hits"], s["write_hits"]
        rows = [
            ("reads", reads, rh, s["read_misses"], format_rate(rh / reads if reads else None)),
            ("writes", writes, wh, s["write_misses"], format_rate(wh / writes if writes else None)),
            ("all", s["accesses"], rh + wh, s["read_misses"] + s["write_misses"],
             format_rate(s["hit_rate"] if s["accesses"] else None)),
        ]
        count = f"{gpu.n_sm} x " if level == "l1" else ""
        title = (f"{level.upper()}: {count}{format_size(cfg.size)}, {cfg.assoc}-way, "
                 f"{cfg.line_size} B lines, {cfg.replacement}, {cfg.write}")
        table = format_table(("", "accesses", "hits", "misses", "hit rate"), rows, title=title)
        extra = "  ".join(f"{name} {format_count(s[key])}" for name, key in (
            ("fills", "fills"), ("bypasses", "bypasses"), ("evictions", "evictions"),
            ("write-backs", "writebacks")))
        blocks.append(f"{table}\n{extra}")
    rows = [(k["name"], "x".join(map(str, k["grid"])), "x".join(map(str, k["block"])),
             *(k[f] for f in INSTRUCTION_FIELDS), k["accesses"], k["cycles"])
            for k in result["kernels"]]
    t = result["totals"]
    rows.append(("total", "", "", *(t[f] for f in INSTRUCTION_FIELDS), t["accesses"], t["cycles"]))
    blocks.append(format_table(("kernel", "grid", "block", "instructions", "global", "shared",
                                "other memory", "accesses", "cycles"), rows,
                               title="Warp instructions"))
    if "timing" in result:
        blocks.append(format_timing(result["timing"]))
    return "\n\n".join(blocks)


def format_timing(t: dict) -> str:
    """The timing model's summary: IPC, occupancy, issue slots, MSHRs and DRAM."""
    slots = t["issue_slots"]
    l1, l2, dram = t["l1"], t["l2"], t["dram"]
    fails = l1["reservation_fails"]
    rows = [
        ("cycles", format_count(t["cycles"])),
        ("IPC (warp instructions per cycle)", f"{t['ipc']:.3f}"),
        ("warp occupancy", format_rate(t["occupancy"])),
        ("average load latency (cycles)", f"{t['avg_load_latency']:.1f}"),
        ("issue slots: issued / memory / barrier / LD-ST busy / throttled / no warp",
         " / ".join(format_rate(slots[k]) for k in ("issued", "memory", "barrier", "structural",
                                                     "throttled", "none"))),
        ("L1 hit rate (MSHR merges count as misses)", format_rate(l1["hit_rate"])),
        ("L1 MSHR merges / sector misses / loads sent past it", f"{format_count(l1['mshr_merges'])} / "
         f"{format_count(l1['sector_misses'])} / {format_count(l1['bypassed_before_lookup'])}"),
        ("L1 reservation failures: MSHR / merge / miss queue",
         " / ".join(format_count(fails[k]) for k in ("mshr", "merge", "miss_queue"))),
        ("L2 hit rate / MSHR merges / sector misses / reservation failures",
         f"{format_rate(l2['hit_rate'])} / {format_count(l2['mshr_merges'])} / "
         f"{format_count(l2['sector_misses'])} / {format_count(l2['reservation_fails'])}"),
        ("DRAM reads / writes / row-buffer hits",
         " / ".join(format_count(dram[k]) for k in ("reads", "writes", "row_hits"))),
    ]
    sc = t.get("smem_cache")
    if sc and sc["accesses"]:
        # Only runs whose policy redirects loads (ciao18's CIAO-P/C) use the shared-memory cache.
        rows.append(("shared-memory cache: accesses / hit rate / migrations / evictions",
                     f"{format_count(sc['accesses'])} / {format_rate(sc['hit_rate'])} / "
                     f"{format_count(sc['migrations'])} / {format_count(sc['evictions'])}"))
    return format_table(("", "value"), rows, title="Timing (cycle-level model)")
