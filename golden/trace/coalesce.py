"""Coalescing of warp instructions into cache-line requests.

The rule (that of GPGPU-Sim's ``memory_coalescing_arch`` for global
memory, which Accel-Sim and the papers' simulators use):

* every active lane touches the bytes ``[addr, addr + width)``; a lane whose
  bytes cross a line boundary touches both lines;
* the instruction issues one request per distinct line, in the order in
  which the lanes first touch them (lane 0 upward);
* with sectors (``sector_size`` > 0, e.g. 32 B sectors of 128 B lines), each
  request also carries the mask of sectors its lanes touch: bit ``i`` is the
  sector ``[i * sector_size, (i + 1) * sector_size)`` of the line.

Line addresses are line numbers (``byte address // line_size``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from golden.trace.model import WARP_SIZE, KernelTrace

__all__ = ["ACCESS_DTYPE", "coalesce", "check_line_size"]

#: One row per line request of the flat access stream.
ACCESS_DTYPE = np.dtype(
    [
        ("kernel", "<u2"),  # index of the kernel in the workload
        ("sm", "<u2"),  # SM (compute unit) that issued it
        ("cta", "<i4"),  # linear CTA id
        ("warp", "<i4"),  # warp index within the CTA
        ("pc", "<u4"),
        ("op", "u1"),  # Op (LOAD, STORE, ATOMIC)
        ("sectors", "u1"),  # sector mask (all ones without sectors)
        ("line", "<u8"),  # line number
        ("inst", "<i8"),  # row of the kernel's instruction array
        ("cycle", "<i8"),  # issue slot of the instruction on its SM
    ]
)


def check_line_size(line_size: int, sector_size: int = 0) -> None:
    """Raise ValueError unless the line and sector sizes are usable powers of two."""
    if line_size < 4 or line_size & (line_size - 1):
        raise ValueError(f"Line size must be a power of 2 of at least 4 bytes, not {line_size}")
    if sector_size:
        if sector_size & (sector_size - 1) or sector_size > line_size or line_size // sector_size > 8:
            raise ValueError(
                f"Sector size must be a power of 2 dividing the line into at most 8 sectors, "
                f"not {sector_size} for {line_size}-byte lines"
            )


@nb.njit(cache=True, nogil=True)
def _lines_of(base, sx, sy, dx, lanes, lane_addrs, mask, width, shift, sshift, nsec, lines, secs):
    """Distinct lines of one instruction into ``lines``/``secs``; returns their count."""
    n = 0
    for lane in range(WARP_SIZE):
        if not (mask >> lane) & 1:
            continue
        if lanes >= 0:
            a = np.int64(lane_addrs[lanes, lane])
        else:
            a = np.int64(base) + (lane % dx) * sx + (lane // dx) * sy
        first = a >> shift
        last = (a + width - 1) >> shift
        for ln in range(first, last + 1):
            lo = max(a, ln << shift) - (ln << shift)
            hi = min(a + width, (ln + 1) << shift) - 1 - (ln << shift)
            smask = 0
            if nsec > 1:
                for s in range(lo >> sshift, (hi >> sshift) + 1):
                    smask |= 1 << s
            else:
                smask = 1
            found = -1
            for j in range(n):
                if lines[j] == ln:
                    found = j
                    break
            if found >= 0:
                secs[found] |= smask
            else:
                lines[n] = ln
                secs[n] = smask
                n += 1
    return n


@nb.njit(cache=True, nogil=True)
def _coalesce(base, sx, sy, dx, lanes, mask, width, lane_addrs, rows, shift, sshift, nsec):
    lines = np.empty(2 * WARP_SIZE, np.int64)
    secs = np.empty(2 * WARP_SIZE, np.int64)
    # Affine rows of one lane-line each are the common case; sizing by a
    # first pass keeps memory exact without a second full decode.
    count = np.empty(rows.size, np.int64)
    total = 0
    for i in range(rows.size):
        r = rows[i]
        count[i] = _lines_of(base[r], np.int64(sx[r]), np.int64(sy[r]), np.int64(dx[r]), lanes[r],
                             lane_addrs, mask[r], np.int64(width[r]), shift, sshift, nsec,
                             lines, secs)
        total += count[i]
    out_row = np.empty(total, np.int64)
    out_line = np.empty(total, np.uint64)
    out_sec = np.empty(total, np.uint8)
    k = 0
    for i in range(rows.size):
        r = rows[i]
        n = _lines_of(base[r], np.int64(sx[r]), np.int64(sy[r]), np.int64(dx[r]), lanes[r],
                      lane_addrs, mask[r], np.int64(width[r]), shift, sshift, nsec, lines, secs)
        for j in range(n):
            out_row[k] = r
            out_line[k] = lines[j]
            out_sec[k] = secs[j]
            k += 1
    return out_row, out_line, out_sec


def coalesce(
    kernel: KernelTrace,
    line_size: int,
    sector_size: int = 0,
    rows: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Line requests of the given instruction rows, in row order.

    Parameters
    ----------
    kernel : KernelTrace
        The kernel whose instructions to coalesce.
    line_size : int
        Line size in bytes (power of two, e.g. 32, 64 or 128).
    sector_size : int
        Sector size in bytes, or 0 for no sectors (the mask is then 1).
    rows : array of int, optional
        Instruction rows to coalesce, in the order to emit them. Defaults to
        every global load, store and atomic in storage order.

    Returns
    -------
    row, line, sectors : numpy.ndarray
        ``int64`` row of each request, ``uint64`` line number, ``uint8`` sector mask.
    """
    check_line_size(line_size, sector_size)
    if rows is None:
        rows = np.flatnonzero(kernel.memory_mask())
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    shift = line_size.bit_length() - 1
    nsec = line_size // sector_size if sector_size else 1
    sshift = sector_size.bit_length() - 1 if sector_size else shift
    it = kernel.insts
    return _coalesce(it["base"], it["sx"], it["sy"], it["dx"], it["lanes"], it["mask"], it["width"],
                     kernel.lane_addrs, rows, shift, sshift, nsec)
