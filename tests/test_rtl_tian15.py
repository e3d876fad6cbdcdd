"""tian15 RTL units against their golden unit models, cycle by cycle, in three simulators."""

import numpy as np
import pytest
from amaranth.lib import data
from amaranth.lib.wiring import In, Out

from golden.units.bypass_bits import BypassBits as GoldenBits
from golden.units.l1_tag_unit import L1TagUnit as GoldenL1
from golden.units.prediction_table import PredictionTable as GoldenTable
from rtl.bypass import BypassBits
from rtl.bypass.bypass_bits import BitRequest, BitResponse, LineFill
from rtl.predictor import L1TagUnit, PredictionTable
from rtl.predictor.l1_tag_unit import L1Fill, L1Lookup, L1Request, L2Response
from rtl.predictor.prediction_table import CounterUpdate, LookupRequest, LookupResponse
from synth.verilog import flat_ports, port_list
from tb.amaranth_sim import replay_amaranth
from tb.stimulus import l1_tag_inputs, record
from tests.mutants import mutant

SMALL = dict(sets=4, ways=4, line_bits=12, threshold=3)


def table_log(n, seed, **kw):
    rng = np.random.default_rng(seed)

    def gen(_):
        return {"s1_lookup__valid": int(rng.random() < 0.9), "s1_lookup__idx": int(rng.integers(0, 8)),
                "s1_inc__en": int(rng.random() < 0.6), "s1_inc__idx": int(rng.integers(0, 8)),
                "s1_dec__en": int(rng.random() < 0.4), "s1_dec__idx": int(rng.integers(0, 8))}

    return record(GoldenTable(**kw), n, gen)


def bits_log(n, seed, sets=8, ways=4):
    rng = np.random.default_rng(seed)

    def gen(_):
        return {"s1_req__valid": int(rng.random() < 0.8), "s1_req__set": int(rng.integers(0, sets)),
                "s1_req__way": int(rng.integers(0, ways)), "s1_req__bypass": int(rng.random() < 0.5),
                "s1_fill__valid": int(rng.random() < 0.2), "s1_fill__set": int(rng.integers(0, sets)),
                "s1_fill__way": int(rng.integers(0, ways))}

    return record(GoldenBits(sets=sets, ways=ways), n, gen)


def l1_log(n, seed, lines=24, pcs=4, **kw):
    params = {**SMALL, **kw}
    return record(GoldenL1(**params), n, l1_tag_inputs(np.random.default_rng(seed), lines=lines, pcs=pcs))


def rows_log(model, rows):
    """Log of ``model`` driven by the given input rows (dicts; missing inputs are 0)."""
    it = iter(rows)
    return record(model, len(rows), lambda _: next(it))


def req(line, pc=0x100, store=0):
    return {"s1_req__valid": 1, "s1_req__line": line, "s1_req__pc": pc, "s1_req__store": store}


L2 = {"l2_resp__valid": 1}


class TestSignatures:
    @pytest.mark.parametrize("sig, same, other, text, members", [
        (LookupRequest(entries=128), LookupRequest(entries=128), LookupRequest(entries=64),
         "LookupRequest(entries=128)", {"valid": Out(1), "idx": Out(7)}),
        (LookupResponse(width=4), LookupResponse(width=4), LookupResponse(width=3),
         "LookupResponse(width=4)", {"valid": Out(1), "count": Out(4), "bypass": Out(1)}),
        (CounterUpdate(entries=16), CounterUpdate(entries=16), LookupRequest(entries=16),
         "CounterUpdate(entries=16)", {"en": Out(1), "idx": Out(4)}),
        (BitRequest(sets=256, ways=16), BitRequest(sets=256, ways=16), LineFill(sets=256, ways=16),
         "BitRequest(sets=256, ways=16)",
         {"valid": Out(1), "set": Out(8), "way": Out(4), "bypass": Out(1)}),
        (LineFill(sets=8, ways=3), LineFill(sets=8, ways=3), LineFill(sets=8, ways=4),
         "LineFill(sets=8, ways=3)", {"valid": Out(1), "set": Out(3), "way": Out(2)}),
        (BitResponse(), BitResponse(), L2Response(), "BitResponse()", {"valid": Out(1), "bit": Out(1)}),
        (L1Request(line_bits=42), L1Request(line_bits=42), L1Request(line_bits=40),
         "L1Request(line_bits=42)",
         {"valid": Out(1), "line": Out(42), "pc": Out(32), "store": Out(1), "ready": In(1)}),
        (L1Lookup(ways=8), L1Lookup(ways=8), L1Fill(ways=8), "L1Lookup(ways=8)",
         {"valid": Out(1), "hit": Out(1), "way": Out(3), "predict": Out(1)}),
        (L1Fill(ways=8), L1Fill(ways=8), L1Fill(ways=4), "L1Fill(ways=8)",
         {"valid": Out(1), "install": Out(1), "way": Out(3)}),
        (L2Response(), L2Response(), BitResponse(), "L2Response()", {"valid": Out(1), "bit": Out(1)}),
    ])
    def test_init(self, sig, same, other, text, members):
        assert sig == same and sig != other
        assert repr(sig) == text
        assert dict(sig.members) == members

    def test_properties(self):
        assert LookupRequest(entries=64).entries == 64
        assert LookupResponse(width=5).width == 5
        assert CounterUpdate(entries=32).entries == 32
        assert (BitRequest(sets=4, ways=2).sets, LineFill(sets=4, ways=2).ways) == (4, 2)
        assert L1Request(line_bits=30).line_bits == 30
        assert (L1Lookup(ways=4).ways, L1Fill(ways=2).ways) == (4, 2)

    @pytest.mark.parametrize("cls, kw, msg", [
        (LookupRequest, {"entries": 6}, "Entries must be a power of 2 of at least 2, not 6"),
        (CounterUpdate, {"entries": 1}, "Entries must be a power of 2 of at least 2, not 1"),
        (LookupResponse, {"width": 0}, "Counter width must be 1 to 8 bits, not 0"),
        (BitRequest, {"sets": 6, "ways": 2}, "Sets must be a positive power of 2, not 6"),
        (LineFill, {"sets": 4, "ways": 0}, "Ways must be positive, not 0"),
        (L1Request, {"line_bits": 63}, "Line address width must be 1 to 62 bits, not 63"),
        (L1Lookup, {"ways": 3}, "Ways must be a positive power of 2, not 3"),
        (L1Fill, {"ways": 0}, "Ways must be a positive power of 2, not 0"),
    ])
    def test_init_wrong(self, cls, kw, msg):
        with pytest.raises(ValueError, match=msg):
            cls(**kw)


class TestInit:
    def test_prediction_table(self):
        t = PredictionTable()
        assert (t.entries, t.width, t.threshold, t.init, t.index_bits) == (128, 4, 8, 0, 7)
        assert port_list(t) == ([("s1_lookup__valid", 1), ("s1_lookup__idx", 7), ("s1_inc__en", 1),
                                 ("s1_inc__idx", 7), ("s1_dec__en", 1), ("s1_dec__idx", 7)],
                                [("s2_lookup__valid", 1), ("s2_lookup__count", 4), ("s2_lookup__bypass", 1)])
        assert t.signature.members["s1_inc"] == In(CounterUpdate(entries=128))
        # the unit model declares the same flattened ports
        g = GoldenTable()
        assert port_list(t) == (list(g.inputs.items()), list(g.outputs.items()))

    def test_bypass_bits(self):
        b = BypassBits(sets=256, ways=16)
        assert (b.sets, b.ways, b.storage_bits) == (256, 16, 4096)  # tian15: 0.5 KB for 256 KB of 64 B lines
        g = GoldenBits(sets=256, ways=16)
        assert port_list(b) == (list(g.inputs.items()), list(g.outputs.items()))
        assert b.signature.members["s2_resp"] == Out(BitResponse())

    @pytest.mark.parametrize("replacement, repl_row", [
        ("plru", data.ArrayLayout(1, 7)), ("lru", data.ArrayLayout(3, 8))])
    def test_l1_tag_unit(self, replacement, repl_row):
        u = L1TagUnit(replacement=replacement)
        assert (u.sets, u.ways, u.replacement, u.index_bits, u.tag_bits) == (32, 8, replacement, 5, 37)
        assert u.tag_row == data.ArrayLayout(data.StructLayout({"valid": 1, "tag": 37}), 8)
        assert u.tag_row.size == 8 * 38 and u.hpc_row == data.ArrayLayout(7, 8)
        assert u.repl_row == repl_row
        bits = u.storage_bits
        assert bits["valid+tag"] == 256 * 38
        assert bits["hashed_pc"] == 256 * 7 and bits["prediction_table"] == 128 * 4  # 224 B + 64 B
        assert bits["replacement"] == (32 * 7 if replacement == "plru" else 256 * 3)
        g = GoldenL1(replacement=replacement)
        assert port_list(u) == ([(n, w) for n, w in g.inputs.items()], list(g.outputs.items()))
        assert [p.name for p in flat_ports(u) if not p.is_input][0] == "s1_req__ready"

    @pytest.mark.parametrize("cls, kw, msg", [
        (PredictionTable, {"entries": 100}, "Entries must be a power of 2 of at least 2, not 100"),
        (PredictionTable, {"width": 9}, "Counter width must be 1 to 8 bits, not 9"),
        (PredictionTable, {"threshold": 17}, "Threshold must be 0 to 16, not 17"),
        (PredictionTable, {"init": 16}, "Initial counter value must be 0 to 15, not 16"),
        (BypassBits, {"sets": 3, "ways": 2}, "Sets must be a positive power of 2, not 3"),
        (BypassBits, {"sets": 4, "ways": 0}, "Ways must be positive, not 0"),
        (L1TagUnit, {"sets": 12}, "Sets must be a positive power of 2, not 12"),
        (L1TagUnit, {"ways": 6}, "Ways must be a positive power of 2, not 6"),
        (L1TagUnit, {"replacement": "fifo"}, "Replacement must be one of lru, plru, not 'fifo'"),
        (L1TagUnit, {"line_bits": 5}, "Line address width must be more than the index bits and at most 62, "
                                      "not 5"),
        (L1TagUnit, {"hash_bits": 6}, "A 6-bit PC hash cannot index 128 entries"),
    ])
    def test_init_wrong(self, cls, kw, msg):
        with pytest.raises(ValueError, match=msg):
            cls(**kw)


class TestAmaranthSim:
    def test_table_saturation_and_threshold(self):
        # 18 increments then 18 decrements of one entry, looked up every cycle: saturates at 15 and 0.
        g = GoldenTable()
        rows = [{"s1_lookup__valid": 1, "s1_lookup__idx": 5, "s1_inc__en": 1, "s1_inc__idx": 5}] * 18
        rows += [{"s1_lookup__valid": 1, "s1_lookup__idx": 5, "s1_dec__en": 1, "s1_dec__idx": 5}] * 18
        log = rows_log(g, rows)
        expected = [0] + list(range(1, 16)) + [15, 15] + [15] + list(range(14, -1, -1)) + [0, 0]
        assert log["exp_s2_lookup__count"].tolist() == expected
        assert log["exp_s2_lookup__bypass"].tolist() == [int(c >= 8) for c in expected]
        assert replay_amaranth(PredictionTable(), log).ok

    def test_table_hazards(self):
        # Same cycle increment + decrement of entry 2 cancel; back-to-back updates of entry 2; a lookup
        # of entry 2 in the cycle of its update sees it (forwarded), the next cycle's not.
        rows = [{"s1_inc__en": 1, "s1_inc__idx": 2}] * 3
        rows += [{"s1_inc__en": 1, "s1_inc__idx": 2, "s1_dec__en": 1, "s1_dec__idx": 2,
                  "s1_lookup__valid": 1, "s1_lookup__idx": 2}]
        rows += [{"s1_dec__en": 1, "s1_dec__idx": 2, "s1_lookup__valid": 1, "s1_lookup__idx": 2}]
        rows += [{"s1_lookup__valid": 1, "s1_lookup__idx": 2}, {}]
        log = rows_log(GoldenTable(), rows)
        assert log["exp_s2_lookup__count"].tolist() == [0, 0, 0, 0, 3, 2, 2]
        assert replay_amaranth(PredictionTable(), log).ok

    def test_table_random(self):
        r = replay_amaranth(PredictionTable(), table_log(3000, 1))
        assert r.ok and r.rows == 3000

    def test_bypass_bits_hazards(self):
        # Back-to-back requests to line (1, 1): the second reads the bit the first set; a request
        # and a fill of one line in one cycle: the request reads the old bit, the fill's clear wins.
        b = {"s1_req__valid": 1, "s1_req__set": 1, "s1_req__way": 1, "s1_req__bypass": 1}
        rows = [b, b, b, {**b, "s1_fill__valid": 1, "s1_fill__set": 1, "s1_fill__way": 1}, b, {}]
        log = rows_log(GoldenBits(sets=4, ways=2), rows)
        assert log["exp_s2_resp__bit"].tolist() == [0, 0, 1, 0, 1, 0]
        assert log["exp_s2_resp__valid"].tolist() == [0, 1, 1, 1, 1, 1]
        assert replay_amaranth(BypassBits(sets=4, ways=2), log).ok

    def test_bypass_bits_random(self):
        r = replay_amaranth(BypassBits(sets=8, ways=4), bits_log(3000, 2))
        assert r.ok and r.rows == 3000

    @pytest.mark.parametrize("replacement", ["plru", "lru"])
    def test_l1_random(self, replacement):
        log = l1_log(3000, 3, replacement=replacement)
        # the stimulus reaches every path: hits, evictions of valid lines, bypasses, corrections, stalls
        assert log["exp_s2_lookup__hit"].sum() > 300
        fills = log["exp_fill__valid"] == 1
        assert (fills & (log["exp_fill__install"] == 0)).sum() >= 10  # bypassed
        assert (fills & (log["l2_resp__bit"] == 1) & (log["exp_fill__install"] == 1)).sum() >= 10
        held = (log["s1_req__valid"] == 1) & (log["exp_s1_req__ready"] == 0)
        assert held.sum() > 300  # requests presented while the unit is blocked
        ignored = (log["l2_resp__valid"] == 1) & (log["exp_fill__valid"] == 0)
        assert ignored.sum() > 300  # L2 responses while no miss waits
        r = replay_amaranth(L1TagUnit(**SMALL, replacement=replacement), log)
        assert r.ok and r.rows == 3000, r.mismatch

    def test_l1_load_miss_timing(self):
        # A load miss: lookup in the next cycle with ready 0, then the unit waits; the request
        # behind it stays presented and is taken in the cycle after the L2's response.
        g = GoldenL1(**SMALL)
        rows = [req(0), req(4), {**req(4), **L2}, req(4), {}, L2]
        log = rows_log(g, rows)
        assert log["exp_s1_req__ready"].tolist() == [1, 0, 0, 1, 0, 0]
        assert log["exp_s2_lookup__valid"].tolist() == [0, 1, 0, 0, 1, 0]
        assert log["exp_fill__valid"].tolist() == [0, 0, 1, 0, 0, 1]
        assert log["exp_fill__way"].tolist() == [0, 0, 0, 0, 0, 1]  # line 0 in way 0, line 4 in way 1
        assert replay_amaranth(L1TagUnit(**SMALL), log).ok

    def test_l1_back_to_back_same_set(self):
        # Lines 0, 4, 8, 12 fill set 0; then hits to 0, 4, 8 back to back (each in s1 while the previous
        # one writes the set's pseudo-LRU bits in s2), then a miss (line 16) right behind a hit: its
        # victim must come from the updated bits. Touching ways 0, 1, 2 points the root to the lower
        # half and its node to way 0: victim 0. The bits before the last touch would give way 2.
        g = GoldenL1(**SMALL, replacement="plru")
        rows = []
        for ln in (0, 4, 8, 12):
            rows += [req(ln), {}, L2]
        rows += [req(0), req(4), req(8), req(16), {}, L2, {}]
        log = rows_log(g, rows)
        hits = log["exp_s2_lookup__hit"].tolist()
        assert hits[13:16] == [1, 1, 1] and log["exp_s2_lookup__way"][13:16].tolist() == [0, 1, 2]
        assert log["exp_fill__way"][-2] == 0
        assert replay_amaranth(L1TagUnit(**SMALL, replacement="plru"), log).ok

    @staticmethod
    def training_log():
        """Back-to-back hits to one line: the second must train the hashed PC the first just wrote.

        Line 1 (set 1) is loaded by PC A = 0x100 (hash 0x20). Set 0 is filled by A (lines 0-12) and
        its four lines are evicted by PC 0x110 (not predicted bypass): table[A] = 4. Then PC B =
        0x108 (hash 0x21) hits line 1 twice in a row: the first decrements table[A] to 3 and writes
        hpc = B; the second decrements table[B] (saturated at 0). A third hit, by A, predicts
        bypass: table[A] = 3 >= threshold. Reading a stale hpc (A) the second time would leave 2.
        """
        rows = [req(1), {}, L2]
        for ln in (0, 4, 8, 12):
            rows += [req(ln), {}, L2]
        for ln in (16, 20, 24, 28):
            rows += [req(ln, pc=0x110), {}, L2]
        rows += [req(1, pc=0x108), req(1, pc=0x108), req(1), {}]
        return rows_log(GoldenL1(**SMALL), rows)

    def test_l1_back_to_back_counter_training(self):
        log = self.training_log()
        assert log["exp_fill__way"][17:27:3].tolist() == [0, 2, 1, 3]  # pseudo-LRU victims in set 0
        assert log["exp_s2_lookup__hit"][-3:].tolist() == [1, 1, 1]
        assert log["exp_s2_lookup__predict"][-3:].tolist() == [0, 0, 1]  # B: 0, B: 0, then A: 3
        assert replay_amaranth(L1TagUnit(**SMALL), log).ok

    def test_l1_eviction_with_every_way_valid(self):
        # Five loads to set 0 of a 4-way set: the fifth evicts the pseudo-LRU way (way 0).
        g = GoldenL1(**SMALL, replacement="plru")
        rows = []
        for ln in (0, 4, 8, 12, 16):
            rows += [req(ln), {}, L2]
        log = rows_log(g, rows)
        assert log["exp_fill__way"][2::3].tolist() == [0, 1, 2, 3, 0]  # the fifth replaces way 0
        assert replay_amaranth(L1TagUnit(**SMALL, replacement="plru"), log).ok

    def test_l1_bypass_bit_correction(self):
        # PC 0x100 streams until it predicts bypass; a returned bypassBit of 1 then installs.
        g = GoldenL1(**SMALL, replacement="lru")
        rows = []
        for ln in range(0, 64, 4):  # all in set 0: evictions train 0x100 up to the threshold
            rows += [req(ln), {}, L2]
        rows += [req(100), {}, {**L2, "l2_resp__bit": 1}]
        log = rows_log(g, rows)
        assert log["exp_s2_lookup__predict"][-2] == 1 and log["exp_fill__install"][-1] == 1
        assert 0 in log["exp_fill__install"][2::3].tolist()  # some earlier miss was bypassed
        assert replay_amaranth(L1TagUnit(**SMALL, replacement="lru"), log).ok


class TestMutants:
    """A unit with one injected bug must make each replayer report a mismatch."""

    def mutant_table_threshold(self):
        mod = mutant("rtl.predictor.prediction_table", "(count >= self._threshold)",
                     "(count > self._threshold)")
        return mod.PredictionTable()

    def mutant_table_no_forwarding(self):
        mod = mutant("rtl.predictor.prediction_table",
                     "Mux(dec_wr.en & (dec_wr.addr == s2_idx), dec_wr.data, lookup.data)", "lookup.data")
        return mod.PredictionTable()

    def mutant_bits_opaque(self):
        mod = mutant("rtl.bypass.bypass_bits", "bits.read_port(transparent_for=(wr, clr))",
                     "bits.read_port()")
        return mod.BypassBits(sets=8, ways=4)

    def mutant_l1_no_correction(self):
        mod = mutant("rtl.predictor.l1_tag_unit", "install = resolve & (~w_predict | self.l2_resp.bit)",
                     "install = resolve & ~w_predict")
        return mod.L1TagUnit(**SMALL)

    def mutant_l1_opaque_hpc(self):
        mod = mutant("rtl.predictor.l1_tag_unit", "hpcs.read_port(transparent_for=(hpcs_wr,))",
                     "hpcs.read_port()")
        return mod.L1TagUnit(**SMALL)

    def mutant_l1_opaque_repl(self):
        mod = mutant("rtl.predictor.l1_tag_unit", "repl.read_port(transparent_for=(repl_wr,))",
                     "repl.read_port()")
        return mod.L1TagUnit(**SMALL)

    def test_amaranth(self):
        r = replay_amaranth(self.mutant_table_threshold(), table_log(2000, 1))
        assert not r.ok and "s2_lookup__bypass" in str(r.mismatch)
        r = replay_amaranth(self.mutant_table_no_forwarding(), table_log(2000, 1))
        assert not r.ok and "s2_lookup__count" in str(r.mismatch)
        r = replay_amaranth(self.mutant_bits_opaque(), bits_log(2000, 2))
        assert not r.ok and "s2_resp__bit" in str(r.mismatch)
        r = replay_amaranth(self.mutant_l1_no_correction(), l1_log(2000, 3))
        assert not r.ok and "fill__install" in str(r.mismatch)
        r = replay_amaranth(self.mutant_l1_opaque_repl(), l1_log(2000, 3))
        assert not r.ok and "fill__way" in str(r.mismatch)
        r = replay_amaranth(self.mutant_l1_opaque_hpc(), TestAmaranthSim.training_log())
        assert not r.ok and r.mismatch.cycle == 30  # the third hit's prediction
        assert "s2_lookup__predict" in str(r.mismatch)

    def test_icarus(self, tmp_path):
        from tb.cocotb_replay import replay_cocotb

        r = replay_cocotb(self.mutant_l1_no_correction(), l1_log(2000, 3), tmp_path / "a")
        assert not r.ok and "fill__install" in str(r.mismatch)
        r = replay_cocotb(self.mutant_table_no_forwarding(), table_log(2000, 1), tmp_path / "b")
        assert not r.ok and "s2_lookup__count" in str(r.mismatch)

    def test_verilator(self, tmp_path):
        from tb.verilator import replay_verilator

        r = replay_verilator(self.mutant_table_threshold(), table_log(2000, 1), tmp_path)
        assert not r.ok and "s2_lookup__bypass" in str(r.mismatch)
        r = replay_verilator(self.mutant_bits_opaque(), bits_log(2000, 2), tmp_path)
        assert not r.ok and "s2_resp__bit" in str(r.mismatch)
        r = replay_verilator(self.mutant_l1_opaque_repl(), l1_log(2000, 3), tmp_path)
        assert not r.ok and "fill__way" in str(r.mismatch)


def test_cocotb_icarus(tmp_path):
    """The cocotb testbench (driver, monitor, in-order scoreboard) passes on the unmodified units."""
    from tb.cocotb_replay import replay_cocotb

    r = replay_cocotb(L1TagUnit(**SMALL), l1_log(2000, 4), tmp_path / "l1")
    assert r.ok and r.rows == 2000, r.mismatch
    r = replay_cocotb(PredictionTable(), table_log(1000, 5), tmp_path / "table")
    assert r.ok and r.rows == 1000, r.mismatch
    r = replay_cocotb(BypassBits(sets=8, ways=4), bits_log(1000, 6), tmp_path / "bits")
    assert r.ok and r.rows == 1000, r.mismatch


def test_verilator_short(tmp_path):
    from tb.verilator import replay_verilator

    for replacement in ("plru", "lru"):
        log = record(GoldenL1(replacement=replacement), 50_000,
                     l1_tag_inputs(np.random.default_rng(9), lines=600, pcs=40))
        r = replay_verilator(L1TagUnit(replacement=replacement), log, tmp_path)
        assert r.ok and r.rows == 50_000, r.mismatch
    r = replay_verilator(PredictionTable(), table_log(20_000, 7), tmp_path)
    assert r.ok and r.rows == 20_000, r.mismatch
    r = replay_verilator(BypassBits(sets=8, ways=4), bits_log(20_000, 8), tmp_path)
    assert r.ok and r.rows == 20_000, r.mismatch
