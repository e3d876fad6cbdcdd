"""ciao18's RTL units (rtl/ciao/) against their golden unit models, cycle by cycle.

Amaranth simulator: directed and seeded random logs, and one deliberately
broken copy of each unit (``tests.mutants``) that must mismatch. Slow:
a long random log per unit through the Verilator harness and one unit
through cocotb on Icarus.
"""

from fractions import Fraction

import numpy as np
import pytest

from golden.units import ciao_interference, ciao_irs, ciao_pair_list, ciao_smem, ciao_vta
from rtl import ciao
from synth.verilog import port_list
from tb import stimulus_ciao18 as stim
from tb.amaranth_sim import replay_amaranth
from tb.stimulus import record
from tests.mutants import mutant
from tests.test_units_ciao18 import cmd, drive, ins, probe

#: Small IRS: 4 warps, 6-bit counters (saturate), cut-offs whose boundary is often met exactly.
IRS_SMALL = dict(warps=4, counter_bits=6, high_cutoff=Fraction(2, 5), low_cutoff=Fraction(1, 5),
                 high_epoch=23, low_epoch=7)
#: Thread instructions (up to 2 x 32 a cycle), epochs near that, small counters.
IRS_THREADS = dict(warps=4, counter_bits=10, high_cutoff=Fraction(1, 32), low_cutoff=Fraction(1, 64),
                   high_epoch=200, low_epoch=64, lanes=32)


def _irs_golden(**kw):
    return ciao_irs.IrsUnit(**{k: (float(v) if isinstance(v, Fraction) else v) for k, v in kw.items()})


#: name -> (golden model, RTL class, stimulus for a seed) per configuration.
UNITS = {
    "vta": (lambda **kw: ciao_vta.Vta(**kw), "vta", "Vta",
            lambda rng, kw: stim.vta_inputs(rng, sets=min(4, kw.get("warps", 48)), lines=12)),
    "interference": (lambda **kw: ciao_interference.InterferenceList(**kw), "interference",
                     "InterferenceList",
                     lambda rng, kw: stim.interference_inputs(rng, warps=4)),
    "pair_list": (lambda **kw: ciao_pair_list.PairList(**kw), "pair_list", "PairList",
                  lambda rng, kw: stim.pair_list_inputs(rng, warps=4)),
    "irs": (_irs_golden, "irs", "IrsUnit",
            lambda rng, kw: stim.irs_inputs(rng, warps=min(4, kw.get("warps", 48)), max_active=8)),
    "smem": (lambda **kw: ciao_smem.SmemTranslate(**kw), "smem", "SmemTranslate",
             lambda rng, kw: stim.smem_inputs(rng, mshr_entries=kw.get("mshr_entries", 32))),
}

CONFIGS = [("vta", {}), ("vta", {"warps": 4, "ways": 2, "line_bits": 5}),
           ("interference", {}), ("interference", {"entries": 4, "counter_bits": 3}),
           ("pair_list", {}), ("pair_list", {"entries": 4}),
           ("irs", {}), ("irs", IRS_SMALL), ("irs", IRS_THREADS),
           ("smem", {}), ("smem", {"mshr_entries": 4}), ("smem", {"index": "xor"})]


def rtl(name, module=None, **kw):
    _, mod, cls, _ = UNITS[name]
    module = module or getattr(ciao, mod)
    return getattr(module, cls)(**kw)


def random_log(name, n, seed, **kw):
    golden, _, _, gen = UNITS[name]
    return record(golden(**kw), n, gen(np.random.default_rng(seed), kw))


@pytest.mark.parametrize("name, kw", CONFIGS)
def test_ports_equal_the_unit_models(name, kw):
    g = UNITS[name][0](**kw)
    assert port_list(rtl(name, **kw)) == (list(g.inputs.items()), list(g.outputs.items()))


@pytest.mark.parametrize("name, kw", CONFIGS)
def test_random(name, kw):
    log = random_log(name, 800, 11, **kw)
    r = replay_amaranth(rtl(name, **kw), log)
    assert r.ok and r.rows == len(log), r.mismatch


@pytest.mark.parametrize("name, kw, msg", [
    ("vta", {"ways": 3}, "ways: must be a power of 2 from 1 to 64, not 3"),
    ("interference", {"entries": 65}, "entries: must be an integer from 1 to 64, not 65"),
    ("pair_list", {"entries": 0}, "entries: must be an integer from 1 to 64, not 0"),
    ("irs", {"low_epoch": 0}, "low_epoch: must be an integer from 2 to 16777216, not 0"),
    ("irs", {"high_cutoff": Fraction(0)}, "high_cutoff: must be a Fraction in \\(0, 1\\], not"),
    ("smem", {"mshr_entries": 3}, "mshr_entries: must be a power of 2 from 1 to 1024, not 3"),
    ("smem", {"index": "prime"}, "index: must be 'mod' or 'xor', not 'prime'"),
])
def test_wrong_parameters(name, kw, msg):
    with pytest.raises(ValueError, match=msg):
        rtl(name, **kw)


# ---- Directed logs (the golden models' own directed checks are in test_units_ciao18.py).

VTA_CLASH = [ins(0, 7, 1), ins(0, 8, 2), probe(0, 7), ins(0, 9, 3), probe(0, 9), probe(0, 8)]
VTA_SAME_CYCLE = [ins(1, 7, 1) | probe(1, 7), ins(1, 8, 1), probe(1, 7), probe(1, 8)]
#: A kernel start empties the sets and resets the FIFO pointers (also over its own cycle's insertion).
VTA_KERNEL = [ins(0, 7, 1), ins(0, 8, 2), {"kernel_start": 1}, probe(0, 7), ins(0, 9, 3), probe(0, 9),
              ins(1, 5, 2) | {"kernel_start": 1}, probe(1, 5)]
IL_CHAIN = [{"s1_upd__valid": 1, "s1_upd__wid": 2, "s1_upd__by": b} for b in [5] * 4 + [6] * 6 + [2]]
IL_CHAIN += [{"s1_look__valid": 1, "s1_look__wid": 2}]
#: A kernel start puts entries back to (i, 0), also over the write of the update in stage 2.
IL_KERNEL = [{"s1_upd__valid": 1, "s1_upd__wid": 2, "s1_upd__by": 5}] * 3 + [
    {"s1_look__valid": 1, "s1_look__wid": 2}, {"kernel_start": 1}, {"s1_look__valid": 1, "s1_look__wid": 2},
    {"s1_upd__valid": 1, "s1_upd__wid": 2, "s1_upd__by": 5}, {"s1_look__valid": 1, "s1_look__wid": 2},
    {"s1_upd__valid": 1, "s1_upd__wid": 3, "s1_upd__by": 4}, {"kernel_start": 1},
    {"s1_look__valid": 1, "s1_look__wid": 3}]
PAIRS = [cmd(1, 1, 0), cmd(1, 1, 3), cmd(0, 1), cmd(2, 1), cmd(2, 1), cmd(2, 1), cmd(1, 7, 9), cmd(2, 7),
         cmd(3, 7, 5), cmd(3, 2, 4), cmd(2, 7)]


def irs_boundary():
    """The paper's cut-offs at their boundary: 1,000 instructions, 10 active warps, 1 then 2 hits of warp 3
    (IRS 0.01, then 0.02), so ``over_high`` is exactly the comparison's strictness."""
    rows = [{"inst": 2}] * 500 + [{"hit__valid": 1, "hit__wid": 3}]
    q = {"s1_q__valid": 1, "s1_q__wid": 3, "active": 10}
    return rows + [q, {"hit__valid": 1, "hit__wid": 3}, q]


DIRECTED = [("vta", {"warps": 2, "ways": 2}, VTA_CLASH), ("vta", {}, VTA_SAME_CYCLE),
            ("vta", {"warps": 2, "ways": 2}, VTA_KERNEL), ("interference", {}, IL_CHAIN),
            ("interference", {}, IL_KERNEL), ("pair_list", {}, PAIRS), ("irs", {}, irs_boundary())]


@pytest.mark.parametrize("name, kw, rows", DIRECTED, ids=[f"{d[0]}-{i}" for i, d in enumerate(DIRECTED)])
def test_directed(name, kw, rows):
    log = drive(UNITS[name][0](**kw), rows)
    r = replay_amaranth(rtl(name, **kw), log)
    assert r.ok and r.rows == len(log), r.mismatch


def test_directed_logs_reach_their_cases():
    log = drive(ciao_vta.Vta(warps=2, ways=2), VTA_CLASH)
    assert log["exp_s2_probe__hit"].tolist()[3:7] == [1, 0, 1, 1]  # the clash's insertion survived
    log = drive(ciao_irs.IrsUnit(), irs_boundary())
    answers = log[log["exp_s2_q__valid"] == 1]
    assert answers["exp_s2_q__over_high"].tolist() == [0, 1]
    assert answers["exp_s2_q__over_low"].tolist() == [1, 1]
    log = drive(ciao_interference.InterferenceList(), IL_CHAIN)
    # (5, 0) -> (5, 3) -> 6 decrements thrice -> replaced (6, 0) -> (6, 2) -> by 2: (6, 1), the answer.
    (answer,) = log[log["exp_s2_look__valid"] == 1]
    assert (answer["exp_s2_look__by"], answer["exp_s2_look__count"]) == (6, 1)
    log = drive(ciao_vta.Vta(warps=2, ways=2), VTA_KERNEL)
    answers = log[log["exp_s2_probe__valid"] == 1]
    assert answers["exp_s2_probe__hit"].tolist() == [0, 1, 0] and answers["exp_s2_probe__way"][1] == 0
    log = drive(ciao_interference.InterferenceList(), IL_KERNEL)
    answers = log[log["exp_s2_look__valid"] == 1]
    assert [(int(a["exp_s2_look__by"]), int(a["exp_s2_look__count"])) for a in answers] == [
        (5, 2), (2, 0), (5, 0), (3, 0)]
    log = drive(ciao_pair_list.PairList(), PAIRS)
    answers = log[log["exp_s2_cmd__valid"] == 1]
    assert answers["exp_s2_cmd__act"].tolist()[-3:] == [2, 2, 3]  # op 3 stalls whatever I is


# ---- Broken units.

MUTANTS = [
    # VTA: the invalidation overwrites the same edge's insertion into the same entry.
    ("vta", "rtl.ciao.vta", "(valid[k] & ~clear) | put", "(valid[k] | put) & ~clear", "clash"),
    # VTA: the probe does not see the same cycle's insertion.
    ("vta", "rtl.ciao.vta", "rd = entries.read_port(transparent_for=(wr,))", "rd = entries.read_port()",
     "same_cycle"),
    # VTA: the highest matching way instead of the lowest.
    ("vta", "rtl.ciao.vta", "for w in reversed(range(ways)):", "for w in range(ways):", "random"),
    # Interference list: any different warp replaces the WID (not only at counter 00).
    ("interference", "rtl.ciao.interference", "Mux(same | (old.count != 0), old.by, s2_by)",
     "Mux(same, old.by, s2_by)", "random"),
    # Interference list: back-to-back updates of one entry read a stale entry.
    ("interference", "rtl.ciao.interference", "rd_upd = entries.read_port(transparent_for=(wr,))",
     "rd_upd = entries.read_port()", "chain"),
    # Pair list: a trigger stalls a warp that is active rather than one that is isolated.
    ("pair_list", "rtl.ciao.pair_list", "with m.If(ci | force):", "with m.If(cv | force):", "pairs"),
    # Pair list: op 3 decides as a trigger (isolates an active warp instead of stalling it).
    ("pair_list", "rtl.ciao.pair_list", "force = c.op == OP_STALL", "force = 0", "pairs"),
    # VTA: a kernel start leaves the valid bits.
    ("vta", "rtl.ciao.vta", "m.d.sync += [valid[k].eq(0), ptr[k].eq(0)]", "m.d.sync += ptr[k].eq(0)",
     "kernel"),
    # Interference list: a kernel start does not clear the valid bits.
    ("interference", "rtl.ciao.interference", "valid_next = Mux(self.kernel_start, 0, valid | written)",
     "valid_next = valid | written", "il_kernel"),
    # Pair list: a cleared field keeps the source WID instead of all ones.
    ("pair_list", "rtl.ciao.pair_list", "Const(CLEARED, WID_BITS)", "c.src", "random"),
    # IRS: IRS equal to the cut-off counts as over it.
    ("irs", "rtl.ciao.irs", "ha * c.denominator > self.inst * c.numerator",
     "ha * c.denominator >= self.inst * c.numerator",
     "boundary"),
    # IRS: an epoch ends one instruction late.
    ("irs", "rtl.ciao.irs", "end = s >= length", "end = s > length", "random"),
    # Translation: the tag in the data's own bank group.
    ("smem", "rtl.ciao.smem", "~g, (tag_off", "g, (tag_off", "random"),
    # Translation: the mask not applied.
    ("smem", "rtl.ciao.smem", "block[1:] & mask", "block[1:]", "random"),
    # Translation, XOR index: the block not XORed (the paper's index where the option asks for the hash).
    ("smem", "rtl.ciao.smem", "q.addr[7:16] ^ q.addr[15:24]", "q.addr[7:16]", "random_xor"),
    # Translation, XOR index: G left as it is (only R XORed, with address bits [23:16]).
    ("smem", "rtl.ciao.smem", "q.addr[7:16] ^ q.addr[15:24]", "Cat(q.addr[7], q.addr[8:16] ^ q.addr[16:24])",
     "random_xor"),
]


@pytest.mark.parametrize("name, module, old, new, stimulus", MUTANTS, ids=[f"{m[0]}-{i}" for i, m in
                                                                           enumerate(MUTANTS)])
def test_mutant_fails(name, module, old, new, stimulus):
    directed = {"clash": ({"warps": 2, "ways": 2}, VTA_CLASH), "same_cycle": ({}, VTA_SAME_CYCLE),
                "kernel": ({"warps": 2, "ways": 2}, VTA_KERNEL), "il_kernel": ({}, IL_KERNEL),
                "chain": ({}, IL_CHAIN), "pairs": ({}, PAIRS), "boundary": ({}, irs_boundary())}
    if stimulus.startswith("random"):
        kw = {"irs": IRS_SMALL, "vta": {"warps": 4, "ways": 4, "line_bits": 5}}.get(name, {})
        kw |= {"index": "xor"} if stimulus == "random_xor" else {}
        log = random_log(name, 800, 5, **kw)
    else:
        kw, rows = directed[stimulus]
        log = drive(UNITS[name][0](**kw), rows)
    assert replay_amaranth(rtl(name, **kw), log).ok  # the unbroken unit passes the same log
    assert not replay_amaranth(rtl(name, mutant(module, old, new), **kw), log).ok


# ---- Long logs through the generated Verilog.

LONG = 200_000


@pytest.mark.slow
@pytest.mark.parametrize("name, kw", [c for i, c in enumerate(CONFIGS) if i % 2 == 0] + [("irs", IRS_SMALL)])
def test_verilator_long_random(name, kw, tmp_path):
    from tb.verilator import replay_verilator

    log = random_log(name, LONG, 2026, **kw)
    r = replay_verilator(rtl(name, **kw), log, tmp_path)
    assert r.ok and r.rows == LONG, r.mismatch


@pytest.mark.slow
def test_verilator_reports_a_mutant(tmp_path):
    from tb.verilator import replay_verilator

    log = random_log("interference", 5000, 3)
    bad = rtl("interference", mutant("rtl.ciao.interference", "Mux(same | (old.count != 0), old.by, s2_by)",
                                     "Mux(same, old.by, s2_by)"))
    r = replay_verilator(bad, log, tmp_path)
    assert not r.ok and "s2_look__by" in str(r.mismatch)


@pytest.mark.slow
def test_cocotb_icarus(tmp_path):
    from tb.cocotb_replay import replay_cocotb

    r = replay_cocotb(rtl("interference"), random_log("interference", 3000, 4), tmp_path / "il")
    assert r.ok and r.rows == 3000, r.mismatch
    r = replay_cocotb(rtl("vta", warps=4, ways=2, line_bits=5),
                      random_log("vta", 3000, 4, warps=4, ways=2, line_bits=5), tmp_path / "vta")
    assert r.ok and r.rows == 3000, r.mismatch
    bad = rtl("pair_list", mutant("rtl.ciao.pair_list", "with m.If(ci | force):", "with m.If(cv | force):"))
    r = replay_cocotb(bad, drive(ciao_pair_list.PairList(), PAIRS), tmp_path / "bad")
    assert not r.ok and "s2_cmd__act" in str(r.mismatch)


# ---- The catalog (whole-workload co-simulation: tests/test_cosim_ciao18.py).

CATALOG = ["ciao_vta", "ciao_interference", "ciao_pair_list", "ciao_irs", "ciao_smem"]


@pytest.mark.parametrize("name", CATALOG)
def test_catalog_entries_record_with_ciao_c(name):
    from catalog import get_unit
    from catalog.registry import policy_for
    from golden.configs.presets import preset

    spec = get_unit(name)
    assert (spec.paper, spec.policy, spec.recorder) == ("ciao18", "ciao-c", name.removeprefix("ciao_"))
    gpu = preset("ciao18")
    p = policy_for(spec, gpu)
    g = spec.model(gpu, p)
    assert port_list(spec.rtl(gpu, p)) == (list(g.inputs.items()), list(g.outputs.items()))
    assert name in p.units() and spec.recorder in p.recorders


def test_synth_storage_equals_the_papers_bits(tmp_path):
    from golden.configs.presets import preset
    from synth.table import format_area_table, overhead_bits, synth_units

    reports = {r.unit: r for r in synth_units(CATALOG, preset("tian15"), tmp_path)}
    assert {u: overhead_bits(r) for u, r in reports.items()} == {
        "ciao_vta": None, "ciao_interference": 512, "ciao_pair_list": 768, "ciao_irs": None, "ciao_smem": 512}
    assert reports["ciao_vta"].storage_bits == {"entries": 48 * 8 * (41 + 6)}
    assert reports["ciao_vta"].flip_flops == 48 * 8 + 48 * 3 + 1 + 6 + 41  # valid bits, pointers, s2
    assert reports["ciao_irs"].flip_flops == 48 * 32 + 32 + 7 + 13 + 2 + 3
    assert "| ciao_vta | 18048 | — | — |" in format_area_table(list(reports.values()))
