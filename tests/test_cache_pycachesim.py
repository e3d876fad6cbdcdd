"""Cross-check against pycachesim (RRZE-HPC) for LRU and FIFO on random traces.

pycachesim is write-back with write-allocate by default, like ``write="write-back"``
here, and indexes sets by ``line mod sets`` (``index="mod"``). It counts a store
hit as neither hit nor miss, so an access is compared as "missed" when its
``MISS_count`` grew; its ``EVICT_count`` counts dirty evictions (our
``writebacks``). A store hit does not refresh a line's LRU position in
pycachesim (it does here, as a hit in GPGPU-Sim does), so stores are mixed in
for FIFO only, where hits change nothing.
"""

import numpy as np
import pytest
from cachesim import Cache as PyCache
from cachesim import CacheSimulator, MainMemory

from golden.cache import Cache
from golden.configs.schema import CacheConfig

LINE = 64


def pycachesim(sets, ways, policy):
    memory = MainMemory()
    l1 = PyCache("L1", sets, ways, LINE, replacement_policy=policy)
    memory.load_to(l1)
    memory.store_from(l1)
    return CacheSimulator(l1, memory), l1


@pytest.mark.parametrize(("policy", "stores"), [("LRU", 0.0), ("FIFO", 0.0), ("FIFO", 0.3)])
@pytest.mark.parametrize(("sets", "ways", "footprint"), [(1, 4, 9), (4, 2, 20), (16, 8, 300), (8, 1, 40)])
def test_per_access_hits_and_writebacks(policy, stores, sets, ways, footprint):
    rng = np.random.default_rng(sets * 100 + ways)
    lines = rng.integers(0, footprint, 3000)
    ops = rng.choice([1, 2], size=lines.size, p=[1 - stores, stores])
    ours = Cache(CacheConfig(size=sets * ways * LINE, assoc=ways, line_size=LINE,
                             replacement=policy.lower(), write="write-back"))
    hits = ours.access(lines, ops)
    sim, l1 = pycachesim(sets, ways, policy)
    theirs = []
    for line, op in zip(lines.tolist(), ops.tolist(), strict=True):
        before = l1.backend.MISS_count
        (sim.load if op == 1 else sim.store)(line * LINE)
        theirs.append(l1.backend.MISS_count == before)
    assert hits.tolist() == theirs
    assert ours.stats()["writebacks"] == l1.backend.EVICT_count
    assert 0 < hits.sum() < hits.size
    assert (ours.stats()["writebacks"] > 0) == (stores > 0)


@pytest.mark.parametrize("policy", ["LRU", "FIFO"])
def test_batched_loads(policy):
    lines = np.random.default_rng(7).integers(0, 1500, 200_000)
    hits = Cache(CacheConfig(size=16 * 1024, assoc=8, line_size=LINE, replacement=policy.lower())).load(lines)
    sim, l1 = pycachesim(32, 8, policy)
    sim.load((lines * LINE).tolist())
    assert (int(hits.sum()), int((~hits).sum())) == (l1.backend.HIT_count, l1.backend.MISS_count)
