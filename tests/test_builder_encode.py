"""The trace builder's lane encoding and masks against plain reference implementations.

The fast paths (the pair test that rejects explicit rows early, the packed warp masks,
the explicit rows appended in place) must give the same rows as the plain rules.
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.trace.builder import KernelBuilder, LaneBuffer, encode_lanes, fit_affine
from golden.trace.model import INST_DTYPE, WARP_SIZE

LANES = np.arange(WARP_SIZE)


def _reference_fit(row, mask, dx2):
    """The forms tried in order (32, dx2, 16, 8, 4, 2), each checked on every active lane."""
    active = [lane for lane in range(WARP_SIZE) if mask >> lane & 1]
    if not active:
        return True, 0, 0, 0, WARP_SIZE
    for j, d in enumerate([WARP_SIZE, dx2, 16, 8, 4, 2]):
        if d == 0 or (j > 1 and d == dx2):
            continue
        a = active[0]
        groups = {}
        for lane in active:
            groups.setdefault(lane // d, []).append(lane)
        sx = 0
        for g in sorted(groups):
            if len(groups[g]) > 1:
                f, s = groups[g][:2]
                if (row[s] - row[f]) % (s - f):
                    sx = None
                else:
                    sx = (row[s] - row[f]) // (s - f)
                break
        if sx is None:
            continue
        other = [lane for lane in active if lane // d != a // d]
        sy = 0
        if other:
            lane = other[0]
            num = row[lane] - row[a] - (lane % d - a % d) * sx
            n = lane // d - a // d
            if num % n:
                continue
            sy = num // n
        base = row[a] - (a % d) * sx - (a // d) * sy
        if base < 0 or not (-(1 << 31) <= sx < 1 << 31 and -(1 << 31) <= sy < 1 << 31):
            continue
        if all(row[lane] == base + (lane % d) * sx + (lane // d) * sy for lane in active):
            return True, base, sx, sy, d
    return False, 0, 0, 0, WARP_SIZE


def _rows(rng, k):
    """Affine rows of every form, random rows, and affine rows with one lane moved."""
    out = []
    for d in (32, 16, 8, 4, 2, 1):
        base = rng.integers(0, 1 << 40, (k, 1))
        sx, sy = rng.integers(-300, 300, (k, 1)), rng.integers(-5000, 5000, (k, 1))
        out.append(base + (LANES % d) * sx + (LANES // d) * sy)
    out.append(rng.integers(0, 1 << 30, (k, WARP_SIZE)))
    moved = np.concatenate(out[:3])
    moved[np.arange(len(moved)), rng.integers(0, WARP_SIZE, len(moved))] += rng.integers(1, 3, len(moved))
    out.append(moved)
    return np.concatenate(out).astype(np.int64)


@pytest.mark.parametrize("dx2", [0, 1, 2, 4, 8, 16])
def test_fit_affine_matches_reference(dx2):
    rng = np.random.default_rng(dx2)
    lanes = _rows(rng, 40)
    masks = np.where(rng.random(len(lanes)) < 0.5, 0xFFFFFFFF,
                     rng.integers(0, 1 << 32, len(lanes))).astype(np.uint32)
    masks[:5] = [0, 1, 3, 0x80000001, 0xAAAAAAAA]
    base, sx, sy, dx, fits = fit_affine(lanes, masks, dx2)
    for i in range(len(lanes)):
        want = _reference_fit(lanes[i].tolist(), int(masks[i]), dx2)
        got = (bool(fits[i]), int(base[i]), int(sx[i]), int(sy[i]), int(dx[i]))
        assert got == want, (i, dx2)
    assert 0 < fits.mean() < 1


def test_encode_into_buffer_same_as_array():
    rng = np.random.default_rng(7)
    lanes = _rows(rng, 30)
    masks = rng.integers(0, 1 << 32, len(lanes)).astype(np.uint32)
    a, b = np.zeros(len(lanes), INST_DTYPE), np.zeros(len(lanes), INST_DTYPE)
    explicit = encode_lanes(a, lanes, masks, 4, 3)
    buf = LaneBuffer()
    buf.append(3, lambda out, start: out.__setitem__(slice(start, start + 3), 9))
    assert encode_lanes(b, lanes, masks, 4, 3, buf) is None
    got = buf.take()
    assert a.tobytes() == b.tobytes()
    assert np.array_equal(got[3:], explicit) and np.all(got[:3] == 9)
    bad = np.flatnonzero(a["lanes"] >= 0)
    active = (masks[bad, None] >> LANES.astype(np.uint32)) & 1 == 1
    assert np.array_equal(explicit, np.where(active, lanes[bad], 0).astype(np.uint64))
    with pytest.raises(ValueError, match="first_explicit"):
        encode_lanes(b, lanes, masks, 4, 0, buf)


def test_lane_buffer_take_twice_and_append_after():
    buf = LaneBuffer()
    for n in (5, 2000, 0, 700):
        buf.append(n, lambda out, start, n=n: out.__setitem__(slice(start, start + n), n))
    first = buf.take()
    assert first.shape == (2705, WARP_SIZE) and first[4, 0] == 5 and first[-1, 0] == 700
    again = buf.take()
    assert np.array_equal(again, first) and again is not first
    buf.append(1, lambda out, start: out.__setitem__(start, 1))
    assert len(buf) == 2706 and first.shape == (2705, WARP_SIZE) and first[-1, 0] == 700


@pytest.mark.parametrize("block", [(256,), (100,), (16, 16), (7, 3), (1,)])
def test_warp_masks_match_bitwise_reference(block):
    rng = np.random.default_rng(len(block))
    kb = KernelBuilder("k", grid=(5, 2), block=block)
    for active in (rng.random(kb.n_threads) < 0.5, rng.random((3, kb.n_threads)) < 0.3,
                   np.broadcast_to(rng.random(kb.n_threads) < 0.5, (2, kb.n_threads))):
        bits = kb._padded(active.astype(np.uint32)) << LANES.astype(np.uint32)
        want = np.bitwise_or.reduce(bits, axis=-1).astype(np.uint32)
        got = kb._warp_masks(active)
        assert got.dtype == np.uint32 and np.array_equal(got, want)
