"""tian15's PC-based bypass policy (``golden.policies.pc_bypass``) through the cache engine.

Every expected value is worked out by hand from the rules in
``docs/policies/pc_bypass.md`` (tian15 Listing 1). The machine is tiny: an
L1 of 2 sets x 2 ways x 64 B (write-through; LRU, and tree PLRU, which for
2 ways picks the same victims), a 64 KB 8-way write-back L2 that holds
every line used here, no L3. Line ``L`` maps to L1 set ``L % 2``; the
streams use even lines (set 0) unless they say otherwise, so one set fills
and evicts. Every line is new to the L2 on its first use (outcome 4) and
an L2 hit afterwards (outcome 2).

PC hash (``golden.units.pc_hash``, 7 bits, PC >> 3, XOR-fold of 7-bit
chunks): for ``PC >> 3`` below 128 there is one chunk, so the hash is
``PC >> 3``: 0x100 -> 32, 0x108 -> 33, 0x110 -> 34. ``0x508 >> 3`` is 161 =
``0b1_0100001``: chunks 33 and 1, XOR 32, the same entry as 0x100.

The hooked engine is compiled once per process; all policy tests live in
this module so that they share that compilation.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.cache import OUTCOME_BYPASSED, Hierarchy
from golden.configs import preset
from golden.configs.schema import REPLACEMENTS, WRITE_POLICIES, CacheConfig, GPUConfig
from golden.errors import InputError
from golden.policies import get_policy
from golden.policies.pc_bypass import STATS_DTYPE, PCBypass
from golden.trace.coalesce import ACCESS_DTYPE
from golden.units.pc_hash import pc_hash

LOAD, STORE, ATOMIC = 1, 2, 3
BYP = OUTCOME_BYPASSED
PS = 0x100  # the streaming PC (also "PA"), entry 32
PA, PB, PC_OTHER = 0x100, 0x108, 0x110  # entries 32, 33, 34
PC_ALIAS = 0x508  # entry 32 through the XOR-fold
HA, HB = 32, 33


@functools.cache
def machine(n_sm: int = 1, replacement: str = "lru", sets: int = 2, ways: int = 2) -> GPUConfig:
    """The tiny GPU of the module docstring (one object per geometry)."""
    l1 = CacheConfig(size=sets * ways * 64, assoc=ways, line_size=64, replacement=replacement,
                     write="write-through")
    l2 = CacheConfig(size=64 * 1024, assoc=8, line_size=64, write="write-back")
    return GPUConfig(name="tiny", n_sm=n_sm, l1=l1, l2=l2)


def accesses(seq) -> np.ndarray:
    """Access rows from ``(line, pc)``, ``(line, pc, op)`` or ``(line, pc, op, sm)`` tuples."""
    a = np.zeros(len(seq), ACCESS_DTYPE)
    for i, acc in enumerate(seq):
        line, pc, op, sm = (tuple(acc) + (LOAD, 0)[len(acc) - 2:])[:4]
        a[i]["line"], a[i]["pc"], a[i]["op"], a[i]["sm"] = line, pc, op, sm
    return a


def attach(threshold: int = 8, n_sm: int = 1, replacement: str = "lru", **kw) -> tuple[Hierarchy, PCBypass]:
    p = PCBypass(threshold=threshold, **kw)
    return Hierarchy(machine(n_sm, replacement), p), p


def run(h: Hierarchy, seq) -> list[int]:
    return h.run(accesses(seq), outcomes=True).tolist()


def stepwise(h: Hierarchy, p: PCBypass, seq, entries=(HA,), sm: int = 0):
    """Run ``seq`` one access at a time; outcomes and the listed counters after each access."""
    outs, counts = [], []
    for acc in seq:
        outs += run(h, [acc])
        counts.append(tuple(int(p.l1.counters[sm, e]) for e in entries))
    return outs, counts


def counter(p: PCBypass, entry: int, sm: int = 0) -> int:
    return int(p.l1.counters[sm, entry])


def hpc(p: PCBypass, s: int, w: int, sm: int = 0) -> int:
    """Hashed PC stored with way ``w`` of L1 set ``s`` (2 ways)."""
    return int(p.l1.lines["hpc"][sm, s, w])


def l1_lines(h: Hierarchy, s: int = 0, sm: int = 0) -> list[int]:
    """Lines held by the ways of an L1 set, in way order (-1: invalid)."""
    return h.levels["l1"].tag[sm, s].tolist()


def l2_bit(h: Hierarchy, p: PCBypass, line: int) -> int:
    """The bypassBit of the L2 line holding ``line``."""
    s, w = np.argwhere(h.levels["l2"].tag[0] == line)[0]
    return int(p.l2.bits[s, w])


def pstats(p: PCBypass, sm: int | None = None) -> dict[str, int]:
    """Policy statistics without coverage; one SM's row when ``sm`` is given."""
    if sm is None:
        return {k: v for k, v in p.stats().items() if k != "coverage"}
    return {name: int(p.l1.stats[name][sm]) for name in STATS_DTYPE.names}


def stream(n: int, pc: int = PS, start: int = 0) -> list[tuple[int, int]]:
    """``n`` loads of new set-0 lines ``start, start + 2, ...`` by one PC."""
    return [(start + 2 * k, pc) for k in range(n)]


# --- construction ------------------------------------------------------------------------------

def test_init_and_registry():
    p = get_policy("pc-bypass", threshold=3)
    assert isinstance(p, PCBypass) and p.threshold == 3 and p.entries == 128
    assert p.stats() == {**dict.fromkeys(STATS_DTYPE.names, 0), "coverage": 0.0}  # zeros before a run
    with pytest.raises(ValueError, match="A 6-bit PC hash cannot index 128 entries"):
        PCBypass(hash_bits=6)
    with pytest.raises(ValueError, match="Threshold must be 0 to 16, not 17"):
        PCBypass(threshold=17)
    h, p = attach(n_sm=2)
    assert p.l1.counters.shape == (2, 128) and p.l1.counters.dtype == np.uint8
    assert p.l1.lines.shape == (2, 2, 2)  # one hashed PC per L1 line
    assert p.l2.bits.shape == (128, 8)  # one bit per L2 line


def test_hash_by_hand():
    assert [pc_hash(pc, 7, 3) for pc in (PA, PB, PC_OTHER, PC_ALIAS)] == [32, 33, 34, 32]


# --- streaming -----------------------------------------------------------------------------------

@pytest.mark.parametrize("replacement", ["lru", "plru"])
def test_streaming_pc_saturates_and_is_bypassed(replacement):
    h, p = attach(replacement=replacement)
    # Access k loads line 2k with PS. k = 0, 1 fill the two invalid ways (no victim, no
    # training). From k = 2 on each fill evicts the oldest line, whose hashed PC is 32:
    # counter[32] = k - 1 after access k. Access 9 leaves it at 8 = the threshold, so
    # access 10 (line 20) looks up 8 >= 8: predicted bypass; the L2 misses, fills (bit 0),
    # returns bit 0, and sets the bit: bypassed (outcome 4 | 0x80). A bypass evicts nothing,
    # so the counter stays 8 and access 11 (line 22) is bypassed too.
    outs, counts = stepwise(h, p, stream(12))
    assert outs == [4] * 10 + [4 | BYP] * 2
    assert [c for (c,) in counts] == [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8]
    # The L1 holds what accesses 8 and 9 installed; the bypassed lines are not in its tags.
    assert sorted(l1_lines(h)) == [16, 18]
    assert [l2_bit(h, p, line) for line in (16, 18, 20, 22)] == [0, 0, 1, 1]
    assert pstats(p) == {"predictions": 12, "bypass_predictions": 2, "corrections": 0, "bypasses": 2,
                         "table_increments": 8, "table_decrements": 0, "table_lookups": 12}
    assert p.stats()["coverage"] == 2 / 12
    l1 = h.stats()["l1"]
    assert (l1["read_misses"], l1["fills"], l1["evictions"], l1["bypasses"]) == (12, 10, 8, 2)


def test_streaming_case_differs_from_baseline():
    # The same stream in the baseline: every access fills, nothing is bypassed. This keeps
    # the threshold-16 property below from holding vacuously.
    seq = stream(12)
    base = Hierarchy(machine()).run(accesses(seq), outcomes=True).tolist()
    h, _ = attach()
    assert base == [4] * 12
    assert run(h, seq) != base


def test_aliasing_pc_shares_the_trained_counter():
    h, p = attach()
    # Ten streaming loads leave counter[32] = 8 (as above, access k leaves k - 1).
    run(h, stream(10))
    assert counter(p, HA) == 8
    # 0x508 hashes to 32 (XOR-fold): predicted bypass on its first miss. 0x110 (entry 34,
    # counter 0) is not, and fills, evicting line 16 (hashed PC 32): counter[32] = 9.
    assert run(h, [(40, PC_ALIAS), (42, PC_OTHER)]) == [4 | BYP, 4]
    assert counter(p, HA) == 9 and counter(p, 34) == 0
    assert sorted(l1_lines(h)) == [18, 42]


# --- reuse trains the stored PC down -------------------------------------------------------------

@pytest.mark.parametrize("replacement", ["lru", "plru"])
def test_hit_decrements_the_stored_pc_then_stores_the_new_one(replacement):
    h, p = attach(replacement=replacement)
    seq = [
        (0, PA), (2, PA),    # fill ways 0 and 1 with hashed PC 32
        (4, PA), (6, PA),    # evict 0, 2 (hpc 32): c32 = 1, 2; ways: 4 (32), 6 (32)
        (8, PB), (10, PB),   # evict 4, 6 (hpc 32): c32 = 3, 4; ways: 8 (33), 10 (33)
        (12, PB), (14, PB),  # evict 8, 10 (hpc 33): c33 = 1, 2; ways: 12 (33), 14 (33)
        (12, PA),            # hit: decrement the STORED hpc 33 (c33 = 1, c32 stays 4); store 32
        (12, PB),            # hit: decrement the stored hpc, now 32 (c32 = 3); store 33
        (16, PA),            # miss, c32 = 3 < 8: fill, evicting 14 (LRU, hpc 33): c33 = 2
        (18, PA),            # miss: evict 12, whose hpc is 33 (last hit by PB): c33 = 3
    ]
    outs, counts = stepwise(h, p, seq, entries=(HA, HB))
    assert outs == [4] * 8 + [1, 1] + [4, 4]
    assert counts == [(0, 0), (0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (4, 1), (4, 2),
                      (4, 1), (3, 1), (3, 2), (3, 3)]


def test_hit_rewrites_the_hashed_pc_of_its_way():
    h, p = attach()
    run(h, [(0, PA), (2, PA)])
    assert l1_lines(h) == [0, 2] and (hpc(p, 0, 0), hpc(p, 0, 1)) == (HA, HA)
    run(h, [(0, PB)])  # hit on way 0: its hashed PC becomes 33; way 1 untouched
    assert (hpc(p, 0, 0), hpc(p, 0, 1)) == (HB, HA)
    run(h, [(3, PB)])  # a set-1 line gets its own slot (index s * ways + w = 2)
    assert l1_lines(h, s=1) == [3, -1] and hpc(p, 1, 0) == HB


def test_plru_trains_the_plru_victim():
    # 1 set x 4 ways. Fills of ways 0..3 (PCs 0x100.. -> entries 32..35) leave the tree bits
    # root = 0, node2 = 0, node3 = 0; a hit on way 0 sets root -> upper half, node2 -> way 1.
    # The PLRU victim is then way 2 (root 1, node3 0); LRU's would be way 1 (line 1).
    pcs = [0x100 + 8 * k for k in range(4)]
    seq = [(k, pcs[k]) for k in range(4)] + [(0, pcs[0]), (4, 0x200)]
    for replacement, trained in (("plru", 34), ("lru", 33)):
        p = PCBypass()
        h = Hierarchy(machine(1, replacement, sets=1, ways=4), p)
        assert run(h, seq) == [4, 4, 4, 4, 1, 4]
        assert p.l1.counters[0, 32:36].tolist() == [1 if e == trained else 0 for e in range(32, 36)]


# --- misprediction correction --------------------------------------------------------------------

def test_corrected_install_without_victim_increment():
    h, p = attach(threshold=2)
    # Lines 0..6: counter[32] = 0, 0, 1, 2 after each (as in the streaming test).
    # Line 8: lookup 2 >= 2, predicted; the L2 misses, fills it (bit 0), answers 0 and sets
    # the bit: bypassed.
    outs, counts = stepwise(h, p, stream(5))
    assert outs == [4, 4, 4, 4, 4 | BYP] and [c for (c,) in counts] == [0, 0, 1, 2, 2]
    assert l2_bit(h, p, 8) == 1 and sorted(l1_lines(h)) == [4, 6]
    # Line 8 again: predicted again, but the L2 hit answers bit 1 and clears it: a
    # misprediction, installed anyway over the LRU line 4 (hashed PC 32) WITHOUT
    # incrementing counter[32] (a normal fill would make it 3).
    assert run(h, [(8, PS)]) == [2]
    assert counter(p, HA) == 2 and l2_bit(h, p, 8) == 0
    assert l1_lines(h) == [8, 6] and hpc(p, 0, 0) == HA
    assert pstats(p) == {"predictions": 6, "bypass_predictions": 2, "corrections": 1, "bypasses": 1,
                         "table_increments": 2, "table_decrements": 0, "table_lookups": 6}
    # The installed line hits, and trains its PC down: counter[32] = 1.
    assert run(h, [(8, PS)]) == [1] and counter(p, HA) == 1


def test_correction_across_sms_shares_the_bit():
    h, p = attach(threshold=2, n_sm=2)
    seq = stream(5) + [(line, PS, LOAD, 1) for line in (100, 102, 104, 106)]
    # SM 0 bypasses line 8 (bit set, as above); SM 1 trains its own counter[32] to 2 on
    # lines 100..106 and holds 104, 106.
    assert run(h, seq) == [4, 4, 4, 4, 4 | BYP] + [4] * 4
    assert counter(p, HA, sm=0) == 2 and counter(p, HA, sm=1) == 2 and l2_bit(h, p, 8) == 1
    # SM 1 misses on line 8: predicted (its counter is 2); the bit SM 0 set comes back as 1:
    # corrected, installed over 104 (no increment), bit cleared.
    assert run(h, [(8, PS, LOAD, 1)]) == [2]
    assert l1_lines(h, sm=1) == [8, 106] and counter(p, HA, sm=1) == 2 and l2_bit(h, p, 8) == 0
    assert pstats(p, sm=1)["corrections"] == 1 and pstats(p, sm=0)["corrections"] == 0
    # SM 0 misses on line 8 again: the bit was cleared by SM 1, so this is a bypass again,
    # which sets the bit once more.
    assert run(h, [(8, PS, LOAD, 0)]) == [2 | BYP] and l2_bit(h, p, 8) == 1
    assert pstats(p, sm=0)["bypasses"] == 2


def test_l2_fill_clears_the_bit():
    # An L2 of one set x 2 ways (LRU), so that lines leave it. Threshold 0: every load miss
    # is predicted bypass. Lines 0 and 1 are bypassed (each L2 way's bit set to 1); line 2
    # replaces line 0 in L2 way 0. That fill clears the way's bit, so line 2's request
    # reads 0 and is bypassed too; with the stale bit 1 it would be installed as a
    # "correction" of a line the L2 never saw bypassed.
    gpu = machine().replace(l2=CacheConfig(size=128, assoc=2, line_size=64, write="write-back"))
    p = PCBypass(threshold=0)
    h = Hierarchy(gpu, p)
    assert run(h, [(0, PS), (1, PS)]) == [4 | BYP] * 2
    assert p.l2.bits.tolist() == [[1, 1]]
    assert run(h, [(2, PS)]) == [4 | BYP]
    assert h.levels["l2"].tag[0, 0].tolist() == [2, 1] and p.l2.bits.tolist() == [[1, 1]]
    assert pstats(p)["corrections"] == 0 and not h.levels["l1"].valid.any()


def test_without_correction_a_predicted_bypass_is_never_installed():
    h, p = attach(threshold=2, correction=False)
    # As above up to the first bypass of line 8; the re-references find the line in the L2
    # but no bit is kept or returned, so they are bypassed as well.
    assert run(h, stream(5) + [(8, PS), (8, PS)]) == [4, 4, 4, 4, 4 | BYP, 2 | BYP, 2 | BYP]
    assert sorted(l1_lines(h)) == [4, 6] and counter(p, HA) == 2
    assert not p.l2.bits.any()
    assert pstats(p)["corrections"] == 0 and pstats(p)["bypasses"] == 3
    assert "l2.bypass_bits" not in p.storage_bits(h.gpu)


# --- saturation and threshold ----------------------------------------------------------------------

def test_counter_saturates_at_15():
    h, p = attach(threshold=16)  # never bypasses, so every eviction trains
    # Access k leaves min(k - 1, 15) from k = 2 on: 15 from access 16, and no wrap to 16.
    outs, counts = stepwise(h, p, stream(20))
    assert outs == [4] * 20
    assert [c for (c,) in counts] == [0, 0] + list(range(1, 16)) + [15, 15, 15]
    assert pstats(p)["table_increments"] == 18  # attempted increments are counted


def test_counter_saturates_at_0():
    h, p = attach()
    # A hit on a line whose PC's counter is 0: the decrement keeps it at 0 (uint8: no wrap
    # to 255, which would be >= 8 and predict bypass).
    assert run(h, [(0, PA), (0, PA)]) == [4, 1]
    assert counter(p, HA) == 0 and pstats(p)["table_decrements"] == 1
    # Still predicting reuse: the next miss with the same PC fills.
    assert run(h, [(2, PA)]) == [4] and sorted(l1_lines(h)) == [0, 2]


def test_threshold_3_boundary():
    h, p = attach(threshold=3)
    # Counter seen by the lookup of access k: 0, 0, 0, 1, 2, 3 for k = 0..5. Access 4
    # sees 2 < 3 (fills, making it 3); access 5 is the first to see 3 >= 3: bypassed.
    outs, counts = stepwise(h, p, stream(6))
    assert outs == [4] * 5 + [4 | BYP]
    assert [c for (c,) in counts] == [0, 0, 1, 2, 3, 3]
    assert pstats(p)["bypass_predictions"] == 1


@pytest.mark.parametrize("threshold, first", [(0, 0), (1, 3), (2, 4), (4, 6), (8, 10)])
def test_first_bypass_per_threshold(threshold, first):
    # The lookup of access k sees max(k - 2, 0); the first k with that >= threshold is
    # threshold + 2, except threshold 0 (every load miss predicted from the start).
    h, _ = attach(threshold=threshold)
    outs = run(h, stream(first + 1))
    assert outs == [4] * first + [4 | BYP]


# --- stores ----------------------------------------------------------------------------------------

def test_store_miss_is_not_predicted():
    h, p = attach(threshold=2)
    run(h, stream(4))  # counter[32] = 2: a load miss by PS would be predicted bypass
    # Store miss by PS: written through (the L2 write-allocates it from memory: 4), no
    # prediction, no bypass, no L1 fill, no training; the table is still looked up.
    assert run(h, [(20, PS, STORE)]) == [4]
    assert pstats(p) == {"predictions": 4, "bypass_predictions": 0, "corrections": 0, "bypasses": 0,
                         "table_increments": 2, "table_decrements": 0, "table_lookups": 5}
    assert counter(p, HA) == 2 and sorted(l1_lines(h)) == [4, 6]
    assert l2_bit(h, p, 20) == 0
    # A load of line 20 is predicted; the store left the bit 0, so it is bypassed (L2 hit).
    assert run(h, [(20, PS)]) == [2 | BYP]


@pytest.mark.parametrize("op, store_reuse, outcome, trains", [
    (STORE, True, 1, True), (STORE, False, 1, False), (ATOMIC, True, 2, True), (ATOMIC, False, 2, False)],
    ids=["store-reuse", "store-no-reuse", "atomic-reuse", "atomic-no-reuse"])
def test_store_hit_trains_with_store_reuse(op, store_reuse, outcome, trains):
    h, p = attach(store_reuse=store_reuse)
    run(h, stream(4))  # ways: 4 (hpc 32), 6 (hpc 32); counter[32] = 2
    # A store (or atomic, which the L1 treats as a store; its outcome is the L2's) hitting
    # line 4 with PB: with store_reuse, counter[32] = 1 and the way takes hpc 33.
    assert run(h, [(4, PB, op)]) == [outcome]
    assert counter(p, HA) == (1 if trains else 2) and hpc(p, 0, 0) == (HB if trains else HA)
    assert pstats(p)["table_decrements"] == (1 if trains else 0)
    # The hit touched line 4, so line 6 goes first (hpc 32), then line 4, whose hashed PC
    # decides which counter the second eviction trains.
    run(h, [(8, PA), (10, PA)])
    assert (counter(p, HA), counter(p, HB)) == ((2, 1) if trains else (4, 0))


# --- storage ---------------------------------------------------------------------------------------

def test_storage_tian15():
    # tian15 Section 4.1: 128 x 4 bits of table (64 B) and 256 lines x 7 bits (224 B) per L1;
    # one bit per L2 line (256 KB / 64 B = 4096 lines, 0.5 KB). No attachment needed.
    assert PCBypass().storage_bits(preset("tian15")) == {
        "l1.prediction_table": 512, "l1.hashed_pc": 1792, "l2.bypass_bits": 4096}


# --- threshold 16 equals the baseline --------------------------------------------------------------

@st.composite
def small_gpus(draw) -> GPUConfig:
    def cache(line_size, ways_from, write):
        ways = draw(st.sampled_from(ways_from))
        sets = draw(st.sampled_from((1, 2, 4)))
        return CacheConfig(size=sets * ways * line_size, assoc=ways, line_size=line_size,
                           replacement=draw(st.sampled_from(REPLACEMENTS)), write=write,
                           seed=draw(st.integers(0, 1000)))

    # pc-bypass takes the L1s that do not allocate on stores (a write-back L1 is rejected).
    l1 = cache(64, (1, 2, 4), draw(st.sampled_from(("write-through", "write-evict"))))
    l2 = cache(draw(st.sampled_from((64, 128))), (1, 2, 4, 8), draw(st.sampled_from(WRITE_POLICIES)))
    l3 = cache(l2.line_size, (2, 4), "write-back") if draw(st.booleans()) else None
    return GPUConfig(name="random", n_sm=draw(st.integers(1, 3)), l1=l1, l2=l2, l3=l3)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(gpu=small_gpus(), data=st.data())
def test_threshold_16_equals_baseline(gpu, data):
    n = data.draw(st.integers(0, 150))

    def column(values):
        return data.draw(st.lists(values, min_size=n, max_size=n))

    acc = np.zeros(n, ACCESS_DTYPE)
    acc["sm"] = column(st.integers(0, gpu.n_sm - 1))
    acc["op"] = column(st.sampled_from((LOAD, LOAD, LOAD, STORE, ATOMIC)))
    acc["pc"] = column(st.sampled_from((PA, PB, PC_OTHER, PC_ALIAS, 0xDEADBEE8)))
    acc["line"] = column(st.integers(0, 24))
    base, pol = Hierarchy(gpu), Hierarchy(gpu, PCBypass(threshold=16))
    assert pol.run(acc, outcomes=True).tolist() == base.run(acc, outcomes=True).tolist()
    for name in base.levels:
        assert np.array_equal(pol.levels[name].counters, base.levels[name].counters), name
        assert np.array_equal(pol.levels[name].tag, base.levels[name].tag), name
    assert pol.policy.stats()["bypass_predictions"] == 0


def test_write_back_l1_rejected():
    gpu = machine().replace(l1=CacheConfig(size=256, assoc=2, line_size=64, write="write-back"))
    with pytest.raises(InputError, match="pc-bypass: l1.write must be write-through or write-evict"):
        Hierarchy(gpu, PCBypass())
