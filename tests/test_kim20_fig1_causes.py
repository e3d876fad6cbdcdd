"""benchmarks/kim20_fig1_causes.py: the helpers its experiments rest on, on small hand-made inputs."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from golden.trace.model import Op, Workload
from tests.benchmark_module import load_benchmark

fig1 = load_benchmark("kim20_fig1_causes")


def _brute_distances(sm, line, sets):
    """Per access: distinct other lines of its (SM, set) since its last use; -1 for a first use."""
    out = []
    for i in range(len(line)):
        g = (sm[i], line[i] % sets)
        seen = set()
        d = -1
        for j in range(i - 1, -1, -1):
            if (sm[j], line[j] % sets) != g:
                continue
            if line[j] == line[i]:
                d = len(seen)
                break
            seen.add(line[j])
        out.append(d)
    return np.array(out)


def test_set_distances_match_a_brute_force_lru_stack():
    rng = np.random.default_rng(3)
    sm = rng.integers(0, 3, 400)
    line = rng.integers(0, 40, 400)
    got = fig1.set_distances(sm, line, sets=4)
    assert np.array_equal(got, _brute_distances(sm, line, 4))
    assert (got == -1).any() and (got > 2).any()


def test_first_load_touch_is_per_sm_and_loads_only():
    sm = np.array([0, 0, 1, 0, 1, 0])
    line = np.array([5, 5, 5, 7, 5, 7])
    is_load = np.array([False, True, True, True, True, True])
    assert fig1.first_load_touch(sm, line, is_load).tolist() == [False, True, True, True, False, False]


def test_array_ranges_follow_the_allocators():
    wl = Workload(name="t", kernels=[], params={"arrays": {"a": 300, "b": 10, "image.c": 100}})
    base = 0x1000_0000 // 128
    assert fig1.array_ranges(wl) == [("a", base, base + 3), ("b", base + 4, base + 5),
                                     ("image.c", 0x2000_0000 // 128, 0x2000_0000 // 128 + 1)]
    idx = fig1.array_of(np.array([base, base + 4, 0]), fig1.array_ranges(wl))
    assert idx.tolist() == [0, 1, 3]


def test_occupancy_integrals_on_two_sms():
    # SM 0: 4 ready warps over [0, 10), then 2 until 20; SM 1: 8 over [10, 20).
    ev = np.zeros(4, fig1.LOG_DTYPE)
    ev["cycle"] = [0, 10, 10, 20]
    ev["sm"] = [0, 0, 1, 1]
    ev["line"] = [4, 2, 8, 0]
    ev["outcome"] = fig1.READY
    integral, busy = fig1._steps(np.array([0, 10]), np.array([4.0, 2.0]), 0, 20)
    assert (integral, busy) == (60.0, 20.0)
    # Mean over busy SMs per cycle: 4 for 10 cycles, (2 + 8) / 2 = 5 for 10 cycles.
    assert fig1._busy_mean(ev, 0, 20) == (90.0, 20.0)


def test_definitions_count_merges_and_stores_as_stated():
    d = {name.split(":")[0]: (m, n) for name, m, n in fig1._definitions(
        hits=10, misses=50, sectors=5, merges=35, st_hits=4, st_all=20)}
    assert d["ours"] == (90 + 16, 120)
    assert d["loads only"] == (90, 100)
    assert d["loads only, merges counted as hits"] == (55, 100)
    assert d["loads only, merges not counted (GPGPU-Sim's MSHR_HIT apart)"] == (55, 65)


def test_outcome_counts_split_loads_and_stores():
    a = np.zeros(6, fig1.LOG_DTYPE)
    a["op"] = [Op.LOAD, Op.LOAD, Op.LOAD, Op.LOAD, Op.STORE, Op.STORE]
    a["outcome"] = [fig1.HIT, fig1.MISS, fig1.MERGE, fig1.SECTOR, fig1.HIT, fig1.MISS]
    c = fig1._outcome_counts(a)
    got = (c[fig1.HIT], c[fig1.MISS], c[fig1.MERGE], c[fig1.SECTOR], c["st"], c["st_hit"])
    assert got == (1, 1, 1, 1, 2, 1)


def test_l1_field_parses_one_integer_field_and_names_a_bad_one():
    assert fig1.l1_field("ports=32") == ("ports", 32)
    assert fig1.machine(l1=dict([fig1.l1_field("mshrs=16")])).l1.mshrs == 16
    former = fig1.machine(l1=dict(map(fig1.l1_field, ("mshrs=256", "mshr_merges=8", "lookup_latency=0")))).l1
    assert (former.mshrs, former.mshr_merges, former.lookup_latency, former.miss_latency) == (256, 8, 0, 0)
    with pytest.raises(argparse.ArgumentTypeError, match="--l1: an integer L1 field"):
        fig1.l1_field("replacement=lru")
    with pytest.raises(argparse.ArgumentTypeError, match="--l1 ports: an integer"):
        fig1.l1_field("ports=many")


def test_sector_weights_match_lookups_to_the_requests_of_their_line():
    func = np.zeros(4, [("kernel", "<i8"), ("op", "<i8"), ("line", "<i8"), ("sectors", "<i8")])
    func["op"] = Op.LOAD
    func["line"] = [7, 7, 9, 9]
    func["sectors"] = [0b1111, 0b1111, 0b0001, 0b0011]
    acc = np.zeros(3, fig1.LOG_DTYPE)
    acc["op"] = Op.LOAD
    acc["line"] = [9, 7, 9]
    w, lo, hi = fig1.sector_weights(acc, func)
    assert w.tolist() == [1.5, 4.0, 1.5] and lo.tolist() == [1, 4, 1] and hi.tolist() == [2, 4, 2]
    acc["line"][0] = 8
    with pytest.raises(ValueError, match="log: a timed lookup has no functional request"):
        fig1.sector_weights(acc, func)


def test_lean_counts_give_the_log_s_outcome_counts():
    rng = np.random.default_rng(5)
    rows = np.zeros((300, 5), np.int64)
    rows[:, 0] = np.arange(300)
    rows[:, 3] = rng.choice([Op.LOAD, Op.STORE], 300)
    outcomes = [fig1.HIT, fig1.MISS, fig1.MERGE, fig1.SECTOR, fig1.READY, fig1.FIRST_CTA, 7]
    rows[:, 4] = rng.choice(outcomes, 300)
    log = np.zeros(300, fig1.LOG_DTYPE)
    for j, name in enumerate(("cycle", "sm", "line", "op", "outcome")):
        log[name] = rows[:, j]
    counts = np.zeros((1, 8, 8), np.int64)
    kept = fig1.lean_rows(rows, counts[0])
    assert set(kept[:, 4].tolist()) == {fig1.READY, fig1.FIRST_CTA}
    assert len(kept) == np.count_nonzero(np.isin(rows[:, 4], [fig1.READY, fig1.FIRST_CTA]))
    assert fig1.run_counts({"log": log, "counts": counts}) == fig1.run_counts({"log": log})


def test_l1_field_takes_the_allocation_policy():
    assert fig1.machine(l1=dict([fig1.l1_field("allocate=on-miss")])).l1.allocate == "on-miss"
    with pytest.raises(argparse.ArgumentTypeError, match="--l1 allocate: on-miss or on-fill"):
        fig1.l1_field("allocate=never")


def test_table_prints_each_record_beside_fig1(tmp_path, capsys):
    rec = {"workload": "stc", "scale": 1.0, "miss": {"ours": 91.25},
           "occupancy": {k: 50.0 for k, _ in fig1.TABLE_OCC}}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(rec) + "\n" + json.dumps(dict(rec, workload="nw")) + "\n")
    fig1.table(str(path))
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["NW", "1", "-", "91.2", "|", "<46", "50.0", "50.0", "50.0", "50.0", "50.0"]
    assert out[2].split()[:6] == ["STC", "1", "73", "91.2", "|", "93"]


def test_in_windows_keeps_each_sm_s_first_cycles_of_each_kernel():
    log = np.zeros(7, fig1.LOG_DTYPE)
    log["outcome"] = [fig1.FIRST_CTA, fig1.FIRST_CTA, fig1.HIT, fig1.MISS, fig1.HIT, fig1.MISS, fig1.HIT]
    log["sm"] = [0, 1, 0, 0, 1, 1, 2]
    log["cycle"] = [10, 100, 12, 20, 99, 105, 12]
    assert fig1.in_windows(log, window=10).tolist() == [True, True, True, False, False, True, False]


def test_stc_with_dim_builds_that_many_coordinates_and_restores_the_module():
    from golden.workloads import kim20_stc

    wl = fig1.stc_with_dim(512 / kim20_stc.NUM, 4)
    assert wl.params["dim"] == 4 and wl.params["num"] == 512 and kim20_stc.DIM == 256
    with pytest.raises(ValueError, match="--stc-dim: a positive integer"):
        fig1.stc_with_dim(1.0, 0)
