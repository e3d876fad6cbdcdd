"""The access interleaver: hand-worked issue orders, residency waves, and whole-kernel checks.

Every expected order below is worked out by hand in the comments: ``tN``
is cycle N, ``wK`` warp K of the CTA, ``C`` a compute instruction, ``LD x``
the global load at label ``x``, ``(r=N)`` the cycle the warp is ready again
(``t + 1``, or ``t + 1 + mem_latency`` after a global load or atomic).
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.configs.schema import CacheConfig, GPUConfig
from golden.trace.builder import KernelBuilder
from golden.trace.coalesce import ACCESS_DTYPE, coalesce
from golden.trace.interleave import Interleaved, concurrent_ctas, interleave, interleave_kernel
from golden.trace.model import INST_DTYPE, KernelTrace, Op, Space, Workload, lane_addresses

# One request per full-warp 4-byte access: a warp's 32 x 4 bytes are one 128-byte line.
LINE = 128
PCS = {0x10: "a", 0x18: "b", 0x20: "c", 0x28: "d"}


def _gpu(**changes) -> GPUConfig:
    cache = CacheConfig(size=4096, assoc=4, line_size=LINE)
    fields = dict(name="test", n_sm=2, l1=cache, l2=cache, mem_latency=0, schedulers_per_sm=1)
    fields.update(changes)
    return GPUConfig(**fields)


def _order(res: Interleaved) -> list[tuple[int, int, int, int, str]]:
    """``(cycle, sm, cta, warp, label)`` of every request, in emitted order."""
    a = res.accesses
    return [(int(c), int(s), int(b), int(w), PCS[int(p)])
            for c, s, b, w, p in zip(a["cycle"], a["sm"], a["cta"], a["warp"], a["pc"], strict=True)]


def _both_sms(per_sm: list[tuple[int, int, str]]) -> list[tuple[int, int, int, int, str]]:
    """Two SMs running CTA 0 and CTA 1 with the same timing: requests pair up by cycle."""
    return [(t, sm, sm, w, x) for t, w, x in per_sm for sm in (0, 1)]


def _warp_masks(kb: KernelBuilder, n: int = 2):
    """Thread masks selecting warp 0, 1, ... of every CTA."""
    return [kb.tid // 32 == i for i in range(n)]


# --- scheduling policies ---------------------------------------------------------------------

def _policy_kernel() -> KernelTrace:
    """2 CTAs x 2 warps.  w0: LD a, C, C, LD c.   w1: C, C, C, LD b."""
    kb = KernelBuilder("policy", grid=(2,), block=(64,))
    w0, w1 = _warp_masks(kb)
    a = kb.gtid * 4
    kb.load(0x10, 0x1000 + a, active=w0)
    kb.compute(3, active=w1)
    kb.load(0x18, 0x2000 + a, active=w1)
    kb.compute(2, active=w0)
    kb.load(0x20, 0x3000 + a, active=w0)
    return kb.build()


# mem_latency = 1, one scheduler per SM.
POLICY_ORDERS = {
    # t0 w0 LD a (r=2); t1 w1 C; t2 w0 C; t3 w1 C; t4 w0 C; t5 w1 C; t6 w0 LD c; t7 w1 LD b (r=9)
    "lrr": [(0, 0, "a"), (6, 0, "c"), (7, 1, "b")],
    # t0 w0 LD a (r=2); t1 w0 not ready -> w1 C; t2, t3 keep w1: C, C; t4 w1 LD b (done);
    # t5 oldest ready w0: C; t6 C; t7 LD c (r=9)
    "gto": [(0, 0, "a"), (4, 1, "b"), (7, 0, "c")],
    # t0 w0 LD a (r=2); t1 w1 C; t2 oldest ready is w0 again: C; t3 C; t4 LD c (done);
    # t5 w1 C; t6 C; t7 LD b (r=9)
    "oldest": [(0, 0, "a"), (4, 0, "c"), (7, 1, "b")],
}


@pytest.mark.parametrize("policy", ["lrr", "gto", "oldest"])
def test_policy_order(policy):
    kt = _policy_kernel()
    res = interleave_kernel(kt, 0, _gpu(mem_latency=1), scheduler=policy)
    assert _order(res) == _both_sms(POLICY_ORDERS[policy])
    assert res.end_cycle == 9
    assert res.instructions == kt.n_instructions == 16
    assert (res.global_instructions, res.shared_instructions, res.other_memory_instructions) == (6, 0, 0)
    assert (res.ctas, res.waves_per_sm) == (2, 1)
    assert (res.accesses["kernel"] == 0).all()
    assert (res.accesses["op"] == Op.LOAD).all()


def test_scheduler_defaults_to_config():
    kt = _policy_kernel()
    res = interleave_kernel(kt, 0, _gpu(mem_latency=1, scheduler="gto"))
    assert _order(res) == _both_sms(POLICY_ORDERS["gto"])


def test_stall_only_after_global_loads_and_atomics():
    """One warp: ST a; shared LD; LD b; ATOM c; LD d; constant LD, mem_latency = 5.

    t0 ST a (no stall); t1 shared LD (no stall); t2 LD b (r=8); t8 ATOM c (r=14);
    t14 LD d (r=20); t20 constant LD (no stall): the kernel ends at 21.
    Started at cycle 100.
    """
    kb = KernelBuilder("stall", grid=(1,), block=(32,))
    a = kb.gtid * 4
    kb.store(0x10, 0x1000 + a)
    kb.load(0x30, a, space=Space.SHARED)
    kb.load(0x18, 0x2000 + a)
    kb.atomic(0x20, 0x3000 + a)
    kb.load(0x28, 0x4000 + a)
    kb.load(0x38, a, space=Space.CONST)
    res = interleave_kernel(kb.build(), 3, _gpu(mem_latency=5), start_cycle=100)
    assert _order(res) == [(100, 0, 0, 0, "a"), (102, 0, 0, 0, "b"), (108, 0, 0, 0, "c"),
                           (114, 0, 0, 0, "d")]
    assert res.end_cycle == 121
    assert list(res.accesses["op"]) == [Op.STORE, Op.LOAD, Op.ATOMIC, Op.LOAD]
    assert (res.accesses["kernel"] == 3).all()
    assert (res.shared_instructions, res.other_memory_instructions) == (1, 1)


# --- barriers --------------------------------------------------------------------------------

def _barrier_kernel() -> KernelTrace:
    """2 CTAs x 2 warps.  w0: LD a, BAR, LD c.   w1: C, C, C, BAR, LD d."""
    kb = KernelBuilder("barrier", grid=(2,), block=(64,))
    w0, w1 = _warp_masks(kb)
    a = kb.gtid * 4
    kb.load(0x10, 0x1000 + a, active=w0)
    kb.compute(3, active=w1)
    kb.barrier()
    kb.load(0x20, 0x3000 + a, active=w0)
    kb.load(0x28, 0x4000 + a, active=w1)
    return kb.build()


BARRIER_ORDERS = {
    # t0 w0 LD a; t1 w1 C; t2 w0 BAR (waits); t3, t4 w1 C; t5 w1 BAR releases both (r=6);
    # t6 w0 LD c; t7 w1 LD d
    "lrr": [(0, 0, "a"), (6, 0, "c"), (7, 1, "d")],
    # t0 w0 LD a; t1 w0 BAR; t2-t4 w1 C; t5 w1 BAR (r=6); t6 greedy w1 LD d; t7 w0 LD c
    "gto": [(0, 0, "a"), (6, 1, "d"), (7, 0, "c")],
    # t0 w0 LD a; t1 w0 BAR; t2-t4 w1 C; t5 w1 BAR (r=6); t6 oldest w0 LD c; t7 w1 LD d
    "oldest": [(0, 0, "a"), (6, 0, "c"), (7, 1, "d")],
}


@pytest.mark.parametrize("policy", ["lrr", "gto", "oldest"])
def test_barrier(policy):
    kt = _barrier_kernel()
    res = interleave_kernel(kt, 0, _gpu(), scheduler=policy)
    assert _order(res) == _both_sms(BARRIER_ORDERS[policy])
    assert res.end_cycle == 8
    assert res.instructions == kt.n_instructions == 2 * (3 + 5)


def test_exited_warp_counts_as_arrived():
    """One CTA.  w0: LD a, BAR, LD c.   w1: C, C, C and exits without a barrier.

    LRR: t0 w0 LD a; t1 w1 C; t2 w0 BAR (waits); t3 w1 C; t4 w1 C, exits: the
    barrier releases (r=5); t5 w0 LD c; the kernel ends at 6.
    """
    kb = KernelBuilder("exit", grid=(1,), block=(64,))
    w0, w1 = _warp_masks(kb)
    a = kb.gtid * 4
    kb.load(0x10, 0x1000 + a, active=w0)
    kb.barrier()
    kb.load(0x20, 0x3000 + a, active=w0)
    kb.compute(3, active=w1)
    kt = kb.build()
    keep = ~((kt.insts["warp"] == 1) & (kt.insts["op"] == Op.BARRIER))
    kt = KernelTrace(kt.name, kt.grid, kt.block, kt.insts[keep], kt.lane_addrs, kt.tail)
    res = interleave_kernel(kt, 0, _gpu(n_sm=1), scheduler="lrr")
    assert _order(res) == [(0, 0, 0, 0, "a"), (5, 0, 0, 0, "c")]
    assert res.end_cycle == 6


def test_barrier_as_last_instruction():
    """One CTA.  w0: BAR.   w1: C, BAR.   LRR: t0 w0 BAR; t1 w1 C; t2 w1 BAR: both exit at 3."""
    kb = KernelBuilder("lastbar", grid=(1,), block=(64,))
    kb.compute(1, active=_warp_masks(kb)[1])
    kb.barrier()
    res = interleave_kernel(kb.build(), 0, _gpu(n_sm=1))
    assert res.accesses.size == 0
    assert (res.end_cycle, res.instructions) == (3, 3)


# --- schedulers per SM -----------------------------------------------------------------------

def test_two_schedulers_per_sm():
    """2 CTAs x 3 warps, every warp LD a, LD b; mem_latency = 2; LRR.

    Scheduler 0 has w0 and w2, scheduler 1 has w1; in a cycle scheduler 0 issues first.
    t0: s0 w0 LD a (r=3), s1 w1 LD a (r=3); t1: s0 w2 LD a (r=4), s1 nothing ready;
    t2: nothing ready, time jumps to 3; t3: s0 w0 LD b, s1 w1 LD b (both r=6);
    t4: s0 w2 LD b (r=7).
    """
    kb = KernelBuilder("two", grid=(2,), block=(96,))
    a = kb.gtid * 4
    kb.load(0x10, 0x1000 + a)
    kb.load(0x18, 0x2000 + a)
    res = interleave_kernel(kb.build(), 0, _gpu(mem_latency=2, schedulers_per_sm=2))
    per_sm = [(0, 0, "a"), (0, 1, "a"), (1, 2, "a"), (3, 0, "b"), (3, 1, "b"), (4, 2, "b")]
    expected = []
    for t in (0, 1, 3, 4):
        expected += [(t, sm, sm, w, x) for sm in (0, 1) for tt, w, x in per_sm if tt == t]
    assert _order(res) == expected
    assert res.end_cycle == 7


def test_rdgc_algorithm2_order_without_latency():
    """Loads only, mem_latency = 0, LRR: the order of rdgc Algorithm 2 (lines 7-10).

    For each access number j, for each in-flight CTA k, the warps in groups of
    n_scheduler (one per scheduler, issued in the same cycle). 2 CTAs x 4 warps on
    one SM, 2 schedulers, 2 loads per warp: j = 0 issues warps (0, 1), (2, 3) of CTA 0
    and (0, 1), (2, 3) of CTA 1 at t0..t3; j = 1 repeats at t4..t7.
    """
    kb = KernelBuilder("alg2", grid=(2,), block=(128,))
    kb.load(0x10, 0x1000 + kb.gtid * 4)
    kb.load(0x18, 0x2000 + kb.gtid * 4)
    res = interleave_kernel(kb.build(), 0, _gpu(n_sm=1, schedulers_per_sm=2))
    per_j = [(cta, w) for cta in (0, 1) for w in range(4)]
    assert _order(res) == [(4 * j + i // 2, 0, cta, w, x)
                           for j, x in enumerate("ab") for i, (cta, w) in enumerate(per_j)]


# --- residency and waves ---------------------------------------------------------------------

def test_concurrent_ctas_rdgc_algorithm3():
    # rdgc Algorithm 3: BSM = 10, MAXCB = 8, WpB = 8, MAXCW = 48 -> CB = 48 // 8 = 6, Nitr = 2.
    gpu = _gpu(max_ctas_per_sm=8, max_warps_per_sm=48, max_threads_per_sm=1536)
    assert concurrent_ctas(10, 8, 256, gpu) == (6, 2)
    # BSM below every limit: all CTAs in one wave.
    assert concurrent_ctas(3, 8, 256, gpu) == (3, 1)
    # MAXCB binds: 2-warp CTAs, 20 of them -> 8 per wave, 3 waves.
    assert concurrent_ctas(20, 2, 64, gpu) == (8, 3)
    # The thread limit binds: 1536 // 512 = 3 although MAXCW allows 48 // 16 = 3 too; with
    # 1024 threads per SM it is 2.
    assert concurrent_ctas(10, 16, 512, gpu.replace(max_threads_per_sm=1024)) == (2, 5)
    # A CTA larger than every limit still runs, alone.
    assert concurrent_ctas(4, 64, 2048, gpu) == (1, 4)
    assert concurrent_ctas(0, 8, 256, gpu) == (0, 0)


def test_waves_run_to_completion():
    """6 one-warp CTAs on 2 SMs, at most 2 resident CTAs: SM 0 runs {0, 2} then {4}.

    mem_latency = 5. SM 0: t0 CTA 0 LD (done at 6); t1 CTA 2 LD (done at 7); the
    second wave starts at 7: CTA 4 LD at t7, done at 13. SM 1 likewise with 1, 3, 5.
    """
    kb = KernelBuilder("waves", grid=(6,), block=(32,))
    kb.load(0x10, 0x1000 + kb.gtid * 4)
    res = interleave_kernel(kb.build(), 0, _gpu(mem_latency=5, max_ctas_per_sm=2))
    assert _order(res) == [(0, 0, 0, 0, "a"), (0, 1, 1, 0, "a"), (1, 0, 2, 0, "a"),
                           (1, 1, 3, 0, "a"), (7, 0, 4, 0, "a"), (7, 1, 5, 0, "a")]
    assert (res.end_cycle, res.waves_per_sm, res.ctas) == (13, 2, 6)


def test_waves_rdgc_example():
    """20 CTAs of 8 warps on 2 SMs: BSM = 10, CB = 6, Nitr = 2 (rdgc Algorithm 3).

    Every warp issues one load; mem_latency = 0, one scheduler. SM 0's first wave
    (CTAs 0, 2, ..., 10: 48 warps) issues at t0..t47 and ends at 48; the second
    (CTAs 12..18: 32 warps) issues at t48..t79.
    """
    kb = KernelBuilder("rdgc", grid=(20,), block=(256,))
    kb.load(0x10, 0x1000 + kb.gtid * 4)
    res = interleave_kernel(kb.build(), 0, _gpu(max_ctas_per_sm=8, max_warps_per_sm=48))
    assert res.waves_per_sm == 2
    assert res.end_cycle == 80
    sm0 = res.accesses[res.accesses["sm"] == 0]
    assert list(sm0["cycle"]) == list(range(80))
    assert list(sm0["cta"]) == [c for c in range(0, 20, 2) for _ in range(8)]
    assert list(sm0["warp"]) == list(range(8)) * 10


def test_partial_warps():
    """A 48-thread CTA has a full warp and a 16-thread warp (2 warps count for residency).

    64-byte lines, 16-byte sectors; thread t loads 4 bytes at 4t.
    w0 touches bytes 0..127 (lines 0, 1, all sectors); w1 bytes 128..191 (line 2).
    """
    kb = KernelBuilder("partial", grid=(2,), block=(48,))
    kb.load(0x10, kb.tid * 4)
    gpu = _gpu(n_sm=1, max_warps_per_sm=3)
    res = interleave_kernel(kb.build(), 0, gpu, line_size=64, sector_size=16)
    a = res.accesses
    # One CTA per wave: 3 // 2 = 1.  Wave 1: t0 w0, t1 w1; wave 2 starts at 2.
    assert res.waves_per_sm == 2
    assert list(zip(a["cycle"], a["cta"], a["warp"], a["line"], a["sectors"], strict=True)) == [
        (0, 0, 0, 0, 0xF), (0, 0, 0, 1, 0xF), (1, 0, 1, 2, 0xF),
        (2, 1, 0, 0, 0xF), (2, 1, 0, 1, 0xF), (3, 1, 1, 2, 0xF)]


# --- kernel sequencing -----------------------------------------------------------------------

def test_kernels_run_one_after_another():
    k0 = _policy_kernel()
    k1 = _barrier_kernel()
    wl = Workload("seq", [k0, k1])
    gpu = _gpu(mem_latency=1)
    it = interleave(wl, gpu, scheduler="lrr", start_cycle=10)
    first = next(it)
    second = next(it)
    with pytest.raises(StopIteration):
        next(it)
    assert first.end_cycle == 10 + 9
    assert [(t - 10, s, b, w, x) for t, s, b, w, x in _order(first)] == _both_sms(POLICY_ORDERS["lrr"])
    # The barrier kernel with mem_latency = 1: t0 w0 LD a (r=2); t1 w1 C; t2 w0 BAR;
    # t3, t4 w1 C; t5 w1 BAR (r=6); t6 w0 LD c (r=8); t7 w1 LD d (r=9).
    assert [(t - 19, s, b, w, x) for t, s, b, w, x in _order(second)] == _both_sms(
        [(0, 0, "a"), (6, 0, "c"), (7, 1, "d")])
    assert second.end_cycle == 19 + 9
    assert (first.accesses["kernel"] == 0).all() and (second.accesses["kernel"] == 1).all()


# --- whole-kernel properties -----------------------------------------------------------------

def _mixed_kernel() -> KernelTrace:
    """Partial warps, gathers (explicit lanes), shared memory, barriers, divergence."""
    rng = np.random.default_rng(7)
    kb = KernelBuilder("mixed", grid=(7, 2), block=(40, 2))
    n = kb.n_threads
    g = kb.gtid
    kb.load(0x10, 0x10000 + g * 4)
    kb.compute(3)
    kb.store(0x100, kb.tid * 4, space=Space.SHARED)
    kb.barrier()
    for j in range(3):
        kb.load(0x18, 0x40000 + rng.integers(0, 1 << 16, n) * 4, active=(g % 3) != j)
        kb.compute(int(rng.integers(0, 4)), active=(g % 5) < 3)
        kb.load(0x108, (kb.tid ^ 1) * 4, space=Space.SHARED)
    kb.atomic(0x20, 0x80000 + (g % 17) * 4, active=g % 2 == 0)
    kb.load(0x110, 0x90000 + g * 8, width=8, space=Space.TEXTURE)
    kb.barrier()
    kb.store(0x28, 0x20000 + g * 12, width=8)
    kb.compute(2)
    return kb.build()


@pytest.mark.parametrize("policy", ["lrr", "gto", "oldest"])
@pytest.mark.parametrize("n_sched", [1, 2])
def test_every_request_exactly_once(policy, n_sched):
    kt = _mixed_kernel()
    gpu = _gpu(n_sm=3, mem_latency=7, schedulers_per_sm=n_sched, max_ctas_per_sm=2)
    res = interleave_kernel(kt, 0, gpu, scheduler=policy, line_size=64, sector_size=32)
    a = res.accesses
    assert a.dtype == ACCESS_DTYPE
    row, line, sectors = coalesce(kt, 64, 32)
    got = np.sort(np.rec.fromarrays([a["inst"], a["line"], a["sectors"]]))
    want = np.sort(np.rec.fromarrays([row, line, sectors]))
    assert np.array_equal(got, want)
    it = kt.insts
    mem = it["op"] != Op.BARRIER
    assert res.instructions == kt.n_instructions
    assert res.global_instructions == np.count_nonzero(mem & (it["space"] == Space.GLOBAL))
    assert res.shared_instructions == np.count_nonzero(mem & (it["space"] == Space.SHARED))
    assert res.other_memory_instructions == np.count_nonzero(mem & (it["space"] == Space.TEXTURE))
    # The request carries its row's fields, and the CTA runs on SM cta % n_sm.
    assert np.array_equal(a["cta"], it["cta"][a["inst"]])
    assert np.array_equal(a["warp"], it["warp"][a["inst"]])
    assert np.array_equal(a["pc"], it["pc"][a["inst"]])
    assert np.array_equal(a["op"], it["op"][a["inst"]])
    assert np.array_equal(a["sm"], a["cta"] % 3)
    # Global order is (cycle, sm); a row's requests are adjacent.
    key = a["cycle"] * 3 + a["sm"]
    assert (np.diff(key) >= 0).all()
    first = np.r_[True, a["inst"][1:] != a["inst"][:-1]]
    assert np.unique(a["inst"][first]).size == first.sum()
    # Program order per warp, and at most n_sched instructions per SM per cycle.
    rows = a[first]
    gw = rows["cta"].astype(np.int64) * kt.warps_per_cta + rows["warp"]
    for w in np.unique(gw):
        mine = rows[gw == w]
        assert (np.diff(mine["cycle"]) > 0).all() and (np.diff(mine["inst"]) > 0).all()
    _, per_cycle = np.unique(rows["cycle"] * 3 + rows["sm"], return_counts=True)
    assert per_cycle.max() <= n_sched
    assert res.end_cycle > a["cycle"].max()


def test_deterministic():
    kt = _mixed_kernel()
    gpu = _gpu(n_sm=3, mem_latency=7, schedulers_per_sm=2)
    runs = [interleave_kernel(kt, 1, gpu, scheduler="gto") for _ in range(2)]
    assert runs[0].accesses.tobytes() == runs[1].accesses.tobytes()
    assert runs[0].end_cycle == runs[1].end_cycle


def test_policies_differ_on_mixed_kernel():
    kt = _mixed_kernel()
    gpu = _gpu(n_sm=3, mem_latency=7)
    orders = {p: interleave_kernel(kt, 0, gpu, scheduler=p).accesses.tobytes()
              for p in ("lrr", "gto", "oldest")}
    assert len(set(orders.values())) == 3


# --- errors ----------------------------------------------------------------------------------

def test_wrong_options():
    kt = _policy_kernel()
    gpu = _gpu()
    with pytest.raises(ValueError, match=r"scheduler: must be one of lrr, gto, oldest, two-level, not 'rr'"):
        interleave_kernel(kt, 0, gpu, scheduler="rr")
    with pytest.raises(ValueError, match=r"kernel_index: must be an integer from 0 to 65535, not -1"):
        interleave_kernel(kt, -1, gpu)
    with pytest.raises(ValueError, match=r"start_cycle: must be a non-negative integer, not -5"):
        interleave_kernel(kt, 0, gpu, start_cycle=-5)
    with pytest.raises(ValueError, match=r"Line size must be a power of 2"):
        interleave_kernel(kt, 0, gpu, line_size=48)
    # interleave() checks before the first kernel runs, not on the first next().
    with pytest.raises(ValueError, match=r"scheduler: must be one of"):
        interleave(Workload("w", [kt]), gpu, scheduler="fifo")


# --- the coalescer's fast paths against a lane-by-lane, byte-by-byte reference ---------------

def _reference(kt: KernelTrace, line_size: int, sector_size: int):
    rows = np.flatnonzero(kt.memory_mask())
    addr = lane_addresses(kt, rows)
    sec = sector_size or line_size
    out = []
    for i, r in enumerate(rows):
        found: dict[int, int] = {}  # insertion order is first-touch order
        width = int(kt.insts["width"][r])
        for lane in range(32):
            if (int(kt.insts["mask"][r]) >> lane) & 1:
                for b in range(int(addr[i, lane]), int(addr[i, lane]) + width):
                    found[b // line_size] = found.get(b // line_size, 0) | 1 << (b % line_size // sec)
        out += [(r, ln, m) for ln, m in found.items()]
    return out


def test_coalesce_matches_reference():
    rng = np.random.default_rng(3)
    n = 300
    it = np.zeros(n, INST_DTYPE)
    it["op"], it["space"] = Op.LOAD, Space.GLOBAL
    it["width"] = rng.choice([1, 2, 4, 8, 12, 16, 40], n)
    it["dx"] = rng.choice([1, 3, 8, 12, 16, 32], n)
    it["mask"] = np.where(rng.random(n) < 0.6, 0xFFFFFFFF, rng.integers(0, 1 << 32, n))
    it["base"] = rng.integers(1 << 20, 1 << 24, n)
    it["sx"] = rng.choice([0, 1, 4, 8, 31, 64, 100, -4, -40], n)
    it["sy"] = rng.choice([0, 4, 64, 1000, -128], n)
    it["lanes"] = np.where(rng.random(n) < 0.15, rng.integers(0, 20, n), -1)
    lanes = rng.integers(1 << 20, 1 << 24, (20, 32)).astype(np.uint64)
    # Explicit rows with small strides, so that lanes share lines.
    step = rng.integers(0, 9, (10, 1)).astype(np.uint64)
    lanes[:10] = lanes[:10, :1] + np.arange(32, dtype=np.uint64) * step
    kt = KernelTrace("rand", (1, 1, 1), (32, 1, 1), it, lanes, np.zeros(1, np.uint32))
    for line_size, sector_size in ((4, 0), (32, 0), (64, 16), (128, 32)):
        row, line, sectors = coalesce(kt, line_size, sector_size)
        got = list(zip(row.tolist(), line.tolist(), sectors.tolist(), strict=True))
        assert got == _reference(kt, line_size, sector_size), (line_size, sector_size)
