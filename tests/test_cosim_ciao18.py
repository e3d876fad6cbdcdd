"""ciao18's five units co-simulated on transactions the CIAO policies record on the timing model.

Fast: a tiny thrashing workload (two kernels of 8 warps through a 4 KB L1,
``high_epoch`` 500 and half the cut-offs so that CIAO acts, thread instructions) recorded once
per policy (CIAO-C and CIAO-T) with ``catalog.ciao18.record_timed``; every unit's log is laid out
by its unit model's ``cycle_log``, replayed into the unit model itself and
into the RTL (Amaranth simulator), and a broken RTL unit or a transaction
the unit would not produce must make the replay report a mismatch. Slow: whole
ciao18 workloads at a small scale through ``gpucache cosim``'s path and Verilator.
"""

from __future__ import annotations

import numpy as np
import pytest

from catalog import get_unit
from catalog.ciao18 import record_timed
from catalog.registry import policy_for
from golden.configs.presets import preset
from golden.errors import InputError
from golden.trace.model import Workload
from golden.units.ciao_irs import TX_QUERY
from golden.units.ciao_pair_list import ACT_STALL
from tb.amaranth_sim import replay_amaranth
from tb.cosim import unit_log
from tests.mutants import mutant
from tests.test_cli import assert_user_error, run_main
from tests.test_policy_ciao18 import thrash
from tests.test_timing import gpu

UNITS = ["ciao_vta", "ciao_interference", "ciao_pair_list", "ciao_irs", "ciao_smem"]
#: The tiny workload's CIAO parameters: a short high epoch, and cut-offs under its warps' IRS in
#: thread instructions (about 1%), so that it stalls, redirects and releases.
TINY = dict(high_epoch=500, high_cutoff=0.005, low_cutoff=0.0025)


@pytest.fixture(scope="module")
def recorded():
    """``{policy: (gpu, policy, transactions, stats)}`` of the tiny workload."""
    g = gpu(l1=dict(size=4096, assoc=4), schedulers_per_sm=2)
    wl = Workload("thrash-2k", [thrash(), thrash()], {}, "tests")
    out = {}
    for name in ("ciao-c", "ciao-t"):
        p = policy_for(get_unit("ciao_vta"), g, name, log_sm=0, log_capacity=1 << 16, **TINY)
        tx, _ = record_timed(wl, g, p)
        out[name] = (g, p, tx, p.stats())
    return out


def test_recording_changes_no_decision(recorded):
    from golden.cache.hierarchy import Hierarchy
    from golden.gpu.model import TimingModel
    from golden.policies import get_policy

    g, _, _, st = recorded["ciao-c"]
    p = get_policy("ciao-c", **TINY)
    tm = TimingModel(g, Hierarchy(g, p))
    for i in range(2):
        tm.run_kernel(thrash(), i)
    assert p.stats() == st


def _log(recorded, policy, unit):
    g, p, tx, _ = recorded[policy]
    spec = get_unit(unit)
    return spec, g, p, unit_log(spec, spec.model(g, p), tx, "thrash-2k")


def test_the_logs_reach_every_kind_of_transaction(recorded):
    _, _, tx, st = recorded["ciao-c"]
    assert st["redirects"] > 0 and st["stalls"] > 0 and st["kernel_starts"] == 2
    assert set(tx["vta"]["kind"]) == {0, 1, 2} and tx["vta"]["hit"].sum() == st["vta_hits"]
    assert set(tx["interference"]["kind"]) == {0, 1, 2}
    assert {1, 2} <= set(tx["pair_list"]["op"]) and {1, 2, 3, 4} <= set(tx["pair_list"]["act"])
    assert set(tx["irs"]["kind"]) == {0, 1, 2, 3} and tx["irs"]["over_high"].any()
    sm = tx["smem"]
    req = sm["kind"] == 1
    assert (req & (sm["alloc"] == 1)).any() and (req & (sm["alloc"] == 0)).any()
    # Every MSHR entry the timing model took for a redirected miss is filled (the run drains).
    assert (sm["kind"] == 2).sum() == (req & (sm["alloc"] == 1)).sum() > 0
    assert len(set(sm["mshr"][sm["kind"] == 2])) > 1  # the timing model's entries, not one
    assert set(recorded["ciao-t"][2]["pair_list"]["op"]) == {2, 3}  # CIAO-T stalls, never isolates
    assert len(recorded["ciao-t"][2]["smem"]) == 2  # the two kernels' configurations, no request


@pytest.mark.parametrize("policy", ["ciao-c", "ciao-t"])
@pytest.mark.parametrize("unit", UNITS)
def test_unit_model_and_rtl_replay_the_log(recorded, policy, unit):
    spec, g, p, log = _log(recorded, policy, unit)
    model = spec.model(g, p)
    assert model.run(log).tolist() == log[list(model.log_dtype.names)].tolist()  # the unit model agrees
    r = replay_amaranth(spec.rtl(g, p), log)
    assert r.ok and r.rows == len(log), r.mismatch


def test_the_recorded_tests_count_the_unstalled_warps(recorded):
    # Each IRS test's N_active-warp (active_warps="unstalled", the default) is what the IRS unit is
    # fed: the first test of an epoch after the first stall counts the 7 unstalled of the 8 warps.
    # test_unit_model_and_rtl_replay_the_log replays these logs into the unit model and the RTL.
    _, p, tx, st = recorded["ciao-t"]
    assert p.active_warps == "unstalled" and st["stalls"] > 0
    q = tx["irs"][tx["irs"]["kind"] == TX_QUERY]
    pl = tx["pair_list"]
    first_stall = pl["access"][pl["act"] == ACT_STALL][0]
    assert q["active"][q["access"] > first_stall][0] == 7


@pytest.mark.parametrize("unit, module, old, new", [
    ("ciao_vta", "rtl.ciao.vta", "r.wid.eq(rd.data[way].wid", "r.wid.eq(rd.data[0].wid"),
    ("ciao_pair_list", "rtl.ciao.pair_list", "force = c.op == OP_STALL", "force = 0"),
    ("ciao_irs", "rtl.ciao.irs", "end = s >= length", "end = s > length"),
])
def test_a_broken_rtl_unit_mismatches(recorded, monkeypatch, unit, module, old, new):
    import catalog.ciao18

    spec, g, p, log = _log(recorded, "ciao-t" if unit == "ciao_pair_list" else "ciao-c", unit)
    cls = type(spec.rtl(g, p)).__name__
    monkeypatch.setattr(catalog.ciao18, cls, getattr(mutant(module, old, new), cls))
    assert not replay_amaranth(spec.rtl(g, p), log).ok


def test_a_transaction_the_unit_would_not_produce_mismatches(recorded):
    g, p, tx, _ = recorded["ciao-c"]
    spec = get_unit("ciao_interference")
    bad = tx["interference"].copy()
    k = np.flatnonzero(bad["kind"] == 1)[0]  # a lookup: the policy "read" another count
    bad["count"][k] ^= 1
    log = unit_log(spec, spec.model(g, p), {"interference": bad}, "thrash-2k")
    r = replay_amaranth(spec.rtl(g, p), log)
    assert not r.ok and "s2_look__count" in str(r.mismatch)


def test_an_epoch_the_unit_did_not_end_is_refused(recorded):
    g, p, tx, _ = recorded["ciao-c"]
    spec = get_unit("ciao_irs")
    bad = tx["irs"].copy()
    k = np.flatnonzero((bad["kind"] == 3) & (bad["low"] == 1))[1]
    bad["inst"][k] = bad["inst"][np.flatnonzero((bad["kind"] == 3) & (bad["low"] == 1))[0]]
    with pytest.raises(ValueError, match="acted on a low epoch"):
        spec.model(g, p).cycle_log(bad)


def test_a_translation_off_the_timing_models_block_is_refused(recorded):
    g, p, tx, _ = recorded["ciao-c"]
    bad = tx["smem"].copy()
    k = np.flatnonzero(bad["kind"] == 1)[0]
    bad["block"][k] += 1
    with pytest.raises(ValueError, match="the timing model used"):
        get_unit("ciao_smem").model(g, p).cycle_log(bad)


def strided_thrash(warps: int = 8, lines: int = 8, reps: int = 20):
    """:func:`thrash` with every line 256 lines (32 KB) from the next: all in one block of the
    paper's index (and one L1 set), spread by ``smem_cache_index = "xor"``."""
    from golden.trace.builder import KernelBuilder
    from tests.test_timing import LINE

    kb = KernelBuilder("strided", (1,), (32 * warps,))
    warp = kb.tid // 32
    for _ in range(reps):
        for i in range(lines):
            kb.load(0x100 + 16 * i, (warp * lines + i) * 256 * LINE)
            kb.compute(2)
    return kb.build()


def test_the_xor_index_replays_and_the_papers_index_refuses_its_log():
    # CIAO-C on the strided kernel with the shared-memory cache indexed by XOR: the blocks the timing
    # model used are the unit's under index "xor" (model and RTL replay the log), not under "mod".
    g = gpu(l1=dict(size=4096, assoc=4), schedulers_per_sm=2, smem_cache_index="xor")
    p = policy_for(get_unit("ciao_smem"), g, "ciao-c", log_sm=0, log_capacity=1 << 16, **TINY)
    tx, _ = record_timed(Workload("strided", [strided_thrash()], {}, "tests"), g, p)
    sm = tx["smem"]
    req = sm["kind"] == 1
    blocks = sm["blocks"][sm["kind"] == 0][0]
    assert req.sum() > 100 and (sm["block"][req] != sm["line"][req] % blocks).mean() > 0.5
    spec = get_unit("ciao_smem")
    log = unit_log(spec, spec.model(g, p), tx, "strided")
    r = replay_amaranth(spec.rtl(g, p), log)
    assert r.ok and r.rows == len(log), r.mismatch
    paper = gpu(l1=dict(size=4096, assoc=4), schedulers_per_sm=2)
    with pytest.raises(ValueError, match="the timing model used"):
        spec.model(paper, p).cycle_log(sm)


@pytest.mark.parametrize("change, message", [
    ("fill-entry", "does not follow one allocation"),
    ("fill-line", "fills line"),
    ("merge-line", "a merge into MSHR entry"),
])
def test_mshr_entries_that_do_not_pair_up_are_refused(recorded, change, message):
    # The log carries the timing model's MSHR entries: a fill must read the entry its miss took.
    g, p, tx, _ = recorded["ciao-c"]
    bad = tx["smem"].copy()
    fills = np.flatnonzero(bad["kind"] == 2)
    if change == "fill-entry":
        k = fills[0]
        bad["mshr"][k] = (bad["mshr"][k] + 1) % 32
    elif change == "fill-line":
        bad["line"][fills[0]] += 1
    else:  # a hit made a "merge" into an entry that holds another line
        a = np.flatnonzero((bad["kind"] == 1) & (bad["alloc"] == 1))[0]
        k = np.flatnonzero((bad["kind"] == 1) & (bad["mshr"] < 0) & (bad["line"] != bad["line"][a])
                           & (np.arange(len(bad)) > a))[0]
        bad["mshr"][k] = bad["mshr"][a]
    with pytest.raises(ValueError, match=message):
        get_unit("ciao_smem").model(g, p).cycle_log(bad)


def test_policy_that_does_not_record_the_unit(capsys):
    with pytest.raises(InputError, match="--policy ciao-t does not record unit ciao_smem"):
        policy_for(get_unit("ciao_smem"), preset("ciao18"), "ciao-t")
    status, out, err = run_main(capsys, "cosim", "--unit", "ciao_smem", "--workload", "ciao18/atax",
                                "--config", "ciao18", "--policy", "ciao-t")
    assert_user_error(status, out, err, "--policy ciao-t does not record unit ciao_smem")


# ---- A whole workload (small scale) through Verilator: one golden run, each unit's log replayed.

WHOLE = ("ciao18/atax", 0.25)


@pytest.fixture(scope="module", params=["front", "all"])
def whole(request):
    # CIAO-C as it runs (the front warp examined at each epoch), and examining every warp, which
    # stalls and redirects more often: SM 0's pair list sees 15 transactions on ATAX with the
    # first, more with the second.
    from golden.driver import CHUNK
    from golden.workloads import registry

    g = preset("ciao18")
    p = policy_for(get_unit("ciao_vta"), g, log_sm=0, log_capacity=2 * CHUNK, examine=request.param)
    tx, _ = record_timed(registry.build(*WHOLE, 0), g, p)
    return g, p, tx


@pytest.mark.slow
@pytest.mark.parametrize("unit", UNITS)
def test_whole_workload_verilator(whole, unit, tmp_path):
    from tb.verilator import replay_verilator

    g, p, tx = whole
    spec = get_unit(unit)
    log = unit_log(spec, spec.model(g, p), tx, WHOLE[0])
    r = replay_verilator(spec.rtl(g, p), log, tmp_path)
    assert r.ok and r.rows == len(log) > 10, r.mismatch
