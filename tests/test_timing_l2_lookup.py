"""The L2's lookup pipeline (``l2.lookup_latency``): GPGPU-Sim's ROP delay queue.

GPGPU-Sim holds every request that reaches a memory sub-partition ``rop_latency`` cycles
(``memory_sub_partition::push``) before the L2 looks it up, and then answers a hit or sends a
miss to DRAM at once. gpucache's L2 looks a request up on arrival and answers (or sends the miss
below) ``hit_latency`` later. The latencies are the same; what moves is the lookup: the window in
which a second request for a line on its way merges instead of hitting, and the time a miss holds
an L2 MSHR, are ``lookup_latency`` shorter. Closed-form figures on ``tests/test_timing.py``'s test
GPU with two SMs, one warp each. (A pipeline longer than the hit latency is refused:
``tests/test_timing_lookup.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.gpu.core import LOG_LOAD_DONE
from golden.trace.builder import KernelBuilder
from tests.test_timing import DRAM, DRAM_LATENCY, L2_HIT_LATENCY, L2_LAT, LINE, chase, gpu, run


def two_sms(d: int, line_b: int = 7) -> KernelBuilder:
    """Two CTAs of one warp (one per SM): CTA 0 loads line 7; CTA 1 first issues ``d`` compute
    instructions, then loads ``line_b``; each uses its load."""
    kb = KernelBuilder("two", (2,), (32,))
    kb.compute(d, active=kb.bx == 1)
    kb.load(0x10, np.where(kb.bx == 0, 7, line_b) * LINE)
    kb.compute(1)
    return kb


@pytest.mark.parametrize("lookup", [0, 5, L2_LAT])
def test_the_pipeline_keeps_every_latency(lookup):
    # The pointer chase of tests/test_timing.py: four DRAM misses, then (a one-line L1) the same
    # lines again from the L2, each at its closed-form latency whatever part of it is the pipeline.
    g = gpu(l1={"size": LINE, "assoc": 1}, l2={"lookup_latency": lookup})
    tm, _ = run([chase(4), chase(4)], g)
    log = tm.access_log()
    assert np.diff(log[:4, 0]).tolist() == [DRAM_LATENCY] * 3
    assert np.diff(log[4:, 0]).tolist() == [L2_HIT_LATENCY] * 3


def _done(g, d: int, line_b: int = 7) -> tuple[list[int], dict]:
    """Each CTA's load data cycle (CTA 0's, CTA 1's) and the run's counters."""
    tm, (r,) = run([two_sms(d, line_b)], g, log_ldst=True)
    done = {int(sm): int(c) for c, sm, _, _, what in tm.ldst_log() if what == LOG_LOAD_DONE}
    return [done[0], done[1]], r.counters


def test_the_merge_window_opens_at_the_lookup():
    # CTA 0's miss reaches the L2 at 7 (issue at 0, sent by the LD/ST unit at 1, into the
    # interconnect at 2, its latency and one flit); CTA 1's request for the same line 60 cycles
    # later. Looked up on arrival, the first miss goes to DRAM at 7 + 20 and its line fills at 77:
    # the second request (67) merges and its data leaves with the fill, 2 flits behind CTA 0's.
    # Looked up after the 20-cycle pipeline (27), the miss goes to DRAM at once and fills at 77 as
    # before; the second request is looked up at 87, hits, and has its data an L2 hit's latency
    # after its issue.
    done0, c0 = _done(gpu(n_sm=2), 60)
    done1, c1 = _done(gpu(n_sm=2, l2={"lookup_latency": L2_LAT}), 60)
    assert (c0["l2_hits"], c0["l2_mshr_merges"], c0["dram_reads"]) == (0, 1, 1)
    assert (c1["l2_hits"], c1["l2_mshr_merges"], c1["dram_reads"]) == (1, 0, 1)
    assert done0 == [DRAM_LATENCY, DRAM_LATENCY + 2]
    assert done1 == [DRAM_LATENCY, 60 + L2_HIT_LATENCY]
    # 40 cycles apart, the second request is inside the window either way.
    at_arrival = _done(gpu(n_sm=2), 40)
    assert at_arrival == _done(gpu(n_sm=2, l2={"lookup_latency": L2_LAT}), 40)
    assert at_arrival[1]["l2_mshr_merges"] == 1


def test_a_miss_holds_its_mshr_from_the_lookup():
    # One L2 MSHR; CTA 1 asks for another line 10 cycles after CTA 0. Looked up on arrival, the
    # first miss holds the MSHR from 7 to its fill at 77: the second request, looked up at 17,
    # waits for it, takes it at 77 and goes to DRAM 20 cycles later, at 97. With the pipeline
    # the MSHR is held from 27 to 77; the second request, looked up at 37, waits, takes it at 77
    # and goes to DRAM at once: its data comes 20 cycles sooner.
    done0, c0 = _done(gpu(n_sm=2, l2={"mshrs": 1}), 10, line_b=9)
    done1, c1 = _done(gpu(n_sm=2, l2={"mshrs": 1, "lookup_latency": L2_LAT}), 10, line_b=9)
    assert c0["l2_reservation_fails"] > 0 and c1["l2_reservation_fails"] > 0
    # The line is back DRAM cycles after it was sent, at its SM 6 cycles on (latency, 2 flits).
    assert done0 == [DRAM_LATENCY, 97 + DRAM + 6]
    assert done1 == [DRAM_LATENCY, 77 + DRAM + 6]
