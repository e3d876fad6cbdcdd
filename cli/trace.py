"""``gpucache trace``: convert Accel-Sim traces, export workloads as Accel-Sim traces, describe a trace."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from cli.output import format_table, plural
from cli.run import positive_int, scale
from golden.errors import InputError
from golden.trace.accelsim_export import DEPENDENCES
from golden.trace.io import FORMAT_VERSION, save_workload
from golden.trace.model import KernelTrace, Op, Space, Workload

__all__ = ["add_parser", "convert", "export", "info", "kernel_summary"]

#: Memory spaces reported by ``trace info``, in column order.
SPACES = (Space.GLOBAL, Space.SHARED, Space.LOCAL, Space.CONST, Space.TEXTURE)


def add_parser(sub) -> None:
    """Register the subcommand group on ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser("trace", help="convert or describe trace files",
                       description="Convert Accel-Sim traces to gpucache's .npz format, or "
                                   "describe a trace.")
    tsub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    c = tsub.add_parser("convert", help="Accel-Sim trace -> .npz",
                        description="Read an Accel-Sim trace (a directory holding kernelslist.g, "
                                    "or the kernelslist.g file) and write it as a gpucache .npz.")
    c.add_argument("source", metavar="ACCELSIM_DIR_OR_KERNELSLIST")
    c.add_argument("out", metavar="OUT.npz")
    c.set_defaults(func=convert)
    i = tsub.add_parser("info", help="kernels, instructions and PCs of a trace",
                        description="Describe a trace: a gpucache .npz, or an Accel-Sim directory "
                                    "or kernelslist.g.")
    i.add_argument("file", metavar="FILE")
    i.set_defaults(func=info)
    e = tsub.add_parser("export", help="a workload -> an Accel-Sim trace directory",
                        description="Write a built-in workload (or a trace file) as an Accel-Sim trace "
                                    "(kernelslist.g and kernel-N.traceg, tracer version 4), to run it "
                                    "on Accel-Sim's trace-driven simulator.")
    src = e.add_mutually_exclusive_group(required=True)
    src.add_argument("--workload", metavar="NAME", help="built-in workload")
    src.add_argument("--trace", metavar="FILE", help="a gpucache .npz or an Accel-Sim trace")
    e.add_argument("--scale", type=scale, default=None, help="input size relative to the paper's")
    e.add_argument("--seed", type=positive_int(0), default=None, help="input seed (default 0)")
    e.add_argument("--format", choices=("accelsim",), default="accelsim", help="trace format (accelsim)")
    e.add_argument("--dependences", choices=DEPENDENCES, default="next-memory",
                   help="what a load's result blocks: the warp's next memory instruction, or nothing")
    e.add_argument("out", metavar="OUT_DIR")
    e.set_defaults(func=export)


def convert(args: argparse.Namespace) -> int:
    """Read an Accel-Sim trace and save it as ``.npz`` (written only if reading succeeded)."""
    from golden.trace.accelsim import read_accelsim

    wl = read_accelsim(args.source)
    save_workload(args.out, wl)
    insts = sum(k.n_instructions for k in wl.kernels)
    print(f"{args.out}: {plural(len(wl.kernels), 'kernel')}, {insts:,} warp instructions "
          f"(gpucache-trace version {FORMAT_VERSION})")
    return 0


def export(args: argparse.Namespace) -> int:
    """Write a workload as an Accel-Sim trace directory."""
    from cli.run import load_workload_arg
    from golden.trace.accelsim_export import write_accelsim
    from golden.workloads import registry

    if args.trace:
        if args.scale is not None or args.seed is not None:
            raise InputError("--scale and --seed size a built-in --workload; a --trace is exported as "
                             "recorded")
        wl = load_workload_arg(args.trace)
    else:
        wl = registry.build(args.workload, 1.0 if args.scale is None else args.scale, args.seed or 0)
    s = write_accelsim(wl, args.out, dependences=args.dependences)
    extra = f" (+{s.appended_exits:,} EXITs appended)" if s.appended_exits else ""
    print(f"{s.directory}: {plural(s.kernels, 'kernel')}, {s.warp_instructions:,} warp instructions{extra} "
          f"(Accel-Sim tracer version 4, dependences {args.dependences})")
    return 0


def kernel_summary(k: KernelTrace) -> dict:
    """Counts of one kernel: instructions, memory instructions by space, distinct PCs.

    Returns
    -------
    dict
        ``name``, ``grid``, ``block``, ``warps``, ``instructions``, one count per
        space of :data:`SPACES` (lower-case name), ``barriers`` and ``pcs`` (the
        sorted distinct PCs of its memory instructions, as an array).
    """
    mem = k.insts["op"] != Op.BARRIER
    out = {"name": k.name, "grid": k.grid, "block": k.block, "warps": k.n_warps,
           "instructions": k.n_instructions}
    for s in SPACES:
        out[s.name.lower()] = int(np.count_nonzero(mem & (k.insts["space"] == s)))
    out["barriers"] = int(np.count_nonzero(~mem))
    out["pcs"] = np.unique(k.insts["pc"][mem])
    return out


def info(args: argparse.Namespace) -> int:
    """Print what a trace holds."""
    from cli.run import load_workload_arg

    wl = load_workload_arg(args.file)
    path = Path(args.file)
    fmt = (f"gpucache-trace version {FORMAT_VERSION}" if path.is_file() and path.suffix == ".npz"
           else "Accel-Sim trace (read directly)")
    print(f"file      {args.file}")
    print(f"format    {fmt}")
    print(f"workload  {wl.name}")
    if wl.source:
        print(f"source    {wl.source}")
    # Nested parameters (an importer's per-kernel counts) would swamp the summary.
    params = {k: v for k, v in wl.params.items() if not isinstance(v, dict | list)}
    if params:
        print("params    " + ", ".join(f"{k}={v}" for k, v in params.items()))
    print()
    print(format_workload(wl))
    return 0


def format_workload(wl: Workload) -> str:
    """One row per kernel and a total: grid, block, instructions, memory instructions, PCs."""
    heads = ("#", "kernel", "grid", "block", "instructions",
             *(s.name.lower() for s in SPACES), "barriers", "PCs")
    rows, total, pcs = [], dict.fromkeys(heads[4:-1], 0), set()
    for i, k in enumerate(wl.kernels):
        s = kernel_summary(k)
        rows.append((i, k.name, "x".join(map(str, k.grid)), "x".join(map(str, k.block)),
                     *(s[h] for h in heads[4:-1]), len(s["pcs"])))
        for h in total:
            total[h] += s[h]
        # A kernel launched again has the same PCs: distinct over (kernel name, PC).
        pcs.update((k.name, int(pc)) for pc in s["pcs"])
    rows.append(("", "total", "", "", *total.values(), len(pcs)))
    return format_table(heads, rows)
