"""The points of a sweep: workloads x scales x seeds x policies x timings x swept config fields.

:func:`build_grid` checks the whole grid before anything runs: every
workload, trace, policy and timing exists, and every point's config
validates (``golden.configs.loader.config_from_dict``, as a config file
would), so a mistake is one line naming the field, not a failed point.

A parameter of a policy (``policy_params.P.K``) is swept only in the
points that run policy ``P``; the other points leave it out (an empty
cell in the table), so a grid never runs the same simulation twice.

Each point has a key: a hash of everything its result depends on (the
workload and its size and seed, or the trace's content; the complete
config; the policy; the timing model and its dependence rule; the code
fingerprint, :mod:`golden.experiments.sweep.code`). The results store
files a finished point under its key.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from golden.configs.loader import config_from_dict, config_to_dict, load_config
from golden.configs.schema import GPUConfig
from golden.driver import TIMINGS
from golden.errors import InputError
from golden.experiments.sweep.fields import SweptField, apply
from golden.trace.io import load_trace

__all__ = ["GridSpec", "Point", "build_grid", "PARAM_COLUMNS", "NO_POLICY", "INTERLEAVER_SCHEDULERS"]

#: The table columns of every point, before the swept fields.
PARAM_COLUMNS = ("workload", "scale", "seed", "policy", "timing")
#: The policy name that means no policy.
NO_POLICY = "none"
#: Warp schedulers the open-loop interleaver has (``--timing none``).
INTERLEAVER_SCHEDULERS = ("lrr", "gto", "oldest")


@dataclass(frozen=True)
class GridSpec:
    """What a sweep varies.

    Members
    -------
    workloads : tuple of str
        Built-in workload names (bare or ``suite/name``).
    traces : tuple of str
        Trace files (gpucache ``.npz`` or Accel-Sim), run as recorded.
    scales, seeds : tuple
        Sizes and input seeds of the built-in workloads.
    config : str
        Base machine: a preset name or a config file.
    fields : tuple of SweptField
        Config fields and their values.
    policies : tuple of str
        Policy names (``"none"``: no policy).
    timings : tuple of str
        ``"cycle"`` and/or ``"none"``.
    dependences : str
        The timing model's dependence rule.
    """

    workloads: tuple[str, ...] = ()
    traces: tuple[str, ...] = ()
    scales: tuple[float, ...] = (1.0,)
    seeds: tuple[int, ...] = (0,)
    config: str = "tian15"
    fields: tuple[SweptField, ...] = ()
    policies: tuple[str, ...] = (NO_POLICY,)
    timings: tuple[str, ...] = ("cycle",)
    dependences: str = "auto"


@dataclass(frozen=True)
class Point:
    """One simulation of a sweep.

    Members
    -------
    key : str
        24 hex digits: the hash of everything the result depends on.
    params : dict
        The point's table columns: :data:`PARAM_COLUMNS`, then each swept field (None where
        the field does not apply).
    task : dict
        Plain data a worker runs (:func:`golden.experiments.sweep.point.run_point`).
    """

    key: str
    params: dict = field(hash=False)
    task: dict = field(hash=False)

    def label(self) -> str:
        """``workload=tian15/bfs scale=0.25 policy=none timing=none l1.size=16384``."""
        return " ".join(f"{k}={v}" for k, v in self.params.items() if v is not None)


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for f in files:
        h.update(str(f.relative_to(path) if path.is_dir() else f.name).encode() + b"\0")
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def _sources(spec: GridSpec) -> list[tuple[dict, dict, str]]:
    """(task part, table part, key part) per workload, scale and seed."""
    from golden.workloads import registry

    out = []
    for name in spec.workloads:
        full = registry.get(name).key
        for scale in spec.scales:
            if not 0 < scale <= 1:
                raise InputError(f"--scale: must be in (0, 1], not {scale}")
            for seed in spec.seeds:
                part = {"name": full, "scale": scale, "seed": seed}
                out.append((part, {"workload": full, "scale": scale, "seed": seed}, _digest(part)))
    for trace in spec.traces:
        path = Path(trace).resolve()
        wl = load_trace(path)  # refused here, in one line, if it is not a trace
        try:
            digest = _file_digest(path)
        except OSError as e:
            raise InputError(f"--trace {trace}: cannot read it ({e.strerror})") from None
        out.append(({"trace": os.fspath(path)}, {"workload": wl.name, "scale": None, "seed": None},
                    digest))
    if not out:
        raise InputError("--workload/--trace: give at least one workload")
    return out


def _check_policies(spec: GridSpec) -> None:
    from golden.policies.base import get_policy, policy_names

    known = set(policy_names())
    for name in spec.policies:
        if name != NO_POLICY and name not in known:
            try:
                get_policy(name)
            except InputError as e:
                raise InputError(f"--policy: {e}") from None
    for f in spec.fields:
        if f.policy is not None and f.policy not in spec.policies:
            raise InputError(f"--set {f.name}: policy {f.policy!r} is not swept (add --policy {f.policy})")


def _check_timing(gpu: GPUConfig, timing: str, values: dict) -> None:
    where = " ".join(f"{'.'.join(k)}={v}" for k, v in values.items())
    if timing != "cycle" and gpu.scheduler not in INTERLEAVER_SCHEDULERS:
        raise InputError(f"--set: scheduler={gpu.scheduler}: needs the timing model (--timing cycle)"
                         + (f" (point {where})" if where else ""))
    if timing != "cycle" and gpu.warp_limit:
        raise InputError(f"--set: warp_limit={gpu.warp_limit}: needs the timing model (--timing cycle)")


def build_grid(spec: GridSpec, code: str) -> list[Point]:
    """Every point of ``spec``, validated, in a fixed order.

    The order is workloads (built-in, then traces), scales, seeds, policies,
    timings, then the swept fields' values (the last field varying fastest).

    Parameters
    ----------
    spec : GridSpec
        What to vary.
    code : str
        The code fingerprint (:func:`golden.experiments.sweep.code.code_fingerprint`).

    Raises
    ------
    InputError
        One line naming the option or field: unknown workload, trace, policy or timing,
        a field a config does not have, a value it refuses, a repeated field.
    """
    names = [f.name for f in spec.fields]
    for n in names:
        if names.count(n) > 1:
            raise InputError(f"--set {n}: given twice (give all its values in one --set)")
    for t in spec.timings:
        if t not in TIMINGS:
            raise InputError(f"--timing: must be one of {', '.join(TIMINGS)}, not {t!r}")
    _check_policies(spec)
    base = load_config(spec.config)
    base_data = config_to_dict(base)
    sources = _sources(spec)
    configs: dict[str, GPUConfig] = {}
    points: dict[str, Point] = {}
    for policy in spec.policies:
        swept = [f for f in spec.fields if f.policy in (None, policy)]
        for timing, combo in itertools.product(spec.timings, itertools.product(*(f.values for f in swept))):
            values = {f.path: v for f, v in zip(swept, combo, strict=True)}
            ckey = _digest([list(k) + [v] for k, v in values.items()])
            if ckey not in configs:
                configs[ckey] = config_from_dict(apply(base_data, values), origin="--set",
                                                 default_name=base.name)
            gpu = configs[ckey]
            _check_timing(gpu, timing, values)
            columns = {f.name: None for f in spec.fields}
            columns.update({f.name: v for f, v in zip(swept, combo, strict=True)})
            run = {"config": config_to_dict(gpu), "policy": None if policy == NO_POLICY else policy,
                   "timing": timing, "dependences": spec.dependences if timing == "cycle" else None}
            for task_part, table_part, source_key in sources:
                key = _digest({"source": source_key, "run": run, "code": code})[:24]
                params = {**table_part, "policy": policy, "timing": timing, **columns}
                points.setdefault(key, Point(key, params, {"workload": task_part, **run}))
    order = {k: i for i, k in enumerate(_source_order(points.values(), sources))}
    return sorted(points.values(), key=lambda p: order[p.key])


def _source_order(points, sources) -> list[str]:
    """Keys with the workloads outermost (the loops above run them innermost)."""
    rank = {json.dumps(s[0], sort_keys=True): i for i, s in enumerate(sources)}
    indexed = list(enumerate(points))
    indexed.sort(key=lambda ip: (rank[json.dumps(ip[1].task["workload"], sort_keys=True)], ip[0]))
    return [p.key for _, p in indexed]
