"""Whole-workload slices: golden-run outcomes turned into the pipelined units' cycle logs.

The compiled policy (``golden/policies/pc_bypass.py``) records what each
request and L2 event did (tian15's one-request-at-a-time behaviour); the
unit modules' ``*_cycle_log`` functions turn that into the cycle log of the
pipelined RTL. Here they are checked against ``UnitModel.run`` row for
row, and replayed into the RTL with the three replayers.
"""

import numpy as np
import pytest

from golden.configs.presets import preset
from golden.policies.pc_bypass import L1_LOG_COLUMNS, L2_LOG_COLUMNS, PCBypass
from golden.units.bypass_bits import BypassBits, bits_cycle_log
from golden.units.l1_tag_unit import l1_cycle_log
from golden.units.prediction_table import PredictionTable, table_cycle_log
from golden.workloads import registry
from synth.units import LINE_BITS, PredictorParams, build_unit
from tb.amaranth_sim import replay_amaranth
from tb.cosim import CHUNK, record_logs

GPU = preset("tian15")
SLICE = 20_000
UNITS = ("l1_tag_unit", "prediction_table", "bypass_bits")
# Scales at which SM 0's L1 sees more than SLICE requests and the L2 store more than SLICE rows.
WORKLOADS = [("tian15/bfs", 0.02), ("tian15/srad", 0.5), ("tian15/lud", 0.5)]


def cycle_logs(policy, l1, l2):
    """The three units' cycle logs from the policy's recorded rows (requests and their L2 responses)."""
    c1 = {n: i for i, n in enumerate(L1_LOG_COLUMNS)}
    c2 = {n: i for i, n in enumerate(L2_LOG_COLUMNS)}
    reqi = np.flatnonzero(l1[:, c1["req_valid"]] == 1)
    req = l1[reqi]
    resp = l1[np.minimum(reqi + 1, len(l1) - 1)]  # a load miss's L2 response follows its request
    load_miss = (req[:, c1["exp_lookup_hit"]] == 0) & (req[:, c1["req_store"]] == 0)
    assert (resp[load_miss, c1["l2_valid"]] == 1).all()

    def col(rows, name):
        return rows[:, c1[name]]

    l1_model = policy.unit(LINE_BITS)
    table = PredictionTable(entries=policy.entries, width=policy.counter_width, threshold=policy.threshold)
    bits = BypassBits(sets=GPU.l2.sets, ways=GPU.l2.assoc)
    ctx = col(req, "ctx_access")
    logs = {
        "l1_tag_unit": l1_cycle_log(
            l1_model, col(req, "req_line"), col(req, "req_pc"), col(req, "req_store"),
            col(req, "exp_lookup_hit"), col(req, "exp_lookup_way"), col(req, "exp_lookup_predict"),
            col(resp, "l2_bit"), col(resp, "exp_fill_install"), col(resp, "exp_fill_way"), ctx),
        "prediction_table": table_cycle_log(
            table, col(req, "lookup_idx"), col(req, "exp_lookup_count"), col(req, "inc_en"),
            col(req, "inc_idx"), col(req, "dec_en"), col(req, "dec_idx"), ctx),
        "bypass_bits": bits_cycle_log(bits, *(l2[:, c2[k]] for k in (
            "req_valid", "req_set", "req_way", "req_bypass", "exp_resp_bit", "fill_valid", "fill_set",
            "fill_way", "ctx_access"))),
    }
    models = {"l1_tag_unit": policy.unit(LINE_BITS), "prediction_table": table, "bypass_bits": bits}
    return logs, models


@pytest.fixture(scope="module", params=WORKLOADS, ids=[w for w, _ in WORKLOADS])
def logs(request):
    name, scale = request.param
    policy = PCBypass(log_sm=0, log_capacity=2 * CHUNK)
    l1, l2, _ = record_logs(registry.build(name, scale), GPU, policy)
    logs, models = cycle_logs(policy, l1, l2)
    return name, logs, models


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
def test_slice_amaranth(name, scale):
    """The first SLICE rows of each unit's log match the RTL in the Amaranth simulator."""
    policy = PCBypass(log_sm=0, log_capacity=2 * CHUNK)
    l1, l2, _ = record_logs(registry.build(name, scale), GPU, policy)
    all_logs, _ = cycle_logs(policy, l1, l2)
    for unit in UNITS:
        r = replay_amaranth(build_unit(unit, GPU, PredictorParams()), all_logs[unit][:SLICE])
        assert r.rows == SLICE and r.ok, f"{name} {unit}: {r.mismatch}"


def test_slice_icarus_and_verilator(tmp_path):
    """The same kind of slice through the generated Verilog: cocotb on Icarus and the Verilator harness."""
    from tb.cocotb_replay import replay_cocotb
    from tb.verilator import replay_verilator

    policy = PCBypass(log_sm=0, log_capacity=2 * CHUNK)
    l1, l2, _ = record_logs(registry.build("tian15/srad", 0.5), GPU, policy)
    all_logs, _ = cycle_logs(policy, l1, l2)
    icarus = replay_cocotb(build_unit("l1_tag_unit", GPU, PredictorParams()), all_logs["l1_tag_unit"][:5000],
                           tmp_path / "i")
    assert icarus.ok and icarus.rows == 5000, icarus.mismatch
    for unit in UNITS:
        r = replay_verilator(build_unit(unit, GPU, PredictorParams()), all_logs[unit], tmp_path / unit)
        assert r.ok and r.rows == len(all_logs[unit]) >= SLICE, f"{unit}: {r.mismatch}"
