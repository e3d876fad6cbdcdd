"""PNG time series of ciao18's Figs. 9 and 10 analogues: IPC and resident warps over time per scheduler."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from golden.experiments.tian15_plots import _save  # noqa: E402

__all__ = ["plot_time_series"]


def plot_time_series(rows: list[dict], out_dir: str | Path) -> list[Path]:
    """One PNG per row (``fig9_10_<workload>.png``): IPC per series period and resident warps, per scheduler.

    Resident warps include warps a scheduler has throttled (the timing model's series counts
    residency, not issue eligibility).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for r in rows:
        fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
        for s, run in r["runs"].items():
            if run is None or not run["series"]["rows"]:
                continue
            a = np.asarray(run["series"]["rows"], dtype=float)
            cyc, inst, warps = a[:, 0], a[:, 1], a[:, 2]
            ipc = np.diff(inst, prepend=0) / np.maximum(np.diff(cyc, prepend=0), 1)
            label = s if s != "best-swl" else f"best-swl (N={run['warp_limit']})"
            ax1.plot(cyc, ipc, label=label, lw=1)
            ax2.plot(cyc, warps, label=label, lw=1)
        name = r["workload"].split("/")[-1]
        ax1.set_ylabel("IPC")
        ax1.set_title(f"{name}: IPC and resident warps over time")
        ax2.set_ylabel("resident warps (GPU)")
        ax2.set_xlabel("cycle")
        ax1.legend(fontsize=8)
        path = out / f"fig9_10_{name}.png"
        _save(fig, path)
        paths.append(path)
    return paths
