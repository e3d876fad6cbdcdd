"""The compiled engine against the plain-Python reference model on random configurations and traces."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from golden.cache import Cache, Hierarchy
from golden.cache.reference import RefCache, RefHierarchy
from golden.cache.stats import ENGINE_COUNTERS
from golden.configs.schema import INDEX_FUNCTIONS, REPLACEMENTS, WRITE_POLICIES, CacheConfig, GPUConfig
from golden.trace.coalesce import ACCESS_DTYPE

SETTINGS = settings(max_examples=50, deadline=None)


@st.composite
def cache_configs(draw, line_size=64, index=None):
    sets = draw(st.sampled_from([1, 2, 4, 8]))
    index = index or draw(st.sampled_from(INDEX_FUNCTIONS))
    replacement = draw(st.sampled_from(REPLACEMENTS))
    assoc = draw(st.sampled_from([1, 2, 4] if replacement == "plru" else [1, 2, 3, 4]))
    slices = 0
    if index == "prime":
        sets = draw(st.sampled_from([1, 3, 5, 6, 8]))
    elif index == "fermi":
        sets = draw(st.sampled_from([32, 64]))
    elif index == "xor":
        # Power-of-2 and sliced set counts; slices 0 (chosen) or any count leaving
        # power-of-2 slices of at least 2 sets.
        sets = draw(st.sampled_from([1, 2, 4, 8, 6, 10, 12, 24]))
        slices = draw(st.sampled_from(
            [0] + [n for n in range(1, sets) if sets % n == 0 and (sets // n).bit_count() == 1]))
    return CacheConfig(size=sets * assoc * line_size, assoc=assoc, line_size=line_size, index=index,
                       smod_shift=draw(st.integers(0, 3)), slices=slices, replacement=replacement,
                       write=draw(st.sampled_from(WRITE_POLICIES)), seed=draw(st.integers(0, 2**32)))


@st.composite
def hierarchies(draw):
    n_sm = draw(st.integers(1, 3))
    l1 = draw(cache_configs(line_size=32))
    l2 = draw(cache_configs(line_size=draw(st.sampled_from([32, 64]))))
    l3 = draw(st.none() | cache_configs(line_size=128))
    return GPUConfig(name="random", n_sm=n_sm, l1=l1, l2=l2, l3=l3)


def ref_tags(ref: RefCache, c: int) -> list:
    return [[-1 if x is None else x for x in ways] for ways in ref.lines[c]]


@SETTINGS
@given(cfg=cache_configs(), lines=st.lists(st.integers(0, 40), max_size=300),
       ops=st.lists(st.sampled_from([1, 1, 2, 3]), min_size=300, max_size=300))
def test_single_cache_matches_reference(cfg, lines, ops):
    ops = ops[:len(lines)]
    cache = Cache(cfg)
    hits = cache.access(np.array(lines, np.int64), np.array(ops, np.uint8))
    ref = RefHierarchy([cfg])
    ref_hits = [ref.access(0, line, op) == 1 for line, op in zip(lines, ops, strict=True)]
    assert hits.tolist() == ref_hits
    assert cache.state.counters[0].tolist() == [ref.levels[0].counters[0][k] for k in ENGINE_COUNTERS]
    assert cache.tags.tolist() == ref_tags(ref.levels[0], 0)
    assert cache.dirty.tolist() == ref.levels[0].dirty[0]


@SETTINGS
@given(cfg=cache_configs(index="xor").filter(lambda c: c.index_slices > 1),
       lines=st.lists(st.integers(0, 200), max_size=300))
def test_sliced_xor_cache_matches_reference(cfg, lines):
    """Loads through XOR caches of several slices (the other tests draw them among all kinds)."""
    cache = Cache(cfg)
    hits = cache.access(np.array(lines, np.int64))
    ref = RefHierarchy([cfg])
    assert hits.tolist() == [ref.access(0, line, 1) == 1 for line in lines]
    assert cache.tags.tolist() == ref_tags(ref.levels[0], 0)


@SETTINGS
@given(gpu=hierarchies(), data=st.data())
def test_hierarchy_matches_reference(gpu, data):
    n = data.draw(st.integers(0, 400))
    rows = np.zeros(n, ACCESS_DTYPE)
    rows["sm"] = data.draw(st.lists(st.integers(0, gpu.n_sm - 1), min_size=n, max_size=n))
    rows["op"] = data.draw(st.lists(st.sampled_from([1, 1, 1, 2, 3]), min_size=n, max_size=n))
    rows["line"] = data.draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    h = Hierarchy(gpu)
    split = data.draw(st.integers(0, n))  # two runs: state carries over
    out = np.concatenate([h.run(rows[:split], outcomes=True), h.run(rows[split:], outcomes=True)])
    ref = RefHierarchy([cfg for _, cfg in gpu.levels], gpu.n_sm)
    expected = [ref.access(int(r["sm"]), int(r["line"]), int(r["op"])) for r in rows]
    assert out.tolist() == expected
    for k, state in enumerate(h.levels.values()):
        for c in range(state.n):
            assert state.counters[c].tolist() == [ref.levels[k].counters[c][x] for x in ENGINE_COUNTERS]
            assert state.tag[c].tolist() == ref_tags(ref.levels[k], c)
            assert state.dirty[c].astype(bool).tolist() == ref.levels[k].dirty[c]


@SETTINGS
@given(cfg=cache_configs(),
       prefix=st.lists(st.tuples(st.integers(0, 40), st.sampled_from([1, 2, 3])), max_size=100),
       lines=st.lists(st.integers(0, 40), max_size=300))
def test_load_fast_path_matches_engine_and_reference(cfg, prefix, lines):
    """``Cache.access`` without ops runs a specialised loop; it must change the state exactly as the
    general engine does, also after stores have left dirty lines."""
    fast, general = Cache(cfg), Cache(cfg)
    ref = RefHierarchy([cfg])
    if prefix:
        pre_lines, pre_ops = (np.array(x, np.int64) for x in zip(*prefix, strict=True))
        for c in (fast, general):
            c.access(pre_lines, pre_ops)
        for line, op in prefix:
            ref.access(0, line, op)
    lines = np.array(lines, np.int64)
    hits = fast.access(lines)
    assert hits.tolist() == general.access(lines, np.ones(lines.size, np.uint8)).tolist()
    assert hits.tolist() == [ref.access(0, int(x), 1) == 1 for x in lines]
    for name in ("tag", "dirty", "stamp", "freq", "tree", "rng", "clock", "counters"):
        assert (getattr(fast.state, name) == getattr(general.state, name)).all(), name
