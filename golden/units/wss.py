"""drp16's working-set-sample (WSS) cache: the functional core and the cycle-level unit model.

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
  The random way is bits 58 and up of a xorshift64 state advanced once per
  random replacement (seeded by ``seed``; the engine's generator without
  its output multiply, which hardware does not need).
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
* Counters are ``counter_bits`` (20) wide and saturate.

The choices drp16 leaves open are in ``docs/policies/drp16.md``. State is
a :data:`WssState` named tuple; :func:`wss_access` is compiled (numba) for
the policies' hooks, and :func:`wss_record` is the same access with one
transaction row recorded for the RTL unit (any policy's hooks, DRP's
included, call it on every LLC access).

The unit model (:class:`Wss`, the RTL ``rtl.wss.Wss`` has the same ports;
nested signatures flattened as in the generated Verilog, ``a__b``)::

    in   s1_acc__valid, s1_acc__line [42], s1_acc__stream [4], s1_acc__write
    out  s1_acc__ready                    the access is taken this cycle
    out  s2_resp__valid, __hit, __alloc, __way [4], __reuse [2], __epoch
    out  s2_resp__held [12]               entries of stream S
    out  s2_resp__wr, __rr, __wa [20]     stream S's counters
    out  s2_resp__max_reuse, __dt_blocks, __dt_reused [20]

Protocol: a two-stage pipeline, valid/ready. An access taken in cycle *t*
(s1: the set's row is read) is answered in *t* + 1 (s2): ``hit`` (the page
is present), ``alloc`` (an entry was allocated: an invalid way or a random
replacement), ``way`` (0 when the access bypasses the WSS), ``reuse``
(0 none, 1 write-to-read, 2 read-to-read), ``epoch`` (the access ended an
epoch); the counters shown are those **before** the access (every earlier
access included), as the LLC's policy reads them in parallel with the
lookup. The row and the counters are written at the edge ending s2. The
access that ends an epoch holds ``ready`` at 0 in its s2 cycle and for
the ``sets`` cycles after it, in which the unit clears one row of the
entry SRAM per cycle; the counters are halved at the edge ending s2.
Latency 1 cycle, one access per cycle otherwise.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.cache.replacement import seed_states, xorshift_next
from golden.llc.streams import DYNTEX, N_STREAMS
from golden.policies.recording import COUNT_DTYPE, new_row
from golden.units.base import UnitModel

__all__ = ["WssState", "new_wss", "wss_access", "wss_record", "wss_reset", "NO_REUSE", "WR_REUSE",
           "RR_REUSE", "ENTRY_BITS", "SETS", "WAYS", "LINE_BITS", "COUNTER_BITS", "TRANSACTION_DTYPE",
           "Wss", "wss_cycle_log", "check_wss_params", "WSS_EVENTS"]

#: drp16 Section 5.6.
SETS, WAYS, PAGE_BLOCKS, STRIDE, TAG_BITS = 128, 16, 64, 8, 29
TRACKED = PAGE_BLOCKS // STRIDE
#: Bits of one entry: valid, tag, 8 tracked blocks x (V, W, R, 4-bit stream).
ENTRY_BITS = 1 + TAG_BITS + TRACKED * 7
#: Width of the line address: 48-bit physical byte addresses of 64-byte blocks (drp16 Section 5.6).
LINE_BITS = 42
#: Width of the reuse, access and dynamic-texture counters (our choice; see docs/policies/drp16.md).
COUNTER_BITS = 20
#: Width of a stream id (eleven streams for 4C1G).
STREAM_BITS = 4
#: Outcome of an access: no reuse, a write-to-read reuse, a read-to-read reuse.
NO_REUSE, WR_REUSE, RR_REUSE = 0, 1, 2
_V, _W, _R = 1, 2, 4
# Packed outcome of _access: bits 0-1 reuse, 2 hit, 3 alloc, 4 epoch end, 8+ way.
_HIT, _ALLOC, _EPOCH, _WAY_SHIFT = 4, 8, 16, 8
#: The random way is bits [58, 58 + log2(ways)) of the xorshift64 state after its step.
_RAND_SHIFT = 58

WssState = namedtuple("WssState", ["min_entries", "epoch", "counter_max", "tag", "blocks", "owner", "held",
                                   "wr", "rr", "wa", "dt", "max_reuse", "reads", "rng", "events"])
WssState.__doc__ = """The WSS cache and its counters (``S`` sets, ``W`` ways).

``min_entries`` (32), ``epoch`` (512K reads) and ``counter_max``
(``2^counter_bits - 1``) are int64 parameters. Arrays: ``tag``
``int64[S, W]`` (page tag, -1 invalid); ``blocks`` ``uint8[S, W, 8]``
(bit 0 V, 1 W, 2 R, bits 3-6 the stream); ``owner`` ``int64[S, W]``
(stream of the first valid tracked block, -1 none); ``held`` ``int64[11]``
entries per stream; ``wr``, ``rr``, ``wa`` ``int64[11]``; ``dt``
``int64[2]`` (``dt_blocks``, ``dt_reused``); ``max_reuse``, ``reads``
``int64[1]``; ``rng`` ``uint64[1]`` (xorshift64 state); ``events``
``int64[8]`` (:data:`WSS_EVENTS`).
"""

#: Event counts kept in ``WssState.events``.
WSS_EVENTS = ("accesses", "hits", "allocations", "replacements", "bypasses", "wr_reuses", "rr_reuses",
              "epochs")
_E_ACC, _E_HIT, _E_ALLOC, _E_REPL, _E_BYP, _E_WR, _E_RR, _E_EPOCH = range(len(WSS_EVENTS))

#: One access to the WSS cache, as a policy's hooks record it (recorder ``"wss"``): the access,
#: what it did (``hit``, ``alloc``, ``way``, ``reuse``, ``epoch``) and the counters before it
#: (of its stream ``S``: ``held``, ``wr``, ``rr``, ``wa``; ``max_reuse``, the dynamic-texture pair).
TRANSACTION_DTYPE = np.dtype([
    ("line", "<i8"), ("stream", "u1"), ("write", "u1"),
    ("hit", "u1"), ("alloc", "u1"), ("way", "u1"), ("reuse", "u1"), ("epoch", "u1"),
    ("held", "<u2"), ("wr", "<u4"), ("rr", "<u4"), ("wa", "<u4"), ("max_reuse", "<u4"),
    ("dt_blocks", "<u4"), ("dt_reused", "<u4"),
    ("access", "<i8"),  # position of the access in the run (the hooks' a.t)
])


def check_wss_params(sets: object, ways: object, min_entries: object, epoch: object,
                     counter_bits: object) -> None:
    """Raise ValueError naming the first unusable WSS parameter.

    ``sets`` and ``ways`` are powers of 2 (sets 2 to 2^13, ways 1 to 64, so
    the 42-bit line leaves a tag), ``min_entries`` 0 to ``sets * ways``,
    ``epoch`` 1 to 2^40 reads, ``counter_bits`` 2 to 32.
    """
    for name, v, hi in (("sets", sets, 1 << 13), ("ways", ways, 64)):
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= hi or v & (v - 1):
            raise ValueError(f"{name}: must be a power of 2 up to {hi}, not {v!r}")
    if sets < 2:
        raise ValueError(f"sets: must be at least 2, not {sets}")
    checks = (("min_entries", min_entries, 0, sets * ways), ("epoch", epoch, 1, 1 << 40),
              ("counter_bits", counter_bits, 2, 32))
    for name, v, lo, hi in checks:
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise ValueError(f"{name}: must be an integer from {lo} to {hi}, not {v!r}")


def new_wss(seed: int = 0, min_entries: int = 32, epoch: int = 512 * 1024, *, sets: int = SETS,
            ways: int = WAYS, counter_bits: int = COUNTER_BITS) -> WssState:
    """An empty WSS cache; ``seed`` seeds the random replacement.

    Raises
    ------
    ValueError
        For an unusable parameter (:func:`check_wss_params`).
    """
    check_wss_params(sets, ways, min_entries, epoch, counter_bits)
    return WssState(
        min_entries=min_entries, epoch=epoch, counter_max=(1 << counter_bits) - 1,
        tag=np.full((sets, ways), -1, np.int64), blocks=np.zeros((sets, ways, TRACKED), np.uint8),
        owner=np.full((sets, ways), -1, np.int64),
        held=np.zeros(N_STREAMS, np.int64), wr=np.zeros(N_STREAMS, np.int64),
        rr=np.zeros(N_STREAMS, np.int64), wa=np.zeros(N_STREAMS, np.int64), dt=np.zeros(2, np.int64),
        max_reuse=np.zeros(1, np.int64),
        reads=np.zeros(1, np.int64), rng=seed_states(seed, 1), events=np.zeros(len(WSS_EVENTS), np.int64))


def wss_reset(ws: WssState, seed: int = 0) -> None:
    """Back to empty (every counter zero, the generator reseeded)."""
    ws.tag.fill(-1)
    ws.owner.fill(-1)
    for a in (ws.blocks, ws.held, ws.wr, ws.rr, ws.wa, ws.dt, ws.max_reuse, ws.reads, ws.events):
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


@nb.njit(cache=True, nogil=True, inline="always")
def _bump(counters, i, top):
    """Saturating increment of ``counters[i]``; returns the new value."""
    v = min(counters[i] + 1, top)
    counters[i] = v
    return v


@nb.njit(cache=True, nogil=True)
def _access(ws, line, stream, write):
    """One access; the packed outcome (bits 0-1 reuse, 2 hit, 3 alloc, 4 epoch end, 8+ way)."""
    sets, ways = ws.tag.shape[0], ws.tag.shape[1]
    page = line >> 6
    s = page & (sets - 1)
    tag = page // sets
    way = -1
    flags = 0
    ws.events[_E_ACC] += 1
    for w in range(ways):
        if ws.tag[s, w] == tag:
            way = w
            flags = _HIT
            ws.events[_E_HIT] += 1
            break
    if way < 0:
        for w in range(ways):
            if ws.tag[s, w] < 0:
                way = w
                break
        if way < 0 and ws.held[stream] < ws.min_entries:
            xorshift_next(ws.rng, 0)
            way = np.int64((ws.rng[0] >> np.uint64(_RAND_SHIFT)) & np.uint64(ways - 1))
            if ws.owner[s, way] >= 0:
                ws.held[ws.owner[s, way]] -= 1
            ws.owner[s, way] = -1
            ws.events[_E_REPL] += 1
        if way < 0:
            ws.events[_E_BYP] += 1
        else:
            flags = _ALLOC
            ws.events[_E_ALLOC] += 1
            ws.tag[s, way] = tag
            ws.blocks[s, way, :] = 0
    out = NO_REUSE
    top = ws.counter_max
    if way >= 0 and line % STRIDE == 0:
        m = (line & (PAGE_BLOCKS - 1)) // STRIDE
        b = np.int64(ws.blocks[s, way, m])
        sid = b >> 3
        if write:
            _bump(ws.wa, stream, top)
            b = _V | _W | (stream << 3)
        elif b & _V == 0:
            b = _V | (stream << 3)
            if stream == DYNTEX:
                _bump(ws.dt, 0, top)
        else:
            if b & _W:
                out = WR_REUSE
                ws.events[_E_WR] += 1
                ws.max_reuse[0] = max(ws.max_reuse[0], _bump(ws.wr, sid, top))
            else:
                out = RR_REUSE
                ws.events[_E_RR] += 1
                ws.max_reuse[0] = max(ws.max_reuse[0], _bump(ws.rr, sid, top))
            r = b & _R
            if stream == DYNTEX:
                if sid != DYNTEX:
                    _bump(ws.dt, 0, top)
                    r = 0
                elif r == 0:
                    _bump(ws.dt, 1, top)
                    r = _R
            b = _V | r | (stream << 3)
        ws.blocks[s, way, m] = b
        _set_owner(ws, s, way)
    if not write:
        ws.reads[0] += 1
        if ws.reads[0] >= ws.epoch:
            _end_epoch(ws)
            ws.events[_E_EPOCH] += 1
            flags |= _EPOCH
    return out | flags | (max(way, 0) << _WAY_SHIFT)


@nb.njit(cache=True, nogil=True)
def wss_access(ws, line, stream, write):
    """One LLC access (see the module docstring); returns NO_REUSE, WR_REUSE or RR_REUSE."""
    return _access(ws, line, stream, write) & 3


@nb.njit(cache=True, nogil=True)
def wss_record(ws, log, count, line, stream, write, access):
    """:func:`wss_access`, recording one :data:`TRANSACTION_DTYPE` row in ``log`` (when it has room).

    The hook every policy that feeds the WSS cache calls on each LLC access
    (``golden.policies.drp16_wss`` for any drp16 policy; DRP's own hooks
    with their recorder's ``log`` and ``count``, see
    ``golden.policies.recording``). With an empty ``log`` nothing is
    recorded. Returns the reuse outcome.
    """
    r = new_row(log, count) if log.size > 0 else -1
    if r >= 0:
        row = log[r]
        row.line = line
        row.stream = stream
        row.write = write
        row.held = ws.held[stream]
        row.wr = ws.wr[stream]
        row.rr = ws.rr[stream]
        row.wa = ws.wa[stream]
        row.max_reuse = ws.max_reuse[0]
        row.dt_blocks = ws.dt[0]
        row.dt_reused = ws.dt[1]
        row.access = access
    out = _access(ws, line, stream, write)
    if r >= 0:
        row = log[r]
        row.reuse = out & 3
        row.hit = (out & _HIT) != 0
        row.alloc = (out & _ALLOC) != 0
        row.epoch = (out & _EPOCH) != 0
        row.way = out >> _WAY_SHIFT
    return out & 3


class Wss(UnitModel):
    """Cycle-level model of the WSS cache unit (ports and protocol in the module docstring).

    The state is a :data:`WssState` (the functional core does each access
    in its s2 cycle), the access in s2, and the rows left to clear after an
    epoch.

    Parameters
    ----------
    sets, ways : int
        Geometry (drp16: 128 x 16), powers of 2.
    min_entries : int
        A stream holding fewer entries may replace one at random (32).
    epoch : int
        LLC reads per epoch (512K).
    counter_bits : int
        Width of the saturating counters (20).
    seed : int
        Seed of the random replacement.

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, sets: int = SETS, ways: int = WAYS, min_entries: int = 32, epoch: int = 512 * 1024,
                 counter_bits: int = COUNTER_BITS, seed: int = 0) -> None:
        check_wss_params(sets, ways, min_entries, epoch, counter_bits)
        self.sets, self.ways, self.min_entries, self.epoch = sets, ways, min_entries, epoch
        self.counter_bits, self.seed = counter_bits, seed
        wb = max(1, (ways - 1).bit_length())
        self.inputs = {"s1_acc__valid": 1, "s1_acc__line": LINE_BITS, "s1_acc__stream": STREAM_BITS,
                       "s1_acc__write": 1}
        self.outputs = {"s1_acc__ready": 1, "s2_resp__valid": 1, "s2_resp__hit": 1, "s2_resp__alloc": 1,
                        "s2_resp__way": wb, "s2_resp__reuse": 2, "s2_resp__epoch": 1,
                        "s2_resp__held": (sets * ways).bit_length(),
                        **{f"s2_resp__{k}": counter_bits for k in ("wr", "rr", "wa", "max_reuse",
                                                                   "dt_blocks", "dt_reused")}}
        self.reset()

    def reset(self) -> None:
        self.ws = new_wss(self.seed, self.min_entries, self.epoch, sets=self.sets, ways=self.ways,
                          counter_bits=self.counter_bits)
        self._log = np.zeros(1, TRANSACTION_DTYPE)
        self._count = np.zeros(1, COUNT_DTYPE)
        self.s2 = None  # (line, stream, write) of the access in stage 2
        self.flush = 0  # rows of the entry SRAM still to clear after an epoch
        self.taken = False

    def step(self, *, s1_acc__valid: int = 0, s1_acc__line: int = 0, s1_acc__stream: int = 0,
             s1_acc__write: int = 0) -> dict[str, int]:
        if s1_acc__valid and not 0 <= s1_acc__stream < N_STREAMS:
            raise ValueError(f"s1_acc__stream: must be 0 to {N_STREAMS - 1}, not {s1_acc__stream}")
        out = dict.fromkeys(self.outputs, 0)
        busy = self.flush > 0
        if busy:
            self.flush -= 1
        elif self.s2 is not None:
            self._count[0] = (0, 0)
            wss_record(self.ws, self._log, self._count, *self.s2, 0)
            row = self._log[0]
            out.update(s2_resp__valid=1, **{f"s2_resp__{k}": int(row[k]) for k in (
                "hit", "alloc", "way", "reuse", "epoch", "held", "wr", "rr", "wa", "max_reuse", "dt_blocks",
                "dt_reused")})
            if row["epoch"]:
                busy = True
                self.flush = self.sets
        out["s1_acc__ready"] = int(not busy)
        self.taken = bool(s1_acc__valid) and not busy
        self.s2 = (s1_acc__line, s1_acc__stream, s1_acc__write) if self.taken else None
        return out

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of recorded accesses (:data:`TRANSACTION_DTYPE`), laid out by :func:`wss_cycle_log`."""
        return wss_cycle_log(self, transactions)


_RESP_FIELDS = ("hit", "alloc", "way", "reuse", "epoch", "held", "wr", "rr", "wa", "max_reuse", "dt_blocks",
                "dt_reused")


def wss_cycle_log(model: Wss, tx: np.ndarray) -> np.ndarray:
    """Cycle log of the unit from recorded accesses (vectorised; no loop per row).

    Access *k* is taken in its row *c_k* and answered in *c_k* + 1. After an
    access that ends an epoch the requester keeps the next access presented
    (valid, not taken) for ``1 + sets`` rows (its s2 row and the rows the
    SRAM is cleared in); the next access is taken in *c_k* + 2 + ``sets``.
    A last row with no access answers the last access (after an epoch end,
    the clearing rows come first), so logs of consecutive chunks
    concatenate into a valid log.

    Returns rows of ``model.log_dtype`` plus ``ctx_access`` (the access
    presented in the row, or the last one).
    """
    n = len(tx)
    epoch = np.asarray(tx["epoch"]) != 0
    rows_per = np.ones(n + 1, dtype=np.int64)
    rows_per[1:] += (1 + model.sets) * epoch
    start = np.cumsum(rows_per) - 1
    log = np.zeros(int(start[-1]) + 1, dtype=model.cycle_log_dtype)
    presented = np.repeat(np.arange(n + 1), rows_per)
    real = presented < n
    for col, key in (("s1_acc__line", "line"), ("s1_acc__stream", "stream"), ("s1_acc__write", "write")):
        log[col][real] = tx[key][presented[real]]
    log["s1_acc__valid"] = real
    if n:
        log["ctx_access"] = tx["access"][np.minimum(presented, n - 1)]
    answer = start[:n] + 1
    log["exp_s1_acc__ready"] = 1
    log["exp_s2_resp__valid"][answer] = 1
    for k in _RESP_FIELDS:
        log[f"exp_s2_resp__{k}"][answer] = tx[k]
    stall = start[:n][epoch]
    for d in range(1, model.sets + 2):
        log["exp_s1_acc__ready"][stall + d] = 0
    return log
