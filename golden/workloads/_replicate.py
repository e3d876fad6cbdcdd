"""Build one CTA of a launch and replicate it over the grid.

Most kernels' CTAs issue the same instructions at addresses that move
linearly with the CTA's coordinates. Describing a million-thread launch
thread by thread costs seconds; building one CTA and copying its rows costs
milliseconds, and gives the same rows.

A kernel is written once, as a function ``emit(kb, shape, at)`` that issues
its statements into a :class:`~golden.trace.builder.KernelBuilder` (usually
through a :class:`~golden.workloads._program.Program`) and returns the
built :class:`~golden.trace.model.KernelTrace`. ``shape`` holds the
per-thread coordinates that decide control flow (which branches a thread
takes), ``at`` the coordinates that enter its addresses, one array per
*axis*: the block indices, or any other integer the addresses are linear
in (a tile corner, a launch's offset).

:func:`cta_template` runs ``emit`` on a small grid whose CTAs sit at an
origin, one and two steps from it along each axis and one step along each
pair of axes, and checks that the copies differ only in their addresses,
which move linearly (so a quadratic or a cross term is caught);
:func:`assemble` copies templates to CTAs at any coordinates. For launches
on a 2-D grid, :func:`build_kernel` does both, one template per *class* of
CTAs that take the same paths (boundary CTAs, say), or runs ``emit`` on the
whole grid (``shape = at = (blockIdx.x, blockIdx.y)``) when asked, which
tests use to check that the two agree row for row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import INST_DTYPE, WARP_SIZE, KernelTrace

__all__ = ["Emit", "CtaTemplate", "cta_template", "assemble", "tile", "build_kernel"]

#: ``emit(kb, shape, at) -> KernelTrace``: see the module docstring.
Emit = Callable[[KernelBuilder, tuple, tuple], KernelTrace]


@dataclass(eq=False)
class CtaTemplate:
    """One CTA's instructions with their address steps along the CTA coordinates.

    Members
    -------
    trace : KernelTrace
        The CTA at ``origin`` (a 1-CTA kernel).
    origin : tuple of int
        Coordinates the template was built at.
    step : numpy.ndarray
        ``int64[n_axes, rows]``: change of each row's base address per unit of each axis.
    lane_step : numpy.ndarray
        ``int64[n_axes, m, 32]``: the same for the rows with explicit lane addresses.
    """

    trace: KernelTrace
    origin: tuple
    step: np.ndarray
    lane_step: np.ndarray


def _offsets(n_axes: int) -> np.ndarray:
    """``int64[copies, n_axes]``: the origin, 1 and 2 steps along each axis, 1 along each pair."""
    eye = np.eye(n_axes, dtype=np.int64)
    rows = ([np.zeros(n_axes, dtype=np.int64)] + [k * eye[a] for a in range(n_axes) for k in (1, 2)]
            + [eye[a] + eye[b] for a, b in combinations(range(n_axes), 2)])
    return np.array(rows, dtype=np.int64).reshape(-1, n_axes)


def cta_template(name: str, block: tuple, emit: Emit, shape: tuple, origin: tuple, *,
                 shared_bytes: int = 0) -> CtaTemplate:
    """Build the CTA whose control flow follows ``shape`` and whose addresses sit at ``origin``.

    Parameters
    ----------
    name : str
        Kernel name.
    block : tuple of int
        CTA dimensions.
    emit : callable
        ``emit(kb, shape, at) -> KernelTrace`` (see the module docstring).
    shape : tuple of int
        Coordinates that decide the CTA's control flow.
    origin : tuple of int
        Coordinates its addresses are computed at; one axis per entry.
    shared_bytes : int
        Shared memory per CTA.

    Raises
    ------
    RuntimeError
        If a step along an axis changes the CTA's instructions other than by
        their addresses, or changes the addresses non-linearly: the kernel
        cannot be tiled along these axes.
    """
    n_axes = len(origin)
    offsets = _offsets(n_axes)
    n_copies = len(offsets)
    kb = KernelBuilder(name, grid=(n_copies, 1), block=block, shared_bytes=shared_bytes)
    virtual = kb.bx
    shape_arrays = tuple(np.full(kb.n_threads, v, dtype=np.int64) for v in shape)
    at = tuple(o + offsets[virtual, a] for a, o in enumerate(origin))
    trace = emit(kb, shape_arrays, at)
    insts = trace.insts
    moved = RuntimeError(f"{name}: the CTA's instructions depend on its position")
    if len(insts) % n_copies:
        raise moved
    copies = insts.reshape(n_copies, -1)
    same = [f for f in INST_DTYPE.names if f not in ("cta", "base", "lanes")]
    explicit = copies["lanes"] >= 0
    if (np.any(copies["cta"] != np.arange(n_copies)[:, None])
            or any(np.any(copies[f] != copies[f][:1]) for f in same)
            or np.any(explicit != explicit[:1])):
        raise moved
    tails = trace.tail.reshape(n_copies, -1)
    if np.any(tails != tails[:1]):
        raise moved
    base = copies["base"].astype(np.int64)
    lanes = trace.lane_addrs.astype(np.int64)[copies["lanes"][:, explicit[0]]]  # [copies, m, 32]
    step, lane_step = base[1:2 * n_axes:2] - base[:1], lanes[1:2 * n_axes:2] - lanes[:1]
    # Every copy must sit where the steps put it.
    if (np.any(base - base[:1] != np.einsum("ca,ar->cr", offsets, step))
            or np.any(lanes - lanes[:1] != np.einsum("ca,amk->cmk", offsets, lane_step))):
        raise RuntimeError(f"{name}: the CTA's addresses are not affine in its coordinates")
    first = copies[0].copy()
    first["lanes"][explicit[0]] = np.arange(int(explicit[0].sum()))
    cta = KernelTrace(name=name, grid=(1, 1, 1), block=trace.block, insts=first,
                      lane_addrs=lanes[0].astype(np.uint64), tail=tails[0].copy(),
                      shared_bytes=trace.shared_bytes, regs_per_thread=trace.regs_per_thread)
    return CtaTemplate(cta, tuple(int(o) for o in origin), step, lane_step)


def assemble(name: str, grid: tuple, parts: list[tuple[CtaTemplate, np.ndarray, np.ndarray]]
             ) -> KernelTrace:
    """A kernel whose CTAs are copies of templates.

    Parameters
    ----------
    name : str
        Kernel name.
    grid : tuple of int
        Grid dimensions; every CTA must be in exactly one part.
    parts : list of (CtaTemplate, ctas, coords)
        Each template with the linear ids of the CTAs it makes (``int64[n]``) and
        their coordinates along its axes (``int64[n_axes, n]``).

    Raises
    ------
    ValueError
        If a CTA has no template or a copied address would be negative.
    """
    grid = tuple(grid) + (1,) * (3 - len(grid))
    n_ctas = grid[0] * grid[1] * grid[2]
    first = parts[0][0].trace
    wpc = first.warps_per_cta
    per_cta = np.full(n_ctas, -1, dtype=np.int64)
    for t, ctas, _ in parts:
        per_cta[ctas] = len(t.trace.insts)
    if np.any(per_cta < 0):
        raise ValueError(f"{name}: CTAs {np.flatnonzero(per_cta < 0)[:5].tolist()} have no template")
    offset = np.concatenate([[0], np.cumsum(per_cta)])
    insts = np.empty(offset[-1], dtype=INST_DTYPE)
    raw = insts.view(np.uint8).reshape(len(insts), INST_DTYPE.itemsize)
    tail = np.empty((n_ctas, wpc), dtype=np.uint32)
    lane_blocks, n_lanes = [], 0
    for t, ctas, coords in parts:
        rows = t.trace.insts
        ctas = np.asarray(ctas, dtype=np.int64)
        coords = np.asarray(coords, dtype=np.int64).reshape(len(t.origin), len(ctas))
        n, r = len(ctas), len(rows)
        start = offset[ctas]
        consecutive = n == 0 or bool(np.all(np.diff(start) == r))
        # Copy the rows as raw bytes (structured-dtype tiling is many times slower), into
        # their place when the CTAs are consecutive.
        if consecutive and n:
            block = raw[start[0]:start[0] + n * r].reshape(n, r * INST_DTYPE.itemsize)
        else:
            block = np.empty((n, r * INST_DTYPE.itemsize), dtype=np.uint8)
        block[:] = np.ascontiguousarray(rows).view(np.uint8)
        block = block.view(INST_DTYPE)  # [n, r]
        block["cta"] = ctas[:, None]
        delta = coords - np.asarray(t.origin, dtype=np.int64)[:, None]  # [n_axes, n]
        base = np.broadcast_to(rows["base"].astype(np.int64), (n, r)).copy()
        for moved, step in zip(delta, t.step, strict=True):  # one axis at a time
            base += moved[:, None] * step[None, :]
        if base.size and base.min() < 0:
            raise ValueError(f"{name}: a copied address is negative")
        block["base"] = base.astype(np.uint64)
        tail[ctas] = t.trace.tail
        explicit = np.flatnonzero(rows["lanes"] >= 0)
        if explicit.size:
            m = len(t.trace.lane_addrs)
            if not t.lane_step.any():  # addresses that do not move (shared memory): one copy
                lane_blocks.append(t.trace.lane_addrs)
                block["lanes"][:, explicit] = n_lanes + rows["lanes"][explicit][None, :]
                n_lanes += m
            else:
                lanes = (t.trace.lane_addrs.astype(np.int64)[None]
                         + np.einsum("an,amk->nmk", delta, t.lane_step))
                lane_blocks.append(lanes.reshape(-1, WARP_SIZE).astype(np.uint64))
                block["lanes"][:, explicit] = n_lanes + np.arange(n * m).reshape(n, m)
                n_lanes += n * m
        if not consecutive:  # scattered whole records, through the byte view
            raw[(start[:, None] + np.arange(r)[None, :]).ravel()] = (
                block.reshape(-1).view(np.uint8).reshape(n * r, INST_DTYPE.itemsize))
    lane_addrs = (np.concatenate(lane_blocks) if lane_blocks
                  else np.zeros((0, WARP_SIZE), dtype=np.uint64))
    return KernelTrace(name=name, grid=grid, block=first.block, insts=insts,
                       lane_addrs=lane_addrs, tail=tail.ravel(), shared_bytes=first.shared_bytes,
                       regs_per_thread=first.regs_per_thread)


def tile(template: CtaTemplate, grid: tuple, *fixed: int) -> KernelTrace:
    """Every CTA of ``grid`` copied from one template.

    Parameters
    ----------
    template : CtaTemplate
        Built with ``origin = (bx[, by[, bz]], *fixed values)``: its first axes are
        block indices (``blockIdx.x`` first), the others launch-wide values (a kernel
        argument that moves addresses).
    grid : tuple of int
        Grid dimensions, at least as many as the template has block axes.
    *fixed : int
        The value of each launch-wide axis in this launch.

    Raises
    ------
    ValueError
        If the template has more block axes than ``grid`` has dimensions.
    """
    dims = tuple(int(g) for g in grid)
    n_block = len(template.origin) - len(fixed)
    if not 0 <= n_block <= len(dims):
        raise ValueError(f"{template.trace.name}: a template with axes {template.origin} cannot "
                         f"tile grid {dims} with fixed values {fixed}")
    cta = np.arange(int(np.prod(dims)), dtype=np.int64)
    coords = list(np.unravel_index(cta, dims, order="F")[:n_block])  # x fastest, as CTA ids
    coords += [np.full(cta.size, v, dtype=np.int64) for v in fixed]
    return assemble(template.trace.name, dims, [(template, cta, np.array(coords, dtype=np.int64))])


def build_kernel(name: str, grid: tuple, block: tuple, emit: Emit, *,
                 classes: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                 shared_bytes: int = 0, replicate: bool = True) -> KernelTrace:
    """Build a launch on a 1-D or 2-D grid from ``emit`` (see the module docstring).

    Parameters
    ----------
    name : str
        Kernel name.
    grid, block : tuple of int
        Launch dimensions (``grid[2]`` must be 1).
    emit : callable
        ``emit(kb, (bx, by), (bx, by)) -> KernelTrace``: control flow from the
        first pair, addresses from the second.
    classes : callable, optional
        ``classes(bx, by) -> int array``: CTAs with equal values take the same
        paths. All CTAs are one class when None.
    shared_bytes : int
        Shared memory per CTA.
    replicate : bool
        Tile one CTA per class (True) or run ``emit`` on the whole grid (False).

    Raises
    ------
    ValueError
        If the grid is 3-D.
    RuntimeError
        If a class's CTAs are not copies of one another (see :func:`cta_template`).
    """
    grid = tuple(grid) + (1,) * (3 - len(grid))
    if grid[2] != 1:
        raise ValueError(f"grid: must be 1-D or 2-D, not {grid}")
    if not replicate:
        kb = KernelBuilder(name, grid=grid, block=block, shared_bytes=shared_bytes)
        return emit(kb, (kb.bx, kb.by), (kb.bx, kb.by))
    cta = np.arange(grid[0] * grid[1], dtype=np.int64)
    bx, by = cta % grid[0], cta // grid[0]
    key = np.zeros(cta.size, dtype=np.int64) if classes is None else np.asarray(classes(bx, by))
    _, rep, which = np.unique(key, return_index=True, return_inverse=True)
    parts = []
    for c, r in enumerate(rep):
        origin = (int(bx[r]), int(by[r]))
        t = cta_template(name, block, emit, origin, origin, shared_bytes=shared_bytes)
        members = np.flatnonzero(which == c)
        parts.append((t, members, np.stack([bx[members], by[members]])))
    return assemble(name, grid, parts)
