"""drp16's 2-bit RRPV LLC baselines: Baseline, NRU, DRRIP, TA-DRRIP, SHiP-mem, SHiP-hybrid, Baseline+Bypass.

drp16 Section 4.1 defines each policy on its shared LLC (``golden.llc``).
They share one state layout and one set of hooks, selected by ``mode``:
every rule and every choice the paper leaves open is in
``docs/policies/drp16.md``. In short:

* **Victim** (all but NRU): an invalid way first (the engine's default way
  when it is invalid), else the lowest way with RRPV 3, ageing every way
  of the set by the amount that brings the oldest to 3 (SRRIP, [24]).
* **Read hit**: RRPV 0. **Write hit**: nothing (write hits leave RRPV).
* **Read miss**: inserted at RRPV 2 (SRRIP), or as the mode decides
  (DRRIP / TA-DRRIP duel SRRIP against BRRIP; SHiP inserts at 3 when the
  signature's counter is 0).
* **Write miss** (the Baseline's rule, used by every mode): colour, depth,
  blitter and shader write misses are inserted at RRPV 2, other GPU write
  misses bypass; depth write misses bypass or fill by a set duel. CPU write
  misses (none, by inclusion, when the private caches run) fill at 2.
* **Set dueling**: in every region of ``region`` sets, ``leaders`` sets per
  group per duel, chosen diagonally (below); a 10-bit PSEL per duel counts
  read misses of group A up and of group B down; followers take A when
  PSEL is below its midpoint. Only read misses count, and they count when
  the miss happens (``on_miss``), whether or not the line is filled.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.cache.engine import LOAD
from golden.errors import InputError
from golden.llc.streams import BLITTER, COLOR, DEPTH, MAX_CORES, SHADER

__all__ = [
    "MODES",
    "EVENTS",
    "EVENTS_DTYPE",
    "RripState",
    "MAX_RRPV",
    "SHIP_ENTRIES",
    "brrip",
    "check_duels",
    "duel_miss",
    "duel_role",
    "hooks",
    "leader_miss",
    "leader_table",
    "new_state",
    "on_response",
    "ship_evict",
    "ship_hit",
    "ship_insert",
    "ship_pc_signature",
    "ship_region",
    "ship_track",
    "uses_a",
    "victim",
]

#: Insertion modes, in the order of their codes.
MODES = ("srrip", "nru", "drrip", "tadrrip", "ship-mem", "ship-hybrid")
_SRRIP, _NRU, _DRRIP, _TADRRIP, _SHIP_MEM, _SHIP_HYBRID = range(len(MODES))
#: 2-bit RRPV.
MAX_RRPV = 3
#: drp16 Section 4.1: a 16K-entry table of 3-bit counters, 14-bit signatures.
SHIP_ENTRIES = 1 << 14
_SHIP_MAX = 7
#: The GPU's thread number in TA-DRRIP (CPU core k is thread k).
GPU_THREAD = MAX_CORES
#: Policy event counters.
EVENTS = ("write_bypasses", "depth_write_bypasses", "depth_write_fills", "brrip_insertions",
          "distant_insertions", "oracle_bypasses")
EVENTS_DTYPE = np.dtype([(e, "<i8") for e in EVENTS])
_NEVER = np.int64(1 << 62)

RripState = namedtuple("RripState", [
    "mode", "region", "leaders", "psel_max", "depth_duel", "brrip_period", "oracle", "lead",
    "rrpv", "valid", "psel", "brrip_count", "table", "sig", "reused", "next_use", "nu", "events"])
RripState.__doc__ = """The LLC state of the drp16 RRIP-family policies (``S`` sets, ``W`` ways).

Parameters (int64): ``mode`` (:data:`MODES` index), ``region`` and
``leaders`` (set dueling), ``psel_max`` (``2^bits - 1``), ``depth_duel``
(the depth-write duel's number), ``brrip_period`` (BRRIP inserts at 2 once
per this many insertions), ``oracle`` (1: Baseline+Bypass). Arrays:
``lead``: ``int16[S]`` the group set ``s`` leads (``2 d`` for duel ``d``'s
A, ``2 d + 1`` for its B, -1 none: :func:`leader_table`); ``rrpv``,
``valid``: ``uint8[S, W]`` (NRU keeps its bit in ``rrpv``); ``psel``:
``int64[max(8, duels)]``; ``brrip_count``: ``int64[1]``; ``table``:
``uint8[16K]`` SHiP counters; ``sig``: ``uint16[S, W]`` the line's SHiP
signature; ``reused``: ``uint8[S, W]`` the line was read-hit since its
fill; ``next_use``: ``int64[N]`` the next LLC access to the same line after
access ``t`` (oracle only); ``nu``: ``int64[S, W]`` the resident line's next
use; ``events``: ``EVENTS_DTYPE[1]``.
"""


def check_duels(sets: int, region: int, leaders: int, duels: int) -> None:
    """Raise InputError unless ``sets`` hold ``duels`` duels of 2 x ``leaders`` leaders per ``region`` sets.

    :func:`duel_role` fits ``c = region / leaders`` groups in each
    constituency of ``c`` sets when ``leaders`` divides ``c``, else
    ``c // leaders`` (the diagonal layout alone).
    """
    c = region // leaders
    groups = c if c % leaders == 0 else c // leaders
    if sets < region or sets % region or region % leaders or groups < 2 * duels:
        raise InputError(f"llc: {sets} sets are too few for {duels} duel(s) of 2 x {leaders} leader sets "
                         f"per {region} sets")


def new_state(mode: str, sets: int, ways: int, *, region: int, leaders: int, psel_bits: int,
              brrip_period: int, ship_init: int, next_use: np.ndarray | None = None,
              duels: int | None = None) -> RripState:
    """Fresh state for an LLC of ``sets`` x ``ways``.

    ``duels`` (default: the mode's own, its depth-write duel last) gives a
    policy built on this state more duels; the depth duel is then the last.

    Raises
    ------
    InputError
        If the LLC has too few sets for the dueling groups.
    """
    m = MODES.index(mode)
    if duels is None:
        duels = {_DRRIP: 2, _TADRRIP: GPU_THREAD + 2}.get(m, 1)
    check_duels(sets, region, leaders, duels)
    ship = m in (_SHIP_MEM, _SHIP_HYBRID)
    oracle = next_use is not None
    return RripState(
        mode=m, region=region, leaders=leaders, psel_max=(1 << psel_bits) - 1, depth_duel=duels - 1,
        brrip_period=brrip_period, oracle=int(oracle), lead=leader_table(sets, region, leaders, duels),
        rrpv=np.zeros((sets, ways), np.uint8), valid=np.zeros((sets, ways), np.uint8),
        psel=np.full(max(8, duels), 1 << (psel_bits - 1), np.int64), brrip_count=np.zeros(1, np.int64),
        table=np.full(SHIP_ENTRIES if ship else 1, ship_init, np.uint8),
        sig=np.zeros((sets, ways) if ship else (1, 1), np.uint16),
        reused=np.zeros((sets, ways) if ship else (1, 1), np.uint8),
        next_use=next_use if oracle else np.zeros(1, np.int64),
        nu=np.zeros((sets, ways) if oracle else (1, 1), np.int64),
        events=np.zeros(1, EVENTS_DTYPE))


@nb.njit(cache=True, nogil=True, inline="always")
def duel_role(s, d, region, leaders):
    """Role of set ``s`` in duel ``d``: 1 leader of group A, 2 leader of group B, 0 follower.

    Each region of ``region`` sets is cut into ``leaders`` constituencies of
    ``c = region / leaders`` sets. Group ``j = 2 d`` (A) or ``2 d + 1`` (B)
    leads, in constituency ``k``, the set at offset
    ``(leaders (j mod n) + j div n + k) mod c`` with ``n = c div leaders``:
    ``j leaders + k`` for the first ``n`` groups (a diagonal), then the
    same diagonals shifted by one set per further round. For a given ``k``
    the offsets of different groups differ, so no set leads two groups, and
    every duel gets ``leaders`` sets per group per region; :func:`check_duels`
    gives how many duels fit.
    """
    o = s % region
    c = region // leaders
    k = o // c
    pos = o - k * c
    n = max(c // leaders, 1)
    j = 2 * d
    if pos == (leaders * (j % n) + j // n + k) % c:
        return 1
    j += 1
    if pos == (leaders * (j % n) + j // n + k) % c:
        return 2
    return 0


@nb.njit(cache=True, nogil=True)
def leader_table(sets, region, leaders, duels):
    """``int16[sets]``: the group each set leads among ``duels`` duels (``2 d`` A, ``2 d + 1`` B, -1 none)."""
    lead = np.full(sets, -1, np.int16)
    for s in range(sets):
        for d in range(duels):
            role = duel_role(s, d, region, leaders)
            if role != 0:
                lead[s] = 2 * d + role - 1
    return lead


@nb.njit(cache=True, nogil=True, inline="always")
def uses_a(ps, s, d):
    """Whether set ``s`` takes group A's policy in duel ``d`` (its own group if it leads, else the PSEL)."""
    j = ps.lead[s]
    if j == 2 * d:
        return True
    if j == 2 * d + 1:
        return False
    return ps.psel[d] < (ps.psel_max + 1) // 2


@nb.njit(cache=True, nogil=True, inline="always")
def duel_miss(ps, s, d):
    """A read miss in set ``s``: duel ``d``'s PSEL up in A's leaders, down in B's (saturating)."""
    j = ps.lead[s]
    if j == 2 * d:
        ps.psel[d] = min(ps.psel[d] + 1, ps.psel_max)
    elif j == 2 * d + 1:
        ps.psel[d] = max(ps.psel[d] - 1, 0)


@nb.njit(cache=True, nogil=True, inline="always")
def leader_miss(ps, s):
    """A read miss in set ``s`` moves the PSEL of the one duel whose leader ``s`` is, if any."""
    j = ps.lead[s]
    if j >= 0:
        duel_miss(ps, s, j >> 1)


@nb.njit(cache=True, nogil=True, inline="always")
def ship_region(line):
    """SHiP-mem signature: the 16 KB region, byte-address bits [27:14] (64-byte lines: line bits [21:8])."""
    return (line >> 8) & (SHIP_ENTRIES - 1)


@nb.njit(cache=True, nogil=True, inline="always")
def ship_pc_signature(pc, core):
    """SHiP-hybrid's CPU signature: the PC's low 14 bits with the core id XORed into the top two."""
    return (pc ^ (core << 12)) & (SHIP_ENTRIES - 1)


@nb.njit(cache=True, nogil=True, inline="always")
def _thread(stream):
    return stream if stream < MAX_CORES else GPU_THREAD


@nb.njit(cache=True, nogil=True, inline="always")
def _nru_set(ps, s, w):
    """drp16's NRU: set the way's bit; if every bit of the set is then 1, clear all the others."""
    ps.rrpv[s, w] = 1
    ways = ps.rrpv.shape[1]
    for x in range(ways):
        if ps.rrpv[s, x] == 0:
            return
    for x in range(ways):
        if x != w:
            ps.rrpv[s, x] = 0


@nb.njit(cache=True, nogil=True, inline="always")
def ship_hit(ps, s, w):
    """SHiP training on a read hit: the line's signature counter up (saturating), the line marked reused."""
    g = ps.sig[s, w]
    ps.table[g] = min(ps.table[g] + 1, _SHIP_MAX)
    ps.reused[s, w] = 1


@nb.njit(cache=True, nogil=True, inline="always")
def ship_evict(ps, s, w):
    """SHiP training on an eviction: the signature counter down only if the line was never reused."""
    if ps.reused[s, w] == 0:
        g = ps.sig[s, w]
        ps.table[g] = max(ps.table[g] - 1, 0)


@nb.njit(cache=True, nogil=True, inline="always")
def ship_track(ps, s, w, g):
    """The line in way ``w`` of set ``s`` trains signature ``g`` (:func:`ship_hit`, :func:`ship_evict`)."""
    ps.sig[s, w] = g
    ps.reused[s, w] = 0


@nb.njit(cache=True, nogil=True, inline="always")
def ship_insert(ps, g):
    """SHiP's read-miss insertion for signature ``g``: RRPV 3 if its counter is 0, else 2."""
    if ps.table[g] == 0:
        ps.events[0].distant_insertions += 1
        return MAX_RRPV
    return MAX_RRPV - 1


@nb.njit(cache=True, nogil=True, inline="always")
def brrip(ps):
    """BRRIP's insertion RRPV: 2 once every ``brrip_period`` insertions, else 3."""
    ps.brrip_count[0] += 1
    ps.events[0].brrip_insertions += 1
    return MAX_RRPV - 1 if ps.brrip_count[0] % ps.brrip_period == 0 else MAX_RRPV


@nb.njit(cache=True, nogil=True)
def on_hit(ps, a):
    s, w = a.set, a.way
    if ps.oracle:
        ps.nu[s, w] = ps.next_use[a.t]
    if a.op != LOAD:
        return  # write hits leave the replacement state
    if ps.mode == _NRU:
        _nru_set(ps, s, w)
    else:
        ps.rrpv[s, w] = 0
    if ps.mode == _SHIP_MEM or ps.mode == _SHIP_HYBRID:
        ship_hit(ps, s, w)


@nb.njit(cache=True, nogil=True)
def on_miss(ps, a):
    if a.op == LOAD:
        duel_miss(ps, a.set, ps.depth_duel)
        if ps.mode == _DRRIP:
            duel_miss(ps, a.set, 0)
        elif ps.mode == _TADRRIP:
            duel_miss(ps, a.set, _thread(a.stream))
    return 0


@nb.njit(cache=True, nogil=True, inline="always")
def _oracle_bypass(ps, a):
    """Baseline+Bypass: a GPU line whose next use is after every resident line's is not filled."""
    if not ps.oracle or a.stream < MAX_CORES:
        return False
    s = a.set
    mine = ps.next_use[a.t]
    for w in range(ps.valid.shape[1]):
        if ps.valid[s, w] == 0 or ps.nu[s, w] >= mine:
            return False
    ps.events[0].oracle_bypasses += 1
    return True


@nb.njit(cache=True, nogil=True)
def on_response(ps, a, flags, resp):
    if a.op != LOAD:
        st = a.stream
        if st == DEPTH:
            if uses_a(ps, a.set, ps.depth_duel):
                ps.events[0].depth_write_bypasses += 1
                return 1
            ps.events[0].depth_write_fills += 1
        elif st >= MAX_CORES and st != COLOR and st != BLITTER and st != SHADER:
            ps.events[0].write_bypasses += 1
            return 1
    return 1 if _oracle_bypass(ps, a) else 0


@nb.njit(cache=True, nogil=True)
def victim(ps, a, default_way):
    s = a.set
    if ps.valid[s, default_way] == 0:
        return default_way
    ways = ps.rrpv.shape[1]
    if ps.mode == _NRU:
        for w in range(ways):
            if ps.rrpv[s, w] == 0:
                return w
        return 0  # one way: its bit is always set
    oldest = 0
    for w in range(ways):
        oldest = max(oldest, ps.rrpv[s, w])
    age = MAX_RRPV - oldest
    v = -1
    for w in range(ways):
        r = ps.rrpv[s, w] + age
        ps.rrpv[s, w] = r
        if v < 0 and r == MAX_RRPV:
            v = w
    return v


@nb.njit(cache=True, nogil=True)
def on_evict(ps, a, way, line, dirty):
    if ps.mode == _SHIP_MEM or ps.mode == _SHIP_HYBRID:
        ship_evict(ps, a.set, way)


@nb.njit(cache=True, nogil=True)
def on_fill(ps, a):
    s, w, m = a.set, a.way, ps.mode
    ps.valid[s, w] = 1
    if ps.oracle:
        ps.nu[s, w] = ps.next_use[a.t]
    if m == _NRU:
        _nru_set(ps, s, w)  # write fills are treated as read misses
        return
    r = MAX_RRPV - 1
    if m == _SHIP_MEM or m == _SHIP_HYBRID:
        g = ship_region(a.line)
        if m == _SHIP_HYBRID and a.stream < MAX_CORES and a.op == LOAD:
            g = ship_pc_signature(a.pc, a.stream)
        ship_track(ps, s, w, g)
        if a.op == LOAD:
            r = ship_insert(ps, g)
    elif a.op == LOAD and m == _DRRIP:
        if uses_a(ps, s, 0):
            r = brrip(ps)
    elif a.op == LOAD and m == _TADRRIP:
        if uses_a(ps, s, _thread(a.stream)):
            r = brrip(ps)
    ps.rrpv[s, w] = r


def hooks():
    """The hook functions, by name (for :func:`golden.cache.hooks.make_hooks`)."""
    return {"on_hit": on_hit, "on_miss": on_miss, "on_response": on_response, "victim": victim,
            "on_evict": on_evict, "on_fill": on_fill}
