"""Hierarchy: write policies, atomics, level interplay, stats, policy hooks (worked out by hand)."""

from collections import namedtuple

import numba as nb
import numpy as np
import pytest

from golden.cache import COUNTERS, Hierarchy
from golden.cache.stats import ENGINE_COUNTERS
from golden.configs.schema import CacheConfig, GPUConfig
from golden.policies import ACCESS_FIELDS, Policy, make_hooks
from golden.trace.coalesce import ACCESS_DTYPE

LOAD, STORE, ATOMIC = 1, 2, 3
BYP = 0x80


def cc(size, assoc, line_size=64, **kw):
    return CacheConfig(size=size, assoc=assoc, line_size=line_size, **kw)


def gpu(l1, l2, l3=None, n_sm=1):
    return GPUConfig(name="test", n_sm=n_sm, l1=l1, l2=l2, l3=l3)


def accesses(rows):
    """ACCESS_DTYPE rows from ``(sm, op, line)`` or ``(sm, op, line, pc)`` tuples."""
    a = np.zeros(len(rows), ACCESS_DTYPE)
    for i, r in enumerate(rows):
        a[i]["sm"], a[i]["op"], a[i]["line"] = r[:3]
        a[i]["pc"] = r[3] if len(r) > 3 else 0
    return a


def counts(h, level, **expected):
    """The level's counters, with every counter not named expected to be 0."""
    got = h.stats()[level]
    want = dict.fromkeys(COUNTERS, 0)
    want.update(expected)
    want["accesses"] = want["reads"] + want["writes"]
    return {k: got[k] for k in COUNTERS}, want


# One set of 2 ways at L1, one set of 4 ways at L2 (write-back) unless stated.
L2_WB = cc(256, 4, write="write-back")


def test_write_through_no_allocate():
    h = Hierarchy(gpu(cc(128, 2, write="write-through"), L2_WB))
    out = h.run(accesses([(0, STORE, 1), (0, LOAD, 1), (0, STORE, 1)]), outcomes=True)
    # store miss: not filled at L1, write-allocated (dirty) at L2 from memory -> 4;
    # load: L1 miss, L2 hit -> 2; store hit at L1, written through to L2 -> 1.
    assert out.tolist() == [4, 2, 1]
    assert counts(h, "l1")[0] == counts(h, "l1", reads=1, writes=2, read_misses=1, write_hits=1,
                                        write_misses=1, fills=1)[1]
    assert counts(h, "l2")[0] == counts(h, "l2", reads=1, writes=2, read_hits=1, write_hits=1,
                                        write_misses=1, fills=1)[1]
    assert h.levels["l1"].dirty.sum() == 0
    assert h.levels["l2"].dirty[0, 0].tolist() == [1, 0, 0, 0]


def test_write_evict():
    h = Hierarchy(gpu(cc(128, 2, write="write-evict"), L2_WB))
    out = h.run(accesses([(0, LOAD, 1), (0, STORE, 1), (0, LOAD, 1)]), outcomes=True)
    # load fills both levels; the store hit invalidates L1's copy and dirties L2's; the
    # next load misses L1 and hits L2.
    assert out.tolist() == [4, 1, 2]
    assert counts(h, "l1")[0] == counts(h, "l1", reads=2, writes=1, read_misses=2, write_hits=1,
                                        fills=2, evictions=1)[1]
    assert counts(h, "l2")[0] == counts(h, "l2", reads=2, writes=1, read_hits=1, read_misses=1,
                                        write_hits=1, fills=1)[1]


def test_write_back_allocate_and_writeback():
    h = Hierarchy(gpu(cc(128, 2, write="write-back"), L2_WB))
    out = h.run(accesses([(0, STORE, 1), (0, LOAD, 2), (0, LOAD, 3)]), outcomes=True)
    # store miss fetches 1 (L2 miss, memory) and fills it dirty; 2 fills the other way;
    # 3 evicts LRU line 1, which is written back to L2 (a write hit there).
    assert out.tolist() == [4, 4, 4]
    assert counts(h, "l1")[0] == counts(h, "l1", reads=2, writes=1, read_misses=2, write_misses=1,
                                        fills=3, evictions=1, writebacks=1)[1]
    assert counts(h, "l2")[0] == counts(h, "l2", reads=3, writes=1, read_misses=3, write_hits=1,
                                        fills=3)[1]
    assert h.levels["l1"].tag[0, 0].tolist() == [3, 2]
    assert h.levels["l1"].dirty[0, 0].tolist() == [0, 0]
    assert h.levels["l2"].tag[0, 0].tolist() == [1, 2, 3, -1]
    assert h.levels["l2"].dirty[0, 0].tolist() == [1, 0, 0, 0]


def test_l2_dirty_eviction_writes_back_to_memory():
    h = Hierarchy(gpu(cc(128, 2, write="write-through"), cc(64, 1, write="write-back")))
    h.run(accesses([(0, STORE, 1), (0, LOAD, 2)]))
    # The store allocates 1 dirty in the 1-line L2; loading 2 evicts it to memory.
    assert counts(h, "l2")[0] == counts(h, "l2", reads=1, writes=1, read_misses=1, write_misses=1,
                                        fills=2, evictions=1, writebacks=1)[1]
    assert h.levels["l2"].tag[0, 0].tolist() == [2]


@pytest.mark.parametrize("l1_write", ["write-through", "write-back"])
def test_atomics_are_performed_at_l2(l1_write):
    h = Hierarchy(gpu(cc(128, 2, write=l1_write), L2_WB))
    out = h.run(accesses([(0, LOAD, 1), (0, ATOMIC, 1), (0, ATOMIC, 5)]), outcomes=True)
    # The atomic on 1 hits L1 (its copy is kept up to date) but is served by L2 -> 2;
    # the atomic on 5 allocates nowhere at L1, write-allocates at L2 from memory -> 4.
    assert out.tolist() == [4, 2, 4]
    assert h.levels["l1"].tag[0, 0].tolist() == [1, -1]
    assert h.levels["l1"].dirty.sum() == 0
    assert counts(h, "l1")[0] == counts(h, "l1", reads=1, writes=2, read_misses=1, write_hits=1,
                                        write_misses=1, fills=1)[1]
    assert counts(h, "l2")[0] == counts(h, "l2", reads=1, writes=2, read_misses=1, write_hits=1,
                                        write_misses=1, fills=2)[1]
    assert h.levels["l2"].dirty[0, 0].tolist() == [1, 1, 0, 0]


def test_l1_misses_reach_l2():
    h = Hierarchy(gpu(cc(1024, 2), cc(4096, 4), n_sm=2))
    rng = np.random.default_rng(4)
    a = accesses([(int(rng.integers(2)), LOAD, int(rng.integers(60))) for _ in range(2000)])
    out = h.run(a, outcomes=True)
    s = h.stats()
    assert s["l2"]["reads"] == s["l1"]["read_misses"] and s["l2"]["writes"] == 0
    assert (out == 1).sum() == s["l1"]["read_hits"]
    assert (out == 2).sum() == s["l2"]["read_hits"]
    assert (out == 4).sum() == s["l2"]["read_misses"]


def test_private_l1_per_sm_shared_l2():
    h = Hierarchy(gpu(cc(128, 2), L2_WB, n_sm=2))
    out = h.run(accesses([(0, LOAD, 1), (1, LOAD, 1), (0, LOAD, 1), (1, LOAD, 1)]), outcomes=True)
    assert out.tolist() == [4, 2, 1, 1]
    per_sm = h.stats(per_sm=True)["l1_per_sm"]
    assert [(p["read_hits"], p["read_misses"]) for p in per_sm] == [(1, 1), (1, 1)]
    assert h.levels["l1"].tag[:, 0, 0].tolist() == [1, 1]
    assert h.stats()["l1"]["read_hits"] == 2


def test_larger_l2_lines():
    h = Hierarchy(gpu(cc(128, 2), cc(256, 2, line_size=128)))
    out = h.run(accesses([(0, LOAD, 0), (0, LOAD, 1), (0, LOAD, 2)]), outcomes=True)
    # L1 lines 0 and 1 are L2 line 0; L1 line 2 is L2 line 1.
    assert out.tolist() == [4, 2, 4]
    assert h.levels["l2"].tag[0, 0].tolist() == [0, 1]


def test_l3_hit():
    h = Hierarchy(gpu(cc(64, 1), cc(64, 1), cc(256, 4)))
    out = h.run(accesses([(0, LOAD, 1), (0, LOAD, 2), (0, LOAD, 1)]), outcomes=True)
    assert out.tolist() == [4, 4, 3]
    assert h.stats()["l3"]["read_hits"] == 1


def test_runs_continue_where_they_stopped():
    rng = np.random.default_rng(9)
    rows = [(int(rng.integers(2)), int(rng.choice([1, 1, 2, 3])), int(rng.integers(40))) for _ in range(900)]
    g = gpu(cc(512, 2, write="write-back"), cc(2048, 4, replacement="random", seed=3), n_sm=2)
    one, parts = Hierarchy(g), Hierarchy(g)
    whole = one.run(accesses(rows), outcomes=True)
    pieces = np.concatenate([parts.run(accesses(rows[a:b]), outcomes=True)
                             for a, b in ((0, 100), (100, 555), (555, 900))])
    assert (whole == pieces).all()
    assert one.stats(per_sm=True) == parts.stats(per_sm=True)
    for name in one.levels:
        assert (one.levels[name].tag == parts.levels[name].tag).all()
    assert parts.t == 900
    parts.reset()
    assert parts.stats()["l1"]["accesses"] == 0 and not parts.levels["l2"].valid.any()


def test_stats_keys_and_hit_rate():
    h = Hierarchy(gpu(cc(128, 2), L2_WB, cc(512, 4)))
    h.run(accesses([(0, LOAD, 1), (0, LOAD, 1), (0, STORE, 1), (0, LOAD, 2)]))
    s = h.stats()
    assert list(s) == ["l1", "l2", "l3"]
    for level in s.values():
        assert list(level) == [*COUNTERS, "hit_rate"]
    assert s["l1"]["hit_rate"] == 2 / 4
    assert s["l3"]["hit_rate"] == 0.0
    assert list(Hierarchy(gpu(cc(128, 2), L2_WB)).stats()) == ["l1", "l2"]
    assert ENGINE_COUNTERS == COUNTERS[3:]


def test_input_errors():
    h = Hierarchy(gpu(cc(128, 2), L2_WB, n_sm=2))
    with pytest.raises(ValueError, match=r"op must be 1 \(load\), 2 \(store\) or 3 \(atomic\), not 0"):
        h.run(accesses([(0, 0, 1)]))
    with pytest.raises(ValueError, match="sm 2 does not exist on a GPU with 2 SMs"):
        h.run(accesses([(2, LOAD, 1)]))
    with pytest.raises(ValueError, match="missing field"):
        h.run(np.zeros(3, [("line", "<u8")]))
    with pytest.raises(ValueError, match="l2.line_size: must be at least l1's 128 bytes, not 64"):
        Hierarchy(gpu(cc(256, 2, line_size=128), L2_WB))
    assert h.run(accesses([])) is None


# --- policy hooks ------------------------------------------------------------------------------

HIT, MISS, REQUEST, RESPONSE, VICTIM, EVICT, FILL = range(1, 8)


ToyState = namedtuple("ToyState", ["log", "n", "level", "bypass_odd", "victim", "flags", "resp", "ctx"])
#: One hook call: which hook at which level, the instance, set, way and line it saw, two
#: hook-specific values (pc, op | flags, resp | dirty, 0) and the access index.
CALL_DTYPE = np.dtype([(f, "<i8") for f in ("hook", "level", "c", "set", "way", "line", "x", "y", "t")])


@nb.njit
def _log(ps, hook, a, w, line, x, y):
    if ps.n[0] < ps.log.size:
        row = ps.log[ps.n[0]]
        row.hook, row.level, row.c, row.set, row.way, row.line, row.x, row.y, row.t = (
            hook, ps.level, a.c, a.set, w, line, x, y, a.t)
        # The whole context of every call, for the context tests (ACCESS_FIELDS order).
        for k in range(len(a)):
            ps.ctx[ps.n[0], k] = a[k]
    ps.n[0] += 1


@nb.njit
def toy_on_hit(ps, a):
    _log(ps, HIT, a, a.way, a.line, a.pc, a.op)


@nb.njit
def toy_on_miss(ps, a):
    _log(ps, MISS, a, -1, a.line, a.pc, a.op)
    return ps.flags


@nb.njit
def toy_on_request(ps, a, flags):
    _log(ps, REQUEST, a, a.way, a.line, flags, 0)
    return ps.resp


@nb.njit
def toy_on_response(ps, a, flags, resp):
    _log(ps, RESPONSE, a, -1, a.line, flags, resp)
    return 1 if ps.bypass_odd and a.line % 2 else 0


@nb.njit
def toy_victim(ps, a, default_way):
    _log(ps, VICTIM, a, default_way, -1, 0, 0)
    return ps.victim if ps.victim >= 0 else default_way


@nb.njit
def toy_on_evict(ps, a, way, line, dirty):
    _log(ps, EVICT, a, way, line, dirty, 0)


@nb.njit
def toy_on_fill(ps, a):
    _log(ps, FILL, a, a.way, a.line, a.pc, a.op)


class Toy(Policy):
    """Logs every hook call (both levels into one log); optionally bypasses odd lines at L1,
    forces the L1 victim way, and returns fixed request flags / response bits."""

    name = "toy"

    def __init__(self, bypass_odd=0, victim=-1, flags=2, resp=5, log_size=64):
        self.log = np.zeros(log_size, CALL_DTYPE)
        self.ctx = np.zeros((log_size, len(ACCESS_FIELDS)), np.int64)
        self.n = np.zeros(1, np.int64)
        self.ctl = {"l1": dict(bypass_odd=bypass_odd, victim=victim, flags=flags, resp=0),
                    "l2": dict(bypass_odd=0, victim=-1, flags=0, resp=resp)}

    def level_hooks(self, level, cfg, n_caches):
        if level not in self.ctl:
            return super().level_hooks(level, cfg, n_caches)
        state = ToyState(log=self.log, n=self.n, level=int(level[1]), ctx=self.ctx, **self.ctl[level])
        return make_hooks(state, on_hit=toy_on_hit, on_miss=toy_on_miss, on_request=toy_on_request,
                          on_response=toy_on_response, victim=toy_victim, on_evict=toy_on_evict,
                          on_fill=toy_on_fill)

    def calls(self):
        return [tuple(r) for r in self.log[:self.n[0]].tolist()]  # CALL_DTYPE field order


TOY_GPU = gpu(cc(64, 1, write="write-through"), cc(128, 2, write="write-back"))


def test_hook_order_on_loads():
    p = Toy()
    h = Hierarchy(TOY_GPU, p)
    out = h.run(accesses([(0, LOAD, 1, 10), (0, LOAD, 1, 11), (0, LOAD, 2, 12), (0, LOAD, 1, 13)]),
                outcomes=True)
    assert out.tolist() == [4, 1, 4, 2]
    # (hook, level, c, s, w, line, a, b, t); a, b = pc, op | flags, resp | dirty, 0.
    assert p.calls() == [
        # t0: miss everywhere; L2 fills, answers L1's request (flags 2) with 5; L1 fills.
        (MISS, 1, 0, 0, -1, 1, 10, LOAD, 0),
        (MISS, 2, 0, 0, -1, 1, 10, LOAD, 0),
        (RESPONSE, 2, 0, 0, -1, 1, 0, 0, 0),
        (VICTIM, 2, 0, 0, 0, -1, 0, 0, 0),
        (FILL, 2, 0, 0, 0, 1, 10, LOAD, 0),
        (REQUEST, 2, 0, 0, 0, 1, 2, 0, 0),
        (RESPONSE, 1, 0, 0, -1, 1, 2, 5, 0),
        (VICTIM, 1, 0, 0, 0, -1, 0, 0, 0),
        (FILL, 1, 0, 0, 0, 1, 10, LOAD, 0),
        # t1: L1 hit.
        (HIT, 1, 0, 0, 0, 1, 11, LOAD, 1),
        # t2: line 2 misses both; L2 fills way 1; L1 evicts line 1.
        (MISS, 1, 0, 0, -1, 2, 12, LOAD, 2),
        (MISS, 2, 0, 0, -1, 2, 12, LOAD, 2),
        (RESPONSE, 2, 0, 0, -1, 2, 0, 0, 2),
        (VICTIM, 2, 0, 0, 1, -1, 0, 0, 2),
        (FILL, 2, 0, 0, 1, 2, 12, LOAD, 2),
        (REQUEST, 2, 0, 0, 1, 2, 2, 0, 2),
        (RESPONSE, 1, 0, 0, -1, 2, 2, 5, 2),
        (VICTIM, 1, 0, 0, 0, -1, 0, 0, 2),
        (EVICT, 1, 0, 0, 0, 1, 0, 0, 2),
        (FILL, 1, 0, 0, 0, 2, 12, LOAD, 2),
        # t3: line 1 misses L1, hits L2 way 0.
        (MISS, 1, 0, 0, -1, 1, 13, LOAD, 3),
        (HIT, 2, 0, 0, 0, 1, 13, LOAD, 3),
        (REQUEST, 2, 0, 0, 0, 1, 2, 0, 3),
        (RESPONSE, 1, 0, 0, -1, 1, 2, 5, 3),
        (VICTIM, 1, 0, 0, 0, -1, 0, 0, 3),
        (EVICT, 1, 0, 0, 0, 2, 0, 0, 3),
        (FILL, 1, 0, 0, 0, 1, 13, LOAD, 3),
    ]


def test_every_hook_sees_the_whole_access_context():
    """warp, CTA, kernel, sector mask, cycle and stream reach every hook at both levels."""
    p = Toy()
    h = Hierarchy(TOY_GPU, p)
    a = accesses([(0, LOAD, 1, 10)])
    a["warp"], a["cta"], a["kernel"], a["sectors"], a["cycle"], a["stream"] = 7, 3, 2, 0b0101, 99, 5
    h.run(a)
    n = int(p.n[0])
    assert n == 9
    ctx = [dict(zip(ACCESS_FIELDS, row, strict=True)) for row in p.ctx[:n].tolist()]
    for c in ctx:
        assert (c["sm"], c["warp"], c["cta"], c["kernel"], c["pc"], c["sectors"], c["cycle"], c["stream"],
                c["t"]) == (0, 7, 3, 2, 10, 0b0101, 99, 5, 0)
        assert c["op"] == LOAD and c["line"] == 1 and c["set"] == 0
    # The way field: -1 on a miss, the filled way in on_fill, the holding way in on_request.
    ways = [(int(hook), c["way"]) for (hook, *_), c in zip(p.calls(), ctx, strict=True)]
    assert ways == [(MISS, -1), (MISS, -1), (RESPONSE, -1), (VICTIM, -1), (FILL, 0), (REQUEST, 0),
                    (RESPONSE, -1), (VICTIM, -1), (FILL, 0)]


def test_attaching_twice_gives_independent_state():
    p = Toy()
    h1 = Hierarchy(TOY_GPU, p)
    first = p.ctl  # the hooks' state is rebuilt per attachment
    h2 = Hierarchy(TOY_GPU, p)
    h1.run(accesses([(0, LOAD, 1)]))
    assert h1.levels["l1"].tag[0, 0, 0] == 1 and h2.levels["l1"].tag[0, 0, 0] == -1
    assert h1.hooks["l1"].state is not h2.hooks["l1"].state and first is p.ctl


def test_hook_order_on_stores():
    p = Toy()
    h = Hierarchy(TOY_GPU, p)
    out = h.run(accesses([(0, LOAD, 1, 7), (0, STORE, 1, 8), (0, STORE, 3, 9)]), outcomes=True)
    assert out.tolist() == [4, 1, 4]
    calls = p.calls()
    assert calls[9:] == [
        # Write-through store hit: L1 on_hit, then the write is an L2 write hit (no on_request).
        (HIT, 1, 0, 0, 0, 1, 8, STORE, 1),
        (HIT, 2, 0, 0, 0, 1, 8, STORE, 1),
        # Store miss at L1 (no allocate): on_miss only; L2 write-allocates from memory.
        (MISS, 1, 0, 0, -1, 3, 9, STORE, 2),
        (MISS, 2, 0, 0, -1, 3, 9, STORE, 2),
        (RESPONSE, 2, 0, 0, -1, 3, 0, 0, 2),
        (VICTIM, 2, 0, 0, 1, -1, 0, 0, 2),
        (FILL, 2, 0, 0, 1, 3, 9, STORE, 2),
    ]
    assert h.levels["l2"].dirty[0, 0].tolist() == [1, 1]


def test_bypass_policy_does_not_fill():
    p = Toy(bypass_odd=1)
    h = Hierarchy(TOY_GPU.replace(l1=cc(128, 2)), p)
    out = h.run(accesses([(0, LOAD, 1), (0, LOAD, 2), (0, LOAD, 1), (0, LOAD, 2), (0, LOAD, 3)]),
                outcomes=True)
    assert out.tolist() == [4 | BYP, 4, 2 | BYP, 1, 4 | BYP]
    s = h.stats()
    assert (s["l1"]["bypasses"], s["l1"]["fills"], s["l1"]["read_misses"]) == (3, 1, 4)
    assert h.levels["l1"].tag[0, 0].tolist() == [2, -1]
    assert (s["l2"]["reads"], s["l2"]["fills"]) == (4, 3)  # L2 fills 1, 2, then 3 over 2
    assert sum(1 for c in p.calls() if c[:2] == (FILL, 1)) == 1


def test_victim_hook_overrides_even_invalid_ways():
    p = Toy(victim=1)
    h = Hierarchy(TOY_GPU.replace(l1=cc(128, 2)), p)
    h.run(accesses([(0, LOAD, 1), (0, LOAD, 2), (0, LOAD, 3)]))
    assert h.levels["l1"].tag[0, 0].tolist() == [-1, 3]
    assert h.stats()["l1"]["evictions"] == 2


def test_noop_hooks_match_baseline():
    rng = np.random.default_rng(2)
    rows = [(int(rng.integers(2)), int(rng.choice([1, 1, 2, 3])), int(rng.integers(50))) for _ in range(600)]
    g = gpu(cc(256, 2, write="write-back"), cc(1024, 4, replacement="plru"), n_sm=2)
    toy = Toy(flags=0, resp=0, log_size=1)
    hooked, plain = Hierarchy(g, toy), Hierarchy(g)
    assert (hooked.run(accesses(rows), outcomes=True) == plain.run(accesses(rows), outcomes=True)).all()
    assert hooked.stats(per_sm=True) == plain.stats(per_sm=True)
    assert toy.n[0] > 600


# A minimal tian15 Listing 1 (section 3.2): PC-indexed saturating counters at L1, a hashed
# PC per L1 line, a bypassBit per L2 line.

MiniL1 = namedtuple("MiniL1", ["table", "hpc", "thr"])
MiniL2 = namedtuple("MiniL2", ["bits"])


@nb.njit
def t15_hit(ps, a):
    h = ps.hpc[a.set, a.way]
    ps.table[h] = max(ps.table[h] - 1, 0)  # reused block
    ps.hpc[a.set, a.way] = a.pc % ps.table.size


@nb.njit
def t15_miss(ps, a):
    return 1 if ps.table[a.pc % ps.table.size] >= ps.thr else 0  # predicted bypass -> flag bit 0


@nb.njit
def t15_evict(ps, a, way, line, dirty):
    h = ps.hpc[a.set, way]
    ps.table[h] = min(ps.table[h] + 1, 15)  # the victim saw no reuse


@nb.njit
def t15_response(ps, a, flags, resp):
    return 1 if flags & 1 and not resp else 0  # bypass unless L2's bypassBit says otherwise


@nb.njit
def t15_fill(ps, a):
    ps.hpc[a.set, a.way] = a.pc % ps.table.size


@nb.njit
def t15_l2_request(ps, a, flags):
    if a.way < 0:
        return 0
    bit = ps.bits[a.set, a.way]
    ps.bits[a.set, a.way] = 1 if flags & 1 and not bit else 0  # read and clear; a bypass sets it
    return bit


@nb.njit
def t15_l2_fill(ps, a):
    ps.bits[a.set, a.way] = 0


class MiniTian15(Policy):
    name = "mini-tian15"

    def __init__(self, threshold=1):
        self.table = np.array([threshold, 0, 0, 0], np.int64)  # PC 0 starts predicted-bypass
        self.thr = threshold

    def level_hooks(self, level, cfg, n_caches):
        if level == "l1":
            self.hpc = np.zeros((cfg.sets, cfg.assoc), np.int64)
            return make_hooks(MiniL1(self.table, self.hpc, self.thr), on_hit=t15_hit, on_miss=t15_miss,
                              on_evict=t15_evict, on_response=t15_response, on_fill=t15_fill)
        if level == "l2":
            self.bits = np.zeros((cfg.sets, cfg.assoc), np.int64)
            return make_hooks(MiniL2(self.bits), on_request=t15_l2_request, on_fill=t15_l2_fill)
        return super().level_hooks(level, cfg, n_caches)


def test_tian15_listing1_is_expressible():
    p = MiniTian15()
    h = Hierarchy(TOY_GPU, p)  # 1-line L1, 2-way L2
    x, y = 4, 6
    out = h.run(accesses([(0, LOAD, x, 0)]), outcomes=True)
    # Predicted bypass, bypassBit was 0: not installed; L2 sets bypassBit.
    assert out.tolist() == [4 | BYP] and not h.levels["l1"].valid.any()
    assert p.bits[0].tolist() == [1, 0]
    out = h.run(accesses([(0, LOAD, x, 0)]), outcomes=True)
    # Predicted bypass again, but bypassBit = 1 comes back: installed, bit cleared.
    assert out.tolist() == [2] and h.levels["l1"].tag[0, 0, 0] == x
    assert p.bits[0].tolist() == [0, 0]
    h.run(accesses([(0, LOAD, x, 0)]))  # hit: counter of the line's PC decremented
    assert p.table[0] == 0
    out = h.run(accesses([(0, LOAD, y, 0)]), outcomes=True)
    # No longer predicted bypass: installed; the victim x's counter is incremented.
    assert out.tolist() == [4] and h.levels["l1"].tag[0, 0, 0] == y
    assert p.table[0] == 1
    assert h.stats()["l1"]["bypasses"] == 1


def test_policy_registry_and_hook_validation():
    from golden.errors import InputError
    from golden.policies import Baseline, get_policy, policy_names, register_policy

    assert isinstance(get_policy("baseline"), Baseline)
    assert "baseline" in policy_names()
    with pytest.raises(InputError, match="unknown policy 'baselin'; did you mean baseline"):
        get_policy("baselin")
    with pytest.raises(TypeError, match="unknown hooks: on_hitt"):
        make_hooks((), on_hitt=toy_on_hit)
    with pytest.raises(TypeError, match="state: must be a .named. tuple of numpy arrays and scalars, "
                                        "not list"):
        make_hooks([])

    class Twice(Policy):
        name = "baseline"

    with pytest.raises(ValueError, match="Policy 'baseline' is registered twice"):
        register_policy(Twice)

    class Broken(Policy):
        name = "broken"

        def level_hooks(self, level, cfg, n_caches):
            return (toy_on_hit,)

    with pytest.raises(ValueError, match="policy 'broken': level_hooks\\('l1'\\) must return LevelHooks"):
        Hierarchy(TOY_GPU, Broken())
