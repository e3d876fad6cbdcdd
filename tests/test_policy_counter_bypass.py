"""Counter-based replacement and bypassing (Kharbutli and Solihin), the tian15 baseline.

Every expected value below is worked out by hand from the rules in
``docs/policies/counter_bypass.md``. Lines map to set ``line % sets``; the
hashes of the small PCs and line numbers used are ``pc >> 3`` and the line
number itself (a 7-bit XOR-fold leaves values below 128 unchanged).
"""

import numpy as np
import pytest

from golden.cache import OUTCOME_BYPASSED, Hierarchy
from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError
from golden.policies import BASELINE_HOOKS, get_policy, policy_names
from golden.policies.counter_bypass import TIAN15_STORAGE_KB, CounterBypass
from golden.trace.coalesce import ACCESS_DTYPE

LOAD, STORE = 1, 2
PA, PB = 0x100, 0x108  # hashed PCs 32 and 33
A = 10  # a line number (hash 10)


def filler(k):
    """The k-th filler access: a line and PC no other access uses (own table entry)."""
    return 100 + k, 0x200 + 8 * k


def machine(sets=2, ways=2, n_sm=1, **l1):
    """A GPU with a tiny L1 (64 B lines, LRU, write-through) and a roomy L2."""
    l1 = {"replacement": "lru", "write": "write-through", **l1}
    return GPUConfig(name="tiny", n_sm=n_sm,
                     l1=CacheConfig(size=sets * ways * 64, assoc=ways, line_size=64, **l1),
                     l2=CacheConfig(size=64 * 1024, assoc=8, line_size=64))


def accesses(seq, sm=0):
    """Access rows from ``(line, pc)`` or ``(line, pc, op)`` tuples."""
    a = np.zeros(len(seq), ACCESS_DTYPE)
    for i, acc in enumerate(seq):
        a[i]["line"], a[i]["pc"] = acc[0], acc[1]
        a[i]["op"] = acc[2] if len(acc) > 2 else LOAD
        a[i]["sm"] = sm
    return a


def run(h, seq, sm=0):
    return h.run(accesses(seq, sm), outcomes=True)


def lines_in(h, s=0, sm=0):
    """The set of lines held by set ``s`` of an SM's L1."""
    tags = h.levels["l1"].tag[sm, s]
    return set(tags[tags >= 0].tolist())


def way_of(h, line, s=0, sm=0):
    return int(np.flatnonzero(h.levels["l1"].tag[sm, s] == line)[0])


def entry(p, pc, line, sm=0):
    """``(maxCstored, conf)`` of the table entry of a (PC, line) pair."""
    i, j = pc >> 3, line
    return int(p.l1.table[sm, i, j]["max_stored"]), int(p.l1.table[sm, i, j]["conf"])


class TestInit:
    def test_defaults(self):
        p = CounterBypass()
        assert (p.algorithm, p.bypass, p.replace, p.hash_bits, p.pc_shift, p.counter_bits) == (
            "aip", True, True, 7, 3, 4)
        assert p.line_fields() == {"hashed_pc": 7, "count": 4, "max_present": 4, "max_past": 4, "conf": 1}
        assert CounterBypass(algorithm="lvp").line_fields() == {
            "hashed_pc": 7, "count": 4, "max_past": 4, "conf": 1}
        assert p.l1 is None and p.stats() == {"expired_victims": 0, "predicted_bypasses": 0}

    def test_registry(self):
        assert "counter-bypass" in policy_names()
        p = get_policy("counter-bypass", algorithm="lvp")
        assert isinstance(p, CounterBypass) and p.algorithm == "lvp"

    def test_hooks_l1_only(self):
        gpu = machine(n_sm=3)
        p = CounterBypass()
        assert p.level_hooks("l2", gpu.l2, 1) is BASELINE_HOOKS
        p.level_hooks("l1", gpu.l1, 3)
        assert p.l1.lines.shape == (3, 2, 2)
        assert p.l1.table.shape == (3, 128, 128)

    @pytest.mark.parametrize("kw, msg", [
        ({"algorithm": "lru"}, "algorithm: must be one of aip, lvp, not 'lru'"),
        ({"bypass": 1}, "bypass: must be True or False, not 1"),
        ({"replace": "no"}, "replace: must be True or False, not 'no'"),
        ({"hash_bits": 9}, "hash_bits: must be an integer from 1 to 8, not 9"),
        ({"pc_shift": -1}, "pc_shift: must be an integer from 0 to 31, not -1"),
        ({"counter_bits": 0}, "counter_bits: must be an integer from 1 to 8, not 0"),
    ])
    def test_init_wrong(self, kw, msg):
        with pytest.raises(InputError, match=f"^counter-bypass: {msg}$"):
            CounterBypass(**kw)


class TestStorage:
    L1 = CacheConfig(size=16 * 1024, assoc=8, line_size=64)  # tian15 Table 1

    def test_tian15_aip(self):
        st = CounterBypass().storage(self.L1)
        assert st == {"table_entries": 16384, "entry_bits": 5, "table_bits": 81920, "line_bits": 20,
                      "lines": 256, "lines_bits": 5120, "total_bits": 87040, "total_bytes": 10880.0,
                      "total_kb": 10.625}
        # tian15 Section 4.1 prints 10.626 KB for the same structures.
        assert TIAN15_STORAGE_KB == 10.626
        assert abs(st["total_kb"] - TIAN15_STORAGE_KB) < 0.0015

    def test_lvp(self):
        st = CounterBypass(algorithm="lvp").storage(self.L1)
        got = (st["line_bits"], st["lines_bits"], st["total_bytes"], st["total_kb"])
        assert got == (16, 4096, 10752.0, 10.5)


class TestAIP:
    def test_counters_and_saturation(self):
        # 2 sets x 2 ways on SM 1 of 2: SM 0's state must stay untouched.
        p = CounterBypass()
        h = Hierarchy(machine(n_sm=2), p)
        run(h, [(0, PA), (2, PB), (1, PA)], sm=1)  # fill 0 (C=0); fill 2 (C0=1); set 1 only
        st = p.l1
        w0, w2 = way_of(h, 0, sm=1), way_of(h, 2, sm=1)
        assert st.lines["count"][1, 0, w0] == 1 and st.lines["count"][1, 0, w2] == 0
        run(h, [(2, PB)] * 5, sm=1)  # hits: C0 += 1 each; C2 goes to 1, maxCpresent 1, C2 = 0
        assert st.lines["count"][1, 0, w0] == 6 and st.lines["count"][1, 0, w2] == 0
        assert st.lines["max_present"][1, 0, w2] == 1 and st.lines["max_present"][1, 0, w0] == 0
        run(h, [(2, PB)] * 15, sm=1)  # C0 would be 21: saturates at 15
        assert st.lines["count"][1, 0, w0] == 15
        assert st.lines["count"][1, 1].tolist() == [0, 0]  # set 1 (line 1 and an invalid way) never counted
        for a in (*(st.lines[f] for f in st.lines.dtype.names), st.table["max_stored"], st.table["conf"]):
            assert not a[0].any()

    def test_max_present_table_and_confidence(self):
        p = CounterBypass()
        h = Hierarchy(machine(), p)
        st = p.l1
        run(h, [(0, PA), (2, PB), (2, PB), (2, PB), (0, PA)])
        w0, w2 = way_of(h, 0), way_of(h, 2)
        # C0: 1 (fill of 2), 2, 3, then the hit on 0 makes it 4: maxCpresent0 = 4, C0 = 0.
        assert (st.lines["max_present"][0, 0, w0], st.lines["count"][0, 0, w0]) == (4, 0)
        assert (st.lines["max_present"][0, 0, w2], st.lines["count"][0, 0, w2]) == (1, 1)
        run(h, [(0, PA)])  # interval 1 does not lower the maximum
        assert (st.lines["max_present"][0, 0, w0], st.lines["count"][0, 0, w2]) == (4, 2)
        # Miss on 4 evicts the LRU line 2: entry (PB, 2) = maxCpresent 1, conf (1 == maxCpast 0) = 0.
        out = run(h, [(4, 0x120)])
        assert out.tolist() == [4] and lines_in(h) == {0, 4}
        assert entry(p, PB, 2) == (1, 0)
        # Second generation of 2: maxCpast 1 from the table; the miss evicts line 0 (LRU):
        # entry (PA, 0) = (4, conf 4 == 0 -> 0).
        run(h, [(2, PB)])
        assert entry(p, PA, 0) == (4, 0)
        assert (st.lines["max_past"][0, 0, way_of(h, 2)], st.lines["conf"][0, 0, way_of(h, 2)]) == (1, 0)
        # 2 is re-accessed once at interval 1; 6 evicts 4 (never re-accessed: (0, conf 0 == 0 -> 1));
        # 8 evicts 2: maxCpresent 1 == maxCpast 1, so its entry becomes confident.
        run(h, [(2, PB), (6, 0x130), (8, 0x140)])
        assert entry(p, 0x120, 4) == (0, 1)
        assert entry(p, PB, 2) == (1, 1)
        assert lines_in(h) == {6, 8}
        # No line was confident when it was a candidate: every victim was the LRU line.
        assert p.stats() == {"expired_victims": 0, "predicted_bypasses": 0}

        # Bypass: (0x120, 4) is confident with maxCstored 0. The L2 holds line 4 since its first miss.
        c6 = st.lines["count"][0, 0, way_of(h, 6)]
        out = run(h, [(4, 0x120)])
        assert out.tolist() == [OUTCOME_BYPASSED | 2]
        assert lines_in(h) == {6, 8}
        assert st.lines["count"][0, 0, way_of(h, 6)] == c6 + 1  # a bypassed access is still a set access
        assert h.stats()["l1"]["bypasses"] == 1 and p.stats()["predicted_bypasses"] == 1
        # The same line from another PC has its own (unconfident) entry and is filled.
        out = run(h, [(4, 0x128)])
        assert out.tolist() == [2] and 4 in lines_in(h)
        # A line whose entry is confident with maxCstored 1 is filled, with its prediction.
        run(h, [(2, PB)])
        w = way_of(h, 2)
        got = tuple(int(st.lines[f][0, 0, w]) for f in ("max_past", "conf", "count", "max_present"))
        assert got == (1, 1, 0, 0)

    def test_bypass_disabled(self):
        p = CounterBypass(bypass=False)
        h = Hierarchy(machine(), p)
        out = run(h, [(0, PA), (2, PB), (4, PA), (6, PB), (0, PA)])  # 0 and 2 evicted unused
        assert entry(p, PA, 0) == (0, 1)
        assert out[-1] == 2 and 0 in lines_in(h)

    @staticmethod
    def _train_a(h):
        """Two generations of A (pc PA) on a 1-set, 4-way L1, each with one re-access at interval 1."""
        f = [filler(k) for k in range(1, 9)]
        # Gen 1: A, hit A, f1..f3 fill; f4 evicts A (LRU). Gen 2: A evicts f1; hit A; f5..f7 evict
        # f2..f4; f8 evicts A.
        run(h, [(A, PA), (A, PA), *f[0:4], (A, PA), (A, PA), *f[4:8]])

    def test_expired_victim(self):
        p = CounterBypass()
        h = Hierarchy(machine(sets=1, ways=4), p)
        self._train_a(h)
        assert entry(p, PA, A) == (1, 1)
        assert entry(p, filler(1)[1], filler(1)[0]) == (0, 1)  # f1 was never re-accessed
        assert lines_in(h) == {100 + k for k in (5, 6, 7, 8)}
        # Gen 3: A evicts f5 and arrives confident with maxCpast 1; hit A (maxCpresent 1, C 0).
        run(h, [(A, PA), (A, PA)])
        assert (p.l1.lines["conf"][0, 0, way_of(h, A)], p.l1.lines["max_past"][0, 0, way_of(h, A)]) == (1, 1)
        # f9: C_A = 1, not above 1: the LRU line f6 goes.
        run(h, [filler(9)])
        assert lines_in(h) == {A, 107, 108, 109}
        assert p.l1.lines["count"][0, 0, way_of(h, A)] == 1
        # f10: C_A = 2 > max(1, 1) with conf 1: A has expired and is not the MRU line (f9 is),
        # so A goes instead of the LRU line f7.
        run(h, [filler(10)])
        assert lines_in(h) == {107, 108, 109, 110}
        assert p.stats()["expired_victims"] == 1
        assert entry(p, PA, A) == (1, 1)  # maxCpresent 1 == maxCpast 1

    def test_expiry_needs_present_maximum(self):
        # A line must also outlive the longest interval of its current generation.
        p = CounterBypass()
        h = Hierarchy(machine(sets=1, ways=4), p)
        self._train_a(h)  # entry (PA, A) = (1, 1); lines f5..f8
        # Gen 3: A evicts f5; hits on f8 and f7 (C_A 1, 2); hit A: maxCpresent 3. LRU order f6 f8 f7 A.
        run(h, [(A, PA), filler(8), filler(7), (A, PA)])
        assert p.l1.lines["max_present"][0, 0, way_of(h, A)] == 3
        run(h, [filler(9)])  # C_A 1: f6 goes
        run(h, [filler(10)])  # C_A 2 > maxCpast 1 but not > maxCpresent 3: not expired, f8 goes
        assert lines_in(h) == {A, 107, 109, 110}
        run(h, [filler(11)])  # C_A 3: f7 goes
        run(h, [filler(12)])  # C_A 4 > 3: expired (and LRU): A goes
        assert lines_in(h) == {109, 110, 111, 112}
        assert p.stats()["expired_victims"] == 1
        assert entry(p, PA, A) == (3, 0)  # a new maximum: 3 != maxCpast 1, confidence lost

    def test_confidence_compares_with_line_copy(self):
        # conf compares the evicted generation's value with the line's own maxCpast (copied at its
        # fill), not with the table entry, which an aliasing line may have changed meanwhile.
        p = CounterBypass()
        h = Hierarchy(machine(sets=1, ways=4), p)
        y = (A ^ 128 ^ 1, PA)  # line 139: its 7-bit fold is 11 ^ 1 = 10, A's table column
        # Y, hit Y (maxCpresent 1), X = A: both fill with the empty entry (0, 0). f1, f2 fill;
        # f3 evicts Y: entry (1, 1 == 0 -> 0); f4 evicts X: 0 == X's maxCpast 0 -> (0, 1).
        run(h, [y, y, (A, PA), filler(1), filler(2), filler(3)])
        assert entry(p, PA, A) == (1, 0)
        run(h, [filler(4)])
        assert entry(p, PA, A) == (0, 1)

    def test_lru_most_expired_and_mru_excluded(self):
        # With bypassing off, a line predicted never re-accessed (conf 1, maxCpast 0) is filled and
        # expires at the next access to its set, but not while it is the MRU line.
        p = CounterBypass(bypass=False)
        h = Hierarchy(machine(sets=1, ways=4), p)
        b = (20, PB)
        run(h, [b, *(filler(k) for k in range(1, 5))])  # f4 evicts B unused: entry (0, 1)
        assert entry(p, PB, 20) == (0, 1)
        run(h, [b])  # evicts f1
        assert lines_in(h) == {20, 102, 103, 104}
        run(h, [filler(11)])  # C_B = 1 > 0: expired, but MRU: the LRU line f2 goes
        assert lines_in(h) == {20, 103, 104, 111}
        assert p.stats()["expired_victims"] == 0
        run(h, [filler(12)])  # now f11 is the MRU line: B goes, not the LRU line f3
        assert lines_in(h) == {103, 104, 111, 112}
        assert p.stats()["expired_victims"] == 1

    def test_expired_closest_to_lru(self):
        # Two expired lines: the one closer to the LRU position goes (not the default LRU line).
        p = CounterBypass(bypass=False)
        h = Hierarchy(machine(sets=1, ways=4), p)
        b1, b2 = (20, PB), (21, 0x110)
        f1 = filler(1)
        run(h, [b1, b2, *(filler(k) for k in range(1, 5))])  # f3, f4 evict B1, B2 unused
        assert entry(p, PB, 20) == entry(p, 0x110, 21) == (0, 1)
        # Hit f1; B1 evicts f2; B2 evicts f3 (B1 expired but MRU); hit f1: LRU order f4, B1, B2, f1.
        run(h, [f1, b1, b2, f1])
        assert lines_in(h) == {101, 104, 20, 21}
        assert p.stats()["expired_victims"] == 0
        run(h, [filler(13)])  # B1 (C 3) and B2 (C 2) expired: B1 is closer to LRU
        assert lines_in(h) == {101, 104, 21, 113}
        assert p.stats()["expired_victims"] == 1

    def test_stores_are_set_events(self):
        # A write-through store hit and a store miss (no allocation) both count as set accesses.
        p = CounterBypass()
        h = Hierarchy(machine(), p)
        run(h, [(0, PA), (2, PB), (2, PB, STORE), (4, PA, STORE)])
        assert lines_in(h) == {0, 2}
        assert p.l1.lines["count"][0, 0, way_of(h, 0)] == 3
        assert p.l1.lines["max_present"][0, 0, way_of(h, 2)] == 1


class TestLvP:
    def test_live_time(self):
        p = CounterBypass(algorithm="lvp")
        h = Hierarchy(machine(sets=1, ways=4), p)
        st = p.l1
        f = [filler(k) for k in range(1, 12)]
        # Gen 1: A hit twice (C = 2); set accesses do not count. f4 evicts A: entry (2, 2 == 0 -> 0).
        run(h, [(A, PA), (A, PA), (A, PA), *f[0:3]])
        assert st.lines["count"][0, 0, way_of(h, A)] == 2
        assert st.lines["count"][0, 0, way_of(h, 101)] == 0
        run(h, [f[3]])
        assert entry(p, PA, A) == (2, 0)
        # Gen 2: same live time: entry (2, conf 1). f1 (never hit) is now confident with 0.
        run(h, [(A, PA), (A, PA), (A, PA), *f[4:8]])
        assert entry(p, PA, A) == (2, 1)
        assert entry(p, f[0][1], f[0][0]) == (0, 1)
        assert lines_in(h) == {105, 106, 107, 108}
        # Gen 3: A evicts f5; one hit (C 1 < 2); f9 evicts the LRU line f6.
        run(h, [(A, PA), (A, PA), f[8]])
        assert lines_in(h) == {A, 107, 108, 109}
        # Second hit: C = 2 reaches maxCpast 2, A has expired, but it is the MRU line: f10 evicts f7.
        run(h, [(A, PA), f[9]])
        assert lines_in(h) == {A, 108, 109, 110}
        assert p.stats()["expired_victims"] == 0
        run(h, [f[10]])  # f11: A is expired and no longer MRU
        assert lines_in(h) == {108, 109, 110, 111}
        assert p.stats()["expired_victims"] == 1 and entry(p, PA, A) == (2, 1)
        # f1 again, from its PC: confident, never hit: bypassed.
        out = run(h, [f[0]])
        assert out.tolist() == [OUTCOME_BYPASSED | 2]


class TestProperties:
    @pytest.mark.parametrize("replacement, write", [
        ("lru", "write-through"), ("plru", "write-back"), ("fifo", "write-evict"), ("random", "write-back"),
        ("lfu", "write-through"),
    ])
    def test_learning_only_equals_baseline(self, replacement, write):
        # With bypassing and expiry-based replacement off, the hooks only learn: every access has
        # the baseline's outcome, and every counter matches.
        seed = 1 + ("lru", "plru", "fifo", "random", "lfu").index(replacement)
        rng = np.random.default_rng(seed)
        gpu = machine(sets=4, ways=4, n_sm=3, replacement=replacement, write=write)
        n = 6000
        a = np.zeros(n, ACCESS_DTYPE)
        a["sm"] = rng.integers(0, 3, n)
        a["op"] = rng.choice([1, 1, 1, 2, 3], n)
        a["pc"] = 0x100 + 8 * rng.integers(0, 6, n)
        a["line"] = rng.zipf(1.3, n) % 64
        base = Hierarchy(gpu)
        p = CounterBypass(bypass=False, replace=False)
        pol = Hierarchy(gpu, p)
        assert (pol.run(a, outcomes=True) == base.run(a, outcomes=True)).all()
        assert pol.stats(per_sm=True) == base.stats(per_sm=True)
        assert p.l1.table["conf"].any() and p.stats()["expired_victims"] == 0
        # The same policy with its decisions on behaves differently on this trace.
        active = Hierarchy(gpu, CounterBypass())
        assert (active.run(a, outcomes=True) != Hierarchy(gpu).run(a, outcomes=True)).any()
        assert active.stats()["l1"]["bypasses"] > 0
