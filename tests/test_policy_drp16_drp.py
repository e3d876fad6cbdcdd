"""drp16's DRP and HeLM: each sub-policy's rule worked by hand on tiny LLCs, leader sets, determinism.

The DRP rig is a 32-set LLC with one leader set per group per 32 sets: duel ``d`` leads set ``2 d``
(group A) and ``2 d + 1`` (group B); sets 22-31 follow. So: set 0 BRRIP / 1 SRRIP (GPU read
misses), 2 congestion-oblivious / 3 congestion-aware (write hits), 4/5 colour pins / does not,
6/7 blitter, 8/9 depth, 10/11 shader, 12-19 the CPU cores, 20/21 the depth-write duel (bypass /
fill). Most tests set the WSS counters the decision reads, then make one access: the decisions
see the counters as they were before the access.
"""

import numpy as np
import pytest

from golden.configs.schema import CacheConfig
from golden.errors import InputError
from golden.llc.model import LLC_CONFIG, LLC_TRACE_DTYPE, LLCModel
from golden.llc.streams import BLITTER, COLOR, DEPTH, DYNTEX, OTHER, SHADER, TEXTURE
from golden.policies import get_policy
from golden.policies.drp16_drp import DUELS, pin_duel
from golden.policies.drp16_rrip import duel_role, leader_table, ship_pc_signature

R, W = 1, 2
WRITE_HIT, PIN_COLOR = DUELS.index("write_hit"), DUELS.index("pin_color")


def llc(sets, ways):
    return CacheConfig(size=sets * ways * 64, assoc=ways, line_size=64)


class Rig:
    """A policy on a tiny LLC, fed one access at a time."""

    def __init__(self, name="drp16-drp", sets=32, ways=4, **kw):
        params = {"region": sets, "leaders": 1, **kw}
        if name.startswith("drp16-drp"):  # drp16's epoch and 128K rule (the default scales them with the LLC)
            params = {"ship_stride": 1, "brrip_period": 1 << 20, "wss_epoch": 512 * 1024,
                      "zero_reuse_writes": 128 * 1024, **params}
        self.p = get_policy(name, **params)
        self.m = LLCModel(4, self.p, llc=llc(sets, ways), private=False)
        self.sets = sets

    def go(self, stream, op, line, pc=0):
        t = np.zeros(1, LLC_TRACE_DTYPE)
        t[0] = (stream, op, pc, line)
        before = self.m.stream_counters.copy()
        self.m.run(t)
        d = self.m.stream_counters - before
        return "bypass" if d[:, 4].any() else "miss" if d[:, 1].any() or d[:, 3].any() else "hit"

    def way(self, line):
        return self.m.state.levels[0].tag[0, line % self.sets].tolist().index(line)

    def rrpv(self, line):
        return int(self.p.llc.rrpv[line % self.sets, self.way(line)])

    def pinned(self, line):
        return bool(self.p.ext.flags[line % self.sets, self.way(line)] & 1)

    def wss(self, stream, wr=0, wa=0, mx=0, dt=(0, 0)):
        ws = self.p.ext.wss
        ws.wr[stream], ws.wa[stream], ws.max_reuse[0] = wr, wa, mx
        ws.dt[:] = dt


def in_set(s, k, sets=32):
    """The k-th line of set s (a block the WSS tracks only if s mod 8 = 0)."""
    return s + sets * (k + 1)


# --- leader sets --------------------------------------------------------------------------------

def test_leader_sets_for_drp_on_the_paper_llc():
    # 11 duels x 2 groups x 8 sets per 1K sets on the 16K-set LLC, no set leading two groups; the
    # first 8 duels keep the diagonal layout of the RRIP baselines (duel_role offset 16 d + k).
    lead = leader_table(LLC_CONFIG.sets, 1024, 8, len(DUELS))
    for j in range(2 * len(DUELS)):
        assert (lead == j).sum() == 8 * 16
        assert all((lead[r * 1024:(r + 1) * 1024] == j).sum() == 8 for r in range(16))
    assert (lead >= 0).sum() == 22 * 8 * 16
    assert [s for s in range(1024) if lead[s] == 2] == [k * 128 + 16 + k for k in range(8)]
    # Groups beyond the 16th shift the diagonal by one set: duel 8's A leads offset 1 + k.
    assert [s for s in range(1024) if duel_role(s, 8, 1024, 8) == 1] == [k * 128 + 1 + k for k in range(8)]
    with pytest.raises(InputError, match="too few for 11 duel"):
        LLCModel(1, get_policy("drp16-drp"), llc=llc(512, 16))
    with pytest.raises(InputError, match="too few for 11 duel"):
        LLCModel(1, get_policy("drp16-drp", region=16, leaders=1), llc=llc(16, 4))
    assert pin_duel(COLOR) == PIN_COLOR and pin_duel(2) == DUELS.index("pin_cpu2") and pin_duel(OTHER) == -1


# --- read miss: SHiP-PC for CPU blocks, DRRIP insertion for GPU blocks ------------------------------

def test_read_miss_ship_pc_for_cpu():
    rig = Rig(ship_init=0, ship_stride=2)
    sig = ship_pc_signature(0x40, 1)
    a, b = in_set(24, 0), in_set(25, 0)  # set 24 trains SHiP (24 mod 2 = 0), set 25 does not
    assert rig.go(1, R, a, 0x40) == "miss" and rig.rrpv(a) == 3  # counter 0: RRPV 3
    assert rig.go(1, R, a, 0x40) == "hit" and rig.p.llc.table[sig] == 1  # a hit in a training set
    assert rig.go(1, R, b, 0x40) == "miss" and rig.rrpv(b) == 2  # counter 1: RRPV 2
    assert rig.go(1, R, b, 0x40) == "hit" and rig.p.llc.table[sig] == 1  # set 25 does not train
    # A block of a training set leaving unreused trains down.
    c, sig2 = in_set(24, 1), ship_pc_signature(0x80, 2)
    rig.p.llc.table[sig2] = 1
    rig.go(2, R, c, 0x80)  # core 2's signature: counter 1, RRPV 2
    for k in range(2, 5):  # three GPU fills at 2 (SRRIP: PSEL 512): the third ages the set
        rig.go(TEXTURE, R, in_set(24, k))  # [a 0, c 2, 2, 2] -> [1, 3, 3, 3]: c (way 1) goes
    assert c not in rig.m.state.levels[0].tag[0, 24].tolist()
    # GPU fills neither read nor train the table.
    assert rig.p.llc.table[sig2] == 0 and rig.p.llc.table[sig] == 1 and rig.p.llc.table.sum() == 1
    assert rig.p.stats()["distant_insertions"] == 1


def test_read_miss_drrip_for_gpu():
    rig = Rig()
    rig.go(TEXTURE, R, in_set(0, 0))  # BRRIP leader (epsilon 2^-20 here): RRPV 3; PSEL 513
    rig.go(SHADER, R, in_set(1, 0))  # SRRIP leader: 2; PSEL 512
    rig.go(COLOR, R, in_set(22, 0))  # follower at PSEL 512: SRRIP, 2
    assert [rig.rrpv(in_set(s, 0)) for s in (0, 1, 22)] == [3, 2, 2]
    rig.go(TEXTURE, R, in_set(1, 1))  # PSEL 511: followers BRRIP
    rig.go(DYNTEX, R, in_set(23, 0))
    rig.go(1, R, in_set(1, 2), 0x40)  # CPU read misses count too (PSEL 510) but use SHiP-PC (counter 1): 2
    assert (rig.rrpv(in_set(23, 0)), rig.rrpv(in_set(1, 2))) == (3, 2)
    assert rig.p.llc.psel[0] == 510 and rig.p.stats()["brrip_insertions"] == 2


# --- write miss -----------------------------------------------------------------------------------

@pytest.mark.parametrize("wr, wa, mx, rrpv, pin", [
    (0, 0, 0, 2, False),  # nothing learned: RRPV 2
    (0, 128 * 1024 - 1, 5, 2, False),  # no WR reuse, fewer than 128K writes: 2
    (0, 128 * 1024, 5, 3, False),  # no WR reuse and 128K writes: 3
    (10, 100, 30, 0, False),  # WR = MAX/3 (p < 1/8): high, RRPV 0; WR <= MAX/2: not pinned
    (9, 100, 28, 2, False),  # WR < MAX/3, p < 1/8: 2
    (15, 1000, 30, 0, False),  # WR = MAX/2 does not exceed it: not pinned
    (16, 1000, 30, 0, True),  # WR > MAX/2: pinned (in colour's pinning leader)
    (1, 8, 1000, 0, True),  # p = 1/8: high and pinned
    (1, 9, 1000, 2, False),  # p < 1/8, WR < MAX/3: 2
])
def test_write_miss_rules(wr, wa, mx, rrpv, pin):
    rig = Rig()
    rig.wss(COLOR, wr, wa, mx)
    x = in_set(4, 0)  # set 4 follows colour's pinning recommendations
    assert rig.go(COLOR, W, x) == "miss"
    assert (rig.rrpv(x), rig.pinned(x)) == (rrpv, pin)


def test_write_miss_pinning_duels():
    rig = Rig()
    rig.wss(COLOR, 16, 20, 30)
    rig.wss(BLITTER, 16, 20, 30)
    rig.go(COLOR, W, in_set(5, 0))  # colour's "ignore" leader: RRPV 0, not pinned
    rig.go(BLITTER, W, in_set(4, 0))  # colour's leader is a follower for the blitter: PSEL 512, ignore
    rig.go(BLITTER, W, in_set(6, 0))  # the blitter's own pinning leader: pinned
    assert [(rig.rrpv(in_set(s, 0)), rig.pinned(in_set(s, 0))) for s in (5, 4, 6)] == [
        (0, False), (0, False), (0, True)]
    rig.go(TEXTURE, R, in_set(4, 1))  # a read miss in colour's A leader: PSEL[pin_color] 513
    rig.p.llc.psel[DUELS.index("pin_blitter")] = 511  # blitter followers now pin
    rig.go(BLITTER, W, in_set(22, 0))
    rig.go(COLOR, W, in_set(23, 0))  # colour followers: PSEL 513, ignore
    assert rig.pinned(in_set(22, 0)) and not rig.pinned(in_set(23, 0))
    assert rig.p.llc.psel[PIN_COLOR] == 513
    # The Baseline's allocation rules stay: other write misses bypass (and still reach the WSS).
    rig.wss(OTHER, 16, 20, 30)
    assert rig.go(OTHER, W, 0) == "bypass" and rig.p.ext.wss.wa[OTHER] == 21
    assert rig.go(DEPTH, W, in_set(20, 0)) == "bypass" and rig.go(DEPTH, W, in_set(21, 0)) == "miss"
    assert rig.p.stats()["pinned_insertions"] == 2


def test_epoch_and_zero_reuse_rule_scale_with_the_llc():
    # drp16's 512K-read epoch and 128K-write rule belong to its 16 MB LLC (256K lines); the 1 MB LLC of
    # compare --suite drp16 (scale 1/16) gets 32K and 8K, so an epoch stays two LLC capacities of reads.
    for sets, epoch, zero in ((16384, 512 * 1024, 128 * 1024), (1024, 32 * 1024, 8 * 1024)):
        p = get_policy("drp16-drp")
        LLCModel(1, p, llc=llc(sets, 16))
        assert (p.ext.wss.epoch, p.ext.zero_reuse_writes) == (epoch, zero)
    p = get_policy("drp16-drp", wss_epoch=1000, zero_reuse_writes=7)
    LLCModel(1, p, llc=llc(1024, 16))
    assert (p.ext.wss.epoch, p.ext.zero_reuse_writes) == (1000, 7)


def test_write_streams_and_thresholds():
    # write_streams: only the colour stream's writes get the write sub-policies; CPU write hits stay.
    rig = Rig(write_streams=("color",))
    rig.p.llc.psel[WRITE_HIT] = 0  # oblivious followers
    cpu, col = in_set(22, 0), in_set(22, 1)
    rig.go(0, R, cpu, 0x40)  # SHiP-PC (counter 1): RRPV 2
    filled_at(rig, col, 2)
    rig.wss(0, 1, 1, 1)
    rig.wss(COLOR, 1, 1, 1)
    assert rig.go(0, W, cpu) == "hit" and rig.go(COLOR, W, col) == "hit"
    assert (rig.rrpv(cpu), rig.rrpv(col)) == (2, 0)
    # thresholds: write-miss probability 1/2 instead of 1/8 (MAX_REUSE rules out of reach).
    rig = Rig(thresholds=(1, 2, 1, 2, 2, 16))
    for wr, rrpv in ((1, 2), (4, 0)):
        rig.wss(COLOR, wr, 8, 1000)
        x = in_set(23, wr)
        assert rig.go(COLOR, W, x) == "miss" and rig.rrpv(x) == rrpv
    with pytest.raises(InputError, match="drp16-drp: write_streams: unknown stream 'gpu'"):
        get_policy("drp16-drp", write_streams=("gpu",))
    with pytest.raises(InputError, match="drp16-drp: thresholds: must be 6 integers"):
        get_policy("drp16-drp", thresholds=(3, 8))


# --- write hit ------------------------------------------------------------------------------------

def filled_at(rig, line, rrpv):
    """Fill ``line`` by a shader write with the WSS counters that insert it at ``rrpv`` (0, 2 or 3)."""
    rig.wss(SHADER, *{0: (1, 1, 1), 2: (0, 0, 0), 3: (0, 1 << 17, 0)}[rrpv])
    rig.go(SHADER, W, line)
    assert rig.rrpv(line) == rrpv


@pytest.mark.parametrize("wr, wa, mx, high", [
    (10, 1000, 20, True),  # WR = MAX/2 ("at least"): high
    (9, 1000, 20, False),
    (9, 144, 1000, True),  # p = 1/16
    (9, 145, 1000, False),
    (0, 0, 0, False),  # no reuse learned: never high
])
def test_write_hit_congestion_oblivious(wr, wa, mx, high):
    rig = Rig()
    rig.p.llc.psel[WRITE_HIT] = 511  # followers take group A: congestion-oblivious
    x, y = in_set(4, 0), in_set(2, 0)  # set 4 pins for colour; set 2 (oblivious leader) follows (512: no)
    filled_at(rig, x, 2)
    filled_at(rig, y, 3)
    rig.wss(COLOR, wr, wa, mx)
    assert rig.go(COLOR, W, x) == "hit" and rig.go(COLOR, W, y) == "hit"
    assert (rig.rrpv(x), rig.pinned(x)) == ((0, True) if high else (2, False))
    assert (rig.rrpv(y), rig.pinned(y)) == ((0, False) if high else (3, False))


def test_write_hit_unpins_and_congestion_aware():
    rig = Rig()
    x = in_set(4, 0)
    rig.wss(COLOR, 16, 20, 30)
    rig.go(COLOR, W, x)  # pinned at 0 by the write-miss rule
    assert rig.pinned(x)
    rig.p.llc.psel[WRITE_HIT] = 0  # oblivious followers
    rig.wss(COLOR, 1, 1000, 1000)  # not high: the write hit unpins, RRPV unchanged
    rig.go(COLOR, W, x)
    assert (rig.rrpv(x), rig.pinned(x)) == (0, False) and rig.p.stats()["write_hit_unpins"] == 1
    # Congestion-aware (set 3, group B's leader): a high-WR block at 3 goes to 2, nothing else moves.
    a, b, c = in_set(3, 0), in_set(3, 1), in_set(3, 2)
    filled_at(rig, a, 3)
    filled_at(rig, b, 2)
    filled_at(rig, c, 3)
    rig.wss(COLOR, 10, 1000, 20)
    rig.go(COLOR, W, a)
    rig.go(COLOR, W, b)
    rig.wss(COLOR, 9, 1000, 20)
    rig.go(COLOR, W, c)
    assert [rig.rrpv(v) for v in (a, b, c)] == [2, 2, 3]
    assert rig.p.stats()["write_hit_rescues"] == 1 and rig.p.stats()["write_hit_promotions"] == 0


def test_write_hit_duel_counts_read_misses():
    rig = Rig()
    rig.go(TEXTURE, R, in_set(2, 0))
    rig.go(TEXTURE, R, in_set(3, 0))
    rig.go(TEXTURE, R, in_set(3, 1))
    rig.go(TEXTURE, W, in_set(2, 1))  # write misses do not count (ChampSim #657's mirror image)
    rig.go(TEXTURE, R, in_set(22, 0))  # nor do followers' read misses
    assert rig.p.llc.psel[WRITE_HIT] == 511


# --- read hit: the dynamic-texture rules -----------------------------------------------------------

@pytest.mark.parametrize("dt, rrpv", [
    ((0, 0), 0),  # no estimate: the usual promotion
    ((64, 0), 3),  # P = 0 < 1/64
    ((128, 1), 3),  # P = 1/128
    ((64, 1), 2),  # P = 1/64: "between 1/64 and half"
    ((3, 1), 2),  # P = 1/3
    ((2, 1), 0),  # P = 1/2
    ((4, 3), 0),
])
def test_dyntex_first_read_hit(dt, rrpv):
    rig = Rig()
    x = in_set(22, 0)
    rig.go(COLOR, W, x)  # written by colour: the colour/blitter/depth write state
    rig.wss(COLOR, dt=dt)
    assert rig.go(DYNTEX, R, x) == "hit" and rig.rrpv(x) == rrpv
    assert rig.go(DYNTEX, R, x) == "hit" and rig.rrpv(x) == 0  # a reuse beyond the first: 0


def test_read_hit_other_cases():
    rig = Rig()
    rig.wss(COLOR, dt=(64, 0))
    a, b, c, d = (in_set(22, k) for k in range(4))
    rig.go(SHADER, W, a)  # written by the shader: not dynamic texture data
    rig.go(DEPTH, W, b)  # depth data sampled later (shadow maps) is
    rig.go(COLOR, W, c)
    rig.go(DYNTEX, R, d)  # a dynamic-texture read miss: its first access was the miss
    rig.go(DYNTEX, R, a)
    rig.go(DYNTEX, R, b)
    rig.go(TEXTURE, R, c)  # a static-texture read of colour data: the usual promotion
    rig.go(DYNTEX, R, d)
    assert [rig.rrpv(v) for v in (a, b, c, d)] == [0, 3, 0, 0]
    rig.go(DYNTEX, R, c)  # c is still in the write state: its first dynamic-texture read
    assert rig.rrpv(c) == 3 and rig.p.stats()["dyntex_first_rrpv3"] == 2
    # A read hit unpins.
    e = in_set(4, 0)
    rig.wss(COLOR, 16, 20, 30)
    rig.go(COLOR, W, e)
    assert rig.pinned(e)
    rig.go(SHADER, R, e)
    assert (rig.rrpv(e), rig.pinned(e)) == (0, False) and rig.p.stats()["read_unpins"] == 1


def test_dyntex_blocks_evicted_are_counted():
    rig = Rig(ways=2)
    a, b = in_set(22, 0), in_set(22, 1)
    rig.go(COLOR, W, b)  # way 0
    rig.go(DYNTEX, R, b)
    rig.go(DYNTEX, R, b)  # read again: RRPV 0
    rig.go(DYNTEX, R, a)  # way 1, filled by its first read: RRPV 2
    for k in range(2, 5):  # [b 0, a 2] -> a goes; [b 1, x 2] -> x goes; [b 2, y 2] -> b goes
        rig.go(TEXTURE, R, in_set(22, k))
    s = rig.p.stats()
    assert (s["dyntex_evicted_unreused"], s["dyntex_evicted_reused"]) == (1, 1)


# --- pinned blocks' ageing ------------------------------------------------------------------------

def test_pinned_block_ageing():
    rig = Rig(ways=2)
    a, b = in_set(4, 0), in_set(4, 1)
    rig.wss(COLOR, 16, 20, 30)
    rig.go(COLOR, W, a)  # pinned at 0
    rig.wss(COLOR)
    rig.go(COLOR, W, b)  # RRPV 2
    seq = [in_set(4, k) for k in range(2, 5)]
    rrpvs = []
    for x in seq:
        rig.go(TEXTURE, R, x)  # SRRIP fill at 2 (set 4 follows DRRIP at PSEL 512)
        rrpvs.append((rig.rrpv(a), rig.pinned(a)))
    # [a p0, b 2] -> a p1, b 3: b goes. [a p1, x 2] -> a p2, x 3: x goes. [a p2, y 2] -> a reaches 3:
    # unpinned and reset to 0, y 3: y goes. Unpinned, a would have gone at the third fill.
    assert rrpvs == [(1, True), (2, True), (0, False)]
    assert rig.m.state.levels[0].tag[0, 4].tolist() == [a, seq[2]]
    assert rig.p.stats()["pin_expiries"] == 1


def test_all_ways_pinned():
    rig = Rig(ways=2)
    a, b, c = (in_set(4, k) for k in range(3))
    rig.wss(COLOR, 16, 20, 30)
    rig.go(COLOR, W, a)
    rig.go(COLOR, W, b)
    rig.go(TEXTURE, R, c)
    # Three passes bring both to 3: both unpinned at 0; three more bring both to 3: way 0 goes.
    assert rig.m.state.levels[0].tag[0, 4].tolist() == [c, b]
    assert (rig.rrpv(b), rig.pinned(b), rig.rrpv(c)) == (3, False, 2)
    assert rig.p.stats()["pin_expiries"] == 2


# --- the WSS drives the decisions -----------------------------------------------------------------

def test_wss_learns_and_drives_write_misses():
    # Depth's pinning leader is set 8; lines 8 + 32 k are tracked blocks of the WSS (line mod 8 = 0).
    rig = Rig()
    x, y, z = 8, 8 + 32 * 64, 8 + 32 * 128  # three pages
    assert rig.go(DEPTH, W, x) == "miss" and rig.rrpv(x) == 2  # nothing learned yet
    assert rig.go(DEPTH, R, x) == "hit"  # a write-to-read reuse: WR[depth] = 1 = MAX_REUSE
    ws = rig.p.ext.wss
    assert (ws.wr[DEPTH], ws.wa[DEPTH], ws.max_reuse[0]) == (1, 1, 1)
    assert rig.go(DEPTH, W, y) == "miss" and (rig.rrpv(y), rig.pinned(y)) == (0, True)
    assert rig.p.stats()["wss_wr_reuses"] == 1
    # The decision sees the counters before its own access: 128K - 1 writes and no reuse: RRPV 2,
    # although this write makes them 128K.
    rig.wss(BLITTER, 0, 128 * 1024 - 1, 1)
    assert rig.go(BLITTER, W, z) == "miss" and rig.rrpv(z) == 2 and ws.wa[BLITTER] == 128 * 1024


# --- sub-policy variants, determinism -------------------------------------------------------------

def test_variants_fall_back_to_the_baseline():
    for name, wm, rh in (("drp16-drp-rm", False, False), ("drp16-drp-rm-rh", False, True)):
        rig = Rig(name)
        rig.wss(COLOR, 16, 20, 30, dt=(64, 0))
        x, y = in_set(4, 0), in_set(22, 0)
        rig.go(COLOR, W, x)
        assert (rig.rrpv(x), rig.pinned(x)) == ((0, True) if wm else (2, False))
        rig.p.llc.psel[WRITE_HIT] = 0  # DRP would promote a high-WR block on a write hit to 0
        rig.go(COLOR, W, y)
        rig.go(COLOR, W, y)  # no write-hit policy: RRPV unchanged
        assert rig.rrpv(y) == 2
        rig.go(DYNTEX, R, y)
        assert rig.rrpv(y) == (3 if rh else 0)
        rig.go(TEXTURE, R, in_set(0, 0))  # the read-miss policy stays: BRRIP in its leader
        assert rig.rrpv(in_set(0, 0)) == 3


def synthetic(n, seed):
    rng = np.random.default_rng(seed)
    t = np.zeros(n, LLC_TRACE_DTYPE)
    cpu = rng.random(n) < 0.3
    t["stream"] = np.where(cpu, rng.integers(0, 2, n),
                           rng.choice([COLOR, DEPTH, TEXTURE, DYNTEX, BLITTER, SHADER, OTHER], n))
    t["op"] = np.where(rng.random(n) < 0.4, 2, 1)
    t["line"] = np.where(cpu, rng.integers(0, 1 << 14, n), (1 << 20) + rng.integers(0, 1 << 15, n))
    t["pc"] = np.where(cpu, rng.integers(0, 32, n) * 4, 0)
    return t


@pytest.mark.parametrize("name", ["drp16-drp", "drp16-helm"])
def test_determinism_and_reset(name):
    t = synthetic(40_000, 3)
    cfg = llc(256, 8)
    kw = {"region": 64, "leaders": 2, **({"wss_epoch": 4096} if name == "drp16-drp" else {})}
    runs = []
    for _ in range(2):
        p = get_policy(name, **kw)
        m = LLCModel(2, p, llc=cfg)
        m.run(t)
        runs.append((m.stats(), p.stats()))
    assert runs[0] == runs[1] and any(runs[0][1].values())
    # Through the private caches: no CPU read miss bypassed (inclusion), CPU writes all hit.
    cores = runs[0][0]["cores"]
    assert sum(c["back_invalidations"] for c in cores) > 0 and all(c["cpu_bypasses"] == 0 for c in cores)
    assert all(runs[0][0]["streams"][f"cpu{k}"]["write_misses"] == 0 for k in range(2))
    p.reset()
    assert not any(p.stats().values())
    m = LLCModel(2, p, llc=cfg)  # a new attachment after reset: the same run again
    m.run(t)
    assert (m.stats(), p.stats()) == runs[0]


def test_storage_matches_the_paper():
    # drp16 Section 5.6: a 22 KB WSS cache, 3 bits per LLC block (96 KB), a 6 KB SHiP table: 124 KB.
    bits = get_policy("drp16-drp").llc_storage_bits(LLC_CONFIG)
    assert bits["llc.wss"] == 2048 * 86 and bits["llc.pin"] + bits["llc.block_state"] == 3 * 262144
    extra = bits["llc.wss"] + bits["llc.pin"] + bits["llc.block_state"] + bits["llc.ship_table"]
    assert round(extra / 8 / 1024) == 124
    assert bits["llc.ship_line_fields"] == 512 * 16 * 15  # 32 sampled sets per 1K


def test_errors():
    with pytest.raises(InputError, match="drp16-drp: ship_stride: must be an integer"):
        get_policy("drp16-drp", ship_stride=0)
    with pytest.raises(InputError, match="drp16-helm: low_rate: must be an integer from 0 to 8"):
        get_policy("drp16-helm", low_rate=9, high_rate=8)
    with pytest.raises(InputError, match="too few for 3 duel"):
        LLCModel(1, get_policy("drp16-helm", region=4, leaders=1), llc=llc(4, 4))
    for name in ("drp16-drp", "drp16-helm"):  # the paper's LLC takes both
        LLCModel(4, get_policy(name))


# --- HeLM -----------------------------------------------------------------------------------------

def test_helm_duels_and_rates():
    # 8 sets, one leader per group: set 0 CPU-sensitivity A (GPU bypass at the high rate), 1 B (never),
    # 2 GPU-tolerance A (high rate), 3 B (low rate), 4/5 the depth-write duel, 6 and 7 follow.
    rig = Rig("drp16-helm", sets=8, ways=4)
    out = [rig.go(TEXTURE, R, 8 * k) for k in range(3)]  # set 0: high rate 16/16: all bypass
    out += [rig.go(TEXTURE, R, 1 + 8 * k) for k in range(3)]  # set 1: never
    out += [rig.go(TEXTURE, R, 3 + 8 * k) for k in range(5)]  # set 3: low rate 4/16: the first 4 bypass
    assert out == ["bypass"] * 3 + ["miss"] * 3 + ["bypass"] * 4 + ["miss"]
    psel = rig.p.llc.psel
    assert (psel[0], psel[1]) == (512, 512 - 5)  # GPU misses move only the GPU duel
    rig.go(0, R, 8 * 4)  # a CPU read miss in set 0 (it fills: inclusion): PSEL[0] 513
    rig.go(1, R, 1 + 8 * 4)
    rig.go(1, R, 1 + 8 * 5)  # two in set 1: 511 -> the CPU is LLC-sensitive
    assert psel[0] == 511 and rig.p.stats()["gpu_read_bypasses"] == 7
    # Followers: the CPU misses less where the GPU bypasses (PSEL[0] 511) and the GPU misses less at
    # the high rate than at the low one (PSEL[1] 507): the high rate.
    assert rig.go(SHADER, R, 6) == "bypass" and rig.p.stats()["high_rate_misses"] == 1
    rig.p.llc.psel[1] = 512  # the GPU does not tolerate the high rate: the low rate (counter 4 of 16)
    assert [rig.go(SHADER, R, 6 + 8 * k) for k in range(1, 3)] == ["miss", "miss"]
    assert rig.p.stats()["low_rate_misses"] == 2
    # Writes keep the Baseline's rules.
    assert rig.go(OTHER, W, 7) == "bypass" and rig.go(COLOR, W, 7) == "miss"
    assert rig.p.llc.rrpv[7, 0] == 2
