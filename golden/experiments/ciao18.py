"""ciao18's comparison (Fig. 8): IPC of each scheduler normalised to GTO, per benchmark and per class.

Schedulers (:data:`SCHEDULERS`): ``gto`` (the ciao18 preset's baseline),
``ccws``, ``ciao-t``, ``ciao-p`` and ``ciao-c`` (``golden/policies/ciao18.py``;
CIAO-P and CIAO-C use the timing model's shared-memory cache), ``best-swl``
(GTO with the warp limit that :func:`profile_best_swl` finds best for the
benchmark), ``statpcal`` (``golden/policies/statpcal.py``, with Best-SWL's
limit as its token count). ``docs/policies/ciao18.md`` has every parameter.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable

from golden.configs.schema import GPUConfig
from golden.gpu.model import DeadlockError
from golden.gpu.run import simulate_timed
from golden.policies import get_policy
from golden.workloads import registry
from golden.workloads.registry import Workload

__all__ = ["SCHEDULERS", "PAPER_FIG8", "CLASSES", "TIME_SERIES", "FIG12", "PAPER_FIG12", "fig12_machine",
           "fig12_workload", "geomean", "swl_points", "run_point", "profile_best_swl", "best_point",
           "compare_workload", "class_means"]

#: Every scheduler of Fig. 8, in the paper's order.
SCHEDULERS = ("gto", "ccws", "best-swl", "statpcal", "ciao-t", "ciao-p", "ciao-c")
#: ciao18 Fig. 8 / Section V-B: geometric-mean IPC over GTO of all benchmarks.
PAPER_FIG8 = {"ccws": 1.02, "best-swl": 1.16, "statpcal": 1.24, "ciao-t": 1.34, "ciao-p": 1.34,
              "ciao-c": 1.56}
#: Table II's classes.
CLASSES = ("LWS", "SWS", "CI")
#: The benchmarks of Figs. 9 and 10's time series.
TIME_SERIES = ("atax", "backprop", "syrk", "kmn")
#: ciao18 Fig. 12 (Section V-E): each point's scheduler and machine change. GTO-cap: a 48 KB L1D
#: (GPGPU-Sim's 48 KB GTX 480 L1D: 64 sets x 6 ways) and 16 KB of shared memory; GTO-8way: the
#: 16 KB L1D 8-way; "2x": twice the DRAM bandwidth (bytes per DRAM cycle; 177 to 354 GB/s).
FIG12 = {"gto-cap": ("gto", {"l1": {"size": 48 * 1024, "assoc": 6}, "shared_mem_bytes": 16 * 1024}),
         "gto-8way": ("gto", {"l1": {"assoc": 8}}),
         "statpcal-2x": ("statpcal", {"dram_x": 2}),
         "ciao-c": ("ciao-c", {}),
         "ciao-c-2x": ("ciao-c", {"dram_x": 2})}
#: ciao18 Section V-E, over GTO on the LWS and SWS benchmarks: GTO-cap +108%, GTO-8way +51%,
#: CIAO-C 14% over GTO-cap (2.08 x 1.14 = 2.37; 57% over GTO-8way gives the same), and
#: CIAO-C-2X 16% over statPCAL-2X (a ratio of the two, not over GTO).
PAPER_FIG12 = {"gto-cap": 2.08, "gto-8way": 1.51, "ciao-c": 2.37, "ciao-c-2x / statpcal-2x": 1.16}


def swl_points(workload: str, gpu: GPUConfig, limits: Iterable[int] | None = None) -> list[dict]:
    """Best-SWL's profiling points of ``workload``: one per warp limit (default 1 .. ``max_warps_per_sm``).

    Each point is ``{"workload", "scheduler": "gto", "warp_limit"}``, what a sweep runs.

    Raises
    ------
    ValueError
        If a limit is not from 1 to ``max_warps_per_sm`` (the message names ``warp_limit``).
    """
    limits = range(1, gpu.max_warps_per_sm + 1) if limits is None else list(limits)
    for n in limits:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= gpu.max_warps_per_sm:
            raise ValueError(f"warp_limit: must be an integer from 1 to {gpu.max_warps_per_sm}, not {n!r}")
    return [{"workload": workload, "scheduler": "gto", "warp_limit": n} for n in limits]


def run_point(wl: Workload, gpu: GPUConfig, scheduler: str, warp_limit: int = 0,
              series_period: int = 1000, params: dict | None = None) -> dict:
    """One timed run of ``wl`` with ``scheduler`` (``gto``, ``ccws``, ``ciao-t/p/c``, ``statpcal``).

    ``warp_limit`` applies to GTO (Best-SWL); ``params`` go to the policy.

    Returns
    -------
    dict
        ``{"scheduler", "warp_limit", "ipc", "cycles", "instructions", "l1_hit_rate",
        "throttled", "policy_stats", "series"}`` (``series``: the timing model's rows).
    """
    machine = dataclasses.replace(gpu, scheduler="gto", warp_limit=warp_limit)
    pol = None if scheduler in ("gto", "best-swl") else get_policy(scheduler, **(params or {}))
    if hasattr(pol, "attach_gpu"):
        pol.attach_gpu(machine)
    r = simulate_timed(wl, machine, pol, series_period=series_period)
    t = r["timing"]
    return {"scheduler": scheduler, "warp_limit": warp_limit, "ipc": t["ipc"], "cycles": t["cycles"],
            "instructions": r["totals"]["instructions"], "l1_hit_rate": t["l1"]["hit_rate"],
            "throttled": t["issue_slots"]["throttled"], "policy_stats": r["policy_stats"],
            "series": t["series"]}


def best_point(results: list[dict]) -> dict:
    """The profiled point with the highest IPC (the smallest limit among equals).

    Raises
    ------
    ValueError
        If ``results`` is empty.
    """
    if not results:
        raise ValueError("results: Best-SWL needs at least one profiled warp limit")
    return max(results, key=lambda r: (r["ipc"], -r["warp_limit"]))


def _or_deadlock(fn: Callable[[], dict], warp_limit: int = 0) -> dict:
    """``fn()``, or ``{"warp_limit", "ipc": 0.0, "deadlock": message}`` if the run deadlocks.

    A warp limit below a CTA's warps deadlocks at its first barrier (the warps past the limit never
    arrive): such a limit is not a candidate.
    """
    try:
        return fn()
    except DeadlockError as e:
        return {"warp_limit": warp_limit, "ipc": 0.0, "deadlock": str(e)}


def profile_best_swl(wl: Workload, gpu: GPUConfig, limits: Iterable[int] | None = None,
                     run: Callable[[dict], dict] | None = None) -> dict:
    """Run every point of :func:`swl_points` and pick the best IPC.

    ``run`` maps a point to a result with ``ipc`` and ``warp_limit`` (default: :func:`run_point`
    on ``wl``); a sweep engine can run the points instead and hand the results to :func:`best_point`.

    Returns
    -------
    dict
        ``{"best": limit, "ipc": ..., "profile": [{"warp_limit", "ipc", "deadlock"}, ...]}``
        (``deadlock``: None, or the message of a limit that deadlocked, counted as IPC 0).
    """
    points = swl_points(wl.name, gpu, limits)
    run = run or (lambda p: _or_deadlock(lambda: run_point(wl, gpu, "gto", p["warp_limit"]), p["warp_limit"]))
    results = [run(p) for p in points]
    best = best_point(results)
    return {"best": best["warp_limit"], "ipc": best["ipc"],
            "profile": [{"warp_limit": r["warp_limit"], "ipc": r["ipc"], "deadlock": r.get("deadlock")}
                        for r in results]}


def compare_workload(wl: Workload, gpu: GPUConfig, schedulers: Iterable[str] = SCHEDULERS,
                     swl_limits: Iterable[int] | None = None) -> dict:
    """IPC of each scheduler on ``wl`` and its ratio to GTO's (``norm``).

    ``norm`` is None for a scheduler whose run deadlocked (its run has the message under ``deadlock``).
    """
    spec = registry.get(wl.name)
    row: dict = {"workload": wl.name, "class": spec.paper.get("cls"),
                 "paper_n_warp": spec.paper.get("n_warp"), "runs": {}, "norm": {}}
    gto = run_point(wl, gpu, "gto")
    row["runs"]["gto"] = gto
    prof = None
    for s in schedulers:
        if s == "gto":
            continue
        if s in ("best-swl", "statpcal") and prof is None:
            prof = profile_best_swl(wl, gpu, swl_limits)
        if s == "best-swl":
            n = prof["best"]
            r = _or_deadlock(lambda n=n: run_point(wl, gpu, "best-swl", n), n)
            r["profile"] = prof["profile"]
        elif s == "statpcal":
            n = prof["best"]
            r = _or_deadlock(lambda n=n: run_point(wl, gpu, "statpcal", params={"tokens": n}))
        else:
            r = _or_deadlock(lambda s=s: run_point(wl, gpu, s))
        row["runs"][s] = r
        row["norm"][s] = r["ipc"] / gto["ipc"] if gto["ipc"] and not r.get("deadlock") else None
    return row


def fig12_machine(gpu: GPUConfig, point: str) -> GPUConfig:
    """``gpu`` changed as Fig. 12's ``point`` says (:data:`FIG12`)."""
    changes = dict(FIG12[point][1])
    if "l1" in changes:
        changes["l1"] = gpu.l1.replace(**changes["l1"])
    if "dram_x" in changes:
        changes["dram_bus_bytes"] = gpu.dram_bus_bytes * changes.pop("dram_x")
    return gpu.replace(**changes)


def fig12_workload(wl: Workload, gpu: GPUConfig, gto_ipc: float, tokens: int,
                   done: dict | None = None) -> dict:
    """IPC of each Fig. 12 point on ``wl`` over ``gto_ipc`` (statPCAL with ``tokens``), and the 2X ratio.

    ``done`` maps points already run (e.g. Fig. 8's ``ciao-c`` on the same machine) to their runs,
    which are used instead of running them again.

    Returns ``{point: IPC / GTO or None (deadlock)}`` plus ``"ciao-c-2x / statpcal-2x"``.
    """
    out: dict = {}
    ipc: dict = {}
    for point, (scheduler, _) in FIG12.items():
        machine = fig12_machine(gpu, point)
        params = {"tokens": tokens} if scheduler == "statpcal" else None
        r = (done or {}).get(point) or _or_deadlock(
            lambda m=machine, s=scheduler, p=params: run_point(wl, m, s, params=p))
        ipc[point] = None if r.get("deadlock") else r["ipc"]
        out[point] = ipc[point] / gto_ipc if ipc[point] and gto_ipc else None
    a, b = ipc["ciao-c-2x"], ipc["statpcal-2x"]
    out["ciao-c-2x / statpcal-2x"] = a / b if a and b else None
    return out


def geomean(values: list[float | None]) -> float | None:
    """Geometric mean of the positive values (None and deadlocks left out); None if there are none."""
    values = [v for v in values if v is not None and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def class_means(rows: list[dict], schedulers: Iterable[str] = SCHEDULERS) -> dict:
    """Geometric mean of the normalised IPC per class (LWS, SWS, CI) and over all rows."""
    out: dict = {}
    for cls in (*CLASSES, "all"):
        sel = [r for r in rows if cls == "all" or r["class"] == cls]
        out[cls] = {s: geomean([r["norm"].get(s) for r in sel]) for s in schedulers if s != "gto"}
        out[cls]["n"] = len(sel)
    return out
