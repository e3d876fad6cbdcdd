"""ciao18's comparison run by run: in this process or on Dask, filed in a results store as it goes.

:func:`run_comparison` makes every :func:`~golden.experiments.ciao18.comparison_runs` of each
benchmark and builds its row (:func:`~golden.experiments.ciao18.comparison_row`):

* in this process, benchmark after benchmark; or
* as one Dask task per run on the sweep engine's cluster
  (:func:`~golden.experiments.sweep.engine.dask_client`). A worker keeps the workload of its last
  run, so a benchmark's runs are a chain of tasks, each waiting for the one before it
  (:func:`chains`): one worker makes them in a row and loads the benchmark's trace once, the
  benchmarks whose runs in the store took longest first (:func:`longest_first`).

Either way a benchmark's CIAO-C run is made before CIAO-T's and CIAO-P's, and before GTO's (but
in the chains that start at once after the first: :func:`chains`): when CIAO acted on no warp in it,
it is also their run (:func:`~golden.experiments.ciao18.ciao_stands_for`), and they are not
simulated; nor is a Best-SWL profile point whose limit never binds in GTO's run.

With a :class:`~golden.experiments.sweep.store.ResultsStore`, every run is filed the moment it
finishes (by this process; a worker never writes) and a run the store already has is not made
again: a comparison stopped at any point, or one that adds workloads, Fig. 11 or Fig. 12, or
profile limits, resumes from the runs made. A run's key hashes the workload, scale, machine, run
and the code's fingerprint (:func:`~golden.experiments.sweep.code.code_fingerprint`), so a run of
other code is never reused.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from golden.configs.loader import config_to_dict
from golden.configs.schema import GPUConfig
from golden.experiments.ciao18 import (
    CIAO_STANDS_FOR,
    Run,
    as_stood_for,
    best_swl,
    ciao_stands_for,
    comparison_row,
    comparison_runs,
    is_profile_point,
    make_run,
    profile_plan,
    profile_row,
    profile_runs,
    unbound_limit,
)
from golden.experiments.sweep.store import ResultsStore
from golden.gc_paused import gc_paused
from golden.gpu.model import DeadlockError
from golden.gpu.program import keep_programs
from golden.workloads import registry
from golden.workloads.registry import Workload

__all__ = ["Comparison", "run_comparison", "make_task", "run_key", "chain_order", "chains"]

#: The workload a worker process built last, ``(name, scale, workload)``: a benchmark's runs are
#: queued together, so a worker mostly makes several runs of one trace in a row. Its kernels'
#: timing-model programs are kept with it (:func:`~golden.gpu.program.keep_programs`).
_LAST: list = [None]


def _workload(name: str, scale: float) -> tuple[Workload, bool]:
    """The built-in workload ``name`` at ``scale``, and whether this call built it (loaded its trace)."""
    last = _LAST[0]
    if last is not None and last[:2] == (name, scale):
        return last[2], False
    _LAST[0] = None  # let the previous trace go before the next one loads
    _LAST[0] = (name, scale, registry.build(name, scale))
    keep_programs(_LAST[0][2].kernels)  # built at the first run, reused by the next ones
    return _LAST[0][2], True


def make_task(run: Run, scale: float, gpu: GPUConfig, limits: Sequence[int] | None = None,
              *profile: dict, gto: dict | None = None, ciao_c: dict | None = None,
              after: object = None) -> dict:
    """A worker's task: ``run`` on the built-in workload at ``scale``, with its own times.

    ``profile`` are the done records (this function's results) of the run's Best-SWL profile, in
    :func:`~golden.experiments.ciao18.profile_runs`'s order, for a run whose token count is
    Best-SWL's limit. ``gto`` is GTO's done record, for a profile point: when its limit never
    binds in GTO's run (:func:`~golden.experiments.ciao18.unbound_limit`), the point's result is
    GTO's with the point's limit, and nothing is simulated. ``ciao_c`` is CIAO-C's done record, for
    GTO's, CIAO-T's and CIAO-P's runs: when CIAO acted on no warp in it
    (:func:`~golden.experiments.ciao18.ciao_stands_for`), it is their result too, and nothing is
    simulated. ``after`` is ignored: the record of the run made before this one in its chain
    (:func:`chains`), which makes Dask run the two in order on one worker.

    Returns
    -------
    dict
        ``{"result": the run's result (its time series held: :func:`held`), "seconds": wall,
        "cpu_seconds": CPU, "trace_loaded": whether this process built the workload for the run (its
        trace was not the one kept from the process's last run)}``, and ``"unbound": True`` for a
        point whose result is GTO's, ``"stood_for": True`` for a run whose result is CIAO-C's.
    """
    t0, c0 = time.perf_counter(), time.process_time()
    if gto is not None and unbound_limit(run, gto["result"]):
        return {"result": dict(gto["result"], warp_limit=run.warp_limit), "unbound": True,
                "trace_loaded": False, "seconds": time.perf_counter() - t0,
                "cpu_seconds": time.process_time() - c0}
    if ciao_c is not None and ciao_stands_for(run, ciao_c["result"]):
        return {"result": as_stood_for(run, ciao_c["result"]), "stood_for": True, "trace_loaded": False,
                "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0}
    tokens = best_swl(gpu, limits, [p["result"] for p in profile]) if run.tokens else None
    workload, loaded = _workload(run.workload, scale)
    result = held(make_run(workload, gpu, run, tokens))  # an array pickles in a fraction of the lists' time
    return {"result": result, "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
            "trace_loaded": loaded}


def run_key(run: Run, scale: float, gpu: GPUConfig, limits: Sequence[int] | None, code: str) -> str:
    """The store key of ``run``: 24 hex digits of the hash of all its result depends on.

    A run after the profile also depends on the profile's limits (they choose its token count).
    """
    data = {"suite": "ciao18", "run": asdict(run), "scale": scale, "seed": 0, "config": config_to_dict(gpu),
            "limits": None if not run.tokens else (None if limits is None else list(limits)), "code": code}
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
                          .encode()).hexdigest()[:24]


@dataclass
class Comparison:
    """What :func:`run_comparison` did.

    Attributes
    ----------
    rows : list of dict
        One row per benchmark that ran to the end, in the order given; ``row["time"]`` sums its
        runs' wall and CPU seconds, wherever and whenever they were made.
    failed : dict
        Each benchmark whose GTO run deadlocked, with the message.
    made : int
        Runs made by this call.
    reused : int
        Runs taken from the store.
    unbound : int
        Of the runs made, Best-SWL profile points whose limit never bound in GTO's run: their
        result is GTO's, nothing was simulated (:func:`~golden.experiments.ciao18.unbound_limit`).
    stood_for : int
        Of the runs made, GTO's, CIAO-T's and CIAO-P's runs that CIAO-C's stood for: CIAO acted
        on no warp in it, nothing was simulated (:func:`~golden.experiments.ciao18.ciao_stands_for`).
    cpu_seconds : float
        CPU seconds of the runs made by this call (on workers, where they ran).
    trace_loads : int
        Of the runs made, those whose process built the workload (loaded its trace and built its
        timing-model programs) rather than keep it from its previous run: at least one per
        benchmark and process that ran it.
    """

    rows: list[dict] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    made: int = 0
    reused: int = 0
    unbound: int = 0
    stood_for: int = 0
    cpu_seconds: float = 0.0
    trace_loads: int = 0


def run_comparison(names: Iterable[str], scale: float, gpu: GPUConfig, limits: Sequence[int] | None = None,
                   fig12: bool = False, fig11: bool = False, *, workers: int = 1,
                   scheduler: str | None = None, store: ResultsStore | None = None,
                   on_done: Callable[[], None] | None = None, profile_only: bool = False) -> Comparison:
    """Make every run of each benchmark's comparison (or take it from ``store``) and build the rows.

    Parameters
    ----------
    names : iterable of str
        Built-in workloads (``ciao18/atax``).
    scale, gpu, limits, fig12, fig11
        As for :func:`~golden.experiments.ciao18.comparison_runs` (the input scale of every run).
    workers : int
        1 (and no ``scheduler``): every run in this process; more: a local Dask cluster of that
        many worker processes.
    scheduler : str, optional
        Address of an existing Dask scheduler instead of a local cluster.
    store : ResultsStore, optional
        Where made runs are filed and from where they are reused.
    on_done : callable, optional
        Called once per run as it is made or found in the store (a progress bar).
    profile_only : bool
        Make only GTO's run and Best-SWL's profile (:func:`~golden.experiments.ciao18.profile_plan`;
        ``fig12`` and ``fig11`` are ignored): each row is
        :func:`~golden.experiments.ciao18.profile_row`'s. Filed in ``store``, they are the runs a
        later comparison with that store does not make again.

    Raises
    ------
    Exception
        The first error of a run other than a deadlock, once every other run is done and filed
        (on Dask, but those after it in its chain: :func:`chains`, which are not made).
    """
    from golden.experiments.sweep.code import code_fingerprint

    names = list(names)
    code = code_fingerprint() if store is not None else ""
    plans = {n: (profile_plan(n, gpu, limits) if profile_only
                 else comparison_runs(n, gpu, limits, fig12, fig11)) for n in names}
    done: dict[tuple[str, Run], dict] = {}
    out = Comparison()
    keys = {(n, r): run_key(r, scale, gpu, limits, code) for n, runs in plans.items() for r in runs}
    for nr, key in keys.items():
        if store is not None and (rec := store.find(key)) is not None:
            done[nr] = {"result": held(rec["metrics"]), "seconds": rec.get("seconds", 0.0),
                        "cpu_seconds": rec.get("cpu_seconds", 0.0)}
            del rec  # its lists go before the next record is parsed
            out.reused += 1
            if on_done is not None:
                on_done()

    def file(nr: tuple[str, Run], rec: dict) -> None:
        done[nr] = rec  # its series held already (make_task)
        out.made += 1
        out.unbound += bool(rec.get("unbound"))
        out.stood_for += bool(rec.get("stood_for"))
        out.cpu_seconds += rec["cpu_seconds"]
        out.trace_loads += bool(rec.get("trace_loaded"))
        if store is not None:
            store.put({"key": keys[nr], "params": {"workload": nr[0], **asdict(nr[1]), "scale": scale},
                       "metrics": rec["result"], "seconds": rec["seconds"], "cpu_seconds": rec["cpu_seconds"],
                       "code": code})
        if on_done is not None:
            on_done()

    if workers > 1 or scheduler is not None:
        _on_dask(plans, scale, gpu, limits, done, file, workers, scheduler)
    else:
        for n, runs in plans.items():
            for run in chain_order(runs):
                if (n, run) not in done:
                    profile = [done[n, p] for p in profile_runs(n, gpu, limits)] if run.tokens else []
                    # CIAO-C's run comes first, GTO's next: the runs after them may take their results.
                    gto, ciao_c = done.get((n, Run(n, "gto"))), done.get((n, Run(n, "ciao-c")))
                    file((n, run), make_task(run, scale, gpu, limits, *profile, gto=gto, ciao_c=ciao_c))
    for n, runs in plans.items():
        try:
            # The rows give each run's result as the run made it (its series as lists again); the
            # workers are gone by now.
            def result(r: Run, n: str = n) -> dict:
                return as_made(done[n, r]["result"])

            with gc_paused():
                row = (profile_row(n, gpu, result, limits) if profile_only
                       else comparison_row(n, gpu, result, limits, fig12, fig11))
        except DeadlockError as e:
            out.failed[n] = str(e)
            continue
        mine = [done[n, r] for r in runs]
        row["time"] = {"seconds": sum(d["seconds"] for d in mine),
                       "cpu_seconds": sum(d["cpu_seconds"] for d in mine)}
        out.rows.append(row)
    _LAST[0] = None  # this process's last trace (runs made here) is not kept after the comparison
    return out


def held(result: dict) -> dict:
    """A run's result as the comparison holds it until the end: its time series as one int64 array.

    At the paper's sizes the 315 runs' series are 830 MB of JSON, and as lists of Python ints
    they took 4.6 GiB of the comparing process, which with two workers holding PVC's trace (8.3
    and 9.8 GiB) went past a 23.5 GiB machine: the kernel killed a worker (session 60). As arrays they
    take 8 bytes a number; the JSON written at the end (after the workers are gone) and the store
    (:func:`~golden.experiments.sweep.store.ResultsStore.put`) turn them back into lists. A worker
    holds the series of the run it made (:func:`make_task`): Dask sends the array to the comparing
    process in a fraction of the time the lists took to pickle and unpickle.
    """
    series = result.get("series")
    if not series or isinstance(series.get("rows"), np.ndarray):
        return result
    rows = np.asarray(series["rows"], np.int64).reshape(-1, len(series["columns"]))
    return dict(result, series=dict(series, rows=rows))


def as_made(result: dict) -> dict:
    """A result :func:`held` keeps, with its time series as lists again (as :func:`make_task` gave it)."""
    series = result.get("series")
    if not series or not isinstance(series.get("rows"), np.ndarray):
        return result
    return dict(result, series=dict(series, rows=series["rows"].tolist()))


def profile_input(rec: dict) -> dict:
    """What a statPCAL task reads of a Best-SWL profile point's done record (:func:`make_task`).

    Only the point's IPC, limit and deadlock choose the token count (``best_swl``); a record
    whole holds the run's time series (tens of MB at the paper's sizes), which Dask would put in
    the task graph for every statPCAL run.
    """
    result = rec["result"]
    return {"result": {k: result[k] for k in ("ipc", "warp_limit", "deadlock") if k in result}}


def chain_order(runs: Iterable[Run]) -> list[Run]:
    """``runs`` (one benchmark's) in the order one process makes them.

    Fig. 8's CIAO-C first, since it may stand for GTO's, CIAO-T's and CIAO-P's runs
    (:func:`~golden.experiments.ciao18.ciao_stands_for`); GTO's next, which a profile point may
    take (:func:`~golden.experiments.ciao18.unbound_limit`); then the others in their order
    (:func:`~golden.experiments.ciao18.comparison_runs`: statPCAL's, which wait for the profile, last).
    """
    runs = list(runs)
    first = [r for name in ("ciao-c", "gto") for r in runs if r == Run(r.workload, name)]
    return first + [r for r in runs if r not in first]


def chains(plans: dict[str, list[Run]], done: dict, workers: int) -> list[list[tuple[str, Run]]]:
    """The runs of ``plans`` not in ``done`` as chains, each made in order by one worker (:func:`_on_dask`).

    A worker keeps the workload of its last run (its trace and programs), so a benchmark whose runs
    all go to one worker is loaded once: each benchmark's runs (:func:`chain_order`) are one chain,
    when there are at least twice as many benchmarks as workers. With fewer, a chain would leave
    workers idle: each benchmark's runs are cut into ``ceil(2 x workers / benchmarks)`` chains of
    consecutive runs, the first (with CIAO-C's and GTO's runs) the longest. Chains come in
    :func:`longest_first`'s order of their benchmarks.

    The first ``workers`` chains start at once. A process compiles a policy's model the first time
    it runs it unless numba's disk cache has it (kept per source tree: a fresh checkout has none),
    and two workers that start with CIAO-C's run at once both compile CCWS's and CIAO's model,
    about 44 s of CPU each: so chains 1 to ``workers - 1`` start with GTO's run instead (if they
    have both), and find CIAO's model on disk when they come to it. GTO's run then loses CIAO-C's
    stand-in (:func:`~golden.experiments.ciao18.ciao_stands_for`), in those chains only.
    """
    names = longest_first(plans, done)
    parts = max(1, math.ceil(2 * workers / max(1, len(names))))
    out = []
    for n in names:
        todo = [(n, r) for r in chain_order(plans[n]) if (n, r) not in done]
        size = math.ceil(len(todo) / parts) if todo else 0
        out += [todo[i:i + size] for i in range(0, len(todo), size or 1)]
    for chain in out[1:workers]:
        n = chain[0][0]
        if [r for _, r in chain[:2]] == [Run(n, "ciao-c"), Run(n, "gto")]:
            chain[0], chain[1] = chain[1], chain[0]
    return out


def longest_first(plans: dict[str, list[Run]], done: dict) -> list[str]:
    """The benchmarks of ``plans`` in the order their runs are handed out: longest first.

    A benchmark with runs done (in the store: GTO's and Best-SWL's profile before a comparison) is
    ranked by the CPU seconds of its longest one, so that the last runs to start are short ones and
    neither worker idles long at the end; benchmarks with none keep their order and come first
    (their cost is unknown).
    """
    longest: dict[str, float] = {}
    for (n, _), rec in done.items():
        longest[n] = max(longest.get(n, 0.0), rec.get("cpu_seconds", 0.0))
    return sorted(plans, key=lambda n: longest.get(n, float("inf")), reverse=True)


def _on_dask(plans: dict[str, list[Run]], scale: float, gpu: GPUConfig, limits: Sequence[int] | None,
             done: dict, file: Callable[[tuple[str, Run], dict], None], workers: int,
             scheduler: str | None) -> None:
    """Make the runs of ``plans`` not in ``done`` as Dask tasks; ``file`` each as it finishes."""
    import uuid

    from golden.experiments.sweep.engine import dask_client

    tag = uuid.uuid4().hex[:8]
    first: BaseException | None = None
    with dask_client(scheduler, workers) as client:
        from distributed import Future, as_completed

        futures: dict = {}  # (name, run) -> future
        which: dict = {}  # future key -> (name, run)

        def record(n: str, r: Run):
            return done.get((n, r)) or futures.get((n, r))

        def submit(c: int, chain: list[tuple[str, Run]]) -> list:
            """Submit ``chain``'s runs, each after the one before it; their futures."""
            before = None
            for i, (n, run) in enumerate(chain):
                # Inputs are done records or futures; Dask runs the task after its futures.
                inputs: tuple = ()
                after: dict = {"after": before}
                if run.tokens:  # statPCAL: Best-SWL's profile chooses its token count
                    inputs = tuple(profile_input(done[n, p]) if (n, p) in done else futures[n, p]
                                   for p in profile_runs(n, gpu, limits))
                elif is_profile_point(run):  # GTO's run may make it unnecessary (make_task)
                    after["gto"] = record(n, Run(n, "gto"))
                elif run.scheduler in CIAO_STANDS_FOR:  # so may CIAO-C's (chain_order: made first)
                    after["ciao_c"] = record(n, Run(n, "ciao-c"))
                waits = any(isinstance(x, Future) for x in (*inputs, *after.values()))
                key = f"gpucache-{'after' if waits else 'run'}-{tag}-{n.replace('/', '-')}-{c}-{i}"
                before = futures[n, run] = client.submit(make_task, run, scale, gpu, limits, *inputs, key=key,
                                                         pure=False, **after)
                which[before.key] = (n, run)
            return [futures[nr] for nr in chain]

        # One chain per worker thread at a time. A chain's first run waits for no other: it goes to
        # a free worker, and each later run, which waits for the one before it ("after"), goes the
        # moment that is done to the worker that made it (the only one holding its input), which has
        # the benchmark's trace. The next chain is submitted when one ends, so a worker that ends a
        # chain is the one free for it: with every chain submitted at once, a worker freed by a
        # chain's run was sent another chain's first run before that chain's next run was ready,
        # and made the two chains' runs in turn (loading both traces, one after the other, again).
        # A chain stops at a run that raises (Dask fails the runs that wait for it with its error).
        threads = sum(w["nthreads"] for w in client.scheduler_info()["workers"].values()) or workers
        queue = chains(plans, done, threads)
        tails = set()
        pending = as_completed()
        for c in range(min(threads, len(queue))):
            fs = submit(c, queue[c])
            tails.add(fs[-1].key)
            pending.update(fs)
        nxt = min(threads, len(queue))
        for fut in pending:
            nr = which[fut.key]
            if fut.status == "error":
                first = first or fut.exception()
            else:
                file(nr, fut.result())
            if fut.key in tails and nxt < len(queue):
                fs = submit(nxt, queue[nxt])
                tails.add(fs[-1].key)
                pending.update(fs)
                nxt += 1
    if first is not None:
        raise first
