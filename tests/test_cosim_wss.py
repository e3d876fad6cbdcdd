"""drp16's WSS cache: recorded LLC runs turned into cycle logs and replayed into the RTL.

The ``drp16-wss`` policy feeds the WSS cache with every LLC access and
records its transactions; the unit model lays them out cycle by cycle; the
replayers drive the RTL and compare every output every cycle. Fast tests
use a small WSS (epochs every 4000 reads, so the invalidation stalls are
in the log) on a seeded stream-labelled trace; the slow ones run the
paper's WSS on whole workloads through Verilator.
"""

import numpy as np
import pytest

from catalog import get_unit
from golden.configs.presets import preset
from golden.llc.model import LLC_TRACE_DTYPE
from golden.llc.streams import BLITTER, COLOR, DEPTH, DYNTEX, OTHER, SHADER, TEXTURE
from golden.policies import get_policy
from golden.workloads import registry
from tb.cosim import cosim_llc, cosim_units, record_llc_transactions, unit_log

SMALL_WSS = dict(sets=16, ways=4, min_entries=6, epoch=4000)


def frame_stream(n, seed=0, cores=4):
    """A seeded 4C1G stream-labelled trace: CPU loads and stores, and a render pass's GPU streams.

    CPU cores: a hot set and a scan each; GPU: colour and depth written then
    read back as dynamic texture, static texture, shader, blits, vertices.
    """
    rng = np.random.default_rng(seed)
    t = np.zeros(n, LLC_TRACE_DTYPE)
    cpu = rng.random(n) < 0.4
    core = rng.integers(0, cores, n)
    cpu_line = np.where(rng.random(n) < 0.5, rng.integers(0, 2048, n), np.arange(n) % 32768) + (core << 24)
    g = rng.choice([COLOR, DEPTH, TEXTURE, DYNTEX, SHADER, BLITTER, OTHER], n,
                   p=[.2, .15, .3, .15, .1, .05, .05])
    fb = rng.integers(0, 16384, n)
    # Colour, depth, blits and dynamic texture share the frame buffer; the texture sampler reads back
    # its first 2048 lines.
    gline = np.select([g == TEXTURE, g == SHADER, g == OTHER, g == DYNTEX],
                      [(1 << 30) + rng.integers(0, 65536, n), (2 << 30) + fb % 4096, (3 << 30) + fb,
                       (4 << 30) + fb % 2048], (4 << 30) + fb)
    t["stream"] = np.where(cpu, core, g)
    t["line"] = np.where(cpu, cpu_line, gline)
    gwrite = np.isin(g, [COLOR, DEPTH, BLITTER]) & (rng.random(n) < 0.6)
    t["op"] = np.where(cpu, np.where(rng.random(n) < 0.25, 2, 1), np.where(gwrite, 2, 1))
    t["pc"] = np.where(cpu, 0x400000 + 4 * rng.integers(0, 64, n), 0)
    return t


@pytest.fixture(scope="module")
def trace():
    return frame_stream(60_000)


def test_llc_run_log_covers_the_protocol(trace):
    p = get_policy("drp16-wss", log_sm=0, log_capacity=3 << 14, **SMALL_WSS)
    tx, stats = record_llc_transactions(trace, 4, p, chunk=1 << 14)
    tx = tx["wss"]
    assert len(tx) == stats["llc"]["read_hits"] + stats["llc"]["read_misses"] + stats["llc"]["write_hits"] \
        + stats["llc"]["write_misses"]
    assert (np.bincount(tx["reuse"], minlength=3) > 0).all() and tx["epoch"].sum() >= 3
    assert tx["dt_reused"].max() > 0 and set(np.unique(tx["stream"])) >= {0, 3, COLOR, DYNTEX}
    spec = get_unit("wss")
    log = unit_log(spec, spec.model(None, p), {"wss": tx}, "frame stream")
    assert (log["exp_s1_acc__ready"] == 0).sum() == tx["epoch"].sum() * (1 + SMALL_WSS["sets"])


def test_llc_slices_amaranth_and_icarus(trace, tmp_path):
    r = cosim_llc("wss", trace, 4, sim="amaranth", build_dir=tmp_path / "a", limit=1500, chunk=1 << 14,
                  **SMALL_WSS)
    assert r.ok and r.rows == 1500, r.mismatch
    r = cosim_llc("wss", trace, 4, sim="icarus", build_dir=tmp_path / "i", limit=1500, chunk=1 << 14,
                  **SMALL_WSS)
    assert r.ok and r.rows == 1500, r.mismatch


def test_llc_whole_log_verilator(trace, tmp_path):
    r = cosim_llc("wss", trace, 4, sim="verilator", build_dir=tmp_path, chunk=1 << 14, **SMALL_WSS)
    assert r.ok and r.rows == r.log_rows > len(trace) // 2, r.mismatch


@pytest.mark.slow
def test_llc_paper_wss_verilator(tmp_path):
    """The paper's WSS (128 x 16, 512K-read epochs) on 3 M rows of the stream: several epochs."""
    r = cosim_llc("wss", frame_stream(3_000_000, seed=1), 4, sim="verilator", build_dir=tmp_path)
    assert r.ok and r.rows == r.log_rows, r.mismatch


@pytest.mark.slow
@pytest.mark.parametrize("name, scale", [("rdgc/cfd", 1.0), ("tian15/bfs", 1.0), ("tian15/srad", 1.0)])
def test_gpu_workload_verilator(name, scale, tmp_path):
    """A whole GPU workload, the WSS sampling the GPU's L2 (the shader stream)."""
    (r,) = cosim_units(["wss"], registry.build(name, scale), preset("tian15"), sim="verilator",
                       build_dir=tmp_path)
    assert r.ok and r.rows == r.log_rows, r.mismatch
