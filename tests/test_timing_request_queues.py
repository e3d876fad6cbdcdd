"""The requests' crossbar (``icnt_request_queues``) and sector coalescing (``coalescing``).

GPGPU-Sim's crossbar has one virtual channel (``num_vcs = 1``) and a node per cluster of
``sms_per_cluster`` SMs: a cluster's requests wait in one queue at its input, whose head, while
its sub-partition's output is busy, holds every request behind it. ``"single"`` models that;
``"per-output"`` (the default) lets a request leave its SM as soon as the SM's input is free and
wait at its output. From ``gpgpu_coalesce_arch`` 40 on, its coalescer makes every transaction a
32-byte sector: ``coalescing = "sector"`` gives each sector a request of its own. Closed-form
figures on ``tests/test_timing.py``'s test GPU (``docs/timing.md``, "Interconnect" and "LD/ST
unit and L1").
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.configs.schema import GPUConfig
from golden.gpu.core import LOG_LOAD_DONE
from golden.gpu.program import kernel_program
from golden.trace.builder import KernelBuilder
from tests.test_timing import DRAM_LATENCY, LINE, SECTORED, gpu, run

#: A test GPU with 32-byte flits: a store of a whole line is 5 flits (8-byte header + 128 bytes).
FLIT = 32
STORE_FLITS = (LINE + 8 + FLIT - 1) // FLIT


#: The test GPU's L2 has 256 sets of lines: in 2 sub-partitions, lines below 128 are
#: sub-partition 0's; in 4, each has 64 lines in turn.
PART1 = 128


def store_then_load() -> KernelBuilder:
    """One warp on each of two SMs: a store of all of line 0 (sub-partition 0 of 4), then a load of
    line ``64 + 3`` on SM 0 (sub-partition 1) and ``128 + 3`` on SM 1 (sub-partition 2), used."""
    kb = KernelBuilder("store-load", (2,), (32,))
    kb.store(0x8, 4 * kb.tx)
    kb.load(0x10, (64 * (1 + kb.bx) + 3) * LINE)
    kb.compute(1)
    return kb


def _load_done(g: GPUConfig, kb: KernelBuilder) -> dict[int, int]:
    """The cycle each SM's load had its data."""
    tm, _ = run([kb], g, log_ldst=True)
    return {int(sm): int(c) for c, sm, _, _, what in tm.ldst_log() if what == LOG_LOAD_DONE}


def two_sms(**changes) -> GPUConfig:
    return gpu(n_sm=2, icnt_flit_bytes=FLIT, **{"l2_partitions": 2, **changes})


def test_a_head_waiting_for_its_output_holds_the_request_behind_it():
    # Both SMs store line 0 at the same cycle (injected at 2): SM 1's store waits at sub-partition
    # 0's output for SM 0's 5 flits. Per output, SM 1's load (to an idle sub-partition) leaves
    # its SM behind its own store's flits, as SM 0's does, and both loads take the same time; in
    # one queue it leaves only once the store's output has taken the store, 5 cycles later. SM
    # 0's store is never held: its load is the same either way.
    per_output = _load_done(two_sms(l2_partitions=4), store_then_load())
    single = _load_done(two_sms(l2_partitions=4, icnt_request_queues="single"), store_then_load())
    assert per_output[0] == per_output[1] == single[0]
    assert single[1] - per_output[1] == STORE_FLITS


def test_a_clusters_sms_share_its_input():
    # Two SMs of one cluster load lines in different sub-partitions at the same cycle: per output
    # each SM has an input and both loads take DRAM's latency (with 5-flit responses here, 3
    # more than the test GPU's 2); in one queue per cluster the second waits the first's flit.
    kb = KernelBuilder("two-loads", (2,), (32,))
    kb.load(0x10, (3 + PART1 * kb.bx) * LINE)
    kb.compute(1)
    latency = DRAM_LATENCY + STORE_FLITS - 2
    per_output = _load_done(two_sms(sms_per_cluster=2), kb)
    single = _load_done(two_sms(sms_per_cluster=2, icnt_request_queues="single"), kb)
    assert per_output == {0: latency, 1: latency}
    assert sorted(single.values()) == [latency, latency + 1]
    # Clusters of one SM each: no sharing, and no output busy: the same as per output.
    assert _load_done(two_sms(icnt_request_queues="single"), kb) == per_output


def test_the_clusters_input_buffer_takes_the_waiting_requests_off_the_miss_queue():
    # One SM: warp 0 stores a line (5 flits), then four warps each load another line, all to the
    # one sub-partition. The store holds the input for its 5 flits; the loads behind it wait at the
    # input for the output. With a one-entry miss queue the next load's lookup finds it full
    # (reservation failures), unless the cluster's input buffer takes the waiting ones.
    kb = KernelBuilder("burst", (1,), (128,))
    warp = kb.tx // 32
    kb.store(0x8, 4 * (kb.tx % 32), active=warp == 0)
    kb.load(0x10, (1 + warp) * LINE)
    kb.compute(1)

    def fails(buffer: int) -> int:
        g = gpu(icnt_flit_bytes=FLIT, icnt_request_queues="single", icnt_input_buffer=buffer,
                l1={"miss_queue": 1})
        return run([kb], g)[1][0].counters["l1_reservation_fails_queue"]

    assert fails(0) > 0
    assert fails(4) == 0


def whole_line_load() -> KernelBuilder:
    """One warp loads the 4 sectors of line 7 (a float a thread), then uses them."""
    kb = KernelBuilder("line", (1,), (32,))
    kb.load(0x10, 7 * LINE + 4 * np.arange(32))
    kb.compute(1)
    return kb


def test_sector_coalescing_makes_a_request_per_sector():
    k = whole_line_load().build()
    line = kernel_program(k, 32, LINE, 32)
    sector = kernel_program(k, 32, LINE, 32, per_sector=True)
    assert line.req_sec.tolist() == [0b1111] and line.req_line.tolist() == [7]
    assert sector.req_sec.tolist() == [1, 2, 4, 8] and sector.req_line.tolist() == [7] * 4
    assert sector.req_ptr[-1] == 4
    with pytest.raises(ValueError, match="per_sector"):
        kernel_program(k, 32, LINE, 0, per_sector=True)


def test_a_stores_bytes_go_on_their_sectors_request():
    # Threads 0-7 write sector 0 of line 2 and threads 16-23 sector 2: two requests, each with the
    # bytes of its own sector only.
    kb = KernelBuilder("st", (1,), (32,))
    lane = np.arange(32)
    kb.store(0x8, 2 * LINE + 4 * lane, active=(lane < 8) | ((lane >= 16) & (lane < 24)))
    p = kernel_program(kb.build(), 32, LINE, 32, write_bytes=True, per_sector=True)
    assert p.req_sec.tolist() == [1, 4]
    full = 0xFFFFFFFF
    assert p.req_wbytes.tolist() == [[full, 0, 0, 0], [0, 0, full, 0]]


def test_each_sector_takes_a_cycle_of_the_ldst_unit():
    # Per line, the 4 sectors go out in one request and come back in one response. Per sector,
    # the LD/ST unit sends one a cycle, so the last reaches the L2 3 cycles after the first; the
    # L2's MSHR for the line reads each sector and answers all four when the last is back (one
    # MSHR a line: docs/timing.md, "L2 sectors"), in 2-flit responses (8 + 32 bytes in 32-byte
    # flits) one after the other. The load's data is the last one's: 3 + 3 x 2 cycles after a
    # single sector's DRAM latency.
    g = gpu(icnt_flit_bytes=FLIT, **SECTORED)
    line_done = _load_done(g, whole_line_load())[0]
    sector_done = _load_done(gpu(icnt_flit_bytes=FLIT, coalescing="sector", **SECTORED),
                             whole_line_load())[0]
    # Per line: 5 flits of response (8 + 128 bytes) instead of the test GPU's 2 in 128-byte flits.
    assert line_done == DRAM_LATENCY + (STORE_FLITS - 2)
    assert sector_done == DRAM_LATENCY + 3 + 3 * 2
    tm, (r,) = run([whole_line_load()], gpu(icnt_flit_bytes=FLIT, coalescing="sector", **SECTORED))
    c = r.counters
    assert (c["l1_accesses"], c["l2_accesses"], c["dram_reads"]) == (4, 4, 4)
    assert (c["l1_sector_loads"], c["l2_sector_accesses"]) == (4, 4)


@pytest.mark.parametrize("changes, field", [
    ({"coalescing": "sector"}, "coalescing"),  # the test GPU's L1 has no sectors
    ({"coalescing": "sector", "warp_size": 64, **SECTORED}, "coalescing"),
    ({"coalescing": "segment"}, "coalescing"),
    ({"icnt_request_queues": "fifo"}, "icnt_request_queues"),
    ({"icnt_input_buffer": -1}, "icnt_input_buffer"),
])
def test_bad_choices_name_the_field(changes, field):
    with pytest.raises(ValueError, match=f"^{field}: "):
        gpu(**changes)


def test_a_head_its_sub_partition_refuses_holds_its_clusters_input():
    # SM 0 loads 8 lines of sub-partition 0, whose L2 has one MSHR and an input queue of one
    # (l2_input_queue): its later requests wait at the SM, the oldest heading its miss queue. SM 1,
    # of the same cluster, loads a line of sub-partition 1 after 30 instructions, when SM 0's head
    # is refused. In one queue per cluster SM 1's request waits behind that older head (GPGPU-Sim's
    # packet waits behind it in the crossbar); per output, or with the queue unbounded, it leaves
    # at once and takes DRAM's latency (with 5-flit responses) from its issue at cycle 30.
    kb = KernelBuilder("held", (2,), (32,))
    sm0 = kb.bx == 0
    kb.load(0x10, ((kb.tx // 4) * 7) * LINE, active=sm0)
    kb.compute(30, active=~sm0)
    kb.load(0x20, (PART1 + 3) * LINE + 0 * kb.tx, active=~sm0)
    kb.compute(1)
    done = {(q, cap): _load_done(two_sms(sms_per_cluster=2, icnt_request_queues=q, l2={"mshrs": 1},
                                         l2_input_queue=cap), kb)
            for q in ("per-output", "single") for cap in (0, 1)}
    free = done["per-output", 0]
    assert free[1] == 30 + DRAM_LATENCY + STORE_FLITS - 2
    assert done["per-output", 1] == done["single", 0] == free
    held = done["single", 1]
    assert held[0] == free[0] and held[1] > free[1] + DRAM_LATENCY
