"""Whole-workload co-simulation: golden run -> transactions -> cycle logs -> RTL replay.

The golden model runs a workload (``golden.driver``: interleaver + cache
hierarchy + the unit's policy); the policy's compiled hooks record each
unit's transactions as they go; the unit model lays them out cycle by cycle
(``UnitModel.cycle_log``); a replayer drives the log into the RTL and
compares every output every cycle. Which policy records which unit's log,
and how both sides are built, comes from the unit catalog (``catalog``):
nothing here is specific to a technique.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from amaranth.lib import wiring

from catalog.registry import UnitSpec, get_unit, policy_for, require_policy
from golden.cache.hierarchy import Hierarchy
from golden.configs.schema import GPUConfig
from golden.driver import CHUNK, drive
from golden.errors import InputError
from golden.llc.model import LLCModel
from golden.policies.base import Policy, get_policy
from golden.trace.model import Workload
from golden.units.base import UnitModel
from tb.amaranth_sim import replay_amaranth
from tb.log import Mismatch

__all__ = ["SIMULATORS", "CosimResult", "record_transactions", "record_llc_transactions", "unit_log",
           "replay", "cosim", "cosim_units", "cosim_llc", "BENCH_HEADER", "bench_row"]

#: Replayers by name.
SIMULATORS = ("amaranth", "icarus", "verilator")


def record_transactions(workload: Workload, gpu: GPUConfig, policy: Policy,
                        progress: Callable[[int], None] | None = None) -> tuple[dict[str, np.ndarray], dict]:
    """Run ``workload`` with ``policy`` (which must be recording) and collect its transactions.

    The policy's logs must hold a chunk's transactions (``golden.driver.CHUNK``
    accesses; pc-bypass records at most two per access).

    Returns
    -------
    transactions : dict of str to numpy.ndarray
        Per recorder of the policy, every transaction of the run in order.
    stats : dict
        The hierarchy's counters.
    """
    h = Hierarchy(gpu, policy)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in policy.recorders}

    def collect() -> None:
        for name, rows in policy.take_transactions().items():
            parts[name].append(rows)

    def on_chunk(chunk) -> None:
        collect()
        if progress:
            progress(len(chunk.accesses))

    drive(workload, gpu, [h], chunk=CHUNK, on_chunk=on_chunk)
    collect()  # nothing new, but every recorder's dtype even for an empty run
    return {name: np.concatenate(p) for name, p in parts.items()}, h.stats()


def record_llc_transactions(trace: np.ndarray, cores: int, policy: Policy, *, chunk: int = 1 << 18,
                            progress: Callable[[int], None] | None = None
                            ) -> tuple[dict[str, np.ndarray], dict]:
    """Run a stream-labelled trace through drp16's LLC model (``golden.llc``) with a recording ``policy``.

    The trace (``golden.llc.model.LLC_TRACE_DTYPE`` rows) runs in chunks of
    ``chunk`` rows; the policy's logs must hold a chunk's transactions (a
    row makes at most three LLC accesses).

    Returns
    -------
    transactions : dict of str to numpy.ndarray
        Per recorder of the policy, every transaction of the run in order.
    stats : dict
        The LLC model's counters.
    """
    model = LLCModel(cores, policy)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in policy.recorders}
    for i in range(0, len(trace), chunk):
        model.run(trace[i:i + chunk])
        for name, rows in policy.take_transactions().items():
            parts[name].append(rows)
        if progress:
            progress(min(chunk, len(trace) - i))
    for name, rows in policy.take_transactions().items():
        parts[name].append(rows)
    return {name: np.concatenate(p) for name, p in parts.items()}, model.stats()


def unit_log(spec: UnitSpec, model: UnitModel, transactions: dict[str, np.ndarray],
             workload: Workload | str) -> np.ndarray:
    """The unit's cycle log from the recorded transactions, with every input checked against its width.

    ``workload`` (or its name) is named in the error.

    Raises
    ------
    InputError
        If a value does not fit its port (e.g. a line address wider than the unit's).
    """
    log = model.cycle_log(transactions[spec.recorder])
    for port, width in model.inputs.items():
        if len(log) and int(log[port].max()) >= 1 << width:
            name = getattr(workload, "name", workload)
            raise InputError(f"workload {name}: {spec.name}.{port} needs more than its {width} bits "
                             f"(value {int(log[port].max())})")
    return log


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


#: Header of the co-simulation benchmarks' tables (:func:`bench_row`).
BENCH_HEADER = (f"{'workload':<20}{'unit':<19}{'rows':>12}{'mism.':>6}{'golden s':>10}{'replay s':>10}"
                f"{'cycles/s':>13}")


def bench_row(workload: str, r: CosimResult) -> str:
    """One row of a co-simulation benchmark's table (:data:`BENCH_HEADER`), the first mismatch below it."""
    line = (f"{workload:<20}{r.unit:<19}{r.rows:>12,}{int(r.mismatch is not None):>6}"
            f"{r.record_seconds:>10.1f}{r.replay_seconds:>10.2f}{r.cycles_per_second:>13,.0f}")
    return line if r.mismatch is None else f"{line}\n  {r.mismatch}"


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
                progress: Callable[[int], None] | None = None,
                policy: str | None = None) -> list[CosimResult]:
    """Record the golden run of ``workload`` once per policy and replay each unit's log into its RTL.

    Parameters
    ----------
    units : list of str
        Catalog names of the units.
    workload : Workload
        The workload to run.
    gpu : GPUConfig
        Machine configuration (its caches give the units' geometry, its
        ``policy_params`` the policies' parameters).
    sim : str
        One of :data:`SIMULATORS`.
    sm : int
        SM whose private units are logged.
    build_dir : path-like
        Where simulators build (a subdirectory per unit).
    limit : int, optional
        Replay only the first ``limit`` log rows (for the slow simulators).
    progress : callable, optional
        Called with the number of accesses after each chunk of a golden run.
    policy : str, optional
        Record with this policy instead of each unit's own (it must record every unit named).
    """
    specs = [get_unit(u) for u in units]
    for spec in specs:
        require_policy(spec)
    if sim not in SIMULATORS:
        raise InputError(f"--sim must be one of {', '.join(SIMULATORS)}, not {sim!r}")
    if not 0 <= sm < gpu.n_sm:
        raise InputError(f"--sm {sm} is not an SM of {gpu.name} (0..{gpu.n_sm - 1})")
    recorded: dict[str, tuple[Policy, dict[str, np.ndarray], float]] = {}
    results = []
    for spec in specs:
        name = policy or spec.policy
        if name not in recorded:
            p = policy_for(spec, gpu, name, log_sm=sm, log_capacity=2 * CHUNK)
            t0 = time.perf_counter()
            tx, _ = (spec.record or record_transactions)(workload, gpu, p, progress)
            recorded[name] = (p, tx, time.perf_counter() - t0)
        p, tx, record_seconds = recorded[name]
        if policy is not None and spec.name not in p.units():
            raise InputError(f"--policy {name} does not record unit {spec.name} (its units: "
                             f"{', '.join(p.units()) or 'none'})")
        results.append(_replay_unit(spec, gpu, p, tx, workload, sim, build_dir, limit, record_seconds))
    return results


def _replay_unit(spec: UnitSpec, gpu: GPUConfig | None, policy: Policy, tx: dict[str, np.ndarray],
                 workload: Workload | str, sim: str, build_dir: str | Path, limit: int | None,
                 record_seconds: float) -> CosimResult:
    """Lay out the unit's cycle log from ``tx`` and replay it (the first ``limit`` rows) into its RTL."""
    log = unit_log(spec, spec.model(gpu, policy), tx, workload)
    if limit is not None:
        log = log[:limit]
    rows, mismatch, seconds = replay(spec.rtl(gpu, policy), log, sim, Path(build_dir) / spec.name)
    return CosimResult(spec.name, sim, rows, len(log), mismatch, seconds, record_seconds)


def cosim_llc(unit: str, trace: np.ndarray, cores: int, *, name: str = "llc trace", sim: str = "verilator",
              build_dir: str | Path = "build/cosim", limit: int | None = None, chunk: int = 1 << 18,
              progress: Callable[[int], None] | None = None, **params) -> CosimResult:
    """Co-simulate a unit fed by drp16's LLC (``golden.llc``): record a trace's run, replay the unit's log.

    Parameters
    ----------
    unit : str
        Catalog name of the unit (its policy must act on the ``"llc"`` level).
    trace : numpy.ndarray
        ``golden.llc.model.LLC_TRACE_DTYPE`` rows.
    cores : int
        CPU cores of the LLC model.
    name : str
        What the trace is (named in errors).
    sim, build_dir, limit :
        As :func:`cosim_units`.
    chunk : int
        Rows per LLC model run between two takes of the transactions.
    **params
        Extra parameters of the unit's policy.
    """
    spec = get_unit(unit)
    if sim not in SIMULATORS:
        raise InputError(f"--sim must be one of {', '.join(SIMULATORS)}, not {sim!r}")
    policy = get_policy(require_policy(spec), log_sm=0, log_capacity=3 * chunk, **params)
    t0 = time.perf_counter()
    tx, _ = record_llc_transactions(trace, cores, policy, chunk=chunk, progress=progress)
    return _replay_unit(spec, None, policy, tx, name, sim, build_dir, limit, time.perf_counter() - t0)


def cosim(unit: str, workload: Workload, gpu: GPUConfig, **options) -> CosimResult:
    """:func:`cosim_units` for one unit."""
    return cosim_units([unit], workload, gpu, **options)[0]
