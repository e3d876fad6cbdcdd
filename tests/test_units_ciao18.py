"""ciao18's unit models (golden/units/ciao_*.py): the paper's rules, directed cycle by cycle."""

from fractions import Fraction

import numpy as np
import pytest

from golden.units.ciao_interference import IL_ENTRIES, InterferenceList, update_entry
from golden.units.ciao_irs import IrsUnit, cutoff_fraction, irs, over_cutoff
from golden.units.ciao_pair_list import (
    ACT_ISOLATE,
    ACT_NONE,
    ACT_REACTIVATE,
    ACT_STALL,
    ACT_UNISOLATE,
    CLEARED,
    OP_READ,
    OP_RELEASE,
    OP_TRIGGER,
    PairList,
)
from golden.units.ciao_smem import MSHR_ENTRIES, SMEM_ADDR_BITS, TAG_WORD_BITS, SmemTranslate, translate
from golden.units.ciao_vta import Vta
from tb.stimulus import record


def drive(model, rows, tail=2):
    """The log of ``model`` driven by ``rows`` (one dict of inputs per cycle), then ``tail`` idle cycles."""
    it = iter(list(rows) + [{}] * tail)
    return record(model, len(rows) + tail, lambda unit: next(it))


def out(log, i, port):
    return int(log[f"exp_{port}"][i])


# ---- VTA

def ins(s, line, wid):
    return {"s1_ins__valid": 1, "s1_ins__set": s, "s1_ins__line": line, "s1_ins__wid": wid}


def probe(s, line):
    return {"s1_probe__valid": 1, "s1_probe__set": s, "s1_probe__line": line}


def test_vta_paper_geometry_and_fifo():
    v = Vta()
    assert (v.warps, v.ways, v.line_bits) == (48, 8, 41)  # ciao18 Table I: 48 sets, 8 tags, FIFO
    # Nine evictions of warp 5's lines by warps 10..18: the ninth overwrites the first (FIFO).
    rows = [ins(5, 100 + k, 10 + k) for k in range(9)]
    rows += [probe(5, 100), probe(5, 101), probe(5, 108), probe(5, 108)]
    log = drive(v, rows)
    first = 10  # the probes' answers, one cycle after each probe
    assert [out(log, first + k, "s2_probe__hit") for k in range(4)] == [0, 1, 1, 0]
    assert out(log, first + 1, "s2_probe__wid") == 11 and out(log, first + 1, "s2_probe__way") == 1
    assert out(log, first + 2, "s2_probe__wid") == 18 and out(log, first + 2, "s2_probe__way") == 0
    # The hit invalidated line 108: the fourth probe misses; a miss shows 0 in way and wid.
    assert out(log, first + 3, "s2_probe__wid") == 0 and out(log, first + 3, "s2_probe__valid") == 1
    assert v.events == {"insertions": 9, "probes": 4, "hits": 2}


def test_vta_same_cycle_insertion_is_seen_and_wins_over_the_invalidation():
    v = Vta(warps=2, ways=2)
    rows = [ins(0, 7, 1) | probe(0, 7),  # the probe reads the row after the same cycle's insertion
            ins(0, 8, 1),                # way 1; the probe's hit invalidates way 0 at this cycle's edge
            probe(0, 7)]                 # a miss
    log = drive(v, rows)
    assert [out(log, i, "s2_probe__hit") for i in (1, 3)] == [1, 0]
    v = Vta(warps=2, ways=2)
    rows = [ins(0, 7, 1), ins(0, 8, 1), probe(0, 7),
            ins(0, 9, 1),  # pointer back at way 0, which the probe's hit invalidates at this edge
            probe(0, 9)]
    log = drive(v, rows)
    assert out(log, 3, "s2_probe__hit") == 1 and out(log, 3, "s2_probe__way") == 0
    assert out(log, 5, "s2_probe__hit") == 1  # the insertion won


def test_vta_errors():
    with pytest.raises(ValueError, match="ways: must be a power of 2, not 6"):
        Vta(ways=6)
    with pytest.raises(ValueError, match="warps: must be an integer from 1 to 64, not 65"):
        Vta(warps=65)
    with pytest.raises(ValueError, match="s1_probe__set: must be 0 to 47, not 48"):
        Vta().step(**probe(48, 0))


# ---- Interference list

def test_interference_rules_and_fig4c():
    assert update_entry(34, 0, 32) == (32, 0)  # the first interferer is stored with counter 00
    e = (32, 0)
    for _ in range(4):
        e = update_entry(*e, 32)
    assert e == (32, 3)  # saturates at 11
    e = update_entry(*e, 42)  # Fig. 4c (2): another warp decrements
    assert e == (32, 2)
    assert update_entry(*e, 32) == (32, 3)  # (3): W32 again
    # Replacement only once the counter is 00: 01 -> 00 keeps W32, the next different warp replaces it.
    assert update_entry(32, 1, 42) == (32, 0) and update_entry(32, 0, 42) == (42, 0)
    assert update_entry(7, 3, 9, top=15) == (7, 2) and update_entry(7, 14, 7, top=15) == (7, 15)


def test_interference_list_timing():
    il = InterferenceList()
    assert il.entries == IL_ENTRIES == 64 and il.wid[5] == 5  # (i, 0): no interfering warp yet
    upd = {"s1_upd__valid": 1, "s1_upd__wid": 34, "s1_upd__by": 32}
    look = {"s1_look__valid": 1, "s1_look__wid": 34}
    log = drive(il, [upd, upd | look, look, upd, upd | look, look])
    # Lookup in cycle 1 sees the update of cycle 0 only; cycle 2 sees both.
    assert [(out(log, i, "s2_look__by"), out(log, i, "s2_look__count")) for i in (2, 3, 5, 6)] == [
        (32, 0), (32, 1), (32, 2), (32, 3)]
    with pytest.raises(ValueError, match="s1_upd__wid: must be 0 to 63, not 64"):
        InterferenceList().step(s1_upd__valid=1, s1_upd__wid=64)


# ---- Pair list

def cmd(op, wid, src=0):
    return {"s1_cmd__valid": 1, "s1_cmd__op": op, "s1_cmd__wid": wid, "s1_cmd__src": src}


def test_pair_list_follows_the_papers_example():
    # ciao18 Section IV-A: W0 interfered by W1 -> W1 isolated (field 0 = W0, I = 1); W1 then interferes
    # with W3 -> W1 stalled (field 1 = W3, V = 0); reactivation clears field 1 and sets V; sending W1
    # back to L1D clears field 0 and I.
    rows = [cmd(OP_TRIGGER, 1, 0), cmd(OP_TRIGGER, 1, 3), cmd(OP_READ, 1), cmd(OP_RELEASE, 1),
            cmd(OP_RELEASE, 1), cmd(OP_RELEASE, 1), cmd(OP_READ, 2)]
    log = drive(PairList(), rows)
    shown = [tuple(out(log, i, f"s2_cmd__{k}") for k in ("act", "v", "i", "f0", "f1")) for i in range(1, 8)]
    assert shown == [(ACT_ISOLATE, 1, 1, 0, CLEARED), (ACT_STALL, 0, 1, 0, 3), (ACT_NONE, 0, 1, 0, 3),
                     (ACT_REACTIVATE, 1, 1, 0, CLEARED), (ACT_UNISOLATE, 1, 0, CLEARED, CLEARED),
                     (ACT_NONE, 1, 0, CLEARED, CLEARED), (ACT_NONE, 1, 0, CLEARED, CLEARED)]
    assert out(log, 0, "s2_cmd__valid") == 0 and out(log, 8, "s2_cmd__valid") == 0


def test_pair_list_a_stalled_warp_stalled_again_records_the_new_pair():
    p = PairList()
    drive(p, [cmd(OP_TRIGGER, 4, 1), cmd(OP_TRIGGER, 4, 2), cmd(OP_TRIGGER, 4, 63)])
    assert (p.v[4], p.i[4], p.f[4]) == (0, 1, [1, 63])
    with pytest.raises(ValueError, match="entries: must be an integer from 1 to 64, not 0"):
        PairList(entries=0)


# ---- IRS unit

def test_eq1_without_a_divider_equals_the_division():
    rng = np.random.default_rng(3)
    for c in (Fraction(1, 100), Fraction(1, 200), cutoff_fraction("c", 0.37)):
        for _ in range(3000):
            h, n, a = int(rng.integers(0, 200)), int(rng.integers(0, 20000)), int(rng.integers(0, 65))
            exact = Fraction(h * a, n) > c if n else h * a > 0
            assert over_cutoff(h, n, a, c) == exact
            if n and h * a * c.denominator != c.numerator * n:
                assert over_cutoff(h, n, a, c) == (irs(h, n, a) > float(c))
    # The boundary: 1 hit, 1000 instructions, 10 active warps: IRS = 0.01 exactly, not over 0.01.
    assert irs(1, 1000, 10) == 0.01 and not over_cutoff(1, 1000, 10, Fraction(1, 100))
    assert over_cutoff(2, 1000, 10, Fraction(1, 100))
    # Algorithm 1's VTAHit / InstNo / ActiveWarpNo would be 2 / 1000 / 10 = 0.0002: never over.
    assert irs(0, 0, 5) == 0 and irs(3, 0, 5) == float("inf") and over_cutoff(3, 0, 5, Fraction(1, 100))


def test_irs_unit_epochs_counters_and_kernel_start():
    u = IrsUnit()
    assert (u.hi, u.lo, u.high_epoch, u.low_epoch) == (Fraction(1, 100), Fraction(1, 200), 5000, 100)
    # Two instructions per cycle: a low epoch ends every 50 cycles, a high one every 2,500.
    log = drive(u, [{"inst": 2}] * 5000)
    assert np.flatnonzero(log["exp_epoch_low"])[:3].tolist() == [50, 100, 150]
    assert np.flatnonzero(log["exp_epoch_high"]).tolist() == [2500, 5000]
    assert u.inst == 10000
    # Warp 3: 1 hit in 10,000 instructions with 64 active warps: IRS 0.0064, over the low cut-off only,
    # also in the kernel start's cycle (the query sees the counters before the edge); cleared after it.
    rows = [{"hit__valid": 1, "hit__wid": 3}, {"s1_q__valid": 1, "s1_q__wid": 3, "active": 64},
            {"s1_q__valid": 1, "s1_q__wid": 3, "active": 64, "kernel_start": 1},
            {"s1_q__valid": 1, "s1_q__wid": 3, "active": 64}]
    log = drive(u, rows)
    assert [(out(log, i, "s2_q__over_high"), out(log, i, "s2_q__over_low")) for i in (2, 3, 4)] == [
        (0, 1), (0, 1), (0, 0)]
    assert u.hits[3] == 0 and u.inst == 0 and u.samplers == [0, 0]
    sat = IrsUnit(counter_bits=3)
    drive(sat, [{"hit__valid": 1, "hit__wid": 0, "inst": 2}] * 9)
    assert sat.hits[0] == 7 and sat.inst == 7


@pytest.mark.parametrize("kw, msg", [
    ({"high_cutoff": 0}, "high_cutoff: must be a number in \\(0, 1\\], not 0"),
    ({"low_cutoff": -0.005}, "low_cutoff: must be a number in \\(0, 1\\], not -0.005"),
    ({"low_cutoff": 1e-9}, "low_cutoff: 1e-09 is below 1/65536"),
    ({"high_epoch": 0}, "high_epoch: must be positive, not 0"),
    ({"low_epoch": -100}, "low_epoch: must be positive, not -100"),
    ({"low_epoch": 1}, "low_epoch: must be an integer from 2 to 16777216, not 1"),
])
def test_irs_errors(kw, msg):
    with pytest.raises(ValueError, match=msg):
        IrsUnit(**kw)


# ---- Shared-memory translation

def address(tag, r, g, b, f):
    return tag << 16 | r << 8 | g << 7 | b << 3 | f


def test_translation_fields():
    # F3 B4 G1 R8 and 16 tag bits (ciao18 Fig. 7c); no mask, no offsets.
    a = address(0xBEEF, 0b1011_0110, 1, 9, 5)
    data, tag, word = translate(a, 33, 0xFF, 0, 0)
    assert data == a & 0xFFFF  # the block's own row, group, bank and byte
    # The tag: the other group; row R >> 5; bank R[4:1]; half R[0] of the bank's 8-byte row.
    assert tag == (0b101 << 8) | (0 << 7) | (0b1011 << 3) | (0 << 2)
    assert word == 33 << 25 | a >> 7 and word < 1 << TAG_WORD_BITS == 1 << 31
    # The 8-bit mask keeps 2^k rows; the offsets move data and tags (rows wrap at 256).
    data, tag, _ = translate(a, 0, 0x0F, 200, 100)
    assert data >> 8 == 200 + 0b0110 and tag >> 8 == 100 and (tag >> 7) & 1 == 0
    data, _, _ = translate(a, 0, 0xFF, 0x80, 0)
    assert data >> 8 == (0x80 + 0b1011_0110) & 0xFF


def test_translation_places_tags_apart_from_data_and_one_tag_per_block():
    # 2 groups x 32 rows of data (mask 31, data at row 8), tags at row 0: 64 blocks, 64 distinct tag slots,
    # always in the other group than their block.
    slots = set()
    for r in range(32):
        for g in (0, 1):
            data, tag, _ = translate(address(0, r, g, 0, 0), 0, 31, 8, 0)
            assert (data >> 7) & 1 == g and (tag >> 7) & 1 == 1 - g and tag >> 8 == 0 and data >> 8 == 8 + r
            slots.add(tag)
    assert len(slots) == 64


def test_translation_xor_index_hashes_the_row_only():
    # index "xor": G ^= address[15], R ^= address[23:16] under the mask; F, B, the tag word and the
    # offsets as Fig. 7c.
    a = address(0xBE_EF, 0b1011_0110, 1, 9, 5)
    data, tag, word = translate(a, 33, 0xFF, 0, 0, "xor")
    rm, g = 0b1011_0110 ^ 0xEF, 1 ^ 1
    assert data == rm << 8 | g << 7 | a & 0x7F
    assert tag == (rm >> 5) << 8 | (1 - g) << 7 | ((rm >> 1) & 0xF) << 3 | (rm & 1) << 2
    assert word == translate(a, 33, 0xFF, 0, 0)[2]
    data, _, _ = translate(a, 0, 0x0F, 200, 100, "xor")
    assert data >> 8 == 200 + (rm & 0x0F)
    # Without bits above 14 the two indexes agree.
    assert translate(a & 0x7FFF, 1, 0x7F, 3, 9, "xor") == translate(a & 0x7FFF, 1, 0x7F, 3, 9)


def test_xor_index_spreads_rows_16_kb_apart():
    # ATAX's warp reads 32 matrix rows 16 KB apart (line stride 128). In a 256-block cache (48 KB
    # unused: 128 rows per group, mask 127) the paper's index puts them in 2 blocks, the XOR in 32.
    blocks = {}
    for index in ("mod", "xor"):
        seen = set()
        for k in range(32):
            data, _, _ = translate(0x1234_0000 + k * 16 * 1024, 0, 127, 0, 0, index)
            seen.add(data >> 7)
        blocks[index] = len(seen)
    assert blocks == {"mod": 2, "xor": 32}


def test_smem_unit_mshr_field_and_configuration_timing():
    u = SmemTranslate()
    assert u.mshr_entries * SMEM_ADDR_BITS // 8 == 64 == MSHR_ENTRIES * 2  # ciao18: "64B storage per SM"
    a = address(1, 3, 1, 2, 0)
    cfg = {"cfg__valid": 1, "cfg__mask": 0xFF, "cfg__data_off": 16, "cfg__tag_off": 4}
    req = {"s1_req__valid": 1, "s1_req__addr": a, "s1_req__wid": 2, "s1_req__alloc": 1, "s1_req__mshr": 9}
    fill = {"s1_fill__valid": 1, "s1_fill__mshr": 9}
    log = drive(u, [cfg | req | fill, req, fill])
    # The request in the configuration's cycle uses the registers after reset (mask 0: row 0); the fill
    # in the same cycle sees its MSHR write.
    assert out(log, 1, "s2_req__data_addr") == a & 0xFF and out(log, 1, "s2_fill__addr") == a & 0xFF
    assert out(log, 2, "s2_req__data_addr") == (16 + 3) << 8 | a & 0xFF
    assert out(log, 3, "s2_fill__addr") == (16 + 3) << 8 | a & 0xFF
    with pytest.raises(ValueError, match="mshr_entries: must be a power of 2, not 24"):
        SmemTranslate(mshr_entries=24)
    with pytest.raises(ValueError, match="index: must be one of mod, xor, not 'fold'"):
        SmemTranslate(index="fold")
