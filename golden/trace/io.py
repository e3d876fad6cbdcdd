"""Workload files: ``.npz`` with a format version, validated on load.

Layout of a file (all members are numpy arrays; ``np.load`` with
``allow_pickle=False``)::

    meta            0-d unicode string: JSON {"format": "gpucache-trace",
                    "version": FORMAT_VERSION, "name", "source", "params",
                    "kernels": [{"name", "grid", "block", "shared_bytes",
                    "regs_per_thread"}, ...]}
    k{i}_insts      INST_DTYPE rows of kernel i
    k{i}_lanes      uint64[m, 32] explicit lane addresses of kernel i
    k{i}_tail       uint32[n_warps] trailing compute instructions of kernel i

Files are written to a temporary name and renamed into place, so a
failed write never leaves a half-written file.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from golden.errors import InputError
from golden.trace.model import INST_DTYPE, WARP_SIZE, KernelTrace, Op, Space, Workload

__all__ = ["FORMAT_VERSION", "save_workload", "load_workload", "atomic_write"]

#: Version of the file layout above; bump on any incompatible change.
FORMAT_VERSION = 1


def atomic_write(path: str | os.PathLike, write) -> None:
    """Call ``write(tmp_path)`` and rename the result to ``path``; remove it on failure.

    Parameters
    ----------
    path : path-like
        Final file name.
    write : callable
        Writes the complete file to the temporary path it is given.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual permissions
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save_workload(path: str | os.PathLike, workload: Workload) -> None:
    """Write ``workload`` to ``path`` (``.npz``), atomically."""
    meta = {
        "format": "gpucache-trace",
        "version": FORMAT_VERSION,
        "name": workload.name,
        "source": workload.source,
        "params": workload.params,
        "kernels": [
            {
                "name": k.name,
                "grid": list(k.grid),
                "block": list(k.block),
                "shared_bytes": k.shared_bytes,
                "regs_per_thread": k.regs_per_thread,
            }
            for k in workload.kernels
        ],
    }
    arrays = {"meta": np.array(json.dumps(meta))}
    for i, k in enumerate(workload.kernels):
        arrays[f"k{i}_insts"] = k.insts
        arrays[f"k{i}_lanes"] = k.lane_addrs
        arrays[f"k{i}_tail"] = k.tail

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)

    atomic_write(path, write)


def load_workload(path: str | os.PathLike) -> Workload:
    """Read and validate a workload file.

    Raises
    ------
    InputError
        Naming the file and what is wrong with it, for any unreadable or
        inconsistent content.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such trace file")
    try:
        with np.load(path, allow_pickle=False) as z:
            files = {name: z[name] for name in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise InputError(f"{path}: not a gpucache trace file ({e})") from None
    if "meta" not in files:
        raise InputError(f"{path}: not a gpucache trace file (no 'meta' member)")
    try:
        meta = json.loads(str(files["meta"]))
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: member 'meta' is not valid JSON ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != "gpucache-trace":
        raise InputError(f"{path}: member 'meta' does not describe a gpucache trace")
    if meta.get("version") != FORMAT_VERSION:
        raise InputError(
            f"{path}: trace format version {meta.get('version')!r} is not supported "
            f"(this gpucache reads version {FORMAT_VERSION}); regenerate or re-convert the trace"
        )
    kernels = []
    for i, km in enumerate(meta.get("kernels", [])):
        kernels.append(_load_kernel(path, i, km, files))
    return Workload(
        name=str(meta.get("name", path.stem)),
        kernels=kernels,
        params=dict(meta.get("params", {})),
        source=str(meta.get("source", "")),
    )


def _load_kernel(path: Path, i: int, km: dict, files: dict) -> KernelTrace:
    where = f"{path}: kernel {i}"
    for member in (f"k{i}_insts", f"k{i}_lanes", f"k{i}_tail"):
        if member not in files:
            raise InputError(f"{where}: member '{member}' is missing")
    try:
        grid = tuple(int(v) for v in km["grid"])
        block = tuple(int(v) for v in km["block"])
        name = str(km["name"])
    except (KeyError, TypeError, ValueError) as e:
        raise InputError(f"{where}: field {e} in 'meta' is missing or invalid") from None
    if len(grid) != 3 or len(block) != 3 or min(grid + block) < 1:
        raise InputError(f"{where}: field 'grid'/'block' must be three positive integers")
    insts, lanes, tail = files[f"k{i}_insts"], files[f"k{i}_lanes"], files[f"k{i}_tail"]
    if insts.dtype != INST_DTYPE:
        raise InputError(f"{where}: member 'k{i}_insts' has dtype {insts.dtype}, expected {INST_DTYPE}")
    if lanes.dtype != np.uint64 or lanes.ndim != 2 or lanes.shape[1] != WARP_SIZE:
        raise InputError(f"{where}: member 'k{i}_lanes' must be uint64[m, {WARP_SIZE}]")
    n_ctas = grid[0] * grid[1] * grid[2]
    wpc = -(-(block[0] * block[1] * block[2]) // WARP_SIZE)
    if tail.shape != (n_ctas * wpc,):
        raise InputError(f"{where}: member 'k{i}_tail' has {tail.shape} entries, expected {n_ctas * wpc}")
    _check_rows(where, insts, lanes.shape[0], n_ctas, wpc)
    return KernelTrace(
        name=name,
        grid=grid,
        block=block,
        insts=insts,
        lane_addrs=lanes,
        tail=tail.astype(np.uint32, copy=False),
        shared_bytes=int(km.get("shared_bytes", 0)),
        regs_per_thread=int(km.get("regs_per_thread", 0)),
    )


def _check_rows(where: str, insts: np.ndarray, n_lanes: int, n_ctas: int, wpc: int) -> None:
    def bad(field: str, rows: np.ndarray, why: str) -> None:
        r = int(np.flatnonzero(rows)[0])
        raise InputError(f"{where}: field '{field}' of instruction {r} {why}")

    if insts.size == 0:
        return
    checks = [
        ("cta", (insts["cta"] < 0) | (insts["cta"] >= n_ctas), f"is outside 0..{n_ctas - 1}"),
        ("warp", (insts["warp"] < 0) | (insts["warp"] >= wpc), f"is outside 0..{wpc - 1}"),
        ("op", ~np.isin(insts["op"], [int(o) for o in Op]), "is not a known operation"),
        ("space", ~np.isin(insts["space"], [int(s) for s in Space]), "is not a known space"),
        ("dx", (insts["dx"] < 1) | (insts["dx"] > WARP_SIZE), f"is outside 1..{WARP_SIZE}"),
        ("lanes", (insts["lanes"] < -1) | (insts["lanes"] >= n_lanes), "points outside the lane table"),
    ]
    for field, rows, why in checks:
        if rows.any():
            bad(field, rows, why)
    gid = insts["cta"].astype(np.int64) * wpc + insts["warp"]
    if np.any(np.diff(gid) < 0):
        bad("cta", np.r_[False, np.diff(gid) < 0], "breaks the (cta, warp) order of the rows")
