"""drp16's stream-labelled shared LLC with the CPU cores' private caches in front.

drp16 Section 3: each CPU core has a private 32 KB 8-way L1 data cache and
a 256 KB 8-way unified L2, 64-byte blocks; the shared LLC is 16 MB 16-way
and "maintains inclusion for all CPU data and instructions. However, the
GPU data are not kept inclusive": an LLC eviction back-invalidates the CPU
cores' private copies, never the GPU's caches. GPU requests reach the LLC
already filtered by the GPU's own caches, so a trace gives them as LLC
accesses.

Input: rows of :data:`LLC_TRACE_DTYPE` in global order: ``stream``
(:mod:`golden.llc.streams`), ``op`` (1 read, 2 write), ``pc`` (CPU rows) and
``line`` (64-byte block number). A CPU row (stream ``k`` below the core
count) is a core's load (``op`` 1) or store (2) at its L1; a GPU row is an
LLC read or write.

Private caches (per core, LRU, write-back, write-allocate, non-inclusive
of each other): a load or store that misses the L1 looks up the L2; an L2
miss is an LLC read (a store's read-for-ownership), then the L2 and the L1
fill. A dirty L2 victim is an LLC write (a hit, by inclusion); a dirty L1
victim is written into the L2 (allocated there on a miss, with no LLC read:
the whole block is written). drp16 gives only the sizes; these are the
usual choices and are in ``docs/llc.md``.

The LLC is one write-back, write-allocate level of the cache engine's state
(``EngineState``), accessed by the driver with the engine's semantics for
a level in front of memory (the same hook calls, order and counters), with
the policy's hooks (``Policy.level_hooks("llc", cfg, 1)``). Every LLC
access gives the hooks ``a.stream``, ``a.op``, ``a.pc`` (CPU rows; 0 for GPU
rows), ``a.sm`` = the core (0 for GPU rows), ``a.cycle`` = the row's index
in the input and ``a.t`` = the index of the LLC access among all LLC
accesses of the run (what an offline policy's next-use times refer to).

Inclusion is the driver's: a line an LLC fill replaces is looked up in
every core's L1 and L2 and invalidated there (a dirty private copy is
written to memory). A policy that bypasses a CPU
read miss would break inclusion; the driver counts such events
(``cpu_bypasses``) and the drp16 policies never do it.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np
from numba.core.errors import NumbaError

from golden.cache.engine import LOAD, STORE, EngineState
from golden.cache.hooks import BASELINE_HOOKS, Access, LevelHooks, at_level
from golden.cache.indexing import index_params, set_index
from golden.cache.replacement import REPL_LRU, choose_victim, insert, replacement_kind, touch
from golden.cache.stats import (
    C_BYPASSES,
    C_EVICTIONS,
    C_FILLS,
    C_READ_HITS,
    C_READ_MISSES,
    C_WRITE_HITS,
    C_WRITE_MISSES,
    C_WRITEBACKS,
    counter_dict,
)
from golden.configs.schema import CacheConfig
from golden.errors import InputError
from golden.llc.streams import MAX_CORES, N_STREAMS, STREAM_NAMES

__all__ = [
    "LLC_TRACE_DTYPE",
    "LLC_CONFIG",
    "L1_CONFIG",
    "L2_CONFIG",
    "STREAM_COUNTERS",
    "PRIVATE_COUNTERS",
    "LLCModel",
]

#: One access of the input (and of a recorded LLC trace).
LLC_TRACE_DTYPE = np.dtype([("stream", "u1"), ("op", "u1"), ("pc", "<u8"), ("line", "<u8")])
#: drp16 Section 3: the shared LLC, 16 MB 16-way, 64-byte blocks.
LLC_CONFIG = CacheConfig(size=16 << 20, assoc=16, line_size=64)
#: drp16 Section 3: a core's L1 data cache, 32 KB 8-way.
L1_CONFIG = CacheConfig(size=32 << 10, assoc=8, line_size=64)
#: drp16 Section 3: a core's unified L2, 256 KB 8-way.
L2_CONFIG = CacheConfig(size=256 << 10, assoc=8, line_size=64)

#: Per-stream LLC counters (columns of ``LLCModel.stream_counters``).
STREAM_COUNTERS = ("reads", "read_misses", "writes", "write_misses", "bypasses")
_RD, _RM, _WR, _WM, _BY = range(len(STREAM_COUNTERS))
#: Per-core private-cache and inclusion counters.
PRIVATE_COUNTERS = ("l1_hits", "l1_misses", "l2_hits", "l2_misses", "l1_writebacks", "l2_writebacks",
                    "back_invalidations", "back_invalidation_writebacks", "cpu_bypasses")
(_L1H, _L1M, _L2H, _L2M, _L1WB, _L2WB, _BI, _BIWB, _CBY) = range(len(PRIVATE_COUNTERS))

#: The private caches of every core, both levels in three flat arrays: ``tag``, ``dirty`` and
#: ``stamp`` (LRU stamps, 0: invalid) indexed ``off + (core * sets + set) * ways + way`` with ``off``
#: 0 for the L1s and ``n1`` for the L2s; ``geo`` = ``[sets1, ways1, sets2, ways2, n1, clock1, clock2]``
#: where the clocks are indices of ``stamp`` (its last two elements).
Private = namedtuple("Private", ["tag", "dirty", "stamp", "geo"])
_S1, _W1, _S2, _W2, _OFF2, _CLK1, _CLK2 = range(7)


def _private(l1: CacheConfig, l2: CacheConfig, cores: int) -> Private:
    n1 = max(cores, 1) * l1.sets * l1.assoc
    n = n1 + max(cores, 1) * l2.sets * l2.assoc
    geo = np.array([l1.sets, l1.assoc, l2.sets, l2.assoc, n1, n, n + 1], np.int64)
    return Private(np.full(n, -1, np.int64), np.zeros(n, np.int64), np.zeros(n + 2, np.int64), geo)


@nb.njit(nogil=True, inline="always")
def _lookup(tag, off, sets, ways, core, line):
    """(base, way) of ``line`` in core ``core``'s private cache at ``off`` (way -1 on a miss)."""
    base = off + (core * sets + (line & (sets - 1))) * ways
    for w in range(ways):
        if tag[base + w] == line:
            return base, w
    return base, -1


@nb.njit(nogil=True, inline="always")
def _touch(stamp, clk, i):
    """LRU update of entry ``i`` with the level clock ``stamp[clk]``."""
    stamp[clk] += 1
    stamp[i] = stamp[clk]


@nb.njit(nogil=True, inline="always")
def _fill(tag, dirty, stamp, ways, clk, base, line, d):
    """LRU-install ``line`` in the set at ``base`` (the lowest invalid way, else the oldest).

    Returns the dirty victim's line or -1.
    """
    v = 0
    best = stamp[base]
    for w in range(1, ways):
        x = stamp[base + w]
        older = x < best
        best = x if older else best
        v = w if older else v
    old = tag[base + v]
    out = old if old >= 0 and dirty[base + v] else np.int64(-1)
    tag[base + v] = line
    dirty[base + v] = d
    _touch(stamp, clk, base + v)
    return out


@nb.njit(nogil=True, inline="always")
def _drop(tag, dirty, stamp, off, sets, ways, core, line):
    """Invalidate ``line`` in one core's cache; returns 1 if the copy was dirty, 0 if clean, -1 if absent."""
    base, w = _lookup(tag, off, sets, ways, core, line)
    if w < 0:
        return -1
    d = dirty[base + w]
    tag[base + w] = -1
    dirty[base + w] = 0
    stamp[base + w] = 0
    return d


@nb.njit(nogil=True, inline="always")
def _back_invalidate(x, cores, pctr, pt, pd, ps, g):
    """``x`` left the LLC: invalidate the CPU cores' private copies (inclusion)."""
    for k in range(cores):
        r1 = _drop(pt, pd, ps, 0, g[_S1], g[_W1], k, x)
        r2 = _drop(pt, pd, ps, g[_OFF2], g[_S2], g[_W2], k, x)
        if r1 >= 0 or r2 >= 0:
            pctr[k, _BI] += 1
        if r1 == 1 or r2 == 1:
            pctr[k, _BIWB] += 1


@nb.njit(nogil=True, inline="always")
def _llc_access(h, ways, repl, ip, tag, dirty, stamp, freq, tree, rng, clock, ec, stream, op, pc, core, line,
                i, t, ctr, pctr, cores, pt, pd, ps, g, rec, record, t0):
    """One LLC access: the engine's write-back level in front of memory, with the policy's hooks.

    The same sequence of hook calls and counter updates as ``golden.cache.engine``'s
    ``_access`` for a single write-back level (``docs/cache.md``, order of calls); a
    line that leaves is back-invalidated in the CPU cores' private caches. Every
    array is a plain argument: the loop then keeps them in registers (attributes of
    named tuples of arrays cost reference counting on every access).
    """
    s = set_index(line, ip[0], ip[1], ip[2], ip[3], ip[4], ip[5], ip[6])
    base = s * ways
    way = -1
    for w in range(ways):
        if tag[base + w] == line:
            way = w
            break
    a = Access(np.int64(0), np.int64(core), np.int64(0), np.int64(0), np.int64(0), np.int64(pc),
               np.int64(op), np.int64(0xFF), np.int64(line), np.int64(s), np.int64(way), np.int64(i),
               np.int64(stream), np.int64(t))
    if record:
        rec[t - t0].stream = stream
        rec[t - t0].op = op
        rec[t - t0].pc = pc
        rec[t - t0].line = line
    load = op == LOAD
    ctr[stream, _RD if load else _WR] += 1
    if way >= 0:
        ec[C_READ_HITS if load else C_WRITE_HITS] += 1
        if repl == REPL_LRU:  # touch(), written out
            clock[0] += 1
            stamp[base + way] = clock[0]
        else:
            touch(repl, stamp, freq, tree, clock, s, base, way, ways)
        h.on_hit(h.state, a)
        if not load:
            dirty[base + way] = 1
        return
    ec[C_READ_MISSES if load else C_WRITE_MISSES] += 1
    ctr[stream, _RM if load else _WM] += 1
    req = h.on_miss(h.state, a)
    if h.on_response(h.state, a, req, np.int64(0)) != 0:
        ec[C_BYPASSES] += 1
        ctr[stream, _BY] += 1
        if stream < cores and load:
            pctr[stream, _CBY] += 1
        return
    if repl == REPL_LRU:  # choose_victim(), written out: the lowest invalid way, else the oldest
        v = 0
        best = stamp[base]
        for w in range(1, ways):
            x = stamp[base + w]
            older = x < best
            best = x if older else best
            v = w if older else v
    else:
        v = choose_victim(repl, tag, stamp, freq, tree, rng, 0, s, base, ways)
    v = h.victim(h.state, a, v)
    old = tag[base + v]
    if old >= 0:
        ec[C_EVICTIONS] += 1
        was_dirty = dirty[base + v]
        h.on_evict(h.state, a, v, old, was_dirty)
        if was_dirty:
            ec[C_WRITEBACKS] += 1
        _back_invalidate(old, cores, pctr, pt, pd, ps, g)
    tag[base + v] = line
    dirty[base + v] = 0 if load else 1
    if repl == REPL_LRU:
        clock[0] += 1
        stamp[base + v] = clock[0]
    else:
        insert(repl, stamp, freq, tree, clock, s, base, v, ways)
    ec[C_FILLS] += 1
    h.on_fill(h.state, at_level(a, a.c, a.op, line, s, np.int64(v)))


@nb.njit(nogil=True, _nrt=False)
def _loop(h, ways, repl, ip, tag, dirty, stamp, freq, tree, rng, clock, ec, trace, i0, t0, cores, ctr, pctr,
          pt, pd, ps, g, rec):
    """The driver: private caches, then the LLC for their misses and writebacks and for GPU rows.

    Compiled once per policy (numba specialises on the hook functions in ``h``,
    which then are direct calls).
    """
    t = t0
    record = rec.size > 0
    sets1, ways1, clk1 = g[_S1], g[_W1], g[_CLK1]
    off2, sets2, ways2, clk2 = g[_OFF2], g[_S2], g[_W2], g[_CLK2]
    for j in range(trace.size):
        r = trace[j]
        stream, op, pc, line = np.int64(r.stream), np.int64(r.op), np.int64(r.pc), np.int64(r.line)
        i = i0 + j
        if stream >= cores:
            _llc_access(h, ways, repl, ip, tag, dirty, stamp, freq, tree, rng, clock, ec,
                        stream, op, pc, 0, line, i, t, ctr, pctr, cores, pt, pd, ps, g, rec, record, t0)
            t += 1
            continue
        k = stream
        base1, w1 = _lookup(pt, 0, sets1, ways1, k, line)
        if w1 >= 0:
            pctr[k, _L1H] += 1
            _touch(ps, clk1, base1 + w1)
            if op == STORE:
                pd[base1 + w1] = 1
            continue
        pctr[k, _L1M] += 1
        base2, w2 = _lookup(pt, off2, sets2, ways2, k, line)
        if w2 >= 0:
            pctr[k, _L2H] += 1
            _touch(ps, clk2, base2 + w2)
        else:
            pctr[k, _L2M] += 1
            _llc_access(h, ways, repl, ip, tag, dirty, stamp, freq, tree, rng, clock, ec,
                        stream, LOAD, pc, k, line, i, t, ctr, pctr, cores, pt, pd, ps, g, rec, record, t0)
            t += 1
            victim = _fill(pt, pd, ps, ways2, clk2, base2, line, 0)
            if victim >= 0:
                pctr[k, _L2WB] += 1
                _llc_access(h, ways, repl, ip, tag, dirty, stamp, freq, tree, rng, clock, ec,
                        stream, STORE, pc, k, victim, i, t, ctr, pctr, cores, pt, pd, ps, g, rec,
                            record, t0)
                t += 1
        victim = _fill(pt, pd, ps, ways1, clk1, base1, line, 1 if op == STORE else 0)
        if victim >= 0:
            pctr[k, _L1WB] += 1
            bv, wv = _lookup(pt, off2, sets2, ways2, k, victim)
            if wv >= 0:
                pd[bv + wv] = 1
                _touch(ps, clk2, bv + wv)
            else:
                v2 = _fill(pt, pd, ps, ways2, clk2, bv, victim, 1)
                if v2 >= 0:
                    pctr[k, _L2WB] += 1
                    _llc_access(h, ways, repl, ip, tag, dirty, stamp, freq, tree, rng, clock, ec,
                        stream, STORE, pc, k, v2, i, t, ctr, pctr, cores, pt, pd, ps, g, rec,
                                record, t0)
                    t += 1
    return t


_INLINED: dict = {}
#: The generic loop with numba's reference counting, for hooks that allocate.
_loop_nrt = nb.njit(nogil=True)(_loop.py_func)


def _inlined(hooks: LevelHooks) -> LevelHooks:
    """``hooks`` with each function recompiled to be inlined into the driver (memoised per function).

    A hook called per access costs its call (and the reference counts of the
    state's arrays) more than its work; inlined, the driver keeps the state in
    registers.
    """
    out = []
    for f in hooks[1:]:
        if f not in _INLINED:
            _INLINED[f] = nb.njit(nogil=True, inline="always")(f.py_func)
        out.append(_INLINED[f])
    return LevelHooks(hooks.state, *out)


class LLCModel:
    """The LLC of a CPU-GPU processor with ``cores`` CPU cores, driven by a stream-labelled trace.

    Parameters
    ----------
    cores : int
        CPU cores (0 to :data:`~golden.llc.streams.MAX_CORES`); streams
        ``0 .. cores-1`` go through their core's private caches.
    policy : Policy or None
        The LLC policy (its ``level_hooks("llc", cfg, 1)``); None: the
        engine's own replacement (``llc.replacement``) with every miss filled.
    llc, l1, l2 : CacheConfig
        The LLC and each core's private caches (drp16 Section 3 by default).
        The LLC must be write-back; the private caches use ``mod`` indexing
        and LRU whatever their ``index`` and ``replacement`` say.
    private : bool
        False: every row is an LLC access, CPU rows included (replaying a
        recorded LLC trace, as drp16 runs OPT, Section 4.1), with no
        private caches and no back-invalidation.

    Members
    -------
    state : EngineState
        The LLC's engine state (``state.levels[0]`` views its tags and counters).
    stream_counters : numpy.ndarray
        ``int64[N_STREAMS, 5]``, columns :data:`STREAM_COUNTERS`.
    private_counters : numpy.ndarray
        ``int64[max(cores, 1), 9]``, columns :data:`PRIVATE_COUNTERS`.
    llc_accesses : int
        LLC accesses so far (the next ``a.t``).

    Raises
    ------
    InputError
        For a core count out of range or a write-through LLC.
    """

    def __init__(self, cores: int, policy=None, llc: CacheConfig = LLC_CONFIG, l1: CacheConfig = L1_CONFIG,
                 l2: CacheConfig = L2_CONFIG, private: bool = True) -> None:
        if not isinstance(cores, int) or not 0 <= cores <= MAX_CORES:
            raise InputError(f"cores: must be 0 to {MAX_CORES}, not {cores!r}")
        if llc.write != "write-back":
            raise InputError(f"llc.write: drp16's LLC is write-back, not {llc.write!r}")
        for name, cfg in (("l1", l1), ("l2", l2)):
            if cfg.sets & (cfg.sets - 1):
                raise InputError(f"{name}: the private caches need a power-of-2 number of sets, "
                                 f"not {cfg.sets}")
        self.cores, self.policy, self.cfg, self.private = cores, policy, llc, private
        self.state = EngineState([("llc", llc, 1)])
        hooks = policy.level_hooks("llc", llc, 1) if policy is not None else BASELINE_HOOKS
        self.hooks = None if hooks is BASELINE_HOOKS else hooks
        self._private = _private(l1, l2, cores)
        self._ip = np.array(index_params(llc), np.int64)
        self.stream_counters = np.zeros((N_STREAMS, len(STREAM_COUNTERS)), np.int64)
        self.private_counters = np.zeros((max(cores, 1), len(PRIVATE_COUNTERS)), np.int64)
        self.llc_accesses = 0
        self._rows = 0

    def run(self, trace: np.ndarray, record: bool = False) -> np.ndarray | None:
        """Run ``trace`` (rows of :data:`LLC_TRACE_DTYPE`) after everything run before.

        Parameters
        ----------
        trace : numpy.ndarray
            The accesses, in order.
        record : bool
            Return the LLC accesses this call made, as :data:`LLC_TRACE_DTYPE` rows.

        Raises
        ------
        InputError
            For a wrong dtype, an op other than 1 and 2, an unknown stream, or
            (with the private caches) a CPU stream of a core the model lacks.
        """
        check_trace(trace)
        if self.private and trace.size:
            bad = (trace["stream"] >= self.cores) & (trace["stream"] < MAX_CORES)
            if bad.any():
                j = int(np.argmax(bad))
                name = STREAM_NAMES[trace["stream"][j]]
                raise InputError(f"trace row {j}: stream {name} but the model has {self.cores} CPU core(s)")
        trace = np.ascontiguousarray(trace)
        rec = np.zeros(3 * trace.size if record else 0, LLC_TRACE_DTYPE)
        cores = self.cores if self.private else 0
        level = self.state.levels[0]
        t = self._run_loop(level, cores, trace, rec)
        made = t - self.llc_accesses
        self.llc_accesses = t
        self._rows += trace.size
        return rec[:made].copy() if record else None

    def _run_loop(self, level, cores: int, trace: np.ndarray, rec: np.ndarray) -> int:
        from golden.llc.loops import cached_loop  # it generates code from this module's loop

        hooks = BASELINE_HOOKS if self.hooks is None else self.hooks
        loop = cached_loop(hooks)
        if loop is None:  # the generic loop, compiled in this process
            first = _inlined(hooks) if self.hooks is not None else hooks
            loop = _loop
        else:
            first = hooks.state
        pv = self._private
        args = (np.int64(self.cfg.assoc), np.int64(replacement_kind(self.cfg.replacement)), self._ip,
                level.tag.reshape(-1), level.dirty.reshape(-1), level.stamp.reshape(-1),
                level.freq.reshape(-1), level.tree.reshape(-1), level.rng, level.clock,
                level.counters.reshape(-1), trace, self._rows, self.llc_accesses, cores, self.stream_counters,
                self.private_counters, pv.tag, pv.dirty, pv.stamp, pv.geo, rec)
        try:
            return loop(first, *args)
        except NumbaError:
            # A hook that needs numba's runtime (it allocates) cannot compile without reference
            # counting: run the loop with it (nothing ran: compiling failed before the first access).
            return _loop_nrt(_inlined(hooks) if self.hooks is not None else hooks, *args)

    def stats(self) -> dict:
        """``{"llc": engine counters, "streams": {name: STREAM_COUNTERS}, "cores": [PRIVATE_COUNTERS], ...}``.

        Also ``read_misses``, ``cpu_read_misses`` and ``gpu_read_misses``:
        LLC read misses in all, of the CPU streams and of the GPU streams
        (drp16's figures count LLC read misses).
        """
        sc = self.stream_counters
        rm = sc[:, _RM]
        return {
            "llc": counter_dict(self.state.levels[0].counters.sum(axis=0)),
            "streams": {STREAM_NAMES[s]: dict(zip(STREAM_COUNTERS, map(int, sc[s]), strict=True))
                        for s in range(N_STREAMS) if sc[s].any()},
            "cores": [dict(zip(PRIVATE_COUNTERS, map(int, row), strict=True))
                      for row in self.private_counters[:self.cores]],
            "read_misses": int(rm.sum()),
            "cpu_read_misses": int(rm[:MAX_CORES].sum()),
            "gpu_read_misses": int(rm[MAX_CORES:].sum()),
        }


def check_trace(trace: np.ndarray) -> None:
    """Raise InputError unless ``trace`` is a valid :data:`LLC_TRACE_DTYPE` array."""
    if not isinstance(trace, np.ndarray) or trace.dtype != LLC_TRACE_DTYPE:
        raise InputError("trace: must be a numpy array of LLC_TRACE_DTYPE rows (stream, op, pc, line)")
    if trace.size == 0:
        return
    bad = (trace["op"] < 1) | (trace["op"] > 2)
    if bad.any():
        j = int(np.argmax(bad))
        raise InputError(f"trace row {j}: op must be 1 (read) or 2 (write), not {trace['op'][j]}")
    bad = trace["stream"] >= N_STREAMS
    if bad.any():
        j = int(np.argmax(bad))
        raise InputError(f"trace row {j}: unknown stream {trace['stream'][j]} (0 to {N_STREAMS - 1})")
    if int(trace["line"].max()) >= 1 << 62:
        raise InputError("trace: line numbers must be below 2**62")
