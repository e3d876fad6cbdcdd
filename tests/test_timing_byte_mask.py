"""The L2's byte mask (GPGPU-Sim's lazy fetch-on-read): hand-worked reads of sectors stores wrote.

The test machine is ``tests/test_timing.py``'s with 32-byte sectors in both caches, whose L2 is
write-back and allocates store misses lazily: the byte mask is on (``docs/timing.md``, "The L2's
byte mask"). A sector a store writes in part is valid but unreadable: a load of it is a sector miss
that reads it from DRAM, until stores have written all of its bytes. A sector a load fetched stays
readable whatever is written to it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from golden.configs.schema import CacheConfig
from golden.gpu.program import kernel_program
from golden.gpu.state import l2_byte_mask
from golden.trace.builder import KernelBuilder
from tests.test_timing import DRAM, DRAM_LATENCY, LINE, SECTORED, gpu, run

#: The line the tests write and read (well away from line 0).
BASE = 5 * LINE


def words(lo: int, hi: int, lane: np.ndarray | None = None) -> np.ndarray:
    """Per thread (its ``lane`` in its warp) the address of one of the 4-byte words ``lo .. hi - 1``
    of ``BASE`` (lanes past the last word repeat it), so a warp's store writes exactly those bytes."""
    return BASE + 4 * np.minimum(lo + (np.arange(32) if lane is None else lane), hi - 1)


def stores_then_load(writes: list[tuple[int, int]], load: int = 0, machine=None):
    """One warp stores each word range of ``writes`` in turn, then loads sector ``load`` of the
    line and uses it. Returns the counters and the cycles."""
    kb = KernelBuilder("bytes", (1,), (32,))
    for i, (lo, hi) in enumerate(writes):
        kb.store(0x10 + 16 * i, words(lo, hi))
    kb.load(0x100, np.full(32, BASE + 32 * load, np.int64))
    kb.compute(1)
    _, (r,) = run([kb], machine or gpu(**SECTORED))
    return r.counters, r.cycles


def test_the_machine_keeps_a_byte_mask():
    g = gpu(**SECTORED)
    assert l2_byte_mask(g)
    # Not with the L2 reading a store miss's line (GPGPU-Sim's W), without sectors, with sectors of
    # another size, or an L2 that is not write-back.
    for l2 in ({"write_allocate": "fetch"}, {"sector_size": 0}, {"sector_size": 64},
               {"write": "write-through"}):
        assert not l2_byte_mask(dataclasses.replace(g, l2=dataclasses.replace(g.l2, **l2)))


def test_program_notes_the_bytes_a_store_writes():
    kb = KernelBuilder("w", (1,), (64,))
    # Warp 0 writes words 0..9 of the line (sector 0 whole, 8 bytes of sector 1); warp 1 word 12.
    kb.store(0x10, np.where(kb.gtid < 32, BASE + 4 * np.minimum(kb.gtid, 9), BASE + 48))
    kb.load(0x20, np.full(64, BASE, np.int64))
    p = kernel_program(kb.build(), 32, LINE, 32, write_bytes=True)
    assert p.req_wbytes.shape == (4, LINE // 32)
    assert p.req_wbytes[0].tolist() == [0xFFFFFFFF, 0xFF, 0, 0]
    assert p.req_wbytes[2].tolist() == [0, 0xF0000, 0, 0]
    assert not p.req_wbytes[[1, 3]].any()  # the loads
    # 64-wide wavefronts: the two halves' bytes together.
    p = kernel_program(kb.build(), 64, LINE, 32, write_bytes=True)
    assert p.req_wbytes[0].tolist() == [0xFFFFFFFF, 0xF00FF, 0, 0]
    assert kernel_program(kb.build(), 32, LINE, 32).req_wbytes is None
    with pytest.raises(ValueError, match="write_bytes"):
        kernel_program(kb.build(), 32, 16, 0, write_bytes=True)


def test_a_sector_written_in_part_is_read_from_dram():
    # A word of sector 0 written: the load finds the sector unreadable, a sector miss, and reads it.
    c, part = stores_then_load([(0, 1)])
    assert (c["l2_accesses"], c["l2_hits"], c["l2_sector_misses"], c["dram_reads"]) == (2, 0, 1, 1)
    assert (c["l2_sector_accesses"], c["l2_sector_hits"]) == (2, 0)
    # Written whole (8 words): the load hits the L2.
    c, whole = stores_then_load([(0, 8)])
    assert (c["l2_accesses"], c["l2_hits"], c["l2_sector_misses"], c["dram_reads"]) == (2, 1, 0, 0)
    # The miss costs DRAM's latency on top of the L2's.
    assert part - whole == DRAM


def test_stores_that_together_write_a_sector_make_it_readable():
    # Words 0..3 then 4..7: the second store completes the sector's bytes.
    c, _ = stores_then_load([(0, 4), (4, 8)])
    assert (c["l2_hits"], c["dram_reads"]) == (2, 0)  # the second store and the load hit
    # Words 0..3 and 5..7 leave word 4 unwritten: still unreadable.
    c, _ = stores_then_load([(0, 4), (5, 8)])
    assert (c["l2_hits"], c["l2_sector_misses"], c["dram_reads"]) == (1, 1, 1)
    # The bytes of one sector do not make another readable: sector 1 was never written.
    c, _ = stores_then_load([(0, 8)], load=1)
    assert (c["l2_sector_misses"], c["dram_reads"]) == (1, 1)


def test_a_fetched_sector_stays_readable_when_written_in_part():
    # The warp loads sector 0 (from DRAM), writes a word of it (the write-evict L1 drops the line),
    # then loads it again: the L2 still reads it as whole.
    kb = KernelBuilder("fetched", (1,), (32,))
    kb.load(0x10, np.full(32, BASE, np.int64))
    kb.compute(1)
    kb.store(0x20, words(0, 1))
    kb.load(0x30, np.full(32, BASE, np.int64))
    kb.compute(1)
    _, (r,) = run([kb], gpu(l1={"sector_size": 32, "write": "write-evict"}, l2={"sector_size": 32}))
    c = r.counters
    assert (c["l2_accesses"], c["l2_hits"], c["dram_reads"]) == (3, 2, 1)


def test_the_read_of_an_unreadable_sector_makes_it_readable():
    # Sector 0 written in part, read by SM 0 (a DRAM read), then read again by SM 1 long after: the
    # fetched sector is readable, so the second read hits.
    kb = KernelBuilder("two", (2,), (32,))
    first = kb.bx == 0
    kb.store(0x10, words(0, 1, kb.gtid % 32), active=first)
    kb.compute(4 * DRAM_LATENCY, active=~first)
    kb.load(0x20, np.full(64, BASE, np.int64))
    kb.compute(1)
    _, (r,) = run([kb], gpu(n_sm=2, **SECTORED))
    c = r.counters
    assert (c["l2_accesses"], c["l2_hits"], c["l2_sector_misses"], c["dram_reads"]) == (3, 1, 1, 1)


@pytest.mark.parametrize("sector, partial, complete, reads, hits", [
    (1, True, False, 2, 0),  # a sector not being fetched, written in part: unreadable at the fill
    (1, True, True, 1, 2),   # the same, its other bytes written after the fill (a write hit)
    (1, False, False, 1, 1),  # written whole: valid at the fill without a read
    (0, True, False, 1, 1),  # the sector being fetched: readable at its fill
])
def test_stores_to_a_line_on_its_way(sector, partial, complete, reads, hits):
    # SM 0 misses sector 0 of the line (the L2 reserves a way and reads it); SM 1 stores to
    # ``sector`` while the read is out; long after, SM 1 (``complete``: stores the sector's other
    # bytes, then) loads that sector from the L2.
    kb = KernelBuilder("pending", (2,), (32,))
    first = kb.bx == 0
    lo = 8 * sector
    kb.load(0x10, np.full(64, BASE, np.int64), active=first)
    kb.store(0x20, words(lo, lo + (1 if partial else 8), kb.gtid % 32), active=~first)
    kb.compute(4 * DRAM_LATENCY, active=~first)
    if complete:
        kb.store(0x28, words(lo + 1, lo + 8, kb.gtid % 32), active=~first)
    kb.load(0x30, np.full(64, BASE + 32 * sector, np.int64), active=~first)
    kb.compute(1)
    _, (r,) = run([kb], gpu(n_sm=2, **SECTORED))
    c = r.counters
    # The first store meets the line's MSHR (a merge, not a hit). A sector written in part is valid
    # when the line arrives: the store that completes it is a write hit, the load then a hit.
    assert (c["l2_accesses"], c["l2_mshr_merges"], c["dram_reads"], c["l2_hits"]) == (
        3 + complete, 1, reads, hits)


def test_without_the_byte_mask_a_written_line_is_whole():
    # The same partial store on an L2 without sectors (which keeps no byte mask): the load hits.
    c, _ = stores_then_load([(0, 1)], machine=gpu(l1={"sector_size": 32}))
    assert (c["l2_hits"], c["dram_reads"]) == (1, 0)
    assert CacheConfig.__dataclass_fields__["write_allocate"].default == "lazy"
