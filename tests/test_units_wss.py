"""drp16's WSS cache (golden/units/wss.py): hand-worked lookups, reuse counting, allocation, epochs."""

import numpy as np

from golden.llc.streams import COLOR, DEPTH, DYNTEX, SHADER, TEXTURE
from golden.units.wss import (
    ENTRY_BITS,
    NO_REUSE,
    RR_REUSE,
    SETS,
    WAYS,
    WR_REUSE,
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
