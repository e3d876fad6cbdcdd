"""Whole-workload slices: golden-run logs of real workloads replayed into the RTL and the unit models."""

import numpy as np
import pytest

from golden.configs.presets import preset
from golden.policies.pc_bypass import PCBypass
from golden.workloads import registry
from tb.cosim import CHUNK, UNITS, cosim_units, record_logs

GPU = preset("tian15")
SLICE = 20_000
# Scales at which SM 0's L1 sees more than SLICE requests and the L2 store more than SLICE rows.
WORKLOADS = [("tian15/bfs", 0.02), ("tian15/srad", 0.5), ("tian15/lud", 0.5)]


@pytest.fixture(scope="module", params=WORKLOADS, ids=[w for w, _ in WORKLOADS])
def logs(request):
    name, scale = request.param
    policy = PCBypass(log_sm=0, log_capacity=2 * CHUNK)
    l1, l2, _ = record_logs(registry.build(name, scale), GPU, policy)
    return name, scale, policy, l1, l2


@pytest.mark.parametrize("unit", sorted(UNITS))
def test_engine_log_equals_unit_model(logs, unit):
    """The compiled policy's log, replayed into the cycle-level unit model, gives the same outputs."""
    name, _, policy, l1, l2 = logs
    spec = UNITS[unit]
    model = spec.model(GPU, policy)
    log = spec.extract(l1, l2, model)
    assert len(log) >= SLICE, f"{name}: only {len(log)} rows for {unit}"
    expected = {k: log[k].copy() for k in log.dtype.names if k.startswith("exp_")}
    got = model.run(log[[k for k in log.dtype.names if not k.startswith("exp_")]])
    for k, v in expected.items():
        bad = np.flatnonzero(got[k] != v)
        assert bad.size == 0, f"{name} {unit}: {k} differs first at row {bad[0] if bad.size else -1}"


@pytest.mark.parametrize("name, scale", WORKLOADS)
def test_slice_amaranth(name, scale, tmp_path):
    """The first SLICE rows of each unit's log match the RTL in the Amaranth simulator."""
    results = cosim_units(sorted(UNITS), registry.build(name, scale), GPU, sim="amaranth",
                          build_dir=tmp_path, limit=SLICE)
    for r in results:
        assert r.rows == SLICE and r.ok, f"{name} {r.unit}: {r.mismatch}"


def test_slice_icarus_and_verilator(tmp_path):
    """The same kind of slice through the generated Verilog: cocotb on Icarus and the Verilator harness."""
    wl = registry.build("tian15/srad", 0.5)
    (icarus,) = cosim_units(["l1_tag_unit"], wl, GPU, sim="icarus", build_dir=tmp_path / "i", limit=5000)
    assert icarus.ok and icarus.rows == 5000, icarus.mismatch
    verilator = cosim_units(sorted(UNITS), wl, GPU, sim="verilator", build_dir=tmp_path / "v")
    for r in verilator:
        assert r.ok and r.rows == r.log_rows >= SLICE, f"{r.unit}: {r.mismatch}"
