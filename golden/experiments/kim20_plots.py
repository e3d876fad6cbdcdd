"""PNG charts of the analogues of kim20's Figures 1, 3, 4 and 5."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from golden.experiments.kim20 import CONFIGS, PAPER  # noqa: E402
from golden.experiments.tian15_plots import _bars, _save  # noqa: E402

__all__ = ["plot_all"]


def plot_all(rows: list[dict], avg: dict, out_dir: str | Path) -> list[Path]:
    """Write fig1_miss_occupancy.png, fig3_miss_rate_k.png, fig4_two_level.png, fig5_accesses.png."""
    out = Path(out_dir)
    short = [r["workload"].split("/")[-1] for r in rows]
    names = short + ["average"]

    def col(key):
        return [r.get(key, np.nan) for r in rows] + [avg.get(key, np.nan)]

    def paper(key):
        return [PAPER[key][0].get(s, np.nan) for s in short] + [np.nan]

    paths = []
    fig, ax = plt.subplots(figsize=(10, 3.5))
    _bars(ax, names, {"miss rate": col("miss_rate"), "kim20 miss rate": paper("miss_rate"),
                      "occupancy": col("occupancy"), "kim20 occupancy": paper("occupancy")}, "fraction")
    ax.set_title("L1D miss rate and warp occupancy, no bypass (cf. kim20 Fig. 1)")
    paths.append(out / "fig1_miss_occupancy.png")
    _save(fig, paths[-1])

    fig, ax = plt.subplots(figsize=(11, 3.5))
    cfgs = [c for c in CONFIGS if c not in ("no-bypass", "two-level")]
    _bars(ax, names, {c: col(f"speedup_{c}") for c in cfgs}, "IPC / no bypass")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axhline(PAPER["speedup_k0.9"][0], color="k", ls="--", lw=1)
    ax.set_title("Miss-rate-only bypassing at k and L1 off (cf. kim20 Fig. 3; dashed: kim20's k = 0.9 "
                 "average)")
    paths.append(out / "fig3_miss_rate_k.png")
    _save(fig, paths[-1])

    fig, ax = plt.subplots(figsize=(10, 3.5))
    _bars(ax, names, {"two-level": col("speedup_two-level"), "L1 off": col("speedup_l1-off"),
                      "kim20 two-level": paper("speedup_two-level_per")}, "IPC / no bypass")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axhline(PAPER["speedup_two-level"][0], color="k", ls="--", lw=1)
    ax.set_title("Two-level bypassing (cf. kim20 Fig. 4; dashed: kim20's average +6.1%)")
    paths.append(out / "fig4_two_level.png")
    _save(fig, paths[-1])

    fig, ax = plt.subplots(figsize=(10, 3.5))
    _bars(ax, names, {"accesses": col("accesses_norm"), "misses": col("misses_norm"),
                      "bypassed": col("bypassed_share")}, "/ no-bypass L1 accesses")
    ax.set_title("Two-level's L1 accesses and misses (cf. kim20 Fig. 5)")
    paths.append(out / "fig5_accesses.png")
    _save(fig, paths[-1])
    return paths
