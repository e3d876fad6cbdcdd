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

from golden.configs.schema import CacheConfig
from golden.errors import InputError
from golden.policies.base import BASELINE_HOOKS, LevelHooks, Policy, make_hooks, register_policy
from golden.units.pc_hash import pc_hash

__all__ = [
    "ALGORITHMS",
    "TIAN15_STORAGE_KB",
    "CounterState",
    "CounterBypass",
    "EVENTS",
]

#: Algorithms of Kharbutli and Solihin: access interval and live-time predictor.
ALGORITHMS = ("aip", "lvp")
#: tian15 Section 4.1: "The storage overhead of counter-based bypass predictor is 10.626KB"
#: (16 KB L1; the exact sum of its own figures is 10.625 KiB, see the docs).
TIAN15_STORAGE_KB = 10.626

_AIP, _LVP = 0, 1
# Layout of the int64 parameter vector ``prm``.
P_ALGO, P_BYPASS, P_REPLACE, P_BITS, P_SHIFT, P_CMAX = range(6)
# Columns of the per-instance event counters ``events``.
E_EXPIRED, E_PREDICTED = range(2)
#: Names of the ``events`` columns, in order.
EVENTS = ("expired_victims", "predicted_bypasses")

#: The arrays of the policy at one level (all indexed by cache instance first).
CounterState = namedtuple(
    "CounterState",
    ["prm", "hpc", "count", "max_present", "max_past", "conf", "stamp", "clock",
     "table_max", "table_conf", "events"],
)
CounterState.__doc__ = """The counter-based policy's arrays for ``n`` L1s of ``S`` sets and ``W`` ways.

``prm``: int64 parameters; ``hpc``, ``count`` (C), ``max_present``,
``max_past``, ``conf``: ``uint8[n, S, W]`` per-line fields; ``stamp``:
``int64[n, S, W]`` recency (0 = invalid way) and ``clock``: ``int64[n]``;
``table_max`` (maxCstored), ``table_conf``: ``uint8[n, 2^b, 2^b]``, rows
indexed by the hashed PC and columns by the hashed line; ``events``:
``int64[n, 2]`` in :data:`EVENTS` order.
"""


@nb.njit(cache=True, nogil=True, inline="always")
def _hashes(prm, pc, line):
    """Table row and column: the hashed PC, and the line number XOR-folded the same way.

    The line hash is :func:`~golden.units.pc_hash.pc_hash` with the line number as
    the "PC" and shift 0 (every bit of a line number carries information).
    """
    return pc_hash(pc, prm[P_BITS], prm[P_SHIFT]), pc_hash(line, prm[P_BITS], 0)


@nb.njit(cache=True, nogil=True, inline="always")
def _touch(ps, c, s, w):
    """Make way ``w`` the most recently used line of its set."""
    _, _, _, _, _, _, stamp, clock, _, _, _ = ps
    clock[c] += 1
    stamp[c, s, w] = clock[c]


@nb.njit(cache=True, nogil=True, inline="always")
def _set_event(ps, c, s):
    """AIP step 1: an access to set ``s`` increments the counter of every valid line in it."""
    prm, _, count, _, _, _, stamp, _, _, _, _ = ps
    for w in range(count.shape[2]):
        if stamp[c, s, w] > 0 and count[c, s, w] < prm[P_CMAX]:
            count[c, s, w] += 1


@nb.njit(cache=True, nogil=True, inline="always")
def _expired(ps, c, s, w):
    """Whether the valid line in way ``w`` has expired."""
    prm, _, count, max_present, max_past, conf, _, _, _, _, _ = ps
    if conf[c, s, w] == 0:
        return False
    n = count[c, s, w]
    if prm[P_ALGO] == _AIP:
        return n > max_present[c, s, w] and n > max_past[c, s, w]
    # LvP: a saturated threshold only says "at least that many hits", so it never expires.
    return n >= max_past[c, s, w] and max_past[c, s, w] < prm[P_CMAX]


@nb.njit(cache=True, nogil=True)
def _on_hit(ps, c, s, w, line, pc, op, t):
    prm, _, count, max_present, _, _, _, _, _, _, _ = ps
    if prm[P_ALGO] == _AIP:
        _set_event(ps, c, s)
        if count[c, s, w] > max_present[c, s, w]:
            max_present[c, s, w] = count[c, s, w]
        count[c, s, w] = 0
    elif count[c, s, w] < prm[P_CMAX]:
        count[c, s, w] += 1
    _touch(ps, c, s, w)


@nb.njit(cache=True, nogil=True)
def _on_miss(ps, c, s, line, pc, op, t):
    prm, _, _, _, _, _, _, _, table_max, table_conf, events = ps
    if prm[P_ALGO] == _AIP:
        _set_event(ps, c, s)
    if prm[P_BYPASS] == 0:
        return 0
    i, j = _hashes(prm, pc, line)
    if table_conf[c, i, j] != 0 and table_max[c, i, j] == 0:
        events[c, E_PREDICTED] += 1
        return 1
    return 0


@nb.njit(cache=True, nogil=True)
def _on_response(ps, c, s, line, pc, op, flags, resp, t):
    # The L1 decided at the miss (flag bit 0); the lower levels add nothing.
    return flags & 1


@nb.njit(cache=True, nogil=True)
def _victim(ps, c, s, default_way, t):
    prm, _, _, _, _, _, stamp, _, _, _, events = ps
    if prm[P_REPLACE] == 0 or stamp[c, s, default_way] == 0:
        return default_way  # an invalid way is always filled first
    ways = stamp.shape[2]
    mru = 0
    for w in range(1, ways):
        if stamp[c, s, w] > stamp[c, s, mru]:
            mru = w
    best = -1
    for w in range(ways):
        if w != mru and _expired(ps, c, s, w) and (best < 0 or stamp[c, s, w] < stamp[c, s, best]):
            best = w
    if best < 0:
        return default_way
    events[c, E_EXPIRED] += 1
    return best


@nb.njit(cache=True, nogil=True)
def _on_evict(ps, c, s, w, line, dirty, t):
    prm, hpc, count, max_present, max_past, conf, stamp, _, table_max, table_conf, _ = ps
    i = hpc[c, s, w]
    j = pc_hash(line, prm[P_BITS], 0)
    value = max_present[c, s, w] if prm[P_ALGO] == _AIP else count[c, s, w]
    table_conf[c, i, j] = 1 if value == max_past[c, s, w] else 0
    table_max[c, i, j] = value
    for a in (hpc, count, max_present, max_past, conf):
        a[c, s, w] = 0
    stamp[c, s, w] = 0


@nb.njit(cache=True, nogil=True)
def _on_fill(ps, c, s, w, line, pc, op, t):
    prm, hpc, count, max_present, max_past, conf, _, _, table_max, table_conf, _ = ps
    i, j = _hashes(prm, pc, line)
    hpc[c, s, w] = i
    count[c, s, w] = 0
    max_present[c, s, w] = 0
    max_past[c, s, w] = table_max[c, i, j]
    conf[c, s, w] = table_conf[c, i, j]
    _touch(ps, c, s, w)


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
        prm = np.zeros(6, np.int64)
        prm[[P_ALGO, P_BYPASS, P_REPLACE, P_BITS, P_SHIFT, P_CMAX]] = (
            ALGORITHMS.index(self.algorithm), self.bypass, self.replace, self.hash_bits, self.pc_shift,
            (1 << self.counter_bits) - 1)
        lines = (n_caches, cfg.sets, cfg.assoc)
        side = 1 << self.hash_bits
        self.l1 = CounterState(
            prm, *(np.zeros(lines, np.uint8) for _ in range(5)), np.zeros(lines, np.int64),
            np.zeros(n_caches, np.int64), np.zeros((n_caches, side, side), np.uint8),
            np.zeros((n_caches, side, side), np.uint8), np.zeros((n_caches, len(EVENTS)), np.int64))
        return make_hooks(tuple(self.l1), on_hit=_on_hit, on_miss=_on_miss, on_response=_on_response,
                          victim=_victim, on_evict=_on_evict, on_fill=_on_fill)

    def reset(self) -> None:
        """Forget everything learned (call with :meth:`Hierarchy.reset`, which leaves policy state)."""
        if self.l1 is not None:
            for a in self.l1[1:]:
                a.fill(0)

    def stats(self) -> dict[str, int]:
        """Expired-line victims and bypass predictions, summed over the SMs (zeros before a run)."""
        if self.l1 is None:
            return dict.fromkeys(EVENTS, 0)
        return {name: int(v) for name, v in zip(EVENTS, self.l1.events.sum(axis=0), strict=True)}

    def line_fields(self) -> dict[str, int]:
        """Bits of each per-line field (LvP has no ``maxCpresent``)."""
        k = self.counter_bits
        fields = {"hashed_pc": self.hash_bits, "count": k, "max_present": k, "max_past": k, "conf": 1}
        if self.algorithm == "lvp":
            del fields["max_present"]
        return fields

    def storage_bits(self, cfg: CacheConfig) -> dict[str, int | float]:
        """Storage the policy adds to one L1.

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
