"""Whole-workload slices: golden-run outcomes turned into the pipelined units' cycle logs.

The compiled policy (``golden/policies/pc_bypass.py``) records what each
request and L2 event did (tian15's one-request-at-a-time behaviour); the
unit modules' ``*_cycle_log`` functions turn that into the cycle log of the
pipelined RTL. Here they are checked against ``UnitModel.run`` row for
row, and replayed into the RTL with the three replayers.
"""

import numpy as np
import pytest

from catalog import get_unit
from golden.configs.presets import preset
from golden.driver import CHUNK
from golden.policies.pc_bypass import PCBypass
from golden.workloads import registry
from tb.cosim import cosim_units, record_transactions, unit_log

GPU = preset("tian15")
SLICE = 20_000
UNITS = ("l1_tag_unit", "prediction_table", "bypass_bits")
# Scales at which SM 0's L1 sees more than SLICE requests and the L2 store more than SLICE rows.
WORKLOADS = [("tian15/bfs", 0.02), ("tian15/srad", 0.5), ("tian15/lud", 0.5)]


def cycle_logs(wl):
    """The three units' cycle logs and models from the policy's recorded transactions."""
    policy = PCBypass(log_sm=0, log_capacity=2 * CHUNK)
    tx, _ = record_transactions(wl, GPU, policy)
    models = {u: get_unit(u).model(GPU, policy) for u in UNITS}
    return {u: unit_log(get_unit(u), models[u], tx, wl) for u in UNITS}, models


@pytest.fixture(scope="module", params=WORKLOADS, ids=[w for w, _ in WORKLOADS])
def logs(request):
    name, scale = request.param
    all_logs, models = cycle_logs(registry.build(name, scale))
    return name, all_logs, models


@pytest.mark.parametrize("unit", UNITS)
def test_cycle_log_equals_unit_model(logs, unit):
    """The vectorised cycle log equals the cycle-level unit model run on its inputs, row for row."""
    name, all_logs, models = logs
    log = all_logs[unit][:SLICE]
    assert len(log) == SLICE, f"{name}: only {len(all_logs[unit])} rows for {unit}"
    model = models[unit]
    model.reset()
    got = model.run(log[list(model.inputs)])
    for k in model.outputs:
        bad = np.flatnonzero(got[f"exp_{k}"] != log[f"exp_{k}"])
        assert bad.size == 0, f"{name} {unit}: {k} differs first at row {bad[0] if bad.size else -1}"


def test_l1_cycle_log_timing(logs):
    """Rows of the L1 log: one per request, two more per load miss (stall, L2 response), one at the end."""
    name, all_logs, _ = logs
    log = all_logs["l1_tag_unit"]
    taken = (log["s1_req__valid"] == 1) & (log["exp_s1_req__ready"] == 1)
    assert len(log) == taken.sum() + 2 * log["exp_fill__valid"].sum() + 1
    assert (log["l2_resp__valid"] == log["exp_fill__valid"]).all()  # the L2 answers at once
    assert log["exp_s2_lookup__valid"].sum() == taken.sum()


@pytest.mark.parametrize("name, scale", WORKLOADS)
def test_slice_amaranth(name, scale, tmp_path):
    """The first SLICE rows of each unit's log match the RTL in the Amaranth simulator."""
    results = cosim_units(list(UNITS), registry.build(name, scale), GPU, sim="amaranth",
                          build_dir=tmp_path, limit=SLICE)
    for r in results:
        assert r.rows == SLICE and r.ok, f"{name} {r.unit}: {r.mismatch}"


def test_slice_icarus_and_verilator(tmp_path):
    """The same kind of slice through the generated Verilog: cocotb on Icarus and the Verilator harness."""
    wl = registry.build("tian15/srad", 0.5)
    (icarus,) = cosim_units(["l1_tag_unit"], wl, GPU, sim="icarus", build_dir=tmp_path / "i", limit=5000)
    assert icarus.ok and icarus.rows == 5000, icarus.mismatch
    for r in cosim_units(list(UNITS), wl, GPU, sim="verilator", build_dir=tmp_path / "v"):
        assert r.ok and r.rows == r.log_rows >= SLICE, f"{r.unit}: {r.mismatch}"
