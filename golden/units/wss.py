"""drp16's working-set-sample (WSS) cache: the functional core (Section 5.1).

A 128-set, 16-way cache of 4 KB page tags ("a 2K-entry WSS cache organized
to have 128 sets and 16 ways", Section 5.6). Each entry tracks every 8th
64-byte block of its page (blocks 0, 8, ..., 56: eight tracked blocks),
each with 7 state bits: valid V, write W, reuse R and a 4-bit stream id.
With the entry's valid bit and 29-bit tag (48-bit physical addresses) an
entry is 1 + 29 + 8 x 7 = 86 bits; 2048 entries are 22 KB.

Per LLC access (stream ``S``, line ``L``; page ``P = L >> 6``, set
``P mod 128``, tag ``P >> 7``, tracked block ``m = (L mod 64) / 8`` when
``L mod 8 = 0``):

* **Lookup miss**: allocate the lowest invalid way of the set. With none,
  "a random replacement policy is invoked" only if stream ``S`` holds fewer
  than 32 entries (an entry belongs to the stream of its first valid
  tracked block); otherwise the access bypasses the WSS cache. A new entry
  has no valid tracked block; the access then updates it as a hit would.
* **Tracked block invalid**: it becomes valid with ``W`` = the access is a
  write, ``R`` = 0, stream ``S``.
* **Tracked block valid, read**: a reuse. With ``W`` set it is a
  write-to-read reuse, counted in ``WR`` of the block's stream (the
  writer); otherwise a read-to-read reuse, counted in ``RR`` of the block's
  stream (the previous reader). ``W`` is cleared and the block's stream
  becomes ``S``.
* **Tracked block valid, write**: ``W`` set, stream ``S``.
* **WA**: every write to a tracked block of a present entry counts in
  ``WA[S]`` (the LLC writes the WSS captures).
* **Dynamic texture** (Section 5.5): the first dynamic-texture read of a
  block (its stream was not ``dyntex``) counts in ``dt_blocks`` and clears
  ``R``; a later dynamic-texture read of a block still in ``dyntex`` with
  ``R`` = 0 counts in ``dt_reused`` and sets ``R``: ``dt_reused /
  dt_blocks`` estimates P[a dynamic texture block is reused beyond its
  first access].
* **MAX_REUSE**: the largest ``WR`` or ``RR`` counter.
* **Epoch**: after 512K LLC reads (``epoch``), every entry is invalidated
  and every counter (``WR``, ``RR``, ``WA``, the dynamic-texture pair) is
  halved, and MAX_REUSE recomputed.

The choices drp16 leaves open are in ``docs/policies/drp16.md``. State is
a :data:`WssState` named tuple; :func:`wss_access` is compiled (numba) for
the policies' hooks.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.cache.replacement import seed_states, xorshift_next
from golden.llc.streams import DYNTEX, N_STREAMS

__all__ = ["WssState", "new_wss", "wss_access", "wss_reset", "NO_REUSE", "WR_REUSE", "RR_REUSE",
           "ENTRY_BITS", "SETS", "WAYS"]

#: drp16 Section 5.6.
SETS, WAYS, PAGE_BLOCKS, STRIDE, TAG_BITS = 128, 16, 64, 8, 29
TRACKED = PAGE_BLOCKS // STRIDE
#: Bits of one entry: valid, tag, 8 tracked blocks x (V, W, R, 4-bit stream).
ENTRY_BITS = 1 + TAG_BITS + TRACKED * 7
#: Outcome of an access: no reuse, a write-to-read reuse, a read-to-read reuse.
NO_REUSE, WR_REUSE, RR_REUSE = 0, 1, 2
_V, _W, _R = 1, 2, 4

WssState = namedtuple("WssState", ["min_entries", "epoch", "tag", "blocks", "owner", "held", "wr", "rr", "wa",
                                   "dt", "max_reuse", "reads", "rng"])
WssState.__doc__ = """The WSS cache and its counters.

``min_entries`` (32) and ``epoch`` (512K reads) are int64 parameters.
Arrays: ``tag`` ``int64[128, 16]`` (page tag, -1 invalid); ``blocks``
``uint8[128, 16, 8]`` (bit 0 V, 1 W, 2 R, bits 3-6 the stream); ``owner``
``int64[128, 16]`` (stream of the first valid tracked block, -1 none);
``held`` ``int64[11]`` entries per stream; ``wr``, ``rr``, ``wa``
``int64[11]``; ``dt`` ``int64[2]`` (``dt_blocks``, ``dt_reused``);
``max_reuse``, ``reads`` ``int64[1]``; ``rng`` ``uint64[1]`` (xorshift64*).
"""


def new_wss(seed: int = 0, min_entries: int = 32, epoch: int = 512 * 1024) -> WssState:
    """An empty WSS cache; ``seed`` seeds the random replacement."""
    return WssState(
        min_entries=min_entries, epoch=epoch, tag=np.full((SETS, WAYS), -1, np.int64),
        blocks=np.zeros((SETS, WAYS, TRACKED), np.uint8), owner=np.full((SETS, WAYS), -1, np.int64),
        held=np.zeros(N_STREAMS, np.int64), wr=np.zeros(N_STREAMS, np.int64),
        rr=np.zeros(N_STREAMS, np.int64), wa=np.zeros(N_STREAMS, np.int64), dt=np.zeros(2, np.int64),
        max_reuse=np.zeros(1, np.int64),
        reads=np.zeros(1, np.int64), rng=seed_states(seed, 1))


def wss_reset(ws: WssState, seed: int = 0) -> None:
    """Back to empty (every counter zero, the generator reseeded)."""
    ws.tag.fill(-1)
    ws.owner.fill(-1)
    for a in (ws.blocks, ws.held, ws.wr, ws.rr, ws.wa, ws.dt, ws.max_reuse, ws.reads):
        a.fill(0)
    ws.rng[:] = seed_states(seed, 1)


@nb.njit(cache=True, nogil=True)
def _set_owner(ws, s, w):
    """Recompute the entry's owner (its first valid tracked block's stream) and the per-stream counts."""
    new = np.int64(-1)
    for m in range(TRACKED):
        b = np.int64(ws.blocks[s, w, m])
        if b & _V:
            new = b >> 3
            break
    old = ws.owner[s, w]
    if old != new:
        if old >= 0:
            ws.held[old] -= 1
        if new >= 0:
            ws.held[new] += 1
        ws.owner[s, w] = new


@nb.njit(cache=True, nogil=True)
def _end_epoch(ws):
    ws.tag.fill(-1)
    ws.blocks.fill(0)
    ws.owner.fill(-1)
    ws.held.fill(0)
    top = 0
    for x in range(ws.wr.size):
        ws.wr[x] >>= 1
        ws.rr[x] >>= 1
        ws.wa[x] >>= 1
        top = max(top, ws.wr[x], ws.rr[x])
    ws.dt[0] >>= 1
    ws.dt[1] >>= 1
    ws.max_reuse[0] = top
    ws.reads[0] = 0


@nb.njit(cache=True, nogil=True)
def wss_access(ws, line, stream, write):
    """One LLC access (see the module docstring); returns NO_REUSE, WR_REUSE or RR_REUSE."""
    page = line >> 6
    s = page & (SETS - 1)
    tag = page >> 7
    way = -1
    for w in range(WAYS):
        if ws.tag[s, w] == tag:
            way = w
            break
    if way < 0:
        for w in range(WAYS):
            if ws.tag[s, w] < 0:
                way = w
                break
        if way < 0 and ws.held[stream] < ws.min_entries:
            way = np.int64((xorshift_next(ws.rng, 0) >> np.uint64(32)) % np.uint64(WAYS))
            if ws.owner[s, way] >= 0:
                ws.held[ws.owner[s, way]] -= 1
            ws.owner[s, way] = -1
        if way >= 0:
            ws.tag[s, way] = tag
            ws.blocks[s, way, :] = 0
    out = NO_REUSE
    if way >= 0 and line % STRIDE == 0:
        m = (line & (PAGE_BLOCKS - 1)) // STRIDE
        b = np.int64(ws.blocks[s, way, m])
        sid = b >> 3
        if write:
            ws.wa[stream] += 1
            b = _V | _W | (stream << 3)
        elif b & _V == 0:
            b = _V | (stream << 3)
            if stream == DYNTEX:
                ws.dt[0] += 1
        else:
            if b & _W:
                ws.wr[sid] += 1
                out = WR_REUSE
                ws.max_reuse[0] = max(ws.max_reuse[0], ws.wr[sid])
            else:
                ws.rr[sid] += 1
                out = RR_REUSE
                ws.max_reuse[0] = max(ws.max_reuse[0], ws.rr[sid])
            r = b & _R
            if stream == DYNTEX:
                if sid != DYNTEX:
                    ws.dt[0] += 1
                    r = 0
                elif r == 0:
                    ws.dt[1] += 1
                    r = _R
            b = _V | r | (stream << 3)
        ws.blocks[s, way, m] = b
        _set_owner(ws, s, way)
    if not write:
        ws.reads[0] += 1
        if ws.reads[0] >= ws.epoch:
            _end_epoch(ws)
    return out
