"""Helpers of the kim20 suite's emulators: Fig. 1's figures and per-kernel resources.

kim20 (Kim & Kim, *Two-level L1D bypassing*) evaluates twelve benchmarks
from Rodinia, Polybench, the CUDA SDK 8.0 and Tango and names none of their
inputs. Fig. 1 gives the measured L1 data-cache miss rate of six and the
warp occupancy of five of them, plus a bound (below 46 %) for the
bypass-friendly ones; :data:`FIG1` holds them, as the text of Section 2
states them, and every kim20 module registers its own row as the
workload's ``paper`` figures (keys ``l1_miss`` and ``occupancy``, in %).

The timing model limits residency with each kernel's shared memory per CTA
and registers per thread: :func:`with_resources` sets both on launches built
by shared emulators (the Rodinia and Polybench machinery) that do not take
them as arguments.
"""

from __future__ import annotations

from collections.abc import Iterable

from golden.trace.model import KernelTrace

__all__ = ["FIG1", "SUITE", "BYPASS_OCCUPANCY", "paper_figures", "with_resources"]

SUITE = "kim20"

#: Fig. 1's bound on the warp occupancy of ADI, NW, LUD, JCB1D, SHFL and SQN ("less than 46%").
BYPASS_OCCUPANCY = "<46"

#: kim20 Fig. 1 as quoted in Section 2 and 5: L1D miss rate and warp occupancy, in %.
FIG1: dict[str, dict[str, float | str]] = {
    "spmv": {"occupancy": 89.0},
    "bt": {"occupancy": 84.0},
    "stc": {"l1_miss": 73.0, "occupancy": 93.0},
    "cf": {"l1_miss": 4.6},
    "adi": {"occupancy": BYPASS_OCCUPANCY},
    "pf": {"l1_miss": 99.0},
    "nw": {"occupancy": BYPASS_OCCUPANCY},
    "lud": {"l1_miss": 72.0, "occupancy": 18.0},
    "jcb1d": {"occupancy": BYPASS_OCCUPANCY},
    "ms": {"l1_miss": 95.0},
    "shfl": {"l1_miss": 68.0, "occupancy": BYPASS_OCCUPANCY},
    "sqn": {"occupancy": BYPASS_OCCUPANCY},
}


def paper_figures(name: str) -> dict:
    """``WorkloadSpec.paper`` entries of kim20 workload ``name``: its Fig. 1 figures."""
    return {**FIG1[name], "figure": "kim20 Fig. 1"}


def with_resources(kernels: Iterable[KernelTrace], regs: dict[str, int],
                   shared: dict[str, int] | None = None) -> list[KernelTrace]:
    """Set ``regs_per_thread`` (and ``shared_bytes`` when given) of each launch by kernel name.

    Parameters
    ----------
    kernels : iterable of KernelTrace
        Launches, modified in place.
    regs : dict
        Registers per thread of every kernel name among the launches.
    shared : dict, optional
        Shared memory per CTA in bytes, for kernels whose emulator does not set it.

    Returns
    -------
    list of KernelTrace
        The launches.

    Raises
    ------
    KeyError
        If a launch's kernel has no register count: every kernel must carry one.
    """
    out = list(kernels)
    for k in out:
        if k.name not in regs:
            raise KeyError(f"no register count for kernel {k.name!r}")
        k.regs_per_thread = int(regs[k.name])
        if shared is not None and k.name in shared:
            k.shared_bytes = int(shared[k.name])
    return out
