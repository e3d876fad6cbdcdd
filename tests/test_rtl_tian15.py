"""tian15 RTL units against their golden unit models, cycle by cycle, in three simulators."""

import numpy as np
import pytest

from golden.units.bypass_bits import BypassBits as GoldenBits
from golden.units.l1_tag_unit import L1TagUnit as GoldenL1
from golden.units.prediction_table import PredictionTable as GoldenTable
from rtl.bypass import BypassBits
from rtl.predictor import L1TagUnit, PredictionTable
from tb.amaranth_sim import replay_amaranth
from tb.stimulus import l1_tag_inputs, record
from tests.mutants import mutant

SMALL = dict(sets=4, ways=4, line_bits=12, threshold=3)


def table_log(n, seed, **kw):
    rng = np.random.default_rng(seed)

    def gen(_):
        return {"lookup_idx": int(rng.integers(0, 8)), "inc_en": int(rng.random() < 0.6),
                "inc_idx": int(rng.integers(0, 8)), "dec_en": int(rng.random() < 0.4),
                "dec_idx": int(rng.integers(0, 8))}

    return record(GoldenTable(**kw), n, gen)


def bits_log(n, seed, sets=8, ways=4):
    rng = np.random.default_rng(seed)

    def gen(_):
        return {"req_valid": int(rng.random() < 0.8), "req_set": int(rng.integers(0, sets)),
                "req_way": int(rng.integers(0, ways)), "req_bypass": int(rng.random() < 0.5),
                "fill_valid": int(rng.random() < 0.2), "fill_set": int(rng.integers(0, sets)),
                "fill_way": int(rng.integers(0, ways))}

    return record(GoldenBits(sets=sets, ways=ways), n, gen)


def l1_log(n, seed, lines=24, pcs=4, **kw):
    params = {**SMALL, **kw}
    return record(GoldenL1(**params), n, l1_tag_inputs(np.random.default_rng(seed), lines=lines, pcs=pcs))


class TestInit:
    def test_prediction_table(self):
        t = PredictionTable()
        assert (t.entries, t.width, t.threshold, t.init) == (128, 4, 8, 0)
        assert len(t.lookup_idx) == 7 and len(t.lookup_count) == 4

    def test_bypass_bits(self):
        b = BypassBits(sets=256, ways=16)
        assert b.storage_bits == 4096  # tian15: 0.5 KB for 256 KB of 64 B lines
        assert (len(b.req_set), len(b.req_way)) == (8, 4)

    def test_l1_tag_unit(self):
        u = L1TagUnit()
        assert (u.sets, u.ways, u.index_bits, u.tag_bits) == (32, 8, 5, 37)
        bits = u.storage_bits
        assert bits["hashed_pc"] == 256 * 7 and bits["prediction_table"] == 128 * 4  # 224 B + 64 B
        assert bits["replacement"] == 32 * 7

    @pytest.mark.parametrize("cls, kw, msg", [
        (PredictionTable, {"entries": 100}, "Entries must be a power of 2 of at least 2, not 100"),
        (PredictionTable, {"threshold": 17}, "Threshold must be 0 to 16, not 17"),
        (BypassBits, {"sets": 3, "ways": 2}, "Sets must be a positive power of 2, not 3"),
        (L1TagUnit, {"replacement": "fifo"}, "Replacement must be one of lru, plru, not 'fifo'"),
        (L1TagUnit, {"hash_bits": 6}, "A 6-bit PC hash cannot index 128 entries"),
        (L1TagUnit, {"ways": 6}, "Ways must be a positive power of 2, not 6"),
    ])
    def test_init_wrong(self, cls, kw, msg):
        with pytest.raises(ValueError, match=msg):
            cls(**kw)


class TestAmaranthSim:
    def test_table_saturation_and_threshold(self):
        # 18 increments then 18 decrements of one entry: saturates at 15 and 0; threshold 8 crossed.
        n = 36
        stim = np.zeros(n, dtype=[(k, "u1") for k in GoldenTable().inputs])
        stim["lookup_idx"] = 5
        stim["inc_en"][:18], stim["inc_idx"][:18] = 1, 5
        stim["dec_en"][18:], stim["dec_idx"][18:] = 1, 5
        log = GoldenTable().run(stim)
        expected = list(range(16)) + [15, 15] + list(range(15, -1, -1)) + [0, 0]
        assert log["exp_lookup_count"].tolist() == expected
        assert log["exp_lookup_bypass"].tolist() == [int(c >= 8) for c in log["exp_lookup_count"]]
        assert replay_amaranth(PredictionTable(), log).ok

    def test_table_same_cycle_inc_dec(self):
        stim = np.zeros(6, dtype=[(k, "u1") for k in GoldenTable().inputs])
        stim["lookup_idx"] = 2
        stim["inc_en"][:3], stim["inc_idx"][:3] = 1, 2
        stim["inc_en"][3], stim["inc_idx"][3], stim["dec_en"][3], stim["dec_idx"][3] = 1, 2, 1, 2
        log = GoldenTable().run(stim)
        assert log["exp_lookup_count"].tolist() == [0, 1, 2, 3, 3, 3]
        assert replay_amaranth(PredictionTable(), log).ok

    def test_table_random(self):
        r = replay_amaranth(PredictionTable(), table_log(3000, 1))
        assert r.ok and r.rows == 3000

    def test_bypass_bits_random(self):
        r = replay_amaranth(BypassBits(sets=8, ways=4), bits_log(3000, 2))
        assert r.ok and r.rows == 3000

    @pytest.mark.parametrize("replacement", ["plru", "lru"])
    def test_l1_random(self, replacement):
        log = l1_log(3000, 3, replacement=replacement)
        # the stimulus reaches every path: hits, evictions of valid lines, bypasses, corrections
        assert log["exp_lookup_hit"].sum() > 300
        fills = log["exp_fill_valid"] == 1
        assert (fills & (log["exp_fill_install"] == 0)).sum() >= 10  # bypassed
        corrected = fills & (log["l2_bit"] == 1) & (log["exp_fill_install"] == 1)
        assert (corrected & (np.roll(log["exp_lookup_predict"], 1) == 1)).sum() >= 5
        r = replay_amaranth(L1TagUnit(**SMALL, replacement=replacement), log)
        assert r.ok and r.rows == 3000, r.mismatch

    def test_l1_eviction_with_every_way_valid(self):
        # Five loads to set 0 of a 4-way set: the fifth evicts the pseudo-LRU way (way 0).
        g = GoldenL1(**SMALL, replacement="plru")
        rows = []
        for ln in (0, 4, 8, 12, 16):
            rows += [{"req_valid": 1, "req_line": ln, "req_pc": 0x100}, {"l2_valid": 1}]
        it = iter(rows)
        log = record(g, len(rows), lambda _: next(it))
        assert log["exp_fill_way"][1::2].tolist() == [0, 1, 2, 3, 0]  # the fifth replaces way 0
        assert replay_amaranth(L1TagUnit(**SMALL, replacement="plru"), log).ok

    def test_l1_bypass_bit_correction(self):
        # PC 0x100 streams until it predicts bypass; a returned bypassBit of 1 then installs.
        g = GoldenL1(**SMALL, replacement="lru")
        rows = []
        for ln in range(0, 64, 4):  # all in set 0: evictions train 0x100 up to the threshold
            rows += [{"req_valid": 1, "req_line": ln, "req_pc": 0x100}, {"l2_valid": 1}]
        rows += [{"req_valid": 1, "req_line": 100, "req_pc": 0x100}, {"l2_valid": 1, "l2_bit": 1}]
        it = iter(rows)
        log = record(g, len(rows), lambda _: next(it))
        assert log["exp_lookup_predict"][-2] == 1 and log["exp_fill_install"][-1] == 1
        assert 0 in log["exp_fill_install"][1::2].tolist()  # some earlier miss was bypassed
        assert replay_amaranth(L1TagUnit(**SMALL, replacement="lru"), log).ok


class TestMutants:
    """A unit with one injected bug must make each replayer report a mismatch."""

    def mutant_table(self):
        mod = mutant("rtl.predictor.prediction_table", "lookup.data >= self._threshold",
                     "lookup.data > self._threshold")
        return mod.PredictionTable()

    def mutant_l1(self):
        mod = mutant("rtl.predictor.l1_tag_unit", "install = fill & (~w_predict | self.l2_bit)",
                     "install = fill & ~w_predict")
        return mod.L1TagUnit(**SMALL)

    def test_amaranth(self):
        r = replay_amaranth(self.mutant_table(), table_log(2000, 1))
        assert not r.ok and r.mismatch.expected != r.mismatch.actual
        r = replay_amaranth(self.mutant_l1(), l1_log(2000, 3))
        assert not r.ok and "fill_install" in str(r.mismatch)

    def test_icarus(self, tmp_path):
        from tb.cocotb_replay import replay_cocotb

        r = replay_cocotb(self.mutant_l1(), l1_log(2000, 3), tmp_path)
        assert not r.ok and "fill_install" in str(r.mismatch)

    def test_verilator(self, tmp_path):
        from tb.verilator import replay_verilator

        r = replay_verilator(self.mutant_table(), table_log(2000, 1), tmp_path)
        assert not r.ok and "lookup_bypass" in str(r.mismatch)


def test_cocotb_icarus(tmp_path):
    """The cocotb testbench (driver, monitor, in-order scoreboard) passes on the unmodified unit."""
    from tb.cocotb_replay import replay_cocotb

    r = replay_cocotb(L1TagUnit(**SMALL), l1_log(2000, 4), tmp_path)
    assert r.ok and r.rows == 2000


def test_verilator_short(tmp_path):
    from tb.verilator import replay_verilator

    log = record(GoldenL1(), 50_000, l1_tag_inputs(np.random.default_rng(9), lines=600, pcs=40))
    r = replay_verilator(L1TagUnit(), log, tmp_path)
    assert r.ok and r.rows == 50_000
