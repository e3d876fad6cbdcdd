"""tian15 srad: Rodinia OpenCL srad (the srad_v1 structure), six kernels.

tian15 compiled OpenCL benchmarks only (tian15 Section 4.2), and Rodinia's
only OpenCL SRAD is ``opencl/srad`` (in the suite since 2.0; it ports CUDA
``srad_v1``, not ``srad_v2``), so this follows ``opencl/srad/kernel/
kernel_gpu_opencl.cl`` with the host sequence of ``kernel_gpu_opencl_wrapper.c``
and ``srad.c``: ``extract_kernel``; per iteration ``prepare_kernel``, the
``reduce_kernel`` launches that sum the image and its squares (local memory,
barriers), ``srad_kernel`` and ``srad2_kernel``; finally ``compress_kernel``.
Work-groups are ``NUMBER_THREADS = 256`` work-items, one per pixel; the image
is ``Nr x Nc`` floats in column-major order (``ei = row + Nr * col``), and the
neighbours come from the index arrays ``iN``, ``iS``, ``jW``, ``jE``.

No address depends on the pixel values, so every iteration has the same
trace; Rodinia's run script does 100 iterations, the emulator emits
:data:`ITERATIONS` (docs/workloads/tian15_a.md).

tian15 Table 2: srad, 512x512, MI 102.2.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload
from golden.workloads._program import Program

__all__ = ["build", "srad_kernels", "SIZE", "ITERATIONS", "NUMBER_THREADS"]

#: Image rows and columns at scale 1.0 (tian15 Table 2: 512x512).
SIZE = 512
#: srad iterations emitted (Rodinia's run script uses 100; every iteration is the same).
ITERATIONS = 2
#: ``NUMBER_THREADS`` of srad.h.
NUMBER_THREADS = 256

_F = 4  # sizeof(fp) == sizeof(int)
_SH = Space.SHARED

# Compute instructions: the operators the source writes between memory instructions
# (docs/workloads/tian15_a.md, "compute-count rule").
_EI = 2  # ei = bx * NUMBER_THREADS + tx
_GUARD = 2  # if (ei < d_Ne): compare, branch
_ROWCOL = 3 + 3 + 2  # row = (ei+1) % Nr - 1; col = (ei+1) / Nr + 1 - 1; if (... == 0): ei+1
#                     and (ei+1) % Nr are computed once
_ROWCOL_FIX = 2  # row = Nr - 1; col = col - 1
_NEIGHBOUR = {"iN": 2, "iS": 1, "jW": 2, "jE": 2}  # iN[row] + Nr * col (Nr * col once), ...
_DERIV = 1  # ... - d_Jc
_SRAD_MATH = 6 + 4 + 3 + 1 + 2 + 4 + 2 + 4  # G2, L, num, den, qsqr, den, c, saturation
_DIVERGENCE = 4  # cN*dN + cS*dS + cW*dW + cE*dE: a product and 3 FMAs
_UPDATE = 2  # I + 0.25 * lambda * D: a product and an FMA
_LOOP = 2  # increment, compare-and-branch, per iteration


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Trace of a Rodinia OpenCL SRAD run.

    Parameters
    ----------
    scale : float
        ``Nr = Nc = 512 * scale`` rounded to a power of two, at least 16, so that
        each ``reduce_kernel`` launch is either all full work-groups or a single one.
    seed : int
        Unused (the addresses do not depend on the image).

    Returns
    -------
    Workload
        extract, ``ITERATIONS`` x (prepare, reduce..., srad, srad2), compress.
    """
    side = max(16, 1 << int(round(np.log2(SIZE * scale))))
    mem = DeviceMemory()
    kernels = srad_kernels(side, side, ITERATIONS, mem)
    return Workload(
        name="tian15/srad",
        kernels=kernels,
        params={"rows": side, "cols": side, "iterations": ITERATIONS,
                "number_threads": NUMBER_THREADS, "arrays": dict(mem.arrays)},
        source=_SOURCE,
    )


def srad_kernels(nr: int, nc: int, niter: int, mem: DeviceMemory) -> list[KernelTrace]:
    """The launches of ``niter`` SRAD iterations on an ``nr x nc`` image.

    The launches of one iteration are built once and repeated (identical traces).

    Parameters
    ----------
    nr, nc : int
        Image rows and columns.
    niter : int
        SRAD iterations.
    mem : DeviceMemory
        Allocator of the device arrays (in ``clCreateBuffer`` order).

    Returns
    -------
    list of KernelTrace
        The launches in host order.

    Raises
    ------
    ValueError
        If a dimension or ``niter`` is not positive, or a ``reduce_kernel`` launch
        would mix full work-groups with a partial last one (not emulated).
    """
    for label, v in (("nr", nr), ("nc", nc), ("niter", niter)):
        if v < 1:
            raise ValueError(f"{label}: must be a positive integer, not {v}")
    ne = nr * nc
    arr = {}
    # clCreateBuffer order of kernel_gpu_opencl_wrapper.c.
    for name, nbytes in (("d_I", ne), ("d_iN", nr), ("d_iS", nr), ("d_jE", nc), ("d_jW", nc),
                         ("d_dN", ne), ("d_dS", ne), ("d_dW", ne), ("d_dE", ne), ("d_c", ne),
                         ("d_sums", ne), ("d_sums2", ne)):
        arr[name] = mem.alloc(name, _F * nbytes)
    pcs = PCs()
    blocks = -(-ne // NUMBER_THREADS)
    iteration = [_prepare(ne, blocks, arr, pcs)]
    # Reduction launches: while (blocks2 != 0) {...} of the host.
    blocks2, no, mul = blocks, ne, 1
    while blocks2:
        iteration.append(_reduce(no, mul, blocks2, arr, pcs))
        no = blocks2
        if blocks2 == 1:
            blocks2 = 0
        else:
            mul *= NUMBER_THREADS
            blocks2 = -(-blocks2 // NUMBER_THREADS)
    iteration += [_srad(nr, ne, blocks, arr, pcs), _srad2(nr, ne, blocks, arr, pcs)]
    extract = _pointwise("extract_kernel", ne, blocks, arr, pcs)
    compress = _pointwise("compress_kernel", ne, blocks, arr, pcs)
    return [extract] + iteration * niter + [compress]


def _launch(name: str, blocks: int, pcs: PCs, shared_bytes: int = 0):
    kb = KernelBuilder(name, grid=(blocks,), block=(NUMBER_THREADS,), shared_bytes=shared_bytes)
    return kb, Program(kb, pcs, name)


def _pointwise(name, ne, blocks, arr, pcs) -> KernelTrace:
    """extract: ``I[ei] = exp(I[ei] / 255)``; compress: ``I[ei] = log(I[ei]) * 255``."""
    kb, p = _launch(name, blocks, pcs)
    ei = kb.gtid
    live = ei < ne
    p.compute(_EI + _GUARD)
    p.load("ld_I", arr["d_I"] + _F * ei, active=live)
    p.compute(2, active=live)  # / 255 and exp; log and * 255
    p.store("st_I", arr["d_I"] + _F * ei, active=live)
    return p.build()


def _prepare(ne, blocks, arr, pcs) -> KernelTrace:
    """``d_sums[ei] = d_I[ei]; d_sums2[ei] = d_I[ei] * d_I[ei];``"""
    kb, p = _launch("prepare_kernel", blocks, pcs)
    ei = kb.gtid
    live = ei < ne
    p.compute(_EI + _GUARD)
    p.load("ld_I", arr["d_I"] + _F * ei, active=live)
    p.store("st_sums", arr["d_sums"] + _F * ei, active=live)
    # d_sums may alias d_I: the store forces d_I[ei] to be read again.
    p.load("ld_I_again", arr["d_I"] + _F * ei, active=live)
    p.compute(1, active=live)
    p.store("st_sums2", arr["d_sums2"] + _F * ei, active=live)
    return p.build()


def _reduce(no, mul, grid_dim, arr, pcs) -> KernelTrace:
    """One ``reduce_kernel`` launch: sums of ``no`` partial sums ``mul`` apart."""
    nt = NUMBER_THREADS
    nf = nt - (grid_dim * nt - no)  # elements of the last work-group
    if nf != nt and grid_dim > 1:
        raise ValueError(f"reduce_kernel with {grid_dim} work-groups and a partial last one "
                         f"({nf} of {nt} elements) is not emulated; use a power-of-two image")
    kb, p = _launch("reduce_kernel", grid_dim, pcs, shared_bytes=2 * nt * _F)
    tx, bx = kb.tx, kb.bx
    ei = kb.gtid
    psum, psum2 = 0, nt * _F  # __local d_psum[NUMBER_THREADS], d_psum2[NUMBER_THREADS]
    p.compute(_EI + 3)  # ei; nf = NUMBER_THREADS - (gridDim * NUMBER_THREADS - d_no)
    p.compute(2)  # if (ei < d_no)
    take = ei < no
    p.compute(1, active=take)  # ei * d_mul (once for both loads)
    p.load("ld_sums", arr["d_sums"] + _F * ei * mul, active=take)
    p.store("st_psum", psum + _F * tx, active=take, space=_SH)
    p.load("ld_sums2", arr["d_sums2"] + _F * ei * mul, active=take)
    p.store("st_psum2", psum2 + _F * tx, active=take, space=_SH)
    p.compute(2)  # if (nf == NUMBER_THREADS)
    if nf == nt:
        df = nt
    else:  # a single, partial work-group: else-branch, last block
        p.compute(3)  # if (bx != (gridDim - 1))
        df = 1 << (nf.bit_length() - 1) if nf >= 2 else 0
        p.compute(4 * (nt.bit_length() - 1))  # for (i = 2; i <= NT; i *= 2) if (nf >= i) df = i
    i = 2
    while i <= df:
        # if ((tx + 1) % i == 0 [&& tx < df]): %, ==, branch [, <, branch]; tx + 1 once
        p.compute(_LOOP + (3 if nf == nt else 5) + (i == 2))
        hit = ((tx + 1) % i == 0) & (tx < df)
        for base, tag in ((psum, ""), (psum2, "2")):
            p.load(f"ld_psum{tag}_tx", base + _F * tx, active=hit, space=_SH)
            p.compute(2 if base == psum else 0, active=hit)  # tx - i / 2, once
            p.load(f"ld_psum{tag}_pair", base + _F * (tx - i // 2), active=hit, space=_SH)
            p.compute(1, active=hit)
            p.store(f"st_psum{tag}", base + _F * tx, active=hit, space=_SH)
        p.barrier()
        i *= 2
    last = tx == df - 1
    p.compute(2 if nf == nt else 3)  # if (tx == NUMBER_THREADS - 1) / if (tx == df - 1)
    for j in range(df, nf):  # remainder of a partial group (empty for a power of two)
        p.compute(_LOOP, active=last)
        for base, tag in ((psum, ""), (psum2, "2")):
            src = arr["d_sums" + tag] + _F * (bx * nt + j)
            p.load(f"ld_psum{tag}_rem", base + _F * tx, active=last, space=_SH)
            p.load(f"ld_sums{tag}_rem", src, active=last)
            p.compute(1, active=last)
            p.store(f"st_psum{tag}_rem", base + _F * tx, active=last, space=_SH)
    out = _F * bx * mul * nt
    for base, tag in ((psum, ""), (psum2, "2")):
        p.load(f"ld_psum{tag}_final", base + _F * tx, active=last, space=_SH)
        p.compute(2 if base == psum else 0, active=last)  # bx * d_mul * NUMBER_THREADS, once
        p.store(f"st_sums{tag}_final", arr["d_sums" + tag] + out, active=last)
    return p.build()


def _row_col(p: Program, kb: KernelBuilder, nr: int, ne: int):
    """Shared prologue of srad_kernel and srad2_kernel: ei, row, col, the guard.

    Returns ``(ei, row, col, live)``; row and col are clipped to the image, which
    changes them only in threads past the guard (``live`` false), whose addresses
    are never used.
    """
    ei = kb.gtid
    row = (ei + 1) % nr - 1
    col = (ei + 1) // nr
    wrap = (ei + 1) % nr == 0
    row = np.where(wrap, nr - 1, row)
    col = np.where(wrap, col - 1, col)
    p.compute(_EI + _ROWCOL)
    p.compute(_ROWCOL_FIX, active=wrap)
    p.compute(_GUARD)
    return ei, np.clip(row, 0, nr - 1), np.clip(col, 0, ne // nr - 1), ei < ne


def _srad(nr, ne, blocks, arr, pcs) -> KernelTrace:
    kb, p = _launch("srad_kernel", blocks, pcs)
    nc = ne // nr
    ei, r, c, live = _row_col(p, kb, nr, ne)
    img = arr["d_I"]
    p.load("ld_Jc", img + _F * ei, active=live)
    targets = (
        ("iN", arr["d_iN"] + _F * r, np.maximum(r - 1, 0) + nr * c),
        ("iS", arr["d_iS"] + _F * r, np.minimum(r + 1, nr - 1) + nr * c),
        ("jW", arr["d_jW"] + _F * c, r + nr * np.maximum(c - 1, 0)),
        ("jE", arr["d_jE"] + _F * c, r + nr * np.minimum(c + 1, nc - 1)),
    )
    for tag, index_addr, pixel in targets:
        p.load(f"ld_{tag}", index_addr, active=live)
        p.compute(_NEIGHBOUR[tag], active=live)
        p.load(f"ld_I_{tag}", img + _F * pixel, active=live)
        p.compute(_DERIV, active=live)
    p.compute(_SRAD_MATH, active=live)
    for name in ("d_dN", "d_dS", "d_dW", "d_dE", "d_c"):
        p.store(f"st_{name}", arr[name] + _F * ei, active=live)
    return p.build()


def _srad2(nr, ne, blocks, arr, pcs) -> KernelTrace:
    kb, p = _launch("srad2_kernel", blocks, pcs)
    nc = ne // nr
    ei, r, c, live = _row_col(p, kb, nr, ne)
    coef = arr["d_c"]
    p.load("ld_cN", coef + _F * ei, active=live)  # d_cW = d_c[ei] reuses this load
    p.load("ld_iS", arr["d_iS"] + _F * r, active=live)
    p.compute(_NEIGHBOUR["iN"], active=live)
    p.load("ld_cS", coef + _F * (np.minimum(r + 1, nr - 1) + nr * c), active=live)
    p.load("ld_jE", arr["d_jE"] + _F * c, active=live)
    p.compute(_NEIGHBOUR["jE"], active=live)
    p.load("ld_cE", coef + _F * (r + nr * np.minimum(c + 1, nc - 1)), active=live)
    for name in ("d_dN", "d_dS", "d_dW", "d_dE"):
        p.load(f"ld_{name}", arr[name] + _F * ei, active=live)
    p.compute(_DIVERGENCE, active=live)
    p.load("ld_I", arr["d_I"] + _F * ei, active=live)
    p.compute(_UPDATE, active=live)
    p.store("st_I", arr["d_I"] + _F * ei, active=live)
    return p.build()


_SOURCE = ("Rodinia opencl/srad/kernel/kernel_gpu_opencl.cl (extract, prepare, reduce, srad, "
           "srad2, compress) with kernel_gpu_opencl_wrapper.c")

register_workload("tian15", "srad", build, source=_SOURCE, mi=102.2, size="512x512",
                  description="speckle-reducing anisotropic diffusion (Rodinia OpenCL, v1), 512x512, 2 iter.")
