"""kim20 SQN: Tango SqueezeNet (CUDA, v1.0 shapes), one 227x227x3 image: conv, fire and pooling kernels.

Follows the CUDA SqueezeNet of the Tango DNN benchmark suite (Karki et al.,
ISPASS 2019; gitlab.com/Tango-DNNbench/Tango, ``GPU/SqueezeNet``, the file
"CUDA implementation of SqueezeNet" by C. P. Keshava, read from a public
copy). As in Tango's CifarNet every layer is one hand-written kernel on
``double`` data, but here a launch covers one feature map with **one CTA per
column and one thread per row**: ``<<<S, S>>>``, ``x = threadIdx.x``, ``y =
blockIdx.x``, for the map side ``S`` (111, 55, 27, 13, 15), so CTAs hold
1 to 4 warps and the grids are 13 to 111 CTAs: the low warp occupancy kim20
Fig. 1 reports for SQN (below 46 %). Batch: one image (the kernels ignore
``NUM``). Kernel shapes (``f``: output maps, ``n``: input maps; loops not
unrolled; the 3x3 / 7x7 taps and pooling windows unrolled):

* ``ExecuteFirstLayer`` (conv1, ``<<<111, 111>>>``): ``x = 2*tx + 3``, ``y = 2*bx + 3``;
  for f < 96, 7x7 taps inside the 227x227 image: ``R/G/B[i*227 + j]`` (int) and
  ``W[m + f*147 (+49, +98)]``; store ``L1F[f*111*111 + tx*111 + bx]``.
* ``ExecutefireKsqueeze1x1`` / ``expand1x1``: for f: for n: ``in[n*S*S + x*S + y]``,
  ``W[f*C + n]``; store ``out[f*S*S + x*S + y]`` (fire8's squeeze also reads its bias
  ``W[24576 + f]``).
* ``ExecutefireKexpand3x3``: for f: for n: 3x3 taps inside ``S x S``: ``in[n*S*S + i*S + j]``,
  ``W[m + f*9*C + n*9]``; stores into the second half of the concatenated output (the
  host passes ``fireK_Features + S*S*F``).
* ``poolingK`` (3x3 / 2 max): for every output map, odd ``x`` and ``y``: the window's
  ``in[o*S*S + i*S + j]`` (``i, j < S``), store ``out[o*P*P + ((x-1)/2)*P + (y-1)/2]``.
* ``ExecuteTenthLayer`` (conv10, ``<<<15, 15>>>``, inner 13x13): for f < 1000: for n < 512:
  ``fire9[n*169 + (x-1)*13 + y-1]``, ``W[f*512 + n]``; store ``L10F[f*225 + x*15 + y]``.
* ``global_pooling`` (``<<<1, 1000>>>``): ``L10F[tid*225 + i*15 + j]`` for ``i < 15,
  j <= 15``; store ``out[tid]``.

The whole network is 30 launches and about 71 M warp memory instructions
(3.4 GB of trace), beyond the suite's generation budget. By default
(``layers="sample"``) the workload holds **one fire module at each of the
three map sizes with the max-poolings and the global pooling**: pooling1,
fire2 (55x55), pooling4, fire5 (27x27), pooling8, fire9 (13x13),
global_pooling: 13 launches, about 11 M. ``layers="all"`` gives all 30.
Scaling keeps every shape and shrinks the output-map loops (``f``) of the
convolutions and poolings. The source's timing loop around conv1 (``-t``
seconds, a multi-tenant harness) is not emulated: one pass. Nothing
depends on data: ``seed`` is unused.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads._polybench import Emitter, ld, st

__all__ = ["build", "FIRE", "LAYER_SETS", "squeezenet_kernels", "REGS"]

SOURCE = "Tango (gitlab.com/Tango-DNNbench/Tango) GPU/SqueezeNet: CUDA implementation of SqueezeNet"
_D, _I = 8, 4
_MODE = "compiled"
#: Fire modules: name -> (map side, input maps, squeeze maps, expand maps per branch).
FIRE = {2: (55, 96, 16, 64), 3: (55, 128, 16, 64), 4: (55, 128, 32, 128),
        5: (27, 256, 32, 128), 6: (27, 256, 48, 192), 7: (27, 384, 48, 192),
        8: (27, 384, 64, 256), 9: (13, 512, 64, 256)}
#: Launches of each layer set, in launch order.
LAYER_SETS = {
    "sample": ("pooling1", "fire2", "pooling4", "fire5", "pooling8", "fire9", "global_pooling"),
    "all": ("conv1", "pooling1", "fire2", "fire3", "fire4", "pooling4", "fire5", "fire6",
            "fire7", "fire8", "pooling8", "fire9", "conv10", "global_pooling"),
}
#: Max-poolings: name -> (input side, output side, maps).
_POOLS = {"pooling1": (111, 55, 96), "pooling4": (55, 27, 256), "pooling8": (27, 13, 512)}
#: Registers per thread: estimate (docs/workloads/kim20.md, "Registers").
REGS = {"ExecuteFirstLayer": 40, "pooling": 24, "squeeze1x1": 24, "expand1x1": 24,
        "expand3x3": 40, "ExecuteTenthLayer": 24, "global_pooling": 20}


def _launch(name: str, side: int) -> tuple[KernelBuilder, np.ndarray, np.ndarray]:
    kb = KernelBuilder(name, grid=(side,), block=(side,))
    return kb, kb.tx, kb.bx


def _pointwise(name: str, side: int, maps: int, channels: int, src: int, w: int, dst: int,
               pcs: PCs, bias: int | None = None) -> KernelTrace:
    """A 1x1 convolution (squeeze or expand1x1) on ``side x side`` maps."""
    kb, x, y = _launch(name, side)
    em = Emitter(kb, _MODE, prologue=2, pcs=pcs)
    pix = (x * side + y) * _D
    for f in range(maps):
        em.loop([ld(f"{name}:ld_in", pix, src, step=side * side * _D, width=_D),
                 ld(f"{name}:ld_w", 0, w + f * channels * _D, step=_D, width=_D)], channels)
        tail = [] if bias is None else [ld(f"{name}:ld_bias", 0, bias + f * _D, width=_D)]
        em.straight(tail + [st(f"{name}:st_out", pix, dst + f * side * side * _D, gap=3,
                               width=_D)])
    return em.finish()


def _conv3x3(name: str, side: int, maps: int, channels: int, src: int, w: int, dst: int,
             pcs: PCs) -> KernelTrace:
    """expand3x3: 3x3 taps (zero outside the map) summed over the input maps."""
    kb, x, y = _launch(name, side)
    em = Emitter(kb, _MODE, prologue=2, pcs=pcs)
    for f in range(maps):
        body = []
        for a in range(3):
            for b in range(3):
                i, j = x - 1 + a, y - 1 + b
                inside = (i >= 0) & (j >= 0) & (i < side) & (j < side)
                m = b + a * 3
                body.append(ld(f"{name}:ld_in{m}", (i * side + j) * _D, src,
                               step=side * side * _D, gap=6, active=inside, width=_D))
                body.append(ld(f"{name}:ld_w{m}", 0, w + (m + f * 9 * channels) * _D,
                               step=9 * _D, active=inside, width=_D))
        em.loop(body, channels)
        em.straight([st(f"{name}:st_out", (x * side + y) * _D, dst + f * side * side * _D,
                        gap=3, width=_D)])
    return em.finish()


def _pool(name: str, side: int, out_side: int, maps: int, src: int, dst: int, pcs: PCs
          ) -> KernelTrace:
    kb, row, col = _launch(name, side)
    em = Emitter(kb, _MODE, prologue=2, pcs=pcs)
    centre = (row % 2 == 1) & (col % 2 == 1)
    body = []
    for a in range(3):
        for b in range(3):
            i, j = row - 1 + a, col - 1 + b
            body.append(ld(f"{name}:ld_in{a}{b}", (i * side + j) * _D, src,
                           step=side * side * _D, gap=3, active=(i < side) & (j < side),
                           width=_D))
    body.append(st(f"{name}:st_out", (((row - 1) // 2) * out_side + (col - 1) // 2) * _D, dst,
                   step=out_side * out_side * _D, gap=2, width=_D))
    em.loop(body, maps, active=centre)
    return em.finish()


def _conv1(maps: int, a: dict, pcs: PCs) -> KernelTrace:
    name = "ExecuteFirstLayer"
    kb, tx, bx = _launch(name, 111)
    x, y = tx * 2 + 3, bx * 2 + 3
    em = Emitter(kb, _MODE, prologue=6, pcs=pcs)
    body = []
    for p in range(7):
        for q in range(7):
            i, j = x - 3 + p, y - 3 + q
            inside = (i >= 0) & (j >= 0) & (i <= 226) & (j <= 226)
            m = q + p * 7
            for c, (chan, off) in enumerate((("R", 0), ("G", 49), ("B", 98))):
                body.append(ld(f"{name}:ld_{chan}{m}", (i * 227 + j) * _I, a[chan],
                               gap=6 if c == 0 else 1, active=inside, width=_I))
                body.append(ld(f"{name}:ld_w{chan}{m}", 0, a["conv1_w"] + (m + off) * _D,
                               step=147 * _D, active=inside, width=_D))
    body.append(st(f"{name}:st_out", (tx * 111 + bx) * _D, a["conv1_out"], step=111 * 111 * _D,
                   gap=4, width=_D))
    em.loop(body, maps)
    return em.finish()


def _conv10(maps: int, a: dict, pcs: PCs) -> KernelTrace:
    name = "ExecuteTenthLayer"
    kb, x, y = _launch(name, 15)
    em = Emitter(kb, _MODE, prologue=8, pcs=pcs)
    inner = (x != 0) & (x != 14) & (y != 0) & (y != 14)
    for f in range(maps):
        em.loop([ld(f"{name}:ld_in", ((x - 1) * 13 + y - 1) * _D, a["fire9_out"],
                    step=169 * _D, width=_D),
                 ld(f"{name}:ld_w", 0, a["conv10_w"] + f * 512 * _D, step=_D, width=_D)],
                512, active=inner)
        em.straight([st(f"{name}:st_out", (x * 15 + y) * _D, a["conv10_out"] + f * 225 * _D,
                        gap=3, width=_D)], active=inner)
    return em.finish()


def _global_pool(maps: int, a: dict, pcs: PCs) -> KernelTrace:
    name = "global_pooling"
    kb = KernelBuilder(name, grid=(1,), block=(1000,))
    tid = kb.tx
    em = Emitter(kb, _MODE, prologue=1, pcs=pcs)
    body = [ld(f"{name}:ld_in{j}", tid * 225 * _D, a["conv10_out"] + j * _D, step=15 * _D,
               gap=1, width=_D) for j in range(16)]  # j <= 15: unrolled, 16 reads per row
    em.loop(body, 15, active=tid < maps)
    em.straight([st(f"{name}:st_out", tid * _D, a["output"], gap=2, width=_D)],
                active=tid < maps)
    return em.finish()


def squeezenet_kernels(layers: str = "sample", scale: float = 1.0, *,
                       mem: DeviceMemory | None = None, pcs: PCs | None = None
                       ) -> list[KernelTrace]:
    """The launches of layer set ``layers`` with the output-map loops scaled by ``scale``.

    Raises
    ------
    ValueError
        For an unknown layer set.
    """
    if layers not in LAYER_SETS:
        raise ValueError(f"layers: must be one of {', '.join(LAYER_SETS)}, not {layers!r}")
    mem = DeviceMemory() if mem is None else mem
    pcs = PCs() if pcs is None else pcs

    def n(maps: int) -> int:
        return scaled(maps, scale)

    a: dict[str, int] = {}

    def alloc(name: str, nbytes: int) -> int:
        a[name] = mem.alloc(name, nbytes)
        return a[name]

    out: list[KernelTrace] = []
    for layer in LAYER_SETS[layers]:
        if layer == "conv1":
            for name, size in (("conv1_out", 96 * 111 * 111 * _D), ("conv1_w", 14112 * _D),
                               ("R", 227 * 227 * _I), ("G", 227 * 227 * _I),
                               ("B", 227 * 227 * _I)):
                alloc(name, size)
            out.append(_conv1(n(96), a, pcs))
        elif layer in _POOLS:
            side, out_side, maps = _POOLS[layer]
            src = a.get(f"{layer}_in") or alloc(f"{layer}_in", maps * side * side * _D)
            dst = alloc(f"{layer}_out", maps * out_side * out_side * _D)
            out.append(_pool(layer, side, out_side, n(maps), src, dst, pcs))
        elif layer.startswith("fire"):
            k = int(layer[4:])
            side, c_in, s_maps, e_maps = FIRE[k]
            src = alloc(f"{layer}_in", c_in * side * side * _D)
            sq = alloc(f"{layer}_squeeze", s_maps * side * side * _D)
            w_sq = alloc(f"{layer}_squeeze_w", (s_maps * c_in + (s_maps if k == 8 else 0)) * _D)
            dst = alloc(f"{layer}_out", 2 * e_maps * side * side * _D)
            w_e1 = alloc(f"{layer}_expand1x1_w", e_maps * s_maps * _D)
            w_e3 = alloc(f"{layer}_expand3x3_w", 9 * e_maps * s_maps * _D)
            bias = w_sq + 24576 * _D if k == 8 else None
            out.append(_pointwise(f"Executefire{k}squeeze1x1", side, n(s_maps), c_in, src,
                                  w_sq, sq, pcs, bias))
            out.append(_pointwise(f"Executefire{k}expand1x1", side, n(e_maps), s_maps, sq, w_e1,
                                  dst, pcs))
            out.append(_conv3x3(f"Executefire{k}expand3x3", side, n(e_maps), s_maps, sq, w_e3,
                                dst + e_maps * side * side * _D, pcs))
        elif layer == "conv10":
            if "fire9_out" not in a:
                alloc("fire9_out", 512 * 169 * _D)
            alloc("conv10_w", 512000 * _D)
            alloc("conv10_out", 1000 * 225 * _D)
            out.append(_conv10(n(1000), a, pcs))
        else:  # global_pooling
            if "conv10_out" not in a:
                alloc("conv10_out", 1000 * 225 * _D)
            alloc("output", 1000 * _D)
            out.append(_global_pool(n(1000), a, pcs))
    # the longest key a name contains: "global_pooling" before "pooling"
    regs = {k.name: REGS[max((key for key in REGS if key in k.name), key=len)] for k in out}
    return with_resources(out, regs)


def build(scale: float = 1.0, seed: int = 0, *, layers: str = "sample") -> Workload:
    """SqueezeNet's ``layers`` launches, output-map loops scaled by ``scale``; ``seed`` unused."""
    mem = DeviceMemory()
    kernels = squeezenet_kernels(layers, scale, mem=mem, pcs=PCs())
    return Workload(name="kim20/sqn", kernels=kernels,
                    params={"layers": layers, "launches": [k.name for k in kernels], "batch": 1,
                            "arrays": mem.sizes()},
                    source=SOURCE)


register_workload(SUITE, "sqn", build, source=SOURCE, size="1 image 227x227x3; fire2, 5, 9",
                  description="Tango SqueezeNet: fire modules at 55, 27, 13 and the poolings, "
                              "one CTA per map column",
                  **paper_figures("sqn"))
