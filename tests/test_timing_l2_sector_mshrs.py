"""MSHRs per sector (``mshr_key = "sector"``, L2 and L1) against per line (the default).

GPGPU-Sim's sector caches key their MSHRs by 32-byte sector (``cache_config::mshr_addr`` masks an
address to ``m_atom_sz``): a sector's read fills that sector and answers its own waiters, whatever
the line's other sectors are doing. Per line, a request for a sector the line's entry is not
fetching reads it too, and the whole entry fills when its last read is back. Closed-form figures
on ``tests/test_timing.py``'s test GPU with 32-byte sectors at both levels, three SMs of one warp
(the L2) or one SM of two warps (the L1), every load used at once (``docs/timing.md``, "L2
sectors" and "L1 and MSHRs").
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.configs.schema import CacheConfig
from golden.gpu.core import LOG_LOAD_DONE
from golden.trace.builder import KernelBuilder
from tests.test_timing import DRAM_LATENCY, L2_HIT_LATENCY, LINE, gpu, run

#: A sector's response is one flit (an 8-byte header and 32 bytes in the test GPU's 128-byte
#: flits), a line's two: a sector's round trips are a cycle shorter than a line's.
SECTOR_DRAM = DRAM_LATENCY - 1
SECTOR_L2_HIT = L2_HIT_LATENCY - 1
#: SM 1 asks for the line's second sector this many cycles after SM 0 asks for its first.
LATER = 40


def three_loads(reread_at: int) -> KernelBuilder:
    """SM 0 loads sector 0 of line 5 at once, SM 1 sector 1 ``LATER`` cycles on, SM 2 sector 0
    again ``reread_at`` cycles on."""
    kb = KernelBuilder("sectors", (3,), (32,))
    kb.compute(LATER, active=kb.bx == 1)
    kb.compute(reread_at, active=kb.bx == 2)
    kb.load(0x10, 5 * LINE + 32 * (kb.bx == 1) + 0 * kb.tx)
    kb.compute(1)
    return kb


def _done(key: str, reread_at: int) -> tuple[dict[int, int], dict]:
    g = gpu(n_sm=3, l1={"sector_size": 32}, l2={"sector_size": 32, "mshr_key": key})
    tm, (r,) = run([three_loads(reread_at)], g, log_ldst=True)
    done = {int(sm): int(c) for c, sm, _, _, what in tm.ldst_log() if what == LOG_LOAD_DONE}
    return done, r.counters


def test_a_sector_fills_on_its_own_per_sector_and_with_its_line_per_line():
    # SM 2 comes long after both fills: an L2 hit either way.
    per_sector, c_sector = _done("sector", 400)
    per_line, c_line = _done("line", 400)
    # Per sector, SM 0's sector is back after its own DRAM round trip; per line it waits for the
    # read of SM 1's sector, sent LATER cycles after its own.
    assert per_sector[0] == SECTOR_DRAM
    assert per_line[0] == SECTOR_DRAM + LATER
    assert per_sector[1] == SECTOR_DRAM + LATER
    assert per_sector[2] == per_line[2] == 400 + SECTOR_L2_HIT
    # Two reads from DRAM either way: per sector two entries, per line one entry with two reads.
    for c in (c_sector, c_line):
        assert c["dram_reads"] == 2 and c["l2_hits"] == 1 and c["l2_mshr_merges"] == 0


def test_a_reread_between_the_two_fills_hits_per_sector_and_merges_per_line():
    # SM 2 asks for sector 0 again 80 cycles on: after sector 0's own fill, before sector 1's.
    per_sector, c_sector = _done("sector", 80)
    per_line, c_line = _done("line", 80)
    assert per_sector[2] == 80 + SECTOR_L2_HIT
    assert c_sector["l2_hits"] == 1 and c_sector["l2_mshr_merges"] == 0
    # Per line the entry is still waiting for sector 1: the re-read merges and is answered with it.
    assert per_line[2] > per_line[0] == SECTOR_DRAM + LATER
    assert c_line["l2_hits"] == 0 and c_line["l2_mshr_merges"] == 1


def test_a_reread_before_its_sectors_fill_merges_either_way():
    # 10 cycles on, sector 0 is still on its way: a merge, answered with it.
    per_sector, c_sector = _done("sector", 10)
    assert c_sector["l2_mshr_merges"] == 1 and c_sector["l2_hits"] == 0
    assert per_sector[2] == per_sector[0] + 1  # the same fill, answered one response after SM 0's
    assert c_sector["dram_reads"] == 2
    # Per line too, answered with the line's entry (the same fill as SM 0's).
    per_line, c_line = _done("line", 10)
    assert c_line["l2_mshr_merges"] == 1 and c_line["l2_hits"] == 0
    assert per_line[2] == per_line[0] + 1


def test_the_default_is_per_line():
    assert CacheConfig(size=1024, assoc=2, line_size=128).mshr_key == "line"


@pytest.mark.parametrize("changes, message", [
    ({"l2": {"mshr_key": "sector"}}, "mshr_key: 'sector' needs a sectored cache"),
    ({"l2": {"sector_size": 32, "mshr_key": "sectors"}}, "mshr_key: must be one of line, sector"),
])
def test_a_bad_key_names_the_field(changes, message):
    with pytest.raises(ValueError, match=message):
        gpu(**changes)


def _l1_done(key: str, later: int) -> tuple[dict[int, int], dict]:
    """Two warps of one SM: warp 0 loads sector 0 of line 5 at once, warp 1 sector 1 ``later``
    cycles on (the L2's MSHRs per sector, so only the L1's entries differ)."""
    kb = KernelBuilder("l1-sectors", (1,), (64,))
    warp = kb.tx // 32
    kb.compute(later, active=warp == 1)
    kb.load(0x10, 5 * LINE + 32 * warp + 0 * kb.tx)
    kb.compute(1)
    g = gpu(l1={"sector_size": 32, "mshr_key": key}, l2={"sector_size": 32, "mshr_key": "sector"})
    tm, (r,) = run([kb], g, log_ldst=True)
    done = {int(slot): int(c) for c, _, slot, _, what in tm.ldst_log() if what == LOG_LOAD_DONE}
    return done, r.counters


def test_an_l1_sector_fills_on_its_own_per_sector_and_with_its_line_per_line():
    per_sector, c_sector = _l1_done("sector", LATER)
    per_line, c_line = _l1_done("line", LATER)
    # Per line, warp 1's sector joins warp 0's entry as a second read and the entry fills when
    # both are back; per sector warp 0's own entry fills after its round trip.
    assert per_sector[0] == SECTOR_DRAM
    assert per_line[0] == per_line[1] == per_sector[1] > SECTOR_DRAM + LATER
    for c in (c_sector, c_line):
        assert c["l1_sector_misses"] == 1 and c["l1_mshr_merges"] == 0 and c["dram_reads"] == 2
    # Long after the first fill, warp 1's sector misses on a resident line either way.
    assert _l1_done("sector", 400)[0] == _l1_done("line", 400)[0]


def test_sector_keys_leave_no_entry_behind():
    # Warps over a few lines' sectors, stores among the loads: the self-check machine agrees and
    # every entry's key is gone from the map at the end (a key left behind would name a freed entry).
    kb = KernelBuilder("mix", (3,), (64,))
    for i in range(6):
        kb.load(0x10 + 16 * i, (7 + i % 2) * LINE + 32 * ((kb.tx // 8 + i) % 4))
        if i % 3 == 2:
            kb.store(0x100 + 16 * i, (7 + i % 2) * LINE + 32 * (kb.tx % 4) + 4 * (kb.tx // 32))
        kb.compute(1)
    g = gpu(n_sm=3, coalescing="sector", l1={"sector_size": 32}, l2={"sector_size": 32, "mshr_key": "sector"})
    tm, (r,) = run([kb], g, self_check=True)
    c = r.counters
    assert c["self_check_fails"] == 0
    # A request per sector: 72, of which each of the two lines' 4 sectors is read once (2 misses
    # and 6 sector misses), 48 hits and 16 merges.
    assert (c["l2_accesses"], c["l2_hits"], c["l2_mshr_merges"]) == (72, 48, 16)
    assert c["dram_reads"] == 8 and c["l2_sector_misses"] == 6
    assert np.all(tm.state.l2_keys < 0)
