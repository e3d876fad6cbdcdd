"""drp16 Table 3: the heterogeneous mixes S1-S18 (1C1G), D1-D18 (2C1G), Q1-Q18 (4C1G), as LLC model input.

A mix is the GPU workload of row ``n`` (a game-title stand-in,
:mod:`golden.llc.frames`, for rows 1-14; a CUDA application,
:mod:`golden.llc.cuda`, for rows 15-18) and one, two or four CPU
applications (stand-ins, :mod:`golden.llc.cpu_streams`), one per core.
The GPU rows are LLC accesses (already filtered by the GPU's caches); the
CPU rows are each core's L1 references (the LLC model's private caches
filter them). drp16 runs every CPU application for 250 M instructions
while the GPU renders its frames; here each core makes ``CPU_REFERENCES x
scale`` references and the sources are interleaved uniformly in time: a
source with ``n`` rows places row ``i`` at time ``(i + 0.5) / n`` and the
rows are merged by time (ties: GPU, then core 0, 1, ...).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from golden.errors import InputError
from golden.llc.cpu_streams import cpu_stream
from golden.llc.cuda import APPS, cuda_stream
from golden.llc.frames import TITLES, frame_stream
from golden.llc.model import LLC_TRACE_DTYPE

__all__ = ["CONFIGS", "CPU_REFERENCES", "GPU_WORKLOADS", "MIXES", "Mix", "build_mix", "mix_names", "get_mix"]

#: Core count of each configuration and the letter of its mixes.
CONFIGS = {1: "S", 2: "D", 4: "Q"}
#: L1 references of each CPU core at scale 1.
CPU_REFERENCES = 4_000_000

#: drp16 Table 3's GPU workloads, rows 1-18.
GPU_WORKLOADS = tuple(TITLES) + tuple(APPS)

_TABLE3 = (  # (1C1G, 2C1G, 4C1G) CPU applications, rows 1-18
    (("wrf",), ("mcf", "milc"), ("gcc.166.i", "soplex.pds-50", "sphinx3", "wrf")),
    (("omnetpp",), ("bwaves", "milc"), ("gcc.166.i", "mcf", "sphinx3", "zeusmp")),
    (("lbm",), ("bzip2.source", "lbm"), ("bzip2.source", "lbm", "leslie3d", "soplex.pds-50")),
    (("sphinx3",), ("lbm", "libquantum"), ("bzip2.source", "lbm", "libquantum", "omnetpp")),
    (("lbm",), ("bzip2.source", "lbm"), ("bzip2.source", "lbm", "leslie3d", "soplex.pds-50")),
    (("mcf",), ("soplex.pds-50", "wrf"), ("mcf", "milc", "sphinx3", "zeusmp")),
    (("libquantum",), ("libquantum", "omnetpp"), ("bwaves", "libquantum", "milc", "omnetpp")),
    (("gcc.166.i",), ("bwaves", "omnetpp"), ("bwaves", "mcf", "milc", "zeusmp")),
    (("libquantum",), ("libquantum", "omnetpp"), ("bwaves", "libquantum", "milc", "omnetpp")),
    (("leslie3d",), ("gcc.166.i", "wrf"), ("bwaves", "mcf", "milc", "omnetpp")),
    (("bwaves",), ("mcf", "zeusmp"), ("bzip2.source", "leslie3d", "soplex.pds-50", "wrf")),
    (("zeusmp",), ("bzip2.source", "leslie3d"), ("gcc.166.i", "leslie3d", "soplex.pds-50", "wrf")),
    (("soplex.pds-50",), ("sphinx3", "zeusmp"), ("bzip2.source", "lbm", "leslie3d", "libquantum")),
    (("zeusmp",), ("bzip2.source", "leslie3d"), ("gcc.166.i", "leslie3d", "soplex.pds-50", "wrf")),
    (("sphinx3",), ("lbm", "libquantum"), ("bzip2.source", "lbm", "libquantum", "omnetpp")),
    (("gcc.166.i",), ("libquantum", "omnetpp"), ("bwaves", "libquantum", "milc", "omnetpp")),
    (("mcf",), ("libquantum", "omnetpp"), ("bwaves", "libquantum", "milc", "omnetpp")),
    (("libquantum",), ("gcc.166.i", "wrf"), ("bwaves", "mcf", "milc", "omnetpp")),
)


class Mix(NamedTuple):
    """One heterogeneous mix: its name (``S3``), core count, GPU workload and CPU applications."""

    name: str
    cores: int
    row: int
    gpu: str
    cpu: tuple[str, ...]


#: Every mix of Table 3, by name.
MIXES: dict[str, Mix] = {}
for _row, (_gpu, _apps) in enumerate(zip(GPU_WORKLOADS, _TABLE3, strict=True), start=1):
    for _cores, _cpu in zip(CONFIGS, _apps, strict=True):
        _m = Mix(f"{CONFIGS[_cores]}{_row}", _cores, _row, _gpu, _cpu)
        MIXES[_m.name] = _m


def mix_names(cores: int) -> list[str]:
    """The 18 mixes of a configuration (1, 2 or 4 cores), in Table 3's order.

    Raises
    ------
    InputError
        For another core count.
    """
    if cores not in CONFIGS:
        raise InputError(f"cores: drp16's configurations have 1, 2 or 4 CPU cores, not {cores!r}")
    return [f"{CONFIGS[cores]}{n}" for n in range(1, 19)]


def get_mix(name: str) -> Mix:
    """The mix called ``name`` (``S1`` .. ``Q18``).

    Raises
    ------
    InputError
        For an unknown name.
    """
    if name not in MIXES:
        raise InputError(f"unknown mix {name!r}; mixes are S1-S18, D1-D18 and Q1-Q18 (drp16 Table 3)")
    return MIXES[name]


def gpu_stream(workload: str, scale: float, seed: int) -> np.ndarray:
    """The LLC accesses of a Table 3 GPU workload (stand-in or CUDA emulator)."""
    if workload in TITLES:
        return frame_stream(workload, scale, seed)
    return cuda_stream(workload, scale, seed)


def build_mix(mix: Mix | str, scale: float = 1.0, seed: int = 0, gpu: np.ndarray | None = None) -> np.ndarray:
    """The mix's input for :class:`~golden.llc.model.LLCModel` (``LLC_TRACE_DTYPE`` rows, global order).

    Parameters
    ----------
    mix : Mix or str
        The mix.
    scale : float
        Workload size factor (the LLC's scale).
    seed : int
        Base seed: the GPU workload uses ``seed + row``, core ``k``'s application
        ``seed + 100 row + k``.
    gpu : numpy.ndarray, optional
        The GPU workload's stream when already built (the same for Sn, Dn, Qn).
    """
    m = get_mix(mix) if isinstance(mix, str) else mix
    if gpu is None:
        gpu = gpu_stream(m.gpu, scale, seed + m.row)
    parts, times = [gpu], [(np.arange(gpu.size) + 0.5) / max(gpu.size, 1)]
    n = max(1, round(CPU_REFERENCES * scale))
    for k, app in enumerate(m.cpu):
        ref = cpu_stream(app, n, scale, seed + 100 * m.row + k, base=(k + 1) << 36)
        rows = np.zeros(n, LLC_TRACE_DTYPE)
        rows["stream"], rows["op"], rows["pc"], rows["line"] = k, ref["op"], ref["pc"], ref["line"]
        parts.append(rows)
        times.append((np.arange(n) + 0.5) / n)
    order = np.argsort(np.concatenate(times), kind="stable")
    return np.concatenate(parts)[order]
