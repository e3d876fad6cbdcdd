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

Loading trusts nothing in the file. The zip container and each member's
``.npy`` header are parsed here, not by ``np.load``: numpy reads the header
with ``ast.literal_eval``, and this loader evaluates no text from a file.
Every member's dtype and shape is checked against the layout above and its
data length against the member's real length before anything is allocated;
the grid and block dimensions against CUDA's limits; every field of every
row against its range, and every active lane's address against
:data:`MAX_ADDRESS`. The limits are the module constants below and
``docs/traces.md`` lists them.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
import zlib
from pathlib import Path

import numpy as np

from golden.errors import InputError
from golden.files import atomic_write
from golden.trace.model import INST_DTYPE, WARP_SIZE, KernelTrace, Op, Space, Workload
from golden.trace.row_checks import CHECKS, first_failures

__all__ = ["FORMAT_VERSION", "save_workload", "load_workload", "load_trace", "MAX_ADDRESS", "MAX_WARPS",
           "MAX_KERNELS", "MAX_INSTRUCTIONS_PER_ENTRY", "check_launch"]

#: Version of the file layout above; bump on any incompatible change.
FORMAT_VERSION = 1

#: Byte addresses of active lanes must lie below 2**57 (57-bit virtual addresses, the widest
#: any GPU or host MMU uses); line numbers then stay far below the cache model's 2**62.
MAX_ADDRESS = 1 << 57
#: Warps in one kernel launch (grid CTAs x warps per CTA): bounds the per-warp arrays.
MAX_WARPS = 1 << 24
#: Kernels in one workload: the access stream stores the kernel index in 16 bits.
MAX_KERNELS = 1 << 16
#: Compute instructions (``gap`` and ``tail``) per stored row or warp, on average over a kernel.
#: The interleaver issues them one by one, so this bounds a run's time by the file's size.
MAX_INSTRUCTIONS_PER_ENTRY = 1 << 16
#: CUDA's launch limits (compute capability 3.0 and later).
MAX_BLOCK = (1024, 1024, 64)
MAX_THREADS_PER_BLOCK = 1024
MAX_GRID = ((1 << 31) - 1, 65535, 65535)
#: Shared memory per CTA and registers per thread a header may give.
MAX_SHARED_BYTES = 1 << 32
MAX_REGS_PER_THREAD = 1 << 16
#: Largest consumer distance a file may give (``KernelTrace.consumers``): more instructions than
#: a file of this size could describe are not meant.
MAX_CONSUMER_DISTANCE = 1 << 40
_MAX_META_CHARS = 1 << 22
_MAX_NPY_HEADER = 1 << 16


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
        if k.consumers is not None:
            arrays[f"k{i}_consumers"] = k.consumers

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)

    atomic_write(path, write)


def check_launch(grid, block, where: str, names: tuple[str, str] = ("grid", "block")
                 ) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Grid and block dimensions as int triples, checked against CUDA's limits and :data:`MAX_WARPS`.

    Parameters
    ----------
    grid, block : sequence
        The dimensions as read from a file.
    where : str
        Prefix of error messages (file, kernel or line).
    names : (str, str)
        What the file calls the two fields, for messages.

    Raises
    ------
    InputError
        Unless both are three integers within the limits.
    """
    out = []
    for name, dims, limits in ((names[0], grid, MAX_GRID), (names[1], block, MAX_BLOCK)):
        if (not isinstance(dims, list | tuple) or len(dims) != 3
                or not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in dims)):
            raise InputError(f"{where}: field '{name}' must be three integers, not {_short(dims)}")
        dims = tuple(int(v) for v in dims)
        if not all(1 <= v <= m for v, m in zip(dims, limits, strict=True)):
            raise InputError(f"{where}: field '{name}' {dims} is outside CUDA's limits (1..{limits[0]}, "
                             f"1..{limits[1]}, 1..{limits[2]})")
        out.append(dims)
    grid, block = out
    threads = block[0] * block[1] * block[2]
    if threads > MAX_THREADS_PER_BLOCK:
        raise InputError(f"{where}: field '{names[1]}' {block} has {threads} threads; CUDA allows at most "
                         f"{MAX_THREADS_PER_BLOCK} per block")
    warps = grid[0] * grid[1] * grid[2] * -(-threads // WARP_SIZE)
    if warps > MAX_WARPS:
        raise InputError(f"{where}: grid {grid} x block {block} is {warps:,} warps; gpucache reads at most "
                         f"{MAX_WARPS:,} per kernel")
    return grid, block


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def load_workload(path: str | os.PathLike) -> Workload:
    """Read and validate a workload file.

    Memory and time are bounded by the file's size: nothing is allocated
    before the sizes it implies are checked against the file's content.

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
        zf = zipfile.ZipFile(path)
    except Exception as e:  # noqa: BLE001 - the standard library's zip errors, see _Members.read
        raise InputError(f"{path}: not a gpucache trace file ({_reason(e)})") from None
    with zf, open(path, "rb", buffering=0) as raw:
        members = _Members(path, zf, raw)
        meta = _read_meta(path, members.read("meta", 0, None))
        kernels = []
        for i, km in enumerate(meta["kernels"]):
            kernels.append(_load_kernel(path, i, km, members))
    return Workload(name=meta["name"], kernels=kernels, params=meta["params"], source=meta["source"])


def _reason(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text[:100] or type(e).__name__


_NPY_HEADER = re.compile(r"\{'descr': (?P<descr>'[^']*'|\[[^\]]*\]), 'fortran_order': (?P<fo>True|False), "
                         r"'shape': \((?P<shape>(?:[0-9]{1,20}(?:, [0-9]{1,20})*,?)?)\), \} *\n")


class _Members:
    """The ``.npy`` members of a trace file, each read only after its header is checked."""

    def __init__(self, path: Path, zf: zipfile.ZipFile, raw) -> None:
        self.path = path
        self.zf = zf
        self.raw = raw  # the file, unbuffered: stored members are read from it directly (_StoredMember)
        try:
            self.infos = {i.filename: i for i in zf.infolist()}
        except Exception as e:  # noqa: BLE001 - see read()
            raise InputError(f"{path}: not a gpucache trace file ({_reason(e)})") from None

    def read(self, name: str, ndim: int, descr: str | None, shape: tuple | None = None,
             where: str | None = None) -> np.ndarray | str:
        """Member ``name``: ``ndim`` dimensions, dtype ``descr`` (None: a unicode string, returned as str).

        ``shape`` entries that are not None must match. Raises InputError otherwise.
        """
        where = where or str(self.path)
        info = self.infos.get(f"{name}.npy")
        if info is None:
            raise InputError(f"{where}: member '{name}' is missing")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise InputError(f"{where}: member '{name}' uses zip compression method {info.compress_type}; "
                             f"gpucache reads stored or deflated members")
        try:
            if info.compress_type == zipfile.ZIP_STORED:
                f = _StoredMember(self.raw, info)
                out = self._array(f, info.file_size, name, ndim, descr, shape, where)
                f.check()
                return out
            with self.zf.open(info) as f:
                return self._array(f, info.file_size, name, ndim, descr, shape, where)
        except InputError:
            raise
        except Exception as e:  # noqa: BLE001
            # A damaged zip makes the standard library raise any of BadZipFile, zlib.error,
            # EOFError, OSError, ValueError, RuntimeError, NotImplementedError, ... .
            raise InputError(f"{where}: member '{name}' cannot be read ({_reason(e)})") from None

    def _array(self, f, size: int, name: str, ndim: int, descr: str | None, shape: tuple | None,
               where: str) -> np.ndarray | str:
        def bad(why: str) -> InputError:
            return InputError(f"{where}: member '{name}' {why}")

        magic = f.read(8)
        if len(magic) < 8 or magic[:6] != b"\x93NUMPY" or magic[6] not in (1, 2, 3) or magic[7] != 0:
            raise bad("is not a .npy array")
        width = 2 if magic[6] == 1 else 4  # bytes of the header length
        hlen = int.from_bytes(f.read(width).ljust(width, b"\xff"), "little")
        start = 8 + width
        if hlen > _MAX_NPY_HEADER or start + hlen > size:
            raise bad(f"has a header of {hlen} bytes, longer than the member or {_MAX_NPY_HEADER}")
        raw = f.read(hlen)
        try:
            header = raw.decode("utf-8" if magic[6] == 3 else "latin-1")
        except UnicodeDecodeError:
            raise bad("has a header that is not text") from None
        m = _NPY_HEADER.fullmatch(header)
        if not m:
            raise bad("has a .npy header gpucache does not read (expected numpy's own layout)")
        dims = tuple(int(v) for v in m["shape"].split(",") if v.strip())
        if len(dims) != ndim:
            raise bad(f"has {len(dims)} dimensions, expected {ndim}")
        if descr is None:
            u = re.fullmatch(r"'<U([0-9]{1,8})'", m["descr"])
            if not u or int(u[1]) > _MAX_META_CHARS:
                raise bad(f"must be a unicode string of at most {_MAX_META_CHARS:,} characters")
            dtype = np.dtype(f"<U{int(u[1])}")
        else:
            if m["descr"] != descr:
                shown = m["descr"] if len(m["descr"]) <= 40 else m["descr"][:37] + "..."
                raise bad(f"has dtype {shown}, expected {descr if len(descr) <= 40 else 'INST_DTYPE'}")
            dtype = np.dtype(np.lib.format.descr_to_dtype(_DESCRS[descr]))
        if shape is not None:
            for got, want in zip(dims, shape, strict=True):
                if want is not None and got != want:
                    raise bad(f"has shape {dims}, expected {tuple('*' if w is None else w for w in shape)}")
        count = 1
        for d in dims:
            count *= d
        nbytes = count * dtype.itemsize
        if nbytes != size - start - hlen:
            raise bad(f"holds {size - start - hlen:,} bytes of data, but its header says "
                      f"{count:,} x {dtype.itemsize}")
        data = f.read_array(nbytes) if isinstance(f, _StoredMember) else f.read(nbytes + 1)
        if len(data) != nbytes:
            raise bad(f"holds {len(data):,} bytes of data, but its header says {nbytes:,}")
        if descr is None:
            # Decoded here, strictly: numpy turns code points above U+10FFFF into a SystemError.
            try:
                return bytes(data).decode("utf-32-le").rstrip("\0")
            except UnicodeDecodeError as e:
                raise bad(f"is not valid text ({_reason(e)})") from None
        order = "F" if m["fo"] == "True" else "C"
        return np.frombuffer(data, dtype=dtype).reshape(dims, order=order)


class _StoredMember:
    """An uncompressed (stored) zip member read straight from the file, its CRC-32 checked.

    ``zipfile`` returns a large member as ``bytes`` built by concatenation (a second full copy:
    on ciao18's PVC trace at scale 1, 7.0 s in ``zipfile``'s own code of a 17 s read); this reader puts the
    data straight into a numpy buffer with ``readinto``. The member's position comes from its
    local header, checked as ``zipfile`` checks it; :meth:`check` then compares the CRC-32 of
    every byte read with the directory's, as ``zipfile`` does at the member's end.
    """

    def __init__(self, raw, info: zipfile.ZipInfo) -> None:
        raw.seek(info.header_offset)
        head = raw.read(30)
        if len(head) != 30 or head[:4] != b"PK\x03\x04":
            raise zipfile.BadZipFile("bad magic number for file header")
        name_len = int.from_bytes(head[26:28], "little")
        extra_len = int.from_bytes(head[28:30], "little")
        if raw.read(name_len) != info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437"):
            raise zipfile.BadZipFile(f"file names in the directory and header differ: {info.orig_filename!r}")
        if info.compress_size != info.file_size:
            raise zipfile.BadZipFile(f"stored member {info.orig_filename!r} has two sizes")
        self.raw = raw
        self.pos = info.header_offset + 30 + name_len + extra_len
        self.left = info.file_size
        self.crc_want = info.CRC
        self.crc = 0

    def read(self, n: int) -> bytes:
        """Up to ``n`` bytes (fewer at the member's end)."""
        n = max(0, min(n, self.left))
        self.raw.seek(self.pos)
        data = self.raw.read(n)
        self._took(data)
        return data

    def read_array(self, n: int) -> np.ndarray:
        """The next ``n`` bytes as a ``uint8`` array (fewer at the member's or the file's end)."""
        buf = np.empty(max(0, min(n, self.left)), np.uint8)
        view = memoryview(buf)
        self.raw.seek(self.pos)
        got = 0
        while got < len(buf):
            k = self.raw.readinto(view[got:])
            if not k:
                break
            got += k
        self._took(view[:got])
        return buf[:got]

    def _took(self, data) -> None:
        self.pos += len(data)
        self.left -= len(data)
        self.crc = zlib.crc32(data, self.crc)

    def check(self) -> None:
        """Raise ``BadZipFile`` unless the whole member was read and its CRC-32 matches."""
        if self.left or self.crc != self.crc_want:
            raise zipfile.BadZipFile("bad CRC-32 for a stored member")


# The descr text numpy writes for each member's dtype, and the descr itself.
_DESCRS = {repr(np.lib.format.dtype_to_descr(np.dtype(t))): np.lib.format.dtype_to_descr(np.dtype(t))
           for t in (INST_DTYPE, np.uint64, np.uint32, np.int64)}
_INST_DESCR = repr(np.lib.format.dtype_to_descr(INST_DTYPE))
_U8_DESCR = repr(np.lib.format.dtype_to_descr(np.dtype(np.uint64)))
_U4_DESCR = repr(np.lib.format.dtype_to_descr(np.dtype(np.uint32)))
_I8_DESCR = repr(np.lib.format.dtype_to_descr(np.dtype(np.int64)))


def _text_ok(v) -> bool:
    """Whether ``v`` (JSON data) is free of lone surrogates, so that it can be printed and saved."""
    try:
        json.dumps(v, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        return False
    return True


def _read_meta(path: Path, text: str) -> dict:
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: member 'meta' is not valid JSON ({e})") from None
    except RecursionError:
        raise InputError(f"{path}: member 'meta' is nested too deeply") from None
    if not isinstance(meta, dict) or meta.get("format") != "gpucache-trace":
        raise InputError(f"{path}: member 'meta' does not describe a gpucache trace")
    version = meta.get("version")
    if type(version) is not int or version != FORMAT_VERSION:
        raise InputError(
            f"{path}: trace format version {_short(version)} is not supported "
            f"(this gpucache reads version {FORMAT_VERSION}); regenerate or re-convert the trace"
        )
    out = {"name": meta.get("name", path.stem), "source": meta.get("source", ""),
           "params": meta.get("params", {}), "kernels": meta.get("kernels", [])}
    for key, kind in (("name", str), ("source", str), ("params", dict), ("kernels", list)):
        if not isinstance(out[key], kind):
            raise InputError(f"{path}: field '{key}' in 'meta' must be {kind.__name__}, "
                             f"not {_short(out[key])}")
        if not _text_ok(out[key]):
            raise InputError(f"{path}: field '{key}' in 'meta' is not valid Unicode text")
    if len(out["kernels"]) > MAX_KERNELS:
        raise InputError(f"{path}: {len(out['kernels']):,} kernels; a workload has at most {MAX_KERNELS:,}")
    return out


def _load_kernel(path: Path, i: int, km, members: _Members) -> KernelTrace:
    where = f"{path}: kernel {i}"
    if not isinstance(km, dict):
        raise InputError(f"{where}: its entry in 'meta' must be an object, not {_short(km)}")
    for key in ("name", "grid", "block"):
        if key not in km:
            raise InputError(f"{where}: field '{key}' in 'meta' is missing")
    name = km["name"]
    if not isinstance(name, str) or not _text_ok(name):
        raise InputError(f"{where}: field 'name' in 'meta' must be a string, not {_short(name)}")
    grid, block = check_launch(km["grid"], km["block"], where)
    extra = {}
    for key, top in (("shared_bytes", MAX_SHARED_BYTES), ("regs_per_thread", MAX_REGS_PER_THREAD)):
        v = km.get(key, 0)
        if type(v) is not int or not 0 <= v <= top:
            raise InputError(f"{where}: field '{key}' in 'meta' must be an integer 0..{top}, not {_short(v)}")
        extra[key] = v
    n_ctas = grid[0] * grid[1] * grid[2]
    wpc = -(-(block[0] * block[1] * block[2]) // WARP_SIZE)
    insts = members.read(f"k{i}_insts", 1, _INST_DESCR, where=where)
    lanes = members.read(f"k{i}_lanes", 2, _U8_DESCR, (None, WARP_SIZE), where=where)
    tail = members.read(f"k{i}_tail", 1, _U4_DESCR, (n_ctas * wpc,), where=where)
    _check_rows(where, insts, lanes, n_ctas, wpc)
    consumers = None
    if f"k{i}_consumers.npy" in members.infos:
        consumers = members.read(f"k{i}_consumers", 1, _I8_DESCR, (len(insts),), where=where)
        bad = np.flatnonzero((consumers < -1) | (consumers == 0) | (consumers > MAX_CONSUMER_DISTANCE))
        if bad.size:
            raise InputError(f"{where}: member 'k{i}_consumers' row {int(bad[0])}: consumer distance "
                             f"{int(consumers[bad[0]])} is not -1 or 1..{MAX_CONSUMER_DISTANCE:,}")
    total = int(insts["gap"].sum(dtype=np.int64)) + int(tail.sum(dtype=np.int64))
    if total > MAX_INSTRUCTIONS_PER_ENTRY * (len(insts) + len(tail)):
        raise InputError(f"{where}: fields 'gap' and member 'k{i}_tail' hold {total:,} compute instructions, "
                         f"more than {MAX_INSTRUCTIONS_PER_ENTRY:,} per stored row and warp")
    return KernelTrace(name=name, grid=grid, block=block, insts=insts, lane_addrs=lanes, tail=tail,
                       consumers=consumers,
                       **extra)


_KNOWN_OPS = np.isin(np.arange(256), [int(o) for o in Op])
_KNOWN_SPACES = np.isin(np.arange(256), [int(s) for s in Space])


def _check_rows(where: str, insts: np.ndarray, lanes: np.ndarray, n_ctas: int, wpc: int) -> None:
    """Raise for the first check of :data:`golden.trace.row_checks.CHECKS` that a row fails."""
    if insts.size == 0:
        return
    first = first_failures(insts, lanes, n_ctas, wpc, _KNOWN_OPS, _KNOWN_SPACES, int(Op.BARRIER), WARP_SIZE,
                           MAX_ADDRESS)
    why = {
        "cta": f"is outside 0..{n_ctas - 1}",
        "warp": f"is outside 0..{wpc - 1}",
        "op": "is not a known operation",
        "space": "is not a known space",
        "width": "is 0 bytes for a memory instruction",
        "dx": f"is outside 1..{WARP_SIZE}",
        "lanes": "points outside the lane table",
        "order": "breaks the (cta, warp) order of the rows",
        # every active lane's bytes [addr, addr + width) must lie below MAX_ADDRESS
        "address": f"gives an active lane an address outside 0..{MAX_ADDRESS - 1:#x}",
    }
    for check, r in zip(CHECKS, first.tolist(), strict=True):
        if r >= 0:
            lanes_field = "lanes" if insts["lanes"][r] >= 0 else "base"
            field = {"order": "cta", "address": lanes_field}.get(check, check)
            raise InputError(f"{where}: field '{field}' of instruction {r} {why[check]}")


def load_trace(path: str | os.PathLike) -> Workload:
    """A workload from a gpucache ``.npz`` or an Accel-Sim trace (directory or ``kernelslist.g``).

    Raises
    ------
    InputError
        For a missing, unreadable or malformed trace.
    """
    p = Path(path)
    if p.is_dir() or p.suffix in (".g", ".traceg"):
        from golden.trace.accelsim import read_accelsim

        return read_accelsim(p)
    return load_workload(p)
