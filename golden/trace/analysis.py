"""Counts over a kernel trace that do not need a cache: per-thread accesses, footprints."""

from __future__ import annotations

import numpy as np

from golden.trace.model import WARP_SIZE, KernelTrace, Space, lane_addresses

__all__ = ["thread_access_counts", "touched_lines"]


def thread_access_counts(kernel: KernelTrace, space: Space = Space.GLOBAL) -> np.ndarray:
    """Memory instructions each thread executes in ``space`` (RDGC's per-thread access count).

    Returns
    -------
    numpy.ndarray
        ``int64[n_ctas * threads_per_cta]``, indexed by ``cta * threads_per_cta + tid``.
    """
    rows = kernel.insts[kernel.memory_mask(space)]
    lane = np.arange(WARP_SIZE, dtype=np.uint32)
    counts = np.zeros(kernel.n_warps * WARP_SIZE, dtype=np.int64)
    gid = rows["cta"].astype(np.int64) * kernel.warps_per_cta + rows["warp"]
    # Whole warps share a mask value often: count mask occurrences per warp first.
    key, n = np.unique(np.stack([gid, rows["mask"].astype(np.int64)]), axis=1, return_counts=True)
    bits = ((key[1][:, None].astype(np.uint32) >> lane[None, :]) & 1).astype(np.int64)
    np.add.at(counts.reshape(-1, WARP_SIZE), key[0], bits * n[:, None])
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
