"""The seams every technique plugs into: a toy technique added in its own files only, the
policy protocol for every registered policy, and the unit catalog behind cosim and synth."""

import json
import re
import shutil

import numpy as np
import pytest

from catalog import get_unit, unit_names
from catalog.registry import UnitSpec, policy_for
from cli.main import main
from golden.cache import Hierarchy
from golden.configs.presets import preset
from golden.errors import InputError
from golden.policies import get_policy, policy_names
from golden.workloads import registry
from tb.cosim import cosim_units

PLUGINS = "tests.toy_technique.hit_counter_catalog"
GPU = preset("tian15")


@pytest.fixture(autouse=True)
def trace_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path_factory.getbasetemp() / "trace-cache"))


@pytest.fixture
def toy(monkeypatch):
    """The toy technique, made known the only way a user's own technique is: GPUCACHE_PLUGINS."""
    monkeypatch.setenv("GPUCACHE_PLUGINS", PLUGINS)
    assert "toy_hit_counter" in unit_names() and "toy-hit-counter" in policy_names()


def run_main(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- a technique added in its own files only ---------------------------------------------------

def test_toy_policy_runs_the_main_job(toy, capsys, tmp_path):
    # 2dconv's L1 hits survive the timing model (small matrixmul's reuse all merges in the MSHRs).
    status, out, err = run_main(capsys, "run", "--workload", "rdgc/2dconv", "--scale", "0.05",
                                "--policy", "toy-hit-counter", "--json", str(tmp_path / "r.json"),
                                "--no-progress")
    assert status == 0, err
    res = json.loads((tmp_path / "r.json").read_text())
    l1 = res["caches"]["l1"]
    assert res["policy_stats"] == {"hits": l1["read_hits"] + l1["write_hits"]} and l1["read_hits"] > 0


def test_toy_unit_cosim_and_synth_through_the_cli(toy, capsys, tmp_path):
    status, out, err = run_main(capsys, "cosim", "--unit", "toy_hit_counter", "--workload",
                                "tian15/matrixmul", "--scale", "0.05", "--sim", "amaranth",
                                "--build-dir", str(tmp_path / "c"), "--no-progress")
    assert status == 0, out + err
    rows = re.search(r"rows checked   (\S+) of (\S+)", out).groups()
    assert rows[0] == rows[1] and int(rows[0].replace(",", "")) >= 200 and "mismatches     0" in out
    if shutil.which("yosys") is None:
        pytest.skip("yosys is not installed")
    status, out, err = run_main(capsys, "synth", "--unit", "toy_hit_counter", "--out", str(tmp_path / "s"))
    assert status == 0, err
    (report,) = json.loads((tmp_path / "s" / "area.json").read_text())
    assert (report["unit"], report["flip_flops"], report["total_storage_bits"]) == ("toy_hit_counter", 16, 0)


def test_a_broken_toy_unit_is_caught(toy, tmp_path):
    """The generic co-simulation fails on an RTL that counts from 1 instead of 0."""
    from tests.toy_technique.hit_counter_model import HitCounterModel

    class OffByOne(HitCounterModel):
        def cycle_log(self, transactions):
            log = super().cycle_log(transactions)
            log["exp_count"] = log["exp_count"] + (log["exp_count"] > 5)
            return log

    spec = get_unit("toy_hit_counter")
    broken = UnitSpec(**{**spec.__dict__, "name": "toy_broken",
                         "model": lambda g, p: OffByOne(width=p.width)})
    from catalog import registry as reg

    reg.register_unit(broken)
    try:
        (r,) = cosim_units(["toy_broken"], registry.build("tian15/matrixmul", 0.05), GPU, sim="amaranth",
                           build_dir=tmp_path)
    finally:
        del reg._REGISTRY["toy_broken"]
    assert not r.ok and r.mismatch is not None and r.mismatch.expected["count"] == 7


def test_unknown_plugin_is_one_line(monkeypatch):
    monkeypatch.setenv("GPUCACHE_PLUGINS", "tests.toy_technique.no_such_module")
    with pytest.raises(InputError, match="GPUCACHE_PLUGINS: cannot import plugin module "
                                         "'tests.toy_technique.no_such_module'"):
        policy_names()


# --- the policy protocol, for every registered policy ------------------------------------------

def _policies():
    return [n for n in policy_names() if n != "toy-hit-counter"]


@pytest.mark.parametrize("name", _policies())
def test_protocol(name):
    p = get_policy(name)
    before = p.stats()
    assert all(v == 0 for v in before.values()), before  # zeros before a run
    bits = p.storage_bits(GPU)
    assert all(isinstance(v, int) and v > 0 and k.split(".")[0] in ("l1", "l2", "l3")
               for k, v in bits.items())
    assert all(u in unit_names() for u in p.units())
    wl = registry.build("tian15/matrixmul", 0.05)
    h1, h2 = Hierarchy(GPU, p), Hierarchy(GPU, get_policy(name))
    from golden.driver import drive

    drive(wl, GPU, [h1])
    after = p.stats()
    assert set(after) == set(before)  # the same keys
    drive(wl, GPU, [h2])
    assert h1.stats() == h2.stats()  # independent attachments: the second run starts afresh
    p.reset()
    assert all(v == 0 for v in p.stats().values())


def test_pc_bypass_storage_and_units_match_the_catalog():
    p = get_policy("pc-bypass")
    bits = p.storage_bits(GPU)
    # tian15 Sec. 4.1: 64 B table + 224 B hashed PCs per L1, 0.5 KB of bypassBits.
    assert bits == {"l1.prediction_table": 512, "l1.hashed_pc": 1792, "l2.bypass_bits": 4096}
    assert [get_unit(u).paper for u in p.units()] == ["tian15"] * 3
    assert get_unit("bypass_bits").overhead_bits == bits["l2.bypass_bits"]


# --- synth from the catalog ------------------------------------------------------------------

needs_yosys = pytest.mark.skipif(shutil.which("yosys") is None, reason="yosys is not installed")


@needs_yosys
def test_synth_prediction_table_counts(tmp_path):
    from synth.table import format_area_table, overhead_bits, synth_units

    (r,) = synth_units(["prediction_table"], GPU, tmp_path)
    assert r.storage_bits == {"table": 128 * 4}  # 128 x 4-bit counters
    assert overhead_bits(r) == get_unit("prediction_table").overhead_bits == 512
    assert r.nand2 > 0 and r.depth > 0
    table = format_area_table([r]).splitlines()
    assert table[2].startswith("| prediction_table | 512 | 512 (64 B) | 512 (64 B) |")
    assert (tmp_path / "prediction_table" / "top.v").read_text().startswith("/* Generated by Amaranth")


@needs_yosys
def test_a_renamed_memory_is_an_error_not_missing_bits(tmp_path):
    from catalog import registry as reg
    from synth.table import overhead_bits, synth_units

    spec = get_unit("prediction_table")
    (r,) = synth_units(["prediction_table"], GPU, tmp_path)
    renamed = UnitSpec(**{**spec.__dict__, "overhead_memories": ("counters",)})
    reg._REGISTRY["prediction_table"] = renamed
    try:
        with pytest.raises(ValueError, match="overhead memories counters are not in the synthesized unit"):
            overhead_bits(r)
    finally:
        reg._REGISTRY["prediction_table"] = spec


def test_policy_for_takes_the_config_params():
    gpu = GPU.replace(policy_params={"pc-bypass": {"threshold": 3}})
    p = policy_for(get_unit("l1_tag_unit"), gpu, log_sm=1)
    assert (p.threshold, p.log_sm) == (3, 1)
    assert np.array_equal(get_unit("l1_tag_unit").model(gpu, p).counters, np.zeros(128, np.uint8))
