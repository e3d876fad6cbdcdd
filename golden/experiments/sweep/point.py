"""What a worker runs for one sweep point: the main job's simulation, nothing else.

:func:`run_point` builds the point's workload, config and policy and calls
:func:`golden.driver.simulate`, the function ``gpucache run`` calls, with
the same arguments; its result becomes the point's flat row of metrics
(:func:`golden.experiments.sweep.metrics.flatten_result`). Every exception
is caught and returned as the point's failure, so one point's error never
stops the sweep (a worker process that dies is the engine's business).
"""

from __future__ import annotations

import time
import traceback

from golden.experiments.sweep.metrics import flatten_result

__all__ = ["run_point", "simulate_task"]


def simulate_task(task: dict) -> dict:
    """The :func:`golden.driver.simulate` result of a point's task (see :class:`~.grid.Point`)."""
    from golden.configs.loader import config_from_dict
    from golden.driver import simulate
    from golden.policies.base import policy_for

    source = task["workload"]
    if "trace" in source:
        from golden.trace.io import load_trace

        wl = load_trace(source["trace"])
    else:
        from golden.workloads import registry

        wl = registry.build(source["name"], source["scale"], source["seed"])
    gpu = config_from_dict(task["config"], origin="point")
    policy = policy_for(task["policy"], gpu)
    if task["timing"] == "cycle":
        return simulate(wl, gpu, policy, timing="cycle", dependences=task["dependences"])
    return simulate(wl, gpu, policy, timing="none")


def run_point(task: dict) -> dict:
    """Run one point; never raises.

    Returns
    -------
    dict
        ``{"ok": True, "metrics": {...}, "seconds": s}``, or ``{"ok": False,
        "error": "Type: message", "traceback": text, "seconds": s}``.
    """
    t0 = time.perf_counter()
    try:
        metrics = flatten_result(simulate_task(task))
    except Exception as e:  # noqa: BLE001 - a point's failure is data, reported per point
        return {"ok": False, "error": f"{type(e).__name__}: {' '.join(str(e).split())}",
                "traceback": traceback.format_exc(), "seconds": round(time.perf_counter() - t0, 3)}
    return {"ok": True, "metrics": metrics, "seconds": round(time.perf_counter() - t0, 3)}
