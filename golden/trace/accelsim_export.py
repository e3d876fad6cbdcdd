"""Export of a workload as an Accel-Sim trace: ``kernelslist.g`` and ``kernel-<n>.traceg``.

Any built-in workload (or a converted ``.npz``) then runs on Accel-Sim's
trace-driven simulator, the validated public GPU simulator, with the same
warps, instructions and addresses as in gpucache. The files follow what
Accel-Sim's NVBit tracer and ``post-traces-processing`` write, tracer
version 4 without line numbers, and :func:`golden.trace.accelsim.read_accelsim`
reads them back to the same kernels (the round trip is tested)::

    -kernel name = <name>
    -kernel id = <n>
    -grid dim = (x,y,z)
    -block dim = (x,y,z)
    -shmem = <shared bytes per CTA>
    -nregs = <registers per thread>
    -binary version = 70
    -cuda stream id = 0
    -shmem base_addr = 0x00007f0000000000
    -local mem base_addr = 0x00007f1000000000
    -nvbit version = 1.5.5
    -accelsim tracer version = 4
    -enable lineinfo = 0

    #traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width ...

    #BEGIN_TB

    thread block = x,y,z

    warp = w
    insts = n
    <n instruction lines>
    #END_TB

Choices (``docs/traces.md``, "Exporting"):

* **Compute instructions** (a row's ``gap``, a warp's ``tail``) are written as
  ``IMAD`` with no register operands, so they take issue slots and an ALU
  but create no dependences; their PCs continue the preceding row's in 16-byte
  steps. The active mask of a compute instruction is the warp's threads.
* **The last instruction of every warp is ``EXIT``** (Accel-Sim retires a warp
  on it): the last instruction of the tail when the tail is not empty, else
  one more instruction (then the re-imported tail is one longer; the count is
  in :class:`ExportSummary`).
* **Dependences.** The emulators carry no registers, so the exporter gives
  them the rule of the timing model, ``dependences``: ``"next-memory"``
  (default) makes each load's destination register a source of the warp's
  next memory or barrier instruction (the warp blocks there until the load
  returns); ``"none"`` writes no registers (loads never block).
* **Opcodes** (Volta, ``-binary version = 70``): ``LDG.E``/``STG.E``/``ATOMG.E.ADD``
  for global, ``LDS``/``STS``/``ATOMS.ADD`` shared, ``LDL``/``STL`` local,
  ``LDC`` constant, ``TEX`` texture, ``BAR.SYNC``; the access width is a
  suffix Accel-Sim's ``get_datawidth_from_opcode`` reads (``.64``, ``.128``,
  ``.U8``, ``.U16``; none for 4 bytes).
* **Addresses** are written in mode 1 (``base_stride``) when the active
  lanes are contiguous and evenly spaced with a 32-bit stride, else mode 0
  (``list_all``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from golden.errors import InputError
from golden.files import atomic_write
from golden.trace.model import WARP_SIZE, KernelTrace, Op, Space, Workload, lane_addresses

__all__ = ["DEPENDENCES", "ExportSummary", "write_accelsim", "opcode"]

#: Dependence rules for loads (see the module docstring).
DEPENDENCES = ("next-memory", "none")
#: Header addresses of the shared and local windows (values of the kind NVBit reports; the
#: exporter writes explicit LDS/STS/LDL/STL opcodes, so no generic access depends on them).
SHMEM_BASE, LOCAL_BASE = 0x00007F0000000000, 0x00007F1000000000
_FORMAT = ("#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
           "[adrrescompress?] [mem_addresses]")
_BASE = {(Op.LOAD, Space.GLOBAL): "LDG.E", (Op.STORE, Space.GLOBAL): "STG.E",
         (Op.ATOMIC, Space.GLOBAL): "ATOMG.E.ADD", (Op.LOAD, Space.SHARED): "LDS",
         (Op.STORE, Space.SHARED): "STS", (Op.ATOMIC, Space.SHARED): "ATOMS.ADD",
         (Op.LOAD, Space.LOCAL): "LDL", (Op.STORE, Space.LOCAL): "STL",
         (Op.LOAD, Space.CONST): "LDC", (Op.LOAD, Space.TEXTURE): "TEX"}
_WIDTH = {1: ".U8", 2: ".U16", 4: "", 8: ".64", 16: ".128"}
#: Registers: loads write R10 or R11 in turn, so a load's consumer never waits on the one after it.
_LOAD_REGS = (10, 11)


@dataclass(frozen=True)
class ExportSummary:
    """What :func:`write_accelsim` wrote."""

    directory: Path
    kernels: int
    warp_instructions: int
    appended_exits: int


def opcode(op: int, space: int, width: int) -> str:
    """The SASS opcode written for a row (see the module docstring).

    Raises
    ------
    InputError
        For an operation, space or width Accel-Sim cannot express.
    """
    if op == Op.BARRIER:
        return "BAR.SYNC"
    base = _BASE.get((Op(op), Space(space)))
    if base is None:
        raise InputError(f"no Accel-Sim opcode for a {Op(op).name.lower()} in {Space(space).name.lower()} "
                         f"memory")
    if width not in _WIDTH:
        raise InputError(f"no Accel-Sim opcode for a {width}-byte access (1, 2, 4, 8 or 16)")
    return base + _WIDTH[width]


def _addresses(lanes: np.ndarray, mask: int) -> str:
    """The ``mode addresses`` fields of one row."""
    active = [lane for lane in range(WARP_SIZE) if mask >> lane & 1]
    addrs = [int(lanes[lane]) for lane in active]
    contiguous = active[-1] - active[0] + 1 == len(active)
    stride = addrs[1] - addrs[0] if len(addrs) > 1 else 0
    if contiguous and -(1 << 31) <= stride < (1 << 31) and all(
            addrs[k] == addrs[0] + k * stride for k in range(len(addrs))):
        return f"1 0x{addrs[0]:016x} {stride}"
    return "0 " + " ".join(f"0x{a:016x}" for a in addrs)


def _kernel_lines(kernel: KernelTrace, kernel_id: int, dependences: str) -> tuple[list[str], int, int]:
    """The ``.traceg`` text of one kernel: ``(lines, warp instructions written, EXITs appended)``."""
    gx, gy, gz = kernel.grid
    bx, by, bz = kernel.block
    lines = [f"-kernel name = {kernel.name}", f"-kernel id = {kernel_id}", f"-grid dim = ({gx},{gy},{gz})",
             f"-block dim = ({bx},{by},{bz})", f"-shmem = {kernel.shared_bytes}",
             f"-nregs = {kernel.regs_per_thread}", "-binary version = 70", "-cuda stream id = 0",
             f"-shmem base_addr = 0x{SHMEM_BASE:016x}", f"-local mem base_addr = 0x{LOCAL_BASE:016x}",
             "-nvbit version = 1.5.5", "-accelsim tracer version = 4", "-enable lineinfo = 0", "",
             _FORMAT, ""]
    insts = kernel.insts
    addrs = lane_addresses(kernel)
    threads = kernel.threads_per_cta
    wpc = kernel.warps_per_cta
    written = appended = 0
    for cta in range(kernel.n_ctas):
        block = []
        for w in range(wpc):
            g = cta * wpc + w
            lo, hi = int(kernel.warp_ptr[g]), int(kernel.warp_ptr[g + 1])
            tail = int(kernel.tail[g])
            if lo == hi and tail == 0:
                continue  # a warp with nothing to run: post-processing drops it too
            n_thr = min(WARP_SIZE, threads - w * WARP_SIZE)
            full = f"{(1 << n_thr) - 1:08x}"
            body = []
            pc = 0
            pending = -1  # register of a load waiting for its consumer
            for r in range(lo, hi):
                row = insts[r]
                gap_pc = pc
                for _ in range(int(row["gap"])):
                    gap_pc += 16
                    body.append(f"{gap_pc:04x} {full} 0 IMAD 0 0")
                pc = int(row["pc"])
                op, space, width = int(row["op"]), int(row["space"]), int(row["width"])
                mask = int(row["mask"])
                srcs = [] if pending < 0 or dependences == "none" else [f"R{pending}"]
                dst = []
                if op == Op.LOAD and dependences != "none":
                    pending = _LOAD_REGS[(r - lo) % 2]
                    dst = [f"R{pending}"]
                else:
                    pending = -1
                regs = f"{len(dst)} {' '.join(dst) + ' ' if dst else ''}{opcode(op, space, width)} " \
                       f"{len(srcs)} {' '.join(srcs) + ' ' if srcs else ''}"
                if op == Op.BARRIER:
                    body.append(f"{pc:04x} {mask:08x} {regs}0")
                else:
                    body.append(f"{pc:04x} {mask:08x} {regs}{width} {_addresses(addrs[r], mask)}")
            for k in range(tail):
                pc += 16
                body.append(f"{pc:04x} {full} 0 {'EXIT' if k == tail - 1 else 'IMAD'} 0 0")
            if tail == 0:
                pc += 16
                body.append(f"{pc:04x} {full} 0 EXIT 0 0")
                appended += 1
            written += len(body)
            block += [f"warp = {w}", f"insts = {len(body)}", *body]
        if block:
            x, y, z = cta % gx, cta // gx % gy, cta // (gx * gy)
            lines += ["#BEGIN_TB", "", f"thread block = {x},{y},{z}", "", *block, "#END_TB", ""]
    return lines, written, appended


def write_accelsim(workload: Workload, directory: str | Path, *,
                   dependences: str = "next-memory") -> ExportSummary:
    """Write ``workload`` as an Accel-Sim trace directory (``kernelslist.g`` + ``kernel-<n>.traceg``).

    Parameters
    ----------
    workload : Workload
        The kernels, in launch order.
    directory : path-like
        Created if missing; the files are written to temporary names and
        renamed into place once each is complete.
    dependences : str
        One of :data:`DEPENDENCES`.

    Raises
    ------
    InputError
        For an unknown dependence rule, a directory that is a file, or a row
        Accel-Sim cannot express.
    """
    if dependences not in DEPENDENCES:
        raise InputError(f"dependences: must be one of {', '.join(DEPENDENCES)}, not {dependences!r}")
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    names, total, appended = [], 0, 0
    for n, kernel in enumerate(workload.kernels, start=1):
        lines, written, extra = _kernel_lines(kernel, n, dependences)
        name = f"kernel-{n}.traceg"
        _write_text(out / name, "\n".join(lines) + "\n")
        names.append(name)
        total += written
        appended += extra
    _write_text(out / "kernelslist.g", "".join(f"{name}\n" for name in names))
    return ExportSummary(out, len(names), total, appended)


def _write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda tmp: Path(tmp).write_text(text))
