"""The timing loop's shortcuts against the loop without them (``self_check``, docs/timing.md "Speed").

The loop leaves a scheduler that found no warp asleep until an event that can
make one of its warps ready, and skips a quiet SM, adding its counts when
something next happens to it. With ``self_check`` every sleeping scheduler is
scanned anyway (a scan that finds a warp, or another stall reason, counts in
``self_check_fails``) and no SM is left quiet; the FR-FCFS DRAM scheduler's
picks and wake-ups, found from per-bank lists, are checked against a walk of
the channel's window in queue order (on the random kernels and on bp with
small windows). A run must then give zero
failures and exactly the results of the run without the check, which must
have taken the shortcuts (``quiet_sm_cycles``, ``quiet_held_sm_cycles``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import golden.gpu.model as model_module
from golden.cache.hierarchy import Hierarchy
from golden.gpu.model import TimingModel
from golden.trace.builder import KernelBuilder
from golden.trace.model import Space
from tests.test_timing import LINE, gpu


def mixed_kernel(seed: int) -> KernelBuilder:
    """Random CTAs of 4 warps: coalesced and scattered loads, stores, shared loads, compute and
    barriers."""
    rng = np.random.default_rng(seed)
    kb = KernelBuilder(f"mixed{seed}", (12,), (128,))
    tid = kb.gtid
    for step in range(10):
        kind = rng.integers(5)
        if kind == 0:
            kb.load(0x100 + step, (tid * 4 + int(rng.integers(64)) * LINE) % (1 << 20))
        elif kind == 1:
            kb.load(0x200 + step, rng.integers(0, 96, tid.size) * LINE)
        elif kind == 2:
            kb.store(0x300 + step, tid * 4 + (1 << 21))
        elif kind == 3:
            kb.barrier()
        else:
            kb.load(0x400 + step, (tid % 128) * 4, space=Space.SHARED)
        kb.compute(int(rng.integers(0, 4)))
    return kb


def with_consumers(kernel, seed: int):
    """``kernel`` with random consumer distances (1 to 6 instructions, or none) on its rows."""
    rng = np.random.default_rng(seed)
    use = rng.integers(1, 7, len(kernel.insts))
    use[rng.random(len(use)) < 0.2] = -1
    return dataclasses.replace(kernel, consumers=use)


def timed(g, kernels, self_check: bool, dependences: str = "next-memory", policy=None):
    tm = TimingModel(g, Hierarchy(g, policy), self_check=self_check, dependences=dependences)
    out = [tm.run_kernel(k, i) for i, k in enumerate(kernels)]
    return tm, out


#: Counters of the shortcuts themselves, which differ by design between the two runs.
SHORTCUT_COUNTERS = ("self_check_fails", "quiet_sm_cycles", "quiet_held_sm_cycles", "idle_sm_cycles")
#: The loop's own work: a checked run steps the SM-cycles a plain run skips as quiet.
LOOP_COUNTERS = ("loop_gpu_cycles", "loop_sm_cycles", "loop_sm_cycles_idle")


def assert_same(plain, checked) -> dict:
    """The checked run found no fault and equals the plain one; the plain run's shortcut counts."""
    used = dict.fromkeys(SHORTCUT_COUNTERS, 0)
    for a, b in zip(plain, checked, strict=True):
        assert [b.counters.pop(n) for n in SHORTCUT_COUNTERS] == [0] * len(SHORTCUT_COUNTERS)
        quiet = a.counters["quiet_sm_cycles"]
        for n in SHORTCUT_COUNTERS:
            used[n] += a.counters.pop(n)
        plain_loop, checked_loop = ([c.counters.pop(n) for n in LOOP_COUNTERS] for c in (a, b))
        # The same GPU cycles stepped; the SM-cycles the plain run left quiet are stepped instead,
        # but for those in GPU cycles the loop jumps (settled in bulk, as a plain run's idle SMs).
        assert checked_loop[0] == plain_loop[0]
        assert plain_loop[1] <= checked_loop[1] <= plain_loop[1] + quiet
        assert 0 <= plain_loop[2] <= plain_loop[1]
        assert (a.start, a.end) == (b.start, b.end)
        assert a.counters == b.counters  # exact, the policy-blocked warp-cycles included
        assert np.array_equal(a.series, b.series)
    return used


MACHINES = {
    "gto": dict(),
    "lrr": dict(scheduler="lrr"),
    "oldest-limit-4": dict(scheduler="oldest", warp_limit=4),
    "two-level": dict(scheduler="two-level", two_level_active=2),
    "next-instruction": dict(dependences="next-instruction"),
    # Register dependences (an Accel-Sim import's): random consumer distances, so that warps stop
    # at compute instructions too and loads come back out of order.
    "registers": dict(dependences="registers"),
    # The L1 lookup pipeline (l1.lookup_latency): all of the hit latency (the data at the lookup),
    # and part of it with two requests a cycle.
    "lookup-all": dict(l1=dict(lookup_latency=5)),
    "lookup-part-2-ports": dict(l1=dict(lookup_latency=3, ports=2)),
    # Memory instructions queued for the LD/ST unit, schedulers in rotating order, and lines
    # reserved at the miss in a small L1 and L2 (line reservation failures at both levels).
    "ldst-queue-rotating": dict(ldst_queue=3, issue_order="rotating"),
    # The same queue as GPGPU-Sim's collector units, dispatched round robin.
    "ldst-queue-round-robin": dict(ldst_queue=4, ldst_dispatch="round-robin", issue_order="rotating"),
    # GPGPU-Sim's CTA issue: one CTA per cluster (here both SMs) and cycle, the turn kept across
    # the two kernels.
    "cta-issue-rotating": dict(cta_issue="rotating", sms_per_cluster=2),
    "reserve-on-miss": dict(l1=dict(allocate="on-miss", size=8 * LINE, assoc=2),
                            l2=dict(size=16 * LINE, assoc=2, allocate="on-miss")),
    # Each SM's crossbar output serving the two sub-partitions in turn, idling between packets.
    "response-round-robin": dict(icnt_response_order="round-robin", icnt_packet_gap=1),
    # The same with one queue at each sub-partition's input (head-of-line blocking).
    "response-single-input-queue": dict(icnt_response_order="round-robin", icnt_input_queues="single",
                                        icnt_packet_gap=1),
    # The same with a crossbar input of 4 flits and an L2-to-icnt queue of 1 (icnt_response_buffer,
    # l2_response_queue): the L2s' lookups held, their input queues of 2 full, while SMs go quiet
    # and the loop jumps idle cycles.
    "response-queue": dict(icnt_response_order="round-robin", icnt_input_queues="single", icnt_packet_gap=1,
                           l2_response_queue=1, icnt_response_buffer=4, l2_input_queue=2),
    # An L2 input queue of 2 before an L2 of 2 MSHRs: SMs whose miss-queue head its full queue
    # refuses sleep until the L2 takes a request from it.
    "l2-input-queue": dict(l2_input_queue=2, l2=dict(mshrs=2)),
    # FR-FCFS (the kim20 and ciao18 presets' DRAM) with a window of 2 on one channel of 2 slow
    # banks: requests reordered in the window while quiet SMs are skipped. (Its back-pressure on
    # the L2 needs more requests than 2 SMs send: tests/test_timing_dram.py.)
    "frfcfs-window": dict(dram_scheduler="frfcfs", dram_queue=2, dram_channels=1, dram_banks=2,
                          dram_t_rcd=60, dram_t_rp=60, dram_t_cl=40),
    # The same with a window of 6 and rows of 8 lines: row hits picked from behind older requests
    # of their bank. The check walks the window in queue order for each bank's pick and the
    # channel's next wake-up, which the scheduler finds from per-bank lists.
    "frfcfs-rows": dict(dram_scheduler="frfcfs", dram_queue=6, dram_channels=1, dram_banks=2,
                        dram_row_bytes=1024, dram_t_rcd=30, dram_t_rp=30, dram_t_cl=20),
    # The same scheduler in the command model (dram_model "commands"): two banks in two groups,
    # every GPGPU-Sim counter set, 32-byte atoms (a line takes four column commands).
    "frfcfs-commands": dict(dram_scheduler="frfcfs", dram_model="commands", dram_queue=6, dram_channels=1,
                            dram_banks=2, dram_bank_groups=2, dram_row_bytes=1024, dram_atom_bytes=32,
                            dram_bus_bytes=16, dram_t_rcd=10, dram_t_rp=10, dram_t_cl=8, dram_t_ras=20,
                            dram_t_rrd=3, dram_t_rc=32, dram_t_wl=2, dram_t_wr=4, dram_t_rtpl=2,
                            dram_t_ccd=2, dram_t_ccdl=3, dram_t_rtw=6, dram_t_wtr=5),
    # An instruction cache of two lines and one MSHR: warps stall on fetches, wait for a free MSHR,
    # and SMs go quiet while their reads are out.
    "icache": dict(icache_bytes=2 * LINE, icache_assoc=1, icache_mshrs=1),
    # Shared loads whose results come 7 cycles on: warps wait for them with no memory in flight.
    "smem-latency": dict(smem_latency=7),
    # The same in the LD/ST unit with 4 banks in two parts: 8 cycles per shared load, global
    # instructions waiting behind them.
    "smem-bank-conflicts": dict(smem_latency=7, shared_mem_banks=4, smem_warp_parts=2, smem_broadcast="one"),
    # Stores acknowledged (warps exit when their acknowledgements are back), lazily allocated at
    # the L2 or written to DRAM and fetched (acknowledged with the fill).
    "store-acks-lazy": dict(store_acks="l2"),
    "store-acks-fetch": dict(store_acks="l2", l2=dict(write_allocate="fetch")),
}


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_shortcuts_change_nothing(name):
    machine = dict(MACHINES[name])
    dependences = machine.pop("dependences", "next-memory")
    g = gpu(n_sm=2, schedulers_per_sm=2, max_warps_per_sm=8, max_threads_per_sm=256, l2_partitions=2,
            l1=dict(mshrs=4, miss_queue=4) | machine.pop("l1", {}), **machine)
    kernels = [mixed_kernel(seed).build() for seed in (1, 2)]
    if dependences == "registers":
        kernels = [with_consumers(k, seed) for seed, k in enumerate(kernels)]
    _, plain = timed(g, kernels, False, dependences)
    _, checked = timed(g, kernels, True, dependences)
    used = assert_same(plain, checked)
    # The shortcuts were taken, quiet SMs with a held LD/ST unit or lookup pipeline among them
    # (4 MSHRs and a miss queue of 4 fill up).
    assert used["quiet_sm_cycles"] >= used["quiet_held_sm_cycles"] > 0
    # An SM left without warps while the other finishes its CTAs: settled in bulk.
    assert used["idle_sm_cycles"] > 0
    if name.startswith("frfcfs-"):
        # The machine does what it is here for: the window served requests out of order.
        assert sum(k.counters["dram_reordered"] for k in plain) > 0
    if name == "frfcfs-commands":
        assert sum(k.counters["dram_precharges"] for k in plain) > 0  # row conflicts among them
    if name == "icache":
        assert sum(k.counters["l2_inst_accesses"] for k in plain) > 0
        assert sum(k.counters["stall_fetch"] for k in plain) > 0
    if name.startswith("smem-"):
        assert sum(k.counters["events_smem"] for k in plain) > 0
    if name == "smem-bank-conflicts":
        assert sum(k.counters["shared_bank_conflicts"] for k in plain) > 0


def test_a_wrong_sleeping_scheduler_is_caught(monkeypatch):
    # A scheduler whose recorded stall reason is tampered with between slices of the loop: the
    # check's scan disagrees with it as long as it sleeps.
    monkeypatch.setattr(model_module, "SLICE", 32)
    g = gpu(n_sm=1, schedulers_per_sm=2, max_warps_per_sm=8, max_threads_per_sm=256)
    tm = TimingModel(g, Hierarchy(g), self_check=True)
    tampered = []

    def tamper(done, total):
        sleep = tm.state.sched_sleep
        for k in np.flatnonzero(sleep > 0):
            sleep[k] = 5 if sleep[k] != 5 else 4
            tampered.append(k)

    r = tm.run_kernel(mixed_kernel(3).build(), 0, tamper)
    assert tampered
    assert r.counters["self_check_fails"] > 0


@pytest.mark.parametrize("policy", ["ccws", "ciao-c", "statpcal"])
def test_policies_that_block_warps_wake_their_schedulers(policy):
    # CCWS, CIAO-C and statPCAL block and unblock warps from their L1 hooks and say so through
    # SchedulerControl.changed; a change the sleeping schedulers missed would fail the check.
    from golden.configs.loader import load_config
    from golden.policies import get_policy
    from golden.workloads import registry

    g = load_config("ciao18")
    if policy == "statpcal":  # a narrow DRAM bus, so that bandwidth is busy and warps are throttled
        g = dataclasses.replace(g, dram_bus_bytes=2)
    wl = registry.build("ciao18/syr2k", 0.05)

    def run(self_check):
        # CIAO-C examining every warp at each epoch, counting warp instructions, stalls warps on this
        # input; the front warp alone only redirects.
        pol = get_policy(policy, **({"examine": "all", "instructions": "warp"} if policy == "ciao-c" else {}))
        if hasattr(pol, "attach_gpu"):
            pol.attach_gpu(g)
        return timed(g, wl.kernels, self_check, policy=pol)[1]

    plain, checked = run(False), run(True)
    assert assert_same(plain, checked)["quiet_held_sm_cycles"] > 0
    # The policy did block warps.
    assert sum(k.counters["stall_throttled"] for k in checked) > 0
    assert sum(k.counters["blocked_warp_cycles"] for k in checked) > 0


@pytest.mark.parametrize("config, window, model", [("ciao18", 2, "requests"), ("kim20", 3, "requests"),
                                                   ("ciao18", 3, "commands")])
def test_the_dram_scheduler_on_a_whole_workload(config, window, model):
    # bp on a whole GPU with a small FR-FCFS window: many requests reach a channel in one cycle,
    # often in the cycle a call moved its window on, which the two SMs of the random machines
    # rarely make (docs/timing.md, "The DRAM scheduler by bank": a mutation of a shortcut tried in
    # session 79 failed only here). The check walks the window for every pick and wake-up.
    from golden.configs.loader import load_config
    from golden.workloads import registry

    commands = {"dram_model": "commands", "dram_atom_bytes": 64} if model == "commands" else {}
    g = dataclasses.replace(load_config(config), dram_queue=window, **commands)
    wl = registry.build("rdgc/bp", 0.05)
    plain, checked = timed(g, wl.kernels, False)[1], timed(g, wl.kernels, True)[1]
    assert_same(plain, checked)
    assert sum(k.counters["dram_reordered"] for k in plain) > 0
