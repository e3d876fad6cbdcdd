"""kim20's policies on the timing model, and co-simulation of the unit, on tiny synthetic kernels.

A two-SM GPU with 8 warp slots per SM and a 400-cycle sampling window runs three kernels: a
stream (every load misses: B mode by miss rate), a loop over a small array (hits: C mode) and one
warp per SM on a half-missing pattern (ambiguous miss rate, low occupancy: B mode). One run per
policy is shared by the checks; the unit's log from it replays into the RTL.
"""

import numpy as np
import pytest

from catalog import get_unit
from catalog.kim20 import record_timed
from golden.configs.schema import CacheConfig, GPUConfig
from golden.driver import simulate
from golden.errors import InputError
from golden.policies import get_policy
from golden.trace.builder import KernelBuilder
from golden.trace.model import Workload
from tb.cosim import cosim_units, replay, unit_log

LINE = 128
PARAMS = dict(window=400, min_accesses=8)


def tiny_gpu() -> GPUConfig:
    l1 = CacheConfig(size=8 * 1024, assoc=4, line_size=LINE, hit_latency=5, mshrs=32, mshr_merges=8,
                     miss_queue=8, allocate="on-fill", write="write-through")
    l2 = CacheConfig(size=256 * 1024, assoc=8, line_size=LINE, hit_latency=20, mshrs=64, mshr_merges=8)
    return GPUConfig(name="tiny", n_sm=2, l1=l1, l2=l2, l2_partitions=1, schedulers_per_sm=1,
                     scheduler="gto", max_warps_per_sm=8, max_threads_per_sm=256, icnt_latency=4,
                     icnt_flit_bytes=LINE, dram_t_cl=0, dram_t_rcd=0, dram_t_rp=0, dram_t_ras=0,
                     dram_bus_bytes=0, dram_latency=50)


def kernels() -> Workload:
    ks = []
    stream = KernelBuilder("stream", (8,), (128,))
    for i in range(24):
        stream.load(0x100 + 8 * i, (i * 1024 + stream.gtid) * 32)
        stream.compute(2)
    ks.append(stream.build())
    loop = KernelBuilder("loop", (8,), (128,))
    for i in range(24):
        loop.load(0x400 + 8 * i, 4 * ((loop.tid + 32 * i) % 256))
        loop.compute(2)
    ks.append(loop.build())
    half = KernelBuilder("half", (2,), (32,))
    for i in range(40):
        # 4 lines per warp-load, two of them new each time: a 50% miss rate.
        half.load(0x800 + 8 * i, (1 << 22) + (half.bx << 16) + (half.tid % 4 + 2 * i) * LINE)
        half.compute(4)
    ks.append(half.build())
    return Workload("kim20-tiny", ks)


@pytest.fixture(scope="module")
def runs():
    g, wl = tiny_gpu(), kernels()
    out = {}
    for name in ("kim20-two-level", "kim20-l1-off", "kim20-miss-rate:0.9"):
        out[name] = simulate(wl, g, get_policy(name, **PARAMS), timing="cycle")
    return out


@pytest.fixture(scope="module")
def recorded():
    g = tiny_gpu()
    spec = get_unit("kim20_bypass")
    p = get_policy("kim20-two-level", log_sm=0, log_capacity=64, **PARAMS)
    tx, _ = record_timed(kernels(), g, p)
    return g, spec, p, tx


def test_modes_per_kernel(recorded):
    _, _, _, tx = recorded
    assert tx["bdu"]["mode"].tolist() == [1, 0, 1]  # stream: B, loop: C, half (one warp): B
    acc, miss = tx["bdu"]["accesses"], tx["bdu"]["misses"]
    assert miss[0] == acc[0] and miss[1] < 0.25 * acc[1] and 0.3 < miss[2] / acc[2] < 0.7


def test_policies_bypass_as_decided(runs):
    two = runs["kim20-two-level"]["policy_stats"]
    assert two["timed"] == 1 and two["decisions_b"] == 4 and two["decisions_c"] == 2
    assert two["loads_bypassed"] > 0 and two["load_misses_cached"] > 0
    # B-mode loads never look the L1 up: they are the timing model's loads sent past it.
    assert two["loads_bypassed"] == runs["kim20-two-level"]["timing"]["l1"]["bypassed_before_lookup"]
    off = runs["kim20-l1-off"]
    assert off["policy_stats"]["load_misses_cached"] == 0 and off["policy_stats"]["decisions_b"] == 0
    assert off["policy_stats"]["loads_bypassed"] == off["timing"]["l1"]["bypassed_before_lookup"] > 0
    # Miss-rate only at 0.9: the half-missing kernel stays cached.
    assert runs["kim20-miss-rate:0.9"]["policy_stats"]["decisions_b"] == 2
    assert off["timing"]["l1"]["hits"] == 0 < runs["kim20-two-level"]["timing"]["l1"]["hits"]


def test_bad_parameters_name_the_field():
    with pytest.raises(ValueError, match="threshold_h"):
        get_policy("kim20-two-level", threshold_h=2)
    with pytest.raises(ValueError, match="k: "):
        get_policy("kim20-miss-rate:x")
    with pytest.raises(InputError, match="unknown policy"):
        get_policy("kim20-nope:1")


def test_unit_log_replays_into_the_rtl(recorded, tmp_path):
    g, spec, p, tx = recorded
    log = unit_log(spec, spec.model(g, p), tx, "kim20-tiny")
    assert log["start"].sum() == 3 and log["exp_bypass"].any() and log["loads"].sum() > 100
    rows, mismatch, _ = replay(spec.rtl(g, p), log, "amaranth", tmp_path)
    assert mismatch is None and rows == len(log)


def test_policy_and_unit_model_disagreeing_is_an_error(recorded):
    g, spec, p, tx = recorded
    bad = dict(tx)
    k = bad["kim20"].copy()
    k["value"][k["kind"] == 3] ^= 1
    bad["kim20"] = k
    with pytest.raises(ValueError, match="not the unit model's"):
        unit_log(spec, spec.model(g, p), bad, "kim20-tiny")


def test_cosim_verilator(tmp_path):
    g = tiny_gpu().replace(policy_params={"kim20-two-level": PARAMS})
    (r,) = cosim_units(["kim20_bypass"], kernels(), g, sim="verilator", build_dir=tmp_path)
    assert r.ok and r.rows > 1000, r.mismatch


def test_storage_and_units():
    p = get_policy("kim20-two-level")
    assert p.storage_bits(tiny_gpu()) == {"l1.mrmu": 26, "l1.womu": 16, "l1.bdu": 15}
    assert p.units() == ("kim20_bypass",) and get_policy("kim20-l1-off").units() == ()
    assert np.isclose(get_policy("kim20-miss-rate", k=0.7).k, 0.7)


@pytest.mark.slow
@pytest.mark.parametrize("name", [f"kim20/{w}" for w in ("adi", "bt", "cf", "jcb1d", "lud", "ms", "nw", "pf",
                                                        "shfl", "spmv", "sqn", "stc")])
def test_whole_workload_verilator(name, tmp_path):
    """A whole kim20 workload at the paper's size on the kim20 GPU: SM 0's unit log through Verilator."""
    from golden.configs.presets import preset
    from golden.workloads import registry

    (r,) = cosim_units(["kim20_bypass"], registry.build(name, 1.0), preset("kim20"), sim="verilator",
                       build_dir=tmp_path)
    assert r.ok and r.rows == r.log_rows > 0, r.mismatch


def test_reused_runs_are_the_runs_they_replace():
    # The comparison skips a configuration whose thresholds decide as a run already made at every
    # decision; every row must be what running it gives.
    from golden.experiments.kim20 import compare_workload

    pp = {"kim20-two-level": PARAMS, "kim20-miss-rate": PARAMS}
    fast = compare_workload(kernels(), tiny_gpu(), policy_params=pp)
    full = compare_workload(kernels(), tiny_gpu(), policy_params=pp, reuse=False)
    reused = {n for n, r in fast["runs"].items() if "reused_from" in r}
    assert reused and len(reused) < 5
    for r in fast["runs"].values():
        r.pop("reused_from", None)
    assert fast == full
