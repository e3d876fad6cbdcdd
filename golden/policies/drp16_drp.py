"""drp16's DRP: the dynamic-reuse-probability LLC policy and its four sub-policies (Section 5).

DRP keeps the Baseline's 2-bit RRPVs and SRRIP victim selection
(:mod:`golden.policies.drp16_rrip`), adds a pin bit and a 2-bit block state
per LLC line, and learns per-stream reuse probabilities in the working-set
sample (WSS) cache (:mod:`golden.units.wss`), which every LLC access looks
up. Every rule and every choice the paper leaves open is in
``docs/policies/drp16.md``; in short, for an access of stream ``S``
(``WR``, ``WA``: the WSS counters of ``S``; ``MAX``: MAX_REUSE):

* **Read miss** (5.2): a CPU block is inserted by SHiP-PC (RRPV 3 if the
  counter of its core-hashed PC signature is 0, else 2; the 16K x 3-bit
  table is trained in one set of every ``ship_stride``); a GPU block by
  DRRIP's insertion (a duel of SRRIP against BRRIP).
* **Write miss** (5.3): the Baseline decides whether to allocate (colour,
  depth, blitter and shader fill, depth by its duel, the rest bypass). An
  allocated block of a high-WR stream (``WR >= MAX/3`` or ``WR/WA >= 1/8``)
  is inserted at RRPV 0, and pinned if ``WR > MAX/2`` or ``WR/WA >= 1/8``
  and the stream's pinning duel says to follow the recommendation; a block
  of a stream with ``WR = 0`` and ``WA >= 128K`` at RRPV 3; any other at 2.
* **Write hit** (5.4), by a duel between two policies. Congestion-
  oblivious: a block of a stream with ``WR >= MAX/2`` or ``WR/WA >= 1/16``
  goes to RRPV 0 and is pinned if the stream's pinning duel says so; any
  other block is unpinned, its RRPV unchanged. Congestion-aware: such a
  block at RRPV 3 goes to 2; nothing else changes.
* **Read hit** (5.5): RRPV 0 and unpinned, except the first dynamic-texture
  read of a block written by the colour, blitter or depth stream: RRPV 3 if
  the WSS's P[a dynamic-texture block is reused beyond its first access]
  is below 1/64, 2 if it is below 1/2, else 0.
* **Pinned blocks** (5.3): when ageing brings a pinned block to RRPV 3 it
  is unpinned and its RRPV reset to 0, so it is never the victim while
  pinned.

drp16's WSS epoch (512K LLC reads) and 128K-write rule belong to its 16 MB
LLC; on another LLC both scale with its lines (:meth:`DrpPolicy.scaled`).
The decisions of an access see the WSS counters as they were before it
(the WSS is looked up "in parallel"); the WSS is updated last. The policy
runs with any subset of the sub-policies (drp16 Figure 14's bars): a
disabled one behaves as the Baseline (read and write misses at RRPV 2,
read hits to 0, write hits leave the block).
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.cache.engine import LOAD
from golden.configs.schema import CacheConfig
from golden.errors import InputError
from golden.llc.streams import BLITTER, COLOR, DEPTH, DYNTEX, MAX_CORES, N_STREAMS, SHADER, STREAM_NAMES
from golden.policies import drp16_rrip as rrip
from golden.policies.base import BASELINE_HOOKS, LevelHooks, make_hooks, register_policy
from golden.policies.drp16_baselines import ExtendedRripPolicy, check_int
from golden.units import wss as wss_unit

__all__ = [
    "SUBPOLICIES",
    "DUELS",
    "THRESHOLDS",
    "EVENTS",
    "DrpState",
    "DrpPolicy",
    "pin_duel",
    "hooks",
]

#: Sub-policy bits (``subpolicies``), in drp16's order.
SUBPOLICIES = ("read_miss", "write_miss", "write_hit", "read_hit")
_RM, _WM, _WH, _RH = 1, 2, 4, 8
_ALL = _RM | _WM | _WH | _RH
#: The duels, by number: DRRIP's insertion for GPU read misses, the write-hit duel, one pinning duel
#: per written GPU stream and per CPU core, and the Baseline's depth-write duel (last).
DUELS = ("drrip", "write_hit", "pin_color", "pin_blitter", "pin_depth", "pin_shader") + tuple(
    f"pin_cpu{k}" for k in range(MAX_CORES)) + ("depth_write",)
N_DUELS = len(DUELS)
_D_DRRIP, _D_WRITE_HIT, _D_PIN_COLOR, _D_PIN_BLITTER, _D_PIN_DEPTH, _D_PIN_SHADER, _D_PIN_CPU0 = range(7)
#: Per-line flags: the pin bit, "trains SHiP" (a CPU read fill in a sampled set), the 2-bit block state.
_PIN, _SIG, _STATE = 1, 2, 12
#: Block states (Section 5.6): written by colour/blitter/depth, dynamic texture read once, read again.
_CBD, _DT0, _DT1 = 4, 8, 12
#: drp16 Section 5.3: a stream with no WR reuse and at least this many writes inserts at RRPV 3
#: (drp16's 16 MB LLC: 128K, half its 256K lines; scaled with the LLC by default).
ZERO_REUSE_WRITES = 128 * 1024
#: drp16 Section 5.1: a WSS epoch is 512K LLC reads, twice the lines of its 16 MB LLC (scaled with the
#: LLC by default).
EPOCH_READS = 512 * 1024
#: drp16's 16 MB LLC, in 64-byte lines: the reference of the two figures above.
PAPER_LLC_LINES = 256 * 1024
#: drp16's high-WR thresholds, as divisors: write miss "at least MAX_REUSE/3" or "at least 1/8",
#: pin recommendation "exceeds MAX_REUSE/2" or "at least 1/8" (5.3); write hit "at least
#: MAX_REUSE/2" or "at least 1/16" (5.4).
THRESHOLDS = (3, 8, 2, 8, 2, 16)

#: Policy event counters (besides the RRIP family's).
EVENTS = ("write_miss_rrpv0", "write_miss_rrpv2", "write_miss_rrpv3", "pinned_insertions",
          "write_hit_promotions", "write_hit_pins", "write_hit_unpins", "write_hit_rescues",
          "read_unpins", "pin_expiries", "dyntex_first_rrpv0", "dyntex_first_rrpv2", "dyntex_first_rrpv3",
          "dyntex_evicted_unreused", "dyntex_evicted_reused", "wss_wr_reuses", "wss_rr_reuses")
EVENTS_DTYPE = np.dtype([(e, "<i8") for e in EVENTS])
#: The RRIP family's events that DRP reports.
RRIP_EVENTS = ("write_bypasses", "depth_write_bypasses", "depth_write_fills", "brrip_insertions",
               "distant_insertions")

DrpState = namedtuple("DrpState", ["rrip", "wss", "subpolicies", "ship_stride", "zero_reuse_writes",
                                   "write_streams", "thr", "flags", "events"])
DrpState.__doc__ = """DRP's LLC state.

``rrip``: the :class:`~golden.policies.drp16_rrip.RripState` (RRPVs, valid
bits, the 11 duels' PSELs, BRRIP's counter, the SHiP table, signatures and
reuse bits); ``wss``: the :class:`~golden.units.wss.WssState`; int64
``subpolicies`` (bits of :data:`SUBPOLICIES`), ``ship_stride`` (SHiP trains
in sets ``s`` with ``s mod ship_stride = 0``), ``zero_reuse_writes``,
``write_streams`` (bit ``k``: the write sub-policies act on stream ``k``'s
writes); ``thr``: ``int64[6]`` the high-WR divisors (:data:`THRESHOLDS`);
``flags``: ``uint8[S, W]`` pin (bit 0), trains SHiP (bit 1), block state
(bits 2-3); ``events``: ``EVENTS_DTYPE[1]``.
"""


@nb.njit(cache=True, nogil=True)
def pin_duel(stream):
    """The pinning duel of ``stream`` (colour, blitter, depth, shader, CPU core k), or -1 (never pinned)."""
    if stream < MAX_CORES:
        return _D_PIN_CPU0 + stream
    if stream == COLOR:
        return _D_PIN_COLOR
    if stream == BLITTER:
        return _D_PIN_BLITTER
    if stream == DEPTH:
        return _D_PIN_DEPTH
    if stream == SHADER:
        return _D_PIN_SHADER
    return -1


@nb.njit(cache=True, nogil=True)
def _pins(ps, s, stream):
    """Whether set ``s`` follows a pinning recommendation for ``stream`` (its pinning duel's group A)."""
    d = pin_duel(stream)
    return d >= 0 and rrip.uses_a(ps.rrip, s, d)


@nb.njit(cache=True, nogil=True)
def _state_after_write(stream):
    return _CBD if stream == COLOR or stream == BLITTER or stream == DEPTH else 0


@nb.njit(cache=True, nogil=True)
def _wss(ps, a):
    """Look the access up in the WSS cache (after the decisions, which saw the counters before it)."""
    out = wss_unit.wss_access(ps.wss, a.line, a.stream, a.op != LOAD)
    if out == wss_unit.WR_REUSE:
        ps.events[0].wss_wr_reuses += 1
    elif out == wss_unit.RR_REUSE:
        ps.events[0].wss_rr_reuses += 1


@nb.njit(cache=True, nogil=True)
def _dyntex_first_read(ps):
    """RRPV of a block's first dynamic-texture read hit, from P = dt_reused / dt_blocks (Section 5.5)."""
    blocks, reused = ps.wss.dt[0], ps.wss.dt[1]
    if blocks > 0 and 64 * reused < blocks:
        ps.events[0].dyntex_first_rrpv3 += 1
        return rrip.MAX_RRPV
    if blocks > 0 and 2 * reused < blocks:
        ps.events[0].dyntex_first_rrpv2 += 1
        return rrip.MAX_RRPV - 1
    ps.events[0].dyntex_first_rrpv0 += 1
    return 0


@nb.njit(cache=True, nogil=True)
def _write_hit(ps, a, f):
    """The write-hit sub-policy (Section 5.4) on a block with flags ``f``; returns the new flags."""
    r, s, w, st, t = ps.rrip, a.set, a.way, a.stream, ps.thr
    wr, wa, mx = ps.wss.wr[st], ps.wss.wa[st], ps.wss.max_reuse[0]
    high = wr > 0 and (t[4] * wr >= mx or t[5] * wr >= wa)
    if rrip.uses_a(r, s, _D_WRITE_HIT):  # congestion-oblivious
        if high:
            r.rrpv[s, w] = 0
            ps.events[0].write_hit_promotions += 1
            if _pins(ps, s, st) and f & _PIN == 0:
                ps.events[0].write_hit_pins += 1
                f |= _PIN
        elif f & _PIN:
            ps.events[0].write_hit_unpins += 1
            f &= ~_PIN
    elif high and r.rrpv[s, w] == rrip.MAX_RRPV:  # congestion-aware
        r.rrpv[s, w] = rrip.MAX_RRPV - 1
        ps.events[0].write_hit_rescues += 1
    return f


@nb.njit(cache=True, nogil=True)
def _write_miss(ps, a):
    """The write-miss sub-policy (Section 5.3) for an allocated block: (RRPV, pin)."""
    st, t = a.stream, ps.thr
    wr, wa, mx = ps.wss.wr[st], ps.wss.wa[st], ps.wss.max_reuse[0]
    if wr > 0 and (t[0] * wr >= mx or t[1] * wr >= wa):
        ps.events[0].write_miss_rrpv0 += 1
        if (t[2] * wr > mx or t[3] * wr >= wa) and _pins(ps, a.set, st):
            ps.events[0].pinned_insertions += 1
            return 0, _PIN
        return 0, 0
    if wr == 0 and wa >= ps.zero_reuse_writes:
        ps.events[0].write_miss_rrpv3 += 1
        return rrip.MAX_RRPV, 0
    ps.events[0].write_miss_rrpv2 += 1
    return rrip.MAX_RRPV - 1, 0


@nb.njit(cache=True, nogil=True)
def on_hit(ps, a):
    r, s, w, st = ps.rrip, a.set, a.way, a.stream
    f = np.int64(ps.flags[s, w])
    if a.op == LOAD:
        if f & _PIN:
            ps.events[0].read_unpins += 1
            f &= ~_PIN
        if f & _SIG:
            rrip.ship_hit(r, s, w)
        x = 0
        state = f & _STATE
        if st == DYNTEX:
            if state == _CBD:
                if ps.subpolicies & _RH:
                    x = _dyntex_first_read(ps)
                state = _DT0
            elif state == _DT0:
                state = _DT1
        r.rrpv[s, w] = x
        f = (f & ~_STATE) | state
    else:
        if ps.subpolicies & _WH and ps.write_streams >> st & 1:
            f = _write_hit(ps, a, f)
        f = (f & ~_STATE) | _state_after_write(st)
    ps.flags[s, w] = f
    _wss(ps, a)


@nb.njit(cache=True, nogil=True)
def on_miss(ps, a):
    if a.op == LOAD:  # every read miss in a leader set moves that set's duel
        rrip.leader_miss(ps.rrip, a.set)
    return 0


@nb.njit(cache=True, nogil=True)
def on_response(ps, a, flags, resp):
    bypass = rrip.on_response(ps.rrip, a, flags, resp)  # the Baseline's write-miss allocation rules
    if bypass:
        _wss(ps, a)
    return bypass


@nb.njit(cache=True, nogil=True)
def victim(ps, a, default_way):
    """SRRIP's victim; in a set holding pinned blocks, ageing a pinned block to 3 unpins it at RRPV 0."""
    r, s = ps.rrip, a.set
    if r.valid[s, default_way] == 0:
        return default_way
    ways = r.rrpv.shape[1]
    pinned = False
    for w in range(ways):
        if ps.flags[s, w] & _PIN:
            pinned = True
    if not pinned:
        return rrip.victim(r, a, default_way)
    while True:
        for w in range(ways):
            if ps.flags[s, w] & _PIN == 0 and r.rrpv[s, w] == rrip.MAX_RRPV:
                return w
        for w in range(ways):  # one ageing pass
            x = r.rrpv[s, w] + 1
            if ps.flags[s, w] & _PIN and x == rrip.MAX_RRPV:
                x = 0
                ps.flags[s, w] &= ~_PIN
                ps.events[0].pin_expiries += 1
            r.rrpv[s, w] = x


@nb.njit(cache=True, nogil=True)
def on_evict(ps, a, way, line, dirty):
    f = ps.flags[a.set, way]
    if f & _SIG:
        rrip.ship_evict(ps.rrip, a.set, way)
    state = f & _STATE
    if state == _DT0:
        ps.events[0].dyntex_evicted_unreused += 1
    elif state == _DT1:
        ps.events[0].dyntex_evicted_reused += 1
    ps.flags[a.set, way] = 0


@nb.njit(cache=True, nogil=True)
def on_fill(ps, a):
    r, s, w, st = ps.rrip, a.set, a.way, a.stream
    r.valid[s, w] = 1
    f = 0
    x = rrip.MAX_RRPV - 1
    if a.op != LOAD:
        if ps.subpolicies & _WM and ps.write_streams >> st & 1:
            x, f = _write_miss(ps, a)
        f |= _state_after_write(st)
    elif st < MAX_CORES:
        if ps.subpolicies & _RM:
            g = rrip.ship_pc_signature(a.pc, st)
            if s % ps.ship_stride == 0:
                rrip.ship_track(r, s, w, g)
                f = _SIG
            x = rrip.ship_insert(r, g)
    else:
        if ps.subpolicies & _RM and rrip.uses_a(r, s, _D_DRRIP):
            x = rrip.brrip(r)
        if st == DYNTEX:
            f = _DT0
    r.rrpv[s, w] = x
    ps.flags[s, w] = f
    _wss(ps, a)


def hooks():
    """The hook functions, by name (for :func:`golden.cache.hooks.make_hooks`)."""
    return {"on_hit": on_hit, "on_miss": on_miss, "on_response": on_response, "victim": victim,
            "on_evict": on_evict, "on_fill": on_fill}


@register_policy
class DrpPolicy(ExtendedRripPolicy):
    """drp16's DRP policy on the LLC (``"llc"`` level), with its WSS cache.

    Parameters
    ----------
    region, leaders, psel_bits, brrip_period, ship_init
        As for :class:`~golden.policies.drp16_baselines.RripLLCPolicy`
        (8 leader sets per group per 1K sets, 10-bit PSELs, BRRIP epsilon
        1/32, SHiP counters start at 1).
    ship_stride : int
        SHiP-PC trains in one set of every ``ship_stride`` (32: drp16's 32
        sampled sets per 1K).
    seed : int
        Seed of the WSS cache's random replacement.
    wss_epoch : int or None
        LLC reads per WSS epoch; None: twice the LLC's lines (drp16's 512K
        reads on its 16 MB LLC, scaled with the LLC).
    zero_reuse_writes : int or None
        WSS-captured writes from which a stream with no WR reuse inserts
        its write misses at RRPV 3; None: half the LLC's lines (drp16's
        128K, scaled with the LLC).
    write_streams : tuple of str or None
        Streams (:data:`~golden.llc.streams.STREAM_NAMES`) whose writes the
        write-miss and write-hit sub-policies handle; the others' writes are
        the Baseline's (RRPV 2, write hits leave the block). None: every
        stream (drp16). An ablation parameter.
    thresholds : tuple of int
        The high-WR divisors (:data:`THRESHOLDS`, drp16's): write miss
        ``MAX_REUSE / t0``, ``1 / t1``; pin ``MAX_REUSE / t2``, ``1 / t3``;
        write hit ``MAX_REUSE / t4``, ``1 / t5``. An ablation parameter.

    Members
    -------
    llc : RripState or None
        The RRIP part of the state, after a model asked for the LLC's hooks.
    ext : DrpState or None
        The whole state (``ext.rrip is llc``).
    """

    name = "drp16-drp"
    #: The sub-policies this registered variant runs.
    subpolicies = SUBPOLICIES
    rrip_events = RRIP_EVENTS
    events = EVENTS

    def __init__(self, region: int = 1024, leaders: int = 8, psel_bits: int = 10, brrip_period: int = 32,
                 ship_init: int = 1, ship_stride: int = 32, seed: int = 0, wss_epoch: int | None = None,
                 zero_reuse_writes: int | None = None, write_streams: tuple[str, ...] | None = None,
                 thresholds: tuple[int, ...] = THRESHOLDS) -> None:
        super().__init__(region, leaders, psel_bits, brrip_period, ship_init)
        check_int(self.name, "ship_stride", ship_stride, 1, 1 << 20)
        check_int(self.name, "seed", seed, 0, (1 << 63) - 1)
        if wss_epoch is not None:
            check_int(self.name, "wss_epoch", wss_epoch, 1, 1 << 40)
        if zero_reuse_writes is not None:
            check_int(self.name, "zero_reuse_writes", zero_reuse_writes, 1, 1 << 40)
        if not isinstance(thresholds, tuple | list) or len(thresholds) != len(THRESHOLDS):
            raise InputError(f"{self.name}: thresholds: must be {len(THRESHOLDS)} integers, "
                             f"not {thresholds!r}")
        for t in thresholds:
            check_int(self.name, "thresholds", t, 1, 1 << 20)
        mask = (1 << N_STREAMS) - 1
        if write_streams is not None:
            mask = 0
            for name in write_streams:
                if name not in STREAM_NAMES:
                    raise InputError(f"{self.name}: write_streams: unknown stream {name!r}; streams are "
                                     f"{', '.join(STREAM_NAMES)}")
                mask |= 1 << STREAM_NAMES.index(name)
        self.ship_stride, self.seed, self.wss_epoch = ship_stride, seed, wss_epoch
        self.zero_reuse_writes, self.write_streams = zero_reuse_writes, mask
        self.thresholds = tuple(thresholds)

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        """Hooks for the ``"llc"`` level (new state, new WSS cache); the baseline's elsewhere.

        Raises
        ------
        InputError
            If the LLC is too small for the 11 duels' leader sets.
        """
        if level != "llc":
            return BASELINE_HOOKS
        shape = (cfg.sets, cfg.assoc)
        state = self.new_llc_state(cfg, duels=N_DUELS)._replace(
            table=np.full(rrip.SHIP_ENTRIES, self.params["ship_init"], np.uint8),
            sig=np.zeros(shape, np.uint16), reused=np.zeros(shape, np.uint8))
        self.llc = state
        bits = sum(1 << SUBPOLICIES.index(p) for p in self.subpolicies)
        epoch, zero = self.scaled(cfg)
        self.ext = DrpState(rrip=state, wss=wss_unit.new_wss(self.seed, epoch=epoch),
                            subpolicies=bits, ship_stride=self.ship_stride, zero_reuse_writes=zero,
                            write_streams=self.write_streams, thr=np.array(self.thresholds, np.int64),
                            flags=np.zeros(shape, np.uint8), events=np.zeros(1, EVENTS_DTYPE))
        return make_hooks(self.ext, **hooks())

    def scaled(self, cfg: CacheConfig) -> tuple[int, int]:
        """The WSS epoch (LLC reads) and the 128K-write rule's count for an LLC ``cfg``.

        drp16's 512K reads and 128K writes belong to its 16 MB LLC (256K
        lines); unless given, both scale with ``cfg``'s lines (at least 1),
        so that a scaled-down LLC (``compare --suite drp16`` runs 1/16) keeps
        an epoch of two LLC capacities of reads.
        """
        epoch = self.wss_epoch or max(1, EPOCH_READS * cfg.lines // PAPER_LLC_LINES)
        zero = self.zero_reuse_writes or max(1, ZERO_REUSE_WRITES * cfg.lines // PAPER_LLC_LINES)
        return epoch, zero

    def reset_ext(self) -> None:
        """Forget pins, block states and the WSS cache (the RRIP state, PSELs and SHiP table go too)."""
        self.ext.flags.fill(0)
        wss_unit.wss_reset(self.ext.wss, self.seed)

    def llc_storage_bits(self, cfg: CacheConfig) -> dict[str, int]:
        """drp16 Section 5.6's structures for an LLC ``cfg``, in bits.

        RRPVs; the pin bit and the 2-bit block state per line; the WSS cache
        (2048 entries of 86 bits); the SHiP table; the PC signature and reuse
        bit of the lines of the SHiP-training sets. Counters and PSELs are
        left out (drp16: "negligible").
        """
        sampled = -(-cfg.sets // self.ship_stride) * cfg.assoc
        return {"llc.rrpv": 2 * cfg.lines, "llc.pin": cfg.lines, "llc.block_state": 2 * cfg.lines,
                "llc.wss": wss_unit.SETS * wss_unit.WAYS * wss_unit.ENTRY_BITS,
                "llc.ship_table": rrip.SHIP_ENTRIES * 3, "llc.ship_line_fields": sampled * (14 + 1)}


def _variant(name: str, subs: tuple[str, ...], doc: str) -> type[DrpPolicy]:
    cls = type(name.replace("-", "_"), (DrpPolicy,), {"name": name, "subpolicies": subs, "__doc__": doc})
    return register_policy(cls)


DrpReadMiss = _variant("drp16-drp-rm", ("read_miss",),
                       "DRP's read-miss sub-policy alone (drp16 Figure 14's \"Read miss\" bar).")
DrpReadMissReadHit = _variant("drp16-drp-rm-rh", ("read_miss", "read_hit"),
                              "DRP's read-miss and read-hit sub-policies "
                              "(Figure 14's \"Read miss+Read hit\" bar).")
