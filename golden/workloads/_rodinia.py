"""Rodinia 3.1 CUDA kernels shared by the tian15 and rdgc suites: backprop, nw, srad_v2.

Each ``*_kernels`` function emits the launches of one Rodinia benchmark at a
given size, written as the address arithmetic of the CUDA source it cites,
and returns them as :class:`~golden.trace.model.KernelTrace` objects. Suite
modules (``rdgc_bp``, ``tian15_backprop``, ...) pick the size and wrap the
launches into a :class:`~golden.trace.model.Workload`.

Conventions every emulator here follows (docs/workloads/rdgc_rodinia.md):

* **Accesses.** One memory instruction per distinct array element a source
  statement reads, plus one per element it writes. Within a statement a
  repeated read of the same element is loaded once (common subexpression);
  after a store to global memory every global array is read again, since
  the kernels' pointers are not ``__restrict__`` and may alias the store.
  Shared-memory (``__shared__``) accesses are ``Space.SHARED`` instructions.
* **Branches.** The paths of an ``if``/``else`` chain are issued one after
  another in source order, each by the lanes that take it, with its own PCs.
* **Loops.** Loops with a compile-time trip count of at most 16 are fully
  unrolled by nvcc: every iteration has its own PCs and no loop overhead.
  Other loops keep one PC per instruction and cost 2 compute instructions
  (increment, compare-and-branch) per iteration.
* **Compute.** ``compute(n)`` between memory instructions: ``n`` is the
  number of arithmetic, logic, comparison and select operators and math
  intrinsics of the source between them (index expressions included, where
  the source computes them; an ``if`` costs its comparisons plus one branch).
* **PCs.** One :class:`~golden.workloads._common.PCs` per workload; labels are
  prefixed by the kernel, so distinct kernels never share a PC.
* **Layout.** Global arrays are allocated with
  :class:`~golden.workloads._common.DeviceMemory` in the order of the source's
  ``cudaMalloc`` calls; shared arrays are laid out from offset 0 in the order of
  their ``__shared__`` declarations.

Every ``*_kernels`` function takes the same keywords: ``mem``, the
:class:`~golden.workloads._common.DeviceMemory` to place the arrays with, and
``pcs``, the :class:`~golden.workloads._common.PCs` numbering (new ones when
None); ``replicate``, whether to build one CTA per class of CTAs that take
the same paths and copy it over the grid
(:mod:`golden.workloads._replicate`, the default) or to build the whole
grid (the same rows, an order of magnitude slower; tests compare the two).
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Space
from golden.workloads._common import DeviceMemory, PCs
from golden.workloads._program import Program
from golden.workloads._replicate import assemble, build_kernel, cta_template

__all__ = ["BLOCK", "backprop_kernels", "needle_kernels", "srad_v2_kernels"]

#: BLOCK_SIZE / WIDTH / HEIGHT of backprop, nw and srad_v2 (backprop.h, needle.h, srad.h).
BLOCK = 16

_F4 = 4  # sizeof(float) == sizeof(int)


def _check_multiple(label: str, value: int, multiple: int) -> None:
    if int(value) != value or value < multiple or value % multiple:
        raise ValueError(f"{label}: must be a positive multiple of {multiple}, not {value}")


# -- backprop -------------------------------------------------------------------


def backprop_kernels(n_in: int, *, mem: DeviceMemory | None = None, pcs: PCs | None = None,
                     replicate: bool = True) -> list[KernelTrace]:
    """Rodinia 3.1 backprop: ``bpnn_layerforward_CUDA`` then ``bpnn_adjust_weights_cuda``.

    Follows ``cuda/backprop/backprop_cuda.cu`` (``bpnn_train_cuda``) and
    ``backprop_cuda_kernel.cu``: a net of ``n_in`` inputs and 16 hidden units
    (``facetrain.c`` creates ``bpnn_create(layer_size, 16, 1)``), both kernels on
    a grid of ``(1, n_in / 16)`` CTAs of 16 x 16 threads.

    Parameters
    ----------
    n_in : int
        Input units (``layer_size``, a multiple of 16).
    mem, pcs, replicate
        Array placement, PC numbering and CTA replication (module docstring).

    Returns
    -------
    list of KernelTrace
        The two launches.

    Raises
    ------
    ValueError
        If ``n_in`` is not a positive multiple of 16.
    """
    _check_multiple("n_in", n_in, BLOCK)
    mem = DeviceMemory() if mem is None else mem
    pcs = PCs() if pcs is None else pcs
    hid = BLOCK  # hidden units; the kernels index rows of hid + 1 with tx < WIDTH == hid
    n_blocks = n_in // BLOCK
    row = hid + 1
    input_cuda = mem.alloc("input_cuda", (n_in + 1) * _F4)
    mem.alloc("output_hidden_cuda", (hid + 1) * _F4)  # allocated, never touched by the kernels
    input_hidden = mem.alloc("input_hidden_cuda", (n_in + 1) * row * _F4)
    partial = mem.alloc("hidden_partial_sum", n_blocks * BLOCK * _F4)
    hidden_delta = mem.alloc("hidden_delta_cuda", (hid + 1) * _F4)
    prev_weights = mem.alloc("input_prev_weights_cuda", (n_in + 1) * row * _F4)
    # bpnn_layerforward_CUDA: __shared__ float input_node[HEIGHT], weight_matrix[HEIGHT][WIDTH].
    sh_node, sh_wm = 0, BLOCK * _F4

    def forward(kb, shape, at):
        p = Program(kb, pcs, kb.name)
        tx, ty, by = kb.tx, kb.ty, at[1]
        index = row * BLOCK * by + row * ty + tx + 1 + row
        index_in = BLOCK * by + ty + 1
        wm = sh_wm + (ty * BLOCK + tx) * _F4
        lead = tx == 0
        p.compute(12)  # index (8 operators), index_in (2), if (tx == 0): compare + branch
        p.load("ld_input", input_cuda + index_in * _F4, active=lead)
        p.store("st_input_node", sh_node + ty * _F4, active=lead, space=Space.SHARED)
        p.barrier()
        p.load("ld_weight", input_hidden + index * _F4)
        p.store("st_wm", wm, space=Space.SHARED)
        p.barrier()
        p.load("ld_wm", wm, space=Space.SHARED)
        p.load("ld_input_node", sh_node + ty * _F4, space=Space.SHARED)
        p.compute(1)  # *
        p.store("st_wm_scaled", wm, space=Space.SHARED)
        p.barrier()
        # The trip count is __log2f(HEIGHT), a run-time intrinsic: the loop is not unrolled.
        for i in range(1, 5):
            power_two = 1 << i
            p.compute(2 + 4)  # loop overhead; __log2f, compare, __powf, ty % power_two == 0
            red = ty % power_two == 0
            p.load("ld_wm_a", wm, active=red, space=Space.SHARED)
            p.load("ld_wm_b", sh_wm + ((ty + power_two // 2) * BLOCK + tx) * _F4, active=red,
                   space=Space.SHARED)
            p.compute(1, active=red)  # +
            p.store("st_wm_sum", wm, active=red, space=Space.SHARED)
            p.barrier()
        p.load("ld_wm_out", wm, space=Space.SHARED)
        p.store("st_weight", input_hidden + index * _F4)
        p.barrier()
        p.compute(2)  # if (tx == 0)
        p.load("ld_wm_col", sh_wm + (tx * BLOCK + ty) * _F4, active=lead, space=Space.SHARED)
        p.compute(2, active=lead)  # by * hid + ty
        p.store("st_partial", partial + (by * hid + ty) * _F4, active=lead)
        return p.build()

    def adjust(kb, shape, at):
        # bpnn_adjust_weights_cuda(delta, hid, ly, in, w, oldw): no shared memory.
        p = Program(kb, pcs, kb.name)
        tx, ty, by = kb.tx, kb.ty, at[1]
        index = row * BLOCK * by + row * ty + tx + 1 + row
        index_y = BLOCK * by + ty + 1
        index_x = tx + 1
        delta = hidden_delta + index_x * _F4
        w, oldw = input_hidden + index * _F4, prev_weights + index * _F4
        p.compute(11)  # index (8), index_y (2), index_x (1)
        # w[index] += ETA * delta[index_x] * ly[index_y] + MOMENTUM * oldw[index]
        p.load("ld_delta", delta)
        p.load("ld_ly", input_cuda + index_y * _F4)
        p.load("ld_oldw", oldw)
        p.load("ld_w", w)
        p.compute(5)  # 3 *, 2 +
        p.store("st_w", w)
        # oldw[index] = ETA * delta[index_x] * ly[index_y] + MOMENTUM * oldw[index],
        # every operand read again after st_w
        p.load("ld_delta2", delta)
        p.load("ld_ly2", input_cuda + index_y * _F4)
        p.load("ld_oldw2", oldw)
        p.compute(4)  # 3 *, 1 +
        p.store("st_oldw", oldw)
        p.barrier()
        first = (ty == 0) & (shape[1] == 0)
        p.compute(3)  # ty == 0 && by == 0, branch
        w_x, oldw_x = input_hidden + index_x * _F4, prev_weights + index_x * _F4
        # w[index_x] += ETA * delta[index_x] + MOMENTUM * oldw[index_x]
        p.load("ld_delta3", delta, active=first)
        p.load("ld_oldw3", oldw_x, active=first)
        p.load("ld_w3", w_x, active=first)
        p.compute(4, active=first)  # 2 *, 2 +
        p.store("st_w3", w_x, active=first)
        # oldw[index_x] = ETA * delta[index_x] + MOMENTUM * oldw[index_x]
        p.load("ld_delta4", delta, active=first)
        p.load("ld_oldw4", oldw_x, active=first)
        p.compute(3, active=first)  # 2 *, 1 +
        p.store("st_oldw4", oldw_x, active=first)
        return p.build()

    grid, block = (1, n_blocks), (BLOCK, BLOCK)
    return [
        build_kernel("bpnn_layerforward_CUDA", grid, block, forward, replicate=replicate,
                     shared_bytes=sh_wm + BLOCK * BLOCK * _F4),
        build_kernel("bpnn_adjust_weights_cuda", grid, block, adjust, replicate=replicate,
                     classes=lambda bx, by: by == 0),
    ]


# -- nw (Needleman-Wunsch) ----------------------------------------------------------


def needle_kernels(n: int, penalty: int = 10, *, mem: DeviceMemory | None = None,
                   pcs: PCs | None = None, replicate: bool = True) -> list[KernelTrace]:
    """Rodinia 3.1 nw: the wavefront of ``needle_cuda_shared_1`` then ``needle_cuda_shared_2``.

    Follows ``cuda/nw/needle.cu`` (``runTest``) and ``needle_kernel.cu``: two
    sequences of ``n x n`` scores (``max_rows = max_cols = n + 1`` with the
    border row and column), 16-thread CTAs each filling one 16 x 16 tile. The
    top-left triangle is ``needle_cuda_shared_1`` launched for ``i = 1 ..
    n/16`` with ``i`` CTAs; the bottom-right one is ``needle_cuda_shared_2``
    for ``i = n/16 - 1 .. 1``.

    Every CTA of every launch of a kernel issues the same instructions; only
    the tile corner, which offsets every global address, differs. Each
    kernel's CTA is built once (a template along the corner) and copied
    over all launches.

    Parameters
    ----------
    n : int
        Sequence length (``max_rows - 1``, a multiple of 16).
    penalty : int
        Gap penalty; recorded only, it does not change any address.
    mem, pcs, replicate
        Array placement, PC numbering and CTA replication (module docstring).

    Returns
    -------
    list of KernelTrace
        ``2 * n / 16 - 1`` launches in execution order.

    Raises
    ------
    ValueError
        If ``n`` is not a positive multiple of 16.
    """
    _check_multiple("n", n, BLOCK)
    mem = DeviceMemory() if mem is None else mem
    pcs = PCs() if pcs is None else pcs
    cols = n + 1
    reference = mem.alloc("referrence_cuda", cols * cols * _F4)
    matrix = mem.alloc("matrix_cuda", cols * cols * _F4)
    block_width = n // BLOCK
    # __shared__ int temp[BLOCK_SIZE + 1][BLOCK_SIZE + 1], ref[BLOCK_SIZE][BLOCK_SIZE];
    shared = ((BLOCK + 1) ** 2 + BLOCK * BLOCK) * _F4

    def corner(which: int, i: int, bx: np.ndarray) -> np.ndarray:
        """Element index of the tile corner of CTA ``bx`` of launch ``i``."""
        if which == 1:
            b_x, b_y = bx, i - 1 - bx
        else:
            b_x, b_y = bx + block_width - i, block_width - bx - 1
        return cols * BLOCK * b_y + BLOCK * b_x

    def emit(which):
        return lambda kb, shape, at: _needle_cta(kb, pcs, which, at[0], cols, reference, matrix)

    names = {1: "needle_cuda_shared_1", 2: "needle_cuda_shared_2"}
    schedule = [(1, i) for i in range(1, block_width + 1)]
    schedule += [(2, i) for i in range(block_width - 1, 0, -1)]
    if not replicate:
        out = []
        for which, i in schedule:
            kb = KernelBuilder(names[which], grid=(i, 1), block=(BLOCK, 1), shared_bytes=shared)
            out.append(_needle_cta(kb, pcs, which, corner(which, i, kb.bx), cols, reference,
                                   matrix))
        return out
    templates = {w: cta_template(names[w], (BLOCK, 1), emit(w), (), (0,), shared_bytes=shared)
                 for w in (1, 2)}
    out = []
    for which, i in schedule:
        bx = np.arange(i, dtype=np.int64)
        out.append(assemble(names[which], (i, 1), [(templates[which], bx,
                                                    corner(which, i, bx)[None, :])]))
    return out


def _needle_cta(kb: KernelBuilder, pcs: PCs, which: int, corner: np.ndarray, cols: int,
                reference: int, matrix: int) -> KernelTrace:
    """Emit needle_cuda_shared_``which``; ``corner``: each thread's tile corner (element)."""
    sh_ref = (BLOCK + 1) * (BLOCK + 1) * _F4
    p = Program(kb, pcs, kb.name)
    tx = kb.tx
    index = corner + tx + cols + 1
    index_n = corner + tx + 1
    index_w = corner + cols
    index_nw = corner

    def temp(y, x):
        return (y * (BLOCK + 1) + x) * _F4

    def ref(y, x):
        return sh_ref + (y * BLOCK + x) * _F4

    lead = tx == 0
    p.compute(17)  # b_index_x/y (2-4), four indices (13), if (tx == 0)

    def load_nw():
        p.load("ld_nw", matrix + index_nw * _F4, active=lead)
        p.store("st_temp_nw", temp(0, 0), active=lead, space=Space.SHARED)

    def load_ref():
        for ty in range(BLOCK):  # constant trip count: unrolled
            p.compute(2)  # cols * ty, +
            p.load(f"ld_ref{ty}", reference + (index + cols * ty) * _F4)
            p.store(f"st_ref{ty}", ref(ty, tx), space=Space.SHARED)

    # The two kernels differ only in where the north-west corner load sits.
    if which == 1:
        load_nw()
        load_ref()
        p.barrier()
    else:
        load_ref()
        p.barrier()
        load_nw()
    p.compute(2)  # index_w + cols * tx
    p.load("ld_w", matrix + (index_w + cols * tx) * _F4)
    p.store("st_temp_w", temp(tx + 1, 0), space=Space.SHARED)
    p.barrier()
    p.load("ld_n", matrix + index_n * _F4)
    p.store("st_temp_n", temp(0, tx + 1), space=Space.SHARED)
    p.barrier()

    def cell(label, m, t_x, t_y):
        on = tx <= m
        p.compute(3)  # tx <= m and branch, t_index_x/y
        p.load(f"ld_{label}{m}_nw", temp(t_y - 1, t_x - 1), active=on, space=Space.SHARED)
        p.load(f"ld_{label}{m}_ref", ref(t_y - 1, t_x - 1), active=on, space=Space.SHARED)
        p.load(f"ld_{label}{m}_w", temp(t_y, t_x - 1), active=on, space=Space.SHARED)
        p.load(f"ld_{label}{m}_n", temp(t_y - 1, t_x), active=on, space=Space.SHARED)
        # +, -, -, maximum(): 2 compares and 2 selects. Lane 0 (tx == 0 <= m) takes every
        # cell, so every warp (one per CTA) issues this compute.
        p.compute(7)
        p.store(f"st_{label}{m}", temp(t_y, t_x), active=on, space=Space.SHARED)
        p.barrier()

    for m in range(BLOCK):  # constant trip counts: both wavefront loops are unrolled
        cell("up", m, tx + 1, m - tx + 1)
    for m in range(BLOCK - 2, -1, -1):
        cell("down", m, tx + BLOCK - m, BLOCK - tx)
    for ty in range(BLOCK):
        p.compute(2)  # index + ty * cols
        p.load(f"ld_out{ty}", temp(ty + 1, tx + 1), space=Space.SHARED)
        p.store(f"st_out{ty}", matrix + (index + ty * cols) * _F4)
    return p.build()


# -- srad_v2 ----------------------------------------------------------------------


def srad_v2_kernels(rows: int, cols: int, niter: int = 1, *, mem: DeviceMemory | None = None,
                    pcs: PCs | None = None, replicate: bool = True) -> list[KernelTrace]:
    """Rodinia 3.1 srad_v2: ``srad_cuda_1`` then ``srad_cuda_2``, ``niter`` times.

    Follows ``cuda/srad/srad_v2/srad.cu`` (``runTest``) and ``srad_kernel.cu``:
    a ``rows x cols`` float image, both kernels on a grid of ``(cols/16,
    rows/16)`` CTAs of 16 x 16 threads.

    Parameters
    ----------
    rows, cols : int
        Image size (multiples of 16).
    niter : int
        SRAD iterations (each launches both kernels; later iterations repeat
        the first's address streams, and share its KernelTrace objects).
    mem, pcs, replicate
        Array placement, PC numbering and CTA replication (module docstring).

    Returns
    -------
    list of KernelTrace
        ``2 * niter`` launches in execution order.

    Raises
    ------
    ValueError
        If a size is not a positive multiple of 16 or ``niter`` is not positive.
    """
    _check_multiple("rows", rows, BLOCK)
    _check_multiple("cols", cols, BLOCK)
    if int(niter) != niter or niter < 1:
        raise ValueError(f"niter: must be a positive integer, not {niter}")
    mem = DeviceMemory() if mem is None else mem
    pcs = PCs() if pcs is None else pcs
    size = rows * cols * _F4
    names = ("J_cuda", "C_cuda", "E_C", "W_C", "S_C", "N_C")  # cudaMalloc order
    arrays = {name: mem.alloc(name, size) for name in names}
    gx, gy = cols // BLOCK, rows // BLOCK
    tile = BLOCK * BLOCK * _F4

    def edges(bx, by):
        """srad_cuda_1's cases: by == 0 / last row (else-if), bx == 0 / last column."""
        top, left = by == 0, bx == 0
        return top + 2 * ((by == gy - 1) & ~top) + 4 * left + 8 * ((bx == gx - 1) & ~left)

    k1 = build_kernel("srad_cuda_1", (gx, gy), (BLOCK, BLOCK),
                      lambda kb, shape, at: _srad_1(kb, shape, at, cols, gx, gy, arrays, pcs),
                      classes=edges, shared_bytes=6 * tile, replicate=replicate)
    k2 = build_kernel("srad_cuda_2", (gx, gy), (BLOCK, BLOCK),
                      lambda kb, shape, at: _srad_2(kb, shape, at, cols, gx, gy, arrays, pcs),
                      classes=lambda bx, by: (by == gy - 1) + 2 * (bx == gx - 1),
                      shared_bytes=5 * tile, replicate=replicate)
    return [k1, k2] * niter


def _last_row(cols: int, gy: int, bx, tx):
    """Element ``tx`` of CTA column ``bx`` in the image's last row (the bottom edge's reads)."""
    return cols * BLOCK * (gy - 1) + BLOCK * bx + cols * (BLOCK - 1) + tx


def _last_col(cols: int, gx: int, by, ty):
    """Element ``ty`` of CTA row ``by`` in the image's last column (the right edge's reads)."""
    return cols * BLOCK * by + BLOCK * (gx - 1) + cols * ty + BLOCK - 1


def _srad_branches(p: Program, kb: KernelBuilder, branches, prefix: str) -> None:
    """Issue an if/else-if chain: each path's shared loads by the lanes that take it."""
    taken = np.zeros(kb.n_threads, dtype=bool)
    for name, cond, loads in branches:
        on = cond & ~taken
        taken |= on
        p.compute(2)  # the path's condition (compare and branch)
        for label, addr in loads:
            p.load(f"{prefix}_{name}_{label}", addr, active=on, space=Space.SHARED)
        p.compute(len(loads), active=on)  # one "- jc" (or move) per value


def _srad_1(kb: KernelBuilder, shape: tuple, at: tuple, cols: int, gx: int, gy: int,
            arrays: dict, pcs: PCs) -> KernelTrace:
    """srad_cuda_1(E_C, W_C, N_C, S_C, J_cuda, C_cuda, cols, rows, q0sqr)."""
    tile = BLOCK * BLOCK * _F4
    # temp, temp_result, north, south, east, west: declaration order.
    sh_temp, sh_result, sh_north, sh_south, sh_east, sh_west = (k * tile for k in range(6))
    p = Program(kb, pcs, kb.name)
    tx, ty = kb.tx, kb.ty
    bx, by = at
    j = arrays["J_cuda"]
    corner = cols * BLOCK * by + BLOCK * bx
    index = corner + cols * ty + tx
    index_n = corner + tx - cols  # row -1 for by == 0: read, then overwritten below
    index_s = corner + cols * BLOCK + tx  # row `rows` for the last CTA row: likewise
    index_w = corner + cols * ty - 1
    index_e = corner + cols * ty + BLOCK

    def sh(base, y, x):
        return base + (y * BLOCK + x) * _F4

    own = sh(0, ty, tx)
    p.compute(22)  # five indices
    p.stage("north", j + index_n * _F4, sh_north + own)
    p.stage("south", j + index_s * _F4, sh_south + own)
    top = shape[1] == 0
    bottom = (shape[1] == gy - 1) & ~top
    p.compute(2)  # by == 0
    p.compute(5, active=top)
    p.stage("north_edge", j + (BLOCK * bx + tx) * _F4, sh_north + own, active=top)
    p.compute(2, active=~top)  # by == gridDim.y - 1
    p.compute(9, active=bottom)
    p.stage("south_edge", j + _last_row(cols, gy, bx, tx) * _F4, sh_south + own, active=bottom)
    p.barrier()
    p.stage("west", j + index_w * _F4, sh_west + own)
    p.stage("east", j + index_e * _F4, sh_east + own)
    left = shape[0] == 0
    right = (shape[0] == gx - 1) & ~left
    p.compute(2)  # bx == 0
    p.compute(4, active=left)
    p.stage("west_edge", j + (cols * BLOCK * by + cols * ty) * _F4, sh_west + own, active=left)
    p.compute(2, active=~left)  # bx == gridDim.x - 1
    p.compute(9, active=right)
    p.stage("east_edge", j + _last_col(cols, gx, by, ty) * _F4, sh_east + own, active=right)
    p.barrier()
    p.stage("temp", j + index * _F4, sh_temp + own)
    p.barrier()
    p.load("ld_jc", sh_temp + own, space=Space.SHARED)
    last = BLOCK - 1
    t_n, t_s = sh(sh_temp, ty - 1, tx), sh(sh_temp, ty + 1, tx)
    t_w, t_e = sh(sh_temp, ty, tx - 1), sh(sh_temp, ty, tx + 1)
    north, south = sh_north + own, sh_south + own
    west, east = sh_west + own, sh_east + own
    _srad_branches(p, kb, [
        ("nw", (ty == 0) & (tx == 0), [("n", north), ("s", t_s), ("w", west), ("e", t_e)]),
        ("ne", (ty == 0) & (tx == last), [("n", north), ("s", t_s), ("w", t_w), ("e", east)]),
        ("se", (ty == last) & (tx == last), [("n", t_n), ("s", south), ("w", t_w), ("e", east)]),
        ("sw", (ty == last) & (tx == 0), [("n", t_n), ("s", south), ("w", west), ("e", t_e)]),
        ("n", ty == 0, [("n", north), ("s", t_s), ("w", t_w), ("e", t_e)]),
        ("e", tx == last, [("n", t_n), ("s", t_s), ("w", t_w), ("e", east)]),
        ("s", ty == last, [("n", t_n), ("s", south), ("w", t_w), ("e", t_e)]),
        ("w", tx == 0, [("n", t_n), ("s", t_s), ("w", west), ("e", t_e)]),
        ("in", np.ones(kb.n_threads, dtype=bool), [("n", t_n), ("s", t_s), ("w", t_w), ("e", t_e)]),
    ], "ld")
    # g2 (10), l (4), num (5), den (2), qsqr (2), den (5), c (2); saturation as
    # min/max selects (2) feeding one store of temp_result.
    p.compute(32)
    p.store("st_result", sh_result + own, space=Space.SHARED)
    p.barrier()
    p.load("ld_result", sh_result + own, space=Space.SHARED)
    p.store("st_c", arrays["C_cuda"] + index * _F4)
    p.store("st_e", arrays["E_C"] + index * _F4)
    p.store("st_w", arrays["W_C"] + index * _F4)
    p.store("st_s", arrays["S_C"] + index * _F4)
    p.store("st_n", arrays["N_C"] + index * _F4)
    return p.build()


def _srad_2(kb: KernelBuilder, shape: tuple, at: tuple, cols: int, gx: int, gy: int,
            arrays: dict, pcs: PCs) -> KernelTrace:
    """srad_cuda_2(E_C, W_C, N_C, S_C, J_cuda, C_cuda, cols, rows, lambda, q0sqr)."""
    tile = BLOCK * BLOCK * _F4
    # south_c, east_c, c_cuda_temp, c_cuda_result, temp: declaration order.
    sh_south, sh_east, sh_ctemp, sh_cresult, sh_temp = (k * tile for k in range(5))
    p = Program(kb, pcs, kb.name)
    tx, ty = kb.tx, kb.ty
    bx, by = at
    j, c = arrays["J_cuda"], arrays["C_cuda"]
    corner = cols * BLOCK * by + BLOCK * bx
    index = corner + cols * ty + tx
    index_s = corner + cols * BLOCK + tx
    index_e = corner + cols * ty + BLOCK
    own = (ty * BLOCK + tx) * _F4
    p.compute(13)  # three indices
    p.stage("temp_j", j + index * _F4, sh_temp + own)
    p.barrier()
    p.stage("south_c", c + index_s * _F4, sh_south + own)
    bottom = shape[1] == gy - 1
    p.compute(2)  # by == gridDim.y - 1
    p.compute(9, active=bottom)
    p.stage("south_c_edge", c + _last_row(cols, gy, bx, tx) * _F4, sh_south + own, active=bottom)
    p.barrier()
    p.stage("east_c", c + index_e * _F4, sh_east + own)
    right = shape[0] == gx - 1
    p.compute(2)  # bx == gridDim.x - 1
    p.compute(9, active=right)
    p.stage("east_c_edge", c + _last_col(cols, gx, by, ty) * _F4, sh_east + own, active=right)
    p.barrier()
    p.stage("c_temp", c + index * _F4, sh_ctemp + own)
    p.barrier()
    p.load("ld_cc", sh_ctemp + own, space=Space.SHARED)
    last = BLOCK - 1
    c_s = sh_ctemp + ((ty + 1) * BLOCK + tx) * _F4
    c_e = sh_ctemp + (ty * BLOCK + tx + 1) * _F4
    _srad_branches(p, kb, [
        ("se", (ty == last) & (tx == last), [("s", sh_south + own), ("e", sh_east + own)]),
        ("e", tx == last, [("s", c_s), ("e", sh_east + own)]),
        ("s", ty == last, [("s", sh_south + own), ("e", c_e)]),
        ("in", np.ones(kb.n_threads, dtype=bool), [("s", c_s), ("e", c_e)]),
    ], "ld")
    # d_sum = cn * N_C[index] + cs * S_C[index] + cw * W_C[index] + ce * E_C[index]
    p.load("ld_nc", arrays["N_C"] + index * _F4)
    p.load("ld_sc", arrays["S_C"] + index * _F4)
    p.load("ld_wc", arrays["W_C"] + index * _F4)
    p.load("ld_ec", arrays["E_C"] + index * _F4)
    p.compute(7)  # 4 *, 3 +
    p.load("ld_temp", sh_temp + own, space=Space.SHARED)
    p.compute(3)  # 0.25 * lambda * d_sum +
    p.store("st_c_result", sh_cresult + own, space=Space.SHARED)
    p.barrier()
    p.load("ld_c_result", sh_cresult + own, space=Space.SHARED)
    p.store("st_j", j + index * _F4)
    return p.build()
