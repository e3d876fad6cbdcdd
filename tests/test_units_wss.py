"""drp16's WSS cache (golden/units/wss.py): the functional core, the unit model, the recording policy."""

import numpy as np
import pytest

from golden.configs.schema import CacheConfig
from golden.errors import InputError
from golden.llc.model import LLC_TRACE_DTYPE, LLCModel
from golden.llc.streams import COLOR, DEPTH, DYNTEX, SHADER, TEXTURE
from golden.policies import get_policy
from golden.units.wss import (
    ENTRY_BITS,
    NO_REUSE,
    RR_REUSE,
    SETS,
    WAYS,
    WR_REUSE,
    Wss,
    new_wss,
    wss_access,
)

R, W = 0, 1


def line(page, block):
    return page * 64 + block


def test_geometry_matches_the_paper():
    # drp16 Section 5.6: 86-bit entries, 2K entries, "about 22 KB".
    assert ENTRY_BITS == 86 and SETS * WAYS == 2048
    assert SETS * WAYS * ENTRY_BITS / 8 / 1024 == 21.5


def test_write_to_read_and_read_to_read_reuse():
    ws = new_wss()
    p = 5  # set 5, tag 0
    assert wss_access(ws, line(p, 8), COLOR, W) == NO_REUSE  # block 1 tracked: V W, colour; WA[colour] 1
    assert wss_access(ws, line(p, 9), COLOR, R) == NO_REUSE  # block 9 is not tracked
    assert wss_access(ws, line(p, 8), DYNTEX, R) == WR_REUSE  # WR[colour] 1; W cleared; stream dyntex
    assert wss_access(ws, line(p, 8), DYNTEX, R) == RR_REUSE  # RR[dyntex] 1
    assert wss_access(ws, line(p, 16), TEXTURE, R) == NO_REUSE  # block 2: V, texture
    assert wss_access(ws, line(p, 16), TEXTURE, R) == RR_REUSE  # RR[texture] 1
    assert wss_access(ws, line(p, 16), TEXTURE, R) == RR_REUSE  # RR[texture] 2 = MAX_REUSE
    assert (ws.wr[COLOR], ws.wa[COLOR], ws.rr[DYNTEX], ws.rr[TEXTURE], ws.max_reuse[0]) == (1, 1, 1, 2, 2)
    assert ws.wr.sum() == 1 and ws.wa.sum() == 1 and ws.rr.sum() == 3
    # One entry, owned by the stream of its first valid tracked block (block 1: now dyntex).
    assert ws.tag[5].tolist().count(0) == 1 and ws.held[DYNTEX] == 1 and ws.held.sum() == 1
    # Dynamic texture: block 1's first dyntex read (from colour) counts one block; its second
    # dyntex read is a reuse beyond the first access.
    assert ws.dt.tolist() == [1, 1]
    assert ws.reads[0] == 6


def test_allocation_invalid_ways_then_random_only_for_small_streams():
    ws = new_wss(seed=3, min_entries=2)
    # Sixteen pages of set 0 (tags 0..15) fill the set in way order, each owned by shader.
    for tag in range(WAYS):
        wss_access(ws, line(tag * SETS, 0), SHADER, R)
    assert ws.tag[0].tolist() == list(range(WAYS)) and ws.held[SHADER] == WAYS
    # Shader holds 16 >= 2 entries: a new shader page bypasses the WSS cache.
    wss_access(ws, line(16 * SETS, 0), SHADER, R)
    assert ws.tag[0].tolist() == list(range(WAYS))
    # Depth holds none: its page replaces a random way, which stops counting for shader.
    wss_access(ws, line(17 * SETS, 0), DEPTH, W)
    assert 17 in ws.tag[0].tolist() and (ws.held[SHADER], ws.held[DEPTH]) == (WAYS - 1, 1)
    wss_access(ws, line(18 * SETS, 0), DEPTH, W)
    # Depth holds 2 (or 1, had the random way been its own entry): never more than min_entries.
    assert ws.held[DEPTH] in (1, 2) and ws.held.sum() == WAYS
    before = ws.tag[0].copy()
    if ws.held[DEPTH] == 2:
        wss_access(ws, line(19 * SETS, 0), DEPTH, W)  # 2 >= 2: bypass
        assert (ws.tag[0] == before).all()
    # The same seed makes the same choices.
    again = new_wss(seed=3, min_entries=2)
    for tag in range(WAYS + 1):
        wss_access(again, line(tag * SETS, 0), SHADER, R)
    wss_access(again, line(17 * SETS, 0), DEPTH, W)
    wss_access(again, line(18 * SETS, 0), DEPTH, W)
    assert (again.tag[0] == before).all()


def test_untracked_pages_hold_an_entry_without_an_owner():
    ws = new_wss()
    wss_access(ws, line(7, 3), COLOR, W)  # block 3 not tracked: the entry is allocated, no owner
    assert ws.tag[7, 0] == 0 and ws.owner[7, 0] == -1 and ws.held.sum() == 0 and ws.wa.sum() == 0


def test_epoch_invalidates_and_halves():
    ws = new_wss(epoch=8)
    p = 1
    wss_access(ws, line(p, 0), COLOR, W)  # WA[colour] 1 (writes do not count toward the epoch)
    for _ in range(3):
        wss_access(ws, line(p, 0), TEXTURE, R)  # a write-to-read reuse of colour: WR[colour] +1
        wss_access(ws, line(p, 0), COLOR, W)  # WA[colour] +1
    for _ in range(4):
        wss_access(ws, line(p, 8), TEXTURE, R)  # validates block 1, then RR[texture] 1, 2, 3
    # Reads so far: 3 + 4 = 7.
    assert (ws.wa[COLOR], ws.wr[COLOR], ws.rr[TEXTURE], ws.max_reuse[0], ws.reads[0]) == (4, 3, 3, 3, 7)
    wss_access(ws, line(p, 8), TEXTURE, R)  # the 8th read: RR[texture] 4, then the epoch ends
    # Halved: WA 4 -> 2, WR 3 -> 1, RR 4 -> 2; MAX_REUSE recomputed: 2.
    assert (ws.wa[COLOR], ws.wr[COLOR], ws.rr[TEXTURE], ws.max_reuse[0]) == (2, 1, 2, 2)
    assert (ws.tag == -1).all() and ws.held.sum() == 0 and ws.reads[0] == 0
    # The entry is gone: the next read of block 1 only re-validates it.
    assert wss_access(ws, line(p, 8), TEXTURE, R) == NO_REUSE


def test_random_stream_matches_a_plain_python_model():
    """Random accesses against an independent dict model of the tracked blocks' rules.

    The model follows the unit's own tag array for which pages are present (its random
    victims are the unit's choice) and checks every outcome and the final counters.
    """
    rng = np.random.default_rng(11)
    ws = new_wss(min_entries=4, epoch=300)
    blocks, wr, rr, wa, reads = {}, np.zeros(11, int), np.zeros(11, int), np.zeros(11, int), 0
    for _ in range(3000):
        ln = int(rng.integers(0, 64 * 400))
        if rng.random() < 0.7:
            ln &= ~7
        st, wt = int(rng.integers(0, 11)), int(rng.random() < 0.3)
        got = wss_access(ws, ln, st, wt)
        page = ln >> 6
        s, tag = page % SETS, page >> 7
        exp = NO_REUSE
        if tag in ws.tag[s].tolist() and ln % 8 == 0:
            key = (s, tag, (ln % 64) // 8)
            old = blocks.get(key)
            if wt:
                wa[st] += 1
                blocks[key] = ("W", st)
            elif old is None:
                blocks[key] = ("V", st)
            else:
                if old[0] == "W":
                    wr[old[1]] += 1
                    exp = WR_REUSE
                else:
                    rr[old[1]] += 1
                    exp = RR_REUSE
                blocks[key] = ("V", st)
        if not wt:
            reads += 1
            if reads == 300:
                reads = 0
                blocks.clear()
                wr //= 2
                rr //= 2
                wa //= 2
        # Pages replaced (or invalidated) lose their blocks.
        live = {(s2, int(t2)) for s2 in range(SETS) for t2 in ws.tag[s2] if t2 >= 0}
        blocks = {k: v for k, v in blocks.items() if (k[0], k[1]) in live}
        assert got == exp
    assert ws.wr.tolist() == wr.tolist() and ws.rr.tolist() == rr.tolist() and ws.wa.tolist() == wa.tolist()


# ---- The unit model, and the transactions the drp16-wss policy records.

SMALL_WSS = dict(sets=8, ways=4, min_entries=4, epoch=3000)


def llc_stream(n, seed=0):
    """A seeded 2C1G stream: CPU loads and stores over a few pages, GPU streams over a frame's pages."""
    rng = np.random.default_rng(seed)
    t = np.zeros(n, LLC_TRACE_DTYPE)
    cpu = rng.random(n) < 0.3
    core = rng.integers(0, 2, n)
    t["stream"] = np.where(cpu, core, rng.choice([COLOR, DEPTH, TEXTURE, DYNTEX, SHADER], n))
    lines = rng.integers(0, 64 * 300, n)
    t["line"] = np.where(rng.random(n) < 0.6, lines & ~7, lines) + np.where(cpu, core << 20, 1 << 24)
    t["op"] = np.where(rng.random(n) < 0.3, 2, 1)
    t["pc"] = np.where(cpu, 0x400 + 4 * rng.integers(0, 16, n), 0)
    return t


@pytest.fixture(scope="module")
def recorded():
    """A 2C1G run with the WSS sampling the LLC, its LLC trace and the policy."""
    p = get_policy("drp16-wss", log_sm=0, log_capacity=1 << 17, **SMALL_WSS)
    m = LLCModel(2, p)
    llc = m.run(llc_stream(30_000), record=True)
    return p, p.take_transactions()["wss"], llc, m.stats()


def test_policy_feeds_every_llc_access(recorded):
    p, tx, llc, stats = recorded
    assert len(tx) == len(llc) == sum(v["reads"] + v["writes"] for v in stats["streams"].values())
    assert (tx["line"] == llc["line"].astype(np.int64)).all() and (tx["stream"] == llc["stream"]).all()
    assert (tx["write"] == (llc["op"] == 2)).all() and (tx["access"] == np.arange(len(tx))).all()
    # The functional core on the recorded LLC trace gives the same outcomes and counters.
    ws = new_wss(0, SMALL_WSS["min_entries"], SMALL_WSS["epoch"], sets=8, ways=4)
    reuse = [wss_access(ws, int(r["line"]), int(r["stream"]), int(r["op"] == 2)) for r in llc]
    assert reuse == tx["reuse"].tolist()
    assert ws.wr.tolist() == p.ws.wr.tolist() and ws.max_reuse[0] == p.ws.max_reuse[0]
    # Every rule is reached.
    assert (np.bincount(tx["reuse"], minlength=3) > 0).all() and tx["epoch"].sum() >= 3
    s = p.stats()
    assert s["wss_accesses"] == len(tx) and s["wss_epochs"] == tx["epoch"].sum() and s["wss_replacements"] > 0
    assert s["wss_hits"] == tx["hit"].sum() and s["wss_allocations"] == tx["alloc"].sum()


@pytest.mark.slow
def test_policy_leaves_the_inner_policy_alone(recorded):
    _, _, _, stats = recorded
    m = LLCModel(2, get_policy("drp16-baseline"))
    m.run(llc_stream(30_000))
    assert m.stats() == stats


def test_cycle_log_equals_the_unit_model(recorded):
    p, tx, _, _ = recorded
    model = Wss(**SMALL_WSS)
    log = model.cycle_log(tx[:6000])
    assert log["exp_s2_resp__epoch"].sum() >= 1
    got = model.run(log[list(model.inputs)])
    for k in model.outputs:
        bad = np.flatnonzero(got[f"exp_{k}"] != log[f"exp_{k}"])
        assert bad.size == 0, f"{k} differs first at row {bad[0] if bad.size else -1}"
    # One row per access, 1 + sets stall rows after an epoch end, one row at the end.
    assert len(log) == 6000 + (1 + 8) * tx["epoch"][:6000].sum() + 1
    taken = (log["s1_acc__valid"] == 1) & (log["exp_s1_acc__ready"] == 1)
    assert taken.sum() == 6000 == log["exp_s2_resp__valid"].sum()


@pytest.mark.slow
def test_policy_on_a_gpu_hierarchy_samples_the_l2():
    from golden.cache.hierarchy import Hierarchy
    from golden.configs.presets import preset
    from golden.driver import drive
    from golden.workloads import registry

    gpu = preset("tian15")
    p = get_policy("drp16-wss", log_sm=0, log_capacity=1 << 20)
    h = Hierarchy(gpu, p)
    drive(registry.build("tian15/bfs", 0.005), gpu, [h])
    tx = p.take_transactions()["wss"]
    l2 = h.stats()["l2"]
    assert len(tx) == l2["read_hits"] + l2["read_misses"] + l2["write_hits"] + l2["write_misses"] > 0
    assert (tx["stream"] == SHADER).all()  # CUDA accesses are the shader stream


def test_policy_errors_and_protocol():
    with pytest.raises(InputError, match="inner: cannot wrap itself"):
        get_policy("drp16-wss", inner="drp16-wss")
    with pytest.raises(InputError, match="gpu_level: must be l1, l2 or l3"):
        get_policy("drp16-wss", gpu_level="l4")
    with pytest.raises(ValueError, match="ways: must be a power of 2 up to 64, not 12"):
        get_policy("drp16-wss", ways=12)
    with pytest.raises(InputError, match="llc.line_size: the WSS tracks 64-byte blocks"):
        get_policy("drp16-wss").level_hooks("llc", CacheConfig(size=1 << 20, assoc=16, line_size=32), 1)
    p = get_policy("drp16-wss")
    assert p.units() == ("wss",) and p.recorders == ("wss",)
    assert p.stats()["wss_accesses"] == 0 and p.take_transactions()["wss"].size == 0
    with pytest.raises(ValueError, match="s1_acc__stream: must be 0 to 10, not 11"):
        Wss().step(s1_acc__valid=1, s1_acc__stream=11)


def test_counters_saturate():
    ws = new_wss(counter_bits=2)
    for _ in range(6):
        wss_access(ws, line(3, 0), COLOR, W)
    assert ws.wa[COLOR] == 3
    for _ in range(6):
        wss_access(ws, line(3, 0), TEXTURE, R)
    assert ws.wr[COLOR] == 1 and ws.rr[TEXTURE] == 3 and ws.max_reuse[0] == 3
