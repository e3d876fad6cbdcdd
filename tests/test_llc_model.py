"""The stream-labelled LLC model: private-cache filtering, inclusion, recording and replay."""

import numpy as np
import pytest

from golden.configs.schema import CacheConfig
from golden.errors import InputError
from golden.llc.model import LLC_TRACE_DTYPE, LLCModel
from golden.llc.streams import COLOR, SHADER, TEXTURE, stream_id

# One set each: a 2-way L1, a 4-way L2 and a 4-way LLC, so every eviction is easy to follow.
L1 = CacheConfig(size=2 * 64, assoc=2, line_size=64)
L2 = CacheConfig(size=4 * 64, assoc=4, line_size=64)
LLC = CacheConfig(size=4 * 64, assoc=4, line_size=64)

A, B, C, D, E, F = 10, 11, 12, 13, 14, 15
R, W = 1, 2


def trace(*rows):
    t = np.zeros(len(rows), LLC_TRACE_DTYPE)
    for i, (stream, op, line) in enumerate(rows):
        t[i] = (stream, op, 0x400 + i, line)
    return t


def model(cores=1, **kw):
    return LLCModel(cores, llc=LLC, l1=L1, l2=L2, **kw)


def test_cpu_rows_are_filtered_by_the_private_caches_gpu_rows_are_not():
    m = model()
    rec = m.run(trace((0, R, A), (0, R, A), (0, W, A), (TEXTURE, R, B), (TEXTURE, R, B)), record=True)
    # Core 0: A misses L1 and L2 -> one LLC read; the load and the store then hit its L1.
    # The GPU's two reads of B are both LLC accesses (the second hits).
    assert rec[["stream", "op", "line"]].tolist() == [(0, R, A), (TEXTURE, R, B), (TEXTURE, R, B)]
    s = m.stats()
    c = s["cores"][0]
    assert (c["l1_hits"], c["l1_misses"], c["l2_misses"]) == (2, 1, 1)
    assert list(s["streams"]["cpu0"].values()) == [1, 1, 0, 0, 0]  # reads, read misses, writes, ...
    assert s["streams"]["texture"]["read_misses"] == 1 and s["streams"]["texture"]["reads"] == 2
    assert (s["read_misses"], s["cpu_read_misses"], s["gpu_read_misses"]) == (2, 1, 1)


def test_dirty_l2_victims_are_llc_writes_that_hit():
    m = LLCModel(1, llc=CacheConfig(size=8 * 64, assoc=8, line_size=64), l1=L1, l2=L2)
    rec = m.run(trace(*((0, W, x) for x in (A, B, C, D, E, F))), record=True)
    # LRU orders oldest first, * = dirty.
    # W A, W B: LLC reads; L2 A B; L1 A* B*.
    # W C: LLC read; L2 A B C; the L1 evicts A* into the L2 (a hit: dirty, touched): L2 B C A*; L1 B* C*.
    # W D: LLC read; L2 B C A* D, then the L1 evicts B* (L2 hit): L2 C A* D B*; L1 C* D*.
    # W E: LLC read; the L2 evicts C (clean): L2 A* D B* E; the L1 evicts C* into the L2: a miss,
    #      allocated dirty, its victim A* is an LLC write: L2 D B* E C*.
    # W F: LLC read; the L2 evicts D (clean); the L1 evicts D*: L2 miss, victim B* -> LLC write.
    assert rec[["op", "line"]].tolist() == [(R, A), (R, B), (R, C), (R, D), (R, E), (W, A), (R, F), (W, B)]
    s = m.stats()
    c = s["cores"][0]
    assert (c["l1_writebacks"], c["l2_writebacks"], c["back_invalidations"]) == (4, 2, 0)
    # Inclusion: the CPU's LLC writes hit.
    assert list(s["streams"]["cpu0"].values()) == [6, 6, 2, 0, 0]  # reads, read misses, writes, write misses


def test_llc_evictions_back_invalidate_private_copies():
    m = model()
    # As above for W A .. W D (no L2 victims yet): LLC A B C D (LRU), L2 C A* D B*, L1 C* D*.
    m.run(trace((0, W, A), (0, W, B), (0, W, C), (0, W, D)))
    # The GPU reads E: the LLC evicts A, held dirty by the L2: back-invalidated, written to memory.
    m.run(trace((SHADER, R, E)))
    c = m.stats()["cores"][0]
    assert (c["back_invalidations"], c["back_invalidation_writebacks"]) == (1, 1)
    # Core 0 reads F: LLC read miss evicts B (dirty in the L2: back-invalidated); the L2 fills F
    # into an invalid way (L2 C D F); the L1 evicts C* into the L2 (hit): L2 D F C*; L1 D* F.
    m.run(trace((0, R, F)))
    c = m.stats()["cores"][0]
    assert (c["back_invalidations"], c["back_invalidation_writebacks"], c["l1_writebacks"]) == (2, 2, 3)
    # Core 0 reads A: back-invalidated, so it misses the L1 and the L2 and reads the LLC again
    # (a miss); the LLC (C D E F) evicts C, dirty in the L2: the third back-invalidation.
    rec = m.run(trace((0, R, A)), record=True)
    assert rec[["op", "line"]].tolist() == [(R, A)]
    c = m.stats()["cores"][0]
    assert (c["back_invalidations"], c["back_invalidation_writebacks"]) == (3, 3)
    assert (c["l2_hits"], c["l2_writebacks"]) == (0, 0)
    assert m.stats()["streams"]["cpu0"]["read_misses"] == 6  # A B C D F A


def test_back_invalidation_only_for_lines_in_private_caches():
    m = model(cores=2)
    m.run(trace((1, R, A), (COLOR, W, B), (COLOR, W, C), (COLOR, W, D), (COLOR, W, E)))
    # The fifth LLC line (E) evicts A (LRU), held by core 1 only.
    s = m.stats()
    assert [c["back_invalidations"] for c in s["cores"]] == [0, 1]
    assert s["cores"][1]["back_invalidation_writebacks"] == 0  # clean
    # A was in core 1's L1 and L2: both copies are gone, so reading it again is an LLC read (a miss).
    rec = m.run(trace((1, R, A)), record=True)
    assert rec[["stream", "op", "line"]].tolist() == [(1, R, A)]
    assert m.stats()["cores"][1]["l1_misses"] == 2


def test_replaying_the_recorded_llc_trace_gives_the_same_llc_counters():
    rng = np.random.default_rng(7)
    n = 3000
    t = np.zeros(n, LLC_TRACE_DTYPE)
    t["stream"] = rng.choice([0, 1, COLOR, TEXTURE, SHADER], n)
    t["op"] = rng.integers(1, 3, n)
    t["line"] = rng.integers(0, 64, n)
    t["pc"] = rng.integers(0, 50, n)
    big = CacheConfig(size=32 * 64, assoc=4, line_size=64)
    full = LLCModel(2, llc=big, l1=L1, l2=L2)
    rec = full.run(t, record=True)
    assert sum(c["back_invalidations"] for c in full.stats()["cores"]) > 0
    replay = LLCModel(2, llc=big, l1=L1, l2=L2, private=False)
    replay.run(rec)
    assert replay.stats()["llc"] == full.stats()["llc"]
    assert replay.stats()["streams"] == full.stats()["streams"]
    assert replay.llc_accesses == full.llc_accesses == rec.size


def test_bad_input():
    with pytest.raises(InputError, match="cores: must be 0 to 4"):
        LLCModel(5)
    with pytest.raises(InputError, match="op must be 1"):
        model().run(trace((0, 3, A)))
    with pytest.raises(InputError, match="unknown stream 11"):
        model().run(trace((11, R, A)))
    with pytest.raises(InputError, match="trace row 1: stream cpu2 but the model has 1 CPU core"):
        model().run(trace((0, R, A), (2, R, A)))
    model(private=False).run(trace((2, R, A)))  # a replayed LLC trace may name any core
    with pytest.raises(InputError, match="LLC_TRACE_DTYPE"):
        model().run(np.zeros(3, np.int64))
    with pytest.raises(InputError, match="unknown stream 'colour'"):
        stream_id("colour")
    assert stream_id("dyntex") == 7
