"""The parallel-cache RD algorithm (rdgc Section 4.4): rdgc Table 3 row by row, MSHR and latency rules."""

import numpy as np
import pytest

from golden.errors import InputError
from golden.rd.parallel import HIT, MERGE, MISS, RF, WRITE, Latency, ParallelCache, parse_latency
from golden.rd.stack import lru_hits, stack_distances

# rdgc Table 3: W0 = {A, B, C, D}, W1 = {E, F, G, H}, W2 = {A, D}; A, C, E, G in bank 0, the rest in
# bank 1; 2 ports per bank, 2 MSHRs shared by the banks, latency 2 steps, two warp schedulers:
# Algorithm 2's access lists are {W0, W1} then {W2}.
BLOCKS = "ABCDEFGHAD"
BANK = {b: 0 if b in "ACEG" else 1 for b in "ABCDEFGH"}


def table3(**overrides):
    keys = np.array([ord(b) for b in BLOCKS])
    banks = np.array([BANK[b] for b in BLOCKS])
    kw = dict(n_banks=2, ports=2, mshr_set_of_bank=[0, 0], entries=2, merges=8, hit_limit=8,
              latency=Latency("fixed", fixed=2), write_evict=True, log=True)
    kw.update(overrides)
    warps = np.array([0] * 4 + [1] * 4 + [2] * 2)
    pc = ParallelCache(keys, banks, banks, np.zeros(keys.size, bool), warps, **kw)
    end = pc.run(np.array([0, 8, 10]), 0)
    return pc, end


def test_table3_every_row():
    pc, end = table3()
    events, free, fills = pc.log()
    letter = {i: b for i, b in enumerate("ABCDEFGH")}  # dense ids: order of first access
    steps = range(5)
    # Rows B0/P0, B0/P1, B1/P0, B1/P1: the blocks holding each port in each step ("-": idle).
    ports = {(b, p): ["-"] * 5 for b in range(2) for p in range(2)}
    rd = {(b, p): ["-"] * 5 for b in range(2) for p in range(2)}
    status = {(b, p): ["-"] * 5 for b in range(2) for p in range(2)}
    used = {}
    for s, i, outcome, d in events:
        b = BANK[BLOCKS[i]]
        p = used.get((s, b), 0)
        used[(s, b)] = p + 1
        ports[(b, p)][s] = BLOCKS[i]
        status[(b, p)][s] = {HIT: "h", MISS: "m", RF: "rf"}[outcome]
        if outcome != RF:
            rd[(b, p)][s] = "inf" if d < 0 else str(d)
    assert ports[(0, 0)] == ["A", "E", "E", "-", "A"]
    assert ports[(0, 1)] == ["C", "G", "G", "-", "-"]
    assert ports[(1, 0)] == ["B", "B", "F", "F", "D"]
    assert ports[(1, 1)] == ["D", "D", "H", "H", "-"]
    assert rd[(0, 0)] == ["inf", "-", "inf", "-", "3"]
    assert rd[(0, 1)] == ["inf", "-", "inf", "-", "-"]
    assert rd[(1, 0)] == ["-", "inf", "-", "inf", "2"]
    assert rd[(1, 1)] == ["-", "inf", "-", "inf", "-"]
    assert [int(f) for s, f in free if s in steps] == [0, 0, 0, 0, 2]
    assert status[(0, 0)] == ["m", "rf", "m", "-", "h"]
    assert status[(0, 1)] == ["m", "rf", "m", "-", "-"]
    assert status[(1, 0)] == ["rf", "m", "rf", "m", "h"]
    assert status[(1, 1)] == ["rf", "m", "rf", "m", "-"]
    # Update row: the blocks filled at the end of each step, in MSHR-insertion order.
    update = [[letter[int(k)] for s2, k in fills if s2 == s] for s in steps]
    assert update == [[], ["A", "C"], ["B", "D"], ["E", "G"], ["F", "H"]]
    assert pc.reservation_failures == 6 and pc.merges == 0
    assert end == 5


def test_a_block_in_flight_merges_and_the_merge_limit_fails_reservation():
    # One bank, one port, one MSHR, latency 3: X misses at 0 (arrives end of 2); the second X
    # merges at 1; with merges=1 the third X fails at 2 and hits at 3 after the fill.
    keys = np.array([7, 7, 7])
    one = np.zeros(3, np.int64)
    pc = ParallelCache(keys, one, one, np.zeros(3, bool), one, n_banks=1, ports=1, mshr_set_of_bank=[0],
                       entries=1, merges=1, hit_limit=4, latency=Latency("fixed", fixed=3),
                       write_evict=True)
    end = pc.run(np.array([0, 3]), 0)
    assert pc.kind.tolist() == [MISS, MERGE, HIT]
    assert pc.found_bits.tolist() == [0, 1, 1]  # a merge counts as a hit
    assert pc.step.tolist() == [0, 1, 3]
    assert pc.dist.tolist() == [-1, 0, 0]
    assert (pc.reservation_failures, pc.merges, end) == (1, 1, 4)


def test_write_evict_needs_no_mshr_and_evicts():
    # Read Y (miss, fills end of 0 with latency 1), write Y (a port, no MSHR, evicts), read Y: cold.
    keys = np.array([5, 5, 5])
    one = np.zeros(3, np.int64)
    pc = ParallelCache(keys, one, one, np.array([0, 1, 0], bool), one, n_banks=1, ports=1,
                       mshr_set_of_bank=[0], entries=1, merges=0, hit_limit=4,
                       latency=Latency("fixed", fixed=1), write_evict=True)
    pc.run(np.array([0, 1, 2, 3]), 0)
    assert pc.kind.tolist() == [MISS, WRITE, MISS]
    assert pc.dist.tolist() == [-1, 0, -1]
    assert pc.step.tolist() == [0, 1, 2]


def test_adaptive_latency():
    # K1 + K2 * busy * scale, rounded half up: four misses to distinct blocks in one step (4 ports,
    # 4 MSHRs) see busy = 0, 1, 2, 3 -> 1 + 0.25 * busy * 2 = 1, 1.5, 2, 2.5 -> 1, 2, 2, 3 steps,
    # so they fill at the end of steps 0, 1, 1, 2 and the kernel drains after step 2.
    keys = np.array([1, 2, 3, 4])
    z = np.zeros(4, np.int64)
    pc = ParallelCache(keys, z, z, np.zeros(4, bool), z, n_banks=1, ports=4, mshr_set_of_bank=[0],
                       entries=4, merges=0, hit_limit=4, latency=Latency("adaptive", k1=1, k2=0.25),
                       write_evict=True, log=True)
    assert pc.run(np.array([0, 4]), 0, latency_scale=2.0) == 3
    _, _, fills = pc.log()
    assert fills.tolist() == [[0, 0], [1, 1], [1, 2], [2, 3]]


def test_l2_mode_writes_allocate():
    keys = np.array([9, 9])
    z = np.zeros(2, np.int64)
    pc = ParallelCache(keys, z, z, np.array([1, 0], bool), z, n_banks=1, ports=1, mshr_set_of_bank=[0],
                       entries=1, merges=0, hit_limit=4, latency=Latency("fixed", fixed=1),
                       write_evict=False)
    pc.run(np.array([0, 1, 2]), 0)
    assert pc.kind.tolist() == [MISS, HIT]


@pytest.mark.parametrize("kw, match", [
    (dict(n_banks=0), "banks: must be a positive integer"),
    (dict(ports=0), "ports: must be a positive integer"),
    (dict(entries=0), "MSHR entries: must be a positive integer"),
])
def test_bad_parameters(kw, match):
    with pytest.raises(InputError, match=match):
        table3(**kw)


def test_parse_latency():
    assert parse_latency("fixed:4") == Latency("fixed", fixed=4)
    assert parse_latency("adaptive:2,0.25") == Latency("adaptive", k1=2.0, k2=0.25)
    for bad, match in (("poisson:3", "unknown model 'poisson'"), ("fixed:0", "integer >= 1"),
                       ("fixed:x", "cannot read"), ("adaptive:1", "cannot read")):
        with pytest.raises(InputError, match=match):
            parse_latency(bad)


def test_serial_limit_with_compaction_equals_the_serial_engine():
    # 3 groups of a few blocks each and 5000 accesses: each group's tree segment (1024 positions)
    # fills and is compacted many times. One port and latency 1: every distance and hit must
    # equal the serial engine's, writes (write-evict) included.
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 30, 5000)
    groups = keys % 3
    writes = rng.random(5000) < 0.2
    z = np.zeros(5000, np.int64)
    pc = ParallelCache(keys, groups, z, writes, z, n_banks=1, ports=1, mshr_set_of_bank=[0], entries=1,
                       merges=0, hit_limit=4, latency=Latency("fixed", fixed=1), write_evict=True)
    assert pc._tsize.tolist() == [1024] * 3
    pc.run(np.arange(5001), 0)
    assert pc.dist.tolist() == stack_distances(keys, groups, writes).tolist()
    assert (pc.found_bits == 1).tolist() == lru_hits(keys, [4], groups, writes)[:, 0].tolist()


def _random_parallel(depth, write_evict, written_apart=False):
    # 2 banks x 2 ports, 4 MSHRs, adaptive latency, lists of 8 accesses from 4 warps: a hot set
    # (hits and merges) and a cold range of 3000 blocks (stacks far deeper than the depth).
    rng = np.random.default_rng(11)
    n = 20000
    keys = np.where(rng.random(n) < 0.5, rng.integers(0, 40, n), rng.integers(0, 3000, n))
    banks = keys % 2
    writes = rng.random(n) < 0.1
    if written_apart:  # stores only to lines never read
        keys = np.where(writes, keys + 10000, keys)
    warps = rng.integers(0, 4, n)
    pc = ParallelCache(keys, banks, banks, writes, warps, n_banks=2, ports=2, mshr_set_of_bank=[0, 0],
                       entries=4, merges=2, hit_limit=16, sweep=(8, 64), latency=Latency(k1=2, k2=0.5),
                       write_evict=write_evict, depth=depth)
    pc.run(np.arange(0, n + 1, 8), 0)
    return pc


@pytest.mark.parametrize("write_evict, apart", [(False, False), (True, True)])
def test_depth_limit_keeps_hits_and_counters(write_evict, apart):
    # Without invalidations of read lines (an L2, or an L1 whose stores go to lines it never
    # reads) a stack cut at the depth changes no hit, sweep, step or outcome, and no distance
    # below the depth; deeper ones read as the depth.
    exact = _random_parallel(0, write_evict, apart)
    cut = _random_parallel(64, write_evict, apart)
    assert cut.depth == 64
    assert cut._tsize.max() < exact._tsize.max()  # the cut stacks are smaller ...
    assert np.count_nonzero(cut.dist == 64) > 1000  # ... and their deep blocks read as 64
    for f in ("found_bits", "kind", "step"):
        assert getattr(cut, f).tolist() == getattr(exact, f).tolist(), f
    assert cut.dist.tolist() == np.where(exact.dist >= 64, 64, exact.dist).tolist()
    assert cut.reservation_failures == exact.reservation_failures and cut.merges == exact.merges


def test_depth_limit_is_ignored_with_write_evict_stores_to_read_lines():
    # An invalidation moves older blocks up the stack: a cut would misplace their distances.
    assert _random_parallel(64, True).depth == 0
    with pytest.raises(InputError, match="depth: must be 0 or at least the largest capacity 64"):
        _random_parallel(32, False)
