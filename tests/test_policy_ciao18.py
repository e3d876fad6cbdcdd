"""ciao18's schedulers on the timing model: CIAO-T, CCWS, statPCAL and the Best-SWL profile.

The compiled VTA and interference-list rules are checked against the unit
models (``golden.units.ciao_*``) on a random recorded sequence; the
schedulers run on a tiny thrashing kernel (8 warps of 8 lines each through
a 32-line L1) against GTO.
"""

from __future__ import annotations

import json
from collections import namedtuple

import numpy as np
import pytest

from golden.cache.hierarchy import Hierarchy
from golden.cache.hooks import ACCESS_FIELDS, Access
from golden.experiments.ciao18 import best_point, profile_best_swl, run_point, swl_points
from golden.gpu.model import TimingModel
from golden.gpu.state import series_columns
from golden.policies import get_policy
from golden.policies.ciao18 import (
    S_INSERTS,
    S_REACTIVATIONS,
    S_STALLS,
    S_VTA_HITS,
    STAT_NAMES,
    _ccws_throttle,
    sched_on_evict,
    sched_on_fill,
    sched_on_hit,
    sched_on_miss,
)
from golden.policies.warp_block import BLOCK_LOADS
from golden.trace.builder import KernelBuilder
from golden.trace.model import Workload
from golden.units.ciao_interference import InterferenceList
from golden.units.ciao_irs import IrsUnit
from golden.units.ciao_vta import Vta
from tests.test_compare import gpucache
from tests.test_timing import LINE, gpu


def thrash(warps: int = 8, lines: int = 8, reps: int = 20):
    """Each warp loads its own ``lines`` lines ``reps`` times (2 compute instructions after each)."""
    kb = KernelBuilder("thrash", (1,), (32 * warps,))
    warp = kb.tid // 32
    for _ in range(reps):
        for i in range(lines):
            kb.load(0x100 + 16 * i, (warp * lines + i) * LINE)
            kb.compute(2)
    return kb.build()


@pytest.fixture(scope="module")
def runs():
    # The CIAO runs count warp instructions: in thread instructions no IRS test on this tiny kernel
    # passes the 1% cut-off (test_compare_ciao18's Fig. 11 test; test_thread_instructions_are_...
    # checks that unit).
    out = {}
    w = {"instructions": "warp"}
    for key, name, kw, g in (
            ("gto", "baseline", {}, {}), ("never", "ciao-t", {"high_cutoff": 1.0, **w}, {}),
            ("ciao-t", "ciao-t", {"high_epoch": 500, **w}, {}), ("ccws", "ccws", {}, {}),
            ("ciao-p", "ciao-p", {"high_epoch": 500, **w}, {}),
            ("ciao-c", "ciao-c", {"high_epoch": 500, **w}, {}),
            ("ciao-p-no-smem", "ciao-p", {"high_epoch": 500, **w}, {"shared_mem_bytes": 0}),
            ("pcal", "statpcal", {"tokens": 2, "window": 200}, {}),
            ("pcal-busy", "statpcal", {"tokens": 2, "window": 200}, {"dram_bus_bytes": 1})):
        g = gpu(l1=dict(size=4096, assoc=4), **g)
        pol = get_policy(name, **kw)
        if name == "statpcal":
            pol.attach_gpu(g)
        r = TimingModel(g, Hierarchy(g, pol)).run_kernel(thrash(), 0)
        out[key] = (r, pol.stats())
    return out


def test_ciao_t_that_never_triggers_is_gto(runs):
    gto, (never, st) = runs["gto"][0], runs["never"]
    assert never.cycles == gto.cycles and never.counters == gto.counters
    assert st["vta_hits"] > 1000 and st["stalls"] == 0  # the VTA sees the thrashing


def test_the_time_series_counts_active_warps_and_vta_hits(runs):
    # Figs. 9 and 10's panels: under GTO every resident warp is active and nothing counts VTA hits;
    # CIAO-T's stalls and CCWS's throttling take warps out of the active ones, and CIAO-T's VTA hits
    # accumulate up to its total.
    cols = series_columns()
    act, res, vta = (cols.index(c) for c in ("active_warps", "resident_warps", "vta_hits"))
    gto = runs["gto"][0].series
    assert len(gto) > 3 and gto[:, res].max() == 8
    assert (gto[:, act] == gto[:, res]).all() and not gto[:, vta].any()
    r, st = runs["ciao-t"]
    s = r.series
    assert (s[:, act] <= s[:, res]).all() and (s[:, act] < s[:, res]).any()
    assert (np.diff(s[:, vta]) >= 0).all() and 0 < s[-1, vta] <= st["vta_hits"]
    c = runs["ccws"][0].series  # CCWS's throttled warps may issue, but no global load: not active
    assert (c[:, act] < c[:, res]).any() and c[-1, vta] > 0
    g = gpu(l1=dict(size=4096, assoc=4), warp_limit=3)
    lim = TimingModel(g, Hierarchy(g, get_policy("baseline"))).run_kernel(thrash(), 0).series
    assert lim[:, act].max() == 3 and (lim[:, act] == np.minimum(lim[:, res], 3)).all()


def test_ciao_t_throttles_and_reactivates(runs):
    gto, (r, st) = runs["gto"][0], runs["ciao-t"]
    assert st["stalls"] > 0 and st["reactivations"] == st["stalls"]  # every stalled warp came back
    assert r.counters["stall_throttled"] > 0
    assert r.counters["l1_hits"] > 100 * gto.counters["l1_hits"]
    assert r.cycles < gto.cycles
    assert r.counters["instructions"] == gto.counters["instructions"]


@pytest.mark.parametrize("name", ["ciao-t", "ciao-p", "ciao-c"])
def test_the_statistics_account_for_every_test_and_check(runs, name):
    """Every acted high epoch examines the front warp: tested, or skipped as stalled; every test
    over the cut-off acts or says why not; every low-epoch check keeps the warp or releases it."""
    st = runs[name][1]
    assert st["high_epochs"] >= st["high_epochs_acted"] > 0 and st["low_epochs"] >= st["low_epochs_acted"] > 0
    assert st["high_tests"] + st["high_tests_skipped_stalled"] == st["high_epochs_acted"]
    assert st["high_tests"] >= st["high_tests_over"] > 0
    acted = st["high_tests_over"] - st["over_no_interferer"] - st["over_interferer_gone"] \
        - st["over_interferer_stalled"]
    if name == "ciao-t":
        assert acted == st["stalls"]
    elif name == "ciao-c":  # a trigger redirects its interferer or, already redirected, stalls it
        assert acted == st["stalls"] + st["redirects"]
    else:  # CIAO-P: a trigger on a warp already redirected does nothing
        assert acted >= st["redirects"] and st["stalls"] == 0
    assert st["stall_checks"] == st["stall_checks_kept"] + st["reactivations"]
    assert st["redirect_checks"] == st["redirect_checks_kept"] + st["redirects_back"]
    assert st["reactivations"] >= st["reactivations_pair_left"]
    assert st["redirects_back"] >= st["redirects_back_pair_left"]
    assert st["stall_checks"] + st["redirect_checks"] > 0


@pytest.mark.parametrize("examine", ["front", "all"])
def test_an_epoch_examines_the_front_warp_or_every_warp(examine):
    # The IRS unit's transactions of SM 0: each epoch's end (TX_EPOCH) is followed by the high
    # cut-off queries (TX_QUERY) of the warps it examines: one at most, the next resident slot
    # after the last one examined (Algorithm 1), or every active warp.
    from golden.units.ciao_irs import TX_EPOCH, TX_QUERY

    g = gpu(l1=dict(size=4096, assoc=4))
    pol = get_policy("ciao-t", high_epoch=100, low_epoch=100, examine=examine, log_sm=0,
                     log_capacity=1 << 16)
    TimingModel(g, Hierarchy(g, pol)).run_kernel(thrash(), 0)
    tx = pol.take_transactions()["irs"]
    epochs = np.flatnonzero(tx["kind"] == TX_EPOCH)
    assert len(epochs) > 20
    queried = [tx["wid"][a + 1:b][tx["kind"][a + 1:b] == TX_QUERY].tolist()
               for a, b in zip(epochs, [*epochs[1:], len(tx)], strict=True)]
    if examine == "front":
        assert all(len(q) <= 1 for q in queried)
        assert queried[0] == [0] and {q[0] for q in queried if q} == set(range(8))
        # From one epoch to the next the front moves on to the next resident slot (a stalled warp
        # at the front is examined for reactivation only: no query).
        full = (tx["active"][epochs] == 8).tolist()
        pairs = zip(queried, queried[1:], full, full[1:], strict=False)
        steps = [(b[0] - a[0]) % 8 for a, b, fa, fb in pairs if a and b and fa and fb]
        assert len(steps) > 10 and 0 not in steps and steps.count(1) > len(steps) / 2
    else:
        assert max(len(q) for q in queried) == 8


@pytest.mark.parametrize("name", ["ciao-t", "ciao-c"])
def test_thread_instructions_are_warp_instructions_times_32(name):
    # Counting thread instructions (each warp instruction adds 32) makes N of Eq. 1 and the epochs
    # 32 times larger: the same run as warp counting with epochs 32 times shorter and cut-offs 32
    # times higher (epochs chosen divisible by 32, so the boundaries fall on the same instruction).
    g = gpu(l1=dict(size=4096, assoc=4))
    out = []
    for kw in ({"instructions": "thread", "high_epoch": 6400, "low_epoch": 64,
                "high_cutoff": 0.005, "low_cutoff": 0.0025},
               {"instructions": "warp", "high_epoch": 200, "low_epoch": 2, "high_cutoff": 0.16,
                "low_cutoff": 0.08},
               {"instructions": "warp", "high_epoch": 6400, "low_epoch": 64, "high_cutoff": 0.005,
                "low_cutoff": 0.0025}):
        pol = get_policy(name, **kw)
        r = TimingModel(g, Hierarchy(g, pol)).run_kernel(thrash(), 0)
        out.append((r.cycles, r.counters, pol.stats()))
    thread, scaled, warp = out
    assert thread == scaled
    assert thread[2]["stalls"] + thread[2]["redirects"] > 0 and thread != warp  # the unit matters here


def test_ciao_p_redirects_instead_of_stalling(runs):
    gto, (r, st) = runs["gto"][0], runs["ciao-p"]
    assert st["redirects"] > 0 and st["stalls"] == 0 and r.counters["stall_throttled"] == 0
    assert r.counters["smem_cache_accesses"] > 0 and r.counters["smem_cache_hits"] > 0
    assert r.counters["instructions"] == gto.counters["instructions"]
    assert r.counters["l1_hits"] + r.counters["smem_cache_hits"] > 10 * gto.counters["l1_hits"]
    assert r.cycles < gto.cycles


def test_ciao_c_redirects_first(runs):
    r, st = runs["ciao-c"]
    assert st["redirects"] > 0 and r.counters["smem_cache_accesses"] > 0
    assert st["stalls"] <= st["redirects"]  # only a redirected warp is stalled
    assert r.counters["instructions"] == runs["gto"][0].counters["instructions"]


def test_ciao_p_without_shared_memory_runs_as_ciao_t(runs):
    (r, st), (t, st_t) = runs["ciao-p-no-smem"], runs["ciao-t"]
    assert st["sm_kernels_without_smem_cache"] == 1 and st["redirects"] == 0
    assert r.cycles == t.cycles and r.counters == t.counters and st["stalls"] == st_t["stalls"]


def test_ccws_throttles(runs):
    gto, (r, st) = runs["gto"][0], runs["ccws"]
    assert st["throttle_updates"] > 0 and r.counters["stall_throttled"] > 0
    # The blocked warps are counted per SM-cycle: some, never more than the resident ones; none under GTO.
    assert 0 < r.counters["blocked_warp_cycles"] < r.counters["warp_cycles"]
    assert gto.counters["blocked_warp_cycles"] == 0 and gto.counters["busy_sm_cycles"] > 0
    assert r.counters["l1_hits"] > 100 * gto.counters["l1_hits"]
    assert r.counters["instructions"] == gto.counters["instructions"]


def test_statpcal_bypasses_when_bandwidth_is_free(runs):
    # No DRAM bandwidth limit: always under-used, the 6 tokenless warps run and bypass the L1.
    gto, (r, st) = runs["gto"][0], runs["pcal"]
    assert st["load_misses_bypassed"] > 0 and st["busy_windows"] == 0
    assert r.counters["stall_throttled"] == 0
    assert r.counters["l1_hits"] > 10 * gto.counters["l1_hits"]  # the 2 token warps keep their lines


def test_statpcal_throttles_when_bandwidth_is_busy(runs):
    # 1 byte per cycle of DRAM: every window is busy after the first, the tokenless warps wait.
    r, st = runs["pcal-busy"]
    assert st["busy_windows"] > 0 and r.counters["stall_throttled"] > 0
    assert r.counters["instructions"] == runs["gto"][0].counters["instructions"]


def test_statpcal_tokens_follow_the_resident_warps():
    # _pcal_enter keeps each SM's tokens until its row of warp ids changes: against the rule worked
    # out afresh (the `tokens` lowest warp ids hold one) over random arrivals and exits.
    from golden.policies.statpcal import PcalState, _pcal_enter

    rng = np.random.default_rng(5)
    n_sm, slots, tokens = 2, 8, 3
    p = np.array([slots, tokens, 100, 128, 0], np.int64)  # busy from the first window on (limit 0)
    ps = PcalState(blocked=np.zeros(n_sm * slots, np.int64), warp=np.full(n_sm * slots, -1, np.int64),
                   resident=np.zeros(n_sm, np.int64), wpc=np.ones(n_sm, np.int64),
                   changed=np.zeros(n_sm, np.int64), win=np.zeros(3, np.int64), p=p,
                   st=np.zeros(3, np.int64), seen=np.full(n_sm * slots, -2, np.int64),
                   token=np.zeros(n_sm * slots, np.int64))
    next_id = 0
    for step in range(400):
        sm = int(rng.integers(n_sm))
        row = ps.warp[sm * slots:(sm + 1) * slots]
        s = int(rng.integers(slots))
        if rng.random() < 0.3:  # a warp exits or a new one (a higher id) takes the slot
            row[s] = -1 if row[s] >= 0 and rng.random() < 0.5 else next_id
            next_id += 1
        live = sorted(int(w) for w in row if w >= 0)
        if not live:
            continue
        me = live[int(rng.integers(len(live)))]
        a = _acc(c=sm, warp=me, cta=0, cycle=100 + step)
        mine = _pcal_enter(ps, a)
        holders = set(live[:tokens])
        assert mine == (0 if me in holders else 1)
        for j in range(slots):
            if row[j] >= 0:
                assert ps.blocked[sm * slots + j] == (0 if row[j] in holders else 1), (step, j)


def test_best_swl_profile_picks_the_best_ipc():
    g = gpu(l1=dict(size=4096, assoc=4))
    assert [p["warp_limit"] for p in swl_points("x", g, [1, 3])] == [1, 3]
    assert len(swl_points("x", g)) == g.max_warps_per_sm
    with pytest.raises(ValueError, match="^warp_limit: "):
        swl_points("x", g, [0])
    fake = {1: 0.5, 2: 0.9, 3: 0.9, 4: 0.7}
    prof = profile_best_swl(Workload(name="t/x", kernels=[]), g, fake, lambda p: {
        "warp_limit": p["warp_limit"], "ipc": fake[p["warp_limit"]]})
    assert prof["best"] == 2 and prof["ipc"] == 0.9 and len(prof["profile"]) == 4
    with pytest.raises(ValueError, match="^results: "):
        best_point([])


def test_best_swl_profile_on_the_timing_model(runs):
    # The limit takes effect below the 8 resident warps and not at 8 (= GTO without a limit).
    g = gpu(l1=dict(size=4096, assoc=4))
    wl = Workload(name="t/thrash", kernels=[thrash()])
    prof = profile_best_swl(wl, g, [2, 8])
    by = {p["warp_limit"]: p["ipc"] for p in prof["profile"]}
    gto = runs["gto"][0]
    assert by[8] == round(gto.counters["instructions"] / gto.cycles, 4)
    assert by[2] != by[8] and prof["best"] == max(by, key=by.get)
    assert run_point(wl, g, "gto", 2)["ipc"] == by[2]


def test_best_swl_profile_skips_a_limit_that_deadlocks():
    # 2 warps per CTA meet at a barrier: with a limit of 1 the second never arrives.
    kb = KernelBuilder("bar", (1,), (64,))
    kb.load(0x10, kb.tid * 4)
    kb.barrier()
    kb.compute(1)
    prof = profile_best_swl(Workload(name="t/bar", kernels=[kb.build()]), gpu(), [1, 2])
    assert prof["best"] == 2 and prof["ipc"] > 0
    assert prof["profile"][0]["ipc"] == 0.0 and "deadlock" in prof["profile"][0]["deadlock"]
    assert prof["profile"][1]["deadlock"] is None


def _acc(**f):
    return Access(*(np.int64(f.get(name, 0)) for name in ACCESS_FIELDS))


_Ctl = namedtuple("_Ctl", ("blocked", "warp", "resident", "inst", "wpc", "redirect", "smem_lines", "changed",
                           "winst", "vta_hits"))


def _one_sm_control(W: int) -> _Ctl:
    """SchedulerControl's views for one SM of ``W`` resident warps (slot = warp of CTA 0)."""
    return _Ctl(np.zeros(W, np.int64), np.arange(W, dtype=np.int64), np.full(1, W, np.int64),
                np.zeros(1, np.int64), np.full(1, W, np.int64), np.zeros(W, np.int64), np.zeros(1, np.int64),
                np.zeros(1, np.int64), np.zeros(W, np.int64), np.zeros(1, np.int64))


def test_compiled_vta_and_lists_match_the_unit_models():
    """A random sequence of evictions and load misses of 4 warps, through the policy and the unit models."""
    W, ways, lines = 4, 8, 12
    pol = get_policy("ciao-t")
    pol.level_hooks("l1", gpu().l1, 1)
    ctl = _one_sm_control(W)
    ps = pol.attach_scheduler(ctl)["l1"].state
    vta, il, irs = Vta(warps=W, ways=ways), InterferenceList(entries=W), IrsUnit(warps=W)
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(400):
        owner, by, line = (int(x) for x in rng.integers(0, [W, 2, lines]))  # two evictors: counters saturate
        if rng.random() < 0.5:
            ps.owner[0] = owner
            sched_on_evict(ps, _acc(c=0, warp=by, set=0, kernel=0), np.int64(0), np.int64(line), np.int64(0))
            vta.step(s1_ins__valid=1, s1_ins__set=owner, s1_ins__line=line, s1_ins__wid=by)
            vta.step()
            continue
        before = int(ps.st[2])
        sched_on_miss(ps, _acc(c=0, warp=owner, op=1, line=line, kernel=0))
        vta.step(s1_probe__valid=1, s1_probe__set=owner, s1_probe__line=line)
        out = vta.step()
        assert int(ps.st[2]) - before == out["s2_probe__hit"]
        if out["s2_probe__hit"]:
            hits += 1
            il.step(s1_upd__valid=1, s1_upd__wid=owner, s1_upd__by=out["s2_probe__wid"])
            il.step()
            irs.step(hit__valid=1, hit__wid=owner)
        assert list(ps.ilw[:W]) == il.wid and list(ps.ilc[:W]) == il.count
        assert list(ps.hits[:W]) == irs.hits
    assert hits > 40 and max(il.count) == 3


def _sched(name: str, W: int = 4, **kw):
    """``name``'s L1 state on one SM of ``W`` resident warps (slot = warp of CTA 0), and its controls."""
    pol = get_policy(name, **kw)
    pol.level_hooks("l1", gpu().l1, 1)
    ctl = _one_sm_control(W)
    ps = pol.attach_scheduler(ctl)["l1"].state
    sched_on_hit(ps, _acc(c=0, kernel=0))  # the kernel's first access (at 0 instructions) starts it
    return ps, ctl


def _evict(ps, owner: int, by: int, line: int) -> None:
    """L1 line ``line``, brought in by slot ``owner``, evicted by slot ``by``'s request."""
    ps.owner[0] = owner
    sched_on_evict(ps, _acc(c=0, warp=by, set=0, kernel=0), np.int64(0), np.int64(line), np.int64(0))


def _load_miss(ps, warp: int, line: int) -> None:
    sched_on_miss(ps, _acc(c=0, warp=warp, op=1, line=line, kernel=0))


def test_ccws_stacking_includes_the_warp_reaching_the_cutoff():
    """Scores 300, 200, 100, 100 against a cut-off of 400: the second warp reaches it and still issues."""
    ps, ctl = _sched("ccws")
    ps.score[:4] = (300, 200, 100, 100)
    _ccws_throttle(ps, np.int64(0))
    assert list(ctl.blocked) == [0, 0, BLOCK_LOADS, BLOCK_LOADS]  # their loads only (public code)
    ps.score[:4] = 100  # all at the base: the last warp reaches the cut-off, nobody is blocked
    _ccws_throttle(ps, np.int64(0))
    assert list(ctl.blocked) == [0, 0, 0, 0]


def _stack_reference(score: list[int], resident: list[bool], base: int) -> list[int]:
    """CCWS's cut-off as the public code states it: sort the resident warps by score (then slot), block
    the loads of every warp whose stacked scores above it reach ``resident * base``."""
    cutoff = max(1, sum(resident) * base)
    order = sorted((s for s in range(len(score)) if resident[s]), key=lambda s: (-score[s], s))
    blocked, above = [0] * len(score), 0
    for s in order:
        blocked[s] = BLOCK_LOADS if above >= cutoff else 0
        above += score[s]
    return blocked


@pytest.mark.parametrize("seed", range(4))
def test_ccws_cutoff_matches_a_plain_sort_of_the_stack(seed):
    """Random stacks of 48 slots: free slots, scores at 0, at the base, over it and (a cap under the
    base) between, through the throttle's shortcut for 0 / base / over and its full sort."""
    W, base = 48, 100
    ps, ctl = _sched("ccws", W=W)
    rng = np.random.default_rng(seed)
    for trial in range(300):
        resident = rng.random(W) < rng.choice([0.5, 0.9, 1.0])
        kinds = rng.choice(4, W, p=[0.15, 0.6, 0.2, 0.05] if trial % 2 else [0.2, 0.6, 0.2, 0.0])
        score = np.where(kinds == 0, 0, np.where(kinds == 1, base, np.where(
            kinds == 2, base + rng.integers(1, 400, W), rng.integers(1, base, W))))
        ctl.warp[:] = np.where(resident, np.arange(W), -1)
        ctl.resident[0] = resident.sum()
        ps.score[:W] = score
        ctl.blocked[:] = rng.choice([0, BLOCK_LOADS], W)  # stale: the throttle sets every resident warp
        stale = ctl.blocked.copy()
        _ccws_throttle(ps, np.int64(0))
        want = np.array(_stack_reference(score.tolist(), resident.tolist(), base))
        assert list(ctl.blocked[resident]) == list(want[resident]), trial
        assert list(ctl.blocked[~resident]) == list(stale[~resident]), trial  # free slots untouched


def test_ccws_vta_touches_a_victim_already_there_and_keeps_an_entry_on_a_hit():
    ps, _ = _sched("ccws")
    _evict(ps, 0, 1, 6)
    _evict(ps, 0, 1, 6)
    assert ps.st[S_INSERTS] == 1
    _load_miss(ps, 0, 6)
    _load_miss(ps, 0, 6)
    assert ps.st[S_VTA_HITS] == 2
    ciao, _ = _sched("ciao-t")  # the unit's rule for CIAO: a hit invalidates, duplicates are inserted
    _evict(ciao, 0, 1, 6)
    _evict(ciao, 0, 1, 6)
    for _ in range(3):
        _load_miss(ciao, 0, 6)
    assert ciao.st[S_INSERTS] == 2 and ciao.st[S_VTA_HITS] == 2


def test_ccws_vta_has_two_sets_of_eight_ways():
    """Nine even lines fill set 0 past its 8 ways: the first leaves (one 16-way set would keep it)."""
    ps, _ = _sched("ccws")
    for line in range(0, 18, 2):
        _evict(ps, 0, 1, line)
    _load_miss(ps, 0, 0)
    assert ps.st[S_VTA_HITS] == 0
    _load_miss(ps, 0, 2)
    assert ps.st[S_VTA_HITS] == 1


def test_ccws_score_is_capped_by_k_wsc():
    """1 VTA hit in 4 instructions (slot 0's; the other resident warps issued none), cut-off 400:
    LLDS 1/4 * 8 * 400 = 800, cap 1/4 * 2 * 400 = 200."""
    ps, ctl = _sched("ccws", k_wsc=2)
    _evict(ps, 0, 1, 6)
    ctl.winst[0] = 4
    _load_miss(ps, 0, 6)
    assert ps.score[0] == 200
    ps, ctl = _sched("ccws")  # k_wsc = k_vc = 8: the cap is the LLDS itself
    _evict(ps, 0, 1, 6)
    ctl.winst[0] = 4
    _load_miss(ps, 0, 6)
    assert ps.score[0] == 800


def test_ccws_llds_is_truncated_and_may_be_zero():
    """1 VTA hit in 10,000 instructions: 1/10,000 * 8 * 400 = 0.32 points, truncated to 0."""
    ps, ctl = _sched("ccws")
    _evict(ps, 0, 1, 6)
    ctl.winst[0] = 10_000
    _load_miss(ps, 0, 6)
    assert ps.st[S_VTA_HITS] == 1 and ps.score[0] == 100


@pytest.mark.parametrize("name", ["ciao-t", "ccws"])
def test_a_write_evict_store_hit_is_no_victim(name):
    """A store hit that a write-evict L1 invalidates (op 2; an atomic, op 3) inserts no victim
    tag, as GPGPU-Sim's wr_hit_we passes no evicted block on; a load's replacement (op 1) does."""
    ps, _ = _sched(name)
    for op in (2, 3):
        ps.owner[0] = 0
        sched_on_evict(ps, _acc(c=0, warp=1, op=op, set=0, kernel=0), np.int64(0), np.int64(6), np.int64(0))
    assert ps.st[S_INSERTS] == 0
    ps.owner[0] = 0
    sched_on_evict(ps, _acc(c=0, warp=1, op=1, set=0, kernel=0), np.int64(0), np.int64(6), np.int64(0))
    assert ps.st[S_INSERTS] == 1


def test_ccws_store_invalidates_its_line_in_every_warps_vta():
    ps, _ = _sched("ccws")
    _evict(ps, 0, 2, 6)
    _evict(ps, 1, 2, 6)
    sched_on_miss(ps, _acc(c=0, warp=3, op=2, line=6, kernel=0))
    _load_miss(ps, 0, 6)
    _load_miss(ps, 1, 6)
    assert ps.st[S_INSERTS] == 2 and ps.st[S_VTA_HITS] == 0


def test_ccws_llds_counts_the_resident_warps_only():
    """The public code's sums: resident warps' VTA hits over their own instructions.

    Slots 0 and 1 issued 4 instructions each; slot 0's VTA hit gives 1/8 * 8 * 400 = 400. Slot 1's
    warp exits (3 resident, cut-off 300): its 4 instructions leave the sum, so slot 0's second hit
    gives 2/4 * 8 * 300 = 1,200 (with the SM's 8 instructions it would be 600).
    """
    ps, ctl = _sched("ccws")
    ctl.winst[:2] = 4
    _evict(ps, 0, 1, 6)
    _load_miss(ps, 0, 6)
    assert ps.score[0] == 400
    ctl.warp[1], ctl.resident[0] = -1, 3
    _load_miss(ps, 0, 6)  # the VTA entry stays valid: a second hit
    assert ps.score[0] == 1200


def test_ccws_a_new_warp_in_a_slot_starts_with_no_hits_and_score_zero():
    """The public code zeroes an exiting warp's score; its slot's next warp starts from there."""
    ps, ctl = _sched("ccws")
    ctl.winst[0] = 4
    _evict(ps, 0, 1, 6)
    _load_miss(ps, 0, 6)
    assert (ps.score[0], ps.hits[0]) == (800, 1)
    ctl.warp[0] = 9  # warp 9 now holds slot 0
    sched_on_hit(ps, _acc(c=0, warp=1, kernel=0))
    assert (ps.score[0], ps.hits[0]) == (0, 0)
    assert ps.score[1] == 100  # the others keep theirs


def test_ccws_scores_decay_per_cycle():
    """A score of 800 (1 VTA hit in 4 instructions), 50 cycles later without an instruction: 750."""
    ps, ctl = _sched("ccws")
    _evict(ps, 0, 1, 6)
    ctl.winst[0] = 4
    _load_miss(ps, 0, 6)
    sched_on_hit(ps, _acc(c=0, warp=1, cycle=50, kernel=0))
    assert ps.score[0] == 750


def test_statistics_say_why_a_test_stalls_nobody_and_why_a_stall_ends():
    """Four resident warps (slot 4 empty) tested at every epoch's end (``examine="all"``).

    Warps 0-3 have 5 VTA hits each; warp 0's interference entry is itself, warp 1's is warp 3,
    warp 2's the empty slot 4, warp 3's warp 1. At 250 instructions (two high and 25 low epochs
    crossed, each acted on once) IRS = 5 / (250 / 4) = 0.08 for all four: warp 0 has no interferer,
    warp 1 stalls warp 3, warp 2's interferer is gone, and warp 3, stalled by then, is not tested.
    At 300 warp 3 is checked and kept (IRS_1 = 5 / (300 / 3) over the low cut-off), warp 1's
    interferer is already stalled. At 310 warp 1 has left: warp 3 is reactivated because its pair
    warp left.
    """
    ps, ctl = _sched("ciao-t", W=5, instructions="warp", high_epoch=100, low_epoch=10, examine="all")
    ctl.warp[4] = -1
    ctl.resident[0] = 4
    ps.ilw[:4] = (0, 3, 4, 1)
    ps.hits[:4] = 5

    def stats():
        return dict(zip(STAT_NAMES, (int(v) for v in ps.st), strict=True))

    ctl.inst[0] = 250
    sched_on_hit(ps, _acc(c=0, kernel=0))
    st = stats()
    assert list(ctl.blocked) == [0, 0, 0, 1, 0] and st["stalls"] == 1
    epochs = (st["high_epochs"], st["high_epochs_acted"], st["low_epochs"], st["low_epochs_acted"])
    assert epochs == (2, 1, 25, 1)
    assert (st["high_tests"], st["high_tests_skipped_stalled"], st["high_tests_over"]) == (3, 1, 3)
    assert (st["over_no_interferer"], st["over_interferer_gone"], st["over_interferer_stalled"]) == (1, 1, 0)
    assert st["stall_checks"] == 0
    ctl.inst[0] = 300
    sched_on_hit(ps, _acc(c=0, kernel=0))
    st = stats()
    assert list(ctl.blocked) == [0, 0, 0, 1, 0]
    assert (st["high_epochs"], st["low_epochs"], st["low_epochs_acted"]) == (3, 30, 2)
    assert (st["high_tests"], st["high_tests_skipped_stalled"], st["high_tests_over"]) == (6, 2, 6)
    assert (st["over_no_interferer"], st["over_interferer_gone"], st["over_interferer_stalled"]) == (2, 2, 1)
    assert (st["stall_checks"], st["stall_checks_kept"], st["reactivations"]) == (1, 1, 0)
    ctl.warp[1] = -1
    ctl.resident[0] = 3
    ctl.inst[0] = 310
    sched_on_hit(ps, _acc(c=0, kernel=0))
    st = stats()
    assert list(ctl.blocked) == [0, 0, 0, 0, 0] and st["high_epochs"] == 3
    assert (st["stall_checks"], st["stall_checks_kept"], st["reactivations"], st["reactivations_pair_left"]) \
        == (2, 1, 1, 1)


@pytest.mark.parametrize("irs_counts", ["kernel", "epoch"])
def test_irs_counts_run_over_the_kernel_or_the_high_epoch(irs_counts):
    """Warp 1 interferes with warp 0; a high epoch stalls it, the next low epoch tests IRS_0 again.

    Over the kernel, warp 0's 5 VTA hits in 110 instructions (2 warps) are still over the low
    cut-off, so warp 1 stays stalled; over the epoch, warp 0 has had no hit since the high epoch
    ended, so warp 1 is reactivated.
    """
    ps, ctl = _sched("ciao-t", W=2, instructions="warp", high_epoch=100, low_epoch=10, examine="all",
                     irs_counts=irs_counts)
    ps.ilw[:2] = (1, 1)  # warp 1 interfered last with both
    ps.hits[0] = 5
    ctl.inst[0] = 100
    sched_on_hit(ps, _acc(c=0, kernel=0))  # the high epoch's end: IRS_0 = 5 / (100 / 2) = 0.1
    assert list(ctl.blocked) == [0, 1] and ps.st[S_STALLS] == 1
    ctl.inst[0] = 110
    sched_on_hit(ps, _acc(c=0, kernel=0))  # a low epoch's end: warp 1 examined for release
    assert list(ctl.blocked) == ([0, 1] if irs_counts == "kernel" else [0, 0])
    assert ps.st[S_REACTIVATIONS] == (0 if irs_counts == "kernel" else 1)


@pytest.mark.parametrize("active_warps", ["resident", "unstalled"])
def test_active_warps_count_the_resident_or_the_unstalled(active_warps):
    """Two of 4 resident warps are stalled; warp 0's 1 VTA hit in 100 instructions is tested at 3%.

    IRS_0 = 1 / (100 / A): 0.04 over the 4 resident warps, so warp 0's interferer (warp 1) is
    stalled; 0.02 over the 2 unstalled ones, so nothing happens.
    """
    ps, ctl = _sched("ciao-t", W=4, instructions="warp", high_epoch=100, low_epoch=1000, examine="all",
                     high_cutoff=0.03, low_cutoff=0.015, active_warps=active_warps)
    ctl.blocked[2:4] = 1
    ps.ilw[:4] = (1, 0, 0, 0)
    ps.hits[0] = 1
    ctl.inst[0] = 100
    sched_on_hit(ps, _acc(c=0, kernel=0))  # the high epoch's end
    assert ps.nact[0] == (4 if active_warps == "resident" else 2)
    assert list(ctl.blocked) == ([0, 1, 1, 1] if active_warps == "resident" else [0, 0, 1, 1])


@pytest.mark.parametrize("examine", ["front", "issuing"])
def test_an_epoch_examines_the_front_warp_or_the_issuing_one(examine):
    """Warps 0 and 1 suffer (IRS 0.1 over 0.01), from warps 1 and 2; warp 1's access ends the epoch.

    The front of the list is warp 0, so "front" stalls warp 0's interferer, warp 1; "issuing"
    examines warp 1 and stalls warp 2. With "issuing" a stalled warp is examined for release only
    when an access of its own (a fill of an earlier miss) ends a low epoch.
    """
    ps, ctl = _sched("ciao-t", W=3, instructions="warp", high_epoch=100, low_epoch=100, examine=examine)
    ps.ilw[:3] = (1, 2, 0)
    ps.hits[:2] = 5
    ctl.inst[0] = 100
    sched_on_hit(ps, _acc(c=0, warp=1, kernel=0))  # IRS = 5 / (100 / 3)
    stalled = 1 if examine == "front" else 2
    assert list(ctl.blocked) == [int(w == stalled) for w in range(3)] and ps.f1[stalled] == stalled - 1
    if examine == "issuing":
        ctl.inst[0] = 100_000  # IRS_1 = 5 / (100,000 / 2): under the low cut-off
        sched_on_hit(ps, _acc(c=0, warp=0, kernel=0))
        assert list(ctl.blocked) == [0, 0, 1]  # warp 0 examined: not stalled, nothing to release
        ctl.inst[0] = 100_100
        sched_on_fill(ps, _acc(c=0, warp=2, kernel=0))
        assert list(ctl.blocked) == [0, 0, 0] and ps.st[S_REACTIVATIONS] == 1


@pytest.mark.parametrize("self_interference", ["count", "ignore"])
def test_a_warp_evicting_its_own_line_is_or_is_not_its_interferer(self_interference):
    """Warp 0's entry holds warp 1 (counter 1); warp 0 then hits twice on lines it evicted itself.

    Counted (the unit's rule takes any WID), each self-hit is a different WID: the first takes the
    counter to 0, the second replaces warp 1 with warp 0 itself. Ignored, the entry keeps warp 1.
    Both hits count in IRS and as ``vta_hits_self``. A third hit, on warp 1's eviction, is not a
    self-hit: counted, it puts warp 1 back (counter 0); ignored, warp 1's counter goes to 2.
    """
    ps, _ = _sched("ciao-t", W=2, self_interference=self_interference)
    ps.ilw[0], ps.ilc[0] = 1, 1
    for line in (3, 4):
        _evict(ps, 0, 0, line)
        _load_miss(ps, 0, line)
    assert (int(ps.ilw[0]), int(ps.ilc[0])) == ((0, 0) if self_interference == "count" else (1, 1))
    _evict(ps, 0, 1, 5)
    _load_miss(ps, 0, 5)
    st = dict(zip(STAT_NAMES, (int(v) for v in ps.st), strict=True))
    assert (st["vta_hits"], st["vta_hits_self"], int(ps.hits[0])) == (3, 2, 3)
    assert (int(ps.ilw[0]), int(ps.ilc[0])) == ((1, 0) if self_interference == "count" else (1, 2))


def test_irs_counts_per_epoch_cannot_be_recorded():
    with pytest.raises(ValueError, match="^irs_counts: 'epoch' cannot be recorded"):
        get_policy("ciao-c", irs_counts="epoch", log_sm=0)


@pytest.mark.parametrize(("name", "kw", "field"), [
    ("ciao-t", {"high_cutoff": 0}, "high_cutoff"), ("ciao-t", {"low_cutoff": -0.1}, "low_cutoff"),
    ("ciao-t", {"high_epoch": 0}, "high_epoch"), ("ciao-t", {"low_epoch": -5}, "low_epoch"),
    ("ciao-c", {"examine": "back"}, "examine"), ("ciao-p", {"instructions": "lane"}, "instructions"),
    ("ciao-t", {"irs_counts": "window"}, "irs_counts"), ("ciao-c", {"active_warps": "all"}, "active_warps"),
    ("ciao-t", {"self_interference": "some"}, "self_interference"),
    ("ccws", {"base_score": 0}, "base_score"), ("ccws", {"k_vc": -1}, "k_vc"),
    ("ccws", {"vta_ways": 12}, "ways"), ("ccws", {"k_wsc": 0}, "k_wsc"),
    ("ccws", {"vta_ways": 1}, "vta_ways"), ("statpcal", {"tokens": 0}, "tokens"),
    ("statpcal", {"window": -1}, "window"), ("statpcal", {"threshold": 0}, "threshold")])
def test_bad_parameters_name_the_field(name, kw, field):
    with pytest.raises(ValueError, match=f"^{field}: ") as e:
        get_policy(name, **kw)
    assert "\n" not in str(e.value)


def test_compare_ciao18_prints_every_scheduler_and_ratios(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    path = tmp_path / "c.json"
    status, out, err = gpucache("compare", "--suite", "ciao18", "--workloads", "atax", "--scale", "0.05",
                                "--swl-limits", "2", "8", "--fig12", "--json", str(path), "--no-progress")
    assert status == 0, err
    data = json.loads(path.read_text())
    (row,) = data["rows"]
    assert row["class"] == "LWS" and row["paper_n_warp"] == 2
    gto = row["runs"]["gto"]["ipc"]
    for s in ("ccws", "best-swl", "statpcal", "ciao-t", "ciao-p", "ciao-c"):
        assert row["norm"][s] == pytest.approx(row["runs"][s]["ipc"] / gto)
    assert row["runs"]["best-swl"]["warp_limit"] in (2, 8)
    assert [p["warp_limit"] for p in row["runs"]["best-swl"]["profile"]] == [2, 8]
    assert row["runs"]["statpcal"]["policy_stats"]["windows"] >= 0
    assert row["runs"]["ciao-p"]["policy_stats"]["sm_kernels_without_smem_cache"] >= 0
    assert "ciao18 Fig. 8" in out and "1.56" in out and "missing" not in out
    f12 = row["fig12"]
    assert set(f12) == {"gto-cap", "gto-8way", "statpcal-2x", "ciao-c", "ciao-c-2x",
                        "ciao-c-2x / statpcal-2x"}
    assert f12["ciao-c"] == pytest.approx(row["norm"]["ciao-c"])  # the same run as Fig. 8's
    assert "ciao18 Fig. 12" in out and "2.37" in out and data["fig12_means"]["gto-8way"] == f12["gto-8way"]


def test_fig12_machines():
    from golden.configs import load_config
    from golden.experiments.ciao18 import fig12_machine

    g = load_config("ciao18")
    cap = fig12_machine(g, "gto-cap")
    assert (cap.l1.size, cap.l1.sets, cap.l1.assoc, cap.shared_mem_bytes) == (48 * 1024, 64, 6, 16 * 1024)
    assert fig12_machine(g, "gto-8way").l1.assoc == 8 and fig12_machine(g, "gto-8way").l1.size == g.l1.size
    assert fig12_machine(g, "ciao-c-2x").dram_bus_bytes == 2 * g.dram_bus_bytes
    assert fig12_machine(g, "ciao-c") == g


@pytest.mark.parametrize("argv, message", [
    (("--suite", "ciao18", "--swl-limits", "0"), "--swl-limits: a warp limit is 1 to 48, not 0"),
    (("--suite", "tian15", "--swl-limits", "4"), "--swl-limits applies to --suite ciao18 only"),
    (("--suite", "drp16", "--fig12"), "--fig12 applies to --suite ciao18 only"),
    (("--suite", "ciao18", "--workloads", "nosuch"), "nosuch"),
])
def test_compare_ciao18_user_errors(tmp_path, monkeypatch, argv, message):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path / "trace-cache"))
    status, _, err = gpucache("compare", *argv, "--scale", "0.05")
    assert status == 2 and err.count("\n") == 1 and message in err, err
