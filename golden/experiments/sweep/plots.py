"""PNG charts of a sweep: a metric against a swept field, one line per combination of the rest.

For each metric and each swept dimension with more than one value (a
``--set`` field, or the scale), :func:`plot_sweep` draws the metric
against that dimension's values, with one line per combination of the
other parameters that vary (workload, policy, timing, the other fields),
labelled with them. Numeric values are placed on a numeric axis; other
values (``gto``, ``lrr``) at even steps in the grid's order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from golden.files import atomic_write  # noqa: E402

__all__ = ["plot_sweep"]


def _numeric(values) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _file_name(metric: str, dim: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{metric}_vs_{dim}") + ".png"


def _plot_one(rows: Sequence[dict], metric: str, dim: str, others: list[str], path: Path) -> bool:
    xs = list(dict.fromkeys(r[dim] for r in rows if r.get(dim) is not None))
    numeric = _numeric(xs)
    position = {x: (x if numeric else i) for i, x in enumerate(xs)}
    lines: dict[tuple, list[tuple]] = {}
    for r in rows:
        y = r.get(metric)
        if r.get(dim) is None or not isinstance(y, int | float) or isinstance(y, bool) or \
                (isinstance(y, float) and math.isnan(y)):
            continue
        lines.setdefault(tuple(r.get(o) for o in others), []).append((position[r[dim]], y))
    if not lines:
        return False
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, pts in lines.items():
        pts.sort()
        text = " ".join(f"{o}={v}" for o, v in zip(others, label, strict=True) if v is not None)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=text or metric)
    if not numeric:
        ax.set_xticks(range(len(xs)), [str(x) for x in xs])
    elif len(xs) > 2 and min(xs) > 0 and max(xs) / min(xs) >= 16:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(dim)
    ax.set_ylabel(metric)
    ax.grid(alpha=0.3)
    ax.set_title(f"{metric} against {dim}")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight"))
    plt.close(fig)
    return True


def plot_sweep(rows: Sequence[dict], metrics: Sequence[str], dims: Sequence[str],
               out_dir: str | Path) -> list[Path]:
    """Write ``<metric>_vs_<dim>.png`` for each metric and each dimension that varies.

    Parameters
    ----------
    rows : sequence of dict
        The table rows (:func:`golden.experiments.sweep.table.table_rows`).
    metrics : sequence of str
        Metric columns to draw; a metric no row has is skipped.
    dims : sequence of str
        Candidate x axes (the swept fields and ``scale``); those with one value are skipped.
    out_dir : path-like
        Directory of the PNG files (created when missing).

    Returns
    -------
    list of Path
        The files written.
    """
    varying = [c for c in ("workload", "scale", "seed", "policy", "timing", *dims)
               if len({repr(r.get(c)) for r in rows}) > 1]
    written = []
    for dim in dict.fromkeys(d for d in dims if d in varying):
        others = [c for c in dict.fromkeys(varying) if c != dim]
        for metric in metrics:
            path = Path(out_dir) / _file_name(metric, dim)
            if _plot_one(rows, metric, dim, others, path):
                written.append(path)
    return written
