"""rdgc's logical and physical models and Algorithm 1 on a hand-worked kernel; serial-limit cross-checks."""

from __future__ import annotations

import numpy as np
import pytest

from golden.configs.presets import preset
from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError
from golden.rd.crosscheck import counting_gap, serial_check
from golden.rd.logical import logical_trace
from golden.rd.model import RDOptions, analyse
from golden.rd.parallel import Latency
from golden.rd.physical import bank_map, cta_to_sm, place
from golden.trace.builder import KernelBuilder
from golden.trace.model import Workload
from golden.workloads import registry

LINE = 128


def _kernel():
    """3 CTAs x 2 warps. Every thread loads A[gtid] and B[tid]; threads 0-15 store C[gtid].

    With 128 B lines: A is line 32 + global warp, B line 256 + warp, C line 512 + global warp.
    """
    kb = KernelBuilder("k", grid=(3,), block=(64,))
    kb.load(0x10, 0x1000 + kb.gtid * 4)
    kb.load(0x18, 0x8000 + kb.tid * 4)
    kb.store(0x20, 0x10000 + kb.gtid * 4, active=kb.tid < 16)
    return kb.build()


def _gpu(**changes) -> GPUConfig:
    l1 = CacheConfig(size=4096, assoc=4, line_size=LINE, ports=2, mshrs=32, mshr_merges=8,
                     write="write-evict")
    l2 = CacheConfig(size=16384, assoc=4, line_size=LINE, ports=2)
    fields = dict(name="t", n_sm=2, l1=l1, l2=l2, schedulers_per_sm=2, max_ctas_per_sm=1)
    fields.update(changes)
    return GPUConfig(**fields)


def test_logical_records_in_an_bid_wid_order():
    lt = logical_trace(_kernel(), LINE)
    got = [tuple(lt.record(i).values()) for i in range(len(lt))]
    assert got == [
        (0, 0, 0, "R", 32, [32]), (0, 0, 1, "R", 32, [33]), (0, 1, 0, "R", 32, [34]),
        (0, 1, 1, "R", 32, [35]), (0, 2, 0, "R", 32, [36]), (0, 2, 1, "R", 32, [37]),
        (1, 0, 0, "R", 32, [256]), (1, 0, 1, "R", 32, [257]), (1, 1, 0, "R", 32, [256]),
        (1, 1, 1, "R", 32, [257]), (1, 2, 0, "R", 32, [256]), (1, 2, 1, "R", 32, [257]),
        (2, 0, 0, "W", 16, [512]), (2, 1, 0, "W", 16, [514]), (2, 2, 0, "W", 16, [516]),
    ]
    assert (lt.max_an, lt.n_ctas, lt.warps_per_cta) == (3, 3, 2)


def test_placement_follows_algorithm2():
    # RR: SM 0 runs CTAs 0 and 2 in two iterations (MAXCB = 1), SM 1 runs CTA 1. Two schedulers:
    # both warps of a CTA form one list per access number.
    p = place(logical_trace(_kernel(), LINE), _gpu())
    a, b = p.sm_range(0)
    assert p.lines[a:b].tolist() == [32, 33, 256, 257, 512, 36, 37, 256, 257, 516]
    lists = p.list_ptr[p.sm_lists[0]:p.sm_lists[1] + 1]
    assert lists.tolist() == [0, 2, 4, 5, 7, 9, 10]
    a, b = p.sm_range(1)
    assert p.lines[a:b].tolist() == [34, 35, 256, 257, 514]
    assert p.active_sms == 2
    # One scheduler: one list per warp.
    p1 = place(logical_trace(_kernel(), LINE), _gpu(schedulers_per_sm=1))
    assert np.diff(p1.list_ptr[p1.sm_lists[0]:p1.sm_lists[1] + 1]).tolist() == [1] * 10


def test_cta_mappings():
    assert cta_to_sm(10, 4, "rr").tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 0, 1]
    assert cta_to_sm(10, 2, "bpart1").tolist() == [0] * 4 + [1] * 4 + [0] * 2
    assert cta_to_sm(20, 2, "bpart2").tolist() == [0] * 8 + [1] * 8 + [0] * 4
    r = cta_to_sm(10, 4, "rand", seed=3)
    assert sorted(np.bincount(r).tolist()) == [2, 2, 3, 3]
    assert r.tolist() == cta_to_sm(10, 4, "rand", seed=3).tolist()
    assert r.tolist() != cta_to_sm(10, 4, "rand", seed=4).tolist()
    with pytest.raises(InputError, match="mapping: unknown CTA-to-SM mapping 'zigzag'"):
        cta_to_sm(4, 2, "zigzag")


def test_bank_map():
    cfg = CacheConfig(size=8 * 4 * LINE * 8, assoc=4, line_size=LINE, banks=2)  # 64 sets, mod index
    lines = np.array([0, 1, 4, 5, 9, 64 + 9])
    bank, group, limit, n = bank_map(cfg, 4, lines, per_set=False)
    # set = x % 64, bank = set % 8; each of the 8 banks holds 8 sets x 4 ways = 32 blocks.
    assert bank.tolist() == [0, 1, 4, 5, 1, 1] and group.tolist() == bank.tolist()
    assert (limit, n) == (32, 8)
    bank, group, limit, n = bank_map(cfg, 4, lines, per_set=True)
    assert group.tolist() == [0, 1, 4, 5, 9, 9] and limit == 4
    # Prime indexing (61 sets reached) keeps the nominal 8 sets x 4 ways per bank.
    assert bank_map(cfg.replace(index="prime"), 4, lines, per_set=False)[2] == 32
    assert bank_map(cfg.replace(index="prime"), 4, lines, per_set=True)[1].tolist() == [0, 1, 4, 5, 9, 12]
    with pytest.raises(InputError, match="16 partitions x 8 banks exceed the 64 sets"):
        bank_map(cfg.replace(banks=8), 16, lines, per_set=True)


def test_algorithm1_by_hand():
    # L1: 2 ports, latency 2. SM 0: step 0 A0 A1 miss; 1 B0 B1 miss; 2 write C; 3 A4 A5 miss;
    # 4 B0 B1 hit with distance 3 (touched since: B1's fill, A4, A5); 5 write C. SM 1: steps 0-2.
    # The L2 lists, one per L1 step, SM 0 first: [32 33 34 35] [256 257 256 257] [512 514]
    # [36 37] [516]; the second 256/257 merge into the first's MSHRs (arriving in step 3).
    gpu = _gpu()
    r = analyse(Workload("k", [_kernel()]), gpu, RDOptions(latency=Latency("fixed", fixed=2)),
                keep_streams=True)
    l1, l2 = r.l1, r.l2
    assert (l1.reads, l1.read_hits, l1.misses, l1.writes, l1.write_hits) == (12, 2, 10, 3, 0)
    assert l1.c_read[3] == 2 and l1.c_read[-1] == 10 and l1.c_read.sum() == 12
    assert l1.c_write[-1] == 3 and l1.steps == 6 and l1.transactions_out == 13
    assert r.streams["l2"][0].tolist() == [32, 33, 34, 35, 256, 257, 256, 257, 512, 514, 36, 37, 516]
    # Merges count as hits (rdgc's counters) and send nothing to DRAM.
    assert (l2.reads, l2.writes, l2.read_hits, l2.merges, l2.misses) == (10, 3, 2, 2, 11)
    # The merged 256 (257) sees 257 (256) and the fills of 34 and 35 at the end of step 2: distance 3.
    assert l2.c_read[3] == 2 and l2.c_read[-1] == 8
    assert l2.steps == 8 and l2.transactions_out == 11 and l2.reservation_failures == 0
    d = r.to_dict()
    assert d["transactions"] == {"l1_to_l2": 13, "l2_to_dram": 11}
    # L1 disabled: every access goes to the L2.
    off = analyse(Workload("k", [_kernel()]), gpu, RDOptions(l1=False, latency=Latency("fixed", fixed=2)))
    assert off.l1 is None and (off.l2.reads, off.l2.writes) == (12, 3)


def test_bad_options():
    with pytest.raises(InputError, match="counting: must be one of shared, per-set"):
        RDOptions(counting="exact")
    with pytest.raises(InputError, match="l1_mshrs: must be a positive integer, not 0"):
        RDOptions(l1_mshrs=0)
    with pytest.raises(InputError, match="mapping: unknown"):
        RDOptions(mapping="bpart3")


WORKLOADS = registry.names("rdgc")


@pytest.mark.parametrize("name", WORKLOADS)
def test_serial_limit_equals_simulator(name):
    # Fully associative and set-associative (rdgc preset's sets and prime indexing), both
    # levels, access by access, at a reduced size.
    wl = registry.build(name, 0.05)
    gpu = preset("rdgc")
    for fa in (True, False):
        res = serial_check(wl, gpu, fully_associative=fa)
        for level in ("l1", "l2"):
            assert res[level]["mismatches"] == 0, (name, fa, level, res)
            assert res[level]["rd_hits"] == res[level]["sim_hits"]


@pytest.mark.slow
@pytest.mark.parametrize("name", WORKLOADS)
def test_serial_limit_equals_simulator_full_size(name):
    res = serial_check(registry.build(name, 1.0), preset("rdgc"), fully_associative=True)
    assert res["l1"]["mismatches"] == 0 and res["l2"]["mismatches"] == 0


def test_counting_gap_on_a_small_workload():
    # Shared counters treat each bank as fully associative: never fewer L1 read hits than
    # exact per-set LRU on a prime-indexed 4-way L1 for this streaming kernel.
    g = counting_gap(registry.build("rdgc/hotspot", 0.05), preset("rdgc"))
    assert g["shared"].l1.reads == g["per_set"].l1.reads
    assert g["shared"].l1.hit_limit == 256 and g["per_set"].l1.hit_limit == 4


def test_sweep_in_one_pass_equals_separate_runs_in_the_serial_limit():
    # One port and latency 1: the order does not depend on the hits, so the swept capacities
    # must equal separate runs exactly (write-evict invalidations included).
    from golden.rd.crosscheck import serial_machine

    wl = registry.build("rdgc/gramschmidt", 0.05)
    g, o = serial_machine(preset("rdgc"))
    sweep = (16, 64, 512)
    one = analyse(wl, g, RDOptions(**{**o.__dict__, "l1_sweep": sweep, "l2_sweep": (64,)}))
    for blocks in sweep:
        l1 = g.l1.replace(size=blocks * g.l1.line_size, assoc=blocks)
        sep = analyse(wl, g.replace(l1=l1), o)
        assert one.l1.sweep[blocks] == sep.l1.read_hits
    l2 = g.l2.replace(size=64 * g.l2.line_size, assoc=64)
    assert one.l2.sweep[64] == analyse(wl, g.replace(l2=l2), o).l2.read_hits
