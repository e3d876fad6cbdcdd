"""drp16's RRIP-family LLC baselines: hand-worked decisions on tiny LLCs, set dueling, SHiP training."""

import numpy as np
import pytest

from golden.configs.schema import CacheConfig
from golden.errors import InputError
from golden.llc.model import LLC_TRACE_DTYPE, LLCModel
from golden.llc.streams import COLOR, DEPTH, OTHER, SHADER, TEXTURE
from golden.policies import get_policy
from golden.policies.drp16_baselines import next_uses
from golden.policies.drp16_rrip import duel_role, ship_pc_signature, ship_region

R, W = 1, 2


def llc(sets, ways):
    return CacheConfig(size=sets * ways * 64, assoc=ways, line_size=64)


def run(policy, rows, sets=4, ways=4):
    """Replay ``rows`` (stream, op, line[, pc]) as LLC accesses; returns (model, outcome per row)."""
    m = LLCModel(4, policy, llc=llc(sets, ways), private=False)
    t = np.zeros(len(rows), LLC_TRACE_DTYPE)
    for i, r in enumerate(rows):
        t[i] = (r[0], r[1], r[3] if len(r) > 3 else 0, r[2])
    out = []
    for i in range(len(rows)):  # one row at a time, to read each outcome
        before = m.stream_counters.copy()
        m.run(t[i:i + 1])
        d = m.stream_counters - before
        out.append("bypass" if d[:, 4].any() else "miss" if d[:, 1].any() or d[:, 3].any() else "hit")
    return m, out


def tags(m, s):
    return m.state.levels[0].tag[0, s].tolist()


def test_leader_sets_paper_geometry():
    # 16 MB 16-way LLC: 16K sets; 8 leader sets per group per 1K sets; 8 duels fit without overlap.
    roles = np.array([[duel_role(s, d, 1024, 8) for s in range(16384)] for d in range(8)])
    for d in range(8):
        assert (roles[d] == 1).sum() == 8 * 16 and (roles[d] == 2).sum() == 8 * 16
        # 8 per group in every 1K-set region
        assert all((roles[d, r * 1024:(r + 1) * 1024] == 1).sum() == 8 for r in range(16))
    assert ((roles != 0).sum(axis=0) <= 1).all()  # no set leads two groups
    # Duel 0 in the first region: constituency k (128 sets) leads A at offset k, B at offset 8 + k.
    assert [s for s in range(1024) if roles[0, s] == 1] == [k * 128 + k for k in range(8)]
    assert [s for s in range(1024) if roles[0, s] == 2] == [k * 128 + 8 + k for k in range(8)]


def small(name, **kw):
    return get_policy(name, region=4, leaders=1, **kw)


def test_baseline_srrip_read_sequence():
    # 4 sets x 4 ways, region 4 / 1 leader: the depth duel leads sets 0 (A: bypass) and 1 (B: fill);
    # sets 2 and 3 follow. Lines 2 + 4k map to set 2.
    a, b, c, d, e = (2 + 4 * k for k in range(5))
    p = small("drp16-baseline")
    rows = [(TEXTURE, R, x) for x in (a, b, c, d, a, e, b, a, c)]
    m, out = run(p, rows)
    # A B C D fill at RRPV 2: [2 2 2 2]; A hits: [0 2 2 2].
    # E misses: no RRPV 3, age by 1: [1 3 3 3], victim way 1 (B); E at 2: [1 2 3 3].
    # B misses: victim way 2 (C, the lowest 3), no ageing: [1 2 2 3].
    # A hits: [0 2 2 3]. C misses: victim way 3 (D): [0 2 2 2].
    assert out == ["miss"] * 4 + ["hit", "miss", "miss", "hit", "miss"]
    assert tags(m, 2) == [a, e, b, c]
    assert p.llc.rrpv[2].tolist() == [0, 2, 2, 2]


def test_baseline_write_rules():
    a, b, c, d, e = (2 + 4 * k for k in range(5))
    p = small("drp16-baseline")
    rows = [(TEXTURE, R, a), (COLOR, W, a),  # write hit: RRPV stays 2
            (COLOR, W, b), (SHADER, W, c),  # colour and shader write misses fill at 2
            (TEXTURE, W, d), (OTHER, W, d),  # other GPU write misses bypass
            (0, W, e)]  # a CPU write miss (only without private caches) fills at 2
    m, out = run(p, rows)
    assert out == ["miss", "hit", "miss", "miss", "bypass", "bypass", "miss"]
    assert tags(m, 2) == [a, b, c, e]
    assert p.llc.rrpv[2].tolist() == [2, 2, 2, 2]
    assert p.stats()["write_bypasses"] == 2


def test_depth_write_duel():
    p = small("drp16-baseline")
    s0, s1, s2 = 0, 1, 2  # A leader (always bypass), B leader (always fill), follower
    rows = [(DEPTH, W, s0), (DEPTH, W, s1),
            (DEPTH, W, s2 + 4),  # PSEL 512 (not below the midpoint): followers take B, fill
            (TEXTURE, R, s1 + 8),  # a read miss in B: PSEL 511 -> followers take A
            (DEPTH, W, s2 + 8),  # bypass
            (TEXTURE, R, s0 + 12), (TEXTURE, R, s0 + 16),  # two read misses in A: PSEL 513
            (DEPTH, W, s2 + 12),  # fill
            (DEPTH, R, s2 + 20), (COLOR, W, s2 + 24)]  # follower misses do not move PSEL
    m, out = run(p, rows)
    assert out == ["bypass", "miss", "miss", "miss", "bypass", "miss", "miss", "miss", "miss", "miss"]
    assert p.llc.psel[0] == 513
    # Depth fills: the B leader (row 1), the follower at PSEL 512 (row 2) and at 513 (row 7).
    assert p.stats()["depth_write_bypasses"] == 2 and p.stats()["depth_write_fills"] == 3


def test_nru_sequence():
    a, b, c, d, e, f = (2 + 4 * k for k in range(6))
    p = small("drp16-nru")
    rows = [(TEXTURE, R, x) for x in (a, b, c, d, e, b, f)] + [(COLOR, W, e)]
    m, out = run(p, rows)
    # Fills set bits: A [1000], B [1100], C [1110], D: all ones -> the others reset: [0001].
    # E: victim = lowest bit 0 = way 0 (A): [1001]. B hits: [1101].
    # F: victim way 2 (C): [1111] -> all but way 2 reset: [0010]. The write hit on E changes nothing.
    assert out == ["miss"] * 5 + ["hit", "miss", "hit"]
    assert tags(m, 2) == [e, b, f, d]
    assert p.llc.rrpv[2].tolist() == [0, 0, 1, 0]


def test_drrip_duel_and_brrip_epsilon():
    # 8 sets x 2 ways, region 8 / 1 leader: DRRIP duel 0 leads set 0 (A: BRRIP) and 1 (B: SRRIP);
    # the depth duel (1) sets 2 and 3; sets 4-7 follow. BRRIP inserts at 2 every 4th time here.
    p = get_policy("drp16-drrip", region=8, leaders=1, brrip_period=4)
    rows = [(TEXTURE, R, 8 * k) for k in range(4)]  # four fills in set 0: BRRIP 3 3 3 2
    rows += [(TEXTURE, R, 4)]  # set 4 follows
    m, out = run(p, rows, sets=8, ways=2)
    # Set 0: fills 1 and 2 (BRRIP 3, 3) take the two ways; fill 3 evicts way 0 (the lowest at 3) and
    # is inserted at 3; fill 4 evicts way 0 again and, the 4th BRRIP insertion, is inserted at 2.
    assert tags(m, 0) == [24, 8] and p.llc.rrpv[0].tolist() == [2, 3]
    assert p.llc.psel[0] == 516  # four read misses in A's leader
    # PSEL 516 is not below 512: the follower inserts with SRRIP (B) at 2.
    assert p.llc.rrpv[4].tolist() == [2, 0]
    assert p.stats()["brrip_insertions"] == 4
    # Eight read misses in B's leader (set 1): PSEL 508 -> followers use BRRIP (the 5th BRRIP insertion: 3).
    p2 = get_policy("drp16-drrip", region=8, leaders=1, brrip_period=4)
    m, out = run(p2, [(TEXTURE, R, 1 + 8 * k) for k in range(4)] + [(TEXTURE, R, 4)], sets=8, ways=2)
    assert p2.llc.psel[0] == 508
    assert p2.llc.rrpv[4].tolist() == [3, 0]


def test_tadrrip_threads_duel_separately():
    # 16 sets, region 16 / 1 leader: thread k (cpu k) leads sets 2k (A: BRRIP) and 2k + 1; the GPU
    # (thread 4) sets 8 and 9; the depth duel sets 10 and 11; sets 12-15 follow.
    p = get_policy("drp16-tadrrip", region=16, leaders=1)
    rows = [(0, R, 0), (TEXTURE, R, 16),  # set 0: cpu0 leads A -> BRRIP 3; the GPU follows its PSEL -> 2
            (0, R, 9), (0, R, 25),  # cpu0 misses in the GPU's B leader: PSEL[4] unchanged
            (SHADER, R, 41)]  # a GPU read miss in set 9: PSEL[4] 511 -> GPU followers use BRRIP
    rows += [(TEXTURE, R, 12), (1, R, 28)]  # set 12: the GPU inserts at 3 (BRRIP), cpu1 at 2 (SRRIP)
    m, out = run(p, rows, sets=16, ways=2)
    assert p.llc.rrpv[0].tolist() == [3, 2]
    assert p.llc.psel[4] == 511 and p.llc.psel[0] == 513
    assert p.llc.rrpv[12].tolist() == [3, 2]


def test_ship_mem_training():
    # Region of a line: line bits [21:8]. Lines 256 and 256 + 4 are both in region 1 (set 0 of 4 sets).
    assert ship_region(256) == ship_region(260) == 1 and ship_region(512) == 2
    p = small("drp16-ship-mem")
    x, y = 256, 260  # region 1, sets 0 and 0
    rows = [(TEXTURE, R, x),  # table[1] = 1 (initial): insert at 2
            (TEXTURE, R, 516), (TEXTURE, R, 772), (TEXTURE, R, 1028),  # regions 2 3 4, fill set 0
            (TEXTURE, R, 1284)]  # region 5: evicts x (no reuse): table[1] 1 -> 0
    m, out = run(p, rows, ways=4)
    assert p.llc.table[1] == 0 and p.llc.table[2:6].tolist() == [1, 1, 1, 1]
    rows2 = rows + [(TEXTURE, R, y)]  # region 1 again: counter 0 -> inserted at RRPV 3
    p2 = small("drp16-ship-mem")
    m, out = run(p2, rows2)
    way = tags(m, 0).index(y)
    assert p2.llc.rrpv[0, way] == 3 and p2.stats()["distant_insertions"] == 1
    # A read hit trains up; a reused line leaving does not train down (SHiP's 'used' test).
    p3 = small("drp16-ship-mem")
    rows3 = [(TEXTURE, R, x), (TEXTURE, R, x), (TEXTURE, R, x)]  # two hits: 1 + 2 = 3
    rows3 += [(TEXTURE, R, 516), (TEXTURE, R, 772), (TEXTURE, R, 1028), (TEXTURE, R, 1284)]
    m, out = run(p3, rows3)
    # x was hit (RRPV 0); the four new lines at 2 fill three free ways, the fourth ages the set:
    # x 0->1, the others 2->3, victim the first at 3 (way 1, region 2, not reused: table[2] 0).
    assert p3.llc.table[1] == 3 and p3.llc.table[2] == 0 and x in tags(m, 0)
    # Write misses fill at 2 whatever the counter (the Baseline's rule), signature = region.
    p4 = small("drp16-ship-mem", ship_init=0)
    m, out = run(p4, [(COLOR, W, x), (TEXTURE, R, y)])
    assert p4.llc.rrpv[0].tolist() == [2, 3, 0, 0]


def test_ship_hybrid_cpu_pc_signatures():
    assert ship_pc_signature(0x1234, 0) == 0x1234 and ship_pc_signature(0x1234, 3) == 0x1234 ^ 0x3000
    assert ship_pc_signature(0xFFFF_1234, 1) == 0x1234 ^ 0x1000
    p = small("drp16-ship-hybrid", ship_init=0)
    rows = [(1, R, 256, 0x40), (TEXTURE, R, 260, 0x40)]
    m, out = run(p, rows)
    # Both counters start at 0: both inserted at 3; the CPU line carries the PC signature,
    # the GPU line its region.
    assert p.llc.sig[0, :2].tolist() == [ship_pc_signature(0x40, 1), ship_region(260)]
    run_rows = rows + [(1, R, 256, 0x40)]  # a hit on the CPU line trains the PC signature
    p = small("drp16-ship-hybrid", ship_init=0)
    run(p, run_rows)
    assert p.llc.table[ship_pc_signature(0x40, 1)] == 1 and p.llc.table[ship_region(260)] == 0


def test_next_uses():
    assert next_uses(np.array([5, 7, 5, 5, 9, 7])).tolist() == [2, 5, 3, 1 << 62, 1 << 62, 1 << 62]


def test_baseline_bypass_oracle():
    # One set of 2 ways (region/leaders need 4 sets: lines 4k map to set 0).
    a, b, c = 0, 4, 8
    rows = [(TEXTURE, R, a), (TEXTURE, R, b),  # next uses: rows 3 and 4
            (TEXTURE, R, c),  # never used again, after a's and b's next uses: not filled
            (TEXTURE, R, a), (TEXTURE, R, b),  # hits (next uses 6 and 7)
            (0, R, 12),  # a CPU line never used again is filled all the same (inclusion); SRRIP ages
                         # a and b (RRPV 0) to 3 and evicts way 0 (a)
            (TEXTURE, R, a),  # never used again, but so is line 12: a tie is not "larger": filled, evicts b
            (TEXTURE, R, b)]  # likewise: filled
    p = small("drp16-baseline-bypass")
    t = np.zeros(len(rows), LLC_TRACE_DTYPE)
    t["stream"], t["op"], t["line"] = zip(*rows, strict=True)
    p.prepare(t)
    m, out = run(p, rows, ways=2)
    assert out == ["miss", "miss", "bypass", "hit", "hit", "miss", "miss", "miss"]
    assert p.stats()["oracle_bypasses"] == 1


def test_errors():
    with pytest.raises(InputError, match="too few for 1 duel"):
        LLCModel(1, get_policy("drp16-baseline"), llc=llc(512, 4))
    with pytest.raises(InputError, match="too few for 6 duel"):
        LLCModel(1, get_policy("drp16-tadrrip", region=8, leaders=1), llc=llc(8, 4))
    with pytest.raises(InputError, match="needs the LLC trace first"):
        LLCModel(1, get_policy("drp16-baseline-bypass"))
    with pytest.raises(InputError, match="leaders: must be an integer"):
        get_policy("drp16-drrip", leaders=0)
    # The paper's LLC takes every policy.
    for name in ("drp16-baseline", "drp16-nru", "drp16-drrip", "drp16-tadrrip", "drp16-ship-mem",
                 "drp16-ship-hybrid"):
        LLCModel(4, get_policy(name))


def test_brrip_default_epsilon_is_one_in_32():
    # One way per set: every read miss in set 0 (DRRIP's BRRIP leader) replaces the line, so the
    # RRPV after each fill is that fill's insertion: 3, except every 32nd BRRIP insertion at 2.
    p = get_policy("drp16-drrip", region=8, leaders=1)
    m = LLCModel(4, p, llc=llc(8, 1), private=False)
    seen = []
    for k in range(64):
        t = np.zeros(1, LLC_TRACE_DTYPE)
        t[0] = (TEXTURE, R, 0, 8 * (k + 1))
        m.run(t)
        seen.append(int(p.llc.rrpv[0, 0]))
    assert [k for k, r in enumerate(seen) if r == 2] == [31, 63]
    assert set(seen) == {2, 3}
