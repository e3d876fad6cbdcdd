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
        ("stream", "<u2"),  # stream id (drp16's LLC streams; 0 when the trace has none)
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


@nb.njit(cache=True, nogil=True, inline="always")
def _add_bytes(lo, hi, shift, sshift, lines, secs, n):
    """Merge the sectors of bytes ``lo..hi`` (every sector between them touched) into the
    request list ``lines[:n]``/``secs[:n]``, appending new lines; returns the new count."""
    for ln in range(lo >> shift, (hi >> shift) + 1):
        off = ln << shift
        first = max(lo, off) - off
        last = min(hi, off + (1 << shift) - 1) - off
        # Sectors first..last as one mask; without sectors sshift == shift and this is 1.
        smask = (np.int64(2) << (last >> sshift)) - (np.int64(1) << (first >> sshift))
        # Neighbouring lanes mostly share a line: search from the newest line back.
        j = n - 1
        while j >= 0 and lines[j] != ln:
            j -= 1
        if j >= 0:
            secs[j] |= smask
        else:
            lines[n] = ln
            secs[n] = smask
            n += 1
    return n


@nb.njit(cache=True, nogil=True)
def _lines_of(base, sx, sy, dx, lanes, lane_addrs, mask, width, shift, sshift, lines, secs):
    """Distinct lines of one instruction into ``lines``/``secs``; returns their count."""
    n = 0
    if lanes >= 0:
        for lane in range(WARP_SIZE):
            if (mask >> lane) & 1:
                a = np.int64(lane_addrs[lanes, lane])
                n = _add_bytes(a, a + width - 1, shift, sshift, lines, secs, n)
        return n
    # Affine form: segments of dx lanes at stride sx, segment starts sy apart.
    # A fully active segment whose lanes leave no gap of a whole sector (line,
    # without sectors) between them touches every sector from its first byte to
    # its last, in ascending order: it is decoded as one byte range instead of
    # lane by lane. Other segments (partial masks, negative or wide strides) go
    # lane by lane.
    dense = sx == 0 or (sx > 0 and sx - width < (np.int64(1) << sshift))
    seg_base = np.int64(base)
    start = 0
    while start < WARP_SIZE:
        count = min(dx, WARP_SIZE - start)
        seg = ((np.int64(1) << count) - 1) << start
        active = np.int64(mask) & seg
        if active == seg and dense:
            n = _add_bytes(seg_base, seg_base + (count - 1) * sx + width - 1, shift, sshift,
                           lines, secs, n)
        elif active:
            for c in range(count):
                if (active >> (start + c)) & 1:
                    a = seg_base + c * sx
                    n = _add_bytes(a, a + width - 1, shift, sshift, lines, secs, n)
        seg_base += sy
        start += count
    return n


def _core_args(kernel: KernelTrace, line_size: int, sector_size: int) -> tuple:
    """Validate the sizes; the leading arguments of :func:`_count` and :func:`_write`."""
    check_line_size(line_size, sector_size)
    shift = line_size.bit_length() - 1
    sshift = sector_size.bit_length() - 1 if sector_size else shift
    it = kernel.insts
    return (it["base"], it["sx"], it["sy"], it["dx"], it["lanes"], it["mask"], it["width"],
            kernel.lane_addrs, shift, sshift)


@nb.njit(cache=True, nogil=True)
def _scratch(shift):
    # A lane of at most 255 bytes touches at most 255 // line_size + 2 lines.
    lines = np.empty(WARP_SIZE * ((255 >> shift) + 2), np.int64)
    return lines, np.empty_like(lines)


@nb.njit(cache=True, nogil=True)
def _count(base, sx, sy, dx, lanes, mask, width, lane_addrs, shift, sshift, rows):
    """Number of line requests of ``rows``.

    Callers decode twice (count, then :func:`_write`): that is cheaper than
    growing the outputs, and sizes them exactly.
    """
    lines, secs = _scratch(shift)
    total = 0
    for i in range(rows.size):
        r = rows[i]
        total += _lines_of(base[r], np.int64(sx[r]), np.int64(sy[r]), np.int64(dx[r]), lanes[r],
                           lane_addrs, mask[r], np.int64(width[r]), shift, sshift, lines, secs)
    return total


@nb.njit(cache=True, nogil=True)
def _write(base, sx, sy, dx, lanes, mask, width, lane_addrs, shift, sshift, rows,
           out_row, out_line, out_sec):
    """Write the requests of ``rows`` in order into the outputs (sized by :func:`_count`)."""
    lines, secs = _scratch(shift)
    k = 0
    for i in range(rows.size):
        r = rows[i]
        n = _lines_of(base[r], np.int64(sx[r]), np.int64(sy[r]), np.int64(dx[r]), lanes[r],
                      lane_addrs, mask[r], np.int64(width[r]), shift, sshift, lines, secs)
        for j in range(n):
            out_row[k] = r
            out_line[k] = lines[j]
            out_sec[k] = secs[j]
            k += 1


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
    args = _core_args(kernel, line_size, sector_size)
    if rows is None:
        rows = np.flatnonzero(kernel.memory_mask())
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    total = _count(*args, rows)
    out_row = np.empty(total, np.int64)
    out_line = np.empty(total, np.uint64)
    out_sec = np.empty(total, np.uint8)
    _write(*args, rows, out_row, out_line, out_sec)
    return out_row, out_line, out_sec
