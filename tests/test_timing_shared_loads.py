"""Shared-memory loads' latency (``smem_latency``): hand-worked waits under each dependence rule.

The test machine is ``tests/test_timing.py``'s (one SM, fixed latencies). A shared load's result
comes ``smem_latency`` cycles after its issue (GPGPU-Sim's shared-memory pipeline); the warp's
dependences wait for it as for a global load's: under ``next-memory`` its next memory or barrier
instruction, under ``registers`` its consumer, under ``none`` nothing. With ``smem_latency`` 0 a
shared load's result is there at once, as before the field existed.

These run with ``smem_unit = "none"`` (no LD/ST unit, no bank conflicts); the unit's cycles are
``tests/test_timing_shared_banks.py``'s.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from golden.trace.builder import KernelBuilder
from golden.trace.model import Space
from tests.test_timing import gpu, run

LAT = 24


def shared_chain(n: int, gap: int = 0) -> KernelBuilder:
    """One warp: ``n`` shared loads, ``gap`` compute instructions before each after the first."""
    kb = KernelBuilder("chain", (1,), (32,))
    for i in range(n):
        if i:
            kb.compute(gap)
        kb.load(0x10 + 16 * i, 4 * np.arange(32), space=Space.SHARED)
    return kb


def cycles(kb, latency: int, **options) -> tuple[int, dict]:
    _, (r,) = run([kb], gpu(smem_latency=latency, smem_unit="none"), **options)
    return r.cycles, r.counters


def test_each_shared_load_waits_for_the_one_before():
    # Under next-memory each load is the previous one's consumer: it issues LAT cycles after it
    # instead of the next cycle, and the warp ends when the last result is back.
    n = 5
    base, c0 = cycles(shared_chain(n), 0)
    slow, c = cycles(shared_chain(n), LAT)
    # Load i issues at i LAT instead of i, and the warp ends a cycle after its last result (at n LAT)
    # instead of a cycle after its last issue (at n - 1).
    assert slow - base == n * LAT - (n - 1)
    assert c["shared_instructions"] == c0["shared_instructions"] == n
    assert c["events_smem"] == n and c0["events_smem"] == 0
    # Not global loads: neither completed loads nor their latency count them.
    assert c["loads_completed"] == 0 and c["load_latency_sum"] == 0
    assert c["stall_memory"] > c0["stall_memory"] == 0


def test_compute_in_between_hides_the_latency():
    # LAT - 1 compute instructions between two loads fill the wait exactly; more add their own.
    n = 3
    for gap in (LAT - 1, LAT + 5):
        base, _ = cycles(shared_chain(n, gap), 0)
        slow, _ = cycles(shared_chain(n, gap), LAT)
        assert slow - base == LAT, gap  # only the last result's wait is left


@pytest.mark.parametrize("dependences, waits", [("none", False), ("next-instruction", True)])
def test_the_dependence_rule_decides_who_waits(dependences, waits):
    n = 4
    base, _ = cycles(shared_chain(n, 2), 0, dependences=dependences)
    slow, _ = cycles(shared_chain(n, 2), LAT, dependences=dependences)
    # Without the latency the last load issues at 3 (n - 1) and the warp ends a cycle later. With
    # no dependences only the end waits, for the last result. Under next-instruction each load's
    # next instruction waits for it: a load and its two compute instructions take LAT + 2 cycles.
    end = (n - 1) * (LAT + 2) + LAT if waits else 3 * (n - 1) + LAT
    assert slow - base == end - 3 * (n - 1)


def test_registers_rule_waits_at_the_consumer():
    # One shared load whose consumer is 4 instructions on, 10 compute instructions after it.
    kb = KernelBuilder("use", (1,), (32,))
    kb.load(0x10, 4 * np.arange(32), space=Space.SHARED)
    kb.compute(10)
    k = kb.build()
    k = dataclasses.replace(k, consumers=np.array([4]))
    base, _ = cycles(k, 0, dependences="registers")
    slow, _ = cycles(k, LAT, dependences="registers")
    # The consumer (instruction 4) waits until LAT cycles after the load's issue.
    assert slow - base == LAT - 4


def test_shared_stores_do_not_wait():
    kb = KernelBuilder("stores", (1,), (32,))
    for i in range(4):
        kb.store(0x10 + 16 * i, 4 * np.arange(32), space=Space.SHARED)
    assert cycles(kb, LAT)[0] == cycles(kb, 0)[0]
