"""The LD/ST unit's instruction queue and its log, the issue order and allocate-on-miss reservations.

Hand-worked cases on the test GPU of ``tests/test_timing.py`` (fixed latencies,
one request per cycle): ``ldst_queue`` (memory instructions waiting between
issue and the LD/ST unit, in issue order), ``issue_order`` (which scheduler
issues first within a cycle) and ``allocate = "on-miss"`` as GPGPU-Sim does it
(the line's way is reserved from the miss to the fill; a set whose every way
is reserved refuses a miss; the line's LRU stamp is the miss's).
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.cache.hierarchy import Hierarchy
from golden.configs.presets import preset
from golden.configs.schema import GPUConfig
from golden.gpu.core import LOG_LDST_TAKE, LOG_LOAD_DONE, LOG_MEM_ISSUE
from golden.gpu.model import TimingModel
from golden.trace.builder import KernelBuilder
from golden.workloads import registry
from tests.test_timing import DRAM_LATENCY, LINE, gpu, run


def loads_per_warp(warps: int, lines_per_load: int, base: int = 0) -> KernelBuilder:
    """One CTA: warp ``w`` loads ``lines_per_load`` lines of its own (lines ``base + 10 w + i``)."""
    kb = KernelBuilder("loads", (1,), (32 * warps,))
    lane = np.arange(32 * warps)
    kb.load(0x10, (base + 10 * (lane // 32) + lane % 32 % lines_per_load) * LINE)
    return kb


@pytest.mark.parametrize(("queue", "structural"), [(0, 6), (1, 2), (2, 0)])
def test_ldst_queue_lets_warps_issue_while_the_unit_is_busy(queue, structural):
    # 3 warps, each one load of 4 lines; the unit sends a line a cycle (cycles 1-12, in warp order).
    # Without a queue warp 1 waits for the unit in cycles 1-3 and warp 2 in 1-7 (one scheduler:
    # 6 structural stall cycles); a queue of 1 takes warp 1 at cycle 1, and warp 2 waits in
    # cycles 2-3 until the unit takes warp 1 at cycle 4; a queue of 2 takes both at once.
    tm, (r,) = run([loads_per_warp(3, 4)], gpu(ldst_queue=queue))
    log = tm.access_log()
    assert log[:, 0].tolist() == list(range(1, 13))
    assert log[:, 2].tolist() == [10 * w + i for w in range(3) for i in range(4)]
    assert r.counters["stall_structural"] == structural


@pytest.mark.parametrize(("dispatch", "order"), [("issue-order", [0, 1, 2, 3, 4]),
                                                  ("round-robin", [0, 1, 3, 2, 4])])
def test_ldst_dispatch_takes_the_collector_units_round_robin(dispatch, order):
    # 5 warps, each one load of 4 lines, a queue of 4: ID_OC_MEM, collector units 0 and 1,
    # OC_EX_MEM. Warp 0 issues at cycle 0 into the free unit; warp 1 at 1 into OC_EX_MEM (the
    # queue is empty), warp 2 at 2 into unit 0 and warp 3 at 3 into unit 1 (the lowest free).
    # When the unit takes warp 1 at cycle 4, GPGPU-Sim's dispatch looks from the unit after the
    # last dispatched (unit 0 at the start): unit 1, warp 3, goes first; warp 4, issued at 4, takes
    # the unit it freed, and the next look, from unit 0, finds warp 2 before warp 4.
    tm, (r,) = run([loads_per_warp(5, 4)], gpu(ldst_queue=4, ldst_dispatch=dispatch))
    log = tm.access_log()
    assert log[:, 0].tolist() == list(range(1, 21))
    assert log[:, 2].tolist() == [10 * w + i for w in order for i in range(4)]
    assert r.counters["stall_structural"] == 0


def test_ldst_dispatch_round_robin_needs_room_for_a_collector_unit():
    with pytest.raises(ValueError, match="^ldst_dispatch: 'round-robin' needs ldst_queue of at least 3"):
        gpu(ldst_queue=2, ldst_dispatch="round-robin")
    with pytest.raises(ValueError, match="^ldst_dispatch: must be one of issue-order, round-robin"):
        gpu(ldst_queue=4, ldst_dispatch="rr")


def test_a_queued_store_keeps_its_warp_until_the_unit_sends_it():
    # Warp 1's only instruction, a store, waits in the queue behind warp 0's load: the warp has
    # issued everything but retires only once the unit has sent the store (cycles 5-8), so the
    # kernel ends with the unit and the queue empty and a second kernel can start.
    kb = KernelBuilder("store", (1,), (64,))
    lane = np.arange(64)
    kb.load(0x10, (lane % 4) * LINE, active=lane < 32)
    kb.store(0x20, (100 + lane % 4) * LINE, active=lane >= 32)
    tm, (r, r2) = run([kb, loads_per_warp(1, 1, base=50)], gpu(ldst_queue=1))
    log = tm.access_log()
    assert log[:8, 0].tolist() == list(range(1, 9))
    assert log[4:8, 2].tolist() == [100, 101, 102, 103]
    assert r2.counters["l1_accesses"] == 1


@pytest.mark.parametrize(("order", "warps"), [("fixed", [0, 2, 1, 3]), ("rotating", [0, 1, 2, 3])])
def test_issue_order_decides_which_scheduler_gets_the_unit(order, warps):
    # 2 schedulers (warp w on scheduler w % 2), 4 warps of one 3-line load each, no queue: the
    # unit frees at cycles 3, 6 and 9. "fixed" gives it to scheduler 0 whenever it has a warp
    # (warps 0, 2, then 1, 3); "rotating" starts with scheduler t % 2 (cycle 3: scheduler 1).
    tm, _ = run([loads_per_warp(4, 3)], gpu(schedulers_per_sm=2, issue_order=order))
    lines = tm.access_log()[:, 2]
    assert (lines[::3] // 10).tolist() == warps


def one_set(**l1) -> GPUConfig:
    """An L1 of one set of 2 ways, allocate on miss."""
    return gpu(l1=dict(size=2 * LINE, assoc=2, allocate="on-miss") | l1)


def test_a_set_of_reserved_ways_refuses_a_miss_until_a_fill():
    # One load of lines 0, 1, 2 into one 2-way set: lines 0 and 1 reserve both ways (cycles 1, 2);
    # line 2 fails from cycle 3 until line 0's fill frees a way, DRAM_LATENCY - 1 cycles after its
    # request (the fill comes before the LD/ST unit in a cycle); line 2 then takes line 0's way.
    # The next load of lines 0 and 1: line 0 misses and replaces line 1 (stamped at its miss in
    # cycle 2, before line 2's at cycle fill0), so line 1 misses too.
    kb = KernelBuilder("reserve", (1,), (32,))
    lane = np.arange(32)
    kb.load(0x10, (lane % 3) * LINE)
    kb.load(0x20, (lane % 2) * LINE)
    tm, (r,) = run([kb], one_set())
    log = tm.access_log()
    fill0 = 1 + DRAM_LATENCY - 1
    assert log[:3, 0].tolist() == [1, 2, fill0]
    assert r.counters["l1_reservation_fails_line"] == fill0 - 3
    assert log[3:, 2].tolist() == [0, 1] and log[3:, 4].tolist() == [2, 2]
    # Allocate on fill reserves nothing: line 2 goes at cycle 3, and a fill evicts instead.
    tm2, (r2,) = run([kb], one_set(allocate="on-fill"))
    assert tm2.access_log()[:3, 0].tolist() == [1, 2, 3]
    assert r2.counters["l1_reservation_fails_line"] == 0


def test_a_reserved_line_keeps_the_stamp_of_its_miss():
    # Kernel 1 leaves line 7 in the L2 (not the L1: lines 8 and 9 follow it into the 2-way set).
    # Kernel 2 loads line 5 (a DRAM miss, cycle 1) and line 7 (an L2 hit, cycle 2): 7 fills first,
    # but 5 missed first, so 5 is the older and line 6's miss replaces it (GPGPU-Sim: the
    # allocation sets the last access time, the fill does not). Line 7 again hits; a stamp taken
    # at the fill would have made 7 the older and replaced it instead.
    warm = KernelBuilder("warm", (1,), (32,))
    for i, line in enumerate((7, 8, 9)):
        warm.load(0x10 + i, np.full(32, line * LINE))
    kb = KernelBuilder("stamps", (1,), (32,))
    lane = np.arange(32)
    kb.load(0x20, np.where(lane < 16, 5, 7) * LINE)
    kb.load(0x30, np.full(32, 6 * LINE))
    kb.load(0x40, np.full(32, 7 * LINE))
    tm, _ = run([warm, kb], one_set())
    log = tm.access_log()
    assert log[-4:, 2].tolist() == [5, 7, 6, 7]
    assert log[-4:, 4].tolist() == [2, 2, 2, 1]


def test_a_store_to_a_reserved_line_misses():
    # A write-evict L1: a store to a line waiting for its fill is a miss (GPGPU-Sim's HIT_RESERVED
    # goes to the write-miss path) and leaves the reservation alone: the load after the fill hits.
    kb = KernelBuilder("store", (1,), (64,))
    lane = np.arange(64)
    kb.load(0x10, np.full(64, 3 * LINE), active=lane < 32)
    kb.store(0x20, np.full(64, 3 * LINE), active=lane >= 32)
    kb.compute(1)
    kb.load(0x30, np.full(64, 3 * LINE), active=lane < 32)
    tm, (r,) = run([kb], one_set(write="write-evict"))
    log = tm.access_log()
    assert log[:, 3].tolist() == [1, 2, 1] and log[:, 4].tolist() == [2, 2, 1]


def test_an_l2_set_of_reserved_ways_refuses_a_request():
    # A 1-way L2 set, allocate on miss: the warp's lines 0 and 64 map to it; 64 waits at the L2
    # (reservation failures) until line 0 arrives from DRAM, then takes the way and goes to DRAM.
    kb = KernelBuilder("l2", (1,), (32,))
    lane = np.arange(32)
    kb.load(0x10, (lane % 2) * 64 * LINE)
    g = gpu(l2=dict(size=64 * LINE, assoc=1, allocate="on-miss"))
    tm, (r,) = run([kb], g)
    assert r.counters["l2_reservation_fails"] > 0
    assert r.counters["dram_reads"] == 2
    g2 = gpu(l2=dict(size=64 * LINE, assoc=1, allocate="on-fill"))
    tm2, (r2,) = run([kb], g2)
    assert r2.counters["l2_reservation_fails"] == 0
    assert r.cycles > r2.cycles


@pytest.mark.parametrize(("mode", "reads", "writes"), [("lazy", 0, 0), ("fetch", 1, 1)])
def test_l2_write_allocate_fetch_writes_through_and_reads_the_line(mode, reads, writes):
    # A store that misses a write-back L2: "lazy" (GPGPU-Sim's L) makes the written bytes the line's;
    # "fetch" (GPGPU-Sim's W) also writes them to DRAM and reads the line in, clean, so the load of
    # the line after it waits for that read (it merges) and nothing is written back later.
    kb = KernelBuilder("wa", (1,), (32,))
    kb.store(0x10, np.full(32, 9 * LINE))
    kb.load(0x20, np.full(32, 9 * LINE))
    tm, (r,) = run([kb], gpu(l2=dict(allocate="on-miss", write_allocate=mode)))
    c = r.counters
    assert (c["dram_reads"], c["dram_writes"]) == (reads, writes)
    assert c["l2_accesses"] == 2
    assert c["l2_hits"] + c["l2_mshr_merges"] == 1


def test_write_allocate_fetch_needs_a_write_back_cache():
    with pytest.raises(ValueError, match="write_allocate: 'fetch' allocates store misses of a write-back"):
        gpu(l2=dict(write="write-through", write_allocate="fetch"))
    with pytest.raises(ValueError, match="write_allocate: must be one of lazy, fetch"):
        gpu(l2=dict(write_allocate="naive"))


def test_ldst_log_gives_each_instructions_issue_and_take():
    # The first test's case with a queue of 1: warp 0 issues at cycle 0 to the free unit (taken at
    # once), warp 1 issues at cycle 1 into the queue, the unit takes it at 4 when warp 0's 4 lines
    # are sent, and warp 2 issues into the freed slot the same cycle; the unit takes it at 8. The
    # 12 lines miss to DRAM: the first, sent at cycle 1, is back at 0 + DRAM_LATENCY, and the SM's
    # output delivers a 2-flit response every 2 cycles, so each warp's load is done with its 4th
    # line, 8 cycles after the previous warp's.
    tm, _ = run([loads_per_warp(3, 4)], gpu(ldst_queue=1), log_ldst=True)
    issue, take, done = LOG_MEM_ISSUE, LOG_LDST_TAKE, LOG_LOAD_DONE
    first = DRAM_LATENCY + 3 * 2
    assert tm.ldst_log().tolist() == [[0, 0, 0, 0, issue], [0, 0, 0, 0, take], [1, 0, 1, 1, issue],
                                      [4, 0, 1, 1, take], [4, 0, 2, 2, issue], [8, 0, 2, 2, take],
                                      [first, 0, 0, 0, done], [first + 8, 0, 1, 1, done],
                                      [first + 16, 0, 2, 2, done]]
    assert tm.access_log()[:, 0].tolist() == list(range(1, 13))  # the accesses alone, as without it


def test_ldst_log_on_a_whole_workload_is_in_order_and_changes_nothing():
    # bicg at 0.01 on the ciao18 preset (2 schedulers, a queue of 4): per SM the unit takes the
    # instructions in issue order, each at or after its issue, never more than ldst_queue waiting;
    # every global instruction with requests is logged twice; the run is the same without the log.
    g = preset("ciao18")
    wl = registry.build("rdgc/bicg", 0.01)
    runs = []
    for flag in (False, True):
        tm = TimingModel(g, Hierarchy(g), log_capacity=200_000, log_ldst=flag)
        results = [tm.run_kernel(k, i) for i, k in enumerate(wl.kernels)]
        runs.append((tm, [(r.cycles, r.counters) for r in results]))
    assert runs[0][1] == runs[1][1]
    assert np.array_equal(runs[0][0].access_log(), runs[1][0].access_log())
    assert len(runs[0][0].ldst_log()) == 0
    log = runs[1][0].ldst_log()
    issued, taken = log[log[:, 4] == LOG_MEM_ISSUE], log[log[:, 4] == LOG_LDST_TAKE]
    assert len(issued) == len(taken) == sum(c["global_instructions"] for _, c in runs[1][1]) > 100
    for sm in np.unique(log[:, 1]):
        i, t = issued[issued[:, 1] == sm], taken[taken[:, 1] == sm]
        assert np.array_equal(i[:, 2:4], t[:, 2:4])  # first in, first out
        assert (t[:, 0] >= i[:, 0]).all()
        # Waiting at the end of each cycle: issued so far minus taken so far (the one in the unit
        # is taken), at most the queue's 4.
        ends = np.unique(log[log[:, 1] == sm, 0])
        waiting = np.searchsorted(i[:, 0], ends, "right") - np.searchsorted(t[:, 0], ends, "right")
        assert waiting.max() <= g.ldst_queue and waiting.min() >= 0


def test_ldst_log_needs_the_per_access_log():
    with pytest.raises(ValueError, match="^log_ldst: "):
        TimingModel(gpu(), Hierarchy(gpu()), log_ldst=True)
