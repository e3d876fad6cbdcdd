"""The per-row checks of a trace file's instruction table, compiled.

:func:`golden.trace.io.load_workload` checks every row of every kernel before it trusts a file,
the built-in workloads' cache included. Done with numpy over a structured array the checks cost
about 0.8 us per row (``rdgc/nw``, 17 M rows: 16.9 s to load, 2.7 s with this loop, more than the
RD analysis of the workload before); this loop makes one pass per kernel. It only finds the first
offending row of each check; :mod:`golden.trace.io` words the message.
"""

from __future__ import annotations

import numba as nb
import numpy as np

#: The checks, in the order their errors are reported (the first failing check wins).
CHECKS = ("cta", "warp", "op", "space", "width", "dx", "lanes", "order", "address")
N_CHECKS = len(CHECKS)


@nb.njit(cache=True, nogil=True)
def _first_failures(cta, warp, op, space, width, dx, mask, base, sx, sy, lanes_row, lanes,
                    n_ctas, wpc, ops, spaces, barrier, warp_size, max_address):  # pragma: no cover
    first = np.full(N_CHECKS, -1, np.int64)
    n_table = lanes.shape[0]
    prev = -1
    for r in range(cta.size):
        c, w, o = np.int64(cta[r]), np.int64(warp[r]), op[r]
        if first[0] < 0 and (c < 0 or c >= n_ctas):
            first[0] = r
        if first[1] < 0 and (w < 0 or w >= wpc):
            first[1] = r
        if first[2] < 0 and not ops[o]:
            first[2] = r
        if first[3] < 0 and not spaces[space[r]]:
            first[3] = r
        memory = o != barrier
        if first[4] < 0 and memory and width[r] == 0:
            first[4] = r
        d = np.int64(dx[r])
        dx_ok = 1 <= d <= warp_size
        if first[5] < 0 and not dx_ok:
            first[5] = r
        li = np.int64(lanes_row[r])
        lanes_ok = -1 <= li < n_table
        if first[6] < 0 and not lanes_ok:
            first[6] = r
        gid = c * wpc + w
        if first[7] < 0 and gid < prev:
            first[7] = r
        prev = gid
        # Address range of the active lanes, computed as lane_addresses does (int64): only once
        # the row's other fields are sound, since they say where its lanes are.
        if first[8] >= 0 or not memory or mask[r] == 0 or not dx_ok or not lanes_ok:
            continue
        top = max_address - np.int64(width[r])
        for lane in range(warp_size):
            if (mask[r] >> np.uint32(lane)) & 1:
                if li >= 0:
                    a = np.int64(lanes[li, lane])
                else:
                    a = (np.int64(base[r]) + (lane % d) * np.int64(sx[r])
                         + (lane // d) * np.int64(sy[r]))
                if a < 0 or a > top:
                    first[8] = r
                    break
    return first


def first_failures(insts: np.ndarray, lanes: np.ndarray, n_ctas: int, wpc: int, ops: np.ndarray,
                   spaces: np.ndarray, barrier: int, warp_size: int, max_address: int) -> np.ndarray:
    """The first row failing each check of :data:`CHECKS`, or -1 where none fails.

    Parameters
    ----------
    insts : ndarray
        A kernel's rows (:data:`golden.trace.model.INST_DTYPE`).
    lanes : ndarray
        Its lane table, ``(n, warp_size)`` unsigned 64-bit addresses.
    n_ctas, wpc : int
        CTAs in the grid and warps per CTA.
    ops, spaces : ndarray
        256 booleans each: which ``op`` and ``space`` codes are known.
    barrier : int
        The barrier's ``op`` code (a barrier has no lanes).
    warp_size : int
        Lanes per row.
    max_address : int
        Active lanes' bytes must lie below it.
    """
    return _first_failures(insts["cta"], insts["warp"], insts["op"], insts["space"], insts["width"],
                           insts["dx"], insts["mask"], insts["base"], insts["sx"], insts["sy"],
                           insts["lanes"], lanes, np.int64(n_ctas), np.int64(wpc), ops, spaces,
                           np.uint8(barrier), np.int64(warp_size), np.int64(max_address))
