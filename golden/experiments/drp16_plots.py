"""PNG charts of the analogues of drp16's Figures 2 and 14: normalised LLC read misses per policy."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from golden.experiments.drp16 import PAPER  # noqa: E402
from golden.files import atomic_write  # noqa: E402

__all__ = ["plot_all"]

_CONFIG_INDEX = {1: 0, 2: 1, 4: 2}


def _short(p: str) -> str:
    return p.removeprefix("drp16-")


def _save(fig, path: Path) -> None:
    fig.tight_layout()
    atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120))
    plt.close(fig)


def _averages(ax, result: dict, policies: list[str], title: str) -> None:
    """Stacked CPU + GPU bars per policy, grouped by configuration; the paper's totals as markers."""
    configs = list(result["configs"])
    width = 0.8 / max(len(policies), 1)
    for g, c in enumerate(configs):
        avg = result["configs"][c]["average"]
        for i, p in enumerate(policies):
            if p not in avg:
                continue
            x = g + (i - (len(policies) - 1) / 2) * width
            ax.bar(x, avg[p]["norm_cpu"], width, color="tab:blue", edgecolor="white",
                   label="CPU (ours)" if g == i == 0 else None)
            ax.bar(x, avg[p]["norm_gpu"], width, bottom=avg[p]["norm_cpu"], color="tab:orange",
                   edgecolor="white", label="GPU (ours)" if g == i == 0 else None)
            ax.text(x, avg[p]["norm"] + 0.01, _short(p), rotation=90, ha="center", va="bottom", fontsize=6)
            if p in PAPER and c in _CONFIG_INDEX:
                ax.plot(x, PAPER[p][0][_CONFIG_INDEX[c]], "k_", markersize=10, mew=2,
                        label="paper (total)" if not ax.get_legend_handles_labels()[1].count("paper (total)")
                        else None)
    ax.set_xticks(range(len(configs)), [result["configs"][c]["label"] for c in configs])
    ax.set_ylabel("LLC read misses / Baseline (SRRIP)")
    ax.set_ylim(0, 1.35)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")


def _per_mix(ax, rows: list[dict], policies: list[str], label: str) -> None:
    names = [r["mix"] for r in rows]
    x = np.arange(len(names))
    width = 0.8 / max(len(policies), 1)
    for i, p in enumerate(policies):
        ax.bar(x + (i - (len(policies) - 1) / 2) * width, [r["policies"][p]["norm"] for r in rows], width,
               label=_short(p))
    ax.set_xticks(x, names, rotation=45, ha="right")
    ax.set_ylabel("read misses / Baseline")
    ax.set_title(f"{label}: normalised LLC read misses per mix")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=4, loc="upper left", bbox_to_anchor=(1.0, 1.0))


def plot_all(result: dict, out_dir: str | Path) -> list[Path]:
    """Write fig2_read_misses.png, fig14_read_misses.png and one per-mix chart per configuration."""
    out = Path(out_dir)
    first = next(iter(result["configs"].values()))["average"]
    policies = list(first)
    fig14 = [p for p in ("drp16-baseline", "drp16-ship-hybrid", "drp16-drp") if p in first]
    fig2 = [p for p in policies if p not in ("drp16-drp", "drp16-helm")]
    paths = []
    for name, pols, title in (("fig2_read_misses.png", fig2, "Fig. 2 analogue (stand-in workloads)"),
                              ("fig14_read_misses.png", fig14 + [p for p in policies if p == "drp16-helm"],
                               "Fig. 14 analogue (stand-in workloads)")):
        fig, ax = plt.subplots(figsize=(10, 4.5))
        _averages(ax, result, pols, title)
        paths.append(out / name)
        _save(fig, paths[-1])
    for c, cfg in result["configs"].items():
        fig, ax = plt.subplots(figsize=(12, 4))
        _per_mix(ax, cfg["rows"], policies, cfg["label"])
        paths.append(out / f"mixes_{c}c1g.png")
        _save(fig, paths[-1])
    return paths
