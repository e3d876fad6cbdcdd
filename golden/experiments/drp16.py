"""drp16's LLC read-miss comparison (Figures 2 and 14): every registered drp16 policy on the Table 3 mixes.

For each mix the input (:func:`golden.llc.mixes.build_mix`) runs through
:class:`~golden.llc.model.LLCModel` once per online policy (private caches
and inclusion included). The Baseline's run records its LLC access trace;
the offline policies (OPT, OPT+Bypass, Baseline+Bypass, and any policy
with an ``oracle`` flag) replay it, as drp16 does ("collecting an LLC
access trace for each heterogeneous workload mix and running the policies
offline", Section 4.1). Every policy registered under a ``drp16-`` name is
run, so policies added later (DRP, HeLM) appear without change here
(except the wrappers of :data:`WRAPPERS`).

A mix's figure for a policy is its LLC read misses over the Baseline's
(SRRIP with drp16's write rules), split into the CPU and GPU parts (each
over the Baseline's total, so the parts add up to the bar, as in the
paper's stacked bars). The configuration's figure is the arithmetic mean
over its mixes (drp16: "averaged over the ... heterogeneous workloads").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from golden.configs.schema import CacheConfig
from golden.errors import InputError
from golden.llc.mixes import build_mix, get_mix, gpu_stream, mix_names
from golden.llc.model import L1_CONFIG, L2_CONFIG, LLC_CONFIG, LLCModel
from golden.policies.base import get_policy, policy_names

__all__ = ["BASELINE", "PAPER", "WRAPPERS", "caches", "drp16_policies", "run_mix", "run_suite",
           "config_average"]

#: The reference of every normalisation (drp16's "Baseline").
BASELINE = "drp16-baseline"
#: Policies replaying the Baseline's recorded LLC trace.
_OFFLINE = ("drp16-opt", "drp16-opt-bypass")
#: Order of the paper's bars (Fig. 2 then Fig. 14); other policies follow, sorted.
_ORDER = ("drp16-baseline", "drp16-nru", "drp16-drrip", "drp16-tadrrip", "drp16-ship-mem",
          "drp16-ship-hybrid", "drp16-baseline-bypass", "drp16-opt", "drp16-opt-bypass", "drp16-helm",
          "drp16-drp")

#: Registered ``drp16-`` policies that only wrap another: ``drp16-wss`` runs an inner policy unchanged
#: (the Baseline's misses) to record the WSS unit's transactions.
WRAPPERS = ("drp16-wss",)

#: The paper's average normalised LLC read misses per configuration (1C1G, 2C1G, 4C1G).
PAPER = {
    "drp16-ship-hybrid": ((0.93, 0.92, 0.89), "drp16 Sec. 4.1 and Fig. 2: SHiP-hybrid saves 7%, 8%, 11%"),
    "drp16-opt": ((0.62, 0.66, 0.70), "drp16 Sec. 4.1 and Fig. 2: OPT saves 38%, 34%, 30%"),
    "drp16-drp": ((0.87, 0.88, 0.87), "drp16 Sec. 6 and Fig. 14: DRP saves 13%, 12%, 13%"),
}


def drp16_policies() -> list[str]:
    """Every registered ``drp16-`` policy, the Baseline first, in the paper's order where it has one.

    Wrappers (:data:`WRAPPERS`) are left out.
    """
    names = [n for n in policy_names() if n.startswith("drp16-") and n not in WRAPPERS]
    known = [n for n in _ORDER if n in names]
    return known + sorted(set(names) - set(known))


def _offline(policy) -> bool:
    return policy.name in _OFFLINE or bool(getattr(policy, "oracle", False))


def caches(scale: float) -> tuple[CacheConfig, CacheConfig, CacheConfig]:
    """drp16 Section 3's LLC, L1 and L2, sizes times ``scale`` (sets rounded down to a power of 2).

    Raises
    ------
    InputError
        For a scale that is not a positive number.
    """
    if not isinstance(scale, float | int) or not scale > 0:
        raise InputError(f"scale: must be a positive number, not {scale!r}")

    def sized(cfg: CacheConfig) -> CacheConfig:
        sets = max(1, int(cfg.sets * scale))
        return cfg.replace(size=(1 << (sets.bit_length() - 1)) * cfg.assoc * cfg.line_size)

    return sized(LLC_CONFIG), sized(L1_CONFIG), sized(L2_CONFIG)


def run_mix(name: str, scale: float = 1.0, seed: int = 0, policies: list[str] | None = None,
            gpu: np.ndarray | None = None) -> dict:
    """Run one mix under every policy; returns its row (read misses and normalised figures per policy).

    Raises
    ------
    InputError
        For an unknown mix or policy, or an LLC too small for a policy's dueling groups.
    """
    mix = get_mix(name)
    names = policies or drp16_policies()
    if BASELINE not in names:
        names = [BASELINE] + list(names)
    llc, l1, l2 = caches(scale)
    trace = build_mix(mix, scale, seed, gpu)
    recorded = None
    out: dict = {}
    for pname in [BASELINE] + [n for n in names if n != BASELINE]:
        policy = get_policy(pname)
        if _offline(policy):
            policy.prepare(recorded)
            m = LLCModel(mix.cores, policy, llc=llc, l1=l1, l2=l2, private=False)
            m.run(recorded)
        else:
            m = LLCModel(mix.cores, policy, llc=llc, l1=l1, l2=l2)
            rec = m.run(trace, record=pname == BASELINE)
            if rec is not None:
                recorded = rec
        s = m.stats()
        out[pname] = {"read_misses": s["read_misses"], "cpu": s["cpu_read_misses"],
                      "gpu": s["gpu_read_misses"], "llc_accesses": m.llc_accesses}
    base = max(out[BASELINE]["read_misses"], 1)
    for r in out.values():
        r["norm"], r["norm_cpu"], r["norm_gpu"] = r["read_misses"] / base, r["cpu"] / base, r["gpu"] / base
    return {"mix": name, "cores": mix.cores, "gpu": mix.gpu, "cpu": list(mix.cpu), "rows": int(trace.size),
            "llc_accesses": out[BASELINE]["llc_accesses"], "policies": out}


def config_average(rows: list[dict]) -> dict:
    """Per policy, the mean over mixes of the normalised read misses (total, CPU part, GPU part)."""
    out = {}
    for p in rows[0]["policies"] if rows else ():
        vals = [r["policies"][p] for r in rows]
        out[p] = {k: float(np.mean([v[k] for v in vals])) for k in ("norm", "norm_cpu", "norm_gpu")}
    return out


def run_suite(cores: list[int], scale: float = 1.0, seed: int = 0, policies: list[str] | None = None,
              mixes: list[str] | None = None, progress: Callable[[str], None] | None = None) -> dict:
    """Run the mixes of each configuration; returns ``{"configs": {cores: {"rows", "average"}}}``.

    The GPU workload of row ``n`` is built once and shared by Sn, Dn and Qn.
    """
    gpus: dict[int, np.ndarray] = {}
    result: dict = {"configs": {}}
    for c in cores:
        names = [m for m in mix_names(c) if mixes is None or m in mixes]
        rows = []
        for name in names:
            mix = get_mix(name)
            if mix.row not in gpus:
                gpus[mix.row] = gpu_stream(mix.gpu, scale, seed + mix.row)
            rows.append(run_mix(name, scale, seed, policies, gpus[mix.row]))
            if progress:
                progress(name)
        result["configs"][c] = {"label": f"{c}C1G", "rows": rows, "average": config_average(rows)}
    return result

