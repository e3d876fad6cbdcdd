"""kim20 SHFL: CUDA SDK ``shfl_scan``: the shuffle prefix sum and the shuffle integral image.

Follows ``Samples/2_Concepts_and_Techniques/shfl_scan/shfl_scan.cu`` and
``shfl_integral_image.cuh`` of NVIDIA/cuda-samples. kim20 ran the CUDA SDK
8.0 sample, which we could not read; the current copy spells the shuffles
``__shfl_up_sync`` / ``tile.shfl_xor`` where 8.0 had ``__shfl_up`` /
``__shfl_xor``, and we assume the loads and stores around them are those of
8.0 (shuffles never touch memory). ``main`` runs two tests:

``shuffle_simple_test`` (65536 ints)
    ``shfl_scan_test<<<256, 256, 32 B>>>(data, 32, partial_sums)``: each
    thread loads ``data[id]``, lane 31 of each warp writes its warp's sum to
    ``sums[warp_id]`` (shared), warp 0's first 8 lanes scan them, every warp
    but the first reads ``sums[warp_id - 1]``, then ``data[id]`` is stored
    and thread 255 stores ``partial_sums[blockIdx.x]``;
    ``shfl_scan_test<<<1, 256, 32 B>>>(partial_sums, 32)`` (no partial
    sums); ``uniform_add<<<255, 256>>>(data + 256, partial_sums, n)``:
    thread 0 stages ``partial_sums[blockIdx.x]`` in ``buf``, every thread
    adds it to ``data[id]``.
``shuffle_integral_image_test`` (1920 x 1080 bytes)
    ``shfl_intimage_rows<<<1080, 120>>>``: each thread loads one ``uint4``
    (16 pixels) of its row, scans (``get_prefix_sum``: the same shared
    ``sums`` exchange, 512 B), and writes four ``uint4`` of 32-bit sums in
    a swizzled order (``blockIdx.x * 480 + (id & 3) + (id >> 2) * 16``,
    ``+ ((id + 2) & 3) + 8``, ``+ 4``, ``+ 12``);
    ``shfl_vertical_shfl<<<60, (32, 8)>>>``: 135 steps down the columns,
    each loading and storing one ``uint`` per thread around a scan through
    ``sums[32][9]`` (1152 B).

Scaling shrinks the scan's length (a multiple of 256) and the image's
height (a multiple of 8; the kernels hard-code the 1920-pixel width).
Nothing depends on data: ``seed`` is unused.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads._program import Program
from golden.workloads._replicate import build_kernel

__all__ = ["build", "N_ELEMENTS", "WIDTH", "HEIGHT", "REGS", "scan_launches",
           "integral_image_launches"]

SOURCE = ("CUDA SDK shfl_scan: Samples/2_Concepts_and_Techniques/shfl_scan/shfl_scan.cu "
          "(shfl_scan_test, uniform_add), shfl_integral_image.cuh (shfl_intimage_rows, "
          "shfl_vertical_shfl)")
N_ELEMENTS = 65536  # shuffle_simple_test
WIDTH, HEIGHT = 1920, 1080  # shuffle_integral_image_test
SCAN_BLOCK = 256
ROW_THREADS = 120  # iDivUp(w, 16)
#: Registers per thread: estimate (docs/workloads/kim20.md, "Registers").
REGS = {"shfl_scan_test": 14, "uniform_add": 8, "shfl_intimage_rows": 40,
        "shfl_vertical_shfl": 18}
_SH = Space.SHARED
_WARP = 32


def _scan_test(kb: KernelBuilder, at: tuple, data: int, partial: int | None, pcs: PCs
               ) -> KernelTrace:
    """``shfl_scan_test(data, 32, partial_sums)``; ``partial=None`` is the NULL pointer."""
    p = Program(kb, pcs, "shfl_scan_test")
    tx = kb.tx
    block = kb.block[0]
    gid = at[0] * block + tx
    lane, warp = tx % _WARP, tx // _WARP
    p.compute(5)  # id, lane_id, warp_id
    p.load("ld_data", data + gid * 4)
    p.compute(5 * 4)  # unrolled i = 1..16 (5 steps): shfl, compare, add, shift, loop test
    p.compute(2)  # threadIdx.x % warpSize == warpSize - 1
    p.store("st_sums_warp", warp * 4, active=lane == _WARP - 1, space=_SH)
    p.barrier()
    scanners = (warp == 0) & (lane < block // _WARP)
    p.compute(4)  # warp_id == 0 && lane_id < blockDim.x / warpSize
    p.load("ld_sums_lane", lane * 4, active=scanners, space=_SH)
    p.compute(6 * (block // _WARP).bit_length(), active=scanners)  # the run-time loop
    p.store("st_sums_lane", lane * 4, active=scanners, space=_SH)
    p.barrier()
    p.compute(2)  # warp_id > 0
    p.load("ld_block_sum", (warp - 1) * 4, active=warp > 0, space=_SH)
    p.compute(1)  # value += blockSum
    p.store("st_data", data + gid * 4)
    if partial is not None:
        p.compute(3)  # partial_sums != NULL && threadIdx.x == blockDim.x - 1
        p.store("st_partial", partial + at[0] * 4, active=tx == block - 1)
    else:
        p.compute(1)  # partial_sums != NULL
    return p.build()


def _uniform_add(kb: KernelBuilder, at: tuple, data: int, partial: int, pcs: PCs) -> KernelTrace:
    """``uniform_add(data, partial_sums, len)`` (``data`` already offset by the host)."""
    p = Program(kb, pcs, "uniform_add")
    tx = kb.tx
    gid = at[0] * kb.block[0] + tx
    p.compute(4)  # id, id > len
    p.compute(2)  # threadIdx.x == 0
    p.load("ld_partial", partial + at[0] * 4, active=tx == 0)
    p.store("st_buf", np.zeros_like(tx), active=tx == 0, space=_SH)
    p.barrier()
    p.load("ld_buf", np.zeros_like(tx), space=_SH)
    p.load("ld_data", data + gid * 4)
    p.compute(1)
    p.store("st_data", data + gid * 4)
    return p.build()


def scan_launches(n: int, *, mem: DeviceMemory, pcs: PCs, replicate: bool = True
                  ) -> list[KernelTrace]:
    """The three launches of ``shuffle_simple_test`` for ``n`` ints (a multiple of 256).

    Raises
    ------
    ValueError
        If ``n`` is not a positive multiple of 256 or exceeds 65536 (one CTA scans the
        partial sums).
    """
    if n % SCAN_BLOCK or not SCAN_BLOCK <= n <= SCAN_BLOCK * SCAN_BLOCK:
        raise ValueError(f"n_elements: must be a multiple of {SCAN_BLOCK} from {SCAN_BLOCK} "
                         f"to {SCAN_BLOCK ** 2}, not {n}")
    data = mem.alloc("d_data", n * 4)
    n_partial = n // SCAN_BLOCK
    partial = mem.alloc("d_partial_sums", n_partial * 4)
    shmem = SCAN_BLOCK // _WARP * 4  # shmem_sz = nWarps * sizeof(int)
    p_block = min(n_partial, SCAN_BLOCK)
    p_grid = -(-n_partial // p_block)
    out = [
        build_kernel("shfl_scan_test", (n // SCAN_BLOCK, 1), (SCAN_BLOCK,),
                     lambda kb, s, at: _scan_test(kb, at, data, partial, pcs),
                     shared_bytes=shmem, replicate=replicate),
        build_kernel("shfl_scan_test", (p_grid, 1), (p_block,),
                     lambda kb, s, at: _scan_test(kb, at, partial, None, pcs),
                     shared_bytes=shmem, replicate=replicate),
    ]
    if n_partial > 1:  # uniform_add<<<gridSize - 1, blockSize>>>
        out.append(build_kernel("uniform_add", (n_partial - 1, 1), (SCAN_BLOCK,),
                                lambda kb, s, at: _uniform_add(kb, at, data + SCAN_BLOCK * 4,
                                                               partial, pcs),
                                shared_bytes=4, replicate=replicate))
    return out


def _rows(kb: KernelBuilder, at: tuple, img: int, out: int, pcs: PCs) -> KernelTrace:
    """``shfl_intimage_rows(img, integral_image)``: one 1920-pixel row per CTA."""
    p = Program(kb, pcs, "shfl_intimage_rows")
    tid = kb.tx
    lane, warp = tid % _WARP, tid // _WARP
    row = at[0]
    p.compute(3)  # scanline = &img[blockIdx.x * 120]
    p.load("ld_scanline", img + (row * ROW_THREADS + tid) * 16, width=16)
    # get_prefix_sum: 16 byte extracts and 12 + 12 adds, 5 unrolled shfl steps of 17 adds
    p.compute(16 + 24 + 5 * 20)
    p.store("st_sums_warp", warp * 4, active=lane == _WARP - 1, space=_SH)
    p.barrier()
    p.load("ld_sums_lane", lane * 4, active=warp == 0, space=_SH)
    p.compute(5 * 4, active=warp == 0)  # unrolled i = 1..16
    p.store("st_sums_lane", lane * 4, active=warp == 0, space=_SH)
    p.barrier()
    p.compute(2)  # warp_id > 0
    p.load("ld_block_sum", (warp - 1) * 4, active=warp > 0, space=_SH)
    p.compute(16, active=warp > 0)
    id_mask, id_swizzle, id_shift = tid & 3, (tid + 2) & 3, (tid >> 2) << 4
    base = out + row * 480 * 16
    p.compute(8 + 3)  # idMask, idSwizzle, idShift, blockOffset; three shfl_xor
    p.store("st_a", base + (id_mask + id_shift) * 16, width=16)
    p.store("st_b", base + (id_swizzle + id_shift + 8) * 16, width=16)
    p.compute(4)  # four shfl_xor
    p.store("st_c", base + (id_mask + id_shift + 4) * 16, width=16)
    p.store("st_d", base + (id_swizzle + id_shift + 12) * 16, width=16)
    return p.build()


def _vertical(kb: KernelBuilder, at: tuple, img: int, width: int, height: int, pcs: PCs
              ) -> KernelTrace:
    """``shfl_vertical_shfl(img, width, height)``: 8-row steps down 32 columns per CTA."""
    p = Program(kb, pcs, "shfl_vertical_shfl")
    tx, ty = kb.tx, kb.ty
    tidx = at[0] * 32 + tx
    dim_y = kb.block[1]

    def sums(r, c):  # __shared__ unsigned int sums[32][9]
        return (r * 9 + c) * 4

    p.compute(4)
    p.store("st_sums_zero", sums(tx, ty), space=_SH)
    p.barrier()
    j, k = tx % 8, tx // 8 + ty * 4
    for step in range(height // dim_y):  # 135 trips at 1080 rows: a loop, one PC each
        p.compute(2 + 4)  # loop overhead; p = img + (threadIdx.y + step*8) * width + tidx
        addr = img + ((ty + step * dim_y) * width + tidx) * 4
        p.load("ld_p", addr)
        p.store("st_sums", sums(tx, ty), space=_SH)
        p.barrier()
        p.compute(4)  # j, k
        p.load("ld_sums_kj", sums(k, j), space=_SH)
        p.compute(4 * 5)  # four shfl_up steps
        p.store("st_sums_kj", sums(k, j), space=_SH)
        p.barrier()
        p.compute(2)  # threadIdx.y > 0
        p.load("ld_sums_up", sums(tx, ty - 1), active=ty > 0, space=_SH)
        p.compute(1, active=ty > 0)
        p.compute(1)  # sum += stepSum
        p.load("ld_sums_last", sums(tx, dim_y - 1), space=_SH)
        p.compute(1)
        p.barrier()
        p.store("st_p", addr)
    return p.build()


def integral_image_launches(height: int, *, mem: DeviceMemory, pcs: PCs,
                            replicate: bool = True) -> list[KernelTrace]:
    """The two launches of ``shuffle_integral_image_test`` for a 1920 x ``height`` image.

    Raises
    ------
    ValueError
        If ``height`` is not a positive multiple of 8.
    """
    if height % 8 or height < 8:
        raise ValueError(f"height: must be a positive multiple of 8, not {height}")
    n = WIDTH * height
    img = mem.alloc("d_data", n * 4)  # the sample allocates 4 bytes per pixel
    out = mem.alloc("d_integral_image", n * 4 * 4)
    return [
        build_kernel("shfl_intimage_rows", (height, 1), (ROW_THREADS,),
                     lambda kb, s, at: _rows(kb, at, img, out, pcs),
                     shared_bytes=128 * 4, replicate=replicate),
        build_kernel("shfl_vertical_shfl", (WIDTH // 32, 1), (32, 8),
                     lambda kb, s, at: _vertical(kb, at, out, WIDTH, height, pcs),
                     shared_bytes=32 * 9 * 4, replicate=replicate),
    ]


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Both tests: ``65536 * scale`` ints (a multiple of 256) and ``1080 * scale`` rows.

    ``seed`` is unused (no data-dependent address).
    """
    n = scaled(N_ELEMENTS, scale, multiple=SCAN_BLOCK)
    height = scaled(HEIGHT, scale, multiple=8)
    pcs = PCs()
    scan_mem, image_mem = DeviceMemory(), DeviceMemory(base=0x2000_0000)
    kernels = scan_launches(n, mem=scan_mem, pcs=pcs)
    kernels += integral_image_launches(height, mem=image_mem, pcs=pcs)
    return Workload(name="kim20/shfl", kernels=with_resources(kernels, REGS),
                    params={"n_elements": n, "width": WIDTH, "height": height,
                            "arrays": {**scan_mem.sizes(), **{f"image.{k}": v for k, v in
                                                               image_mem.sizes().items()}}},
                    source=SOURCE)


register_workload(SUITE, "shfl", build, source=SOURCE, size="65536 ints; 1920x1080 image",
                  description="CUDA SDK shfl_scan: shuffle prefix sum and integral image",
                  **paper_figures("shfl"))
