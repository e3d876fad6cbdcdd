"""PNG charts of the analogues of tian15's Figures 1, 6, 8 and 11."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from golden.experiments.tian15 import PAPER  # noqa: E402
from golden.files import atomic_write  # noqa: E402

__all__ = ["plot_all"]


def _bars(ax, names, series: dict[str, list[float]], ylabel: str) -> None:
    x = np.arange(len(names))
    width = 0.8 / len(series)
    for i, (label, values) in enumerate(series.items()):
        ax.bar(x + (i - (len(series) - 1) / 2) * width, values, width, label=label)
    ax.set_xticks(x, names, rotation=45, ha="right")
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    if len(series) > 1:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))


def _save(fig, path: Path) -> None:
    fig.tight_layout()
    atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120))
    plt.close(fig)


def plot_all(rows: list[dict], avg: dict, out_dir: str | Path) -> list[Path]:
    """Write fig1_zero_reuse.png, fig6_bypass_share.png, fig8_misses.png, fig11_coverage_fp.png."""
    out = Path(out_dir)
    names = [r["workload"].split("/")[-1] for r in rows] + ["average"]

    def col(key):
        return [r.get(key, np.nan) for r in rows] + [avg.get(key, np.nan)]

    def single(key: str, label: str, ylabel: str, paper_label: str, title: str, name: str) -> Path:
        fig, ax = plt.subplots(figsize=(8, 3.5))
        _bars(ax, names, {label: col(key)}, ylabel)
        ax.axhline(PAPER[key][0], color="k", ls="--", lw=1, label=paper_label)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        ax.set_title(title)
        _save(fig, out / name)
        return out / name

    paths = [
        single("zero_reuse", "zero-reuse blocks", "share of evicted blocks", "tian15 average (46%)",
               "Zero-reuse blocks in the 16 KB L1 (cf. tian15 Fig. 1)", "fig1_zero_reuse.png"),
        single("bypass_share", "bypasses / misses", "share of L1 load misses", "tian15 average (58%)",
               "Ratio of bypasses to cache misses (cf. tian15 Fig. 6)", "fig6_bypass_share.png"),
    ]

    fig, ax = plt.subplots(figsize=(9, 3.5))
    _bars(ax, names, {"PC-based": col("misses_norm_pc-bypass"),
                      "counter-based": col("misses_norm_counter-bypass"),
                      "32 KB cache": col("misses_norm_baseline-32KB")}, "L1 misses / 16 KB baseline")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_title("L1 misses normalised to the 16 KB baseline (cf. tian15 Fig. 8)")
    paths.append(out / "fig8_misses.png")
    _save(fig, paths[-1])

    fig, ax = plt.subplots(figsize=(9, 3.5))
    _bars(ax, names, {"coverage": col("coverage"), "false positives": col("fp_rate"),
                      "false positives (SDBP def.)": col("fp_rate_sdbp")}, "rate")
    ax.set_title("Coverage and false positives of the PC-based predictor (cf. tian15 Fig. 11)")
    paths.append(out / "fig11_coverage_fp.png")
    _save(fig, paths[-1])
    return paths
