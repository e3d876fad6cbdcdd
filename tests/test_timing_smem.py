"""The timing model's shared-memory cache (ciao18's CIAO-P path), on hand-worked traces.

A warp's ``redirect`` flag (``SchedulerControl``) is set from the progress
callback with the model stepping one cycle per call, so these runs need no
policy hooks (the disk-cached baseline loop).
"""

from __future__ import annotations

import numpy as np
import pytest

import golden.gpu.model as model_mod
from golden.cache.hierarchy import Hierarchy
from golden.gpu.model import TimingModel
from golden.gpu.run import timing_summary
from golden.gpu.state import row, smem_cache_blocks, start_kernel
from golden.trace.builder import KernelBuilder
from golden.units.ciao_smem import cache_rows
from tests.test_timing import DRAM_LATENCY, L1_HIT_LATENCY, chase, gpu


def run_redirected(kernels, g, redirect: list[bool]):
    """Run ``kernels``; warps of kernel ``i`` have ``redirect`` set when ``redirect[i]``."""
    tm = TimingModel(g, Hierarchy(g), log_capacity=1000)
    out = []
    flag = tm.state.w[row("w", "ctl_redirect")]
    for i, kb in enumerate(kernels):

        def each_cycle(_retired, _total, on=redirect[i]):
            flag[:] = on  # before the LD/ST unit sends the first request (a cycle after issue)

        out.append(tm.run_kernel(kb.build(), i, each_cycle))
    return tm, out


@pytest.fixture
def one_cycle_slices(monkeypatch):
    monkeypatch.setattr(model_mod, "SLICE", 1)


def test_cache_rows_fit_data_and_tags():
    # 2 groups x 128 B x (rows + ceil(rows / 32)) bytes.
    assert [cache_rows(u) for u in (0, 511, 512, 16 * 1024, 48 * 1024, 69_632)] == [0, 0, 1, 32, 128, 256]


def test_blocks_follow_the_kernels_shared_memory():
    g = gpu()  # 48 KB of shared memory, 48 warp slots
    tm = TimingModel(g, Hierarchy(g))
    big = KernelBuilder("k", (4,), (256,), shared_bytes=12 * 1024).build()
    k = start_kernel(tm.k, tm.state, tm.program(big), 0, 0, 0)
    # 4 CTAs of 12 KB fit (6 by warps): nothing is left.
    assert smem_cache_blocks(k) == 0
    small = KernelBuilder("k", (4,), (256,), shared_bytes=4 * 1024).build()
    k = start_kernel(tm.k, tm.state, tm.program(small), 1, 0, 0)
    # 6 CTAs (48 warps / 8) use 24 KB; 24 KB unused hold 64 rows per group: 128 blocks.
    assert smem_cache_blocks(k) == 128
    assert tm.state.sm[row("sm", "ctl_smem_lines")].tolist() == [128]


def test_redirected_loads_miss_then_hit_in_shared_memory(one_cycle_slices):
    tm, (r,) = run_redirected([chase(4, [0, 1, 0, 1])], gpu(), [True])
    c = r.counters
    assert c["smem_cache_accesses"] == 4 and c["smem_cache_hits"] == 2
    assert c["l1_accesses"] == 0 and c["dram_reads"] == 2
    gaps = np.diff(tm.access_log()[:, 0]).tolist()
    assert gaps == [DRAM_LATENCY, DRAM_LATENCY, L1_HIT_LATENCY]
    summary = timing_summary(c, r.cycles, r.series)["smem_cache"]
    assert summary == {"accesses": 4, "hits": 2, "hit_rate": 0.5, "migrations": 0, "evictions": 0}


def test_a_line_in_the_l1d_migrates_and_conflicts_evict(one_cycle_slices):
    g = gpu()
    first = chase(1, [7])  # not redirected: line 7 into the L1D
    # Redirected: line 7 migrates from the L1D and hits; 7 + n (the same block of the n-block
    # cache: 48 KB unused, 128 rows per group) evicts it; then 7 misses again.
    n = 256
    second = chase(4, [7, 7, 7 + n, 7])
    tm, (r1, r2) = run_redirected([first, second], g, [False, True])
    c = r2.counters
    assert c["smem_cache_migrations"] == 1
    assert c["smem_cache_hits"] == 1
    assert c["smem_cache_evictions"] == 2  # 7 + n evicts 7; 7 evicts 7 + n
    assert c["dram_reads"] == 1 and c["l2_hits"] == 1 and c["l1_accesses"] == 0  # 7 is in the L2
    gaps = np.diff(tm.access_log()[1:, 0]).tolist()
    assert gaps == [L1_HIT_LATENCY, L1_HIT_LATENCY, DRAM_LATENCY]
    # The migrated line left the L1D: a non-redirected load of it misses there.
    tm.state.w[row("w", "ctl_redirect")] = 0
    r3 = tm.run_kernel(chase(1, [7]).build(), 2)
    assert r3.counters["l1_hits"] == 0


def test_without_redirect_nothing_changes(one_cycle_slices):
    _, (r,) = run_redirected([chase(4, [0, 1, 0, 1])], gpu(), [False])
    assert r.counters["smem_cache_accesses"] == 0 and r.counters["l1_hits"] == 2


@pytest.mark.parametrize("index, evictions", [("mod", 2), ("xor", 0)])
def test_xor_index_separates_lines_the_row_bits_alias(one_cycle_slices, index, evictions):
    # Lines 7 and 7 + 512 share a block of the 256-block cache under the paper's index; under
    # smem_cache_index = "xor" their line bit 9 (address bit 16) flips block bit 1: another
    # block, so the second 7 hits.
    g = gpu(smem_cache_index=index)
    _, (r,) = run_redirected([chase(3, [7, 7 + 512, 7])], g, [True])
    c = r.counters
    assert c["smem_cache_evictions"] == evictions
    assert c["smem_cache_hits"] == (evictions == 0)
