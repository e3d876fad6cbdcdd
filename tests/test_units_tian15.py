"""Unit models of tian15: PC hash, prediction table, L2 bypassBit store."""

import numpy as np
import pytest

from golden.units.bypass_bits import BypassBits
from golden.units.pc_hash import pc_hash
from golden.units.prediction_table import PredictionTable


class TestPCHash:
    def test_values(self):
        # (0x100 >> 3) = 0x20 -> 32; folds of a 32-bit value into 7-bit chunks
        assert pc_hash(0x100, 7, 3) == 0x20
        assert pc_hash(0x108, 7, 3) == 0x21
        v = 0xFFFFFFFF >> 3  # 29 ones: chunks 127, 127, 127, 127, 1 -> 127^127^127^127^1
        assert pc_hash(0xFFFFFFFF, 7, 3) == (127 ^ 127 ^ 127 ^ 127 ^ (v >> 28))

    def test_range(self):
        pcs = np.arange(0, 1 << 16, 8)
        hs = {pc_hash(int(p), 7, 3) for p in pcs}
        assert hs == set(range(128))


class TestPredictionTable:
    def test_init(self):
        t = PredictionTable()
        assert (t.entries, t.width, t.threshold) == (128, 4, 8)
        assert t.inputs == {"lookup_idx": 7, "inc_en": 1, "inc_idx": 7, "dec_en": 1, "dec_idx": 7}
        assert t.outputs == {"lookup_count": 4, "lookup_bypass": 1}
        assert (t.counters == 0).all()

    @pytest.mark.parametrize("kw, msg", [
        ({"entries": 100}, "Entries must be a power of 2 of at least 2, not 100"),
        ({"width": 9}, "Counter width must be 1 to 8 bits, not 9"),
        ({"threshold": 17}, "Threshold must be 0 to 16, not 17"),
        ({"init": 16}, "Initial counter value must be 0 to 15, not 16"),
    ])
    def test_init_wrong(self, kw, msg):
        with pytest.raises(ValueError, match=msg):
            PredictionTable(**kw)

    def test_saturates_at_max_and_zero(self):
        t = PredictionTable()
        seen = [t.step(lookup_idx=5, inc_en=1, inc_idx=5)["lookup_count"] for _ in range(18)]
        assert seen == list(range(16)) + [15, 15]
        seen = [t.step(lookup_idx=5, dec_en=1, dec_idx=5)["lookup_count"] for _ in range(18)]
        assert seen == list(range(15, -1, -1)) + [0, 0]

    def test_threshold_boundary(self):
        t = PredictionTable(threshold=3)
        out = [t.step(lookup_idx=1, inc_en=1, inc_idx=1)["lookup_bypass"] for _ in range(5)]
        assert out == [0, 0, 0, 1, 1]  # counts 0,1,2 below; 3 meets ">= threshold"

    def test_threshold_above_max_never_bypasses(self):
        t = PredictionTable(threshold=16)
        assert not any(t.step(lookup_idx=0, inc_en=1, inc_idx=0)["lookup_bypass"] for _ in range(40))

    def test_lookup_sees_state_before_edge(self):
        t = PredictionTable()
        assert t.step(lookup_idx=2, inc_en=1, inc_idx=2)["lookup_count"] == 0
        assert t.step(lookup_idx=2)["lookup_count"] == 1

    def test_same_cycle_inc_dec(self):
        t = PredictionTable()
        for _ in range(3):
            t.step(inc_en=1, inc_idx=9)
        t.step(inc_en=1, inc_idx=9, dec_en=1, dec_idx=9)
        assert t.counters[9] == 3  # same entry: cancel
        t.step(inc_en=1, inc_idx=9, dec_en=1, dec_idx=4)
        assert (t.counters[9], t.counters[4]) == (4, 0)  # different entries: both (4 saturates at 0)

    def test_run_log(self):
        t = PredictionTable()
        stim = np.zeros(3, dtype=[("lookup_idx", "u1"), ("inc_en", "u1"), ("inc_idx", "u1"),
                                  ("dec_en", "u1"), ("dec_idx", "u1")])
        stim["inc_en"] = 1
        log = t.run(stim)
        assert log["exp_lookup_count"].tolist() == [0, 1, 2]


class TestBypassBits:
    def test_listing1_sequence(self):
        b = BypassBits(sets=4, ways=2)
        # the L2 fills a line, then a predicted bypass of it: bit 0 -> bypass, L2 records 1
        assert b.step(fill_valid=1, fill_set=1, fill_way=1)["resp_bit"] == 0
        assert b.step(req_valid=1, req_set=1, req_way=1, req_bypass=1)["resp_bit"] == 0
        assert b.bits[1, 1] == 1
        # re-referenced while in L2, predicted bypass again: bit 1 returned -> install; cleared
        assert b.step(req_valid=1, req_set=1, req_way=1, req_bypass=1)["resp_bit"] == 1
        assert b.bits[1, 1] == 0
        # a non-bypassed request reads and clears
        b.bits[2, 0] = 1
        assert b.step(req_valid=1, req_set=2, req_way=0, req_bypass=0)["resp_bit"] == 1
        assert b.bits[2, 0] == 0

    def test_fill_clears_and_wins(self):
        b = BypassBits(sets=4, ways=2)
        b.bits[0, 0] = 1  # left by the line this fill replaces
        assert b.step(fill_valid=1, fill_set=0, fill_way=0)["resp_bit"] == 0
        assert b.bits[0, 0] == 0
        # request and fill of the same line in one cycle: the request reads, the clear wins
        b.bits[3, 1] = 0
        assert b.step(req_valid=1, req_set=3, req_way=1, req_bypass=1,
                      fill_valid=1, fill_set=3, fill_way=1)["resp_bit"] == 0
        assert b.bits[3, 1] == 0

    def test_idle_cycle_changes_nothing(self):
        b = BypassBits(sets=4, ways=2)
        b.bits[3, 1] = 1
        assert b.step(req_valid=0, req_set=3, req_way=1)["resp_bit"] == 0
        assert b.bits[3, 1] == 1

    def test_init_wrong(self):
        with pytest.raises(ValueError, match="Sets must be a positive power of 2, not 3"):
            BypassBits(sets=3, ways=2)
