"""Stand-ins for drp16's 14 game titles: a seeded render-pass generator of LLC streams.

**These are not the games.** drp16 replays DirectX 9 and OpenGL API traces
(Attila's distribution and 3DMark06, Table 1) through the Attila GPU
simulator; neither the traces nor the simulator are available here. Each
title is a :class:`Title`: Table 1's API, resolution and frame count, and
our choices of texture footprint, overdraw, shadow map and post-processing
(docs/drp16_workloads.md). A frame is rendered as passes of *batches*, and
the GPU's accesses at its own caches are filtered by
:class:`~golden.llc.gpu_caches.GpuCaches` (Section 3's caches) into LLC
accesses. Per frame:

1. **Shadow pass** (titles with ``shadow``): batches rasterise into a
   ``shadow x shadow`` depth map: a depth read and write per 4 x 4-pixel
   block (64 bytes of 32-bit depth), through the depth cache.
2. **Main pass**: ``batches`` draw calls, each a random screen rectangle
   (``overdraw`` screens in all), with vertex reads (``other``, vertex
   cache) and a shader-instruction fetch (``shader``); per 4 x 4-pixel
   block a depth read-modify-write; for blocks that pass the depth test
   (``1 - early_z``), a static-texture read (``texture``, texture cache) at
   a mip level of the batch's texture (textures are drawn Zipf-like, so a
   few are hot), a shadow-map sample (``dyntex``), and a colour write (a
   read first where the batch blends).
3. The colour and depth caches are flushed (render-target resolve).
4. **Post-processing**: OpenGL titles copy the colour buffer to a texture
   with the blitter (``blitter`` reads and writes, no GPU cache) and sample
   the copy; DirectX titles sample the render target directly (the
   ``dyntex`` stream, texture cache); titles with ``bloom`` first build a
   quarter-resolution bloom target (written as colour, sampled as dynamic
   texture). The result is written to the back buffer (colour).
5. The colour cache is flushed (present).

Render targets, depth buffer and textures keep their addresses across
frames, so static textures are reused frame to frame and the colour
written in one pass is read back once as dynamic texture in the next
(drp16 Section 4.1). ``scale`` multiplies pixel counts, texture footprint,
the shadow map's texels and the GPU caches' sizes, keeping their ratios to
an LLC of the same scale.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from golden.llc.gpu_caches import READ_ONLY, WRITE_BACK, GpuCache, GpuCaches
from golden.llc.model import LLC_TRACE_DTYPE
from golden.llc.streams import BLITTER, COLOR, DEPTH, DYNTEX, OTHER, SHADER, TEXTURE

__all__ = ["Title", "TITLES", "GPU_CACHES", "frame_stream"]

#: drp16 Section 3's GPU caches that feed the LLC (the ones a stream goes through).
GPU_CACHES = (
    GpuCache("texture-l2", 384 << 10, 48, READ_ONLY),
    GpuCache("depth-l2", 32 << 10, 32, WRITE_BACK),
    GpuCache("color-l2", 32 << 10, 32, WRITE_BACK),
    GpuCache("vertex", 16 << 10, 256, READ_ONLY),  # fully associative
    GpuCache("shader-instructions", 32 << 10, 8, READ_ONLY),
)
_TEX, _DEPTH, _COLOR, _VERTEX, _INSTR = range(len(GPU_CACHES))


class Title(NamedTuple):
    """A game-title stand-in: Table 1's API, frames and resolution, and our render-pass choices."""

    api: str
    frames: int
    width: int
    height: int
    texture_mb: float = 64.0
    overdraw: float = 3.0
    batches: int = 300
    shadow: int = 0
    bloom: bool = False
    blend: float = 0.2
    early_z: float = 0.35


#: drp16 Table 1 (API, frames = the span of frame numbers, resolution); the rest are our choices.
TITLES: dict[str, Title] = {
    "3DMark06-GT1": Title("DirectX", 2, 1280, 1024, 96, 3.5, 400, 2048),
    "3DMark06-GT2": Title("DirectX", 2, 1280, 1024, 96, 4.0, 400, 2048),
    "3DMark06-HDR1": Title("DirectX", 2, 1280, 1024, 128, 3.0, 350, 2048, True),
    "3DMark06-HDR2": Title("DirectX", 2, 1280, 1024, 128, 3.0, 350, 2048, True),
    "COD2": Title("DirectX", 2, 1920, 1200, 64, 3.0, 300, 1024),
    "Crysis": Title("DirectX", 2, 1920, 1200, 160, 4.0, 500, 2048, True),
    "DOOM3": Title("OpenGL", 5, 1600, 1200, 48, 3.0, 250, 0),
    "HL2": Title("DirectX", 3, 1600, 1200, 64, 2.5, 300, 0),
    "L4D": Title("DirectX", 5, 1280, 1024, 64, 3.0, 300, 1024),
    "NFS": Title("DirectX", 3, 1280, 1024, 48, 2.5, 250, 0, True),
    "Quake4": Title("OpenGL", 5, 1600, 1200, 48, 3.0, 250, 0),
    "COR": Title("OpenGL", 5, 1280, 1024, 48, 3.0, 250, 1024),
    "UT2004": Title("OpenGL", 5, 1600, 1200, 32, 2.0, 200, 0),
    "UT3": Title("DirectX", 3, 1280, 1024, 96, 3.0, 350, 1024, True),
}

_TEX_SIDE = 1024  # texels per side of a static texture at scale 1 (mips below it)


class _Layout:
    """Line addresses of a title's surfaces (64-byte lines; 4 x 4 texels or pixels of 4 bytes each)."""

    def __init__(self, t: Title, scale: float) -> None:
        f = np.sqrt(scale)
        self.bw = max(4, round(t.width * f / 4))  # 4 x 4-pixel blocks per row
        self.bh = max(4, round(t.height * f / 4))
        at = 0x1_0000_0000 >> 6

        def take(n):
            nonlocal at
            base, at = at, at + n + 64
            return base

        self.color = take(self.bw * self.bh)
        self.depth = take(self.bw * self.bh)
        self.copy = take(self.bw * self.bh)  # blit destination (OpenGL) / bloom source copy
        self.bloom = take((self.bw // 2) * (self.bh // 2))
        self.back = take(self.bw * self.bh)
        self.sw = max(4, round(t.shadow * f / 4)) if t.shadow else 0
        self.shadow = take(self.sw * self.sw)
        self.nvert = max(64, round(65536 * scale))  # vertex and index buffers: 4 MB at scale 1
        self.vertex = take(self.nvert)
        self.code = take(512)
        side = max(16, 1 << round(np.log2(_TEX_SIDE * f)))
        self.tside = side // 4  # lines per row of mip 0
        per = sum((self.tside >> m) ** 2 for m in range(4) if self.tside >> m)
        self.ntex = max(2, round(t.texture_mb * scale * (1 << 20) / 64 / per))
        self.tex = [take(per) for _ in range(self.ntex)]


def _rect_blocks(x0: int, y0: int, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Block coordinates of a rectangle, row by row."""
    xs, ys = np.meshgrid(np.arange(x0, x0 + w), np.arange(y0, y0 + h))
    return xs.ravel(), ys.ravel()


class _Emitter:
    """Collects accesses at the GPU's caches and filters them into LLC accesses."""

    def __init__(self, scale: float) -> None:
        self.caches = GpuCaches(GPU_CACHES, scale)
        self.out: list[np.ndarray] = []

    def __call__(self, cache: int, stream: int, op, line) -> None:
        self.out.append(self.caches.access(cache, stream, op, line))

    def direct(self, stream: int, op: int, line) -> None:
        """Accesses that go to the LLC with no GPU cache (the blitter)."""
        rows = np.zeros(len(line), LLC_TRACE_DTYPE)
        rows["stream"], rows["op"], rows["line"] = stream, op, line
        self.out.append(rows)

    def flush(self, cache: int, stream: int) -> None:
        self.out.append(self.caches.flush(cache, stream))


def _raster(em: _Emitter, rng, lay: _Layout, t: Title, target: int, tw: int, th: int, n_batches: int,
            depth_only: bool) -> None:
    """One geometry pass of ``n_batches`` draw calls over a ``tw x th``-block target."""
    area = tw * th * (t.overdraw if not depth_only else 1.5) / n_batches
    zipf = 1.0 / np.arange(1, lay.ntex + 1)
    zipf /= zipf.sum()
    for _ in range(n_batches):
        w = int(np.clip(rng.normal(np.sqrt(area), np.sqrt(area) / 3), 1, tw))
        h = int(np.clip(area / w, 1, th))
        x0, y0 = int(rng.integers(0, tw - w + 1)), int(rng.integers(0, th - h + 1))
        xs, ys = _rect_blocks(x0, y0, w, h)
        v0 = int(rng.integers(0, lay.nvert))
        em(_VERTEX, OTHER, 1, lay.vertex + (v0 + np.arange(max(1, w * h // 16))) % lay.nvert)
        em(_INSTR, SHADER, 1, lay.code + int(rng.integers(0, 480)) + np.arange(4))
        zb = (lay.shadow if depth_only else lay.depth) + ys * tw + xs
        pair = np.repeat(zb, 2)
        em(_DEPTH, DEPTH, np.tile([1, 2], zb.size), pair)  # depth read-modify-write
        if depth_only:
            continue
        live = rng.random(xs.size) >= t.early_z
        xs, ys = xs[live], ys[live]
        tex = lay.tex[int(rng.choice(lay.ntex, p=zipf))]
        mip = int(rng.choice(4, p=[0.4, 0.3, 0.2, 0.1]))
        side = max(1, lay.tside >> mip)
        mbase = tex + sum((lay.tside >> m) ** 2 for m in range(mip))
        u0, v0 = int(rng.integers(0, side)), int(rng.integers(0, side))
        em(_TEX, TEXTURE, 1, mbase + ((ys - y0 + v0) % side) * side + (xs - x0 + u0) % side)
        if lay.sw:
            sx = (xs * lay.sw) // tw
            sy = (ys * lay.sw) // th
            em(_TEX, DYNTEX, 1, lay.shadow + sy * lay.sw + sx)
        cb = target + ys * tw + xs
        if rng.random() < t.blend:
            em(_COLOR, COLOR, np.tile([1, 2], cb.size), np.repeat(cb, 2))
        else:
            em(_COLOR, COLOR, 2, cb)


def _full_screen(em: _Emitter, src: int, sw: int, sh: int, dst: int, dw: int, dh: int) -> None:
    """A full-screen pass: each destination block samples its source as dynamic texture, then is written."""
    ys, xs = np.divmod(np.arange(dw * dh), dw)
    em(_TEX, DYNTEX, 1, src + (ys * sh // dh) * sw + xs * sw // dw)
    em(_COLOR, COLOR, 2, dst + ys * dw + xs)


def frame_stream(title: str, scale: float = 1.0, seed: int = 0) -> np.ndarray:
    """The LLC accesses (``LLC_TRACE_DTYPE``) of a title stand-in's frames.

    Raises
    ------
    KeyError
        For an unknown title (the mix layer reports it as an InputError).
    """
    t = TITLES[title]
    lay = _Layout(t, scale)
    rng = np.random.default_rng(seed)
    em = _Emitter(scale)
    bw, bh = lay.bw, lay.bh
    for _ in range(t.frames):
        if lay.sw:
            _raster(em, rng, lay, t, lay.shadow, lay.sw, lay.sw, max(1, t.batches // 4), True)
            em.flush(_DEPTH, DEPTH)
        _raster(em, rng, lay, t, lay.color, bw, bh, t.batches, False)
        em.flush(_COLOR, COLOR)
        em.flush(_DEPTH, DEPTH)
        src = lay.color
        if t.api == "OpenGL":  # copy the render buffer to a texture, then sample the copy
            lines = lay.color + np.arange(bw * bh)
            em.direct(BLITTER, 1, lines)
            em.direct(BLITTER, 2, lay.copy + np.arange(bw * bh))
            src = lay.copy
        if t.bloom:
            _full_screen(em, src, bw, bh, lay.bloom, bw // 2, bh // 2)
            em.flush(_COLOR, COLOR)
            _full_screen(em, lay.bloom, bw // 2, bh // 2, lay.back, bw, bh)
        _full_screen(em, src, bw, bh, lay.back, bw, bh)
        em.flush(_COLOR, COLOR)
    return np.concatenate(em.out)
