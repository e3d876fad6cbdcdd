"""Write the crossbar microbenchmarks: Accel-Sim traces that saturate one crossbar input.

Three workloads, each built with :class:`~golden.trace.builder.KernelBuilder` and written with
gpucache's own exporter (``write_accelsim``, the ``next-memory`` rule), so both simulators run
the same files:

``stores-2flit``
    One warp, ``--stores`` stores of 32 lanes 264 bytes apart: every lane writes its own line,
    32 requests of 4 bytes each, a 40-byte packet (header and one 32-byte chunk) of 2 flits on
    the GTX 480's 32-byte-flit crossbar. Nothing else is in flight, so the cycles per request
    are the SM's input's time per packet.
``stores-5flit``
    The same with lanes 32 bytes apart: 8 requests of 128 bytes, 5 flits each.
``l2-out``
    Kernel 1: one warp reads 256 lines that all lie in one L2 sub-partition of the ciao18
    preset (:func:`same_slice`). Kernel 2: 15 CTAs of one warp, one per SM, read
    them all again (8 loads of 32 lines, L2 hits): the sub-partition's input to the crossbar
    sends 3,840 responses of 5 flits to 15 SMs, and no SM's output is busy.

    python benchmarks/crossbar_traces.py OUT_DIR [--stores 400]
    python benchmarks/compare_accelsim.py --accelsim BUILD --config ciao18 \\
        --workloads trace:OUT_DIR/stores-2flit trace:OUT_DIR/stores-5flit trace:OUT_DIR/l2-out

The measurements (``docs/validation.md``, "The crossbar's inputs idle too"): Accel-Sim's
GTX 480 crossbar sends a packet of ``n`` flits from one input every ``n + 1`` cycles, as
gpucache's ``icnt_packet_gap = 1`` now does at every port.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from golden.cache.indexing import slice_of
from golden.configs.presets import preset
from golden.configs.schema import SLICE_MAPS
from golden.trace.accelsim_export import write_accelsim
from golden.trace.builder import KernelBuilder
from golden.trace.model import Workload

BASE = 0x1000_0000
LINE = 128


def same_slice(n: int = 256) -> np.ndarray:
    """The first ``n`` lines from ``BASE`` on in ``BASE``'s ciao18 L2 sub-partition (relative to
    ``BASE``), by the GTX 480 decoder the preset uses (:func:`~golden.cache.indexing.slice_of`):
    lines ``24k`` and ``24k + 1``."""
    l2 = preset("ciao18").l2
    slices, kind = l2.slices, SLICE_MAPS.index(l2.slice_map)
    first = BASE // LINE
    home = slice_of(first, slices, kind)[0]
    lines, line = [], first
    while len(lines) < n:
        if slice_of(line, slices, kind)[0] == home:
            lines.append(line - first)
        line += 1
    return np.array(lines, np.int64)


def stores(n: int, stride: int) -> Workload:
    """One warp of ``n`` stores, lane ``i`` at ``BASE + i * stride``."""
    kb = KernelBuilder("stores", (1,), (32,))
    for _ in range(n):
        kb.store(0x100, BASE + np.arange(32, dtype=np.int64) * stride)
    return Workload(f"stores-{stride}", [kb.build()], {"stores": n, "stride": stride},
                    "benchmarks/crossbar_traces.py")


def l2_out(sms: int = 15) -> Workload:
    """A warm-up kernel, then ``sms`` one-warp CTAs reading the same 256 lines of one sub-partition."""
    lines_of_slice = same_slice()
    kernels = []
    for name, ctas in (("warm", 1), ("read", sms)):
        kb = KernelBuilder(name, (ctas,), (32,))
        for i in range(len(lines_of_slice) // 32):
            lines = np.tile(lines_of_slice[32 * i:32 * (i + 1)], ctas)
            kb.load(0x100 + 16 * i, BASE + lines * LINE)
        kernels.append(kb.build())
    return Workload("l2-out", kernels, {"sms": sms}, "benchmarks/crossbar_traces.py")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="directory for the three trace directories")
    ap.add_argument("--stores", type=int, default=400, help="stores of the two store workloads")
    args = ap.parse_args()
    if args.stores < 1:
        ap.error(f"--stores: must be at least 1, not {args.stores}")
    for name, wl in (("stores-2flit", stores(args.stores, 264)), ("stores-5flit", stores(args.stores, 32)),
                     ("l2-out", l2_out())):
        summary = write_accelsim(wl, args.out / name)
        print(f"{summary.directory}: {summary.kernels} kernel(s), "
              f"{summary.warp_instructions} warp instructions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
