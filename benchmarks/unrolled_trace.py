"""Write an Accel-Sim trace whose registers matter: an unrolled streaming loop.

Each warp runs ``iterations`` trips of a loop unrolled ``unroll`` times, as
compilers emit for ``for (...) acc += a[i]`` over a warp's own chunk: ``unroll``
independent ``LDG.E`` into R4, R5, ... (one coalesced 128-byte line each),
then the ``FFMA``\\ s that add them into R8, and a final ``STG.E`` of R8. The
loads of a trip do not depend on each other: their consumers are the
``FFMA``\\ s after the last of them. A timing model that takes the registers
(gpucache's ``registers`` rule, Accel-Sim) overlaps them; ``next-memory``, the
rule of the built-in emulators, makes each load wait for the one before.

    python benchmarks/unrolled_trace.py OUT_DIR [--ctas 112] [--warps 8] [--iterations 16] [--unroll 4]

then, for the two models on the same files::

    python benchmarks/compare_accelsim.py --accelsim BUILD --config kim20 --workloads trace:OUT_DIR
    python benchmarks/compare_accelsim.py ... --workloads trace:OUT_DIR --dependences next-memory
"""

from __future__ import annotations

import argparse
from pathlib import Path

LINE = 128
BASE = 0x7F10_0000_0000


def kernel_text(ctas: int, warps: int, iterations: int, unroll: int) -> str:
    """The ``.traceg`` text (Accel-Sim tracer version 4) of the unrolled loop."""
    lines = ["-kernel name = unrolled_sum", "-kernel id = 1", f"-grid dim = ({ctas},1,1)",
             f"-block dim = ({32 * warps},1,1)", "-shmem = 0", "-nregs = 16", "-binary version = 61",
             "-cuda stream id = 0", "-shmem base_addr = 0x00007f0000000000",
             "-local mem base_addr = 0x00007f0002000000", "-nvbit version = 1.5.5",
             "-accelsim tracer version = 4", "-enable lineinfo = 0", "",
             # Accel-Sim's parser ends the header at its first '#' line: this one, not #BEGIN_TB.
             "#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
             "[adrrescompress?] [mem_addresses]", ""]
    chunk = iterations * unroll * LINE
    for c in range(ctas):
        lines += ["#BEGIN_TB", "", f"thread block = {c},0,0", ""]
        for w in range(warps):
            base = BASE + (c * warps + w) * chunk
            body = []
            for i in range(iterations):
                for u in range(unroll):
                    addr = base + (i * unroll + u) * LINE
                    body.append(f"{0x40 + 16 * u:04x} ffffffff 1 R{4 + u} LDG.E 1 R2 4 1 0x{addr:x} 4")
                for u in range(unroll):
                    body.append(f"{0x40 + 16 * (unroll + u):04x} ffffffff 1 R8 FFMA 2 R{4 + u} R8 0")
                body.append(f"{0x40 + 32 * unroll:04x} ffffffff 1 R2 IADD 1 R2 0")
            body.append(f"{0x60 + 32 * unroll:04x} ffffffff 0 STG.E 2 R2 R8 4 1 0x{base:x} 4")
            body.append(f"{0x70 + 32 * unroll:04x} ffffffff 0 EXIT 0 0")
            lines += [f"warp = {w}", f"insts = {len(body)}", *body, ""]
        lines += ["#END_TB", ""]
    return "\n".join(lines) + "\n"


def write_unrolled(out: Path, ctas: int = 112, warps: int = 8, iterations: int = 16, unroll: int = 4) -> None:
    """Write ``kernelslist.g`` and ``kernel-1.traceg`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "kernel-1.traceg").write_text(kernel_text(ctas, warps, iterations, unroll))
    (out / "kernelslist.g").write_text("kernel-1.traceg\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--ctas", type=int, default=112)
    ap.add_argument("--warps", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=16)
    ap.add_argument("--unroll", type=int, default=4)
    a = ap.parse_args()
    write_unrolled(a.out, a.ctas, a.warps, a.iterations, a.unroll)
    print(f"wrote {a.out}/kernel-1.traceg: {a.ctas} CTAs x {a.warps} warps, {a.iterations} trips of "
          f"{a.unroll} loads")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
