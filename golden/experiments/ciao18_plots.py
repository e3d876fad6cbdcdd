"""PNG time series of ciao18's Figs. 9 and 10 analogues: IPC, active warps and interference over time."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from golden.experiments.ciao18 import SCHEDULERS, TIME_SERIES  # noqa: E402
from golden.experiments.tian15_plots import _save  # noqa: E402

__all__ = ["plot_time_series", "per_period"]


def per_period(run: dict) -> dict[str, np.ndarray]:
    """A run's time series per row: ``cycle``, ``ipc`` (warp instructions per cycle since the row
    before; NaN for a row at cycle 0, which has no cycles behind it), ``active_warps`` and
    ``resident_warps`` (GPU), ``vta_hits`` (since the row before)."""
    cols = run["series"]["columns"]
    a = np.asarray(run["series"]["rows"], dtype=float).reshape(-1, len(cols))
    c = {name: a[:, i] for i, name in enumerate(cols)}
    dt = np.diff(c["cycle"], prepend=0)
    ipc = np.divide(np.diff(c["instructions"], prepend=0), dt, out=np.full(len(dt), np.nan), where=dt > 0)
    return {"cycle": c["cycle"], "ipc": ipc,
            "active_warps": c["active_warps"], "resident_warps": c["resident_warps"],
            "vta_hits": np.diff(c["vta_hits"], prepend=0)}


def plot_time_series(rows: list[dict], out_dir: str | Path) -> list[Path]:
    """One PNG per row (``fig9_10_<workload>.png``) with the schedulers its figure compares and GTO.

    Three panels over cycles, as Figs. 9 and 10: IPC (warp instructions per cycle), active warps
    (resident, within the warp limit, not stalled or throttled by the policy) and interference
    (VTA hits per series period, for the schedulers that have a VTA: CCWS and CIAO; GTO and
    Best-SWL have none to count with).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for r in rows:
        name = r["workload"].split("/")[-1]
        fig, (ax1, ax2, ax3) = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
        for s in ("gto", *TIME_SERIES.get(name, tuple(s for s in r["runs"] if s != "gto"))):
            run = r["runs"].get(s)
            if run is None or not run.get("series") or len(run["series"]["rows"]) == 0:
                continue
            p = per_period(run)
            label = s if s != "best-swl" else f"best-swl (N={run['warp_limit']})"
            # One colour per scheduler in every panel and figure.
            style = {"lw": 0.8, "color": "0.6", "ls": "--"} if s == "gto" else \
                {"lw": 1, "color": f"C{SCHEDULERS.index(s)}"}
            ax1.plot(p["cycle"], p["ipc"], label=label, **style)
            ax2.plot(p["cycle"], p["active_warps"], label=label, **style)
            if s not in ("gto", "best-swl", "statpcal"):
                ax3.plot(p["cycle"], p["vta_hits"], label=label, **style)
        ax1.set_ylabel("IPC (warp instr.)")
        ax1.set_title(f"{name}: IPC, active warps and interference over time")
        ax2.set_ylabel("active warps (GPU)")
        ax3.set_ylabel("VTA hits per period")
        ax3.set_xlabel("cycle")
        ax1.legend(fontsize=8)
        ax3.legend(fontsize=8)
        path = out / f"fig9_10_{name}.png"
        _save(fig, path)
        paths.append(path)
    return paths
