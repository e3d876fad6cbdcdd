"""Loads sent past the L1 before its lookup (``on_lookup``), the L1's lookup pipeline and miss latency.

kim20's B mode skips the L1 (no lookup, MSHR or line, and no L1 latency). On kim20's machine
(GPGPU-Sim 4.0) every L1 access waits the L1's latency queue before its tag lookup
(``l1.lookup_latency``); ``l1.miss_latency`` instead holds a miss after the lookup (the model's
earlier reading of that queue). The closed-form latencies are those of ``tests/test_timing.py``'s
test GPU.
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.cache.engine import BYPASSED
from golden.cache.hierarchy import Hierarchy
from golden.gpu.core import LOG_BYPASS
from golden.gpu.model import TimingModel
from golden.gpu.state import config_vector
from golden.policies import get_policy
from golden.trace.builder import KernelBuilder
from golden.trace.coalesce import ACCESS_DTYPE
from tests.test_timing import DRAM_LATENCY, L1_HIT_LATENCY, L2_HIT_LATENCY, LINE, chase, gpu

MISS_LAT = 30
LOOKUP = 30


def _run(kernels, g, policy=None):
    h = Hierarchy(g, policy)
    tm = TimingModel(g, h, log_capacity=10_000)
    results = [tm.run_kernel(k.build(), i) for i, k in enumerate(kernels)]
    return tm, results


def test_a_miss_waits_the_miss_latency_and_a_hit_does_not():
    tm, (r,) = _run([chase(8, [0, 1, 2, 3, 0, 1, 2, 3])], gpu(l1={"miss_latency": MISS_LAT}))
    gaps = np.diff(tm.access_log()[:, 0]).tolist()
    assert gaps[:4] == [DRAM_LATENCY + MISS_LAT] * 4
    assert gaps[4:] == [L1_HIT_LATENCY] * 3
    # A store waits it too (it looked the L1 up), but makes no warp wait.
    kb = chase(1)
    kb.store(0x900, np.full(32, 9 * LINE, np.int64))
    tm2, (r2,) = _run([kb], gpu(l1={"miss_latency": MISS_LAT}))
    assert r2.counters["dram_writes"] == 0 and r2.counters["l2_accesses"] == 2


@pytest.fixture(scope="module")
def l1_off():
    """The chase over 4 lines twice with every load sent past the L1 (kim20-l1-off)."""
    g = gpu(l1={"miss_latency": MISS_LAT})
    pol = get_policy("kim20-l1-off")
    tm, (r,) = _run([chase(8, [0, 1, 2, 3, 0, 1, 2, 3])], g, pol)
    return tm, r, pol


def test_a_load_sent_past_the_l1_skips_lookup_and_miss_latency(l1_off):
    tm, r, pol = l1_off
    log = tm.access_log()
    assert (log[:, 4] == LOG_BYPASS).all() and len(log) == 8
    # DRAM, then L2 hits for the repeated lines: no L1 hit, no miss latency.
    assert np.diff(log[:, 0]).tolist() == [DRAM_LATENCY] * 4 + [L2_HIT_LATENCY] * 3
    c = r.counters
    assert c["l1_accesses"] == 0 and c["l1_hits"] == 0 and c["l1_bypassed"] == 8
    assert c["l2_accesses"] == 8 and c["dram_reads"] == 4
    assert pol.stats()["loads_bypassed"] == 8


def test_the_hook_is_asked_once_per_request_despite_retries():
    # One load of 4 lines, two requests a cycle into a 1-entry miss queue: the second of each
    # pair fails and is retried, and each request is still counted once by the policy.
    kb = KernelBuilder("spread", (1,), (32,))
    kb.load(0x10, (np.arange(32) // 8) * LINE * 7)
    pol = get_policy("kim20-l1-off")
    tm, (r,) = _run([kb], gpu(l1={"miss_queue": 1, "ports": 2}), pol)
    assert r.counters["l1_reservation_fails_queue"] > 0
    assert r.counters["l1_bypassed"] == 4 and pol.stats()["loads_bypassed"] == 4


def test_the_functional_engine_sends_the_load_past_the_l1_too():
    g = gpu()
    h = Hierarchy(g, get_policy("kim20-l1-off"))
    acc = np.zeros(3, ACCESS_DTYPE)
    acc["op"] = [1, 1, 2]  # two loads of line 5, then a store to it
    acc["line"] = 5
    acc["sectors"] = 0xF
    out = h.run(acc, outcomes=True)
    assert (out[:2] & BYPASSED).all() and not out[2] & BYPASSED
    l1 = h.stats()["l1"]
    assert l1["bypasses"] == 2 and l1["read_hits"] == 0 and l1["read_misses"] == 0
    assert h.stats()["l2"]["read_hits"] == 1  # the second load hits the L2


def test_requests_waiting_out_the_miss_latency_do_not_fill_the_miss_queue():
    # One load of 4 lines through a 1-entry miss queue: in GPGPU-Sim the requests wait the L1's
    # latency in its l1_latency queue, in front of the lookup, so they leave one a cycle after it,
    # with no reservation failure.
    kb = KernelBuilder("spread", (1,), (32,))
    kb.load(0x10, (np.arange(32) // 8) * LINE * 7)
    tm, (r,) = _run([kb], gpu(l1={"miss_queue": 1, "miss_latency": MISS_LAT}))
    assert r.counters["l1_reservation_fails_queue"] == 0
    assert np.diff(tm.access_log()[:, 0]).tolist() == [1, 1, 1]
    _, (r8,) = _run([kb], gpu(l1={"miss_queue": 8, "miss_latency": MISS_LAT}))
    assert r.cycles == r8.cycles  # the 1-entry queue costs nothing


def test_a_request_is_looked_up_after_the_lookup_pipeline():
    # A 30-cycle pipeline that is all of a 30-cycle hit latency: the lookup comes 30 cycles after
    # the request leaves the LD/ST unit (the cycle after the issue), so a miss's data comes 30
    # cycles later than without the pipeline; a hit's data is there at the lookup.
    g = gpu(l1={"hit_latency": LOOKUP, "lookup_latency": LOOKUP})
    tm, (r,) = _run([chase(8, [0, 1, 2, 3, 0, 1, 2, 3])], g)
    log = tm.access_log()
    assert log[0, 0] == 1 + LOOKUP
    assert np.diff(log[:, 0]).tolist() == [DRAM_LATENCY + LOOKUP] * 4 + [1 + LOOKUP] * 3
    # Part of a longer hit latency: the rest comes after the lookup.
    tm2, _ = _run([chase(8, [0, 1, 2, 3, 0, 1, 2, 3])], gpu(l1={"hit_latency": 40, "lookup_latency": LOOKUP}))
    assert np.diff(tm2.access_log()[:, 0]).tolist() == [DRAM_LATENCY + LOOKUP] * 4 + [1 + 40] * 3


def _same_line_later(d: int) -> KernelBuilder:
    """Two warps load line 7; warp 1 issues ``d`` compute instructions first."""
    kb = KernelBuilder("two", (1,), (64,))
    kb.compute(d, active=kb.tid >= 32)
    kb.load(0x10, np.full(64, 7 * LINE, np.int64))
    return kb


def test_the_merge_window_opens_at_the_lookup():
    # Warp 0 misses on line 7; warp 1 sends its load of the line 92 cycles later. Holding the miss
    # after a lookup at sending (miss_latency) keeps the line in flight 30 cycles longer in send
    # time, so warp 1 merges; looking up at the pipeline's end (GPGPU-Sim), warp 1's lookup comes
    # after the fill and hits. Both give warp 0 its data at the same cycle.
    held, (rh,) = _run([_same_line_later(90)], gpu(l1={"miss_latency": MISS_LAT}))
    piped, (rp,) = _run([_same_line_later(90)], gpu(l1={"hit_latency": LOOKUP, "lookup_latency": LOOKUP}))
    assert held.access_log()[:, 4].tolist() == [2, 3]
    assert held.access_log()[:, 0].tolist() == [1, 92]
    assert piped.access_log()[:, 4].tolist() == [2, 1]
    assert piped.access_log()[:, 0].tolist() == [1 + LOOKUP, 92 + LOOKUP]
    assert rp.end - rp.start == 92 + LOOKUP + 1  # warp 1's hit: data at the lookup
    # Sent 80 cycles later it is still in the window on both rules.
    _, (early,) = _run([_same_line_later(10)], gpu(l1={"hit_latency": LOOKUP, "lookup_latency": LOOKUP}))
    assert early.end - early.start == rh.end - rh.start  # the merged warp gets warp 0's fill


def test_a_kernel_ending_with_stores_in_the_pipeline_drains_it():
    # The warp's last instruction stores 4 lines: the warp keeps its slot until they have left the
    # pipeline, so the kernel ends with it empty and the next kernel can start.
    kb = chase(1)
    kb.store(0x900, (np.arange(32) // 8) * LINE * 7 + 9 * LINE)
    g = gpu(l1={"hit_latency": LOOKUP, "lookup_latency": LOOKUP})
    tm, (r1, r2) = _run([kb, kb], g)
    assert r1.counters["l2_accesses"] == 1 + 4
    log = tm.access_log()
    stores = log[log[:, 3] == 2]
    assert len(stores) == 8 and (stores[:4, 0] < r1.end).all()
    # Kernel 2's load hits the line kernel 1 brought in, looked up after the pipeline.
    assert (log[5, 0], log[5, 4]) == (r2.start + 1 + LOOKUP, 1)


@pytest.mark.parametrize(("l1", "l2", "field"), [
    ({"hit_latency": 10, "lookup_latency": 11}, {}, "l1.lookup_latency"),
    ({}, {"hit_latency": 10, "lookup_latency": 11}, "l2.lookup_latency"),
    ({}, {"miss_latency": 5}, "l2.miss_latency"),
])
def test_a_lookup_pipeline_it_cannot_model_is_refused(l1, l2, field):
    with pytest.raises(ValueError, match=f"^{field}: "):
        config_vector(gpu(l1=l1, l2=l2))
