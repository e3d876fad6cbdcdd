"""tian15's comparison: baseline 16 KB, PC-based 16 KB, counter-based 16 KB, baseline 32 KB.

For every workload the access stream is interleaved once (the interleaver
does not depend on the L1) and run through the four hierarchies kernel by
kernel. The rows hold the measurements of tian15's Figures 1, 6, 7, 8 and
11 (see :mod:`golden.metrics.tian15` for their definitions); the suite
average is the arithmetic mean over workloads, as the paper's "on average".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from golden.cache.hierarchy import Hierarchy
from golden.configs.schema import GPUConfig
from golden.driver import drive
from golden.metrics.tian15 import ReuseObserver, false_positives, l1_energy
from golden.policies.base import get_policy
from golden.trace.model import Workload

__all__ = ["CONFIGS", "PAPER", "PAPER_SPEEDUP", "compare_workload", "compare_workload_timed", "compare_named",
           "suite_average", "storage_overheads"]

#: The four configurations of tian15 Section 5.2, in the paper's order.
CONFIGS = ("baseline", "pc-bypass", "counter-bypass", "baseline-32KB")

#: The paper's suite-level figures, with their source.
PAPER = {
    "zero_reuse": (0.46, "tian15 Fig. 1: 46% on average, at most 84%"),
    "bypass_share": (0.58, "tian15 Fig. 6: 58% of misses bypassed on average"),
    "coverage": (0.586, "tian15 Fig. 11: coverage 58.6%"),
    "fp_rate": (0.12, "tian15 Sec. 5.3: false positives 12% (bypassed or replaced blocks)"),
    "fp_rate_sdbp": (0.01, "tian15 Sec. 5.3: 1% with SDBP's definition"),
    "energy_ratio": (0.75, "tian15 Fig. 7: 25% less L1 energy on average, 49% at most"),
    "counter_storage_kb": (10.626, "tian15 Sec. 4.1: counter-based predictor 10.626 KB per 16 KB L1"),
}


#: tian15 Fig. 9: speedup of PC-based bypassing over the 16 KB baseline where the text quotes it
#: (Section 5.2: "bfs 13%, spmv 9%, matrixmul 6%, backprop 4.3%, srad 4%"; PC-based beats the
#: 32 KB L1 on average).
PAPER_SPEEDUP = {"bfs": 1.13, "spmv": 1.09, "matrixmul": 1.06, "backprop": 1.043, "srad": 1.04}


@dataclass
class _Run:
    name: str
    policy: object
    hierarchy: Hierarchy
    outcomes: list


def _l1_32kb(gpu: GPUConfig) -> GPUConfig:
    return gpu.replace(l1=gpu.l1.replace(size=2 * gpu.l1.size))


def compare_workload(wl: Workload, gpu: GPUConfig, configs: tuple[str, ...] = CONFIGS,
                     policy_params: dict | None = None,
                     progress: Callable[[int], None] | None = None) -> dict:
    """Run ``wl`` in each configuration and measure what tian15 measures.

    Parameters
    ----------
    wl : Workload
        The workload.
    gpu : GPUConfig
        The 16 KB baseline machine (tian15 preset); the 32 KB one doubles its L1.
    configs : tuple of str
        A subset of :data:`CONFIGS`; ``"baseline"`` is always run (the reference).
    policy_params : dict, optional
        Per-policy parameters (``{"pc-bypass": {...}}``); default the config's.
    progress : callable, optional
        Called with the number of accesses done after each chunk.

    Returns
    -------
    dict
        One row: per-config L1 counters and the derived metrics.
    """
    params = gpu.policy_params if policy_params is None else policy_params
    names = ("baseline",) + tuple(c for c in configs if c != "baseline")
    runs = []
    for name in names:
        if name == "baseline":
            pol, machine = ReuseObserver(), gpu
        elif name == "baseline-32KB":
            pol, machine = None, _l1_32kb(gpu)
        else:
            pol, machine = get_policy(name, **params.get(name, {})), gpu
        runs.append(_Run(name, pol, Hierarchy(machine, pol), []))
    keep = [r.name in ("baseline", "pc-bypass") for r in runs]
    sms, lines = [], []

    def collect(chunk) -> None:
        for r, out in zip(runs, chunk.outcomes, strict=True):
            if out is not None:
                r.outcomes.append(out)
        sms.append(chunk.accesses["sm"])
        lines.append(chunk.accesses["line"])
        if progress:
            progress(len(chunk.accesses))

    kernels = drive(wl, gpu, [r.hierarchy for r in runs], outcomes=keep, on_chunk=collect)
    cycles = kernels[-1].end_cycle if kernels else 0
    by = {r.name: r for r in runs}
    l1 = {r.name: r.hierarchy.stats()["l1"] for r in runs}
    base = l1["baseline"]
    row = {"workload": wl.name, "accesses": base["accesses"], "cycles": int(cycles),
           "l1": l1, "zero_reuse": by["baseline"].policy.zero_reuse_share}
    for name in names[1:]:
        row[f"misses_norm_{name}"] = _ratio(l1[name]["read_misses"], base["read_misses"])
    e_base = l1_energy(base["accesses"], base["fills"], cycles, n_l1=gpu.n_sm)
    row["energy_baseline_nj"] = e_base
    if "pc-bypass" in by:
        pol = by["pc-bypass"].policy
        st = pol.stats()
        p = l1["pc-bypass"]
        row["predictor"] = st
        row["bypass_share"] = _ratio(p["bypasses"], p["read_misses"])
        row["coverage"] = st["coverage"]
        cat = np.concatenate
        row.update(false_positives(cat(sms), cat(lines), cat(by["baseline"].outcomes),
                                   cat(by["pc-bypass"].outcomes), st["bypass_predictions"]))
        table = st["table_lookups"] + st["table_increments"] + st["table_decrements"]
        e = l1_energy(p["accesses"], p["fills"], cycles, table_accesses=table, bypassing=True,
                      n_l1=gpu.n_sm)
        row["energy_pc_bypass_nj"] = e
        row["energy_ratio"] = _ratio(e["total"], e_base["total"])
        row["dynamic_energy_ratio"] = _ratio(e["dynamic"], e_base["dynamic"])
    return row


def compare_named(name: str, scale: float, gpu: GPUConfig, configs: tuple[str, ...] = CONFIGS,
                  timed: bool = False) -> dict:
    """:func:`compare_workload` (``timed``: :func:`compare_workload_timed`) on the built-in workload
    ``name`` at ``scale``: one task of ``gpucache compare --workers N``.
    """
    from golden.workloads import registry

    wl = registry.build(name, scale)
    row = (compare_workload_timed if timed else compare_workload)(wl, gpu, configs)
    return row


def compare_workload_timed(wl: Workload, gpu: GPUConfig, configs: tuple[str, ...] = CONFIGS,
                           policy_params: dict | None = None) -> dict:
    """Run ``wl`` in each configuration on the cycle-level timing model (tian15 Figs. 8 and 9).

    Every configuration runs on its own (misses in flight and latency feedback
    make each order different), so the false-positive and per-access metrics of
    :func:`compare_workload` are not measured here.

    Returns
    -------
    dict
        One row: per-config cycles, IPC and L1 counters; ``speedup_<config>``
        (IPC over the baseline's) and ``misses_norm_<config>`` (L1 load misses sent
        to the L2 over the baseline's; MSHR merges are not misses).
    """
    from golden.gpu.run import simulate_timed

    params = gpu.policy_params if policy_params is None else policy_params
    names = ("baseline",) + tuple(c for c in configs if c != "baseline")
    row: dict = {"workload": wl.name, "timing": {}}
    for name in names:
        if name == "baseline":
            pol, machine = None, gpu
        elif name == "baseline-32KB":
            pol, machine = None, _l1_32kb(gpu)
        else:
            pol, machine = get_policy(name, **params.get(name, {})), gpu
        r = simulate_timed(wl, machine, pol)
        t = r["timing"]
        row["timing"][name] = {"cycles": t["cycles"], "ipc": t["ipc"], "occupancy": t["occupancy"],
                               "l1_read_misses": r["caches"]["l1"]["read_misses"],
                               "l1_bypasses": r["caches"]["l1"]["bypasses"],
                               "l1_hit_rate": t["l1"]["hit_rate"], "l1_mshr_merges": t["l1"]["mshr_merges"],
                               "l2_hit_rate": t["l2"]["hit_rate"]}
    base = row["timing"]["baseline"]
    for name in names[1:]:
        run = row["timing"][name]
        row[f"speedup_{name}"] = _ratio(run["ipc"], base["ipc"])
        row[f"misses_norm_{name}"] = _ratio(run["l1_read_misses"], base["l1_read_misses"])
    return row


def _ratio(a: float, b: float) -> float:
    return a / b if b else 1.0


#: Row keys averaged over the suite.
AVERAGED = ("zero_reuse", "misses_norm_pc-bypass", "misses_norm_counter-bypass", "misses_norm_baseline-32KB",
            "bypass_share", "coverage", "fp_rate", "fp_rate_sdbp", "energy_ratio", "dynamic_energy_ratio",
            "speedup_pc-bypass", "speedup_counter-bypass", "speedup_baseline-32KB")


def suite_average(rows: list[dict]) -> dict:
    """Arithmetic mean over workloads of every metric in :data:`AVERAGED` (and the maxima tian15 quotes)."""
    out = {}
    for key in AVERAGED:
        vals = [r[key] for r in rows if key in r]
        if vals:
            out[key] = float(np.mean(vals))
    if any("zero_reuse" in r for r in rows):  # timed rows have no zero-reuse count
        out["zero_reuse_max"] = max(r["zero_reuse"] for r in rows if "zero_reuse" in r)
        if any("energy_ratio" in r for r in rows):
            out["energy_saving_max"] = 1 - min(r["energy_ratio"] for r in rows if "energy_ratio" in r)
    return out


def storage_overheads(gpu: GPUConfig, policy_params: dict | None = None) -> dict:
    """Extra storage of each technique for ``gpu``'s caches, in bytes (tian15 Section 4.1)."""
    params = gpu.policy_params if policy_params is None else policy_params
    pc = get_policy("pc-bypass", **params.get("pc-bypass", {}))
    bits = pc.storage_bits(gpu)
    cb = get_policy("counter-bypass", **params.get("counter-bypass", {}))
    cbits = cb.storage(gpu.l1)
    return {
        "pc-bypass": {"per_l1_bytes": sum(v for k, v in bits.items() if k.startswith("l1.")) / 8,
                      "l2_bytes": bits.get("l2.bypass_bits", 0) / 8, "detail_bits": bits},
        "counter-bypass": {"per_l1_bytes": cbits["total_bytes"], "detail_bits": cbits},
        "baseline-32KB": {"per_l1_bytes": gpu.l1.size},
    }
