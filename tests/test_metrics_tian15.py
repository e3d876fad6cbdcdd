"""tian15's measurements (``golden.metrics.tian15``): zero-reuse blocks, false positives, L1 energy.

Expected values are worked out by hand in the comments; the energy figures
are typed in from tian15 Table 3, not taken from the module under test.
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.cache import OUTCOME_BYPASSED, Hierarchy
from golden.configs.schema import CacheConfig, GPUConfig
from golden.metrics.tian15 import CACTI, ReuseObserver, false_positives, l1_energy
from golden.trace.coalesce import ACCESS_DTYPE

LOAD, STORE = 1, 2
BYP = OUTCOME_BYPASSED

# 2 SMs, each with an L1 of 2 sets x 2 ways x 64 B (LRU, write-through); a roomy L2.
GPU = GPUConfig(name="tiny", n_sm=2,
                l1=CacheConfig(size=256, assoc=2, line_size=64, write="write-through"),
                l2=CacheConfig(size=64 * 1024, assoc=8, line_size=64))


def accesses(seq) -> np.ndarray:
    """Access rows from ``(sm, line, op)`` tuples."""
    a = np.zeros(len(seq), ACCESS_DTYPE)
    for i, (sm, line, op) in enumerate(seq):
        a[i]["sm"], a[i]["line"], a[i]["op"], a[i]["pc"] = sm, line, op, 0x100
    return a


def test_reuse_observer_counts_zero_reuse_evictions():
    # SM 0 uses set 0 (even lines), SM 1 set 1 (odd lines). LRU with 2 ways.
    seq = [
        (0, 0, LOAD),    # fill way 0
        (0, 2, LOAD),    # fill way 1
        (0, 0, LOAD),    # hit: line 0 reused
        (0, 4, LOAD),    # evict 2 (LRU): never reused -> zero-reuse 1 of 1
        (0, 6, LOAD),    # evict 0: reused -> 1 of 2; line 6 fills way 0, whose flag is cleared
        (0, 8, LOAD),    # evict 4: zero-reuse -> 2 of 3
        (0, 10, LOAD),   # evict 6 (way 0; its fill cleared line 0's flag): zero-reuse -> 3 of 4
        (0, 8, STORE),   # write-through store hit: line 8 reused (and touched)
        (0, 12, LOAD),   # evict 10: zero-reuse -> 4 of 5
        (0, 14, LOAD),   # evict 8: reused by the store -> 4 of 6
        (1, 1, LOAD), (1, 3, LOAD),
        (1, 5, LOAD),    # evict 1: zero-reuse -> SM 1: 1 of 1
        (1, 7, STORE),   # store miss: no fill, no eviction
    ]
    obs = ReuseObserver()
    h = Hierarchy(GPU, obs)
    out = h.run(accesses(seq), outcomes=True)
    assert obs.counts.tolist() == [(6, 4), (1, 1)]  # (evictions, zero-reuse) per SM
    assert (obs.evictions, obs.zero_reuse_evictions, obs.zero_reuse_share) == (7, 5, 5 / 7)
    # It only observes: the baseline gives the same outcomes and counters.
    base = Hierarchy(GPU)
    assert out.tolist() == base.run(accesses(seq), outcomes=True).tolist()
    assert np.array_equal(h.levels["l1"].counters, base.levels["l1"].counters)
    assert h.stats()["l1"]["evictions"] == 7


def test_reuse_observer_without_evictions():
    obs = ReuseObserver()
    Hierarchy(GPU, obs).run(accesses([(0, 0, LOAD), (0, 0, LOAD)]))
    assert (obs.evictions, obs.zero_reuse_share) == (0, 0.0)


# The arrays are made by hand; false_positives reads only sm, line and the two outcomes.
#        idx   sm line shadow  bypassing
_FP = [(0, 0, 5, 4, 4 | BYP),  # bypassed; SM 0's next reference to 5 is idx 3, a shadow hit: wrong
       (1, 1, 5, 4, 4),        # SM 1's own copy of line 5
       (2, 1, 5, 1, 1),        # hit in both: nothing lost
       (3, 0, 5, 1, 2 | BYP),  # shadow hit, bypassed again: a lost hit; no later SM 0 access to 5
       (4, 1, 7, 4, 4),
       (5, 0, 7, 4, 4 | BYP),  # bypassed; the next access to 7 in time is idx 6 by SM 1 (a shadow
       (6, 1, 7, 1, 1),        #   hit) which must not count; SM 0's next is idx 7, a shadow miss
       (7, 0, 7, 4, 2 | BYP),  # bypassed, shadow miss: neither lost nor (no next) wrong
       (8, 1, 9, 4, 4),
       (9, 1, 9, 1, 2),        # shadow hit, replaced in the bypassing L1: a lost hit
       (10, 0, 11, 2, 1)]      # a hit only the bypassing L1 has: not counted


def _fp_arrays():
    rows = np.array(_FP, dtype=np.int64)
    assert rows[:, 0].tolist() == list(range(len(_FP)))
    return (rows[:, 1].astype(np.uint16), rows[:, 2].astype(np.uint64),
            rows[:, 3].astype(np.uint8), rows[:, 4].astype(np.uint8))


def test_false_positives_by_hand():
    sm, line, shadow, bypassing = _fp_arrays()
    # Lost hits: idx 3 and 9 -> 2; wrongly bypassed: idx 0 -> 1. Five bypass predictions
    # (four bypasses in the outcomes plus one corrected install, which leaves no mark there).
    got = false_positives(sm, line, shadow, bypassing, 5)
    assert got == {"fp_rate": 2 / 5, "fp_rate_sdbp": 1 / 5, "lost_hits": 2, "wrongly_bypassed": 1}


def test_false_positives_different_sm_next_reference():
    sm, line, shadow, bypassing = _fp_arrays()
    # Only idx 5 and 6 (line 7): SM 0 bypasses, SM 1 then hits in its shadow L1. SM 0 never
    # comes back, so nothing is wrong; nothing is lost either (SM 1 hits in both).
    keep = [5, 6]
    got = false_positives(sm[keep], line[keep], shadow[keep], bypassing[keep], 1)
    assert got == {"fp_rate": 0.0, "fp_rate_sdbp": 0.0, "lost_hits": 0, "wrongly_bypassed": 0}
    # The same with SM 0 coming back to line 7 and hitting in the shadow L1: wrong.
    sm3, line3 = np.array([0, 1, 0], np.uint16), np.array([7, 7, 7], np.uint64)
    shadow3, byp3 = np.array([4, 4, 1], np.uint8), np.array([4 | BYP, 4, 2 | BYP], np.uint8)
    got = false_positives(sm3, line3, shadow3, byp3, 2)
    assert got == {"fp_rate": 1 / 2, "fp_rate_sdbp": 1 / 2, "lost_hits": 1, "wrongly_bypassed": 1}


def test_false_positives_without_predictions():
    sm, line, shadow, bypassing = _fp_arrays()
    got = false_positives(sm, line, shadow, bypassing, 0)
    assert (got["fp_rate"], got["fp_rate_sdbp"]) == (0.0, 0.0)


def test_cacti_figures_are_table_3():
    # tian15 Table 3 (CACTI 6.5), typed in here.
    assert (CACTI.tag_nj_baseline, CACTI.tag_nj_bypass, CACTI.data_nj, CACTI.table_nj) == (
        0.00134096, 0.0017867, 0.106434, 0.000126232)
    assert (CACTI.static_mw_baseline, CACTI.static_mw_bypass) == (7.538627, 7.72904)
    assert CACTI.clock_ghz == 1.0  # tian15 Table 1


def test_l1_energy_by_hand():
    # 1000 accesses, 300 fills, 2000 cycles (2 us at 1 GHz), 8 L1s.
    # Baseline dynamic: 1300 x (0.00134096 + 0.106434) = 1300 x 0.10777496 = 140.107448 nJ.
    # Baseline static: 7.538627 mW x 8 x 2 us = 120.618032 nJ.
    e = l1_energy(1000, 300, 2000, n_l1=8)
    assert e["dynamic"] == pytest.approx(140.107448, rel=1e-12)
    assert e["static"] == pytest.approx(120.618032, rel=1e-12)
    assert e["total"] == pytest.approx(260.72548, rel=1e-12)
    # Bypassing, 1500 table accesses: 1300 x (0.0017867 + 0.106434) = 140.68691, plus
    # 1500 x 0.000126232 = 0.189348 -> 140.876258 nJ; static 7.72904 mW x 8 x 2 us = 123.66464 nJ.
    e = l1_energy(1000, 300, 2000, table_accesses=1500, bypassing=True, n_l1=8)
    assert e["dynamic"] == pytest.approx(140.876258, rel=1e-12)
    assert e["static"] == pytest.approx(123.66464, rel=1e-12)
    assert e["total"] == pytest.approx(264.540898, rel=1e-12)
