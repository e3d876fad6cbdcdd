"""Whole-workload slices: golden-run logs of real workloads replayed into the RTL and the unit models."""

import numpy as np
import pytest

from catalog import get_unit
from golden.configs.presets import preset
from golden.driver import CHUNK
from golden.policies.pc_bypass import PCBypass
from golden.workloads import registry
from tb.cosim import cosim_units, record_transactions, unit_log

UNITS = list(PCBypass().units())

GPU = preset("tian15")
SLICE = 20_000
# Scales at which SM 0's L1 sees more than SLICE requests and the L2 store more than SLICE rows.
WORKLOADS = [("tian15/bfs", 0.02), ("tian15/srad", 0.5), ("tian15/lud", 0.5)]


@pytest.fixture(scope="module", params=WORKLOADS, ids=[w for w, _ in WORKLOADS])
def logs(request):
    name, scale = request.param
    policy = PCBypass(log_sm=0, log_capacity=2 * CHUNK)
    wl = registry.build(name, scale)
    tx, _ = record_transactions(wl, GPU, policy)
    return wl, policy, tx


@pytest.mark.parametrize("unit", sorted(UNITS))
def test_engine_log_equals_unit_model(logs, unit):
    """The compiled policy's transactions, laid out as cycles and replayed into the unit model, agree."""
    wl, policy, tx = logs
    name = wl.name
    spec = get_unit(unit)
    model = spec.model(GPU, policy)
    log = unit_log(spec, model, tx, wl)
    assert len(log) >= SLICE, f"{name}: only {len(log)} rows for {unit}"
    expected = {k: log[k].copy() for k in log.dtype.names if k.startswith("exp_")}
    got = model.run(log[[k for k in log.dtype.names if not k.startswith("exp_")]])
    for k, v in expected.items():
        bad = np.flatnonzero(got[k] != v)
        assert bad.size == 0, f"{name} {unit}: {k} differs first at row {bad[0] if bad.size else -1}"


@pytest.mark.parametrize("name, scale", WORKLOADS)
def test_slice_amaranth(name, scale, tmp_path):
    """The first SLICE rows of each unit's log match the RTL in the Amaranth simulator."""
    results = cosim_units(UNITS, registry.build(name, scale), GPU, sim="amaranth",
                          build_dir=tmp_path, limit=SLICE)
    for r in results:
        assert r.rows == SLICE and r.ok, f"{name} {r.unit}: {r.mismatch}"


def test_slice_icarus_and_verilator(tmp_path):
    """The same kind of slice through the generated Verilog: cocotb on Icarus and the Verilator harness."""
    wl = registry.build("tian15/srad", 0.5)
    (icarus,) = cosim_units(["l1_tag_unit"], wl, GPU, sim="icarus", build_dir=tmp_path / "i", limit=5000)
    assert icarus.ok and icarus.rows == 5000, icarus.mismatch
    verilator = cosim_units(UNITS, wl, GPU, sim="verilator", build_dir=tmp_path / "v")
    for r in verilator:
        assert r.ok and r.rows == r.log_rows >= SLICE, f"{r.unit}: {r.mismatch}"
