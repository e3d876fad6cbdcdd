"""A sweep worker that keeps a large cache between runs still takes the next run.

Dask pauses a worker above 80% of its memory share and resumes it only when its memory falls;
a worker that keeps its benchmark's trace and programs between runs (as the timing model's
workers do) would then never run again. The sweep's clusters turn the pause off (WORKER_MEMORY).
"""

from __future__ import annotations

import dask
import numpy as np
import psutil
import pytest

from golden.experiments.sweep.engine import QUIET_CLUSTER, WORKER_MEMORY, dask_client

_KEPT: list = []


def _keep(nbytes: int) -> int:
    """Hold ``nbytes`` in this worker until it exits (a kept cache)."""
    block = np.ones(nbytes, np.uint8)  # touched: resident
    _KEPT.append(block)
    return int(block.sum() > 0)


def _after(x: int) -> int:
    return x + 1


def test_the_sweep_cluster_workers_never_pause_or_spill_and_keep_quiet():
    wanted = {**WORKER_MEMORY, **QUIET_CLUSTER}
    with dask_client(workers=1) as client:
        settings = client.run(lambda: {k: dask.config.get(k) for k in wanted})
    assert list(settings.values()) == [wanted]


# Dask's own settings (the second case, marked slow for its 15 s wait) do not run the next task.
@pytest.mark.parametrize("settings, runs", [(WORKER_MEMORY, True),
                                            pytest.param({}, False, marks=pytest.mark.slow)])
def test_a_worker_holding_most_of_its_memory_takes_the_next_task(settings, runs):
    from distributed import Client, LocalCluster
    from distributed.utils import TimeoutError as DaskTimeout

    limit = 2 * 1024 ** 3
    with dask.config.set(settings), \
            LocalCluster(n_workers=1, threads_per_worker=1, processes=True, memory_limit=limit,
                         dashboard_address=":0") as cluster, Client(cluster) as client:
        rss = client.run(lambda: psutil.Process().memory_info().rss)
        base = next(iter(rss.values()))
        # Between the pause (80%) and the restart (95%) of the worker's share.
        kept = client.submit(_keep, int(0.87 * limit) - base, pure=False).result(timeout=60)
        try:
            done = client.submit(_after, kept, pure=False).result(timeout=15) == 2
        except (TimeoutError, DaskTimeout):
            done = False
        assert done == runs
