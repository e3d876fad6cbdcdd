"""benchmarks/ldst_order.py: the phases of each memory instruction, and Accel-Sim's log rows."""

from __future__ import annotations

import numpy as np
import pytest

from tests.benchmark_module import load_benchmark

load_benchmark("compare_accelsim")  # ldst_order imports it by name
lo = load_benchmark("ldst_order")
I, T, D = lo.ISSUED, lo.TAKE, lo.DONE

#: One SM, warps 5 (rank 0) and 9 (rank 1), a load at PC 10 then a store at PC 20, twice each.
EVENTS = np.array([
    # cycle, SM, kind, warp, PC
    (0, 0, I, 5, 10), (2, 0, T, 5, 10), (20, 0, D, 5, 10),
    (25, 0, I, 5, 20), (25, 0, T, 5, 20),
    (30, 0, I, 5, 10), (31, 0, T, 5, 10), (50, 0, D, 5, 10),
    (52, 0, I, 5, 20), (53, 0, T, 5, 20),
    (1, 0, I, 9, 10), (4, 0, T, 9, 10), (30, 0, D, 9, 10),
    (40, 0, I, 9, 20), (41, 0, T, 9, 20),
    (45, 0, I, 9, 10), (46, 0, T, 9, 10), (70, 0, D, 9, 10),
    (71, 0, I, 9, 20), (75, 0, T, 9, 20),
], dtype=np.int64)


def test_phases_by_age_rank_worked_by_hand():
    table, total, order = lo.phases(EVENTS, pc=10)
    assert order == [10, 20]
    # warp 5: loads taken after 2 and 1 cycles, back 18 and 19 cycles later, next issue 5 and 2
    # cycles after that; stores taken at once and after 1, the first followed by an issue 5 later.
    # warp 9: 3 and 1; 26 and 24; 10 and 1; stores after 1 and 4, the first followed after 4.
    assert table[(10, "I->T")] == [1.5, 2.0]
    assert table[(10, "T->D")] == [18.5, 25.0]
    assert table[(10, "->next")] == [3.5, 5.5]
    assert table[(20, "I->T")] == [0.5, 2.5]
    assert table[(20, "->next")] == [5.0, 4.0]
    assert (10, "T->D") in table and (20, "T->D") not in table  # stores never complete
    # first issue to last, per trip of the PC-10 load: (52 - 0) / 2 and (71 - 1) / 2
    assert total.tolist() == [26.0, 35.0]


def test_phases_match_each_completion_to_its_own_pc():
    # warp 5's first load is now at PC 99 and completes after the PC-10 load behind it: each
    # completion belongs to the instruction of its own PC, not to the warp's next take
    extra = np.array([(0, 0, I, 5, 99), (1, 0, T, 5, 99), (40, 0, D, 5, 99)], dtype=np.int64)
    shifted = EVENTS.copy()
    shifted[shifted[:, lo.WARP] == 5, lo.CYCLE] += 5
    table, _, _ = lo.phases(np.concatenate([extra, shifted]), pc=10)
    assert table[(10, "T->D")][0] == 18.5  # taken at 7 and 36, back at 25 and 55
    assert table[(99, "T->D")][0] == 39.0
    assert table[(99, "->next")][0] == -35.0  # PC 10 issued at 5, before PC 99 came back


def test_accelsim_log_rows_include_completions(tmp_path):
    log = tmp_path / "run.log"
    log.write_text(
        "MI 5 0 1 256\nMT 6 0 1 256\nMD 40 0 1 256\nMI 41 0 1 264\n"
        "Total_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = 3\n"
        "Total_core_cache_stats_breakdown[GLOBAL_ACC_R][TOTAL_ACCESS] = 4\n"
        "gpu_tot_sim_cycle = 50\n")
    events, hit = lo.accelsim_events(log, 0)
    assert events.tolist() == [[5, 0, I, 1, 256], [6, 0, T, 1, 256], [40, 0, D, 1, 256], [41, 0, I, 1, 264]]
    assert hit == pytest.approx(75.0)
    # the order measures see issues and takes only
    assert lo.issues_and_takes(events)[:, lo.KIND].tolist() == [I, T, I]


def test_ahead_counts_what_each_issue_finds_queued_worked_by_hand():
    events = np.array([
        # cycle, SM, kind, warp, PC
        (0, 0, I, 5, 10),  # nothing ahead
        (1, 0, I, 9, 10),  # warp 5's load ahead, at PC 10
        (2, 0, T, 5, 10),
        (3, 0, I, 9, 20), (3, 0, T, 9, 10),  # the take comes first in its cycle: nothing ahead
        (4, 0, T, 9, 20),
        (6, 0, I, 5, 20), (6, 0, T, 5, 20),  # taken in the cycle of its issue: nothing ahead
        (7, 0, I, 5, 10),  # nothing ahead
        (20, 0, D, 5, 10),  # completions are not queue events
    ], dtype=np.int64)
    share, table = lo.ahead(events, [10])
    assert share.tolist() == [0.8, 0.2, 0.0, 0.0]
    assert table == {(10, 0): (0.0, 0.0), (10, 1): (1.0, 1.0), (20, 0): (0.0, 0.0), (20, 1): (0.0, 0.0)}
    # the PCs counted apart are only those given
    assert lo.ahead(events, [20])[1][(10, 1)] == (1.0, 0.0)
