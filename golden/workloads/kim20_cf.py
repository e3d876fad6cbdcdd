"""kim20 CF: Tango CifarNet (CUDA), one 32x32x3 image: three 5x5 convolutions, three poolings, two FC layers.

Follows the CUDA CifarNet of the Tango DNN benchmark suite (Karki et al.,
ISPASS 2019; gitlab.com/Tango-DNNbench/Tango, ``GPU/CifarNet``, the file
"CUDA implementation of CifarNet" by C. P. Keshava, read from a public
copy). Tango's GPU networks were written for GPGPU-Sim without libraries:
every layer is one hand-written kernel, and every convolution and pooling
kernel runs as **one CTA of 32 x 32 threads** (``n_blocks(1,1,1)``,
``n_threads(32,32,1)``), ``x = threadIdx.x``, ``y = threadIdx.y``.
Weights and features are ``double``, the input image ``int``. The batch is
one image (the kernels ignore the ``NUM`` argument). Launches, in order:

============  ========================================================================
kernel         what each thread does (source's loops; 5x5 taps and 3x3 windows unrolled)
============  ========================================================================
ExecuteFirstLayer   for f < 32: 25 taps at ``(i, j) = (x-2.., y-2..)`` inside 32x32:
                    ``R/G/B[i*32 + j]`` and ``W1[m + f*75 (+25, +50)]``; store
                    ``L1F[f*1024 + x*32 + y]``
pooling1            for out < 32, odd ``x``, odd ``y``: 3x3 max of ``L1F[out*1024 + i*32 + j]``
                    (``i, j <= 31``); store ``P1[out*256 + (x-1)*8 + (y-1)/2]``
ExecuteSecondLayer  for f < 32: for n < 32, if ``x < 16 && y < 16``: 25 taps of
                    ``P1[n*256 + i*16 + j]`` and ``W2[m + f*800 + n*25]``; every thread
                    stores ``L2F[f*256 + x*16 + y]``
pooling2            for out < 32, odd ``x, y < 16``: 3x3 mean of ``L2F[out*256 + i*16 + j]``;
                    store ``P2[out*64 + (x-1)*4 + (y-1)/2]``
ExecuteThirdLayer   for f < 64: for n < 32, if ``x < 8 && y < 8``: ``P2[n*64 + i*8 + j]``,
                    ``W3[m + f*800 + n*25]``; every thread stores ``L3F[f*64 + x*8 + y]``
pooling3            for out < 64, odd ``x, y < 8``: mean of ``L3F[out*64 + i*8 + j]``;
                    store ``P3[out*16 + (x-1)*2 + (y-1)/2]``
ExecuteFourthLayer  ``<<<1, 64>>>``, n = tx: for f < 64, 4x4: ``P3[f*16 + x*4 + y]``,
                    ``W4[y + x*4 + f*16 + n*1024]``; store ``L4F[n]``
ExecuteFifthLayer   ``<<<1, 32>>>``, n < 9: for f < 64: ``L4F[f]``, ``W5[f + n*64]``;
                    store ``L5F[n]``
============  ========================================================================

The source's pooling stores use ``(x-1)*8`` (``*4``, ``*2``) where the
output row is 16 (8, 4) wide: emulated as written. In the pooling windows
``max < L[k]`` and ``max = L[k]`` read the same element: one load (the
compiled-count convention of :mod:`golden.workloads._polybench`).

Scaling keeps every layer's shape and the arrays' sizes and shrinks the
filter loops: ``f < 32 * scale`` in the first two convolutions and ``64 *
scale`` in the third (and the loops over their outputs downstream follow).
Nothing depends on data: ``seed`` is unused.
"""

from __future__ import annotations

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads._polybench import Access, Emitter, ld, st

__all__ = ["build", "cifarnet_kernels", "REGS", "FILTERS"]

SOURCE = "Tango (gitlab.com/Tango-DNNbench/Tango) GPU/CifarNet: CUDA implementation of CifarNet"
#: Filters of the three convolutions at scale 1.0.
FILTERS = (32, 32, 64)
#: Registers per thread: estimate (docs/workloads/kim20.md, "Registers"). The 32 x 32-thread
#: convolutions are capped at 32: kim20 ran them on 32,768 registers per SM, where a
#: 1,024-thread CTA fits only with at most 32 registers per thread.
REGS = {"ExecuteFirstLayer": 32, "pooling1": 24, "ExecuteSecondLayer": 32, "pooling2": 24,
        "ExecuteThirdLayer": 32, "pooling3": 24, "ExecuteFourthLayer": 24,
        "ExecuteFifthLayer": 20}
_D, _I = 8, 4  # sizeof(double), sizeof(int)
_TAP_TEST = 6  # if (i<0 || j<0) / else if (j>side || i>side): 4 compares, 2 branches
_ACCESS_MODE = "compiled"


def _conv_taps(x, y, side: int, data: int, data_step: int, weights: int, w_offset: int,
               prefix: str) -> list[Access]:
    """One input channel's 25 taps: ``data[(x-2+a)*side + (y-2+b)]`` and ``weights[m + w_offset]``.

    ``data_step`` and the weights' step (25 doubles) move the accesses per trip of the loop
    over input channels.
    """
    body = []
    for a in range(5):
        for b in range(5):
            i, j = x - 2 + a, y - 2 + b
            inside = (i >= 0) & (j >= 0) & (i < side) & (j < side)
            m = b + a * 5
            body.append(ld(f"{prefix}ld_in{m}", (i * side + j) * _D, data, step=data_step,
                           gap=_TAP_TEST, active=inside, width=_D))
            body.append(ld(f"{prefix}ld_w{m}", 0, weights + (m + w_offset) * _D, step=25 * _D,
                           active=inside, width=_D))
    return body


def _first_layer(kb: KernelBuilder, pcs: PCs, filters: int, a: dict) -> KernelTrace:
    x, y = kb.tx, kb.ty
    em = Emitter(kb, _ACCESS_MODE, prologue=2, pcs=pcs)
    body = []
    for p in range(5):
        for q in range(5):
            i, j = x - 2 + p, y - 2 + q
            inside = (i >= 0) & (j >= 0) & (i <= 31) & (j <= 31)
            m = q + p * 5
            px = (i * 32 + j) * _I
            for c, (chan, off) in enumerate((("R", 0), ("G", 25), ("B", 50))):
                body.append(ld(f"ld_{chan}{m}", px, a[chan], gap=_TAP_TEST if c == 0 else 1,
                               active=inside, width=_I))
                body.append(ld(f"ld_w{chan}{m}", 0, a["W1"] + (m + off) * _D, step=75 * _D,
                               active=inside, width=_D))
    body.append(st("st_features", (x * 32 + y) * _D, a["L1F"], step=1024 * _D, gap=4, width=_D))
    em.loop(body, filters)
    return em.finish()


def _conv_layer(kb: KernelBuilder, pcs: PCs, filters: int, channels: int, side: int,
                src: int, weights: int, out: int) -> KernelTrace:
    """ExecuteSecondLayer / ExecuteThirdLayer: ``side`` x ``side`` outputs per filter."""
    x, y = kb.tx, kb.ty
    em = Emitter(kb, _ACCESS_MODE, prologue=2, pcs=pcs)
    work = (x < side) & (y < side)
    for f in range(filters):
        # for n < channels: if (x < side) if (y < side) { 25 taps }; the weights of filter f
        taps = _conv_taps(x, y, side, src, side * side * _D, weights, f * 25 * channels, "")
        em.loop(taps, channels, active=work)
        # ReLU and the store, by every thread (the store is outside the ifs)
        em.straight([st("st_features", (f * side * side + x * side + y) * _D, out, gap=3,
                        width=_D)])
    return em.finish()


def _pooling(kb: KernelBuilder, pcs: PCs, outputs: int, side: int, src: int, dst: int,
             row_step: int) -> KernelTrace:
    """pooling1/2/3: 3x3 windows around odd ``(x, y) < side``, ``side`` x ``side`` inputs."""
    row, col = kb.tx, kb.ty
    em = Emitter(kb, _ACCESS_MODE, prologue=2, pcs=pcs)
    centre = (row % 2 == 1) & (col % 2 == 1) & (row < side) & (col < side)
    body = []
    for p in range(3):
        for q in range(3):
            i, j = row - 1 + p, col - 1 + q
            body.append(ld(f"ld_in{p}{q}", (i * side + j) * _D, src, step=side * side * _D,
                           gap=4, active=(i < side) & (j < side), width=_D))
    out = ((row - 1) * row_step + (col - 1) // 2) * _D
    body.append(st("st_pool", out, dst, step=(side // 2) ** 2 * _D, gap=3, width=_D))
    em.loop(body, outputs, active=centre)
    return em.finish()


def _fourth_layer(kb: KernelBuilder, pcs: PCs, channels: int, a: dict) -> KernelTrace:
    n = kb.tx
    em = Emitter(kb, _ACCESS_MODE, prologue=1, pcs=pcs)
    body = []
    for x in range(4):
        for y in range(4):
            body.append(ld(f"ld_pool{x}{y}", 0, a["P3"] + (x * 4 + y) * _D, step=16 * _D,
                           gap=1, width=_D))
            body.append(ld(f"ld_w{x}{y}", n * 1024 * _D, a["W4"] + (y + x * 4) * _D,
                           step=16 * _D, width=_D))
    em.loop(body, channels)
    em.straight([st("st_features", n * _D, a["L4F"], width=_D)])
    return em.finish()


def _fifth_layer(kb: KernelBuilder, pcs: PCs, a: dict) -> KernelTrace:
    n = kb.tx
    em = Emitter(kb, _ACCESS_MODE, prologue=3, pcs=pcs)
    em.loop([ld("ld_features", 0, a["L4F"], step=_D, width=_D),
             ld("ld_w", n * 64 * _D, a["W5"], step=_D, width=_D),
             ], 64, active=n < 9)
    em.straight([st("st_features", n * _D, a["L5F"], gap=1, width=_D)], active=n < 9)
    return em.finish()


def cifarnet_kernels(filters: tuple[int, int, int] = FILTERS, *, mem: DeviceMemory | None = None,
                     pcs: PCs | None = None) -> list[KernelTrace]:
    """The eight launches of the forward pass with ``filters`` in the three convolutions.

    Raises
    ------
    ValueError
        If a filter count is outside 1 .. the source's.
    """
    if len(filters) != 3 or not all(1 <= f <= g for f, g in zip(filters, FILTERS, strict=True)):
        raise ValueError(f"filters: three counts from 1 to {FILTERS}, not {filters}")
    mem = DeviceMemory() if mem is None else mem
    pcs = PCs() if pcs is None else pcs
    c1, c2, c3 = filters
    # NeuralNetwork(): cudaMalloc order.
    sizes = {"L1F": 32 * 32 * 32 * _D, "W1": 2400 * _D, "R": 32 * 32 * _I, "G": 32 * 32 * _I,
             "B": 32 * 32 * _I, "P1": 32 * 16 * 16 * _D, "W2": 5 * 5 * 32 * 32 * _D,
             "L2F": 32 * 16 * 16 * _D, "P2": 32 * 8 * 8 * _D, "W3": 5 * 5 * 32 * 64 * _D,
             "L3F": 64 * 8 * 8 * _D, "P3": 64 * 4 * 4 * _D, "L4F": 64 * _D,
             "W4": 64 * 4 * 4 * 64 * _D, "L5F": 9 * _D, "W5": 64 * 9 * _D}
    a = {name: mem.alloc(name, n) for name, n in sizes.items()}

    def block(name, threads=(32, 32)):
        return KernelBuilder(name, grid=(1,), block=threads)

    out = [
        _first_layer(block("ExecuteFirstLayer"), pcs, c1, a),
        _pooling(block("pooling1"), pcs, c1, 32, a["L1F"], a["P1"], 8),
        _conv_layer(block("ExecuteSecondLayer"), pcs, c2, c1, 16, a["P1"], a["W2"], a["L2F"]),
        _pooling(block("pooling2"), pcs, c2, 16, a["L2F"], a["P2"], 4),
        _conv_layer(block("ExecuteThirdLayer"), pcs, c3, c2, 8, a["P2"], a["W3"], a["L3F"]),
        _pooling(block("pooling3"), pcs, c3, 8, a["L3F"], a["P3"], 2),
        _fourth_layer(block("ExecuteFourthLayer", (64,)), pcs, c3, a),
        _fifth_layer(block("ExecuteFifthLayer", (32,)), pcs, a),
    ]
    return with_resources(out, REGS)


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """The CifarNet forward pass with ``scale`` of each convolution's filters; ``seed`` unused."""
    filters = tuple(scaled(f, scale) for f in FILTERS)
    mem = DeviceMemory()
    kernels = cifarnet_kernels(filters, mem=mem, pcs=PCs())
    return Workload(name="kim20/cf", kernels=kernels,
                    params={"filters": list(filters), "batch": 1, "arrays": mem.sizes()},
                    source=SOURCE)


register_workload(SUITE, "cf", build, source=SOURCE, size="1 image 32x32x3",
                  description="Tango CifarNet forward pass: 3 conv (5x5), 3 pool, 2 FC; "
                              "one 32x32-thread CTA per layer",
                  version=2, **paper_figures("cf"))
