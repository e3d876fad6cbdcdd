"""The cycle-level timing model (golden/gpu) against closed-form results.

Every test builds a small GPU whose latencies make the expected cycle counts
exact (DRAM timings 0, no bandwidth limits unless the test is about them),
runs hand-built kernels and checks the model's cycles, counters and
per-access log against figures worked out by hand in the test.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from golden.cache.hierarchy import Hierarchy
from golden.configs.schema import CacheConfig, GPUConfig
from golden.gpu.core import LOG_LOAD_DONE
from golden.gpu.model import DeadlockError, TimingModel, check_fits
from golden.trace.builder import KernelBuilder

# Latencies of the test GPU (cycles).
HIT, L2_LAT, ICNT, DRAM = 5, 20, 4, 50
LINE = 128


def gpu(**changes) -> GPUConfig:
    """One SM, one L2 sub-partition, fixed latencies and no bandwidth limits."""
    l1 = dict(size=16 * 1024, assoc=4, line_size=LINE, hit_latency=HIT, mshrs=32, mshr_merges=8,
              miss_queue=8, allocate="on-fill", write="write-through")
    l2 = dict(size=256 * 1024, assoc=8, line_size=LINE, hit_latency=L2_LAT, mshrs=64, mshr_merges=8)
    l1.update(changes.pop("l1", {}))
    l2.update(changes.pop("l2", {}))
    base = dict(name="test", n_sm=1, l1=CacheConfig(**l1), l2=CacheConfig(**l2), l2_partitions=1,
                schedulers_per_sm=1, scheduler="gto", max_warps_per_sm=48, max_threads_per_sm=1536,
                icnt_latency=ICNT, icnt_flit_bytes=LINE, dram_t_cl=0, dram_t_rcd=0, dram_t_rp=0,
                dram_t_ras=0, dram_bus_bytes=0, dram_latency=DRAM)
    base.update(changes)
    return GPUConfig(**base)


#: Cycles from a load's issue to its data: L1 hit; L2 hit; DRAM. The LD/ST unit sends the
#: request the cycle after issue; a miss enters the miss queue then and is injected the next
#: cycle; a request takes 1 flit and a response 2 (header + 128 B in 128-B flits), each after
#: the interconnect latency; the L2 answers after its latency, DRAM after its own.
L1_HIT_LATENCY = 1 + HIT
L2_HIT_LATENCY = 2 + ICNT + 1 + L2_LAT + ICNT + 2
DRAM_LATENCY = L2_HIT_LATENCY + DRAM


def chase(n: int, lines: list[int] | None = None) -> KernelBuilder:
    """One warp: ``n`` loads, each followed by one instruction that uses it (a pointer chase)."""
    kb = KernelBuilder("chase", (1,), (32,))
    for i in range(n):
        line = lines[i] if lines is not None else i
        kb.load(0x100 + 16 * i, np.full(32, line * LINE, np.int64))
        kb.compute(1)
    return kb


def run(kernels, g: GPUConfig, **options):
    h = Hierarchy(g)
    tm = TimingModel(g, h, log_capacity=10_000, **options)
    results = [tm.run_kernel(k.build() if isinstance(k, KernelBuilder) else k, i)
               for i, k in enumerate(kernels)]
    return tm, results


def test_pointer_chase_gives_each_level_latency():
    # 4 DRAM misses, then the same 4 lines again: L1 hits.
    tm, (r,) = run([chase(8, [0, 1, 2, 3, 0, 1, 2, 3])], gpu())
    log = tm.access_log()
    gaps = np.diff(log[:, 0])
    # A load issues the cycle its predecessor's data arrives; its request reaches the L1 one cycle later.
    assert gaps[:3].tolist() == [DRAM_LATENCY] * 3
    assert gaps[3] == DRAM_LATENCY
    assert gaps[4:].tolist() == [L1_HIT_LATENCY] * 3
    assert r.counters["l1_hits"] == 4 and r.counters["dram_reads"] == 4


@pytest.mark.parametrize("lookup", [0, 3])
def test_a_round_trip_runs_from_the_ld_st_unit_to_the_response(lookup):
    # The chase's 4 DRAM misses: each request leaves the LD/ST unit the cycle after its load issues
    # and its response wakes the warp the cycle it arrives, so a round trip is DRAM_LATENCY - 1
    # (82 cycles, log2 bin 6). A lookup pipeline (l1.lookup_latency) holds each miss that many
    # cycles before its lookup, and the trip starts before it (GPGPU-Sim's mem_fetch timestamp).
    tm, (r,) = run([chase(8, [0, 1, 2, 3, 0, 1, 2, 3])], gpu(l1={"lookup_latency": lookup}))
    c = r.counters
    trip = DRAM_LATENCY - 1 + lookup
    assert (c["round_trip_n"], c["round_trip_sum"]) == (4, 4 * trip)
    assert [c[f"round_trip_log2_{i}"] for i in range(8)] == [0] * 6 + [4, 0]
    assert c["dram_wait_n"] == 0  # the simple DRAM model has no scheduler
    # Of each trip, the way to the sub-partition: the lookup pipeline, a cycle in the miss queue,
    # the crossbar and the request's flit (GPGPU-Sim's icnt2mem); the way back: from leaving the
    # sub-partition, the crossbar and the response's 2 flits (icnt2sh). The rest is the L2's and
    # DRAM's.
    assert (c["to_memory_n"], c["to_memory_sum"]) == (4, 4 * (lookup + 1 + ICNT + 1))
    assert (c["to_sm_n"], c["to_sm_sum"]) == (4, 4 * (ICNT + 2))
    assert c["to_sm_log2_2"] == 4 and c[f"to_memory_log2_{2 if lookup == 0 else 3}"] == 4


@pytest.mark.parametrize("order", ["fifo", "round-robin"])
def test_the_loop_counts_its_events_by_kind_and_its_stepped_cycles(order):
    # The chase of the test above: 4 DRAM misses then 4 L1 hits. Each miss is one arrival at the
    # L2, one L2 fill (the DRAM's data; the simple DRAM model has no arrival or wake-up events)
    # and one L1 fill; each hit one hit event; the round robin adds an arrival at the crossbar
    # output per response, and no "free" event while no response waits behind another.
    tm, (r,) = run([chase(8, [0, 1, 2, 3, 0, 1, 2, 3])], gpu(icnt_response_order=order))
    c = r.counters
    port = 4 if order == "round-robin" else 0
    assert {k: c[f"events_{k}"] for k in ("hit", "l2_arrive", "l2_fill", "l1_fill", "dram_arrive",
                                          "dram_wake", "port_arrive", "port_free")} == \
        {"hit": 4, "l2_arrive": 4, "l2_fill": 4, "l1_fill": 4, "dram_arrive": 0, "dram_wake": 0,
         "port_arrive": port, "port_free": 0}
    # The loop jumps over the waits, and the one SM is stepped only in cycles the loop steps.
    cycles = r.end - r.start
    assert 0 < c["loop_gpu_cycles"] < cycles // 4
    assert 0 < c["loop_sm_cycles_idle"] < c["loop_sm_cycles"] <= c["loop_gpu_cycles"]


def test_a_response_s_way_back_starts_when_it_leaves_the_sub_partition():
    # One load of 4 lines whose fills come close together: the sub-partition's port sends one
    # 2-flit response at a time, so all but the first wait there (time of the L2's, GPGPU-Sim's
    # L2-to-crossbar queue); each then reaches the SM ICNT + 2 cycles after leaving.
    kb = KernelBuilder("spread", (1,), (32,))
    kb.load(0x10, (np.arange(32) // 8) * LINE * 7)
    kb.compute(1)
    _, (r,) = run([kb], gpu(icnt_packet_gap=3))
    c = r.counters
    assert (c["to_sm_n"], c["to_sm_sum"]) == (4, 4 * (ICNT + 2))
    assert c["round_trip_sum"] > 4 * (DRAM_LATENCY - 1)


@pytest.mark.parametrize("queue", [0, 1, 2, 3])
def test_a_full_l2_input_queue_holds_requests_at_their_sm(queue):
    # One load of 8 lines, sent one a cycle, each ICNT + 2 cycles from its start to the
    # sub-partition (to_memory, log2 bin 2). The L2 has one MSHR, so it serves each miss when the
    # one before it is filled and the others wait in its input queue. With the queue bounded
    # (l2_input_queue = N, room 1) an SM sends no request while N wait there: the first arrives
    # when ICNT + 2 are on their way, and is served at once; N more can be sent before the queue
    # is full, and the rest wait at the SM until the L2 serves. Since a request always waits at
    # the L2 when its MSHR frees, the responses come as without the bound: the same cycles and
    # round trips, the waits moved from the L2's queue to the way there.
    kb = KernelBuilder("spread", (1,), (32,))
    kb.load(0x10, (np.arange(32) // 4) * LINE * 7)
    kb.compute(1)
    _, (free,) = run([kb], gpu(l2={"mshrs": 1}))
    _, (r,) = run([kb], gpu(l2={"mshrs": 1}, l2_input_queue=queue))
    c = r.counters
    assert (r.cycles, c["round_trip_sum"]) == (free.cycles, free.counters["round_trip_sum"])
    passed = 8 if queue == 0 else min(8, ICNT + 2 + queue - 1)
    assert c["to_memory_n"] == 8 and c["to_memory_log2_2"] == passed
    held = [c[f"to_memory_log2_{i}"] for i in range(3, 32)]
    assert sum(held) == 8 - passed and sum(held[:3]) == 0  # each waited out at least one miss


def test_a_sub_partitions_room_rule():
    # GPGPU-Sim 4.x takes a packet while the queue has room for 4 sector requests: a queue of 5
    # with room 4 holds 2 before it refuses, as a queue of 2 with room 1 does.
    kb = KernelBuilder("spread", (1,), (32,))
    kb.load(0x10, (np.arange(32) // 4) * LINE * 7)
    runs = [run([kb], gpu(l2={"mshrs": 1}, **q))[1][0].counters["to_memory_sum"]
            for q in ({"l2_input_queue": 5, "l2_input_room": 4}, {"l2_input_queue": 2})]
    assert runs[0] == runs[1]
    with pytest.raises(ValueError, match="l2_input_room"):
        gpu(l2_input_queue=2, l2_input_room=3)


def test_pointer_chase_l2_hits():
    # A one-line L1: the second kernel's chase over the same 4 lines misses the L1, hits the L2.
    first = chase(4)
    tm, _ = run([first, chase(4)], gpu(l1={"size": LINE, "assoc": 1}))
    log = tm.access_log()
    second = log[4:, 0]
    assert np.diff(second).tolist() == [L2_HIT_LATENCY] * 3


def test_mshr_limit_of_one_serialises_misses():
    # One load of 4 different lines: with a single MSHR each miss waits for the previous fill.
    kb = KernelBuilder("spread", (1,), (32,))
    kb.load(0x10, (np.arange(32) // 8) * LINE * 7)
    tm, (r,) = run([kb], gpu(l1={"mshrs": 1}))
    log = tm.access_log()
    assert len(log) == 4
    # The retry succeeds in the cycle the previous line arrives (DRAM_LATENCY counts from issue,
    # one cycle before the LD/ST unit sends the request).
    assert np.diff(log[:, 0]).tolist() == [DRAM_LATENCY - 1] * 3
    assert r.counters["l1_reservation_fails_mshr"] == 3 * (DRAM_LATENCY - 2)
    tm2, (r2,) = run([kb], gpu())
    assert np.diff(tm2.access_log()[:, 0]).tolist() == [1, 1, 1]  # 32 MSHRs: one request per cycle
    assert r2.counters["l1_reservation_fails_mshr"] == 0
    assert r.cycles > 4 * (DRAM_LATENCY - 1) > r2.cycles


def test_crossbar_outputs_idle_between_packets():
    # One load of 4 lines (4 one-flit requests sent on consecutive cycles, 4 two-flit responses).
    # With icnt_packet_gap g the sub-partition's request port takes one every 1 + g cycles and the
    # SM's response port, the slower, one every 2 + g: the last response comes 3 * (2 + g) - 3 * 2
    # cycles later than without the gap, so the kernel lasts 3g cycles longer.
    kb = KernelBuilder("spread", (1,), (32,))
    kb.load(0x10, (np.arange(32) // 8) * LINE * 7)
    kb.compute(1)
    cycles = [run([kb], gpu(icnt_packet_gap=g))[1][0].cycles for g in (0, 1, 2)]
    assert [c - cycles[0] for c in cycles] == [0, 3, 6]
    # A store of 4 lines: 4 two-flit write requests into the sub-partition's port, one every 2 + g
    # cycles; the kernel ends when the last is written.
    kb = KernelBuilder("stores", (1,), (32,))
    kb.store(0x10, (np.arange(32) // 8) * LINE * 7)
    cycles = [run([kb], gpu(icnt_packet_gap=g))[1][0].cycles for g in (0, 1, 2)]
    assert [c - cycles[0] for c in cycles] == [0, 3, 6]
    # A single packet does not wait: a pointer chase keeps each level's latency.
    tm, _ = run([chase(4)], gpu(icnt_packet_gap=2))
    assert np.diff(tm.access_log()[:, 0]).tolist() == [DRAM_LATENCY] * 3


def test_crossbar_inputs_idle_between_packets():
    # The crossbar's inputs idle icnt_packet_gap cycles after each packet too (measured on
    # Accel-Sim: docs/validation.md, "The crossbar's inputs idle too"). Packets that leave one input
    # for different outputs show it, since no output is then busy. With 4 sub-partitions of 64
    # sets, lines 0, 64, 128 and 192 lie in different ones.
    # The SM's input: one store of 4 lines, 4 two-flit writes leaving one every 2 + g cycles, each
    # to its own sub-partition: the last is written 3g cycles later than without the gap.
    kb = KernelBuilder("stores", (1,), (32,))
    kb.store(0x10, (np.arange(32) // 8) * LINE * 64)
    cycles = [run([kb], gpu(l2_partitions=4, icnt_packet_gap=g))[1][0].cycles for g in (0, 1, 2)]
    assert [c - cycles[0] for c in cycles] == [0, 3, 6]
    # A sub-partition's input: 4 SMs load one line each, lines 0-3, all in sub-partition 0. Its
    # requests arrive one every 1 + g cycles (the output towards it), and its 2-flit responses
    # leave one every 2 + g, each to its own SM: the last 3g cycles later than without the gap
    # (without the input's gap they would leave every max(2, 1 + g) cycles: 0, 0, 3).
    kb = KernelBuilder("four-sms", (4,), (32,))
    kb.load(0x10, (np.arange(4 * 32) // 32) * LINE)
    kb.compute(1)
    cycles = [run([kb], gpu(n_sm=4, icnt_packet_gap=g))[1][0].cycles for g in (0, 1, 2)]
    assert [c - cycles[0] for c in cycles] == [0, 3, 6]


def test_l1_hands_back_one_merged_load_a_cycle():
    # 4 warps load one line: a miss and three MSHR merges, all served by the fill at cycle T.
    # Without a limit the four loads complete at T; with l1_response_rate r the k-th (in MSHR
    # order) completes at T + k // r (GPGPU-Sim's mshr_table::next_access, one a cycle): their
    # summed latency grows by sum(k // r). The warps then hit the line: hits do not queue.
    kb = KernelBuilder("merged", (1,), (128,))
    kb.load(0x10, np.zeros(128, np.int64))
    kb.compute(1)
    kb.load(0x20, np.zeros(128, np.int64))
    kb.compute(1)
    out = {}
    for rate in (0, 1, 2, 4):
        (r,) = run([kb], gpu(l1_response_rate=rate))[1]
        out[rate] = (r.counters["load_latency_sum"], r.counters["loads_completed"], r.counters["l1_hits"])
    assert out[1][0] - out[0][0] == 0 + 1 + 2 + 3
    assert out[2][0] - out[0][0] == 0 + 0 + 1 + 1
    assert out[4] == out[0]
    assert {v[1:] for v in out.values()} == {(8, 4)}


def test_merges_are_counted_exactly():
    # 4 warps load the same line in consecutive cycles (one miss, three merges); then warp 0 loads
    # a second line that warps 1-3 load too, with merges limited to 2 per MSHR: 1 merge,
    # then 2 reservation failures until the fill, then 2 hits.
    kb = KernelBuilder("merge", (1,), (128,))
    kb.load(0x10, np.zeros(128, np.int64))
    kb.compute(1)
    kb.load(0x20, np.full(128, LINE, np.int64))
    tm, (r,) = run([kb], gpu(l1={"mshr_merges": 2}))
    c = r.counters
    assert c["l1_mshr_merges"] == 1 + 1
    assert c["dram_reads"] == 2
    # First line: 1 miss + 1 merge + 2 failures then hits; second line the same.
    assert c["l1_hits"] == 4
    assert c["l1_reservation_fails_merge"] > 0
    tm2, (r2,) = run([kb], gpu())
    assert r2.counters["l1_mshr_merges"] == 6 and r2.counters["l1_hits"] == 0


def test_a_last_store_holds_its_warp_until_the_ld_st_unit_is_done():
    # The warp's last instruction is a store of 4 lines with one L1 port: the LD/ST unit needs 4
    # cycles for it, after the warp has issued everything. The warp (and the kernel) must wait
    # for the unit; before this was so, the next kernel started with the unit still holding the
    # store's row and indexed the new program with it (the kim20/ms hang).
    kb = KernelBuilder("last-store", (1,), (32,))
    kb.load(0x10, np.zeros(32, np.int64))
    kb.store(0x20, (np.arange(32) // 8) * LINE * 3 + 10 * LINE)
    tm, (first, second) = run([kb, chase(2)], gpu())
    stores = tm.access_log()[:5]
    assert stores[1:, 3].tolist() == [2] * 4  # the 4 store requests
    assert first.end > stores[-1, 0]  # the kernel ends after the unit sent the last one
    assert second.counters["l1_accesses"] == 2 and second.start == first.end


def stores_after_load(n_stores: list[int], lines: list[int]) -> KernelBuilder:
    """Warp w loads line ``lines[w]`` then stores ``n_stores[w]`` times (its stores wait for the load)."""
    kb = KernelBuilder("order", (1,), (32 * len(lines),))
    warp = kb.tid // 32
    kb.load(0x10, np.array(lines)[warp] * LINE)
    for i in range(max(n_stores)):
        kb.store(0x20 + 16 * i, (1000 + warp * 1000 + i) * LINE, active=i < np.array(n_stores)[warp])
    return kb


def issue_order(scheduler: str, **machine) -> list[int]:
    """Warps of the stores in the order the L1 saw them (line 1000 + 1000 w + i)."""
    return store_warps(issue_log(scheduler, **machine))


def issue_log(scheduler: str, **machine) -> np.ndarray:
    """The L1's access log of the three-warp example (:func:`stores_after_load`) after a warm-up."""
    warm = KernelBuilder("warm", (1,), (32,))
    warm.load(0x8, np.where(np.arange(32) < 16, 1, 2) * LINE)
    tm, _ = run([warm, stores_after_load([3, 120, 120], [50, 1, 2])], gpu(scheduler=scheduler, **machine))
    return tm.access_log()


def store_warps(log: np.ndarray) -> list[int]:
    """The warps of an access log's stores, in order."""
    stores = log[log[:, 3] == 2]
    return ((stores[:, 2] - 1000) // 1000).tolist()


def test_issue_orders_gto_lrr_oldest():
    # Warp 0 misses to DRAM; warps 1 and 2 hit in the L1 (warmed) and store 120 times each.
    gto = issue_order("gto")
    oldest = issue_order("oldest")
    lrr = issue_order("lrr")
    # GTO: warp 1 runs greedily until it is done, then warp 2 or 0 (whoever is older and ready).
    first_w0 = gto.index(0)
    assert gto[:120] == [1] * 120 and first_w0 >= 120
    # Oldest: warp 0 takes over as soon as its load is back, in the middle of warp 1's stores.
    assert oldest[:3] == [1, 1, 1] and oldest.index(0) < 100 and oldest[oldest.index(0):][:3] == [0, 0, 0]
    # LRR: warps 1 and 2 alternate.
    assert lrr[:6] == [1, 2, 1, 2, 1, 2]


@pytest.mark.parametrize("scheduler", ["gto", "oldest"])
def test_resident_warp_mask_and_slot_scan_choose_alike(scheduler):
    # With at most 62 slots a scheduler walks its resident warps through a mask (sched_active),
    # beyond that it scans every slot: the same warps, so the same cycle-by-cycle log. A warp left
    # out of the mask would only ever issue as gto's greedy choice. 128 slots: slots past the
    # mask's reach are left out of it (no shift past bit 63).
    masked = issue_log(scheduler, max_warps_per_sm=62)
    for scanned in (issue_log(scheduler, max_warps_per_sm=63), issue_log(scheduler, max_warps_per_sm=128)):
        assert len(masked) > 240 and np.array_equal(masked, scanned)
    assert store_warps(masked) == issue_order(scheduler)


def test_littles_law_bounds_streaming_throughput():
    # 32 warps each stream 8 loads of distinct lines; 4 MSHRs of a fixed DRAM latency bound the
    # throughput at 4 lines per DRAM_LATENCY cycles.
    kb = KernelBuilder("stream", (1,), (1024,))
    warp = kb.tid // 32
    for i in range(8):
        kb.load(0x10 + i * 16, (warp * 8 + i) * LINE)
        kb.compute(1)
    _, (r,) = run([kb], gpu(l1={"mshrs": 4}))
    bound = 256 * (DRAM_LATENCY + 1) / 4
    assert bound <= r.cycles <= 1.1 * bound
    _, (r32,) = run([kb], gpu(l1={"mshrs": 32}))
    assert r32.cycles < r.cycles / 4


def test_dependence_rules_change_memory_parallelism():
    # Two independent loads then a use: next-memory serialises them, none overlaps them.
    kb = KernelBuilder("two", (1,), (32,))
    kb.load(0x10, np.full(32, 0, np.int64))
    kb.load(0x20, np.full(32, LINE, np.int64))
    kb.compute(1)
    _, (serial,) = run([kb], gpu(), dependences="next-memory")
    _, (overlap,) = run([kb], gpu(), dependences="none")
    assert serial.cycles - overlap.cycles >= DRAM_LATENCY - 2


def test_barrier_holds_warps_and_ctas_dispatch_dynamically():
    kb = KernelBuilder("bar", (4,), (64,))
    kb.load(0x10, kb.gtid * 4, active=kb.tid < 32)
    kb.barrier()
    kb.store(0x20, 4096 + kb.gtid * 4)
    tm, (r,) = run([kb], gpu(max_ctas_per_sm=1))
    log = tm.access_log()
    # CTAs run one at a time: each CTA's stores come after its load returned.
    assert r.counters["ctas_launched"] == 4 and r.counters["barriers"] == 8
    loads, stores = log[log[:, 3] == 1], log[log[:, 3] == 2]
    assert (stores[:, 0].reshape(4, -1).min(axis=1) > loads[:, 0]).all()


def test_ideal_memory_reproduces_the_interleaver_order():
    from golden.trace.interleave import interleave_kernel

    kb = KernelBuilder("ideal", (3,), (96,))
    for i in range(4):
        kb.load(0x10 + 16 * i, kb.gtid * 4 + i * 4096)
        kb.compute(2)
    kernel = kb.build()
    g = gpu(mem_latency=30, max_ctas_per_sm=8, l1={"ports": 64})
    tm, _ = run([kernel], g, fixed_latency=30, dependences="next-instruction")
    log = tm.access_log()
    il = interleave_kernel(kernel, 0, g)
    # The interleaver's cycles are issue cycles; the model logs the LD/ST cycle, one later.
    assert log[:, 2].tolist() == il.accesses["line"].astype(np.int64).tolist()
    assert (log[:, 0] - 1).tolist() == il.accesses["cycle"].tolist()


def test_wavefronts_of_64_issue_two_trace_warps_together():
    kb = KernelBuilder("wave", (1,), (128,))
    kb.load(0x10, kb.gtid * 4)
    k = kb.build()
    tm32, (r32,) = run([k], gpu())
    tm64, (r64,) = run([k], gpu(warp_size=64, max_warps_per_sm=24, smem_warp_parts=2))
    assert r32.counters["global_instructions"] == 4 and r64.counters["global_instructions"] == 2
    assert r32.counters["l1_accesses"] == r64.counters["l1_accesses"] == 4


def test_impossible_configs_and_cta_fit_are_one_line_errors():
    kb = KernelBuilder("big", (1,), (1024,), shared_bytes=64 * 1024)
    with pytest.raises(ValueError, match="shared_mem_bytes: a CTA of kernel 'big' needs 65536"):
        check_fits(gpu(), kb.build())
    with pytest.raises(ValueError, match="l1.write"):
        run([chase(1)], gpu(l1={"write": "write-back"}))
    with pytest.raises(ValueError, match="warp_size"):
        gpu(warp_size=16)


def test_deadlock_is_reported_with_cycle_and_resource(monkeypatch):
    from golden.gpu import model

    g = gpu()
    h = Hierarchy(g)
    tm = TimingModel(g, h)
    # A request pool of size 0 can never send a miss: the model must stop and say so.
    tm.state.r[-1][:] = 0
    tm.state.rq_meta[0] = 0
    monkeypatch.setattr(model, "SLICE", 1000)
    with pytest.raises(DeadlockError, match=r"deadlock in kernel 'chase' at cycle \d+"):
        tm.run_kernel(chase(1).build(), 0)


def test_a_stuck_loop_is_reported_as_a_livelock(monkeypatch):
    # A loop that steps its slices but never issues nor handles anything (here: a step that does
    # nothing, as a unit waiting for a wake-up that never comes would) stops after one slice.
    from golden.gpu import model

    g = gpu()
    tm = TimingModel(g, Hierarchy(g))
    monkeypatch.setattr(model, "SLICE", 1000)
    slices = []

    def stuck(*args):
        slices.append(1)
        assert len(slices) < 3, "a stuck loop ran on unreported"

    tm._step = stuck
    with pytest.raises(DeadlockError, match=r"^livelock in kernel 'chase' at cycle \d+: 1,000 cycles with no "
                                            r"instruction issued and no event due$"):
        tm.run_kernel(chase(1).build(), 0)


def test_runs_are_deterministic():
    kb = KernelBuilder("det", (8,), (256,))
    for i in range(3):
        kb.load(0x10 + i, (kb.gtid * 37 + i * 999) % 5000 * 4)
        kb.compute(3)
        kb.store(0x40 + i, kb.gtid * 4)
    k = kb.build()
    a = run([k], gpu(n_sm=2, l2_partitions=2))[0].access_log()
    b = run([k], gpu(n_sm=2, l2_partitions=2))[0].access_log()
    assert np.array_equal(a, b)


def test_two_level_demotes_warps_waiting_at_a_barrier():
    # GPGPU-Sim's two-level scheduler demotes a "waiting" warp (shd_warp_t::waiting(): at a barrier,
    # among others) from the active set. One CTA of 4 warps and an active set of 2: the first two
    # reach the barrier and must make room for the other two, or the CTA never gets past it.
    kb = KernelBuilder("bar", (1,), (128,))
    kb.compute(2)
    kb.barrier()
    kb.compute(2)
    tm, (r,) = run([kb], gpu(scheduler="two-level", two_level_active=2))
    assert r.counters["instructions"] == 4 * 5 and r.counters["ctas_launched"] == 1


# --- L2 sectors (a sectored L2 keeps each line's valid sectors, as GPGPU-Sim's SECTOR caches) ----------

SECTORED = {"l1": {"sector_size": 32}, "l2": {"sector_size": 32}}


def sector_loads(offsets: list, store_first: int | None = None) -> KernelBuilder:
    """One warp loads one byte offset after another, each used at once.

    An offset is one address for all threads (one 32-byte sector) or the threads' addresses. With
    ``store_first`` the warp first stores the 32 bytes from that offset, a whole sector (the
    store does not wait; a sector written in part is another matter: tests/test_timing_byte_mask.py).
    """
    kb = KernelBuilder("sectors", (1,), (32,))
    if store_first is not None:
        kb.store(0x8, store_first + 4 * (np.arange(32) % 8))
    for i, off in enumerate(offsets):
        kb.load(0x100 + 16 * i, np.broadcast_to(np.asarray(off, np.int64), (32,)))
        kb.compute(1)
    return kb


def test_l2_sector_miss_reads_only_the_missing_sector():
    # Sector 0 of line 0, then sector 1 (an L1 sector miss, then an L2 sector miss: a DRAM read),
    # then sector 0 again (an L1 hit, which shows when the second load's data came back).
    tm, (r,) = run([sector_loads([0, 32, 0])], gpu(**SECTORED))
    c = r.counters
    assert (c["l2_accesses"], c["l2_hits"], c["l2_sector_misses"], c["dram_reads"]) == (2, 0, 1, 2)
    assert c["l1_sector_misses"] == 1 and c["l1_hits"] == 1
    assert (c["l1_sector_loads"], c["l1_sector_load_hits"], c["l2_sector_accesses"], c["l2_sector_hits"]) == (
        3, 1, 2, 0)
    # A 32-byte sector's response is one 128-byte flit (header and data), a line's two.
    assert np.diff(tm.access_log()[:, 0]).tolist() == [DRAM_LATENCY - 1, DRAM_LATENCY - 1]
    # An L2 without sectors (the non-sectored presets) answers the second request from the line.
    tm, (r,) = run([sector_loads([0, 32, 0])], gpu(l1={"sector_size": 32}))
    c = r.counters
    assert (c["l2_accesses"], c["l2_hits"], c["l2_sector_misses"], c["dram_reads"]) == (2, 1, 0, 1)
    assert (c["l2_sector_accesses"], c["l2_sector_hits"]) == (2, 1)  # per request without sectors
    assert np.diff(tm.access_log()[:, 0]).tolist() == [DRAM_LATENCY - 1, L2_HIT_LATENCY - 1]


def test_l2_stored_sector_is_read_without_dram():
    # A store allocates its sector without fetching it (lazy fetch-on-read): the load of that sector
    # hits the L2; the load of the next sector is a sector miss that reads it from DRAM; a load of
    # the whole line then reads the two sectors still missing (one more read).
    whole = 5 * LINE + 4 * np.arange(32)
    tm, (r,) = run([sector_loads([5 * LINE, 5 * LINE + 32, whole], store_first=5 * LINE)], gpu(**SECTORED))
    c = r.counters
    assert (c["l2_accesses"], c["l2_hits"], c["l2_sector_misses"]) == (4, 1, 2)
    assert (c["dram_reads"], c["dram_writes"]) == (2, 0)
    # Per sector: the L1 holds 2 of the last load's 4 sectors and asks the L2 for the other 2; the L2
    # sees the store's 1, then 1 (present), 1 and 2 sectors.
    assert (c["l1_sector_loads"], c["l1_sector_load_hits"]) == (6, 2)
    assert (c["l2_sector_accesses"], c["l2_sector_hits"]) == (5, 1)
    loads = tm.access_log()[1:, 0]
    assert loads[1] - loads[0] < DRAM_LATENCY


def test_l2_sector_miss_merging_into_a_pending_line_adds_a_read():
    # Two SMs ask for sectors 0 and 1 of one line in the same cycle: the second request finds the
    # line's MSHR fetching sector 0 only, so it reads sector 1 too (a sector miss, not a merge).
    kb = KernelBuilder("two", (2,), (32,))
    kb.load(0x10, kb.bx * 32)
    _, (r,) = run([kb], gpu(n_sm=2, **SECTORED))
    c = r.counters
    assert (c["l2_accesses"], c["l2_sector_misses"], c["l2_mshr_merges"], c["dram_reads"]) == (2, 1, 0, 2)
    assert c["loads_completed"] == 2
    # Without sectors: one read, one merge.
    _, (r,) = run([kb], gpu(n_sm=2, l1={"sector_size": 32}))
    c = r.counters
    assert (c["l2_accesses"], c["l2_sector_misses"], c["l2_mshr_merges"], c["dram_reads"]) == (2, 0, 1, 1)


def test_l1_load_merging_for_another_sector_reads_it():
    # Warps 0 and 1 load sectors 0 and 1 of one line in consecutive cycles, then each the other's
    # sector. The second load finds the line's MSHR fetching sector 0 only: it reads sector 1 too
    # (an L1 sector miss, GPGPU-Sim's per-sector MSHRs), so both sectors are really fetched; the
    # last two loads hit. (Merging it once let sector 1 become valid without being read.)
    kb = KernelBuilder("halves", (1,), (64,))
    warp = kb.tid // 32
    kb.load(0x10, 3 * LINE + 32 * warp)
    kb.compute(1)
    kb.load(0x20, 3 * LINE + 32 * (1 - warp))
    _, (r,) = run([kb], gpu(l1={"sector_size": 32}))
    c = r.counters
    assert (c["l1_sector_misses"], c["l1_mshr_merges"], c["l1_hits"], c["l2_accesses"]) == (1, 0, 2, 2)
    assert (c["l1_sector_loads"], c["l1_sector_load_hits"]) == (4, 2)
    # The L2 (no sectors) gets the second request while the line is on its way: a merge.
    assert (c["l2_mshr_merges"], c["dram_reads"]) == (1, 1)


def test_a_warp_blocked_for_loads_issues_anything_but_a_global_load():
    """``SchedulerControl.blocked``: 1 stops every instruction, 2 (CCWS) only a global load."""
    from golden.gpu import core, layout
    from golden.trace.model import Op, Space

    k = np.zeros(len(layout.CONFIG), np.int64)
    w = np.zeros((len(layout.TABLES["w"]), 1), np.int64)
    m = np.zeros((len(layout.TABLES["sm"]), 1), np.int64)
    m[core.M_LD_SLOT, 0] = -1
    w[core.W_W_ACTIVE, 0] = w[core.W_W_ELIG, 0] = 1
    op = np.array([Op.LOAD, Op.STORE, Op.LOAD, Op.LOAD], np.int64)
    space = np.array([Space.GLOBAL, Space.GLOBAL, Space.SHARED, Space.GLOBAL], np.int64)

    def why(blocked: int, row: int, left: int) -> int:
        w[core.W_CTL_BLOCKED, 0], w[core.W_W_ROW, 0], w[core.W_W_LEFT, 0] = blocked, row, left
        return core._why(k, w, m, op, space, 0, 0)

    for row in range(4):
        assert why(layout.UNBLOCKED, row, 0) == core.OK
        assert why(layout.BLOCK_ALL, row, 0) == core.WHY_THROTTLE
        assert why(layout.BLOCK_ALL, row, 3) == core.WHY_THROTTLE
        assert why(layout.BLOCK_LOADS, row, 3) == core.OK  # compute before the memory instruction
    assert [why(layout.BLOCK_LOADS, row, 0) for row in range(4)] == \
        [core.WHY_THROTTLE, core.OK, core.OK, core.WHY_THROTTLE]


def test_a_quiet_sms_cycles_count_its_resident_and_blocked_warps():
    """``_settle`` adds a quiet SM's cycles: resident warps, busy SM-cycles, policy-blocked warps."""
    from golden.gpu import core, layout
    from golden.gpu.state import config_vector, new_state

    g = gpu()
    k = config_vector(g)
    s = new_state(k, g.l1.lines, g.l2.lines)
    for slot in range(4):
        s.w[core.W_W_ACTIVE, slot] = 1
    s.w[core.W_CTL_BLOCKED, 1] = layout.BLOCK_ALL
    s.w[core.W_CTL_BLOCKED, 2] = layout.BLOCK_LOADS
    s.w[core.W_CTL_BLOCKED, 5] = layout.BLOCK_ALL  # a free slot's stale block does not count
    s.sm[core.M_SM_WARPS, 0] = 4
    core._count_blocked(k, s, 0)
    assert s.sm[core.M_CTL_NBLOCKED, 0] == 2
    s.sm[core.M_QUIET_FROM, 0] = 10
    core._settle(k, s, 0, 20)
    c = dict(zip(layout.COUNTERS, s.c.tolist(), strict=True))
    assert (c["warp_cycles"], c["busy_sm_cycles"], c["blocked_warp_cycles"]) == (40, 10, 20)


def test_an_sm_left_with_only_stalled_warps_releases_them():
    """``_retire``: an exit that leaves every warp of the SM with instructions left blocked releases them.

    ciao18's epochs are counted in the SM's instructions: such an SM would issue nothing until the
    whole GPU idled. A warp that issued everything does not count; another SM keeps its blocks; with
    one unblocked warp left, nothing is released.
    """
    from golden.gpu import core, layout
    from golden.gpu.state import config_vector, new_state

    g = gpu(n_sm=2, l2_partitions=2)
    k = config_vector(g)
    slots = g.max_warps_per_sm
    for free_left in (False, True):
        s = new_state(k, 2 * g.l1.lines, g.l2.lines)
        for slot in (0, 1, 2, 3, slots + 1):
            s.w[core.W_W_ACTIVE, slot] = 1
        s.w[core.W_CTL_BLOCKED, [1, 2, slots + 1]] = layout.BLOCK_ALL
        s.sm[core.M_CTL_CHANGED, [0, 1]] = 1  # as a policy's hook says when it blocks (set_blocked)
        s.w[core.W_W_DONE, 3] = 1  # unblocked, but it has nothing left to issue
        if free_left:
            s.w[core.W_CTL_BLOCKED, 2] = layout.UNBLOCKED
        s.sm[core.M_CTL_RESIDENT, 0] = s.sm[core.M_SM_WARPS, 0] = 4
        s.cta[core.T_CTA_LIVE, 0] = 4
        core._retire(k, s, 0)
        released = dict(zip(layout.COUNTERS, s.c.tolist(), strict=True))["policy_releases_sm"]
        if free_left:
            assert s.w[core.W_CTL_BLOCKED, 1] == layout.BLOCK_ALL and released == 0
        else:
            assert s.w[core.W_CTL_BLOCKED, [1, 2]].tolist() == [layout.UNBLOCKED] * 2 and released == 1
            assert s.sm[core.M_CTL_NBLOCKED, 0] == 0 and s.sm[core.M_WAKE, 0] == core.WAKE_ALL
        assert s.w[core.W_CTL_BLOCKED, slots + 1] == layout.BLOCK_ALL


def test_stalled_release_last_reactivates_the_warp_stalled_last_only():
    """``stalled_release = "last"``: of an SM's stalled warps only the latest stalled is released.

    ciao18 reactivates stalled warps "in the reverse order"; the order is the cycle the timing
    model saw each block (``w_stall_t``), a block not seen yet counting as this cycle's.
    """
    from golden.gpu import core, layout
    from golden.gpu.state import config_vector, new_state

    g = dataclasses.replace(gpu(n_sm=2, l2_partitions=2), stalled_release="last")
    k = config_vector(g)
    for stamps, freed in (((50, 10, 30), 1), ((5, 10, 30), 3), ((5, 10, 0), 3), ((7, 7, 2), 2)):
        s = new_state(k, 2 * g.l1.lines, g.l2.lines)
        s.sc[core.S_CYCLE] = 100
        for slot in (0, 1, 2, 3):
            s.w[core.W_W_ACTIVE, slot] = 1
        s.w[core.W_CTL_BLOCKED, [1, 2, 3]] = layout.BLOCK_ALL
        s.w[core.W_W_STALL_T, [1, 2, 3]] = stamps
        s.sm[core.M_CTL_NBLOCKED, 0] = 3  # counted, or pending (ctl_changed) when a stamp is 0
        s.sm[core.M_CTL_CHANGED, 0] = int(0 in stamps)
        s.sm[core.M_CTL_RESIDENT, 0] = s.sm[core.M_SM_WARPS, 0] = 4
        s.cta[core.T_CTA_LIVE, 0] = 4
        s.w[core.W_CTL_BLOCKED, 0] = layout.UNBLOCKED
        s.w[core.W_W_DONE, 0] = 1  # the exiting warp
        core._release_stalled(k, s, 0)
        blocked = s.w[core.W_CTL_BLOCKED, [1, 2, 3]].tolist()
        assert blocked == [layout.UNBLOCKED if w == freed else layout.BLOCK_ALL for w in (1, 2, 3)], stamps
        assert s.sm[core.M_CTL_NBLOCKED, 0] == 2 and s.w[core.W_W_STALL_T, freed] == 0
        assert dict(zip(layout.COUNTERS, s.c.tolist(), strict=True))["policy_releases_sm"] == 1
        core._release_stalled(k, s, 0)  # one warp is free again: nothing more
        assert s.w[core.W_CTL_BLOCKED, [1, 2, 3]].tolist() == blocked


def test_a_warp_exit_ends_the_load_blocks_of_its_sm_only():
    """``_retire``: the SM's BLOCK_LOADS warps (CCWS's stack) are released, BLOCK_ALL and other SMs kept."""
    from golden.gpu import core, layout
    from golden.gpu.state import config_vector, new_state

    g = gpu(n_sm=2, l2_partitions=2)
    k = config_vector(g)
    s = new_state(k, 2 * g.l1.lines, g.l2.lines)
    slots = g.max_warps_per_sm
    for slot in (0, 1, 2, slots + 1):
        s.w[core.W_W_ACTIVE, slot] = 1
    s.w[core.W_CTL_BLOCKED, 1] = layout.BLOCK_LOADS
    s.w[core.W_CTL_BLOCKED, 2] = layout.BLOCK_ALL
    s.w[core.W_CTL_BLOCKED, slots + 1] = layout.BLOCK_LOADS
    s.sm[core.M_CTL_CHANGED, :] = 1  # as a policy's set_blocked says of the blocks it sets
    s.sm[core.M_CTL_RESIDENT, 0] = s.sm[core.M_SM_WARPS, 0] = 3
    s.cta[core.T_CTA_LIVE, 0] = 3
    core._retire(k, s, 0)
    assert s.w[core.W_CTL_BLOCKED, [1, 2, slots + 1]].tolist() == \
        [layout.UNBLOCKED, layout.BLOCK_ALL, layout.BLOCK_LOADS]
    assert s.sm[core.M_CTL_NBLOCKED, 0] == 1


def test_round_robin_response_port_lets_a_later_sub_partition_pass():
    # Four sub-partitions of 64 sets: P0 holds lines 0-63, P1 64-127, P2 128-191. Warp 0 loads 9
    # lines alternating between P0 and P1 (0, 64, 1, 65, 2, 66, 3, 67, 4), then warp 1 one line of
    # P2 (128); all miss to DRAM. With icnt_packet_gap 2 the SM's input sends a request every 3
    # cycles (1 flit + 2), so its 10 requests leave at 0, 3, ..., 27 (relative) and their
    # responses reach the SM's output as often, one sub-partition's every 6 cycles at most (a
    # sub-partition's input sends a 2-flit response every 4). The output delivers one every 4
    # (2 flits + 2), so a queue builds: the k-th response of warp 0 is delivered at 4k, and when
    # the output frees at 28 (after line 3, P0's) lines 67 (P1, sent at 21), 4 (P0, 24) and 128
    # (P2, 27) wait. "fifo" delivers them in the order sent: 67, 4, 128 at 28, 32, 36.
    # "round-robin" goes on from P0 to P1 and then P2: 67, 128, 4. Warp 1's load completes one
    # packet (2 + 2 cycles) earlier and warp 0's, whose line 4 now comes last, as much later.
    kb = KernelBuilder("three-parts", (1,), (64,))
    lane = np.arange(64)
    k = np.minimum(lane // 3, 8)  # warp 0: each of its 9 lines on 3 or more lanes
    warp0 = np.where(k % 2 == 0, k // 2, 64 + k // 2)
    kb.load(0x10, np.where(lane < 32, warp0, 128) * LINE)
    kb.compute(1)
    done = {}
    for order in ("fifo", "round-robin"):
        g = gpu(l2_partitions=4, icnt_packet_gap=2, icnt_response_order=order)
        tm, (r,) = run([kb], g, log_ldst=True)
        done[order] = {int(w): int(c) for c, _, w, _, what in tm.ldst_log() if what == LOG_LOAD_DONE}
        assert r.counters["dram_reads"] == 10
    assert done["fifo"][1] - done["round-robin"][1] == 2 + 2
    assert done["round-robin"][0] - done["fifo"][0] == 2 + 2


def _deliver(k, s):
    """Run the crossbar's response events (arrivals at and frees of the SM outputs) to the end;
    the cycle each request's response is delivered to its L1 (``EV_L1_FILL``)."""
    from golden.gpu import core
    from golden.gpu.queues import event_advance, event_due, event_pop, event_top_time

    fills = {}
    while s.ev_meta[0] > 0:
        t = event_top_time(s.ev_node, s.ev_bucket, s.ev_ovf, s.ev_meta)
        event_advance(s.ev_node, s.ev_bucket, s.ev_ovf, s.ev_meta, t)
        while event_due(s.ev_bucket, s.ev_meta):
            v = int(event_pop(s.ev_node, s.ev_bucket, s.ev_meta))
            kind, x = v >> core._EV_SHIFT, v & core._EV_MASK
            if kind == core.EV_PORT_ARRIVE:
                core._port_arrive(k, s, t, x)
            elif kind == core.EV_PORT_FREE:
                core._port_serve(k, s, t, x)
            else:
                assert kind == core.EV_L1_FILL
                fills[x] = int(t)
    return fills


@pytest.mark.parametrize("queues", ["per-output", "single"])
def test_a_response_for_a_free_sm_waits_behind_one_for_a_busy_sm_with_a_single_input_queue(queues):
    # Sub-partition 0 sends a response to SM 0, whose output is busy until cycle 100, then one to
    # SM 1, whose output is free: 5 flits each (32-byte flits), icnt_latency ICNT. Per output, the
    # second leaves 5 cycles after the first and SM 1 takes it on arrival: delivered at
    # 10 + 5 + ICNT + 5. With one queue at the input it waits behind the first until SM 0's output
    # takes that at 100, comes up behind its last flit (105) and is delivered at 110.
    from golden.gpu import core
    from golden.gpu.state import config_vector, new_state

    g = gpu(n_sm=2, l2_partitions=2, icnt_flit_bytes=32, icnt_response_order="round-robin",
            icnt_input_queues=queues)
    k = config_vector(g)
    s = new_state(k, 2 * g.l1.lines, g.l2.lines)
    s.sm[core.M_SM_RSP_FREE, 0] = 100
    for r, sm in ((0, 0), (1, 1)):
        s.r[core.R_R_KIND, r] = core.RQ_READ
        s.r[core.R_R_SM, r] = sm
        s.r[core.R_R_PART, r] = 0
        s.r[core.R_R_SEC, r] = 0
        core._respond_to_sm(k, s, r, 0, 10)
    fills = _deliver(k, s)
    assert fills[0] == 100 + 5
    assert fills[1] == (10 + 5 + ICNT + 5 if queues == "per-output" else 100 + 5 + 5)
    assert s.part[core.P_H_N, 0] == 0 and s.part[core.P_H_BUSY, 0] == 0


def test_a_single_input_queue_needs_the_round_robin_outputs():
    with pytest.raises(ValueError, match="^icnt_input_queues: 'single' needs icnt_response_order"):
        gpu(icnt_input_queues="single")
    with pytest.raises(ValueError, match="^icnt_input_queues: must be one of per-output, single"):
        gpu(icnt_input_queues="shared", icnt_response_order="round-robin")


@pytest.mark.parametrize(("queue", "buffer", "gaps"), [
    (0, 0, [2] * 7),
    (1, 2, [6, 18, 6, 18, 6, 18, 6]),
    (2, 2, [6, 6, 12, 6, 6, 12, 6]),
    (1, 4, [2, 4, 18, 2, 4, 18, 2]),
])
def test_a_full_response_queue_holds_the_l2s_lookups(queue, buffer, gaps):
    # Kernel 0 brings 8 lines into the L2 (then another into the L1); kernel 1's 8 warps load one
    # each, past a one-line L1, and hit the L2: request i arrives at cycle a + 2i and its 2-flit
    # response is ready L2_LAT (20) after its lookup. Unbounded, the SM's output takes them back to
    # back, one every 2 cycles.
    # With icnt_response_buffer = 2 (one response) and l2_response_queue = 1: response 0 enters the
    # crossbar (ready a + 20), reaches its SM's output at a + 24 and is delivered at a + 26;
    # response 1 (ready a + 22) waits in the L2-to-icnt queue, which is then full, so request 2 is
    # not looked up. When the output takes response 0 (a + 24; its flits leave the input then),
    # response 1 enters at its last flit, is delivered ICNT + 2 later (a + 32), and request 2 is
    # looked up at a + 24; ready at a + 44, it enters when response 1's last flit leaves and is
    # delivered at a + 50: gaps of 6 and 18, a pair every L2_LAT + ICNT cycles. A queue of 2 lets
    # three responses through in each 24 cycles (6, 6, 12). A buffer of 4 (two responses) with a
    # queue of 1: response 1 enters with response 0 and comes up behind its last flit (2),
    # response 2 enters then but was ready at a + 24 and crosses from a + 26 (4), and request 3,
    # looked up at a + 24, is ready L2_LAT later. Each response's way back (to_sm), from its entry
    # into the crossbar's input (unbounded: from leaving the sub-partition's port), is ICNT + 2.
    first = KernelBuilder("prime", (1,), (32,))
    first.load(0x10, (np.arange(32) % 8) * LINE)
    first.compute(1)
    first.load(0x20, np.full(32, 100 * LINE))  # the L1's one line, after the 8
    second = KernelBuilder("hits", (1,), (256,))
    second.load(0x10, (np.arange(256) // 32) * LINE)
    second.compute(1)
    g = gpu(l1={"size": LINE, "assoc": 1}, icnt_response_order="round-robin", icnt_input_queues="single",
            l2_response_queue=queue, icnt_response_buffer=buffer)
    tm, (_, r) = run([first, second], g, log_ldst=True)
    done = sorted(int(c) for c, _, _, _, what in tm.ldst_log() if what == LOG_LOAD_DONE)[-8:]
    assert r.counters["l2_hits"] == 8
    assert np.diff(tm.access_log()[-8:, 0]).tolist() == [2] * 7
    assert np.diff(done).tolist() == gaps
    assert r.counters["to_sm_sum"] == 8 * (ICNT + 2)


def test_a_responses_way_back_starts_in_the_crossbars_input():
    # Sub-partition 0 sends three 5-flit responses (32-byte flits), ready at 10, to SM 0, whose
    # output is busy until 100; its crossbar input holds 10 flits, so responses 0 and 1 enter at
    # 10 and response 2 waits in the L2-to-icnt queue (of 1: full, the L2 looks up nothing). The
    # output takes response 0 at 100 (delivered 105); its flits leave, response 2 enters at 105,
    # and response 1, which came up behind response 0, is delivered at 110, response 2 at 115.
    # Their ways back run from their entries: 95, 100 and 10 cycles (response 1's would be 95
    # counted from its departure at 15, after response 0's 5 flits left the sub-partition).
    from golden.gpu import core
    from golden.gpu.state import config_vector, new_state

    g = gpu(n_sm=1, l2_partitions=1, icnt_flit_bytes=32, icnt_response_order="round-robin",
            icnt_input_queues="single", l2_response_queue=1, icnt_response_buffer=10)
    k = config_vector(g)
    s = new_state(k, g.l1.lines, g.l2.lines)
    s.sm[core.M_SM_RSP_FREE, 0] = 100
    for r in range(3):
        s.r[core.R_R_KIND, r] = core.RQ_READ
        s.r[core.R_R_SM, r] = 0
        s.r[core.R_R_PART, r] = 0
        s.r[core.R_R_SEC, r] = 0
        core._respond_to_sm(k, s, r, 0, 10)
    assert core._l2_output_full(k, s, 0) and s.part[core.P_X_FLITS, 0] == 10
    fills = _deliver(k, s)
    assert fills == {0: 105, 1: 110, 2: 115}
    assert [fills[r] - s.r[core.R_R_READY, r] for r in range(3)] == [95, 100, 10]
    assert not core._l2_output_full(k, s, 0) and s.part[core.P_X_FLITS, 0] == 0


def test_a_response_queue_needs_the_single_input_queue():
    with pytest.raises(ValueError, match="^icnt_response_buffer: needs icnt_input_queues 'single'"):
        gpu(icnt_response_buffer=17)
    single = dict(icnt_response_order="round-robin", icnt_input_queues="single")
    with pytest.raises(ValueError, match="^l2_response_queue: needs icnt_response_buffer"):
        gpu(l2_response_queue=4, **single)
    with pytest.raises(ValueError, match="^l2_response_queue: must be"):
        gpu(l2_response_queue=-1, icnt_response_buffer=17, **single)


def test_one_sub_partition_responds_alike_in_either_order():
    # With a single sub-partition there is nothing to take turns between: the same run, cycle for cycle.
    from tests.test_timing_self_check import mixed_kernel

    out = []
    for order in ("fifo", "round-robin"):
        g = gpu(n_sm=2, max_warps_per_sm=8, max_threads_per_sm=256, icnt_packet_gap=1,
                icnt_response_order=order, l1={"mshrs": 4, "miss_queue": 4})
        tm, results = run([mixed_kernel(3), mixed_kernel(4)], g)
        # The round robin's own events, and the loop's work they add, are the simulation's, not the GPU's.
        out.append(([(r.cycles, {k: v for k, v in r.counters.items()
                                 if not k.startswith(("loop_", "events_port_"))}) for r in results],
                    tm.access_log().tolist()))
    assert out[0] == out[1]


def test_pools_hand_out_indices_as_a_written_free_stack_would():
    # The free stacks start unwritten (0 .. N-1 implied below a mark): random takes and gives must
    # hand out the same indices, in the same order, as a stack written 0 .. N-1 at the start.
    from golden.gpu.core import _pool_give, _pool_take

    rng = np.random.default_rng(7)
    n = 64
    table = np.full((2, n), -99, np.int64)  # row 1 is the stack; -99 shows a position never written
    meta = np.array([n, n], np.int64)
    written = list(range(n))
    held: list[int] = []
    for _ in range(5000):
        if held and (len(written) == 0 or rng.random() < 0.5):
            x = held.pop(int(rng.integers(len(held))))
            _pool_give(table, 1, meta, x)
            written.append(x)
        else:
            got = _pool_take(table, 1, meta)
            assert got == written.pop()
            held.append(got)
        assert meta[0] == len(written)
    assert (table[1, :meta[1]] == -99).all()  # below the mark: never written


def cta_stores(name: str, n_ctas: int, base: int) -> KernelBuilder:
    """``n_ctas`` one-warp CTAs, each storing to a line of its own (``base + CTA``): the access log
    tells on which SM, and in which cycle, each CTA started."""
    kb = KernelBuilder(name, (n_ctas,), (32,))
    kb.store(0x10, (base + kb.gtid // 32) * LINE)
    return kb


def cta_placement(g: GPUConfig) -> list[list[tuple[int, int]]]:
    """(SM, cycle of its store) of each CTA of two 3-CTA kernels run one after the other."""
    tm, _ = run([cta_stores("a", 3, 100), cta_stores("b", 3, 200)], g)
    log = tm.access_log()
    return [[(int(log[log[:, 2] == line][0, 1]), int(log[log[:, 2] == line][0, 0]))
             for line in range(base, base + 3)] for base in (100, 200)]


def test_rotating_cta_issue_takes_one_cta_per_cluster_a_cycle_and_keeps_its_turn_across_kernels():
    four = dict(n_sm=4, max_ctas_per_sm=4)
    fill = cta_placement(gpu(**four))
    # "fill": every CTA that fits starts at once, SM 0 first, each kernel alike.
    assert [[sm for sm, _ in k] for k in fill] == [[0, 1, 2], [0, 1, 2]]
    assert len({t for _, t in fill[0]}) == 1
    # GPGPU-Sim's issue_block2core, 2 clusters of 2 SMs: cycle 0 cluster 0 (its SM 0) and cluster 1
    # (SM 2), cycle 1 cluster 0 again (its next SM, 1). Kernel b goes on from cluster 1 (last to
    # start a CTA was cluster 0): SM 3, SM 0, then SM 2 in the next cycle.
    rot = cta_placement(gpu(cta_issue="rotating", sms_per_cluster=2, **four))
    assert [[sm for sm, _ in k] for k in rot] == [[0, 2, 1], [3, 0, 2]]
    for k in rot:
        assert k[0][1] == k[1][1] == k[2][1] - 1
    # One SM per cluster, the turn begun at SM 1 (GPGPU-Sim 3.2.2): a, SMs 1 to 3 in one cycle;
    # b from SM 0.
    rot1 = cta_placement(gpu(cta_issue="rotating", cta_first_cluster=1, **four))
    assert [[sm for sm, _ in k] for k in rot1] == [[1, 2, 3], [0, 1, 2]]


def test_cta_issue_fields_are_checked():
    with pytest.raises(ValueError, match="^cta_issue: must be one of fill, rotating, not 'random'"):
        gpu(cta_issue="random")
    with pytest.raises(ValueError, match=r"^sms_per_cluster: must divide n_sm \(4\), not 3"):
        gpu(n_sm=4, sms_per_cluster=3)
    with pytest.raises(ValueError, match="^cta_first_cluster: must be below the 2 clusters, not 2"):
        gpu(n_sm=4, sms_per_cluster=2, cta_first_cluster=2)


def test_segment_bytes_follow_gpgpu_sims_coalescer():
    from golden.gpu.core import _segment_bytes

    # memory_coalescing_arch_reduce_and_send on a 128-byte segment: chunk mask -> bytes.
    for chunks, nbytes in ((0b0001, 32), (0b0100, 32), (0b0011, 64), (0b1100, 64), (0b0110, 128),
                           (0b1001, 128), (0b0101, 128), (0b1111, 128)):
        assert _segment_bytes(np.int64(chunks), 128) == nbytes, chunks
    # A 256-byte line is two segments; a 64-byte line one of 64.
    assert _segment_bytes(np.int64(0b0001_0001), 256) == 64
    assert _segment_bytes(np.int64(0b11), 64) == 64 and _segment_bytes(np.int64(0b10), 64) == 32


def stores(lanes_per_line: int) -> KernelBuilder:
    """One warp storing a word per lane, ``lanes_per_line`` consecutive lanes to each line."""
    kb = KernelBuilder("st", (1,), (32,))
    lane = kb.gtid
    kb.store(0x10, (lane // lanes_per_line) * LINE + (lane % lanes_per_line) * 4)
    return kb


def test_store_chunks_of_the_program():
    from golden.gpu.program import kernel_program

    for lanes, chunks in ((32, 0b1111), (16, 0b0011), (8, 0b0001), (1, 0b0001)):
        p = kernel_program(stores(lanes).build(), 32, LINE, 0, write_chunks=True)
        assert (p.req_chunks == chunks).all() and len(p.req_chunks) == 32 // lanes
    assert kernel_program(stores(1).build(), 32, LINE, 0).req_chunks is None


def test_segment_writes_take_fewer_flits_than_lines():
    # 32 stores of one word each, through one SM's port and one sub-partition's, in 32-byte flits:
    # 136 bytes (5 flits) each as lines, 40 bytes (2 flits) as GPGPU-Sim's 32-byte segments, so the
    # last one reaches the L2 32 x 3 cycles sooner. A coalesced store is 128 bytes either way.
    def cycles(kb, **machine):
        return {p: run([kb], gpu(write_packet=p, icnt_flit_bytes=32, **machine))[1][0].cycles
                for p in ("line", "segment")}

    words = cycles(stores(1))
    assert words["line"] - words["segment"] == 32 * 3
    coalesced = cycles(stores(32))
    assert coalesced["line"] == coalesced["segment"]
    # With sectors a store carries its sectors either way.
    sectored = cycles(stores(1), l1={"sector_size": 32})
    assert sectored["line"] == sectored["segment"] == words["segment"]


def test_write_packet_is_checked():
    with pytest.raises(ValueError, match="^write_packet: must be one of line, segment, not 'word'"):
        gpu(write_packet="word")
    with pytest.raises(ValueError, match="^write_packet: 'segment' needs L1 lines of whole 32-byte chunks"):
        gpu(write_packet="segment", l1={"line_size": 16}, l2={"line_size": 16})
