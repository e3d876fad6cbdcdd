"""The GPU's own caches in front of drp16's LLC: what of the GPU's traffic reaches the LLC.

drp16 Section 3: "The shared LLC ... receives requests that miss in the CPU
cores' L2 caches or GPU's vertex cache, HiZ cache, shader caches, L2
texture cache, L2 depth cache, or L2 color cache". The stand-in workloads
(``golden.llc.frames``, ``golden.llc.cuda``) emit the accesses *at* these
caches; :class:`GpuCaches` filters them into LLC accesses.

Every cache is LRU, 64-byte lines, ``mod`` indexing, with one of three
write behaviours:

``WRITE_BACK``
    reads and writes allocate; a write marks the line dirty; a dirty
    victim, or a dirty line at :meth:`GpuCaches.flush`, is an LLC write
    (the colour and depth caches: "the GPU can allocate and write to data
    in its internal color and depth caches without notifying the LLC and
    later it evicts such data from the internal caches to the LLC", 4.1).
    A write miss allocates without reading the LLC (the ROPs write whole
    64-byte blocks).
``READ_ONLY``
    reads allocate; the stream never writes (texture, vertex, HiZ, shader
    instructions).
``WRITE_EVICT``
    reads allocate; a write invalidates the cached copy and goes to the LLC
    as a write ("the shader cores bypass the private data caches (in
    addition to evicting the target data cache block) when storing to
    global data", 4.1).

The L0 and L1 texture caches and the ROPs' 2 KB L1 colour and depth caches
are not modelled: they sit in front of the modelled L2s, which see every
line they miss, so they change only how often the L2s are hit, not what
reaches the LLC (the L2s are larger; a line an L1 holds was recently used
in the L2 too, except where the L1 holds it longer than the L2, which
these tiny L1s do not).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from golden.llc.model import LLC_TRACE_DTYPE

__all__ = ["WRITE_BACK", "READ_ONLY", "WRITE_EVICT", "GpuCache", "GpuCaches", "scaled_size"]

WRITE_BACK, READ_ONLY, WRITE_EVICT = range(3)


class GpuCache(NamedTuple):
    """One GPU-internal cache: ``count`` instances of ``size`` bytes, ``assoc`` ways, a write behaviour."""

    name: str
    size: int
    assoc: int
    write: int
    count: int = 1


@nb.njit(cache=True, nogil=True)
def _filter(cache, inst, stream, op, line, pc, sets, ways, offs, kinds, tag, dirty, stamp, clock, out):
    """Run accesses through the caches; write the LLC accesses to ``out``; returns how many."""
    n = 0
    for i in range(line.size):
        c = cache[i]
        x = line[i]
        nsets = sets[c]
        nw = ways[c]
        base = offs[c] + (inst[i] * nsets + (x & (nsets - 1))) * nw
        way = -1
        for w in range(nw):
            if tag[base + w] == x:
                way = w
                break
        write = op[i] == 2
        if write and kinds[c] == WRITE_EVICT:
            if way >= 0:
                tag[base + way] = -1
                dirty[base + way] = 0
                stamp[base + way] = 0
            out[n].stream, out[n].op, out[n].pc, out[n].line = stream[i], 2, pc[i], x
            n += 1
            continue
        clock[0] += 1
        if way >= 0:
            stamp[base + way] = clock[0]
            if write:
                dirty[base + way] = 1
            continue
        if not write:
            out[n].stream, out[n].op, out[n].pc, out[n].line = stream[i], 1, pc[i], x
            n += 1
        v = 0
        best = stamp[base]
        for w in range(1, nw):
            if stamp[base + w] < best:
                best = stamp[base + w]
                v = w
        if tag[base + v] >= 0 and dirty[base + v]:
            out[n].stream, out[n].op, out[n].pc, out[n].line = stream[i], 2, 0, tag[base + v]
            n += 1
        tag[base + v] = x
        dirty[base + v] = 1 if write else 0
        stamp[base + v] = clock[0]
    return n


def scaled_size(size: int, assoc: int, scale: float) -> int:
    """``size x scale``, rounded down to a power-of-two number of ``assoc``-way 64-byte sets."""
    sets = max(1, int(size * scale) // (64 * assoc))  # at least one
    return (1 << (sets.bit_length() - 1)) * 64 * assoc


class GpuCaches:
    """A set of GPU-internal caches, filtering the GPU's accesses into LLC accesses.

    Parameters
    ----------
    caches : sequence of GpuCache
        The caches; an access names one by its index and the instance by ``inst``.
    scale : float
        Size factor of every cache (:func:`scaled_size`): the workloads' and the LLC's scale.
    """

    def __init__(self, caches, scale: float = 1.0) -> None:
        self.caches = tuple(c._replace(size=scaled_size(c.size, c.assoc, scale)) for c in caches)
        sets, offs, n = [], [], 0
        for c in self.caches:
            s = c.size // (64 * c.assoc)  # a power of two (scaled_size)
            sets.append(s)
            offs.append(n)
            n += c.count * s * c.assoc
        self._sets = np.array(sets, np.int64)
        self._ways = np.array([c.assoc for c in self.caches], np.int64)
        self._kinds = np.array([c.write for c in self.caches], np.int64)
        self._offs = np.array(offs, np.int64)
        self._tag = np.full(n, -1, np.int64)
        self._dirty = np.zeros(n, np.uint8)
        self._stamp = np.zeros(n, np.int64)
        self._clock = np.zeros(1, np.int64)

    def access(self, cache, stream, op, line, inst=None, pc=None) -> np.ndarray:
        """Accesses at the GPU's caches, in order; returns the LLC accesses (``LLC_TRACE_DTYPE``).

        Parameters
        ----------
        cache, stream, op, line : array_like of int
            Per access: the cache index, the LLC stream id, 1 read or 2 write, the 64-byte line.
        inst : array_like of int, optional
            The cache instance (the SM of a per-SM cache); 0 when None.
        pc : array_like of int, optional
            The PC carried to the LLC for reads and write-evict writes; 0 when None.
        """
        line = np.ascontiguousarray(line, np.int64)
        n = line.size
        full = np.broadcast_to
        cache = np.ascontiguousarray(full(cache, n), np.int64)
        stream = np.ascontiguousarray(full(stream, n), np.int64)
        op = np.ascontiguousarray(full(op, n), np.int64)
        inst = np.zeros(n, np.int64) if inst is None else np.ascontiguousarray(full(inst, n), np.int64)
        pc = np.zeros(n, np.int64) if pc is None else np.ascontiguousarray(full(pc, n), np.int64)
        out = np.zeros(2 * n, LLC_TRACE_DTYPE)
        k = _filter(cache, inst, stream, op, line, pc, self._sets, self._ways, self._offs, self._kinds,
                    self._tag, self._dirty, self._stamp, self._clock, out)
        return out[:k]

    def flush(self, cache: int, stream: int) -> np.ndarray:
        """Write back every dirty line of cache ``cache`` (all instances) as LLC writes of ``stream``.

        The lines stay cached, clean. Returns the LLC writes in way order.
        """
        c = self.caches[cache]
        lo = self._offs[cache]
        hi = lo + c.count * self._sets[cache] * c.assoc
        d = np.flatnonzero(self._dirty[lo:hi]) + lo
        out = np.zeros(d.size, LLC_TRACE_DTYPE)
        out["stream"], out["op"], out["line"] = stream, 2, self._tag[d]
        self._dirty[d] = 0
        return out

    def invalidate(self, cache: int) -> None:
        """Drop every line of cache ``cache`` (dirty lines are lost: flush first)."""
        c = self.caches[cache]
        lo = self._offs[cache]
        hi = lo + c.count * self._sets[cache] * c.assoc
        self._tag[lo:hi] = -1
        self._dirty[lo:hi] = 0
        self._stamp[lo:hi] = 0
