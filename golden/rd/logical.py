"""rdgc's logical model (Section 4.1): per-warp coalesced access records in logical order.

Each global memory warp instruction of a kernel becomes one record
``{AN, BID, WID, S, NT, {ADD}}``: its per-warp access number, its CTA, its
warp in the CTA, read or write, its active threads and the line numbers it
coalesces to (the line requests of :func:`golden.trace.coalesce.coalesce`,
in first-touch lane order). Records are ordered by ``AN``, then ``BID``,
then ``WID`` ("accesses to all blocks with the same access numbers can be
executed in parallel", Section 4.1). Nothing about the GPU enters here
except the line size used to coalesce.

Choices: ``AN`` counts a warp's global loads, stores and atomics (barriers,
shared and other spaces are not accesses); atomics are writes (they bypass
the L1 like stores and are performed at the L2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from golden.trace.coalesce import _core_args, _lines_of, _scratch
from golden.trace.model import KernelTrace, Op, Space

__all__ = ["LogicalTrace", "logical_trace", "pack_keys"]


@dataclass(eq=False)
class LogicalTrace:
    """The coalesced warp access records of one kernel, in logical order.

    Parameters
    ----------
    an, bid, wid : numpy.ndarray
        ``int64`` access number (per warp), CTA and warp in the CTA of each record.
    write : numpy.ndarray
        ``bool``: a store or atomic (rdgc's ``S``).
    nt : numpy.ndarray
        ``uint8`` active threads (``NT``).
    ptr : numpy.ndarray
        ``int64[n + 1]``: record ``i``'s lines are ``lines[ptr[i]:ptr[i + 1]]``.
    lines : numpy.ndarray
        ``uint64`` line numbers (``{ADD}`` at line granularity).
    n_ctas, warps_per_cta, threads_per_cta : int
        rdgc's ``NB`` and the CTA shape (``Bdim``).
    max_an : int
        rdgc's ``L``: the largest number of accesses of one warp.
    """

    an: np.ndarray
    bid: np.ndarray
    wid: np.ndarray
    write: np.ndarray
    nt: np.ndarray
    ptr: np.ndarray
    lines: np.ndarray
    n_ctas: int
    warps_per_cta: int
    threads_per_cta: int
    max_an: int

    def __len__(self) -> int:
        return int(self.an.size)

    def record(self, i: int) -> dict:
        """Record ``i`` as rdgc's tuple ``{AN, BID, WID, S, NT, {ADD}}`` (for display and tests)."""
        return {"AN": int(self.an[i]), "BID": int(self.bid[i]), "WID": int(self.wid[i]),
                "S": "W" if self.write[i] else "R", "NT": int(self.nt[i]),
                "ADD": self.lines[self.ptr[i]:self.ptr[i + 1]].tolist()}


def pack_keys(fields: list[np.ndarray], list_fields: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Non-negative integer fields packed into one ``int64`` sort key (most significant first).

    Returns the key and the key of the first ``list_fields`` fields (the key shifted right),
    or ``(None, None)`` when the fields need more than 63 bits.
    """
    bits = [max(1, int(f.max()).bit_length()) if f.size else 1 for f in fields]
    if sum(bits) > 63:
        return None, None
    key = np.zeros(fields[0].size, np.int64)
    for f, b in zip(fields, bits, strict=True):
        key <<= b
        key |= f
    return key, key >> sum(bits[list_fields:])


@nb.njit(cache=True, nogil=True)
def _record_lines(base, sx, sy, dx, lanes, mask, width, lane_addrs, shift, sshift, rows, ptr, out):
    """The coalescer's lines of ``rows``, in order: with ``out`` empty, their counts into ``ptr[1:]``;
    else the lines into ``out[ptr[i]:ptr[i + 1]]``. No per-request row or sector arrays."""
    lines, secs = _scratch(shift)
    for i in range(rows.size):
        r = rows[i]
        n = _lines_of(base[r], np.int64(sx[r]), np.int64(sy[r]), np.int64(dx[r]), lanes[r],
                      lane_addrs, mask[r], np.int64(width[r]), shift, sshift, lines, secs)
        if out.size == 0:
            ptr[i + 1] = n
        else:
            a = ptr[i]
            for j in range(n):
                out[a + j] = lines[j]


def logical_trace(kernel: KernelTrace, line_size: int) -> LogicalTrace:
    """The logical model of one kernel.

    Parameters
    ----------
    kernel : KernelTrace
        The launch.
    line_size : int
        Cache line (block) size in bytes used to coalesce.

    Returns
    -------
    LogicalTrace
    """
    it = kernel.insts
    rows = np.flatnonzero(kernel.memory_mask(Space.GLOBAL))
    wpc = kernel.warps_per_cta
    gw = it["cta"][rows].astype(np.int64) * wpc + it["warp"][rows]
    # Rows are stored by warp and program order: AN is the index within the warp's run.
    starts = np.flatnonzero(np.r_[True, gw[1:] != gw[:-1]]) if rows.size else np.zeros(0, np.int64)
    run_start = np.repeat(starts, np.diff(np.r_[starts, rows.size]))
    an = np.arange(rows.size, dtype=np.int64) - run_start
    bid = it["cta"][rows].astype(np.int64)
    wid = it["warp"][rows].astype(np.int64)
    key, _ = pack_keys([an, bid, wid], 3)
    order = np.argsort(key, kind="stable") if key is not None else np.lexsort((wid, bid, an))
    rows, an, bid, wid = rows[order], an[order], bid[order], wid[order]
    # The coalescer's line requests of every record (golden.trace.coalesce), counted, then written.
    args = _core_args(kernel, line_size, 0)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    ptr = np.zeros(rows.size + 1, np.int64)
    _record_lines(*args, rows, ptr, np.zeros(0, np.uint64))
    np.cumsum(ptr, out=ptr)
    lines = np.empty(int(ptr[-1]), np.uint64)
    if lines.size:
        _record_lines(*args, rows, ptr, lines)
    op = it["op"][rows]
    mask = it["mask"][rows]
    # Population count of the 32-bit masks (SWAR).
    v = mask.astype(np.uint32)
    v = v - ((v >> np.uint32(1)) & np.uint32(0x55555555))
    v = (v & np.uint32(0x33333333)) + ((v >> np.uint32(2)) & np.uint32(0x33333333))
    v = (v + (v >> np.uint32(4))) & np.uint32(0x0F0F0F0F)
    nt = ((v * np.uint32(0x01010101)) >> np.uint32(24)).astype(np.uint8)
    return LogicalTrace(an=an, bid=bid, wid=wid, write=(op == Op.STORE) | (op == Op.ATOMIC), nt=nt,
                        ptr=ptr, lines=lines, n_ctas=kernel.n_ctas, warps_per_cta=wpc,
                        threads_per_cta=kernel.threads_per_cta,
                        max_an=int(an.max()) + 1 if an.size else 0)
