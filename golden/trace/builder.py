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

from functools import cached_property

import numba as nb
import numpy as np

from golden.trace.model import INST_DTYPE, WARP_SIZE, KernelTrace, Op, Space

__all__ = ["KernelBuilder", "LaneBuffer", "affine_dx2", "encode_lanes", "fit_affine"]


def affine_dx2(block_x: int) -> int:
    """Lanes per row of the 2-D affine form for CTAs ``block_x`` threads wide (0: 1-D only).

    A 2-D row is tried only when a warp covers whole rows of the block.
    """
    return block_x if block_x < WARP_SIZE and WARP_SIZE % block_x == 0 else 0


def encode_lanes(rows: np.ndarray, lanes: np.ndarray, masks: np.ndarray, dx2: int,
                 first_explicit: int, buffer: LaneBuffer | None = None) -> np.ndarray | None:
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
    buffer : LaneBuffer, optional
        Append the explicit rows to this buffer (whose length must be
        ``first_explicit``) instead of a new array.

    Returns
    -------
    numpy.ndarray or None
        ``uint64[m, 32]`` explicit lane addresses (inactive lanes 0); None with ``buffer``.
    """
    base, sx, sy, dx, fits = fit_affine(lanes, masks, dx2)
    rows["base"] = base
    rows["sx"] = sx
    rows["sy"] = sy
    rows["dx"] = dx
    rows["lanes"] = -1
    n_bad = fits.size - int(np.count_nonzero(fits))
    if n_bad:
        rows["lanes"][~fits] = np.arange(first_explicit, first_explicit + n_bad)
    if buffer is None:
        out = np.empty((n_bad, WARP_SIZE), np.uint64)
        _write_explicit(lanes, masks, fits, out, 0)
        return out
    if len(buffer) != first_explicit:
        raise ValueError(f"first_explicit: the buffer holds {len(buffer)} rows, not {first_explicit}")
    buffer.append(n_bad, lambda out, start: _write_explicit(lanes, masks, fits, out, start))
    return None


class LaneBuffer:
    """A kernel's explicit lane rows (``uint64[n, 32]``), appended in place.

    Appending grows one array with ``ndarray.resize`` (``realloc``, which moves
    no data for large blocks on Linux) instead of concatenating the chunks at
    the end: for traces of millions of explicit rows (256 bytes each) the copy
    and its page faults cost more than building the rows.
    """

    def __init__(self) -> None:
        self._a = np.empty((0, WARP_SIZE), np.uint64)
        self._n = 0
        self._taken = False  # self._a was handed out by take(): never resize it again

    def __len__(self) -> int:
        return self._n

    def append(self, n: int, fill) -> None:
        """Add ``n`` rows written by ``fill(array, start)`` (which may keep no view of it)."""
        need = self._n + n
        if self._taken:
            self._a = self._a[:self._n].copy()
            self._taken = False
        if need > len(self._a):
            # Growth by a quarter keeps the zero-filled slack (resize fills it) small.
            self._a.resize((max(need, len(self._a) + len(self._a) // 4, 1024), WARP_SIZE),
                           refcheck=False)
        fill(self._a, self._n)
        self._n = need

    def take(self) -> np.ndarray:
        """The rows as one array: the buffer itself the first time, a copy afterwards."""
        if self._taken:
            return self._a[:self._n].copy()
        self._a.resize((self._n, WARP_SIZE), refcheck=False)  # no view of it was handed out
        self._taken = True
        return self._a


class _PerThread:
    """A read-only ``int64[n_threads]`` member of :class:`KernelBuilder`, built on first use.

    A launch of millions of threads would spend about a second building every
    index array up front, and most kernels read a few. ``of(kb, i)`` gives the
    value for every thread-in-CTA ``i`` (``per="tid"``) or every CTA ``i``
    (``per="cta"``); the launch's array repeats it, built by broadcasting
    (many times faster than ``np.tile``), and is kept in the builder.
    """

    def __init__(self, per: str, of) -> None:
        self._per = per
        self._of = of

    def __set_name__(self, owner, name: str) -> None:
        self._name = name

    def __get__(self, kb, owner=None):
        if kb is None:
            return self
        values = kb.__dict__.get(self._name)
        if values is None:
            by_tid = self._per == "tid"
            i = np.arange(kb._tpc if by_tid else kb._n_ctas, dtype=np.int64)
            v = np.asarray(self._of(kb, i), dtype=np.int64)
            values = np.broadcast_to(v if by_tid else v[:, None], (kb._n_ctas, kb._tpc)).reshape(-1)
            values.flags.writeable = False
            kb.__dict__[self._name] = values
        return values


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

    The per-thread arrays are read-only and built on first use (each costs
    ``8 * n_threads`` bytes and, on a grid of millions of threads, tens of ms).

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

        n_ctas = self.grid[0] * self.grid[1] * self.grid[2]
        tpc = self.block[0] * self.block[1] * self.block[2]
        self._n_ctas = n_ctas
        self._tpc = tpc
        self._wpc = -(-tpc // WARP_SIZE)
        self._n_warps = n_ctas * self._wpc
        self.n_threads = n_ctas * tpc
        self._dense = tpc % WARP_SIZE == 0
        self._dx2 = affine_dx2(self.block[0])
        self._gap = np.zeros(self._n_warps, dtype=np.uint32)
        self._chunks: list[np.ndarray] = []
        self._warps: list[np.ndarray] = []
        self._explicit = LaneBuffer()

    # -- per-thread indices, computed on first use (see _PerThread) -------------------

    tid = _PerThread("tid", lambda kb, t: t)
    tx = _PerThread("tid", lambda kb, t: t % kb.block[0])
    ty = _PerThread("tid", lambda kb, t: t // kb.block[0] % kb.block[1])
    tz = _PerThread("tid", lambda kb, t: t // (kb.block[0] * kb.block[1]))
    bx = _PerThread("cta", lambda kb, c: c % kb.grid[0])
    by = _PerThread("cta", lambda kb, c: c // kb.grid[0] % kb.grid[1])
    bz = _PerThread("cta", lambda kb, c: c // (kb.grid[0] * kb.grid[1]))

    @cached_property
    def gtid(self) -> np.ndarray:
        """Linear thread index in the launch (``cta * threads_per_cta + tid``)."""
        out = np.arange(self.n_threads, dtype=np.int64)
        out.flags.writeable = False
        return out

    @cached_property
    def _slot(self) -> np.ndarray:
        """Slot of each thread in a padded ``[n_warps, 32]`` array."""
        first = np.arange(self._n_ctas, dtype=np.int64) * (self._wpc * WARP_SIZE)
        out = (first[:, None] + np.arange(self._tpc, dtype=np.int64)[None, :]).reshape(-1)
        out.flags.writeable = False
        return out

    @cached_property
    def _warp_cta(self) -> np.ndarray:
        """CTA of every warp of the launch."""
        return np.repeat(np.arange(self._n_ctas, dtype=np.int32), self._wpc)

    @cached_property
    def _warp_idx(self) -> np.ndarray:
        """Index of every warp within its CTA."""
        return np.tile(np.arange(self._wpc, dtype=np.int32), self._n_ctas)

    @cached_property
    def _full_mask(self) -> np.ndarray:
        """Mask of the lanes every warp has (a CTA's last warp may be partial)."""
        lanes = np.minimum(WARP_SIZE, self._tpc - WARP_SIZE * np.arange(self._wpc))
        per_cta = (np.left_shift(np.uint64(1), lanes.astype(np.uint64)) - np.uint64(1))
        return np.tile(per_cta.astype(np.uint32), self._n_ctas)

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
        # Lane l is bit l: pack each warp's 32 flags into 4 bytes, little-endian.
        packed = np.packbits(self._padded(active), axis=-1, bitorder="little")
        return packed.view("<u4")[..., 0].astype(np.uint32)

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

    def sequence(self, ops, pcs, addrs, *, active=None, widths=4, gaps=0, after=0,
                 space=Space.GLOBAL, threads=None) -> None:
        """Append ``k`` memory instructions in program order with one call.

        The batched form of :meth:`access` for loops: row ``i`` of ``addrs``
        is the ``i``-th instruction every thread executes. Chunk long loops
        (``k * n_threads`` addresses are held at once).

        Parameters
        ----------
        ops, pcs, widths : int or array of int
            Operation, PC and bytes per thread of each instruction (scalar or length ``k``).
        addrs : array of int
            ``[k, n_threads]`` byte addresses (``[k, 1]`` broadcasts over threads);
            ``[k, m]`` with ``threads``.
        active : array of bool, optional
            ``[k, n_threads]`` (or ``[k, 1]``) active threads, ``[k, m]`` with
            ``threads``; all (listed) threads when None.
        gaps : int or array of int
            Compute instructions issued before each instruction, by the warps that
            execute it (a warp with no active thread skips the instruction and its compute,
            as it skips a loop trip or a branch).
        after : int or array of int
            Compute instructions issued right after each instruction, by the warps
            that execute it (a test of the loaded value); they count towards the warp's
            next instruction or its tail, whichever instruction that is.
        space : Space or array of Space
            Memory space of each instruction.
        threads : array of int, optional
            ``int64[m]``: ascending linear thread indices (:attr:`gtid`) of the only
            threads that may execute the instructions; ``addrs`` and ``active`` then
            hold their columns only. The cost grows with ``m`` instead of the grid,
            for work that reaches a small part of a large launch (a BFS frontier).

        Raises
        ------
        ValueError
            If ``addrs`` is not 2-D, a width is outside 1 to 255, or ``threads`` is not
            ascending within the launch.
        """
        addrs = np.asarray(addrs, dtype=np.int64)
        if addrs.ndim != 2:
            raise ValueError(f"Addresses must be a [k, n_threads] array, not shape {addrs.shape}")
        k = addrs.shape[0]
        vec = {name: np.broadcast_to(np.asarray(v), (k,)) for name, v in
               (("op", ops), ("pc", pcs), ("width", widths), ("gap", gaps), ("after", after),
                ("space", space))}
        if np.any((vec["width"] < 1) | (vec["width"] > 255)):
            raise ValueError(f"Access width must be 1 to 255 bytes, not {vec['width'].tolist()}")
        if threads is None:
            entry, warps, masks, lanes = self._grid_rows(addrs, active)
        else:
            entry, warps, masks, lanes = self._listed_rows(threads, addrs, active)
        if warps.size == 0:
            return

        rows = np.zeros(warps.size, dtype=INST_DTYPE)
        rows["cta"] = self._warp_cta[warps]
        rows["warp"] = self._warp_idx[warps]
        rows["pc"] = vec["pc"][entry]
        rows["op"] = vec["op"][entry]
        rows["space"] = vec["space"][entry]
        rows["width"] = vec["width"][entry]
        rows["mask"] = masks
        rows["gap"] = self._sequence_gaps(entry, warps, vec["gap"].astype(np.int64),
                                          vec["after"].astype(np.int64))

        encode_lanes(rows, lanes, masks, self._dx2, len(self._explicit), self._explicit)
        self._append(warps, rows)

    def _grid_rows(self, addrs: np.ndarray, active) -> tuple[np.ndarray, ...]:
        """``(entry, warp, mask, lanes)`` of the rows of ``k`` whole-grid instructions."""
        k = addrs.shape[0]
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
            return entry, warps, np.zeros(0, np.uint32), np.zeros((0, WARP_SIZE), np.int64)
        lanes = self._padded(np.broadcast_to(addrs, (k, self.n_threads)))[entry, warps]
        return entry, warps, masks[entry, warps], lanes

    def _listed_rows(self, threads, addrs: np.ndarray, active) -> tuple[np.ndarray, ...]:
        """``(entry, warp, mask, lanes)`` of the rows of ``k`` instructions of listed threads."""
        threads = np.asarray(threads, dtype=np.int64)
        if threads.ndim != 1 or (threads.size and (threads[0] < 0 or threads[-1] >= self.n_threads
                                                    or np.any(np.diff(threads) <= 0))):
            raise ValueError("threads: must be ascending thread indices of the launch, "
                             f"not {threads[:8].tolist()}...")
        k, m = addrs.shape[0], threads.size
        addrs = np.ascontiguousarray(np.broadcast_to(addrs, (k, m)))
        act = (np.ones((k, m), dtype=np.bool_) if active is None
               else np.ascontiguousarray(np.broadcast_to(np.asarray(active, dtype=bool), (k, m))))
        cta, tid = np.divmod(threads, self._tpc)
        return _listed_rows(cta * self._wpc + tid // WARP_SIZE, tid % WARP_SIZE, addrs, act)

    def _sequence_gaps(self, entry: np.ndarray, warps: np.ndarray, gaps: np.ndarray,
                       after: np.ndarray) -> np.ndarray:
        """Gap of each (entry, warp) row.

        A row's gap is its entry's ``gaps`` plus what the warp had pending before it:
        for its first row of the batch, the builder's pending compute; for later rows,
        the ``after`` of the warp's previous row. The ``after`` of a warp's last row
        becomes its pending compute.
        """
        gap = gaps[entry].astype(np.int64)
        if not after.any():
            # Rows come entry by entry, so a warp's first row is its first occurrence.
            w_first, first = np.unique(warps, return_index=True)
            gap[first] += self._gap[w_first]
            self._gap[w_first] = 0
            return gap.astype(np.uint32)
        order = np.argsort(warps, kind="stable")  # warp by warp, program order within
        w = warps[order]
        post = after[entry[order]]
        first = np.ones(w.size, dtype=bool)
        first[1:] = w[1:] != w[:-1]
        last = np.ones(w.size, dtype=bool)
        last[:-1] = first[1:]
        carried = np.empty(w.size, dtype=np.int64)
        carried[1:] = post[:-1]
        carried[first] = self._gap[w[first]]
        gap[order] += carried
        self._gap[w[last]] = post[last]
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
            self._explicit.take()
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
def _pairs_differ(row, mask):
    """Whether two active lane pairs ``(2i, 2i + 1)`` have different address steps.

    In a form with groups of an even number of lanes both lanes of a pair are in one
    group and step by ``sx``, so a row this finds fits none of them (a quick rejection
    of the explicit rows, which would otherwise fail each form in turn).
    """
    have = False
    step = 0
    for i in range(0, WARP_SIZE, 2):
        if (mask >> i) & 3 == 3:
            d = row[i + 1] - row[i]
            if not have:
                step = d
                have = True
            elif d != step:
                return True
    return False


@nb.njit(cache=True, nogil=True)
def _fit_one(row, mask, dx2):
    """``(fits, base, sx, sy, dx)`` of one row, trying the forms :func:`fit_affine` lists."""
    ok, b, x, y = _fit_row(row, mask, WARP_SIZE)
    if ok:
        return True, b, x, y, WARP_SIZE
    if dx2 == 1:
        ok, b, x, y = _fit_row(row, mask, 1)
        if ok:
            return True, b, x, y, 1
    if _pairs_differ(row, mask):  # the forms left all have groups of an even lane count
        return False, 0, 0, 0, WARP_SIZE
    cands = (dx2, 16, 8, 4, 2)
    for j in range(5):
        d = cands[j]
        if d < 2 or (j > 0 and d == dx2):
            continue
        ok, b, x, y = _fit_row(row, mask, d)
        if ok:
            return True, b, x, y, d
    return False, 0, 0, 0, WARP_SIZE


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
    for i in range(k):
        ok, b, x, y, d = _fit_one(lanes[i], masks[i], dx2)
        if ok:
            base[i], sx[i], sy[i], dx[i], fits[i] = b, x, y, d, True
    return base, sx, sy, dx, fits


@nb.njit(cache=True, nogil=True)
def _write_explicit(lanes, masks, fits, out, start):
    """Write the lanes of the rows that do not fit to ``out[start:]`` (inactive lanes 0)."""
    j = start
    for i in range(fits.size):
        if not fits[i]:
            m = masks[i]
            for lane in range(WARP_SIZE):
                out[j, lane] = np.uint64(lanes[i, lane]) if (m >> lane) & 1 else np.uint64(0)
            j += 1
    return j


@nb.njit(cache=True, nogil=True)
def _listed_rows(warp_of, lane, addrs, active):
    """Rows of ``k`` instructions executed by listed threads (ascending ``warp_of``).

    Returns ``(entry, warp, mask, lanes)`` in instruction-major order, warps
    ascending within an instruction, as ``np.nonzero`` gives them for a whole
    grid; inactive lanes' addresses are 0.
    """
    k, m = addrs.shape
    n_groups = 0
    for t in range(m):
        if t == 0 or warp_of[t] != warp_of[t - 1]:
            n_groups += 1
    gstart = np.empty(n_groups + 1, np.int64)
    g = 0
    for t in range(m):
        if t == 0 or warp_of[t] != warp_of[t - 1]:
            gstart[g] = t
            g += 1
    gstart[n_groups] = m
    n = 0
    for i in range(k):
        for g in range(n_groups):
            for t in range(gstart[g], gstart[g + 1]):
                if active[i, t]:
                    n += 1
                    break
    entry = np.empty(n, np.int64)
    warp = np.empty(n, np.int64)
    mask = np.empty(n, np.uint32)
    lanes = np.zeros((n, WARP_SIZE), np.int64)
    r = 0
    for i in range(k):
        for g in range(n_groups):
            bits = np.uint32(0)
            for t in range(gstart[g], gstart[g + 1]):
                if active[i, t]:
                    bits |= np.uint32(1) << np.uint32(lane[t])
                    lanes[r, lane[t]] = addrs[i, t]
            if bits == 0:
                continue
            entry[r] = i
            warp[r] = warp_of[gstart[g]]
            mask[r] = bits
            r += 1
    return entry, warp, mask, lanes


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
