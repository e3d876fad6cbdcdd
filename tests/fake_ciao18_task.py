"""A stand-in for :func:`golden.experiments.ciao18_runs.make_task` that simulates nothing.

Dask workers import it by name, so it lives in a module of its own that imports nothing of the
model: a test of the order in which the cluster makes a comparison's runs then takes seconds.
"""

from __future__ import annotations

import os
import time


def fake_task(run, scale, gpu, limits, *profile, gto=None, ciao_c=None, after=None) -> dict:
    """Sleep briefly and say which process made ``run`` and what its profile inputs held, in place
    of simulating it."""
    time.sleep(0.02)
    return {"result": {}, "seconds": 0.02, "cpu_seconds": 0.0, "pid": os.getpid(), "workload": run.workload,
            "run": run,
            "profile_keys": [sorted(p["result"]) for p in profile]}


def failing_task(run, scale, gpu, limits, *profile, gto=None, ciao_c=None, after=None) -> dict:
    """:func:`fake_task`, but CCWS's run of ATAX raises."""
    if run.workload == "ciao18/atax" and run.scheduler == "ccws":
        raise RuntimeError("ccws failed")
    return fake_task(run, scale, gpu, limits, *profile, gto=gto, ciao_c=ciao_c, after=after)
