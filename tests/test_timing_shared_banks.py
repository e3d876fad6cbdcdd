"""Shared-memory instructions in the LD/ST unit and their bank conflicts (``smem_unit = "ldst"``).

Two parts. The bank accesses of a row (``golden.gpu.program``): hand-worked patterns, and random
rows against a transcription of GPGPU-Sim's ``warp_inst_t::generate_mem_accesses`` written here
from the C++ (std::map's ordered iteration kept). The timing (``tests/test_timing.py``'s machine):
a shared row takes the LD/ST unit one cycle per access, its load result ``smem_latency - 1``
cycles after the last, and a global instruction behind it waits for the unit.
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.gpu.program import SharedBanks, kernel_program
from golden.trace.builder import KernelBuilder
from golden.trace.model import Space
from tests.test_timing import gpu, run

LAT = 24
LANES = np.arange(32)


def shared_row(addr, active=None, op: str = "load", threads: int = 32):
    """One CTA of ``threads`` threads, one shared ``op`` at byte addresses ``addr`` per lane."""
    kb = KernelBuilder("row", (1,), (threads,))
    getattr(kb, op)(0x10, addr, active=active, space=Space.SHARED)
    return kb.build()


def accesses(addr, banks: int = 32, part: int = 32, broadcast: str = "all", active=None,
             warp_size: int = 32, threads: int = 32) -> list[int]:
    prog = kernel_program(shared_row(addr, active, threads=threads), warp_size, 128, 0,
                          shared_banks=SharedBanks(banks, part, broadcast))
    return prog.smem_cycles.tolist()


@pytest.mark.parametrize("addr, expected", [
    (4 * LANES, 1),  # a word per lane: every bank once
    (8 * LANES, 2),  # two words a lane: lanes l and l + 16 share a bank
    (128 * LANES, 32),  # 32 words apart: all in bank 0
    (0 * LANES, 1),  # one word: a broadcast
    (4 * (LANES // 2), 1),  # pairs of lanes on a word: each bank serves its word once
    (4 * LANES + 2, 1),  # a lane's word is its address // 4, whatever the byte
])
def test_hand_worked_rows(addr, expected):
    assert accesses(addr) == [expected]
    assert accesses(addr, broadcast="one")[0] >= expected


def test_limited_broadcast_serves_one_word():
    # Lanes 0..15 read word 0, lanes 16..31 word 32: both in bank 0. Every word broadcast: 2
    # accesses. One broadcast: word 0 once, then each of the 16 lanes on word 32: 17.
    addr = 128 * (LANES // 16)
    assert accesses(addr) == [2]
    assert accesses(addr, broadcast="one") == [17]


def test_warp_parts_take_turns():
    assert accesses(4 * LANES, part=16) == [2]  # two conflict-free halves, one after the other
    assert accesses(128 * LANES, part=16) == [32]  # 16 + 16
    assert accesses(128 * LANES, part=8) == [32]
    assert accesses(128 * LANES, banks=16) == [32]
    assert accesses(4 * LANES, banks=16) == [2]  # words 0 and 16 share bank 0


def test_only_active_lanes_count():
    active = np.zeros(32, bool)
    active[[0, 5, 9, 31]] = True
    assert accesses(128 * LANES, active=active) == [4]


def test_a_wavefront_takes_both_halves():
    # 64 threads as one 64-wide wavefront: each half's 32 lanes in bank 0, checked apart.
    addr = 128 * np.arange(64)
    assert accesses(addr, warp_size=32, threads=64) == [32, 32]
    assert accesses(addr, warp_size=64, threads=64) == [64]


def test_global_rows_take_no_bank_cycles():
    kb = KernelBuilder("g", (1,), (32,))
    kb.load(0x10, 4 * LANES)
    kb.load(0x20, 4 * LANES, space=Space.SHARED)
    prog = kernel_program(kb.build(), 32, 128, 0, shared_banks=SharedBanks(32, 32))
    assert prog.smem_cycles.tolist() == [0, 1]
    assert kernel_program(kb.build(), 32, 128, 0).smem_cycles is None


def gpgpusim_accesses(addr, active, banks, parts, limited) -> int:
    """GPGPU-Sim's shared-space case of ``warp_inst_t::generate_mem_accesses``, line by line."""
    subwarp = 32 // parts
    total = 0
    for s in range(parts):
        bank_accs: dict[int, dict[int, int]] = {}  # bank -> word address -> access count
        for thread in range(s * subwarp, (s + 1) * subwarp):
            if not active[thread]:
                continue
            a = int(addr[thread])
            bank = (a // 4) % banks
            word = a & ~3
            bank_accs.setdefault(bank, {})
            bank_accs[bank][word] = bank_accs[bank].get(word, 0) + 1
        if limited:
            bbank = bword = None
            for bank in sorted(bank_accs):
                hit = [w for w in sorted(bank_accs[bank]) if bank_accs[bank][w] > 1]
                if hit:
                    bbank, bword = bank, hit[0]
                    break
            most = 0
            for bank in sorted(bank_accs):
                n = sum(bank_accs[bank].values())
                if bank == bbank:
                    n -= bank_accs[bank][bword] - 1
                most = max(most, n)
        else:
            most = max((len(w) for w in bank_accs.values()), default=0)
        total += most
    return total


@pytest.mark.parametrize("banks, parts, broadcast", [
    (32, 1, "all"), (32, 1, "one"), (16, 2, "one"), (16, 2, "all"), (32, 4, "one"), (8, 1, "one"),
])
def test_random_rows_match_gpgpusim(banks, parts, broadcast):
    rng = np.random.default_rng(banks * 100 + parts * 10 + (broadcast == "one"))
    kb = KernelBuilder("rand", (1,), (32,))
    rows = []
    for i in range(300):
        # Few distinct words so that repeats and broadcasts are common.
        addr = 4 * rng.integers(0, rng.choice([4, 40, 400]), 32) + rng.integers(0, 4, 32) * (i % 2)
        active = rng.random(32) < rng.choice([0.3, 1.0])
        active[rng.integers(32)] = True
        kb.load(0x10 + 16 * i, addr, active=active, space=Space.SHARED)
        rows.append((addr, active))
    prog = kernel_program(kb.build(), 32, 128, 0, shared_banks=SharedBanks(banks, 32 // parts, broadcast))
    want = [max(1, gpgpusim_accesses(a, m, banks, parts, broadcast == "one")) for a, m in rows]
    assert prog.smem_cycles.tolist() == want
    assert max(want) > 4  # the draw has conflicts to get right


@pytest.mark.parametrize("banks, parts, broadcast", [(32, 1, "all"), (32, 1, "one"), (16, 2, "one")])
def test_affine_rows_computed_once_per_kind_match_gpgpusim(banks, parts, broadcast):
    # Affine rows (base + stride x lane) with few strides and bases that often agree modulo
    # 4 x banks bytes: kernel_program computes one row of each kind (strides, mask, base modulo
    # that) and gives it to the others; every row must still get GPGPU-Sim's count.
    rng = np.random.default_rng(7 + banks + parts)
    kb = KernelBuilder("affine", (1,), (32,))
    rows = []
    for i in range(400):
        addr = int(rng.integers(0, 64)) * 4 * banks // 2 + int(rng.choice([0, 2, 4])) \
            + int(rng.choice([0, 4, 8, 12, 64, 128, 132])) * LANES
        active = np.ones(32, bool) if i % 3 else LANES < int(rng.integers(1, 33))
        kb.load(0x10 + 16 * i, addr, active=active, space=Space.SHARED)
        rows.append((addr, active))
    kernel = kb.build()
    assert (kernel.insts["lanes"] < 0).sum() == len(rows)  # all affine: the shared path
    prog = kernel_program(kernel, 32, 128, 0, shared_banks=SharedBanks(banks, 32 // parts, broadcast))
    want = [max(1, gpgpusim_accesses(a, m, banks, parts, broadcast == "one")) for a, m in rows]
    assert prog.smem_cycles.tolist() == want
    assert len(set(want)) > 3


# -- timing --------------------------------------------------------------------------------


def chain(n: int, addr) -> KernelBuilder:
    """One warp: ``n`` shared loads at ``addr``, each the next one's dependence (next-memory)."""
    kb = KernelBuilder("chain", (1,), (32,))
    for i in range(n):
        kb.load(0x10 + 16 * i, addr, space=Space.SHARED)
    return kb


def timed(kernel, **changes):
    _, (r,) = run([kernel], gpu(**changes))
    return r


@pytest.mark.parametrize("latency", [1, LAT])
def test_each_conflict_delays_a_dependent_load_a_cycle(latency):
    # Load i issues when load i - 1's result is back: A bank accesses then latency - 1 cycles.
    n = 5
    free = timed(chain(n, 4 * LANES), smem_latency=latency)
    conflicted = timed(chain(n, 128 * LANES), smem_latency=latency)
    assert conflicted.cycles - free.cycles == n * 31
    c = conflicted.counters
    assert c["shared_bank_accesses"] == 32 * n and c["shared_bank_conflicts"] == 31 * n
    assert free.counters["shared_bank_accesses"] == n and free.counters["shared_bank_conflicts"] == 0
    assert c["shared_instructions"] == n and c["events_smem"] == n


def test_a_conflict_free_load_keeps_its_latency():
    # One access: the result smem_latency cycles after issue, with the unit or without it (the
    # unit is done long before the result is back).
    for n in (1, 4):
        assert timed(chain(n, 4 * LANES), smem_latency=LAT).cycles == \
            timed(chain(n, 4 * LANES), smem_latency=LAT, smem_unit="none").cycles == n * LAT + 1


def store_then_load(stride: int) -> KernelBuilder:
    """One warp: a shared store with lanes ``stride`` bytes apart, then a global load."""
    kb = KernelBuilder("sl", (1,), (32,))
    kb.store(0x10, stride * LANES, space=Space.SHARED)
    kb.load(0x20, 4 * LANES)
    return kb


@pytest.mark.parametrize("queue", [0, 4])
def test_a_global_load_waits_for_the_unit(queue):
    # The store's 31 extra accesses hold the unit: the load behind it reaches the L1 31 cycles
    # later, waiting at issue (no queue) or in the unit's queue.
    logs = []
    for stride in (4, 128):
        tm, (r,) = run([store_then_load(stride)], gpu(ldst_queue=queue))
        logs.append((tm.access_log()[0, 0], r))
    (t_free, r_free), (t_busy, r_busy) = logs
    assert t_busy - t_free == 31
    assert r_busy.cycles - r_free.cycles == 31
    if queue == 0:
        assert r_busy.counters["stall_structural"] - r_free.counters["stall_structural"] == 31
    else:
        assert r_busy.counters["stall_structural"] == r_free.counters["stall_structural"]


def test_without_the_unit_nothing_waits_for_banks():
    tm, (r,) = run([store_then_load(128)], gpu(smem_unit="none"))
    tm2, (r2,) = run([store_then_load(4)], gpu(smem_unit="none"))
    assert tm.access_log()[0, 0] == tm2.access_log()[0, 0] and r.cycles == r2.cycles
    assert r.counters["shared_bank_accesses"] == r.counters["shared_bank_conflicts"] == 0


def test_a_wide_warp_needs_parts_of_32_lanes():
    with pytest.raises(ValueError, match="smem_warp_parts"):
        gpu(warp_size=64)
    assert gpu(warp_size=64, smem_warp_parts=2).smem_warp_parts == 2
    assert gpu(warp_size=64, smem_unit="none").smem_unit == "none"
    with pytest.raises(ValueError, match="smem_broadcast"):
        gpu(smem_broadcast="some")
