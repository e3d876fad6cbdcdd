"""Vectorised construction of a :class:`~golden.trace.model.KernelTrace`.

Kernel emulators describe a kernel the way its CUDA source reads: every
thread of the launch at once, one statement at a time. Each call appends
one instruction for every warp that has at least one active thread::

    kb = KernelBuilder("matrixMul", grid=(32, 32, 1), block=(16, 16, 1))
    row = kb.by * 16 + kb.ty
    col = kb.bx * 16 + kb.tx
    for k in range(n):
        kb.load(0x100, a_base + (row * n + k) * 4)
        kb.load(0x108, b_base + (k * n + col) * 4)
        kb.compute(2)
    kb.store(0x110, c_base + (row * n + col) * 4)
    trace = kb.build()

Threads are numbered CTA by CTA; within a CTA ``tid = tx + ty*bx + tz*bx*by``
and warp ``w`` holds threads ``32w .. 32w+31`` (CUDA's rule). A warp none of
whose threads is active does not issue the instruction: this is how
data-dependent loops and branches are written (loop to the longest trip
count with ``active = j < count``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from golden.trace.model import INST_DTYPE, WARP_SIZE, KernelTrace, Op, Space

__all__ = ["KernelBuilder", "affine_dx2", "encode_lanes", "fit_affine"]

_LANE = np.arange(WARP_SIZE, dtype=np.int64)



def affine_dx2(block_x: int) -> int:
    """Lanes per row of the 2-D affine form for CTAs ``block_x`` threads wide (0: 1-D only).

    A 2-D row is tried only when a warp covers whole rows of the block.
    """
    return block_x if block_x < WARP_SIZE and WARP_SIZE % block_x == 0 else 0


def encode_lanes(rows: np.ndarray, lanes: np.ndarray, masks: np.ndarray, dx2: int,
                 first_explicit: int) -> np.ndarray:
    """Fill the address fields of ``rows`` from per-lane addresses.

    Rows whose active lanes fit the affine form get ``base``/``sx``/``sy``/``dx``;
    the others get ``lanes = first_explicit, first_explicit + 1, ...`` and their
    addresses are returned, in order, for the kernel's ``lane_addrs``.

    Parameters
    ----------
    rows : numpy.ndarray
        INST_DTYPE rows, modified in place.
    lanes : numpy.ndarray
        ``int64[k, 32]`` byte address of every lane (inactive lanes: any value).
    masks : numpy.ndarray
        ``uint32[k]`` active-lane masks.
    dx2 : int
        See :func:`affine_dx2`.
    first_explicit : int
        Index of the next free row of the kernel's ``lane_addrs``.

    Returns
    -------
    numpy.ndarray
        ``uint64[m, 32]`` explicit lane addresses (inactive lanes 0).
    """
    base, sx, sy, dx, fits = fit_affine(lanes, masks, dx2)
    rows["base"] = base
    rows["sx"] = sx
    rows["sy"] = sy
    rows["dx"] = dx
    rows["lanes"] = -1
    bad = np.flatnonzero(~fits)
    if not bad.size:
        return np.zeros((0, WARP_SIZE), np.uint64)
    active = ((masks[bad, None] >> _LANE.astype(np.uint32)[None, :]) & 1).astype(bool)
    rows["lanes"][bad] = np.arange(first_explicit, first_explicit + bad.size)
    rows["base"][bad] = 0
    rows["dx"][bad] = WARP_SIZE
    return np.where(active, lanes[bad], 0).astype(np.uint64)


class KernelBuilder:
    """Build one kernel launch from whole-grid thread arrays.

    Parameters
    ----------
    name : str
        Kernel name.
    grid : tuple of int
        Grid dimensions ``(x, y, z)``; shorter tuples are padded with 1.
    block : tuple of int
        CTA dimensions ``(x, y, z)``; shorter tuples are padded with 1.
    shared_bytes : int
        Shared memory per CTA, for occupancy.
    regs_per_thread : int
        Registers per thread, for occupancy (0 when unknown).

    Members
    -------
    tx, ty, tz, bx, by, bz : numpy.ndarray
        ``int64[n_threads]``: threadIdx and blockIdx of every thread.
    tid : numpy.ndarray
        Linear thread index within its CTA.
    gtid : numpy.ndarray
        Linear thread index in the launch (``cta * threads_per_cta + tid``).
    n_threads : int
        Threads in the launch.

    Raises
    ------
    ValueError
        If a dimension is not a positive integer.
    """

    def __init__(
        self,
        name: str,
        grid: tuple[int, ...],
        block: tuple[int, ...],
        *,
        shared_bytes: int = 0,
        regs_per_thread: int = 0,
    ) -> None:
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        for label, dims in (("Grid", grid), ("Block", block)):
            if len(dims) != 3 or any(int(d) != d or d < 1 for d in dims):
                raise ValueError(f"{label} dimensions must be 1 to 3 positive integers, not {dims}")
        self.name = name
        self.grid = tuple(int(d) for d in grid)
        self.block = tuple(int(d) for d in block)
        self.shared_bytes = int(shared_bytes)
        self.regs_per_thread = int(regs_per_thread)

        gx, gy, _ = self.grid
        bx, by, _ = self.block
        n_ctas = self.grid[0] * self.grid[1] * self.grid[2]
        tpc = bx * by * self.block[2]
        self._tpc = tpc
        self._wpc = -(-tpc // WARP_SIZE)
        self._n_warps = n_ctas * self._wpc
        self.n_threads = n_ctas * tpc

        cta = np.repeat(np.arange(n_ctas, dtype=np.int64), tpc)
        tid = np.tile(np.arange(tpc, dtype=np.int64), n_ctas)
        self.tid = tid
        self.gtid = cta * tpc + tid
        self.tx, self.ty, self.tz = tid % bx, (tid // bx) % by, tid // (bx * by)
        self.bx, self.by, self.bz = cta % gx, (cta // gx) % gy, cta // (gx * gy)
        # Slot of each thread in a padded [n_warps, 32] array.
        self._slot = (cta * self._wpc + tid // WARP_SIZE) * WARP_SIZE + tid % WARP_SIZE
        self._dense = tpc % WARP_SIZE == 0
        self._dx2 = affine_dx2(bx)
        self._warp_cta = np.repeat(np.arange(n_ctas, dtype=np.int32), self._wpc)
        self._warp_idx = np.tile(np.arange(self._wpc, dtype=np.int32), n_ctas)
        self._gap = np.zeros(self._n_warps, dtype=np.uint32)
        self._full_mask = self._warp_masks(None)
        self._chunks: list[np.ndarray] = []
        self._warps: list[np.ndarray] = []
        self._explicit: list[np.ndarray] = []
        self._n_explicit = 0

    # -- per-warp helpers ---------------------------------------------------

    def _padded(self, values: np.ndarray) -> np.ndarray:
        """``[..., n_threads]`` -> ``[..., n_warps, 32]``, missing lanes of partial warps 0."""
        lead = values.shape[:-1]
        if self._dense:
            return values.reshape(*lead, self._n_warps, WARP_SIZE)
        out = np.zeros((*lead, self._n_warps * WARP_SIZE), dtype=values.dtype)
        out[..., self._slot] = values
        return out.reshape(*lead, self._n_warps, WARP_SIZE)

    def _warp_masks(self, active: np.ndarray | None) -> np.ndarray:
        """Active-lane masks ``[..., n_warps]`` from per-thread flags ``[..., n_threads]``."""
        if active is None:
            active = np.ones(self.n_threads, dtype=bool)
        else:
            active = np.asarray(active, dtype=bool)
            if active.ndim == 0:
                active = np.broadcast_to(active, (self.n_threads,))
        bits = self._padded(active.astype(np.uint32)) << _LANE.astype(np.uint32)
        return np.bitwise_or.reduce(bits, axis=-1).astype(np.uint32)

    def _take_gap(self, warps: np.ndarray) -> np.ndarray:
        gap = self._gap[warps].copy()
        self._gap[warps] = 0
        return gap

    def _append(self, warps: np.ndarray, rows: np.ndarray) -> None:
        self._chunks.append(rows)
        self._warps.append(warps)

    # -- the kernel's statements ----------------------------------------------

    def compute(self, n: int = 1, active: np.ndarray | None = None) -> None:
        """Issue ``n`` compute instructions in every warp with an active thread."""
        if n <= 0:
            return
        if active is None:
            self._gap += np.uint32(n)
        else:
            self._gap[self._warp_masks(active) != 0] += np.uint32(n)

    def barrier(self) -> None:
        """``__syncthreads()``: a barrier row in every warp of every CTA."""
        warps = np.arange(self._n_warps, dtype=np.int64)
        rows = np.zeros(self._n_warps, dtype=INST_DTYPE)
        rows["cta"] = self._warp_cta
        rows["warp"] = self._warp_idx
        rows["op"] = Op.BARRIER
        rows["space"] = Space.NONE
        rows["dx"] = WARP_SIZE
        rows["mask"] = self._full_mask
        rows["gap"] = self._take_gap(warps)
        rows["lanes"] = -1
        self._append(warps, rows)

    def load(self, pc: int, addr, *, active=None, width: int = 4, space: Space = Space.GLOBAL) -> None:
        """A load of ``width`` bytes per thread from byte address ``addr``."""
        self.access(Op.LOAD, pc, addr, active=active, width=width, space=space)

    def store(self, pc: int, addr, *, active=None, width: int = 4, space: Space = Space.GLOBAL) -> None:
        """A store of ``width`` bytes per thread to byte address ``addr``."""
        self.access(Op.STORE, pc, addr, active=active, width=width, space=space)

    def atomic(self, pc: int, addr, *, active=None, width: int = 4, space: Space = Space.GLOBAL) -> None:
        """An atomic read-modify-write of ``width`` bytes per thread."""
        self.access(Op.ATOMIC, pc, addr, active=active, width=width, space=space)

    def access(self, op: Op, pc: int, addr, *, active=None, width: int = 4,
               space: Space = Space.GLOBAL) -> None:
        """Append one memory instruction for every warp with an active thread.

        Parameters
        ----------
        op : Op
            LOAD, STORE or ATOMIC.
        pc : int
            Byte PC of the instruction.
        addr : int or array of int
            Byte address per thread (broadcast to all threads).
        active : bool or array of bool, optional
            Which threads execute the instruction (all when None).
        width : int
            Bytes per thread (1 to 255).
        space : Space
            Memory space of ``addr``.
        """
        addr = np.asarray(addr, dtype=np.int64)
        active = None if active is None else np.asarray(active, dtype=bool)[None, ...]
        self.sequence(op, pc, addr[None, ...], active=active, widths=width, space=space)

    def sequence(self, ops, pcs, addrs, *, active=None, widths=4, gaps=0,
                 space=Space.GLOBAL) -> None:
        """Append ``k`` memory instructions in program order with one call.

        The batched form of :meth:`access` for loops: row ``i`` of ``addrs``
        is the ``i``-th instruction every thread executes. Chunk long loops
        (``k * n_threads`` addresses are held at once).

        Parameters
        ----------
        ops, pcs, widths : int or array of int
            Operation, PC and bytes per thread of each instruction (scalar or length ``k``).
        addrs : array of int
            ``[k, n_threads]`` byte addresses (``[k, 1]`` broadcasts over threads).
        active : array of bool, optional
            ``[k, n_threads]`` (or ``[k, 1]``) active threads; all when None.
        gaps : int or array of int
            Compute instructions issued before each instruction, by the warps that
            execute it (a warp with no active thread skips the instruction and its compute,
            as it skips a loop trip or a branch).
        space : Space or array of Space
            Memory space of each instruction.
        """
        addrs = np.asarray(addrs, dtype=np.int64)
        if addrs.ndim != 2:
            raise ValueError(f"Addresses must be a [k, n_threads] array, not shape {addrs.shape}")
        k = addrs.shape[0]
        vec = {name: np.broadcast_to(np.asarray(v), (k,)) for name, v in
               (("op", ops), ("pc", pcs), ("width", widths), ("gap", gaps), ("space", space))}
        if np.any((vec["width"] < 1) | (vec["width"] > 255)):
            raise ValueError(f"Access width must be 1 to 255 bytes, not {vec['width'].tolist()}")
        if active is None:
            masks = np.broadcast_to(self._full_mask, (k, self._n_warps))
        else:
            act = np.asarray(active, dtype=bool)
            if act.ndim == 2 and act.shape[0] == 1:  # one mask for every instruction: compute it once
                masks = np.broadcast_to(self._warp_masks(np.broadcast_to(act[0], (self.n_threads,))),
                                        (k, self._n_warps))
            else:
                masks = self._warp_masks(np.broadcast_to(act, (k, self.n_threads)))
        entry, warps = np.nonzero(masks)
        if warps.size == 0:
            self._gap += np.uint32(vec["gap"].sum())
            return
        addrs = np.broadcast_to(addrs, (k, self.n_threads))
        lanes = self._padded(addrs)[entry, warps]
        masks = masks[entry, warps]

        rows = np.zeros(warps.size, dtype=INST_DTYPE)
        rows["cta"] = self._warp_cta[warps]
        rows["warp"] = self._warp_idx[warps]
        rows["pc"] = vec["pc"][entry]
        rows["op"] = vec["op"][entry]
        rows["space"] = vec["space"][entry]
        rows["width"] = vec["width"][entry]
        rows["mask"] = masks
        rows["gap"] = self._sequence_gaps(entry, warps, vec["gap"].astype(np.int64))

        explicit = encode_lanes(rows, lanes, masks, self._dx2, self._n_explicit)
        if len(explicit):
            self._explicit.append(explicit)
            self._n_explicit += len(explicit)
        self._append(warps, rows)

    def _sequence_gaps(self, entry: np.ndarray, warps: np.ndarray, gaps: np.ndarray) -> np.ndarray:
        """Gap of each (entry, warp) row: the entry's own compute, plus what was pending for the
        warp on its first row of the batch."""
        gap = gaps[entry].astype(np.int64)
        # Rows come entry by entry, so a warp's first row is its first occurrence.
        w_first, first = np.unique(warps, return_index=True)
        gap[first] += self._gap[w_first]
        self._gap[w_first] = 0
        return gap.astype(np.uint32)

    def build(self) -> KernelTrace:
        """Finish the kernel: rows in warp and program order, tails from pending compute."""
        if self._chunks:
            rows = np.concatenate(self._chunks)
            warps = np.concatenate(self._warps)
            order = _stable_order(warps, self._n_warps)
            if np.any(order[1:] < order[:-1]):
                # Gathering whole records through a byte view is several times faster
                # than numpy's structured-array gather.
                raw = rows.view(np.uint8).reshape(len(rows), INST_DTYPE.itemsize)
                rows = np.take(raw, order, axis=0).view(INST_DTYPE).ravel()
        else:
            rows = np.zeros(0, dtype=INST_DTYPE)
        explicit = (
            np.concatenate(self._explicit) if self._explicit else np.zeros((0, WARP_SIZE), np.uint64)
        )
        return KernelTrace(
            name=self.name,
            grid=self.grid,
            block=self.block,
            insts=rows,
            lane_addrs=explicit,
            tail=self._gap.copy(),
            shared_bytes=self.shared_bytes,
            regs_per_thread=self.regs_per_thread,
        )


_I32_LO, _I32_HI = -(1 << 31), (1 << 31) - 1


@nb.njit(cache=True, nogil=True)
def _fit_row(row, mask, dx):
    """Fit ``base + (l % dx)*sx + (l // dx)*sy`` to the active lanes of one row.

    The strides come from active lanes only (inactive lanes carry any value):
    ``sx`` from the first two active lanes of one group of ``dx`` lanes,
    ``sy`` from the first active lane outside the first active lane's group.
    Returns ``(fits, base, sx, sy)``.
    """
    a = -1
    for lane in range(WARP_SIZE):
        if (mask >> lane) & 1:
            a = lane
            break
    if a < 0:
        return True, 0, 0, 0
    sx = 0
    done = False
    for g in range(0, WARP_SIZE, dx):
        first = -1
        for lane in range(g, g + dx):
            if (mask >> lane) & 1:
                if first < 0:
                    first = lane
                else:
                    d = row[lane] - row[first]
                    if d % (lane - first):
                        return False, 0, 0, 0
                    sx = d // (lane - first)
                    done = True
                    break
        if done:
            break
    sy = 0
    for lane in range(WARP_SIZE):
        if (mask >> lane) & 1 and lane // dx != a // dx:
            d = row[lane] - row[a] - ((lane % dx) - (a % dx)) * sx
            n = lane // dx - a // dx
            if d % n:
                return False, 0, 0, 0
            sy = d // n
            break
    base = row[a] - (a % dx) * sx - (a // dx) * sy
    if base < 0 or not (_I32_LO <= sx <= _I32_HI and _I32_LO <= sy <= _I32_HI):
        return False, 0, 0, 0
    for lane in range(WARP_SIZE):
        if (mask >> lane) & 1 and row[lane] != base + (lane % dx) * sx + (lane // dx) * sy:
            return False, 0, 0, 0
    return True, base, sx, sy


@nb.njit(cache=True, nogil=True)
def fit_affine(lanes, masks, dx2):
    """Per row: (base, sx, sy, dx, fits) of the affine lane form, zeros where it does not fit.

    Tries one group of 32 lanes (a 1-D stride), then groups of ``dx2`` lanes
    (the CTA's row width, if it divides the warp), then 16, 8, 4 and 2.
    """
    k = lanes.shape[0]
    base = np.zeros(k, np.uint64)
    sx = np.zeros(k, np.int32)
    sy = np.zeros(k, np.int32)
    dx = np.full(k, WARP_SIZE, np.uint8)
    fits = np.zeros(k, np.bool_)
    cands = np.array([WARP_SIZE, dx2, 16, 8, 4, 2], np.int64)
    for i in range(k):
        for j in range(cands.size):
            d = cands[j]
            if d == 0 or (j > 1 and d == dx2):
                continue
            ok, b, x, y = _fit_row(lanes[i], masks[i], d)
            if ok:
                base[i], sx[i], sy[i], dx[i], fits[i] = b, x, y, d, True
                break
    return base, sx, sy, dx, fits


@nb.njit(cache=True, nogil=True)
def _stable_order(warps, n_warps):
    """Permutation that sorts rows by warp, keeping program order within a warp (counting sort)."""
    start = np.zeros(n_warps + 1, np.int64)
    for w in warps:
        start[w + 1] += 1
    for w in range(n_warps):
        start[w + 1] += start[w]
    order = np.empty(warps.size, np.int64)
    for i in range(warps.size):
        w = warps[i]
        order[start[w]] = i
        start[w] += 1
    return order
