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

The LLC is one level of the compiled cache engine
(:func:`golden.cache.engine.step_function`), write-back and write-allocate,
with the policy's hooks (``Policy.level_hooks("llc", cfg, 1)``). Every LLC
access gives the hooks ``a.stream``, ``a.op``, ``a.pc`` (CPU rows; 0 for GPU
rows), ``a.sm`` = the core (0 for GPU rows), ``a.cycle`` = the row's index
in the input and ``a.t`` = the index of the LLC access among all LLC
accesses of the run (what an offline policy's next-use times refer to).

Inclusion is the driver's, not the engine's: after an LLC miss that filled,
the driver compares the set's tags with those before the access; a line
that left is looked up in every core's L1 and L2 and invalidated there
(a dirty private copy is written to memory). A policy that bypasses a CPU
read miss would break inclusion; the driver counts such events
(``cpu_bypasses``) and the drp16 policies never do it.
"""

from __future__ import annotations

import warnings
from collections import namedtuple

import numba as nb
import numpy as np
from numba.core.errors import NumbaExperimentalFeatureWarning

from golden.cache.engine import (
    BYPASSED,
    LOAD,
    MEMORY,
    STORE,
    EngineState,
    buffer_pointer,
    engine_hooks,
    step_function,
)
from golden.cache.hooks import BASELINE_HOOKS, Access
from golden.cache.indexing import index_params, set_index
from golden.cache.replacement import REPL_LRU, choose_victim, insert, invalidate, touch
from golden.cache.stats import counter_dict
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

#: One private cache level of every core: flat arrays indexed ``(core * sets + set) * ways + way``.
Private = namedtuple("Private", ["sets", "ways", "tag", "dirty", "stamp", "freq", "tree", "clock"])


def _private(cfg: CacheConfig, cores: int) -> Private:
    n = max(cores, 1) * cfg.sets * cfg.assoc
    z = np.zeros
    return Private(cfg.sets, cfg.assoc, np.full(n, -1, np.int64), z(n, np.int64), z(n, np.int64),
                   z(n, np.int64), z(max(cores, 1) * cfg.sets, np.int64), z(1, np.int64))


@nb.njit(nogil=True, inline="always")
def _lookup(pc_, core, line):
    """(sid, base, way) of ``line`` in core ``core``'s cache ``pc_`` (way -1 on a miss)."""
    sid = core * pc_.sets + (line & (pc_.sets - 1))
    base = sid * pc_.ways
    for w in range(pc_.ways):
        if pc_.tag[base + w] == line:
            return sid, base, w
    return sid, base, -1


@nb.njit(nogil=True, inline="always")
def _fill(pc_, sid, base, line, dirty):
    """Install ``line`` in set ``sid``; returns the dirty victim's line or -1."""
    v = choose_victim(REPL_LRU, pc_.tag, pc_.stamp, pc_.freq, pc_.tree, pc_.clock, 0, sid, base, pc_.ways)
    old = pc_.tag[base + v]
    out = old if old >= 0 and pc_.dirty[base + v] else np.int64(-1)
    pc_.tag[base + v] = line
    pc_.dirty[base + v] = dirty
    insert(REPL_LRU, pc_.stamp, pc_.freq, pc_.tree, pc_.clock, sid, base, v, pc_.ways)
    return out


@nb.njit(nogil=True, inline="always")
def _drop(pc_, core, line):
    """Invalidate ``line`` in one core's cache; returns 1 if the copy was dirty, 0 if clean, -1 if absent."""
    sid, base, w = _lookup(pc_, core, line)
    if w < 0:
        return -1
    d = pc_.dirty[base + w]
    pc_.tag[base + w] = -1
    pc_.dirty[base + w] = 0
    invalidate(pc_.stamp, pc_.freq, base, w)
    return d


def _make_loop(step):
    """The driver loop around one engine family's ``step``."""

    @nb.njit(nogil=True, inline="always")
    def llc_access(ptr, hh, tags, ip, ways, stream, op, pc, core, line, i, t, ctr, pctr, l1, l2, cores,
                   rec, nrec, old):
        s = set_index(line, ip[0], ip[1], ip[2], ip[3], ip[4], ip[5])
        base = s * ways
        for w in range(ways):
            old[w] = tags[base + w]
        a = Access(np.int64(0), np.int64(core), np.int64(0), np.int64(0), np.int64(0), np.int64(pc),
                   np.int64(op), np.int64(0xFF), np.int64(line), np.int64(-1), np.int64(-1), np.int64(i),
                   np.int64(stream), np.int64(t))
        served = step(ptr, hh, None, None, a)
        if nrec >= 0:
            rec[nrec].stream = stream
            rec[nrec].op = op
            rec[nrec].pc = pc
            rec[nrec].line = line
        load = op == LOAD
        ctr[stream, _RD if load else _WR] += 1
        if served & ~BYPASSED == MEMORY:
            ctr[stream, _RM if load else _WM] += 1
        if served & BYPASSED:
            ctr[stream, _BY] += 1
            if stream < cores and load:
                pctr[stream, _CBY] += 1
            return
        for w in range(ways):
            x = old[w]
            if x >= 0 and tags[base + w] != x:
                # x left the LLC: back-invalidate the CPU cores' private copies.
                for k in range(cores):
                    d1 = _drop(l1, k, x)
                    d2 = _drop(l2, k, x)
                    if d1 >= 0 or d2 >= 0:
                        pctr[k, _BI] += 1
                    if d1 == 1 or d2 == 1:
                        pctr[k, _BIWB] += 1

    @nb.njit(nogil=True)
    def loop(buf, h, tags, ip, ways, trace, i0, t0, cores, ctr, pctr, l1, l2, rec):
        ptr = buffer_pointer(buf)
        hh = engine_hooks(h)
        t = t0
        record = rec.size > 0
        old = np.empty(ways, np.int64)  # the set's tags before an LLC access
        for j in range(trace.size):
            r = trace[j]
            stream, op, pc, line = np.int64(r.stream), np.int64(r.op), np.int64(r.pc), np.int64(r.line)
            i = i0 + j
            if stream >= cores:
                llc_access(ptr, hh, tags, ip, ways, stream, op, pc, 0, line, i, t, ctr, pctr, l1, l2, cores,
                           rec, t - t0 if record else -1, old)
                t += 1
                continue
            k = stream
            sid1, base1, w1 = _lookup(l1, k, line)
            if w1 >= 0:
                pctr[k, _L1H] += 1
                touch(REPL_LRU, l1.stamp, l1.freq, l1.tree, l1.clock, sid1, base1, w1, l1.ways)
                if op == STORE:
                    l1.dirty[base1 + w1] = 1
                continue
            pctr[k, _L1M] += 1
            sid2, base2, w2 = _lookup(l2, k, line)
            if w2 >= 0:
                pctr[k, _L2H] += 1
                touch(REPL_LRU, l2.stamp, l2.freq, l2.tree, l2.clock, sid2, base2, w2, l2.ways)
            else:
                pctr[k, _L2M] += 1
                llc_access(ptr, hh, tags, ip, ways, stream, LOAD, pc, k, line, i, t, ctr, pctr, l1, l2, cores,
                           rec, t - t0 if record else -1, old)
                t += 1
                victim = _fill(l2, sid2, base2, line, 0)
                if victim >= 0:
                    pctr[k, _L2WB] += 1
                    llc_access(ptr, hh, tags, ip, ways, stream, STORE, pc, k, victim, i, t, ctr, pctr, l1, l2,
                               cores, rec, t - t0 if record else -1, old)
                    t += 1
            victim = _fill(l1, sid1, base1, line, 1 if op == STORE else 0)
            if victim >= 0:
                pctr[k, _L1WB] += 1
                sv, bv, wv = _lookup(l2, k, victim)
                if wv >= 0:
                    l2.dirty[bv + wv] = 1
                    touch(REPL_LRU, l2.stamp, l2.freq, l2.tree, l2.clock, sv, bv, wv, l2.ways)
                else:
                    v2 = _fill(l2, sv, bv, victim, 1)
                    if v2 >= 0:
                        pctr[k, _L2WB] += 1
                        llc_access(ptr, hh, tags, ip, ways, stream, STORE, pc, k, v2, i, t, ctr, pctr, l1, l2,
                                   cores, rec, t - t0 if record else -1, old)
                        t += 1
        return t

    return loop


_LOOPS = {hooked: _make_loop(step_function(hooked)) for hooked in (False, True)}


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
        self._l1, self._l2 = _private(l1, cores), _private(l2, cores)
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
        with warnings.catch_warnings():
            # Hooks are passed as first-class functions, as engine.run passes them; numba warns
            # about the feature when it compiles the driver for a policy.
            warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
            t = self._run_loop(level, cores, trace, rec)
        made = t - self.llc_accesses
        self.llc_accesses = t
        self._rows += trace.size
        return rec[:made].copy() if record else None

    def _run_loop(self, level, cores: int, trace: np.ndarray, rec: np.ndarray) -> int:
        return _LOOPS[self.hooks is not None](self.state.buf, self.hooks, level.tag.reshape(-1), self._ip,
                                              self.cfg.assoc, trace, self._rows, self.llc_accesses, cores,
                                              self.stream_counters, self.private_counters, self._l1, self._l2,
                                              rec)

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
