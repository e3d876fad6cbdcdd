"""Whole-workload co-simulation: golden run -> transaction logs -> RTL replay.

The golden model runs a workload (interleaver + cache hierarchy + the
unit's policy, e.g. tian15's ``pc-bypass``); the policy's compiled hooks
record each unit's transaction log as they go; a replayer drives the log
into the RTL and compares every output every cycle.

Units (``UNITS``):

``l1_tag_unit``
    tian15's L1 tag and metadata unit of one SM (``sm``, default 0), with
    its embedded prediction table: one row per request, plus one per load
    miss for the L2's response.
``prediction_table``
    the same run seen at the table's ports: one row per L1 request cycle.
``bypass_bits``
    the L2 bypassBit store, shared by every SM: one row per L2 fill and one
    per L1 fill request.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from amaranth.lib import wiring

from golden.cache.hierarchy import Hierarchy
from golden.configs.schema import GPUConfig
from golden.errors import InputError
from golden.policies.pc_bypass import L1_LOG_COLUMNS, L2_LOG_COLUMNS, PCBypass
from golden.trace.interleave import interleave
from golden.trace.model import Workload
from golden.units.base import UnitModel
from golden.units.bypass_bits import BypassBits as BypassBitsModel
from golden.units.prediction_table import PredictionTable as PredictionTableModel
from synth.units import LINE_BITS, PredictorParams, build_unit
from tb.amaranth_sim import replay_amaranth
from tb.log import Mismatch

__all__ = ["UNITS", "SIMULATORS", "CosimUnit", "CosimResult", "record_logs", "replay", "cosim", "cosim_units"]

#: Replayers by name.
SIMULATORS = ("amaranth", "icarus", "verilator")
#: Accesses run between two log collections (bounds the log buffers).
CHUNK = 1 << 18


@dataclass(frozen=True)
class CosimUnit:
    """How to build a unit (RTL and golden model) and cut its log from the recorded rows."""

    name: str
    rtl: Callable[[GPUConfig, PCBypass], wiring.Component]
    model: Callable[[GPUConfig, PCBypass], UnitModel]
    extract: Callable[[np.ndarray, np.ndarray, UnitModel], np.ndarray]


def _params(p: PCBypass) -> PredictorParams:
    return PredictorParams.from_policy_params(vars(p))


def _to_log(rows: np.ndarray, columns: tuple[str, ...], model: UnitModel) -> np.ndarray:
    """int64 rows with named ``columns`` -> the model's log dtype plus ``ctx_access``."""
    dtype = np.dtype(model.log_dtype.descr + [("ctx_access", "<i8")])
    log = np.zeros(len(rows), dtype)
    for i, name in enumerate(columns):
        if name in dtype.names:
            log[name] = rows[:, i]
    return log


def _extract_l1(l1: np.ndarray, l2: np.ndarray, model: UnitModel) -> np.ndarray:
    return _to_log(l1, L1_LOG_COLUMNS, model)


def _extract_table(l1: np.ndarray, l2: np.ndarray, model: UnitModel) -> np.ndarray:
    req = l1[l1[:, L1_LOG_COLUMNS.index("req_valid")] == 1]
    log = _to_log(req, L1_LOG_COLUMNS, model)
    log["exp_lookup_bypass"] = req[:, L1_LOG_COLUMNS.index("exp_lookup_predict")]
    return log


def _extract_bits(l1: np.ndarray, l2: np.ndarray, model: UnitModel) -> np.ndarray:
    return _to_log(l2, L2_LOG_COLUMNS, model)


UNITS: dict[str, CosimUnit] = {
    "l1_tag_unit": CosimUnit(
        "l1_tag_unit",
        lambda gpu, p: build_unit("l1_tag_unit", gpu, _params(p)),
        lambda gpu, p: p.unit(LINE_BITS),
        _extract_l1),
    "prediction_table": CosimUnit(
        "prediction_table",
        lambda gpu, p: build_unit("prediction_table", gpu, _params(p)),
        lambda gpu, p: PredictionTableModel(entries=p.entries, width=p.counter_width,
                                            threshold=p.threshold),
        _extract_table),
    "bypass_bits": CosimUnit(
        "bypass_bits",
        lambda gpu, p: build_unit("bypass_bits", gpu, _params(p)),
        lambda gpu, p: BypassBitsModel(sets=gpu.l2.sets, ways=gpu.l2.assoc),
        _extract_bits),
}


def _chunks(workload: Workload, gpu: GPUConfig) -> Iterator[np.ndarray]:
    for part in interleave(workload, gpu):
        acc = part.accesses
        for i in range(0, len(acc), CHUNK):
            yield acc[i:i + CHUNK]


def record_logs(workload: Workload, gpu: GPUConfig, policy: PCBypass,
                progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray, dict]:
    """Run ``workload`` with ``policy`` (which must log an SM) and collect its logs.

    Returns
    -------
    l1, l2 : numpy.ndarray
        int64 rows with :data:`L1_LOG_COLUMNS` / :data:`L2_LOG_COLUMNS`.
    stats : dict
        The hierarchy's counters.
    """
    if policy.log_sm < 0:
        raise ValueError("the policy records no log: give it log_sm")
    if policy.log_sm >= gpu.n_sm:
        raise InputError(f"--sm {policy.log_sm} is not an SM of {gpu.name} (0..{gpu.n_sm - 1})")
    if policy.log_capacity < 2 * CHUNK:
        raise ValueError(f"log capacity must be at least {2 * CHUNK} rows")
    h = Hierarchy(gpu, policy)
    l1_parts, l2_parts = [], []
    for chunk in _chunks(workload, gpu):
        h.run(chunk)
        l1, l2 = policy.take_logs()
        l1_parts.append(l1)
        l2_parts.append(l2)
        if progress:
            progress(len(chunk))
    l1 = np.concatenate(l1_parts) if l1_parts else np.zeros((0, len(L1_LOG_COLUMNS)), np.int64)
    l2 = np.concatenate(l2_parts) if l2_parts else np.zeros((0, len(L2_LOG_COLUMNS)), np.int64)
    if len(l1) and l1[:, L1_LOG_COLUMNS.index("req_line")].max() >= 1 << LINE_BITS:
        raise InputError(f"workload {workload.name}: a line address exceeds the unit's {LINE_BITS} bits")
    return l1, l2, h.stats()


@dataclass(frozen=True)
class CosimResult:
    """Outcome of a co-simulation."""

    unit: str
    sim: str
    rows: int
    log_rows: int
    mismatch: Mismatch | None
    replay_seconds: float
    record_seconds: float

    @property
    def ok(self) -> bool:
        return self.mismatch is None and self.rows == self.log_rows

    @property
    def cycles_per_second(self) -> float:
        return self.rows / self.replay_seconds if self.replay_seconds > 0 else float("inf")


def replay(dut: wiring.Component, log: np.ndarray, sim: str,
           build_dir: str | Path) -> tuple[int, Mismatch | None, float]:
    """Replay ``log`` into ``dut`` with the named simulator: ``(rows, mismatch, seconds)``."""
    if sim == "amaranth":
        t0 = time.perf_counter()
        r = replay_amaranth(dut, log)
        return r.rows, r.mismatch, time.perf_counter() - t0
    if sim == "icarus":
        from tb.cocotb_replay import replay_cocotb

        t0 = time.perf_counter()
        r = replay_cocotb(dut, log, build_dir)
        return r.rows, r.mismatch, time.perf_counter() - t0
    if sim == "verilator":
        from tb.verilator import replay_verilator

        r = replay_verilator(dut, log, build_dir)
        return r.rows, r.mismatch, r.seconds
    raise InputError(f"--sim must be one of {', '.join(SIMULATORS)}, not {sim!r}")


def cosim_units(units: list[str], workload: Workload, gpu: GPUConfig, *, sim: str = "verilator",
                sm: int = 0, build_dir: str | Path = "build/cosim", limit: int | None = None,
                policy_params: dict | None = None,
                progress: Callable[[int], None] | None = None) -> list[CosimResult]:
    """Record the golden run of ``workload`` once and replay each unit's log into its RTL.

    Parameters
    ----------
    units : list of str
        Keys of :data:`UNITS`.
    workload : Workload
        The workload to run.
    gpu : GPUConfig
        Machine configuration (its L1/L2 give the units' geometry).
    sim : str
        One of :data:`SIMULATORS`.
    sm : int
        SM whose L1 unit is logged.
    build_dir : path-like
        Where simulators build (a subdirectory per unit).
    limit : int, optional
        Replay only the first ``limit`` log rows (for the slow simulators).
    policy_params : dict, optional
        Parameters of the ``pc-bypass`` policy.
    progress : callable, optional
        Called with the number of accesses after each chunk of the golden run.
    """
    unknown = [u for u in units if u not in UNITS]
    if unknown:
        raise InputError(f"unknown unit {unknown[0]!r}; units are {', '.join(UNITS)}")
    if sim not in SIMULATORS:
        raise InputError(f"--sim must be one of {', '.join(SIMULATORS)}, not {sim!r}")
    policy = PCBypass(**(policy_params or {}), log_sm=sm, log_capacity=2 * CHUNK)
    t0 = time.perf_counter()
    l1, l2, _ = record_logs(workload, gpu, policy, progress)
    record_seconds = time.perf_counter() - t0
    results = []
    for unit in units:
        spec = UNITS[unit]
        log = spec.extract(l1, l2, spec.model(gpu, policy))
        if limit is not None:
            log = log[:limit]
        rows, mismatch, seconds = replay(spec.rtl(gpu, policy), log, sim, Path(build_dir) / unit)
        results.append(CosimResult(unit, sim, rows, len(log), mismatch, seconds, record_seconds))
    return results


def cosim(unit: str, workload: Workload, gpu: GPUConfig, **options) -> CosimResult:
    """:func:`cosim_units` for one unit."""
    return cosim_units([unit], workload, gpu, **options)[0]
