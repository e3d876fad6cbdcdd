"""The timing model's DRAM: GPGPU-Sim's address decoder and the FR-FCFS scheduler.

The decoder is checked against an independent transcription of GPGPU-Sim's
``addrdec_tlx`` on byte addresses; the scheduler on a hand-worked three-request
example whose row hits and reordering differ between ``fcfs``, ``frfcfs`` and a
queue of one.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from golden.cache.indexing import set_indices
from golden.configs.dram_address import parse_dram_address_map
from golden.configs.presets import preset
from golden.gpu import core
from golden.gpu.run import simulate_timed
from golden.gpu.state import config_vector, new_state, row
from golden.trace.builder import KernelBuilder
from golden.workloads import registry
from tests.test_timing import LINE, gpu, run

GTX480 = "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS"
TITANX = "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS"


def gpgpusim_addrdec(addr: int, mapping: str, channels: int) -> tuple[int, int, int]:
    """GPGPU-Sim's ``addrdec_tlx`` for ``dramid@N`` (channel, bank, row), written from its source.

    The channel is ``(addr >> N) mod channels``; the address without it keeps bits below N and
    has the quotient above; bank and row are that address's B and R bits, packed lowest first.
    """
    start, mask = mapping.split(";")
    n = int(start.split("@")[1])
    rest = ((addr >> n) // channels << n) | (addr & ((1 << n) - 1))
    bits = mask.replace(".", "")[::-1]

    def pack(letter: str) -> int:
        return sum(((rest >> i) & 1) << k for k, i in enumerate(i for i, c in enumerate(bits) if c == letter))

    return (addr >> n) % channels, pack("B"), pack("R")


@pytest.mark.parametrize("name, mapping", [("ciao18", GTX480), ("kim20", TITANX)])
def test_the_decoder_matches_gpgpusim_and_the_l2_partitions(name, mapping):
    g = preset(name)
    assert g.dram_address_map == mapping
    k = config_vector(g)
    lines = np.random.default_rng(3).integers(0, 1 << 28, 3000)
    # The preset's L2 slices agree with the decoder: a partition's lines go to its own channel.
    parts = set_indices(g.l2, lines) * g.l2_partitions // g.l2.sets
    for line, part in zip(lines.tolist(), parts.tolist(), strict=True):
        ch, bank, row_ = core._dram_place(k, part, np.int64(line))
        assert (ch, bank, row_) == gpgpusim_addrdec(line * LINE, mapping, g.dram_channels)
        assert part * g.dram_channels // g.l2_partitions == ch


def three_loads() -> KernelBuilder:
    """One warp's load of lines 0, 32 and 1: rows 0, 1, 0 of the one bank under :data:`ONE_BANK`."""
    kb = KernelBuilder("three", (1,), (32,))
    lines = np.array([0] * 11 + [32] * 11 + [1] * 10)
    kb.load(0x10, lines * LINE)
    kb.compute(1)
    return kb


#: One channel of one bank whose rows are 4 KB (32 lines): bits 12 and up.
ONE_BANK = "dramid@30;0000RRRR.RRRRRRRR.RRRRCCCC.CCCCCCCC"
DRAM_TIMES = dict(dram_banks=1, dram_t_cl=10, dram_t_rcd=10, dram_t_rp=10, dram_t_ras=20,
                  dram_address_map=ONE_BANK)


@pytest.mark.parametrize("scheduler, queue, row_hits, reordered", [
    ("fcfs", 16, 0, 0),     # rows 0, 1, 0 in arrival order: no row hit
    ("frfcfs", 16, 1, 1),   # line 1 (row 0) goes before line 32 (row 1), which waited
    ("frfcfs", 1, 0, 0),    # a queue of one leaves nothing to choose from
])
def test_frfcfs_serves_a_row_hit_before_an_older_conflict(scheduler, queue, row_hits, reordered):
    tm, (r,) = run([three_loads()], gpu(dram_scheduler=scheduler, dram_queue=queue, **DRAM_TIMES))
    c = r.counters
    assert c["dram_reads"] == 3
    assert (c["dram_row_hits"], c["dram_reordered"]) == (row_hits, reordered)


@pytest.mark.parametrize("queue, waits", [
    # The lines reach the channel a cycle apart (T, T + 1, T + 2). Line 0 finds the bank closed and
    # is taken at once (wait 0); the bank is busy until T + 11 (tRCD, then a cycle of data). Then
    # line 1, a hit on the open row 0, goes first (waited 9 cycles), and line 32 at T + 12 (11).
    (16, [0, 9, 11]),
    # A window of one: line 32 enters it at T + 1 and waits for the bank (10); line 1 enters it
    # only when line 32 leaves, at T + 11, and waits for line 32's precharge and activation: no
    # earlier than tRAS after row 0's (T + 20), then tRP and tRCD, the bank free at T + 41 (30).
    (1, [0, 10, 30]),
])
def test_dram_waits_count_from_entering_the_window(queue, waits):
    tm, (r,) = run([three_loads()], gpu(dram_scheduler="frfcfs", dram_queue=queue, **DRAM_TIMES))
    c = r.counters
    assert (c["dram_wait_n"], c["dram_wait_sum"]) == (3, sum(waits))
    bins = [0] * 32
    for w in waits:
        bins[max(w, 1).bit_length() - 1] += 1
    assert [c[f"dram_wait_log2_{i}"] for i in range(32)] == bins


def test_frfcfs_is_faster_here_and_returns_every_entry():
    cycles = {}
    for scheduler in ("fcfs", "frfcfs"):
        tm, (r,) = run([three_loads()], gpu(dram_scheduler=scheduler, **DRAM_TIMES))
        cycles[scheduler] = r.cycles
    # One row conflict fewer (134 cycles against 164, measured on this example).
    assert cycles["frfcfs"] < cycles["fcfs"]
    s = tm.state
    assert (s.ch[row("ch", "dq_n")] == 0).all() and (s.ch[row("ch", "dq_head")] == -1).all()
    assert (s.ch[row("ch", "dq_nfree")] == tm.k[core.K_DQ_PER_CH]).all()


#: The command model on the example's one bank: a column command moves the whole 128-byte line.
COMMANDS = dict(dram_scheduler="frfcfs", dram_model="commands", dram_atom_bytes=LINE, **DRAM_TIMES)


def test_the_command_model_issues_the_examples_commands_as_worked_by_hand():
    # Lines 0, 32 and 1 (rows 0, 1, 0) reach the channel at T, T + 1, T + 2. Line 0 is given to
    # the bank at T, which activates row 0 (its read may go at T + 10, tRCD) and reads at T + 10;
    # the bank is free for the scheduler the cycle after: line 1, a hit on row 0, reads at T + 11
    # (waited 9); line 32 is given to the bank at T + 12 (waited 11), precharges row 0 at T + 20
    # (tRAS after the activation), activates row 1 at T + 30 (tRP) and reads at T + 40. Each read's
    # data leaves the column pipeline tCL later and fills the L2 the cycle after: line 32 at
    # T + 51, a cycle after the request model's fill (whose bank times match these).
    requests = {}
    for model in ("requests", "commands"):
        tm, (r,) = run([three_loads()], gpu(**{**COMMANDS, "dram_model": model}))
        requests[model] = r
    c = requests["commands"].counters
    assert (c["dram_wait_n"], c["dram_wait_sum"]) == (3, 0 + 9 + 11)
    assert (c["dram_row_hits"], c["dram_reordered"]) == (1, 1)
    assert (c["dram_activates"], c["dram_precharges"]) == (2, 1)
    assert requests["commands"].cycles == requests["requests"].cycles + 1
    assert requests["requests"].counters["dram_activates"] == 0  # counted by the command model only


@pytest.mark.parametrize("changes, message", [
    (dict(dram_scheduler="fcfs"), "dram_model: 'commands' needs dram_scheduler 'frfcfs'"),
    (dict(dram_atom_bytes=0), "dram_model: 'commands' needs dram_atom_bytes"),
    (dict(dram_model="gddr"), "dram_model: must be one of requests, commands"),
])
def test_the_command_model_needs_frfcfs_and_atoms(changes, message):
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        gpu(**{**COMMANDS, **changes})


@pytest.mark.parametrize("text, message", [
    ("RRRR.BBBB", "must read 'dramid@N;MASK'"),
    ("dramid@x;RRRR", "must read 'dramid@N;MASK'"),
    ("dramid@8;RRRR.BBQB", "not 'Q'"),
    ("dramid@8;CCCC.BBBB", "no row (R) bits"),
    ("dramid@8;" + "R" * 65, "1 to 64 bits"),
    ("dramid@8;R" + "0" * 62, "below bit 62"),
])
def test_bad_address_maps_are_one_line_errors(text, message):
    with pytest.raises(ValueError, match="^dram_address_map: .*" + re.escape(message)):
        parse_dram_address_map(text)


def test_the_map_must_give_the_configured_banks():
    with pytest.raises(ValueError, match="^dram_address_map: its 4 bank bits give 16 banks, "
                                         "but dram_banks is 8"):
        preset("ciao18").replace(dram_banks=8)
    with pytest.raises(ValueError, match="^dram_scheduler: must be one of fcfs, frfcfs"):
        preset("ciao18").replace(dram_scheduler="fifo")


@pytest.mark.parametrize("changes", [
    {"dram_queue": 1},  # refusals begin at the first full queue
    # A decoder whose channel bits lie above every address: all lines in channel 0, whatever their
    # L2 sub-partition, so one channel's pool takes the whole GPU's traffic.
    {"dram_address_map": "dramid@40;" + GTX480.split(";")[1]},
])
def test_a_full_dram_queue_refuses_misses_and_its_pool_never_runs_dry(changes):
    # The L2 looked up on arrival (lookup_latency 0): a miss then takes its channel's pool entry
    # hit_latency cycles before it reaches DRAM, so the pool fills on this short input. With the
    # preset's lookup queue a miss goes below at its lookup and 2dconv at 0.05 never fills it.
    # Nor with the preset's response queue (since session 82; a sub-partition whose responses
    # cannot leave looks nothing up): with it this run counts no DRAM refusal (measured).
    ciao18 = preset("ciao18")
    g = ciao18.replace(l2=ciao18.l2.replace(lookup_latency=0), l2_response_queue=0, icnt_response_buffer=0,
                       **changes)
    result = simulate_timed(registry.build("rdgc/2dconv", 0.05), g)
    t = result["timing"]
    assert t["l2"]["reservation_fails_dram"] > 0
    assert t["l2"]["reservation_fails"] >= t["l2"]["reservation_fails_dram"]
    assert t["dram"]["reads"] > 0


# -- the channel's column commands and its clock (GPGPU-Sim's CCDc, CCDLc, RTWc, WTRc) --------


def dram_state(**changes):
    """Configuration vector and fresh state of one channel of 16 banks in 4 high-bit groups."""
    g = gpu(**(dict(dram_channels=1, dram_banks=16, dram_t_cl=10, dram_t_rcd=10, dram_t_rp=10, dram_t_ras=20,
                    dram_bus_bytes=32, dram_atom_bytes=64, dram_t_ccd=2, dram_t_ccdl=3, dram_bank_groups=4,
                    dram_t_wtr=11, dram_t_rtw=12) | changes))
    k = config_vector(g)
    return k, new_state(k, 64, 64)


def test_column_commands_keep_gpgpusims_spacing():
    # Every bank closed: activation at 0, column command at 10 at the earliest, data tCL = 10 later.
    k, s = dram_state()
    access = lambda bank, nbytes, write: core._dram_access(k, s, 0, 0, bank, 0, nbytes, write)  # noqa: E731
    # A read of 128 bytes: 2 atoms, 4 cycles of data from 20. Its atoms' commands at 10 and 12.
    assert access(0, 128, False) == 24
    # A read in another group: its command 2 (tCCD) after 12, at 14; the data waits for the bus.
    assert access(4, 128, False) == 28
    # A write of 32 bytes after the reads: tRTW (12) after the last read command (16), at 28; it
    # moves a whole 64-byte atom (2 cycles of data from 38).
    assert access(8, 32, True) == 40
    # A read in the write's group: tWTR (11) after the write's command, at 39; data 49 to 53.
    assert access(9, 128, False) == 53
    # Another read in that group: tCCDL (3) after the last command (41), at 44; data from 54.
    assert access(10, 128, False) == 58
    assert s.c[core.C_DRAM_READS] == 4 and s.c[core.C_DRAM_WRITES] == 1


def test_without_the_spacing_commands_wait_only_for_their_bank_and_the_bus():
    k, s = dram_state(dram_atom_bytes=0, dram_t_ccd=0, dram_t_ccdl=0, dram_bank_groups=1, dram_t_wtr=0,
                      dram_t_rtw=0)
    access = lambda bank, nbytes, write: core._dram_access(k, s, 0, 0, bank, 0, nbytes, write)  # noqa: E731
    assert [access(0, 128, False), access(4, 128, False), access(8, 32, True), access(9, 128, False)] == \
        [24, 28, 29, 33]  # the bus alone: 4, 4, 1 and 4 cycles of data from 20


def test_dram_cycles_of_another_clock_are_not_rounded():
    # 700 MHz cores, 924 MHz DRAM (the GTX 480): tCL 12 is 9.091 core cycles, a 64-byte atom at
    # 32 bytes a DRAM cycle 1.515. Two row-hit reads of one atom: data through at 9.091 + 1.515 and
    # then 1.515 later on the bus, 12.12 cycles: 13, where whole core cycles would give 10 + 2 + 2.
    k, s = dram_state(core_clock_mhz=700.0, dram_clock_mhz=924.0, dram_t_ccd=0, dram_t_ccdl=0,
                      dram_t_rtw=0, dram_t_wtr=0, dram_t_cl=12)
    s.bank[row("bank", "d_open"), 0] = 0  # row 0 open in bank 0
    s.bank[row("bank", "d_open"), 1] = 0
    assert core._dram_access(k, s, 0, 0, 0, 0, 64, False) == 11  # 10.606 -> 11
    assert core._dram_access(k, s, 0, 0, 1, 0, 64, False) == 13  # 12.121 -> 13


def test_bank_groups_must_divide_the_banks():
    with pytest.raises(ValueError, match="dram_bank_groups"):
        gpu(dram_banks=16, dram_bank_groups=3)
    with pytest.raises(ValueError, match="dram_bank_group_index"):
        gpu(dram_bank_group_index="middle")
