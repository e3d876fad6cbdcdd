"""drp16's OPT and OPT+Bypass: hand-worked decisions, and optimal against brute force (hypothesis)."""

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.configs.schema import CacheConfig
from golden.errors import InputError
from golden.llc.model import LLC_TRACE_DTYPE, LLCModel
from golden.llc.streams import MAX_CORES, TEXTURE
from golden.policies import get_policy


def make_trace(rows):
    t = np.zeros(len(rows), LLC_TRACE_DTYPE)
    if rows:
        t["stream"], t["op"], t["line"] = zip(*rows, strict=True)
    return t


def run_opt(name, rows, ways, sets=1):
    t = make_trace(rows)
    p = get_policy(name)
    p.prepare(t)
    m = LLCModel(4, p, llc=CacheConfig(size=sets * ways * 64, assoc=ways, line_size=64), private=False)
    m.run(t)
    sc = m.stream_counters
    return m, p, int(sc[:, 1].sum() + sc[:, 3].sum())  # read and write misses


def brute_force(rows, ways, bypass):
    """Fewest misses over every choice of victim (and, for GPU lines when ``bypass``, of not filling)."""

    @cache
    def best(i, held):
        if i == len(rows):
            return 0
        stream, _, line = rows[i]
        if line in held:
            return best(i + 1, held)
        if len(held) < ways:
            return 1 + best(i + 1, held | {line})
        options = [held - {v} | {line} for v in held]
        if bypass and stream >= MAX_CORES:
            options.append(held)
        return 1 + min(best(i + 1, h) for h in options)

    return best(0, frozenset())


def test_opt_hand_worked():
    a, b, c, d = 1, 2, 3, 4
    # 2 ways: a b fill; c misses: next uses a@3, b@6 -> evict b (farther); a hits; d misses:
    # next uses c@5, a never -> evict a (way 0); c hits; b misses: c and d are never used again,
    # the tie goes to the lowest way (0, d).
    rows = [(TEXTURE, 1, x) for x in (a, b, c, a, d, c, b)]
    m, p, misses = run_opt("drp16-opt", rows, 2)
    assert misses == 5  # a b c d b
    # After d fills way 0 (a's), the ways are [d, c]; b evicts the first of the equally-never-used: way 0.
    assert m.state.levels[0].tag[0, 0].tolist() == [b, c]


def test_opt_bypass_hand_worked():
    a, b, c = 1, 2, 3
    rows = [(TEXTURE, 1, a), (TEXTURE, 1, b), (TEXTURE, 1, c), (TEXTURE, 1, a), (TEXTURE, 1, b),
            (0, 1, c), (TEXTURE, 1, a)]
    # c (GPU, next use 5) after a@3 and b@4: not filled. At row 5 the CPU's c (never used again)
    # must be filled: evict b (never used again; a is used at 6): a hits.
    m, p, misses = run_opt("drp16-opt-bypass", rows, 2)
    assert misses == 4 and p.stats() == {"oracle_bypasses": 1}
    # OPT must fill c: it evicts b (next use 4 after a's 3); a hits; b misses and evicts a (6 after
    # c's 5); c hits; a misses: 5 misses, one more than with the bypass.
    m, p, misses = run_opt("drp16-opt", rows, 2)
    assert misses == 5 and p.stats() == {"oracle_bypasses": 0}


rows_strategy = st.lists(st.tuples(st.sampled_from([0, 1, TEXTURE, TEXTURE + 1]), st.sampled_from([1, 2]),
                                   st.integers(0, 5)), min_size=0, max_size=14)


@settings(max_examples=150, deadline=None)
@given(rows=rows_strategy, ways=st.integers(1, 3))
def test_opt_is_optimal(rows, ways):
    assert run_opt("drp16-opt", rows, ways)[2] == brute_force(tuple(rows), ways, bypass=False)


@settings(max_examples=150, deadline=None)
@given(rows=rows_strategy, ways=st.integers(1, 3))
def test_opt_bypass_is_optimal_with_cpu_lines_always_filled(rows, ways):
    assert run_opt("drp16-opt-bypass", rows, ways)[2] == brute_force(tuple(rows), ways, bypass=True)


def test_opt_sets_are_independent_and_need_the_trace():
    # 2 sets: each set behaves as a 1-set OPT on its own lines.
    rows = [(TEXTURE, 1, x) for x in (0, 2, 4, 0, 1, 3, 5, 1, 2, 4)]
    even = [r for r in rows if r[2] % 2 == 0]
    odd = [r for r in rows if r[2] % 2 == 1]
    assert run_opt("drp16-opt", rows, 2, sets=2)[2] == run_opt("drp16-opt", even, 2)[2] + \
        run_opt("drp16-opt", odd, 2)[2]
    with pytest.raises(InputError, match="needs the LLC trace first"):
        LLCModel(1, get_policy("drp16-opt"))
