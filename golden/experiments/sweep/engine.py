"""Running a sweep's points on Dask (``dask.distributed``), filing each result as it finishes.

:func:`run_sweep` skips the points the store already has, submits the
others to a Dask cluster (a :class:`~distributed.LocalCluster` of worker
processes with one thread each, or an existing cluster's scheduler) and
files every result in the store the moment it arrives, in whatever order
the points finish.

Failures stay per point:

* a point whose simulation raises returns its error (``run_point`` catches
  it); the sweep goes on and the failure is filed in ``failed/``;
* a worker process that dies (killed, out of memory) takes its running
  point with it; Dask's scheduler reruns the point on another worker, up to
  ``distributed.scheduler.allowed-failures`` times (``worker_retries``
  here, for a local cluster), after which the point is reported as lost
  (``KilledWorker``). Points already filed are never touched: only the
  sweep's own process writes the store.

An existing cluster must have gpucache installed on its workers (they
import ``golden``), and the same ``GPUCACHE_PLUGINS`` if the sweep uses a
plugin's policy.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from golden.errors import InputError
from golden.experiments.sweep.grid import Point
from golden.experiments.sweep.point import run_point
from golden.experiments.sweep.store import ResultsStore

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["SweepOutcome", "run_sweep", "map_tasks", "dask_client", "DEFAULT_WORKER_RETRIES", "WORKER_MEMORY",
           "QUIET_CLUSTER"]

#: Times a point is rerun after its worker died (Dask's default ``allowed-failures``).
DEFAULT_WORKER_RETRIES = 3


@dataclass
class SweepOutcome:
    """What a sweep did.

    Members
    -------
    ran : list of str
        Keys of the points run and filed by this sweep.
    skipped : list of str
        Keys of the points the store already had.
    failed : list of (Point, str)
        Points that failed, with a one-line reason, in grid order.
    seconds : float
        Wall time of the sweep.
    """

    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[Point, str]] = field(default_factory=list)
    seconds: float = 0.0


#: Dask worker memory settings of every sweep cluster: no spilling and no pause (``dask_client``).
WORKER_MEMORY = {f"distributed.worker.memory.{k}": False for k in ("target", "spill", "pause")}

#: The scheduler of every local sweep cluster sends a worker its next queued task only when the
#: worker is free (Dask's default, 1.1, sends one ahead). The next task is then chosen after the
#: tasks waiting for the one just finished are placed, so a ciao18 comparison's worker makes a
#: profile point after GTO's run of its benchmark before it moves on to the next benchmark's trace
#: (``golden.experiments.ciao18_runs``). A run is seconds to minutes long; the round trip is not.
SCHEDULER_QUEUE = {"distributed.scheduler.worker-saturation": 1.0}

#: What a local sweep cluster's processes do besides the runs, slowed or off (an existing cluster's
#: workers keep their own settings). Dask samples the task thread's stack every 10 ms (the
#: dashboard's profile), wakes each server every 20 ms to time its event loop, reads each process's
#: resources every 500 ms (the dashboard's plots) and each worker's memory every 100 ms (for the 95%
#: restart). With two local workers that came to about 7% of a core idle (the comparing process
#: 2.7 to 4%, each worker 1.4 to 2.5%), some 130 s of CPU over a 31-minute comparison at that rate;
#: with these settings 1.6% (0.9%, 0.3 to 0.4%). The memory is still read every second, and a loop
#: blocked for 3 s is still reported.
QUIET_CLUSTER = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s",
                 "distributed.admin.system-monitor.interval": "5s",
                 "distributed.worker.memory.monitor-interval": "1s"}


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int = 2,
                worker_retries: int = DEFAULT_WORKER_RETRIES) -> Iterator[Client]:
    """A Dask client: of a local cluster of ``workers`` processes (one thread each), or of ``scheduler``.

    The cluster of every sweep, and of other batch jobs that run on Dask (``benchmarks/bench_rd.py
    --jobs``). Dask's worker-death warnings are silenced while it is open.

    Parameters
    ----------
    scheduler : str, optional
        Address of an existing Dask scheduler (``tcp://host:8786``); default: a local cluster.
    workers : int
        Worker processes of the local cluster.
    worker_retries : int
        Reruns of a task whose worker died (``distributed.scheduler.allowed-failures``).

    Yields
    ------
    distributed.Client

    Raises
    ------
    InputError
        When ``scheduler`` cannot be reached.
    """
    import dask
    from distributed import Client, LocalCluster

    # The scheduler and nannies log every worker death as a warning; the sweep reports them per point.
    quiet = [logging.getLogger(n) for n in ("distributed", "distributed.nanny", "distributed.scheduler")]
    levels = [lg.level for lg in quiet]
    for lg in quiet:
        lg.setLevel(logging.CRITICAL)
    try:
        # A worker keeps its benchmark's trace and programs between runs (golden.gpu.program.keep_programs):
        # at the paper's sizes that is most of its share of memory, and Dask's memory manager would pause
        # it above 80% of that share and never resume it, since nothing then runs to free the memory (a
        # scale-1 ciao18 comparison stalled with both workers idle at 86% of their shares). Runs hold no
        # Dask data to spill; a worker that grows past 95% is still restarted and its run retried.
        with dask.config.set({"distributed.scheduler.allowed-failures": worker_retries, **WORKER_MEMORY,
                              **SCHEDULER_QUEUE, **QUIET_CLUSTER}):
            if scheduler is not None:
                try:
                    client = Client(scheduler, timeout="20s")
                except (OSError, TimeoutError, ValueError) as e:
                    raise InputError(f"--scheduler {scheduler}: cannot connect ({e})") from None
                with client:
                    yield client
            else:
                with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster, \
                        Client(cluster) as client:
                    yield client
    finally:
        for lg, level in zip(quiet, levels, strict=True):
            lg.setLevel(level)


def _reason(exc: BaseException) -> str:
    from distributed import KilledWorker

    if isinstance(exc, KilledWorker):
        return "lost: its worker died on every try (KilledWorker)"
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def run_sweep(points: Sequence[Point], store: ResultsStore, *, scheduler: str | None = None,
              workers: int = 2, worker_retries: int = DEFAULT_WORKER_RETRIES,
              on_result: Callable[[Point, bool], None] | None = None, meta: dict | None = None
              ) -> SweepOutcome:
    """Run every point the store does not have yet; file each result as it arrives.

    Parameters
    ----------
    points : sequence of Point
        The grid (:func:`golden.experiments.sweep.grid.build_grid`).
    store : ResultsStore
        Where finished points are, and go.
    scheduler : str, optional
        Address of an existing Dask scheduler (``tcp://host:8786``); default: a local cluster.
    workers : int
        Worker processes of the local cluster (one thread each).
    worker_retries : int
        Reruns of a point whose worker died, for the local cluster.
    on_result : callable, optional
        Called with each point run by this sweep and whether it succeeded (a progress bar).
    meta : dict, optional
        Extra fields of every record filed (the gpucache version, the code fingerprint).

    Returns
    -------
    SweepOutcome

    Raises
    ------
    InputError
        When ``scheduler`` cannot be reached.
    """
    t0 = time.perf_counter()
    out = SweepOutcome()
    todo = []
    for p in points:
        if store.done(p.key):
            out.skipped.append(p.key)
        else:
            todo.append(p)
    if todo:
        by_key = {f"gpucache-sweep-{p.key}": p for p in todo}
        failed: dict[str, str] = {}
        with dask_client(scheduler, workers, worker_retries) as client:
            from distributed import as_completed

            futures = client.map(run_point, [p.task for p in todo], key=list(by_key), pure=False)
            for fut in as_completed(futures):
                p = by_key[fut.key]
                if fut.status == "error":
                    result = {"ok": False, "error": _reason(fut.exception()), "traceback": ""}
                else:
                    result = fut.result()
                fut.release()
                if result["ok"]:
                    store.put({"key": p.key, "params": p.params, "metrics": result["metrics"],
                               "seconds": result["seconds"], "task": p.task, **(meta or {})})
                    out.ran.append(p.key)
                else:
                    store.fail({"key": p.key, "params": p.params, "error": result["error"],
                                "traceback": result["traceback"], "task": p.task, **(meta or {})})
                    failed[p.key] = result["error"]
                if on_result is not None:
                    on_result(p, result["ok"])
        out.failed = [(p, failed[p.key]) for p in todo if p.key in failed]
    out.seconds = time.perf_counter() - t0
    return out


def map_tasks(fn: Callable, calls: Sequence[tuple], *, scheduler: str | None = None, workers: int = 2,
              worker_retries: int = DEFAULT_WORKER_RETRIES,
              on_done: Callable[[int], None] | None = None) -> list:
    """``fn(*args)`` for each ``args`` of ``calls`` on the sweep's Dask cluster; results in order.

    For jobs made of independent pieces that are not sweep points (a comparison's workloads).
    ``fn`` must be a module-level function workers can import. A call that raises, or whose
    worker died on every try, gives its exception as its result: the caller reports it and the
    other calls go on.

    Parameters
    ----------
    fn : callable
        The task.
    calls : sequence of tuple
        One argument tuple per task.
    scheduler, workers, worker_retries
        As for :func:`run_sweep`.
    on_done : callable, optional
        Called with each call's index as it finishes (a progress bar).
    """
    import uuid

    results: list = [None] * len(calls)
    if not calls:
        return results
    tag = uuid.uuid4().hex[:8]
    with dask_client(scheduler, workers, worker_retries) as client:
        from distributed import as_completed

        futures = [client.submit(fn, *args, key=f"gpucache-task-{tag}-{i}", pure=False)
                   for i, args in enumerate(calls)]
        index = {f.key: i for i, f in enumerate(futures)}
        for fut in as_completed(futures):
            i = index[fut.key]
            results[i] = fut.exception() if fut.status == "error" else fut.result()
            fut.release()
            if on_done is not None:
                on_done(i)
    return results
