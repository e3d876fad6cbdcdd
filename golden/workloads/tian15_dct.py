"""tian15 ``dct``: AMD APP SDK 2.x ``DCT`` (8x8 blocks, local memory) on a 2048x2048 input.

Follows ``samples/opencl/cl/app/DCT/DCT_Kernels.cl`` and ``DCT.cpp`` of the
AMD APP SDK 2.x (the copy read is ``clockfort/amd-app-sdk-fixes``; SDK 2.9
ships the same kernel). One launch of kernel ``DCT`` with the forward
transform (``inverse = 0``, the sample's default): global size
``(width, height)``, work-groups of ``8 x 8``. Each work-item computes one
element of ``A^T X`` into local memory ``inter`` and then one element of
``(A^T X) A`` into ``output``. Choices the source leaves open and the rule
for compute counts are in ``docs/workloads/tian15_b.md``.

The module also holds :func:`build_tiled` and :func:`tile_template`, which
build a kernel whose CTAs all issue the same instructions at shifted
addresses (dct, lud) from a template of at most 2x2 CTAs, so that
million-thread launches cost milliseconds instead of seconds. They are
generic builder helpers (their natural home is ``golden/trace/builder.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import WARP_SIZE, KernelTrace, Op, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, scaled
from golden.workloads.registry import WorkloadSpec, register

__all__ = ["build", "build_tiled", "dct_emit", "dct_kernel", "tile_template"]

SOURCE = "AMD APP SDK 2.x samples/opencl/cl/app/DCT/DCT_Kernels.cl (kernel DCT), DCT.cpp"

#: tian15 Table 2: input 2048x2048, MI 76.2.
PAPER_SIDE = 2048
BLOCK_WIDTH = 8  # DCT.hpp: blockWidth = 8


def build_tiled(name: str, grid: tuple[int, ...], block: tuple[int, ...],
                emit: Callable[[KernelBuilder], None], *, shared_bytes: int = 0) -> KernelTrace:
    """Build a kernel whose CTAs issue identical streams at CTA-linear address shifts.

    ``emit(kb)`` writes the kernel with a :class:`KernelBuilder` exactly as for
    the whole grid, using ``kb.bx``/``kb.by`` for the block index. It is run on
    a template grid of at most 2 x 2 CTAs, which :func:`tile_template` checks
    and replicates over ``grid``. The result equals what ``emit`` would build on
    the full grid.

    Parameters
    ----------
    name : str
        Kernel name.
    grid : tuple of int
        Grid in CTAs, ``(x, y)`` or ``(x, y, 1)``.
    block : tuple of int
        CTA dimensions.
    emit : callable
        Writes the kernel into the builder it is given.
    shared_bytes : int
        Shared memory per CTA.

    Raises
    ------
    ValueError
        See :func:`tile_template`.
    """
    grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
    if grid[2] != 1:
        raise ValueError(f"build_tiled needs a 1-D or 2-D grid, not {grid}")
    kb = KernelBuilder(name, (min(grid[0], 2), min(grid[1], 2), 1), block,
                       shared_bytes=shared_bytes)
    emit(kb)
    return tile_template(kb.build(), grid)


def tile_template(tmpl: KernelTrace, grid: tuple[int, ...]) -> KernelTrace:
    """Replicate a template launch of at most 2 x 2 CTAs over ``grid``.

    Every memory row's base address must be ``base(0, 0) + bx * dX + by * dY``
    (``dX``, ``dY`` per row, read off CTAs (1, 0) and (0, 1) and checked on
    (1, 1)), and everything else about a CTA's rows (count, PCs, masks, gaps,
    strides, tails) identical across CTAs.

    Parameters
    ----------
    tmpl : KernelTrace
        The launch on a grid of ``(min(gx, 2), min(gy, 2))`` CTAs, or a larger
        template grid of at most 2 x 2 (CTAs beyond ``grid`` only give deltas).
    grid : tuple of int
        The grid to build.

    Raises
    ------
    ValueError
        If the template has explicit lane addresses, its CTAs are not shifted
        copies of each other (a data-dependent or boundary-guarded kernel), or
        its addresses are not linear in the block index.
    """
    grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
    tg = tmpl.grid
    name = tmpl.name
    if tg[2] != 1 or grid[2] != 1 or tg[0] > 2 or tg[1] > 2 or tg[0] < min(grid[0], 2) or \
            tg[1] < min(grid[1], 2):
        raise ValueError(f"{name}: a template grid {tg} cannot be tiled to {grid}")
    if len(tmpl.lane_addrs):
        raise ValueError(f"{name}: tiling needs affine lane addresses in every row")
    wpc = tmpl.warps_per_cta
    ptr = tmpl.warp_ptr[::wpc]
    per_cta = [tmpl.insts[ptr[c]:ptr[c + 1]] for c in range(tmpl.n_ctas)]
    first = per_cta[0]
    shape = first.copy()
    shape["cta"] = 0
    shape["base"] = 0
    for c, rows in enumerate(per_cta[1:], 1):
        other = rows.copy()
        other["cta"] = 0
        other["base"] = 0
        if len(rows) != len(first) or not np.array_equal(other, shape) or not np.array_equal(
                tmpl.tail[c * wpc:(c + 1) * wpc], tmpl.tail[:wpc]):
            raise ValueError(f"{name}: CTA {c} of the template differs from CTA 0 in more than "
                             "its addresses; build it with KernelBuilder on the whole grid")
    b0 = first["base"].astype(np.int64)

    def delta(c: int) -> np.ndarray:
        return per_cta[c]["base"].astype(np.int64) - b0

    dx = delta(1) if tg[0] == 2 else np.zeros_like(b0)
    dy = delta(tg[0]) if tg[1] == 2 else np.zeros_like(b0)
    if tg[:2] == (2, 2) and not np.array_equal(delta(3), dx + dy):
        raise ValueError(f"{name}: addresses are not linear in the block index")

    n = grid[0] * grid[1]
    cta = np.arange(n, dtype=np.int64)
    # Copy the rows as raw bytes: structured-dtype broadcasting is ~20x slower.
    raw = np.empty((n, first.nbytes), np.uint8)
    raw[:] = np.ascontiguousarray(first).view(np.uint8)
    insts = raw.view(first.dtype)
    insts["cta"] = cta[:, None]
    base = (cta % grid[0])[:, None] * dx
    base += (cta // grid[0])[:, None] * dy
    base += b0
    if base.size and base.min() < 0:
        raise ValueError(f"{name}: a replicated address is negative")
    insts["base"] = base
    return KernelTrace(name=name, grid=grid, block=tmpl.block, insts=insts.reshape(-1),
                       lane_addrs=np.zeros((0, WARP_SIZE), np.uint64),
                       tail=np.tile(tmpl.tail[:wpc], n), shared_bytes=tmpl.shared_bytes,
                       regs_per_thread=tmpl.regs_per_thread)


def dct_kernel(width: int, height: int, mem: DeviceMemory, pcs: PCs) -> KernelTrace:
    """The ``DCT`` launch (forward transform) on a ``width x height`` float matrix.

    ``mem`` must hold ``input``, ``output`` and ``dct8x8``.
    """
    return build_tiled("DCT", (width // BLOCK_WIDTH, height // BLOCK_WIDTH),
                       (BLOCK_WIDTH, BLOCK_WIDTH), dct_emit(width, mem, pcs),
                       shared_bytes=BLOCK_WIDTH * BLOCK_WIDTH * 4)


def dct_emit(width: int, mem: DeviceMemory, pcs: PCs) -> Callable[[KernelBuilder], None]:
    """Emitter of the ``DCT`` kernel body for a matrix ``width`` floats wide."""
    bw = BLOCK_WIDTH
    a_in, a_out, a_dct = (mem.arrays[k][0] for k in ("input", "output", "dct8x8"))
    pc_ld_dct1, pc_ld_in = pcs("DCT:ld_dct8x8.1"), pcs("DCT:ld_input")
    pc_st_inter = pcs("DCT:st_inter")
    pc_ld_inter, pc_ld_dct2 = pcs("DCT:ld_inter"), pcs("DCT:ld_dct8x8.2")
    pc_st_out = pcs("DCT:st_output")
    k = np.arange(bw, dtype=np.int64)[:, None]

    def emit(kb: KernelBuilder) -> None:
        i, j = kb.tx, kb.ty  # get_local_id(0), get_local_id(1)
        gx, gy = kb.bx, kb.by  # get_group_id
        idx = (gy * bw + j) * width + gx * bw + i
        # get_global_id x2 (2 each), idx (2), hoisted getIdx parts groupIdx*bw + j (2),
        # groupIdy*bw (1)
        kb.compute(9)
        # Loop 1 (blockWidth is a kernel argument: not unrolled): per iteration loop
        # control (2), index1 = k*bw + i (2), index2 = (gy*bw + k)*width + .. (3), then
        # both loads and the FMA (1), which lands before the next iteration's loads.
        addrs = np.empty((2 * bw, kb.n_threads), np.int64)
        addrs[0::2] = a_dct + (k * bw + i) * 4  # dct8x8[index1], inverse == 0
        addrs[1::2] = a_in + ((gy * bw + k) * width + gx * bw + j) * 4  # input[getIdx(.., j, k)]
        gaps = np.zeros(2 * bw, np.int64)
        gaps[0::2] = 7
        gaps[2::2] += 1
        kb.sequence(Op.LOAD, np.tile([pc_ld_dct1, pc_ld_in], bw), addrs, gaps=gaps)
        kb.compute(1 + 2)  # last FMA; j*bw + i
        kb.store(pc_st_inter, (j * bw + i) * 4, space=Space.SHARED)
        kb.barrier()
        # Loop 2: loop control (2), index1 = i*bw + k (1, i*bw hoisted), index2 = k*bw + j (2).
        addrs[0::2] = (i * bw + k) * 4  # inter[index1]
        addrs[1::2] = a_dct + (k * bw + j) * 4  # dct8x8[index2]
        gaps[0::2] = 5
        gaps[0] += 1  # i*bw, hoisted
        gaps[2::2] += 1
        kb.sequence(Op.LOAD, np.tile([pc_ld_inter, pc_ld_dct2], bw), addrs, gaps=gaps,
                    space=np.tile([Space.SHARED, Space.GLOBAL], bw))
        kb.compute(1)
        kb.store(pc_st_out, a_out + idx * 4)

    return emit


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """tian15 dct at ``scale`` (each side ``2048 * scale``, a multiple of 8; ``seed`` unused).

    The input values never reach an address, so the trace does not depend on ``seed``.
    """
    side = scaled(PAPER_SIDE, scale, multiple=BLOCK_WIDTH)
    mem = DeviceMemory()
    # DCT.cpp setupCL: inputBuffer, outputBuffer, dctBuffer (blockSize floats)
    mem.alloc("input", side * side * 4)
    mem.alloc("output", side * side * 4)
    mem.alloc("dct8x8", BLOCK_WIDTH * BLOCK_WIDTH * 4)
    kernel = dct_kernel(side, side, mem, PCs())
    return Workload(name="tian15/dct", kernels=[kernel],
                    params={"width": side, "height": side, "block_width": BLOCK_WIDTH,
                            "inverse": 0,
                            "arrays": {k: size for k, (_, size) in mem.arrays.items()}},
                    source=SOURCE)


register(WorkloadSpec(
    name="dct", suite="tian15", build=build,
    description="8x8 discrete cosine transform with local memory, 2048x2048 floats",
    source=SOURCE, version=1, paper={"mi": 76.2, "size": "2048x2048"}))
