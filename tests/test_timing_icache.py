"""The timing model's instruction cache (``icache_bytes``): hand-worked fetch costs and counts.

The test machine is ``tests/test_timing.py``'s (one SM, fixed latencies, no bandwidth limits).
Compute instructions sit 16 bytes apart from PC 16 on (``docs/timing.md``, "Instruction fetch"),
and an instruction at ``pc`` is read at ``PROGRAM_BASE + pc``, which is line-aligned: the first
128-byte line holds 7 instructions, every later one 8. A fetch brings two instructions, so a warp
looks up the lines of its odd-numbered instructions only.
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.gpu.core import PROGRAM_BASE
from golden.trace.builder import KernelBuilder
from tests.test_timing import DRAM_LATENCY, L2_HIT_LATENCY, LINE, gpu, run

#: A 4-way cache of 4 sets: 16 lines.
ICACHE = dict(icache_bytes=16 * LINE, icache_assoc=4, icache_mshrs=2)


def straight(n: int, warps: int = 1) -> KernelBuilder:
    """One CTA of ``warps`` warps, each ``n`` compute instructions (PCs 16 to 16 n)."""
    kb = KernelBuilder("straight", (1,), (32 * warps,))
    kb.compute(n)
    return kb


def lines_of(n: int) -> int:
    """Instruction lines a warp of ``n`` instructions at PCs 16 to 16 n fetches: those of its 1st, 3rd,
    5th... instruction (a fetch brings two)."""
    return len({(PROGRAM_BASE + 16 * i) // LINE for i in range(1, n + 1, 2)})


def test_program_base_is_line_aligned():
    assert PROGRAM_BASE % LINE == 0
    # Instruction 8 (PC 128) opens the second line, but comes with instruction 7's fetch.
    assert lines_of(8) == 1 and lines_of(9) == 2 and lines_of(39) == 5


@pytest.mark.parametrize("n", [8, 9, 39])
def test_each_line_costs_one_dram_round_trip(n):
    """A warp that meets a line it lacks waits for the line's read from DRAM.

    The first line is looked up when the warp starts, every later one when the warp issues the
    instruction before it; the read enters the miss queue then, leaves the next cycle and takes a
    load's path, so the line comes DRAM_LATENCY - 1 cycles after the lookup, where the warp would
    have issued at once (first line) or one cycle later (the others).
    """
    _, (plain,) = run([straight(n)], gpu())
    _, (cached,) = run([straight(n)], gpu(**ICACHE))
    k = lines_of(n)
    assert cached.cycles - plain.cycles == (DRAM_LATENCY - 1) + (k - 1) * (DRAM_LATENCY - 2)
    c = cached.counters
    assert (c["icache_accesses"], c["icache_misses"], c["icache_merges"]) == (k, k, 0)
    assert (c["l2_inst_accesses"], c["l2_inst_hits"]) == (k, 0)
    assert c["dram_reads"] == k
    # The L2's data counters leave instruction reads out.
    assert c["l2_accesses"] == c["l2_hits"] == 0
    assert plain.counters["icache_accesses"] == plain.counters["stall_fetch"] == 0
    assert c["stall_fetch"] > 0


def test_lines_stay_from_one_kernel_to_the_next():
    """GPGPU-Sim never empties the instruction cache: a second launch of the same code finds its lines."""
    n = 39
    _, (plain_a, plain_b) = run([straight(n), straight(n)], gpu())
    _, (a, b) = run([straight(n), straight(n)], gpu(**ICACHE))
    assert b.cycles == plain_b.cycles
    assert b.counters["icache_misses"] == b.counters["l2_inst_accesses"] == 0
    assert a.counters["l2_inst_accesses"] == lines_of(n)


def test_a_cache_smaller_than_the_code_reads_it_again():
    """Two lines (2 sets x 1 way) for five: the second launch misses every line again (LRU)."""
    n = 39
    small = dict(icache_bytes=2 * LINE, icache_assoc=1, icache_mshrs=2)
    _, (a, b) = run([straight(n), straight(n)], gpu(**small))
    assert a.counters["l2_inst_accesses"] == b.counters["l2_inst_accesses"] == lines_of(n)
    # The second launch's reads hit in the L2: each costs an L2 round trip, not DRAM's.
    _, (_, plain_b) = run([straight(n), straight(n)], gpu())
    k = lines_of(n)
    assert b.cycles - plain_b.cycles == (L2_HIT_LATENCY - 1) + (k - 1) * (L2_HIT_LATENCY - 2)
    assert b.counters["l2_inst_hits"] == k


def test_warps_merge_into_the_line_one_of_them_reads():
    """Four warps under GTO: warp 0 reads each line, the three others find its read pending and merge."""
    n, warps = 39, 4
    _, (r,) = run([straight(n, warps)], gpu(**ICACHE))
    k = lines_of(n)
    c = r.counters
    assert (c["icache_accesses"], c["icache_misses"], c["icache_merges"]) == (warps * k, warps * k,
                                                                              (warps - 1) * k)
    assert c["l2_inst_accesses"] == k
    assert c["instructions"] == warps * n


def test_icache_fields_are_checked():
    with pytest.raises(ValueError, match="^icache_bytes: must be a multiple of icache_assoc x l1.line_size"):
        gpu(icache_bytes=3 * LINE, icache_assoc=2)
    with pytest.raises(ValueError, match="icache_mshrs"):
        gpu(icache_bytes=4 * LINE, icache_mshrs=0)


def test_no_instruction_cache_by_default():
    _, (r,) = run([straight(20)], gpu())
    assert r.counters["icache_accesses"] == r.counters["l2_inst_accesses"] == 0


def two_paths() -> KernelBuilder:
    """Two warps on code of their own: warp 0 from PC 0x1000, warp 1 from 0x2000 (two lines each)."""
    kb = KernelBuilder("two_paths", (1,), (64,))
    first = np.arange(64) < 32
    addr = np.arange(64, dtype=np.int64) * 4
    kb.load(0x1000, addr, active=first)
    kb.load(0x2000, addr, active=~first)
    kb.compute(8)
    return kb


def test_a_warp_without_a_free_mshr_waits_for_the_next_fill():
    """One MSHR: the second warp's line is read after the first warp's arrives (then in turn)."""
    _, (one,) = run([two_paths()], gpu(**{**ICACHE, "icache_mshrs": 1}))
    _, (two,) = run([two_paths()], gpu(**ICACHE))
    for r in (one, two):
        assert r.counters["l2_inst_accesses"] == 4 and r.counters["icache_merges"] == 0
    assert one.cycles > two.cycles
