"""Counts over a kernel trace that do not need a cache: per-thread accesses, footprints."""

from __future__ import annotations

import numba as nb
import numpy as np

from golden.trace.model import WARP_SIZE, KernelTrace, Space, lane_addresses

__all__ = ["thread_access_counts", "touched_lines"]


@nb.njit(cache=True, nogil=True)
def _lane_counts(cta, warp, mask, wpc, counts):
    for i in range(cta.size):
        base = (np.int64(cta[i]) * wpc + warp[i]) * WARP_SIZE
        m = mask[i]
        for lane in range(WARP_SIZE):
            if (m >> lane) & 1:
                counts[base + lane] += 1


def thread_access_counts(kernel: KernelTrace, space: Space = Space.GLOBAL) -> np.ndarray:
    """Memory instructions each thread executes in ``space`` (RDGC's per-thread access count).

    Returns
    -------
    numpy.ndarray
        ``int64[n_ctas * threads_per_cta]``, indexed by ``cta * threads_per_cta + tid``.
    """
    rows = kernel.insts[kernel.memory_mask(space)]
    counts = np.zeros(kernel.n_warps * WARP_SIZE, dtype=np.int64)
    _lane_counts(rows["cta"], rows["warp"], rows["mask"], kernel.warps_per_cta, counts)
    tpc = kernel.threads_per_cta
    slot = (np.arange(kernel.n_ctas)[:, None] * kernel.warps_per_cta * WARP_SIZE
            + np.arange(tpc)[None, :]).ravel()
    return counts[slot]


def touched_lines(kernel: KernelTrace, line_size: int, space: Space = Space.GLOBAL) -> np.ndarray:
    """Sorted distinct line numbers the kernel touches in ``space``."""
    from golden.trace.coalesce import coalesce

    rows = np.flatnonzero(kernel.memory_mask(space))
    if space == Space.GLOBAL:
        _, lines, _ = coalesce(kernel, line_size, rows=rows)
        return np.unique(lines)
    addr = lane_addresses(kernel, rows)
    return np.unique(addr[addr != 0] // line_size)
