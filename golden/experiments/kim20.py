"""kim20's comparison on the timing model: no bypass, L1 off, miss-rate-only k, two-level.

Every configuration runs the workload on its own on the cycle-level timing model
(``golden.gpu.run.simulate_timed``); the rows carry the analogues of kim20's figures:

* Fig. 1: the baseline's L1 miss rate (1 - hits / lookups; MSHR merges and sector misses are
  misses, stores included) and warp occupancy (resident warps / warp slots over all SMs' cycles).
* Fig. 3: IPC of L1-off and of miss-rate-only bypassing at each k, over the baseline's.
* Fig. 4: IPC of two-level bypassing over the baseline's.
* Fig. 5: two-level's L1 accesses and misses (B-mode loads never look the L1 up) over the
  baseline's accesses, the share of L1 requests bypassed, and the miss rate's change.
"""

from __future__ import annotations

import numpy as np

from golden.configs.schema import GPUConfig
from golden.policies.base import get_policy
from golden.policies.kim20 import MAX_CANDIDATES
from golden.trace.model import Workload

__all__ = ["CONFIGS", "K_VALUES", "PAPER", "B_MODE", "compare_workload", "compare_named", "suite_average",
           "vary_two_level"]

#: Miss-rate thresholds of Fig. 3.
K_VALUES = (0.6, 0.7, 0.8, 0.9)

#: Configurations: display name -> registered policy (None: the baseline, no bypass).
CONFIGS = {"no-bypass": None, "l1-off": "kim20-l1-off",
           **{f"k{k}": f"kim20-miss-rate:{k}" for k in K_VALUES}, "two-level": "kim20-two-level"}

#: kim20's numbers (Section 2 and 4; Figs. 1, 3, 4, 5).
PAPER = {
    "miss_rate": ({"cf": 0.046, "pf": 0.99, "ms": 0.95, "stc": 0.73, "lud": 0.72, "shfl": 0.68},
                  "Fig. 1 / Sec. 2: L1D miss rates"),
    "occupancy": ({"spmv": 0.89, "bt": 0.84, "stc": 0.93, "lud": 0.18},
                  "Fig. 1 / Sec. 2: warp occupancy; the bypass-friendly ones (adi, nw, lud, jcb1d, shfl, "
                  "sqn) "
                  "below 46-50%"),
    "speedup_k0.9": (1.025, "Fig. 3: miss-rate-only bypassing with k = 0.9, +2.5% IPC on average"),
    "speedup_two-level": (1.061, "Fig. 4: two-level bypassing, +6.1% IPC on average"),
    "speedup_two-level_per": ({"pf": 1.046, "ms": 1.056, "spmv": 1.0, "bt": 1.0, "stc": 1.0, "cf": 1.0},
                              "Fig. 4: PF +4.6%, MS +5.6%; SPMV, BT, STC, CF about unharmed"),
    "bypassed_share": (0.60, "Fig. 5: 60% of requests bypassed on average"),
    "bypassed_share_b": (0.90, "Fig. 5: 90% for the B-mode benchmarks (adi, pf, nw, lud, jcb1d, ms, shfl, "
                               "sqn)"),
    "miss_rate_delta": (0.069, "Fig. 5: miss rate +6.9% on average; NW +15%, LUD +36%"),
    "miss_rate_delta_per": ({"nw": 0.15, "lud": 0.36}, "Fig. 5: NW +15%, LUD +36%"),
}

#: kim20's B-mode benchmarks (Fig. 5).
B_MODE = ("adi", "pf", "nw", "lud", "jcb1d", "ms", "shfl", "sqn")


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def _summary(r: dict) -> dict:
    """What the figures need of one timed run."""
    t, ps = r["timing"], r["policy_stats"]
    return {"cycles": t["cycles"], "ipc": t["ipc"], "occupancy": t["occupancy"],
            "l1_accesses": t["l1"]["accesses"], "l1_hits": t["l1"]["hits"],
            "bypassed": t["l1"]["bypassed_before_lookup"],
            "decisions_b": ps.get("decisions_b", 0), "decisions_c": ps.get("decisions_c", 0)}


def compare_workload(wl: Workload, gpu: GPUConfig, configs: tuple[str, ...] = tuple(CONFIGS),
                     policy_params: dict | None = None, *, reuse: bool = True) -> dict:
    """Run ``wl`` in each configuration on the timing model; one row of every figure's metrics.

    Parameters
    ----------
    wl : Workload
        The workload.
    gpu : GPUConfig
        The machine (kim20's preset for the paper's figures).
    configs : tuple of str
        Names of :data:`CONFIGS` ("no-bypass" always runs: the normalisations need it).
    policy_params : dict, optional
        Per-policy parameters (``{"kim20-two-level": {...}}``); default the config's.
    reuse : bool
        Skip the runs that would repeat one already made (default). The sampling policies act
        only through their decisions, so a configuration whose thresholds decide as a run's at
        every decision of that run follows it cycle for cycle. The baseline runs as a *shadow*
        (sampling and deciding, never bypassing) that checks every sampling configuration's
        thresholds: those deciding C everywhere are the baseline; each other one runs with the
        rest as candidates (``Kim20TwoLevel``'s ``candidates``). A reused run records
        ``"reused_from"``; ``reuse=False`` runs every configuration (the tests compare the two).
    """
    from golden.gpu.run import simulate_timed

    params = gpu.policy_params if policy_params is None else policy_params
    names = ("no-bypass",) + tuple(c for c in configs if c != "no-bypass")

    def policy(name: str, **extra):
        pname = CONFIGS[name]
        return get_policy(pname, **{**params.get(pname.split(":")[0], {}), **extra})

    def sampling_key(pol) -> tuple:
        return pol.window, pol.min_accesses, pol.merged_misses

    row: dict = {"workload": wl.name, "runs": {}}
    runs = row["runs"]

    def run_with(name: str, make, pending: list[str]) -> list[str]:
        """Run ``make(candidates)`` as ``name``; fill in the runs of ``pending`` it makes needless.

        Returns the names of ``pending`` still to run.
        """
        probe = None if make is None else make(())
        # Only a policy that samples and decides can vouch for others (not the baseline, not L1 off).
        key = None if probe is None or probe.always else sampling_key(probe)
        cands = [n for n in pending if sampling_key(policy(n)) == key][:MAX_CANDIDATES] if key else []
        pol = None if make is None else make(tuple(policy(n).thresholds for n in cands))
        r = simulate_timed(wl, gpu, pol)
        runs[name] = _summary(r)
        agree = r["policy_stats"].get("candidates_agree", 0)
        for j, n in enumerate(cands):
            if agree >> j & 1:
                runs[n] = {**runs[name], "reused_from": name}
        return [n for n in pending if n not in runs]

    left = [n for n in names if CONFIGS[n] is not None and n != "l1-off"] if reuse else []
    if left:
        # The baseline as a shadow of the sampling configurations: it decides (C always), never bypasses.
        first = policy(left[0])
        left = run_with("no-bypass", lambda c: get_policy(
            "kim20-two-level", window=first.window, min_accesses=first.min_accesses,
            merged_misses=first.merged_misses, shadow=True, candidates=c), left)
        runs["no-bypass"]["decisions_b"] = runs["no-bypass"]["decisions_c"] = 0
    else:
        run_with("no-bypass", None, [])
    for name in names[1:]:
        if name not in runs:
            left = run_with(name, lambda c, name=name: policy(name, candidates=c),
                            [n for n in left if n != name])
    base = row["runs"]["no-bypass"]
    row["miss_rate"] = 1 - _ratio(base["l1_hits"], base["l1_accesses"])
    row["occupancy"] = base["occupancy"]
    for name in names[1:]:
        row[f"speedup_{name}"] = _ratio(row["runs"][name]["ipc"], base["ipc"])
    if "two-level" in row["runs"]:
        two = row["runs"]["two-level"]
        used = two["l1_accesses"]  # B-mode loads never reach the L1 (on_lookup)
        misses = two["l1_accesses"] - two["l1_hits"]
        row["accesses_norm"] = _ratio(used, base["l1_accesses"])
        row["misses_norm"] = _ratio(misses, base["l1_accesses"])
        row["bypassed_share"] = _ratio(two["bypassed"], two["l1_accesses"] + two["bypassed"])
        row["miss_rate_two_level"] = _ratio(misses, used)
        row["miss_rate_delta"] = row["miss_rate_two_level"] - row["miss_rate"]
        row["b_share"] = _ratio(two["decisions_b"], two["decisions_b"] + two["decisions_c"])
    return row


def compare_named(name: str, scale: float, gpu: GPUConfig, vary: tuple[str, list] | None = None) -> dict:
    """:func:`compare_workload` on the built-in workload ``name`` at ``scale`` (a task for a worker).

    With ``vary`` (field, values), also :func:`vary_two_level` into ``row["vary"]``.
    """
    from golden.workloads import registry

    wl = registry.build(name, scale)
    row = compare_workload(wl, gpu)
    if vary:
        row["vary"] = vary_two_level(wl, gpu, *vary, base_ipc=row["runs"]["no-bypass"]["ipc"])
    return row


def suite_average(rows: list[dict]) -> dict:
    """Arithmetic means over workloads of every numeric metric (IPC ratios: geometric means too)."""
    out: dict = {}
    keys = sorted({k for r in rows for k, v in r.items() if isinstance(v, float)})
    for key in keys:
        vals = [r[key] for r in rows if key in r]
        out[key] = float(np.mean(vals))
        if key.startswith("speedup_"):
            out[f"geomean_{key}"] = float(np.exp(np.mean(np.log(vals))))
    b = [r["bypassed_share"] for r in rows
         if "bypassed_share" in r and r["workload"].split("/")[-1] in B_MODE]
    if b:
        out["bypassed_share_b"] = float(np.mean(b))
    return out


def vary_two_level(wl: Workload, gpu: GPUConfig, field: str, values: list, *, base_ipc: float) -> dict:
    """Two-level bypassing on ``wl`` with ``field`` (a policy parameter) at each of ``values``.

    Returns ``{"field", "values", "ipc", "speedup", "b_share"}`` (speedup over ``base_ipc``).
    """
    from golden.gpu.run import simulate_timed

    params = dict(gpu.policy_params.get("kim20-two-level", {}))
    out: dict = {"field": field, "values": list(values), "ipc": [], "speedup": [], "b_share": []}
    for v in values:
        r = simulate_timed(wl, gpu, get_policy("kim20-two-level", **{**params, field: v}))
        ps = r["policy_stats"]
        out["ipc"].append(r["timing"]["ipc"])
        out["speedup"].append(_ratio(r["timing"]["ipc"], base_ipc))
        out["b_share"].append(ps["b_share"])
    return out
