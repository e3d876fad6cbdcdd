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


def table_step(t, *, lookup=None, inc=None, dec=None):
    """One cycle of the table model; ``lookup``/``inc``/``dec`` are entry indices or None."""
    kw = {}
    if lookup is not None:
        kw.update(s1_lookup__valid=1, s1_lookup__idx=lookup)
    if inc is not None:
        kw.update(s1_inc__en=1, s1_inc__idx=inc)
    if dec is not None:
        kw.update(s1_dec__en=1, s1_dec__idx=dec)
    return t.step(**kw)


def bits_step(b, *, req=None, fill=None):
    """One cycle of the bypassBit store; ``req`` = (set, way, bypass), ``fill`` = (set, way)."""
    kw = {}
    if req is not None:
        kw.update(s1_req__valid=1, s1_req__set=req[0], s1_req__way=req[1], s1_req__bypass=req[2])
    if fill is not None:
        kw.update(s1_fill__valid=1, s1_fill__set=fill[0], s1_fill__way=fill[1])
    return b.step(**kw)


class TestPredictionTable:
    def test_init(self):
        t = PredictionTable()
        assert (t.entries, t.width, t.threshold, t.init, t.maxval) == (128, 4, 8, 0, 15)
        assert t.inputs == {"s1_lookup__valid": 1, "s1_lookup__idx": 7, "s1_inc__en": 1, "s1_inc__idx": 7,
                            "s1_dec__en": 1, "s1_dec__idx": 7}
        assert t.outputs == {"s2_lookup__valid": 1, "s2_lookup__count": 4, "s2_lookup__bypass": 1}
        assert (t.counters == 0).all()
        assert t.s2_update == (0, 0, 0, 0) and t.s2_lookup == (0, 0)
        assert PredictionTable(init=5, entries=16).counters.tolist() == [5] * 16

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
        # Increment and look up entry 5 every cycle: the lookup of cycle t shows in t + 1 and
        # includes the increment of cycle t (forwarded), so the outputs are 1, 2, ... from cycle 1.
        t = PredictionTable()
        seen = [table_step(t, lookup=5, inc=5)["s2_lookup__count"] for _ in range(18)]
        assert seen == [0] + list(range(1, 16)) + [15, 15]
        seen = [table_step(t, lookup=5, dec=5)["s2_lookup__count"] for _ in range(18)]
        assert seen == [15] + list(range(14, -1, -1)) + [0, 0]

    def test_threshold_boundary(self):
        t = PredictionTable(threshold=3)
        out = [table_step(t, lookup=1, inc=1)["s2_lookup__bypass"] for _ in range(5)]
        assert out == [0, 0, 0, 1, 1]  # counts -, 1, 2 below; 3 meets ">= threshold"

    def test_threshold_above_max_never_bypasses(self):
        t = PredictionTable(threshold=16)
        assert not any(table_step(t, lookup=0, inc=0)["s2_lookup__bypass"] for _ in range(40))

    def test_latency_and_valid(self):
        t = PredictionTable()
        t.counters[2] = 6
        assert table_step(t, lookup=2) == {"s2_lookup__valid": 0, "s2_lookup__count": 0,
                                          "s2_lookup__bypass": 0}  # nothing answered yet
        assert table_step(t) == {"s2_lookup__valid": 1, "s2_lookup__count": 6, "s2_lookup__bypass": 0}
        assert table_step(t)["s2_lookup__valid"] == 0  # no lookup in the previous cycle

    def test_lookup_sees_same_cycle_update(self):
        # The increment requested in the lookup's own cycle is forwarded; one requested in the next
        # cycle is not.
        t = PredictionTable()
        table_step(t, lookup=2, inc=2)
        assert table_step(t, inc=2)["s2_lookup__count"] == 1
        assert t.counters[2] == 1  # the second increment is still in stage 2
        assert table_step(t, lookup=2)["s2_lookup__valid"] == 0
        assert table_step(t)["s2_lookup__count"] == 2

    def test_back_to_back_updates_of_one_entry(self):
        # Read-modify-write in consecutive cycles: each sees the previous one's write.
        t = PredictionTable()
        for _ in range(3):
            table_step(t, inc=7)
        table_step(t, dec=7)
        table_step(t)
        assert t.counters[7] == 2

    def test_same_cycle_inc_dec(self):
        t = PredictionTable()
        for _ in range(3):
            table_step(t, inc=9)
        table_step(t, inc=9, dec=9)
        table_step(t, lookup=9, inc=9, dec=4)
        assert t.counters[9] == 3  # same entry: cancel
        assert table_step(t)["s2_lookup__count"] == 4  # different entries: both (4 stays at 0)
        assert (t.counters[9], t.counters[4]) == (4, 0)

    def test_run_log(self):
        t = PredictionTable()
        stim = np.zeros(4, dtype=[(k, "u1") for k in t.inputs])
        stim["s1_inc__en"] = 1
        stim["s1_lookup__valid"] = 1
        log = t.run(stim)
        assert log["exp_s2_lookup__count"].tolist() == [0, 1, 2, 3]
        assert log["exp_s2_lookup__valid"].tolist() == [0, 1, 1, 1]


class TestBypassBits:
    def test_init(self):
        b = BypassBits(sets=256, ways=16)
        assert (b.sets, b.ways, b.bits.shape) == (256, 16, (256, 16))
        assert b.inputs == {"s1_req__valid": 1, "s1_req__set": 8, "s1_req__way": 4, "s1_req__bypass": 1,
                            "s1_fill__valid": 1, "s1_fill__set": 8, "s1_fill__way": 4}
        assert b.outputs == {"s2_resp__valid": 1, "s2_resp__bit": 1}

    def test_listing1_sequence(self):
        b = BypassBits(sets=4, ways=2)
        # the L2 fills a line, then a predicted bypass of it: bit 0 -> bypass, L2 records 1
        assert bits_step(b, fill=(1, 1)) == {"s2_resp__valid": 0, "s2_resp__bit": 0}
        assert bits_step(b, req=(1, 1, 1))["s2_resp__valid"] == 0  # the fill acts now
        # re-referenced while in L2, predicted bypass again (back to back: the read sees the write)
        assert bits_step(b, req=(1, 1, 1)) == {"s2_resp__valid": 1, "s2_resp__bit": 0}
        assert b.bits[1, 1] == 1
        assert bits_step(b) == {"s2_resp__valid": 1, "s2_resp__bit": 1}  # bit 1 returned -> install
        assert b.bits[1, 1] == 0
        # a non-bypassed request reads and clears
        b.bits[2, 0] = 1
        bits_step(b, req=(2, 0, 0))
        assert bits_step(b)["s2_resp__bit"] == 1
        assert b.bits[2, 0] == 0

    def test_fill_clears_and_wins(self):
        b = BypassBits(sets=4, ways=2)
        b.bits[0, 0] = 1  # left by the line this fill replaces
        bits_step(b, fill=(0, 0))
        assert bits_step(b)["s2_resp__bit"] == 0
        assert b.bits[0, 0] == 0
        # request and fill of the same line in one cycle: the request reads the bit, the clear wins
        b.bits[3, 1] = 1
        bits_step(b, req=(3, 1, 1), fill=(3, 1))
        assert bits_step(b) == {"s2_resp__valid": 1, "s2_resp__bit": 1}
        assert b.bits[3, 1] == 0
        b.bits[3, 1] = 0
        bits_step(b, req=(3, 1, 1), fill=(3, 1))
        bits_step(b)
        assert b.bits[3, 1] == 0  # a bypass that would set the bit loses to the fill

    def test_idle_cycle_changes_nothing(self):
        b = BypassBits(sets=4, ways=2)
        b.bits[3, 1] = 1
        assert bits_step(b)["s2_resp__bit"] == 0
        assert b.step(s1_req__valid=0, s1_req__set=3, s1_req__way=1)["s2_resp__bit"] == 0
        assert bits_step(b) == {"s2_resp__valid": 0, "s2_resp__bit": 0}
        assert b.bits[3, 1] == 1

    @pytest.mark.parametrize("kw, msg", [
        ({"sets": 3, "ways": 2}, "Sets must be a positive power of 2, not 3"),
        ({"sets": 4, "ways": 0}, "Ways must be positive, not 0"),
    ])
    def test_init_wrong(self, kw, msg):
        with pytest.raises(ValueError, match=msg):
            BypassBits(**kw)
