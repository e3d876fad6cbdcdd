"""Whole workloads on the timing model: per-kernel results, totals and the run's summary.

:func:`simulate_timed` is what :func:`golden.driver.simulate` runs for
``timing="cycle"``: the kernels one after another on one
:class:`~golden.gpu.model.TimingModel`, with the result in the same shape as
the interleaver's run plus a ``timing`` section (IPC, cycles, occupancy,
issue stalls, MSHR merges, reservation failures, DRAM, time series).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from golden.cache.hierarchy import Hierarchy
from golden.configs.schema import GPUConfig
from golden.errors import InputError
from golden.gpu import layout
from golden.gpu.model import KernelTiming, TimingModel, require_registers
from golden.gpu.state import N_SERIES, series_columns
from golden.policies.base import Policy
from golden.trace.model import Workload

__all__ = ["simulate_timed", "timing_summary", "latency_summary", "kernel_row", "resolve_dependences"]

_INSTRUCTIONS = ("instructions", "global_instructions", "shared_instructions", "other_memory_instructions")


def kernel_row(kernel, timing: KernelTiming) -> dict:
    """One kernel's entry of the run's ``kernels`` list."""
    c = timing.counters
    return {"name": kernel.name, "grid": list(kernel.grid), "block": list(kernel.block),
            **{f: c[f] for f in _INSTRUCTIONS}, "accesses": c["l1_accesses"], "cycles": timing.cycles,
            "ipc": round(timing.ipc, 4), "occupancy": round(_ratio(c["warp_cycles"], c["slot_cycles"]), 4)}


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def latency_summary(counters: dict, name: str) -> dict:
    """Latency ``name`` of ``layout.LATENCIES`` from a run's counters: its count, mean (cycles) and
    histogram on GPGPU-Sim's log2 bins (bin ``i``: ``2**i`` to ``2**(i + 1) - 1`` cycles, bin 0 also
    0), trailing empty bins left out."""
    n = counters[f"{name}_n"]
    bins = [counters[f"{name}_log2_{i}"] for i in range(layout.LATENCY_BINS)]
    while bins and not bins[-1]:
        bins.pop()
    return {"count": n, "mean": round(_ratio(counters[f"{name}_sum"], n), 2), "log2_bins": bins}


def timing_summary(counters: dict, cycles: int, series: np.ndarray) -> dict:
    """The ``timing`` section of a run's result from its summed counters."""
    c = counters
    stalls = {name: round(_ratio(c[f"stall_{name}"], c["issue_cycles"]), 4) for name in layout.STALLS}
    stalls["issued"] = round(_ratio(c["instructions"], c["issue_cycles"]), 4)
    return {
        "cycles": cycles,
        "ipc": round(_ratio(c["instructions"], cycles), 4),
        "occupancy": round(_ratio(c["warp_cycles"], c["slot_cycles"]), 4),
        "issue_slots": stalls,
        # Warps a policy blocks (SchedulerControl.blocked, either kind), over the SMs that have warps.
        "warps_per_busy_sm": round(_ratio(c["warp_cycles"], c["busy_sm_cycles"]), 3),
        "blocked_per_busy_sm": round(_ratio(c["blocked_warp_cycles"], c["busy_sm_cycles"]), 3),
        "avg_load_latency": round(_ratio(c["load_latency_sum"], c["loads_completed"]), 2),
        # A data request's round trip from the LD/ST unit to its response at the SM (GPGPU-Sim's
        # mf_lat_table) and a DRAM request's wait in the FR-FCFS window (its mrq_lat_table).
        "latency": {name: latency_summary(c, name) for name in layout.LATENCIES},
        "l1": {"accesses": c["l1_accesses"], "hits": c["l1_hits"],
               "hit_rate": round(_ratio(c["l1_hits"], c["l1_accesses"]), 4),
               "sector_misses": c["l1_sector_misses"], "mshr_merges": c["l1_mshr_merges"],
               "sectors": {"loads": c["l1_sector_loads"], "load_hits": c["l1_sector_load_hits"]},
               "bypassed_before_lookup": c["l1_bypassed"],
               "reservation_fails": {"mshr": c["l1_reservation_fails_mshr"],
                                     "merge": c["l1_reservation_fails_merge"],
                                     "miss_queue": c["l1_reservation_fails_queue"],
                                     "line": c["l1_reservation_fails_line"]}},
        "l2": {"accesses": c["l2_accesses"], "hits": c["l2_hits"],
               "hit_rate": round(_ratio(c["l2_hits"], c["l2_accesses"]), 4),
               "sector_misses": c["l2_sector_misses"], "mshr_merges": c["l2_mshr_merges"],
               "sectors": {"accesses": c["l2_sector_accesses"], "hits": c["l2_sector_hits"]},
               "reservation_fails": c["l2_reservation_fails"],
               # Of those, misses refused while the DRAM channel's queue was full (frfcfs).
               "reservation_fails_dram": c["l2_reservation_fails_dram"]},
        "dram": {"reads": c["dram_reads"], "writes": c["dram_writes"], "row_hits": c["dram_row_hits"],
                 "row_hit_rate": round(_ratio(c["dram_row_hits"], c["dram_reads"] + c["dram_writes"]), 4),
                 # Requests an FR-FCFS channel served before an older one to the same bank.
                 "reordered": c["dram_reordered"],
                 # Row commands of dram_model "commands" (0 under "requests").
                 "activates": c["dram_activates"], "precharges": c["dram_precharges"]},
        # The instruction cache (icache_bytes; zeros without one): warps' lookups of a new line, misses
        # (merges into a pending read included), merges, and its reads at the L2 (not in "l2" above).
        "icache": {"accesses": c["icache_accesses"], "misses": c["icache_misses"],
                   "merges": c["icache_merges"], "l2_accesses": c["l2_inst_accesses"],
                   "l2_hits": c["l2_inst_hits"]},
        # Shared-memory instructions, and with smem_unit "ldst" their bank accesses in the LD/ST unit
        # and the cycles of those beyond each instruction's first (GPGPU-Sim's gpgpu_n_shmem_bkconflict).
        "shared": {"instructions": c["shared_instructions"], "bank_accesses": c["shared_bank_accesses"],
                   "bank_conflicts": c["shared_bank_conflicts"]},
        "smem_cache": {"accesses": c["smem_cache_accesses"], "hits": c["smem_cache_hits"],
                       "hit_rate": round(_ratio(c["smem_cache_hits"], c["smem_cache_accesses"]), 4),
                       "migrations": c["smem_cache_migrations"], "evictions": c["smem_cache_evictions"]},
        "ctas": c["ctas_launched"], "barriers": c["barriers"], "self_check_fails": c["self_check_fails"],
        # The loop's shortcuts (docs/timing.md, "Speed"): SM-cycles skipped, those held by a failure,
        # and those of SMs without warps or work.
        "quiet_sm_cycles": c["quiet_sm_cycles"], "quiet_held_sm_cycles": c["quiet_held_sm_cycles"],
        "idle_sm_cycles": c["idle_sm_cycles"],
        # The loop's own work (docs/timing.md, "The loop's work counted"): what a run's speed follows.
        "loop": {"gpu_cycles_stepped": c["loop_gpu_cycles"], "sm_cycles_stepped": c["loop_sm_cycles"],
                 "sm_cycles_idle": c["loop_sm_cycles_idle"],
                 "events": {name[len("events_"):]: c[name] for name in layout.COUNTERS
                            if name.startswith("events_")}},
        # Policy blocks released so that the run goes on (docs/timing.md, "Policy blocks").
        "policy_releases": {"sm": c["policy_releases_sm"], "gpu": c["policy_releases_gpu"]},
        "series": {"columns": list(series_columns()), "rows": series.tolist()},
    }


def resolve_dependences(workload: Workload, dependences: str) -> str:
    """The dependence rule a run of ``workload`` uses: ``auto`` becomes ``registers`` or ``next-memory``.

    ``auto`` takes the trace's registers (``registers``) when every kernel carries
    them (``KernelTrace.consumers``: Accel-Sim imports), else ``next-memory``, the
    built-in emulators' documented consumer rule (``docs/timing.md``).

    Raises
    ------
    InputError
        For an unknown rule, or ``registers`` on a workload without registers (naming the kernel).
    """
    if dependences == "auto":
        with_registers = all(k.consumers is not None for k in workload.kernels)
        return "registers" if workload.kernels and with_registers else "next-memory"
    if dependences not in layout.DEPENDENCES:
        raise InputError(f"dependences: must be auto or one of {', '.join(layout.DEPENDENCES)}, "
                         f"not {dependences!r}")
    if dependences == "registers":
        for k in workload.kernels:
            require_registers(k, workload.name)
    return dependences


def simulate_timed(workload: Workload, gpu: GPUConfig, policy: Policy | None = None, *,
                   dependences: str = "auto", series_period: int = 1000, fixed_latency: int = -1,
                   on_progress: Callable[[int, int, int], None] | None = None,
                   self_check: bool = False) -> dict:
    """Run ``workload`` on the timing model of ``gpu`` with ``policy``.

    Parameters
    ----------
    workload : Workload
        The kernels, in launch order.
    gpu : GPUConfig
        The machine.
    policy : Policy, optional
        Cache-management policy (None: the baseline).
    dependences : str
        Dependence rule of loads: ``auto`` (:func:`resolve_dependences`) or one of
        :data:`golden.gpu.layout.DEPENDENCES`.
    series_period : int
        Cycles per time-series row.
    fixed_latency : int
        -1 for the full memory model; otherwise ideal memory with this load latency
        (:class:`~golden.gpu.model.TimingModel`).
    on_progress : callable, optional
        Called with (kernel index, CTAs retired, CTAs) as kernels advance.
    self_check : bool
        Check the loop's shortcuts while it runs (:func:`golden.gpu.state.config_vector`); the
        count of mismatches is ``timing.self_check_fails``.

    Returns
    -------
    dict
        ``{"kernels", "totals", "caches", "policy_stats", "timing"}`` (plain JSON values).
    """
    dependences = resolve_dependences(workload, dependences)
    hierarchy = Hierarchy(gpu, policy=policy)
    model = TimingModel(gpu, hierarchy, dependences=dependences, series_period=series_period,
                        fixed_latency=fixed_latency, self_check=self_check)
    kernels, timings = [], []
    for i, kernel in enumerate(workload.kernels):
        cb = None if on_progress is None else (lambda done, total, i=i: on_progress(i, done, total))
        timing = model.run_kernel(kernel, i, cb)
        timings.append(timing)
        kernels.append(kernel_row(kernel, timing))
    counters = {name: sum(t.counters[name] for t in timings) for name in layout.COUNTERS}
    cycles = sum(t.cycles for t in timings)
    totals = {key: sum(r[key] for r in kernels) for key in (*_INSTRUCTIONS, "accesses", "cycles")}
    totals["ipc"] = round(_ratio(totals["instructions"], cycles), 4)
    series = np.concatenate([t.series for t in timings]) if timings else np.zeros((0, N_SERIES), np.int64)
    caches = {level: {key: _plain(v) for key, v in s.items()} for level, s in hierarchy.stats().items()}
    return {"kernels": kernels, "totals": totals, "caches": caches,
            "policy_stats": {key: _plain(v) for key, v in hierarchy.policy.stats().items()},
            "timing": {**timing_summary(counters, cycles, series), "dependences": dependences,
                       # A warp limit (swl:N) at or above this never binds: the run is the unlimited one.
                       "peak_warps_per_sm": max((t.peak_sm_warps for t in timings), default=0)}}


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v
