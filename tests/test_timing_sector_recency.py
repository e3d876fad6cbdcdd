"""A line's recency when a lookup finds it without hitting it, and a sector miss's protection.

GPGPU-Sim's ``tag_array`` (``gpu-cache.cc``) makes a line the most recently used on every lookup
that finds its tag under allocate on miss: a hit, a hit on a line still being fetched
(``HIT_RESERVED``: ``set_last_access_time``) and a sector miss (``allocate_sector``, which also
marks the sector reserved, so that the line is no victim until its fill: ``is_reserved_line``).
Under allocate on fill the sector's fill does it (``tag_array::fill`` calls ``allocate_sector``).
Closed-form checks on ``tests/test_timing.py``'s test GPU with a one-set, two-way cache: three
lines A, B and C in turn, where the LRU victim decides whether A is still there at the end
(``docs/timing.md``, "L1 and MSHRs" and "L2 sectors").
"""

from __future__ import annotations

import numpy as np

from golden.gpu.core import LOG_LOAD_DONE
from golden.trace.builder import KernelBuilder
from tests.test_timing import LINE, gpu, run

#: The three lines; each SM (or load) names one sector of one of them.
A, B, C = 5, 6, 7
#: One set of two ways: A, B and C compete for it.
TWO_WAYS = {"size": 2 * LINE, "assoc": 2}


def one_load_per_sm(loads: list[tuple[int, int, int]]) -> KernelBuilder:
    """SM ``i`` waits ``loads[i][0]`` cycles, then loads sector ``loads[i][2]`` of line ``loads[i][1]``."""
    kb = KernelBuilder("recency", (len(loads),), (32,))
    for i, (wait, _, _) in enumerate(loads):
        kb.compute(wait, active=kb.bx == i)
    addr = np.zeros(len(loads), np.int64)
    for i, (_, line, sector) in enumerate(loads):
        addr[i] = line * LINE + 32 * sector
    kb.load(0x10, addr[kb.bx] + 0 * kb.tx)
    kb.compute(1)
    return kb


def _l2_run(loads, **l2):
    g = gpu(n_sm=len(loads), l1={"sector_size": 32}, l2={**TWO_WAYS, **l2})
    tm, (r,) = run([one_load_per_sm(loads)], g, log_ldst=True)
    done = {int(sm): int(c) for c, sm, _, _, what in tm.ldst_log() if what == LOG_LOAD_DONE}
    return done, r.counters


def test_an_l2_sector_miss_makes_its_line_the_most_recently_used():
    # A and B arrive; A's second sector misses on the resident line; C then evicts the least
    # recently used, which is B (A's sector miss stamped it), so A's first sector still hits.
    loads = [(0, A, 0), (10, B, 0), (400, A, 1), (800, C, 0), (1200, A, 0)]
    _, c = _l2_run(loads, sector_size=32)
    assert c["l2_sector_misses"] == 1
    assert c["l2_hits"] == 1 and c["dram_reads"] == 4


def test_an_l2_line_waiting_for_a_sector_is_no_victim():
    # A's and B's second sectors are on their way when C misses: both ways are protected, so C
    # fails its reservation until the first of them is back, then takes that line's way.
    loads = [(0, A, 0), (10, B, 0), (400, A, 1), (405, B, 1), (410, C, 0)]
    done, c = _l2_run(loads, sector_size=32)
    assert c["l2_reservation_fails"] > 0
    assert done[4] > done[2]
    # Without the wait C would be a plain miss, as A's and B's second sectors are.
    assert done[4] - 410 > done[2] - 400 == done[3] - 405


def test_a_request_merging_with_a_reserved_line_stamps_it():
    # Unsectored: SM 2 asks for A while A is still being fetched (a merge, GPGPU-Sim's
    # HIT_RESERVED), after B's miss; C then evicts B, and A hits.
    loads = [(0, A, 0), (5, B, 0), (20, A, 0), (600, C, 0), (1000, A, 0)]
    _, c = _l2_run(loads)
    assert c["l2_mshr_merges"] == 1
    assert c["l2_hits"] == 1 and c["dram_reads"] == 3


def chase(loads: list[tuple[int, int]]) -> KernelBuilder:
    """One warp loads sector ``s`` of line ``l`` for each ``(l, s)`` in turn, each used at once."""
    kb = KernelBuilder("chase", (1,), (32,))
    for i, (line, sector) in enumerate(loads):
        kb.load(0x100 + 16 * i, np.full(32, line * LINE + 32 * sector, np.int64))
        kb.compute(1)
    return kb


def _l1_hits(allocate: str) -> dict:
    g = gpu(l1={**TWO_WAYS, "sector_size": 32, "allocate": allocate}, l2={"sector_size": 32})
    _, (r,) = run([chase([(A, 0), (B, 0), (A, 1), (C, 0), (A, 0)])], g)
    return r.counters


def test_an_l1_sector_fill_on_fill_makes_its_line_the_most_recently_used():
    # Allocate on fill: A's second sector arrives after B; C's fill evicts B; A's first sector hits.
    c = _l1_hits("on-fill")
    assert c["l1_sector_misses"] == 1 and c["l1_hits"] == 1


def test_an_l1_sector_miss_on_miss_makes_its_line_the_most_recently_used():
    c = _l1_hits("on-miss")
    assert c["l1_sector_misses"] == 1 and c["l1_hits"] == 1
