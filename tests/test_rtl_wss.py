"""drp16's WSS cache RTL against its golden unit model, cycle by cycle (Amaranth simulator)."""

import numpy as np
import pytest
from amaranth.lib import data
from amaranth.lib.wiring import In, Out

from golden.cache.replacement import seed_states
from golden.llc.streams import COLOR, DYNTEX, SHADER, TEXTURE
from golden.units.wss import Wss as GoldenWss
from rtl.wss import Wss, WssAccess, WssResponse
from rtl.wss.wss import entry_layout
from synth.verilog import port_list
from tb.amaranth_sim import replay_amaranth
from tb.stimulus import record, wss_inputs
from tests.mutants import mutant

SMALL = dict(sets=4, ways=4, min_entries=3, epoch=48)


def rtl(module=None, seed=0, **kw):
    """The RTL (or a mutant module's) for golden parameters ``kw``."""
    params = {**SMALL, **kw}
    cls = module.Wss if module is not None else Wss
    return cls(rng_init=int(seed_states(seed, 1)[0]), **params)


def random_log(n, seed, pages=14, **kw):
    params = {**SMALL, **kw}
    return record(GoldenWss(seed=seed, **params), n, wss_inputs(np.random.default_rng(seed), pages=pages))


def acc(line, stream, write=0):
    return {"s1_acc__valid": 1, "s1_acc__line": line, "s1_acc__stream": stream, "s1_acc__write": write}


def directed_log(rows, **kw):
    """Log of the golden unit driven by ``rows`` (dicts; an access is re-presented until taken)."""
    g = GoldenWss(**{**SMALL, **kw})
    todo = list(rows)

    def gen(unit):
        if unit.taken and todo:
            todo.pop(0)
        return todo[0] if todo else {}

    g.taken = True
    todo.insert(0, {})
    return record(g, len(rows) + 80, gen)


def page(p, block=0):
    return p * 64 + block


REUSE_ROWS = [acc(page(1, 8), COLOR, 1),     # alloc way 0; block 1 V W colour; WA[colour] 1
              acc(page(1, 8), DYNTEX, 0),    # WR[colour] 1 (reuse 1); dt_blocks 1
              acc(page(1, 8), DYNTEX, 0),    # RR[dyntex] 1 (reuse 2); dt_reused 1
              acc(page(1, 16), TEXTURE, 0),  # block 2 valid (texture)
              acc(page(1, 16), TEXTURE, 0),  # RR[texture] 1
              acc(page(1, 16), TEXTURE, 0),  # RR[texture] 2 = MAX_REUSE
              acc(page(1, 9), COLOR, 0),     # untracked
              acc(page(1, 16), COLOR, 1)]    # WA[colour] 2, shows WA before: 1


class TestSignatures:
    def test_members(self):
        assert WssAccess() == WssAccess() and repr(WssAccess()) == "WssAccess()"
        assert dict(WssAccess().members) == {"valid": Out(1), "line": Out(42), "stream": Out(4),
                                             "write": Out(1), "ready": In(1)}
        r = WssResponse(ways=16, held_bits=12, counter_bits=20)
        assert r == WssResponse(ways=16, held_bits=12, counter_bits=20) != WssResponse(ways=8, held_bits=12,
                                                                                        counter_bits=20)
        assert repr(r) == "WssResponse(ways=16, held_bits=12, counter_bits=20)" and r.ways == 16
        assert r.members["way"] == Out(4) and r.members["max_reuse"] == Out(20)

    def test_paper_geometry(self):
        u = Wss()
        assert (u.sets, u.ways, u.tag_bits, u.held_bits) == (128, 16, 29, 12)
        # drp16 Section 5.6: 86-bit entries (valid, 29-bit tag, 8 x 7 state bits), 2K of them.
        assert entry_layout(29).size == 86 and u.row == data.ArrayLayout(entry_layout(29), 16)
        assert u.storage_bits["entries"] == 2048 * 86
        g = GoldenWss()
        assert port_list(u) == (list(g.inputs.items()), list(g.outputs.items()))

    @pytest.mark.parametrize("kw, msg", [
        ({"sets": 100}, "sets: must be a power of 2 up to 8192, not 100"),
        ({"ways": 3}, "ways: must be a power of 2 up to 64, not 3"),
        ({"min_entries": -1}, "min_entries: must be an integer from 0 to 2048, not -1"),
        ({"epoch": 0}, "epoch: must be an integer from 1 to 1099511627776, not 0"),
        ({"rng_init": 0}, "rng_init: must be an integer from 1 to"),
    ])
    def test_wrong(self, kw, msg):
        with pytest.raises(ValueError, match=msg):
            Wss(**kw)
        if "rng_init" not in kw:
            with pytest.raises(ValueError, match=msg):
                GoldenWss(**kw)


class TestDirected:
    def test_reuses_counters_and_back_to_back_hazards(self):
        # One page (set 1 of 4), back to back: every access reads the row the previous one writes.
        log = directed_log(REUSE_ROWS)
        resp = log[log["exp_s2_resp__valid"] == 1]
        assert resp["exp_s2_resp__alloc"].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
        assert resp["exp_s2_resp__hit"].tolist() == [0, 1, 1, 1, 1, 1, 1, 1]
        assert resp["exp_s2_resp__reuse"].tolist() == [0, 1, 2, 0, 2, 2, 0, 0]
        assert resp["exp_s2_resp__max_reuse"].tolist() == [0, 0, 1, 1, 1, 1, 2, 2]
        assert resp["exp_s2_resp__wa"][-1] == 1 and resp["exp_s2_resp__dt_reused"][-1] == 1
        assert (log["exp_s1_acc__ready"] == 1).all()
        assert replay_amaranth(rtl(), log).ok

    def test_random_replacement_only_for_small_streams(self):
        # Set 0 filled by shader pages, then depth (holding none, fewer than 2) replaces at random,
        # and shader (holding 4) bypasses.
        rows = [acc(page(4 * t), SHADER) for t in range(4)]
        rows += [acc(page(4 * 4), SHADER), acc(page(4 * 5), COLOR, 1), acc(page(4 * 6), COLOR, 1),
                 acc(page(4 * 7), COLOR, 1), acc(page(4 * 5), COLOR, 0)]
        ways = set()
        for seed in (0, 5, 9):
            log = directed_log(rows, min_entries=2, seed=seed)
            resp = log[log["exp_s2_resp__valid"] == 1]
            assert resp["exp_s2_resp__alloc"].tolist()[:5] == [1, 1, 1, 1, 0]
            assert resp["exp_s2_resp__held"].tolist()[:6] == [0, 1, 2, 3, 4, 0]
            assert resp["exp_s2_resp__alloc"][5] == 1  # colour replaced a random way
            ways.add(int(resp["exp_s2_resp__way"][5]))
            # The RTL's generator, reset to the seed's state, picks the same ways.
            assert replay_amaranth(rtl(min_entries=2, seed=seed), log).ok
        assert len(ways) > 1

    def test_epoch_invalidates_halves_and_stalls(self):
        rows = [acc(page(2, 0), COLOR, 1)] + [acc(page(2, 0), TEXTURE, 0) for _ in range(5)]
        rows += [acc(page(2, 0), TEXTURE, 0)]  # after the epoch: only re-validates
        log = directed_log(rows, epoch=5)
        resp = log[log["exp_s2_resp__valid"] == 1]
        assert resp["exp_s2_resp__epoch"].tolist() == [0, 0, 0, 0, 0, 1, 0]
        assert resp["exp_s2_resp__reuse"].tolist() == [0, 1, 2, 2, 2, 2, 0]
        # RR[texture] reached 4 in the ending read, halved to 2; shown before the access.
        assert resp["exp_s2_resp__rr"].tolist() == [0, 0, 0, 1, 2, 3, 2]
        end = int(np.flatnonzero(log["exp_s2_resp__epoch"])[0])
        assert log["exp_s1_acc__ready"][end:end + 1 + 4].tolist() == [0] * 5
        assert log["exp_s1_acc__ready"][end + 5] == 1
        assert replay_amaranth(rtl(epoch=5), log).ok


class TestRandom:
    @pytest.mark.parametrize("seed, kw", [(1, {}), (2, {"sets": 2, "ways": 2, "min_entries": 1}),
                                          (3, {"counter_bits": 2, "epoch": 300})])
    def test_random(self, seed, kw):
        log = random_log(1000, seed, **kw)
        resp = log[log["exp_s2_resp__valid"] == 1]
        # The stimulus reaches every rule: reuses of both kinds, random replacements, epochs.
        assert (np.bincount(resp["exp_s2_resp__reuse"], minlength=3) > 0).all()
        assert resp["exp_s2_resp__epoch"].sum() >= 1 and resp["exp_s2_resp__alloc"].sum() > 0
        r = replay_amaranth(rtl(seed=seed, **kw), log)
        assert r.ok and r.rows == len(log), r.mismatch

    @pytest.mark.slow
    def test_random_long(self):
        log = random_log(20000, 7, pages=40, sets=8, ways=4, min_entries=5, epoch=900)
        r = replay_amaranth(rtl(seed=7, sets=8, ways=4, min_entries=5, epoch=900), log)
        assert r.ok, r.mismatch


class TestMutants:
    """A deliberately broken RTL must fail against the golden log."""

    @pytest.mark.parametrize("old, new, stimulus", [
        # RR credited to the accessing stream instead of the block's previous reader.
        ("rr_ev & (b.sid == i)", "rr_ev & (s2_stream == i)", "random"),
        # The row read not transparent: back-to-back accesses to a set see stale entries.
        ("entries.read_port(transparent_for=(wr,))", "entries.read_port()", "directed"),
        # Random replacement whatever the stream's entry count.
        ("can_replace = held[s2_stream] < self._min_entries", "can_replace = Const(1)", "random"),
        # The invalidation skips the last row.
        ("with m.If(frow == sets - 1):", "with m.If(frow == sets - 2):", "random"),
        # The dynamic-texture reuse bit set on a block's first dynamic-texture read.
        ("new_b.r.eq(read & b.v & Mux(dyn, b.sid == DYNTEX, b.r))", "new_b.r.eq(read & b.v & dyn)",
         "directed"),
    ])
    def test_mutant_fails(self, old, new, stimulus):
        kw = {"sets": 2, "ways": 2, "min_entries": 1}
        log = random_log(1000, 2, **kw) if stimulus == "random" else directed_log(REUSE_ROWS, **kw)
        r = replay_amaranth(rtl(mutant("rtl.wss.wss", old, new), seed=2 if stimulus == "random" else 0, **kw),
                            log)
        assert not r.ok
