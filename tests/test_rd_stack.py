"""The RD engine: rdgc Table 1 by hand, and exact agreement with the cache simulator's LRU."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.cache import Cache, set_indices
from golden.configs.schema import CacheConfig
from golden.rd.stack import INF, histogram, hits_below, lru_hits, stack_distances

SETTINGS = settings(max_examples=60, deadline=None)


def test_table1():
    # rdgc Table 1: A B C D A A D C -> inf inf inf inf 3 0 1 2.
    seq = [ord(c) for c in "ABCDAADC"]
    d = stack_distances(np.array(seq))
    assert d.tolist() == [INF] * 4 + [3, 0, 1, 2]
    hist = histogram(d, 4)
    assert hist.tolist() == [1, 1, 1, 1, 4]
    assert hits_below(hist, 4) / len(seq) == 0.5   # 4 blocks: 50 %
    assert hits_below(hist, 2) / len(seq) == 0.25  # 2 blocks: 25 %


def test_groups_are_separate_stacks():
    # Two interleaved groups: each sees only its own blocks.
    d = stack_distances(np.array([1, 2, 3, 1, 4, 3]), groups=np.array([0, 1, 0, 0, 1, 0]))
    assert d.tolist() == [INF, INF, INF, 1, INF, 1]


def test_evict_makes_next_access_cold_and_shrinks_the_stack():
    # A B A(evict) B A: B's second touch sees only A's (evicted) touch -> the stack holds {B}
    # and A is cold again.
    d = stack_distances(np.array([1, 2, 1, 2, 1]), evict=np.array([0, 0, 1, 0, 0], bool))
    assert d.tolist() == [INF, INF, 1, 0, INF]


def test_histogram_limit_and_mask():
    d = np.array([INF, 0, 5, 2, 9])
    assert histogram(d, 3).tolist() == [1, 0, 1, 3]
    assert histogram(d, 3, mask=np.array([1, 1, 0, 0, 0], bool)).tolist() == [1, 0, 0, 1]
    with pytest.raises(ValueError, match="beyond the histogram's limit 3"):
        hits_below(histogram(d, 3), 4)
    with pytest.raises(ValueError, match="limit: must be a positive integer"):
        histogram(d, 0)


def test_mismatched_lengths():
    with pytest.raises(ValueError, match="one entry per access"):
        stack_distances(np.arange(3), groups=np.zeros(2, np.int64))


@given(st.lists(st.integers(0, 40), min_size=1, max_size=400), st.integers(1, 24))
@SETTINGS
def test_fully_associative_equals_simulator(lines, blocks):
    # Loads only: every capacity up to the limit from one histogram equals the simulator's LRU.
    lines = np.array(lines, np.int64)
    d = stack_distances(lines)
    hist = histogram(d, 24)
    for k in {1, blocks, 24}:
        hit = Cache(CacheConfig(size=k * 32, assoc=k, line_size=32, replacement="lru")).load(lines)
        assert hits_below(hist, k) == int(hit.sum())
        assert ((d >= 0) & (d < k)).tolist() == hit.tolist()


def test_invalidation_leaves_a_hole():
    # 2 blocks: A B C (A out) ; write B (invalidated) ; A must miss although only C is above it
    # in the stack of valid lines (distance 1 < 2): the freed way stays empty until a miss.
    lines = np.array([1, 2, 3, 2, 1, 3])
    ev = np.array([0, 0, 0, 1, 0, 0], bool)
    assert stack_distances(lines, evict=ev).tolist() == [INF, INF, INF, 1, 1, 1]
    hit = Cache(CacheConfig(size=64, assoc=2, line_size=32, write="write-evict")).access(
        lines, np.where(ev, 2, 1))
    assert hit.tolist() == [False, False, False, True, False, True]
    assert lru_hits(lines, [2], evict=ev)[:, 0].tolist() == hit.tolist()


@given(st.lists(st.integers(0, 12), min_size=100, max_size=300),
       st.lists(st.booleans(), min_size=300, max_size=300))
@SETTINGS
def test_write_evict_every_capacity_in_one_pass(lines, stores):
    lines = np.array(lines, np.int64)
    ev = np.array(stores[: lines.size], bool)
    caps = [1, 2, 3, 5, 8]
    got = lru_hits(lines, caps, evict=ev)
    for c, k in enumerate(caps):
        sim = Cache(CacheConfig(size=k * 32, assoc=k, line_size=32, write="write-evict"))
        assert got[:, c].tolist() == sim.access(lines, np.where(ev, 2, 1)).tolist()


@given(st.lists(st.integers(0, 60), min_size=100, max_size=400), st.sampled_from(["mod", "prime", "xor"]),
       st.sampled_from([(4, 2), (8, 4), (6, 2), (16, 1)]),
       st.lists(st.booleans(), min_size=400, max_size=400))
@SETTINGS
def test_per_set_equals_simulator(lines, index, geometry, stores):
    # Per-set stacks with the simulator's index functions, write-evict stores, access by access.
    sets, assoc = geometry
    if index in ("mod", "xor") and sets & (sets - 1):
        sets = 4
    cfg = CacheConfig(size=sets * assoc * 64, assoc=assoc, line_size=64, index=index, write="write-evict")
    lines = np.array(lines, np.int64)
    st_mask = np.array(stores[: lines.size], bool)
    got = lru_hits(lines, [assoc], groups=set_indices(cfg, lines), evict=st_mask)[:, 0]
    assert got.tolist() == Cache(cfg).access(lines, np.where(st_mask, 2, 1)).tolist()
