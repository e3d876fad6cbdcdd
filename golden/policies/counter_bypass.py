"""Counter-based replacement and bypassing at the L1: the baseline tian15 compares against.

Kharbutli and Solihin, "Counter-Based Cache Replacement and Bypassing
Algorithms", IEEE TC 57(4), 2008 (tian15 reference [29]), as tian15
evaluates it in a 16 KB GPU L1 (tian15 Sections 3.3 and 4.1): per-line event
counters, and a ``128 x 128`` table of 5-bit entries (a 4-bit counter
threshold ``maxCstored`` and a confidence bit) indexed by a hashed PC and a
hashed line address, 20 extra bits per tag.

Two algorithms share the code, selected by ``algorithm``:

``"aip"`` (Access Interval Predictor, the default)
    The event of a line is an access to its set. Per line: hashed PC
    (7 bits), event counter ``C`` (4), ``maxCpresent`` (4), ``maxCpast``
    (4), ``conf`` (1) = 20 bits. Every access to a set increments the
    ``C`` of each valid line in it (saturating at 15); then, on a hit,
    ``maxCpresent = max(maxCpresent, C)`` and ``C = 0``. A line has expired
    when ``conf`` is 1 and ``C > maxCpresent`` and ``C > maxCpast``.
``"lvp"`` (Live-time Predictor)
    The event of a line is an access to the line itself: a hit increments
    its ``C``, which therefore counts the hits of the current generation;
    there is no ``maxCpresent`` (16 bits per line). A line has expired when
    ``conf`` is 1 and ``C >= maxCpast`` (its live time is reached), unless
    ``maxCpast`` is saturated.

Common to both:

* **Victim** (on a miss that fills, all ways valid): among the expired
  lines other than the MRU line, the one closest to the LRU position;
  when none has expired, the configured replacement policy's choice.
* **Eviction** (replacement, or a write-evict invalidation): the table entry
  ``[hash(line's PC), hash(line)]`` gets ``maxCstored`` = the generation's
  value (AIP: ``maxCpresent``; LvP: ``C``) and ``conf = 1`` if that value
  equals the line's ``maxCpast``, else 0.
* **Fill**: ``C = maxCpresent = 0``; ``maxCpast`` and ``conf`` are read
  from the table entry of the missing PC and line.
* **Bypass**: a miss whose table entry has ``conf = 1`` and ``maxCstored =
  0`` (the block was never re-accessed in its last generations) does not
  fill the L1.

The exact rules, and the choices the paper leaves open, are in
``docs/policies/counter_bypass.md``. The hooks run at the L1 only, one
state per SM (cache instance ``c``); the other levels keep the baseline.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError
from golden.policies.base import BASELINE_HOOKS, LevelHooks, Policy, make_hooks, register_policy
from golden.units.pc_hash import pc_hash

__all__ = [
    "ALGORITHMS",
    "TIAN15_STORAGE_KB",
    "CounterState",
    "CounterBypass",
    "EVENTS",
    "EVENTS_DTYPE",
    "LINE_DTYPE",
    "ENTRY_DTYPE",
]

#: Algorithms of Kharbutli and Solihin: access interval and live-time predictor.
ALGORITHMS = ("aip", "lvp")
#: tian15 Section 4.1: "The storage overhead of counter-based bypass predictor is 10.626KB"
#: (16 KB L1; the exact sum of its own figures is 10.625 KiB, see the docs).
TIAN15_STORAGE_KB = 10.626

_AIP, _LVP = 0, 1
#: Names of the per-SM event counters, in order.
EVENTS = ("expired_victims", "predicted_bypasses")
#: Per-SM event counters.
EVENTS_DTYPE = np.dtype([(name, "<i8") for name in EVENTS])
#: Per-line fields (tian15 Section 3.3: 20 bits per tag with AIP) and the recency stamp
#: (0 = invalid way) the victim rule needs.
LINE_DTYPE = np.dtype([("hpc", "u1"), ("count", "u1"), ("max_present", "u1"), ("max_past", "u1"),
                       ("conf", "u1"), ("stamp", "<i8")])
#: One table entry, indexed by hashed PC (row) and hashed line (column).
ENTRY_DTYPE = np.dtype([("max_stored", "u1"), ("conf", "u1")])

#: The arrays of the policy at one level (all indexed by cache instance first).
CounterState = namedtuple(
    "CounterState",
    ["algorithm", "bypass", "replace", "hash_bits", "pc_shift", "count_max",
     "lines", "clock", "table", "events"],
)
CounterState.__doc__ = """The counter-based policy's state for ``n`` L1s of ``S`` sets and ``W`` ways.

Parameters (int64): ``algorithm`` (0 AIP, 1 LvP), ``bypass``, ``replace``,
``hash_bits``, ``pc_shift``, ``count_max``. Arrays: ``lines``:
``LINE_DTYPE[n, S, W]`` per-line fields; ``clock``: ``int64[n]`` recency
clock; ``table``: ``ENTRY_DTYPE[n, 2^b, 2^b]``; ``events``: ``EVENTS_DTYPE[n]``.
"""


@nb.njit(cache=True, nogil=True, inline="always")
def _hashes(ps, pc, line):
    """Table row and column: the hashed PC, and the line number XOR-folded the same way.

    The line hash is :func:`~golden.units.pc_hash.pc_hash` with the line number as
    the "PC" and shift 0 (every bit of a line number carries information).
    """
    return pc_hash(pc, ps.hash_bits, ps.pc_shift), pc_hash(line, ps.hash_bits, 0)


@nb.njit(cache=True, nogil=True, inline="always")
def _touch(ps, c, s, w):
    """Make way ``w`` the most recently used line of its set."""
    ps.clock[c] += 1
    ps.lines[c, s, w].stamp = ps.clock[c]


@nb.njit(cache=True, nogil=True, inline="always")
def _set_event(ps, c, s):
    """AIP step 1: an access to set ``s`` increments the counter of every valid line in it."""
    lines = ps.lines[c, s]
    for w in range(lines.size):
        if lines[w].stamp > 0 and lines[w].count < ps.count_max:
            lines[w].count += 1


@nb.njit(cache=True, nogil=True, inline="always")
def _expired(ps, line):
    """Whether a valid line (a ``LINE_DTYPE`` record) has expired."""
    if line.conf == 0:
        return False
    n = line.count
    if ps.algorithm == _AIP:
        return n > line.max_present and n > line.max_past
    # LvP: a saturated threshold only says "at least that many hits", so it never expires.
    return n >= line.max_past and line.max_past < ps.count_max


@nb.njit(cache=True, nogil=True)
def _on_hit(ps, a):
    line = ps.lines[a.c, a.set, a.way]
    if ps.algorithm == _AIP:
        _set_event(ps, a.c, a.set)
        if line.count > line.max_present:
            line.max_present = line.count
        line.count = 0
    elif line.count < ps.count_max:
        line.count += 1
    _touch(ps, a.c, a.set, a.way)


@nb.njit(cache=True, nogil=True)
def _on_miss(ps, a):
    if ps.algorithm == _AIP:
        _set_event(ps, a.c, a.set)
    if ps.bypass == 0:
        return 0
    i, j = _hashes(ps, a.pc, a.line)
    entry = ps.table[a.c, i, j]
    if entry.conf != 0 and entry.max_stored == 0:
        ps.events[a.c].predicted_bypasses += 1
        return 1
    return 0


@nb.njit(cache=True, nogil=True)
def _on_response(ps, a, flags, resp):
    # The L1 decided at the miss (flag bit 0); the lower levels add nothing.
    return flags & 1


@nb.njit(cache=True, nogil=True)
def _victim(ps, a, default_way):
    lines = ps.lines[a.c, a.set]
    if ps.replace == 0 or lines[default_way].stamp == 0:
        return default_way  # an invalid way is always filled first
    mru = 0
    for w in range(1, lines.size):
        if lines[w].stamp > lines[mru].stamp:
            mru = w
    best = -1
    for w in range(lines.size):
        if w != mru and _expired(ps, lines[w]) and (best < 0 or lines[w].stamp < lines[best].stamp):
            best = w
    if best < 0:
        return default_way
    ps.events[a.c].expired_victims += 1
    return best


@nb.njit(cache=True, nogil=True)
def _on_evict(ps, a, way, line, dirty):
    rec = ps.lines[a.c, a.set, way]
    entry = ps.table[a.c, rec.hpc, pc_hash(line, ps.hash_bits, 0)]
    value = rec.max_present if ps.algorithm == _AIP else rec.count
    entry.conf = 1 if value == rec.max_past else 0
    entry.max_stored = value
    rec.hpc = 0
    rec.count = 0
    rec.max_present = 0
    rec.max_past = 0
    rec.conf = 0
    rec.stamp = 0


@nb.njit(cache=True, nogil=True)
def _on_fill(ps, a):
    i, j = _hashes(ps, a.pc, a.line)
    rec = ps.lines[a.c, a.set, a.way]
    entry = ps.table[a.c, i, j]
    rec.hpc = i
    rec.count = 0
    rec.max_present = 0
    rec.max_past = entry.max_stored
    rec.conf = entry.conf
    _touch(ps, a.c, a.set, a.way)


def _check_int(name: str, v, lo: int, hi: int) -> None:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise InputError(f"counter-bypass: {name}: must be an integer from {lo} to {hi}, not {v!r}")


@register_policy
class CounterBypass(Policy):
    """Counter-based L1 replacement and bypassing (Kharbutli and Solihin), tian15's baseline.

    Parameters
    ----------
    algorithm : str
        ``"aip"`` (access interval predictor) or ``"lvp"`` (live-time predictor).
    bypass : bool
        Bypass misses predicted never re-accessed.
    replace : bool
        Evict expired lines before the replacement policy's choice. With
        ``bypass`` and ``replace`` both False the policy only learns, and the
        caches behave exactly as the baseline's.
    hash_bits : int
        Width of the PC and line hashes; the table has ``2^hash_bits`` rows and
        columns (tian15: 7, a 128 x 128 table).
    pc_shift : int
        Low PC bits the PC hash drops (3: 8-byte instructions).
    counter_bits : int
        Width of ``C``, ``maxCpresent`` and the thresholds (the paper: 4).

    Members
    -------
    l1 : CounterState or None
        The L1 arrays, after a :class:`~golden.cache.hierarchy.Hierarchy` asked for hooks.

    Raises
    ------
    InputError
        For an unknown algorithm or a width out of range (parameters come
        from the user's config, ``policy_params["counter-bypass"]``).
    """

    name = "counter-bypass"

    def __init__(self, algorithm: str = "aip", bypass: bool = True, replace: bool = True,
                 hash_bits: int = 7, pc_shift: int = 3, counter_bits: int = 4) -> None:
        if algorithm not in ALGORITHMS:
            raise InputError(f"counter-bypass: algorithm: must be one of {', '.join(ALGORITHMS)}, "
                             f"not {algorithm!r}")
        for name, v in (("bypass", bypass), ("replace", replace)):
            if not isinstance(v, bool):
                raise InputError(f"counter-bypass: {name}: must be True or False, not {v!r}")
        _check_int("hash_bits", hash_bits, 1, 8)  # table indices are stored in uint8 fields
        _check_int("pc_shift", pc_shift, 0, 31)
        _check_int("counter_bits", counter_bits, 1, 8)
        self.algorithm, self.bypass, self.replace = algorithm, bypass, replace
        self.hash_bits, self.pc_shift, self.counter_bits = hash_bits, pc_shift, counter_bits
        self.l1: CounterState | None = None

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        """Hooks for the L1 (new, empty state); the baseline's elsewhere."""
        if level != "l1":
            return BASELINE_HOOKS
        side = 1 << self.hash_bits
        self.l1 = CounterState(
            algorithm=ALGORITHMS.index(self.algorithm), bypass=int(self.bypass), replace=int(self.replace),
            hash_bits=self.hash_bits, pc_shift=self.pc_shift, count_max=(1 << self.counter_bits) - 1,
            lines=np.zeros((n_caches, cfg.sets, cfg.assoc), LINE_DTYPE), clock=np.zeros(n_caches, np.int64),
            table=np.zeros((n_caches, side, side), ENTRY_DTYPE), events=np.zeros(n_caches, EVENTS_DTYPE))
        return make_hooks(self.l1, on_hit=_on_hit, on_miss=_on_miss, on_response=_on_response,
                          victim=_victim, on_evict=_on_evict, on_fill=_on_fill)

    def reset(self) -> None:
        """Forget everything learned (call with :meth:`Hierarchy.reset`, which leaves policy state)."""
        if self.l1 is not None:
            for a in (self.l1.lines, self.l1.clock, self.l1.table, self.l1.events):
                a.fill(0)

    def stats(self) -> dict[str, int]:
        """Expired-line victims and bypass predictions, summed over the SMs (zeros before a run)."""
        if self.l1 is None:
            return dict.fromkeys(EVENTS, 0)
        return {name: int(self.l1.events[name].sum()) for name in EVENTS}

    def line_fields(self) -> dict[str, int]:
        """Bits of each per-line field (LvP has no ``maxCpresent``)."""
        k = self.counter_bits
        fields = {"hashed_pc": self.hash_bits, "count": k, "max_present": k, "max_past": k, "conf": 1}
        if self.algorithm == "lvp":
            del fields["max_present"]
        return fields

    def storage_bits(self, gpu: GPUConfig) -> dict[str, int]:
        """Bits the policy adds to one L1: the table and the per-line fields (:meth:`storage`)."""
        detail = self.storage(gpu.l1)
        return {"l1.table": detail["table_bits"], "l1.line_fields": detail["lines_bits"]}

    def storage(self, cfg: CacheConfig) -> dict[str, int | float]:
        """Storage the policy adds to one L1, in detail.

        Parameters
        ----------
        cfg : CacheConfig
            The L1.

        Returns
        -------
        dict
            ``table_entries``, ``entry_bits`` (threshold + confidence),
            ``table_bits``, ``line_bits`` (per tag), ``lines``,
            ``lines_bits``, ``total_bits``, ``total_bytes`` and ``total_kb``
            (KiB). For tian15's 16 KB, 8-way, 64 B L1 with AIP: a 10 KiB
            table plus 256 x 20 bits = 10.625 KiB (tian15 Section 4.1 says
            10.626 KB).
        """
        entries = 1 << (2 * self.hash_bits)
        entry_bits = self.counter_bits + 1
        line_bits = sum(self.line_fields().values())
        total = entries * entry_bits + cfg.lines * line_bits
        return {
            "table_entries": entries, "entry_bits": entry_bits, "table_bits": entries * entry_bits,
            "line_bits": line_bits, "lines": cfg.lines, "lines_bits": cfg.lines * line_bits,
            "total_bits": total, "total_bytes": total / 8, "total_kb": total / 8 / 1024,
        }

    def __repr__(self) -> str:
        return (f"CounterBypass(algorithm={self.algorithm!r}, bypass={self.bypass}, replace={self.replace}, "
                f"hash_bits={self.hash_bits}, pc_shift={self.pc_shift}, counter_bits={self.counter_bits})")
