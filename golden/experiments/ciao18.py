"""ciao18's comparison (Fig. 8): IPC of each scheduler normalised to GTO, per benchmark and per class.

Schedulers (:data:`SCHEDULERS`): ``gto`` (the ciao18 preset's baseline),
``ccws``, ``ciao-t``, ``ciao-p`` and ``ciao-c`` (``golden/policies/ciao18.py``;
CIAO-P and CIAO-C use the timing model's shared-memory cache), ``best-swl``
(GTO with the warp limit that :func:`profile_best_swl` finds best for the
benchmark), ``statpcal`` (``golden/policies/statpcal.py``, with Best-SWL's
limit as its token count). ``docs/policies/ciao18.md`` has every parameter.

A benchmark's comparison is a set of :class:`Run` (:func:`comparison_runs`), each
independent of the others but statPCAL's, which takes Best-SWL's limit;
:func:`comparison_row` builds the benchmark's row from their results, wherever
they were made (:mod:`golden.experiments.ciao18_runs`: in this process or on
Dask workers, with a results store).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from golden.configs.schema import GPUConfig
from golden.gpu.model import DeadlockError
from golden.gpu.run import simulate_timed
from golden.policies.base import policy_for
from golden.workloads import registry
from golden.workloads.registry import Workload

__all__ = ["SCHEDULERS", "PAPER_FIG8", "CLASSES", "TIME_SERIES", "FIG12", "PAPER_FIG12", "fig12_machine",
           "fig12_run", "fig12_summary", "FIG11", "FIG11_DEFAULT", "PAPER_FIG11", "fig11_run",
           "fig11_summary", "fig11_workload", "geomean", "over_gto", "swl_points", "run_point",
           "profile_best_swl",
           "best_point", "Run", "profile_runs", "best_swl", "comparison_runs", "make_run", "comparison_row",
           "profile_plan", "profile_row", "CIAO_STANDS_FOR", "ciao_stands_for", "as_stood_for",
           "class_means"]

#: Every scheduler of Fig. 8, in the paper's order.
SCHEDULERS = ("gto", "ccws", "best-swl", "statpcal", "ciao-t", "ciao-p", "ciao-c")
#: ciao18 Fig. 8 / Section V-B: geometric-mean IPC over GTO of all benchmarks.
PAPER_FIG8 = {"ccws": 1.02, "best-swl": 1.16, "statpcal": 1.24, "ciao-t": 1.34, "ciao-p": 1.34,
              "ciao-c": 1.56}
#: Table II's classes.
CLASSES = ("LWS", "SWS", "CI")
#: The benchmarks of Figs. 9 and 10's time series, each with the schedulers its figure compares
#: (Fig. 9: Best-SWL, CCWS and CIAO-T; Fig. 10: the three CIAO schedulers).
TIME_SERIES = {"atax": ("best-swl", "ccws", "ciao-t"), "backprop": ("best-swl", "ccws", "ciao-t"),
               "syrk": ("ciao-t", "ciao-p", "ciao-c"), "kmn": ("ciao-t", "ciao-p", "ciao-c")}
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
#: ciao18 Fig. 11 (Section V-E), CIAO-C's sensitivity, one factor at a time (the others at Section
#: IV-A's values): the high-cut-off epoch from 1K to 50K instructions (Fig. 11a; the text names the
#: range, not the points) and the high cut-off with the low cut-off at half of it (Fig. 11b; the text
#: names no value but the chosen 1%). :data:`FIG11_DEFAULT` is the paper's setting, the reference.
FIG11 = {"high_epoch": (1000, 5000, 10000, 50000), "high_cutoff": (0.0025, 0.005, 0.01, 0.02, 0.04)}
FIG11_DEFAULT = {"high_epoch": 5000, "high_cutoff": 0.01}
#: Section V-E: the largest change of a benchmark's IPC over each sweep ("within 15%" over the epochs,
#: "within 5%" over the cut-offs), as max IPC / min IPC - 1.
PAPER_FIG11 = {"high_epoch": 0.15, "high_cutoff": 0.05}


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

    ``warp_limit`` applies to GTO (Best-SWL). The policy takes the machine's
    ``policy_params[scheduler]`` (a config file's ``[policy_params.ciao-c]``), with ``params``
    over them (a Fig. 11 point's epoch, a one-factor run's ``--set``).

    Returns
    -------
    dict
        ``{"scheduler", "warp_limit", "ipc", "cycles", "instructions", "l1_hit_rate",
        "throttled", "peak_warps_per_sm", "policy_stats", "series"}`` (``series``: the timing
        model's rows; ``peak_warps_per_sm``: the most warps one SM held at once).
    """
    machine = dataclasses.replace(gpu, scheduler="gto", warp_limit=warp_limit)
    pol = None if scheduler in ("gto", "best-swl") else policy_for(scheduler, gpu, **(params or {}))
    if hasattr(pol, "attach_gpu"):
        pol.attach_gpu(machine)
    r = simulate_timed(wl, machine, pol, series_period=series_period)
    t = r["timing"]
    return {"scheduler": scheduler, "warp_limit": warp_limit, "ipc": t["ipc"], "cycles": t["cycles"],
            "instructions": r["totals"]["instructions"], "l1_hit_rate": t["l1"]["hit_rate"],
            "throttled": t["issue_slots"]["throttled"], "peak_warps_per_sm": t["peak_warps_per_sm"],
            "policy_stats": r["policy_stats"], "series": t["series"]}


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
    arrive): such a point is a profile point of IPC 0, not a failed comparison.
    """
    try:
        return fn()
    except DeadlockError as e:
        return {"warp_limit": warp_limit, "ipc": 0.0, "deadlock": str(e)}


def _profile(results: list[dict]) -> dict:
    """Best-SWL's choice from the profiled points' ``results``: ``{"best", "ipc", "profile"}``."""
    best = best_point(results)
    return {"best": best["warp_limit"], "ipc": best["ipc"],
            "profile": [{"warp_limit": r["warp_limit"], "ipc": r["ipc"], "deadlock": r.get("deadlock")}
                        for r in results]}


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
    return _profile([run(p) for p in points])


@dataclass(frozen=True)
class Run:
    """One timed run of a comparison: what :func:`make_run` needs besides the workload and machine.

    Attributes
    ----------
    workload : str
        The workload's name (``ciao18/atax``).
    scheduler : str
        ``gto``, ``ccws``, ``statpcal``, ``ciao-t``, ``ciao-p`` or ``ciao-c``.
    warp_limit : int
        GTO's static warp limit (a Best-SWL profile point; 0: none).
    params : tuple of (str, value)
        The policy's parameters other than its defaults, sorted by name.
    machine : str
        A :data:`FIG12` point whose machine change applies ("": the machine as given).
    tokens : str
        ``"best-swl"``: statPCAL's token count is Best-SWL's limit, known once the profile is done
        (the run depends on the profile's runs); "": no such dependence.
    """

    workload: str
    scheduler: str
    warp_limit: int = 0
    params: tuple = ()
    machine: str = ""
    tokens: str = ""

    @property
    def label(self) -> str:
        """A short name for messages: ``ciao18/atax gto N=4``, ``ciao18/atax ciao-c high_epoch=1000``."""
        parts = [self.workload, self.scheduler] + ([f"N={self.warp_limit}"] if self.warp_limit else [])
        parts += [f"{k}={v:g}" for k, v in self.params] + ([f"on {self.machine}"] if self.machine else [])
        return " ".join(parts + (["tokens=Best-SWL's N"] if self.tokens else []))


def profile_runs(name: str, gpu: GPUConfig, limits: Iterable[int] | None = None) -> list[Run]:
    """Best-SWL's profile of ``name`` as runs, one per limit of :func:`swl_points`, in its order.

    A limit of ``max_warps_per_sm`` never binds (an SM holds no more warps): its run is GTO's.
    """
    return [Run(name, "gto", 0 if p["warp_limit"] == gpu.max_warps_per_sm else p["warp_limit"])
            for p in swl_points(name, gpu, limits)]


def unbound_limit(run: Run, gto: dict) -> bool:
    """Whether ``run`` is GTO's run ``gto`` (a result) under a warp limit that never binds.

    A Best-SWL profile point limits GTO to the ``N`` oldest warps of each SM. When ``N`` is at
    least the most warps one SM held at once in GTO's run (``peak_warps_per_sm``), the limit
    excludes no warp in any cycle of that run, so the limited run makes the same choices in every
    cycle: it is GTO's run, cycle for cycle (``tests/test_compare_ciao18.py`` checks it).
    """
    peak = gto.get("peak_warps_per_sm")
    return is_profile_point(run) and not gto.get("deadlock") and peak is not None and run.warp_limit >= peak


#: The runs Fig. 8's CIAO-C run stands for when CIAO acted on no warp in it (:func:`ciao_stands_for`).
CIAO_STANDS_FOR = ("gto", "ciao-t", "ciao-p")


def ciao_stands_for(run: Run, ciao_c: dict) -> bool:
    """Whether CIAO-C's run ``ciao_c`` (a result) is also ``run``'s: GTO's, CIAO-T's or CIAO-P's.

    CIAO-T, CIAO-P and CIAO-C run one rule (Algorithm 1: the VTA, the interference list, IRS and
    the epochs, :mod:`golden.policies.ciao18`) until a warp's IRS passes the high cut-off with its
    interferer running: there the three first act (``_isolate``: CIAO-T stalls the interferer,
    CIAO-P and CIAO-C redirect it, or stall it on an SM without a shared-memory cache). Until then
    they only observe, so they keep the same state and make GTO's choices in every cycle. A CIAO-C
    run that neither stalled nor redirected a warp (``policy_stats`` ``stalls`` and ``redirects``
    0) is therefore each of theirs, cycle for cycle, its policy statistics CIAO-T's and CIAO-P's
    too (``tests/test_compare_ciao18.py`` checks it; :func:`as_stood_for` gives GTO's without
    them). Only Fig. 8's runs qualify: no warp limit, parameters or machine change.
    """
    stats = ciao_c.get("policy_stats") or {}
    plain = not (run.warp_limit or run.params or run.machine or run.tokens)
    return (plain and run.scheduler in CIAO_STANDS_FOR and ciao_c.get("scheduler") == "ciao-c"
            and not ciao_c.get("deadlock") and stats.get("stalls") == 0 and stats.get("redirects") == 0)


def as_stood_for(run: Run, ciao_c: dict) -> dict:
    """CIAO-C's result ``ciao_c`` as ``run``'s (:func:`ciao_stands_for` holds): GTO keeps no VTA,
    so its result has no policy statistics and no VTA hits in its time series."""
    if run.scheduler != "gto":
        return dict(ciao_c, scheduler=run.scheduler)
    series = ciao_c["series"]
    col = series["columns"].index("vta_hits")
    rows = series["rows"]
    if isinstance(rows, np.ndarray):
        rows = rows.copy()
        rows.reshape(-1, len(series["columns"]))[:, col] = 0
    else:
        rows = [[0 if i == col else v for i, v in enumerate(r)] for r in rows]
    return dict(ciao_c, scheduler="gto", policy_stats={}, series=dict(series, rows=rows))


def is_profile_point(run: Run) -> bool:
    """Whether ``run`` is a Best-SWL profile point: GTO under a warp limit, nothing else changed."""
    return run.scheduler == "gto" and run.warp_limit > 0 and not (run.params or run.machine or run.tokens)


def fig12_run(name: str, point: str) -> Run:
    """The run of Fig. 12's ``point`` on ``name`` (its ``ciao-c`` point is Fig. 8's CIAO-C run)."""
    scheduler, change = FIG12[point]
    return Run(name, scheduler, machine=point if change else "",
               tokens="best-swl" if scheduler == "statpcal" else "")


def fig11_run(name: str, field: str, value: float) -> Run:
    """CIAO-C's run of Fig. 11 with ``field`` at ``value`` (at the paper's value: Fig. 8's run)."""
    if value == FIG11_DEFAULT[field]:
        return Run(name, "ciao-c")
    return Run(name, "ciao-c", params=tuple(sorted(_fig11_params(field, value).items())))


def comparison_runs(name: str, gpu: GPUConfig, limits: Iterable[int] | None = None, fig12: bool = False,
                    fig11: bool = False) -> list[Run]:
    """Every distinct run of ``name``'s comparison: the independent ones, then those after the profile.

    GTO, the Best-SWL profile (:func:`profile_runs`; Best-SWL's own run is its chosen point's),
    CCWS, CIAO-T/P/C and, with ``fig12`` / ``fig11``, those figures' points; then statPCAL (and
    Fig. 12's statPCAL-2X), whose token count is Best-SWL's limit. A run two of them share (GTO and
    the profile's point at every warp, Fig. 8's CIAO-C and Fig. 12's and Fig. 11's default points)
    is listed once.
    """
    runs = [*profile_plan(name, gpu, limits),
            *(Run(name, s) for s in SCHEDULERS if s not in ("gto", "best-swl", "statpcal")),
            Run(name, "statpcal", tokens="best-swl")]
    if fig12:
        runs += [fig12_run(name, p) for p in FIG12]
    if fig11:
        runs += [fig11_run(name, f, v) for f, values in FIG11.items() for v in values]
    return sorted(dict.fromkeys(runs), key=lambda r: bool(r.tokens))


def _profiled(gpu: GPUConfig, runs: list[Run], results: Iterable[dict]) -> list[dict]:
    """The profile's results, each with its point's limit (GTO's run stands for the limit of every warp)."""
    return [dict(r, warp_limit=gpu.max_warps_per_sm) if not run.warp_limit and not r.get("deadlock") else r
            for run, r in zip(runs, results, strict=True)]


def best_swl(gpu: GPUConfig, limits: Iterable[int] | None, profile: Iterable[dict]) -> int:
    """Best-SWL's limit from the results of :func:`profile_runs` (in its order)."""
    return best_point(_profiled(gpu, profile_runs("", gpu, limits), profile))["warp_limit"]


def make_run(wl: Workload, gpu: GPUConfig, run: Run, tokens: int | None = None) -> dict:
    """``run`` on ``wl`` (:func:`run_point`); a deadlock is its result (:func:`_or_deadlock`).

    ``tokens`` is statPCAL's token count for a run whose ``tokens`` is ``"best-swl"``.
    """
    if run.tokens and tokens is None:
        raise ValueError(f"{run.label}: needs Best-SWL's limit as its token count")
    machine = fig12_machine(gpu, run.machine) if run.machine else gpu
    params = dict(run.params) | ({"tokens": tokens} if run.tokens else {})
    return _or_deadlock(lambda: run_point(wl, machine, run.scheduler, run.warp_limit, params=params or None),
                        run.warp_limit)


def profile_plan(name: str, gpu: GPUConfig, limits: Iterable[int] | None = None) -> list[Run]:
    """GTO's run and Best-SWL's profile of ``name``: the runs of ``--profile-only``, each once.

    They are the first runs of :func:`comparison_runs`, so a store that holds them leaves a later
    comparison only the other schedulers' runs to make.
    """
    return list(dict.fromkeys([Run(name, "gto"), *profile_runs(name, gpu, limits)]))


def over_gto(r: dict, gto: dict) -> float | None:
    """Run ``r``'s IPC over GTO's run ``gto``; None when ``r`` deadlocked or GTO's IPC is 0."""
    return r["ipc"] / gto["ipc"] if gto["ipc"] and not r.get("deadlock") else None


def profile_row(name: str, gpu: GPUConfig, result: Callable[[Run], dict],
                limits: Iterable[int] | None = None) -> dict:
    """The row of ``name`` from GTO's run and Best-SWL's profile (``result(run)`` for each of
    :func:`profile_plan`): ``runs`` and ``norm`` hold ``gto`` and ``best-swl``.

    Best-SWL's run is the profile's run at its limit (with the whole ``profile``); the profile's
    point at ``max_warps_per_sm`` is GTO's run.

    Raises
    ------
    DeadlockError
        If GTO's run deadlocked: the benchmark has no baseline.
    """
    spec = registry.get(name)
    gto = result(Run(name, "gto"))
    if gto.get("deadlock"):
        raise DeadlockError(gto["deadlock"])
    points = profile_runs(name, gpu, limits)
    profiled = _profiled(gpu, points, [result(p) for p in points])
    prof = _profile(profiled)
    swl = dict(next(r for r in profiled if r["warp_limit"] == prof["best"]))
    if not swl.get("deadlock"):
        swl["scheduler"] = "best-swl"
    swl["profile"] = prof["profile"]
    return {"workload": name, "class": spec.paper.get("cls"), "paper_n_warp": spec.paper.get("n_warp"),
            "runs": {"gto": gto, "best-swl": swl}, "norm": {"best-swl": over_gto(swl, gto)}}


def comparison_row(name: str, gpu: GPUConfig, result: Callable[[Run], dict],
                   limits: Iterable[int] | None = None, fig12: bool = False, fig11: bool = False) -> dict:
    """The comparison's row of ``name`` from its runs' results (``result(run)`` for each of
    :func:`comparison_runs`): IPC of each scheduler, its ratio to GTO's (``norm``), Figs. 11 and 12.

    ``norm`` is None for a scheduler whose run deadlocked (its run has the message under
    ``deadlock``). GTO and Best-SWL are :func:`profile_row`'s (:func:`comparison_runs` lists no
    run twice).

    Raises
    ------
    DeadlockError
        If GTO's run deadlocked: the benchmark has no baseline.
    """
    row = profile_row(name, gpu, result, limits)
    gto = row["runs"]["gto"]
    runs, norm = dict(row["runs"]), dict(row["norm"])
    for s in SCHEDULERS[1:]:
        if s != "best-swl":
            runs[s] = result(Run(name, s, tokens="best-swl" if s == "statpcal" else ""))
            norm[s] = over_gto(runs[s], gto)
    row["runs"] = {s: runs[s] for s in SCHEDULERS}
    row["norm"] = {s: norm[s] for s in SCHEDULERS[1:]}
    if fig12:
        row["fig12"] = fig12_summary(gto["ipc"], lambda point: result(fig12_run(name, point)))
    if fig11:
        row["fig11"] = fig11_summary(lambda field, v: result(fig11_run(name, field, v)))
    return row


def fig12_machine(gpu: GPUConfig, point: str) -> GPUConfig:
    """``gpu`` changed as Fig. 12's ``point`` says (:data:`FIG12`)."""
    changes = dict(FIG12[point][1])
    if "l1" in changes:
        changes["l1"] = gpu.l1.replace(**changes["l1"])
    if "dram_x" in changes:
        changes["dram_bus_bytes"] = gpu.dram_bus_bytes * changes.pop("dram_x")
    return gpu.replace(**changes)


def fig12_summary(gto_ipc: float, result: Callable[[str], dict]) -> dict:
    """IPC of each Fig. 12 point over ``gto_ipc`` (``result(point)``: its run), and the 2X ratio.

    Returns ``{point: IPC / GTO or None (deadlock)}`` plus ``"ciao-c-2x / statpcal-2x"``.
    """
    out: dict = {}
    ipc: dict = {}
    for point in FIG12:
        r = result(point)
        ipc[point] = None if r.get("deadlock") else r["ipc"]
        out[point] = ipc[point] / gto_ipc if ipc[point] and gto_ipc else None
    a, b = ipc["ciao-c-2x"], ipc["statpcal-2x"]
    out["ciao-c-2x / statpcal-2x"] = a / b if a and b else None
    return out


def _fig11_params(field: str, value: float) -> dict:
    """CIAO-C's parameters of one Fig. 11 point: ``field`` at ``value`` (a cut-off's low one at half)."""
    if field == "high_cutoff":
        return {"high_cutoff": value, "low_cutoff": value / 2}
    return {field: value}


def fig11_summary(result: Callable[[str, float], dict]) -> dict:
    """CIAO-C at every point of :data:`FIG11`, one parameter varied at a time (``result(field, value)``).

    Returns
    -------
    dict
        ``{field: {"values", "ipc", "norm", "spread", "runs"}}`` per swept field: ``norm`` is each
        IPC over the default point's, ``spread`` max IPC / min IPC - 1 (None if a run deadlocked),
        ``runs`` each point's IPC, L1 hit rate, throttled share and policy statistics.
    """
    out: dict = {}
    for field, values in FIG11.items():
        runs = [{k: r.get(k) for k in ("ipc", "l1_hit_rate", "throttled", "policy_stats", "deadlock")}
                | {"params": _fig11_params(field, v)} for v, r in ((v, result(field, v)) for v in values)]
        ipc = [None if r.get("deadlock") else r["ipc"] for r in runs]
        ref = ipc[list(values).index(FIG11_DEFAULT[field])]
        ok = [x for x in ipc if x]
        out[field] = {"values": list(values), "ipc": ipc,
                      "norm": [x / ref if x and ref else None for x in ipc],
                      "spread": max(ok) / min(ok) - 1 if ok and len(ok) == len(ipc) else None,
                      "runs": runs}
    return out


def fig11_workload(wl: Workload, gpu: GPUConfig, done: dict | None = None) -> dict:
    """:func:`fig11_summary` of CIAO-C on ``wl``, each point run here.

    ``done`` is CIAO-C's run at the paper's parameters (e.g. Fig. 8's), used for the default point
    of both sweeps instead of running it again.
    """
    def result(field: str, value: float) -> dict:
        run = fig11_run(wl.name, field, value)
        return done if done is not None and not run.params else make_run(wl, gpu, run)

    return fig11_summary(result)


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
