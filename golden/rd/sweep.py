"""Sweeps of a cache parameter: many cache sizes from one RD pass where RD analysis allows it.

With rdgc's shared counters (one stack per bank), a cache of any size is
the same stack cut at another depth, so every swept size is evaluated in
the pass of the configured machine (:attr:`RDOptions.l1_sweep`), with that
machine's access order and timing; the MSHR and step figures are the
configured cache's. With exact per-set counting the sets themselves
change with the size or associativity, and each point is its own pass.
"""

from __future__ import annotations

import dataclasses

import matplotlib

matplotlib.use("Agg")  # files only, no display

from golden.configs.schema import GPUConfig  # noqa: E402
from golden.errors import InputError  # noqa: E402
from golden.rd.model import RDOptions, RDResult, analyse  # noqa: E402
from golden.trace.io import atomic_write  # noqa: E402
from golden.trace.model import Workload  # noqa: E402

__all__ = ["SWEEP_FIELDS", "parse_sweep", "sweep", "plot_sweep"]

#: Fields a sweep can vary.
SWEEP_FIELDS = ("l1.size", "l1.assoc", "l2.size", "l2.assoc")
_UNITS = {"K": 1024, "M": 1024 * 1024}


def _value(text: str) -> int:
    t = text.strip().upper().removesuffix("B")
    mult = _UNITS.get(t[-1:], 1)
    if t[-1:] in _UNITS:
        t = t[:-1]
    v = int(t) * mult
    if v < 1:
        raise ValueError
    return v


def parse_sweep(text: str) -> tuple[str, list[int]]:
    """``"l1.size=8K,16K,32K"`` as ``("l1.size", [8192, 16384, 32768])``.

    Raises
    ------
    InputError
        For an unknown field or a value that is not a positive integer (K/M suffixes allowed).
    """
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not values.strip():
        raise InputError(f"sweep: expected FIELD=V1,V2,... not {text!r}")
    if name not in SWEEP_FIELDS:
        raise InputError(f"sweep: unknown field {name!r} (one of {', '.join(SWEEP_FIELDS)})")
    out = []
    for v in values.split(","):
        try:
            out.append(_value(v))
        except ValueError:
            raise InputError(f"sweep: {name}: {v.strip()!r} is not a positive integer") from None
    return name, sorted(set(out))


def _machine(gpu: GPUConfig, name: str, value: int) -> GPUConfig:
    level, field = name.split(".")
    try:
        return gpu.replace(**{level: getattr(gpu, level).replace(**{field: value})})
    except ValueError as e:
        raise InputError(f"sweep: {name}={value}: {e}") from None


def sweep(workload: Workload, gpu: GPUConfig, options: RDOptions, name: str, values: list[int]
          ) -> tuple[RDResult, list[dict], int]:
    """Evaluate ``name`` at every value.

    Returns
    -------
    result : RDResult
        The configured machine's analysis.
    points : list of dict
        ``{"value", "read_hit_ratio"}`` per value, of the swept level.
    passes : int
        RD passes it took (1 with shared counters over a size).
    """
    level, field = name.split(".")
    for v in values:
        _machine(gpu, name, v)  # every point must be a valid cache
    if not options.l1 and level == "l1":
        raise InputError("sweep: the L1 is disabled (--l1 off): sweep an l2 field")
    if options.counting == "shared" and field == "size":
        cfg = getattr(gpu, level)
        stacks = cfg.banks * (gpu.l2_partitions if level == "l2" else 1)
        blocks = []
        for v in values:
            if v % (cfg.line_size * stacks):
                raise InputError(f"sweep: {name}={v} is not a whole number of {cfg.line_size}-byte "
                                 f"lines in each of {stacks} banks")
            blocks.append(v // cfg.line_size // stacks)
        opts = dataclasses.replace(options, **{f"{level}_sweep": tuple(blocks)})
        res = analyse(workload, gpu, opts)
        lev = getattr(res, level)
        points = [{"value": v, "read_hit_ratio": lev.sweep[b] / lev.reads if lev.reads else float("nan")}
                  for v, b in zip(values, blocks, strict=True)]
        return res, points, 1
    res = analyse(workload, gpu, options)
    points = []
    for v in values:
        lev = getattr(analyse(workload, _machine(gpu, name, v), options), level)
        points.append({"value": v, "read_hit_ratio": lev.read_hit_ratio})
    return res, points, 1 + len(values)


def plot_sweep(points: list[dict], name: str, path: str, title: str) -> None:
    """A PNG of the read hit ratio against the swept value, written atomically."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [p["value"] for p in points]
    scale, unit = (1024, "KB") if name.endswith("size") and min(xs) >= 1024 else (1, "")
    ax.plot([x / scale for x in xs], [100 * p["read_hit_ratio"] for p in points], marker="o")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"{name} ({unit})" if unit else name)
    ax.set_ylabel(f"{name.split('.')[0].upper()} read hit ratio (%)")
    ax.set_ylim(0, 100)
    ax.grid(True, alpha=0.3)
    ax.set_title(title)
    fig.tight_layout()
    try:
        atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120))
    finally:
        plt.close(fig)
