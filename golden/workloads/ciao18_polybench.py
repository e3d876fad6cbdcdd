"""ciao18 Polybench/GPU workloads: the rdgc emulators' kernels at ciao18 Table II's input sizes.

ciao18 (Zhang et al., IPDPS'18) Table II evaluates eight Polybench/GPU 1.0
programs (its reference [24]). Their kernels are those of the rdgc suite,
written once in the ``rdgc_*`` modules from ``CUDA/<NAME>/<name>.cu`` of
Polybench/GPU 1.0 (read from the mirror ``Lai-YT/polybench``); this module runs
each module's ``trace(run)`` with a :class:`~golden.workloads._polybench.Run`
of ciao18's size, names the workload ``ciao18/<name>`` and sets every kernel's
registers per thread (Polybench kernels declare no ``__shared__`` memory, so
``shared_bytes`` stays 0, ciao18 Table II's F_smem = 0%).

Sizes (docs/workloads/ciao18.md): Table II's "Input" is matched by the bytes
of the device arrays the program allocates (``N x N`` floats each):
ATAX, BICG, MVT 4096 (64 MiB), GESUMMV 4096 (two matrices, 128 MiB), SYR2K
2048 (three, 48 MiB), SYRK 256 (two, 512 KiB), 2DCONV 2896 (two, 64 MiB),
CORR 512 (two ``513 x 513``, 2 MiB). SYR2K's 2048 x 2048 launch is
16,384 CTAs of 2048 trips (1.3 G warp instructions); only its first
:data:`SYR2K_GRID_ROWS` row of CTAs is emitted. CORR runs the whole program
(:func:`corr_program`), where rdgc emits its ``corr_kernel`` only.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np

from golden.trace.model import Workload
from golden.workloads import (
    rdgc_2dconv,
    rdgc_atax,
    rdgc_bicg,
    rdgc_corr,
    rdgc_gesummv,
    rdgc_mvt,
    rdgc_syr2k,
    rdgc_syrk,
)
from golden.workloads._common import register_workload
from golden.workloads._polybench import ELEM, Run, ld, st, symmat_kernel, update
from golden.workloads.ciao18_regs import set_regs

__all__ = ["SIZES", "SYR2K_GRID_ROWS", "TABLE_II", "builder"]

#: ciao18 Table II per program: (APKI, Input, N_warp, F_smem, barriers, class).
TABLE_II = {
    "atax": (64, "64MB", 2, 0.00, False, "LWS"),
    "bicg": (64, "64MB", 2, 0.00, False, "LWS"),
    "mvt": (64, "64MB", 2, 0.00, False, "LWS"),
    "gesummv": (136, "128MB", 2, 0.00, False, "SWS"),
    "syr2k": (108, "48MB", 6, 0.00, False, "SWS"),
    "syrk": (94, "512KB", 6, 0.00, False, "SWS"),
    "2dconv": (9, "64MB", 36, 0.00, False, "CI"),
    "corr": (10, "2MB", 48, 0.00, False, "CI"),
}

#: N at scale 1: the side whose device arrays add up to Table II's input.
SIZES = {"atax": 4096, "bicg": 4096, "mvt": 4096, "gesummv": 4096, "syr2k": 2048,
         "syrk": 256, "2dconv": 2896, "corr": 512}

#: Rows of CTAs of SYR2K's 64 x 256 grid that are emitted (64 CTAs of 256 threads).
SYR2K_GRID_ROWS = 1

_MODULES: dict[str, ModuleType] = {
    "atax": rdgc_atax, "bicg": rdgc_bicg, "mvt": rdgc_mvt, "gesummv": rdgc_gesummv,
    "syr2k": rdgc_syr2k, "syrk": rdgc_syrk, "2dconv": rdgc_2dconv, "corr": rdgc_corr,
}
_MINIMUM = {"2dconv": 3, "corr": 2}

#: correlation.cu's FLOAT_N and EPS.
FLOAT_N = np.float32(3214212.01)
EPS = np.float32(0.005)


def corr_program(run: Run) -> Workload:
    """All four CORR launches: ``mean_kernel``, ``std_kernel``, ``reduce_kernel``, ``corr_kernel``.

    rdgc emits ``corr_kernel`` only (rdgc Table 4); ciao18 runs the program.
    ``correlation.cu`` (Polybench/GPU 1.0), ``j = blockIdx.x * 256 + threadIdx.x + 1``::

        mean_kernel:   mean[j] = 0; for i in 1..N: mean[j] += data[i][j];  mean[j] /= FLOAT_N;
        std_kernel:    std[j] = 0;  for i in 1..N: std[j] += (data[i][j] - mean[j])^2;
                       std[j] /= FLOAT_N; std[j] = sqrt(std[j]); if (std[j] <= EPS) std[j] = 1;
        reduce_kernel: (32 x 8 CTAs, i = blockIdx.y * 8 + threadIdx.y + 1)
                       data[i][j] -= mean[j];  data[i][j] /= sqrt(FLOAT_N) * std[j];

    with ``data[i][j] = data[i * (M + 1) + j]``. nvcc forwards ``mean[j]`` and
    ``std[j]`` from their own stores (only loads between) but reloads
    ``mean[j]`` in ``std_kernel``'s loop and ``std[j]`` in ``reduce_kernel`` after
    the store through the other pointer. Which columns take ``std[j] = 1`` comes
    from ``init_arrays``' data (``i * j / (M + 1)``), computed in ``float``.
    """
    m = n = run.n
    data, symmat, std, mean = run.alloc(data=(m + 1) * (n + 1), symmat=(m + 1) * (n + 1),
                                        stddev=m + 1, mean=m + 1)
    row = (m + 1) * ELEM
    kernels = []
    # mean_kernel
    em, t = run.launch_1d("mean_kernel", m, 256, prologue=1 + 2)
    j = t + 1
    active = j < m + 1
    col, mean_j, std_j = j * ELEM, mean + (t + 1) * ELEM, std + (t + 1) * ELEM
    em.straight([st("mean:st_mean0", mean_j)], active=active)
    em.loop(update("mean:mean", mean_j, [ld("mean:ld_data", col, data + row, step=row)],
                   forwarded="always", flops=1), n, active=active)
    em.straight(update("mean:mean_div", mean_j, [], forwarded="always", flops=1), active=active)
    kernels.append(em.finish())
    # std_kernel
    em, t = run.launch_1d("std_kernel", m, 256, prologue=1 + 2)
    em.straight([st("std:st_std0", std_j)], active=active)
    em.loop(update("std:std", std_j, [ld("std:ld_data", col, data + row, step=row),
                                      ld("std:ld_mean", mean_j)],
                   forwarded="always", flops=3), n, active=active)  # subtract, multiply, add
    em.straight(update("std:std_div", std_j, [], forwarded="always", flops=1)
                + update("std:std_sqrt", std_j, [], forwarded="always", flops=1)
                + [ld("std:ld_std_eps", std_j, forwarded="always")], active=active)
    small = _small_std(m, n)
    em.straight([st("std:st_std_one", std_j, gap=2)], active=active & small[np.minimum(t, m - 1)])
    kernels.append(em.finish())
    # reduce_kernel
    em, i, t = run.launch_2d("reduce_kernel", m, n, (32, 8), prologue=2 + 4)
    elem = (i + 1) * row + (t + 1) * ELEM
    em.straight(update("reduce:data", elem, [ld("reduce:ld_mean", mean + (t + 1) * ELEM)], data,
                       flops=1)
                + update("reduce:data_div", elem, [ld("reduce:ld_std", std + (t + 1) * ELEM)],
                         data, forwarded="always", flops=2),
                active=(i < n) & (t < m))
    kernels.append(em.finish())
    kernels.append(symmat_kernel(run, "corr_kernel", m=m, n=n, first=1, block=256, data=data,
                                 symmat=symmat, diagonal=True))
    return run.workload("corr", kernels, rdgc_corr.SOURCE.replace(" (corr_kernel)", ""), m=m, n=n)


def _small_std(m: int, n: int) -> np.ndarray:
    """Columns ``j = 1 .. m`` whose ``std_kernel`` result is at most EPS (``float`` arithmetic)."""
    i = np.arange(1, n + 1, dtype=np.float32)[:, None]
    j = np.arange(1, m + 1, dtype=np.float32)[None, :]
    d = i * j / np.float32(m + 1)
    mean = d.sum(0, dtype=np.float32) / FLOAT_N
    std = np.sqrt(((d - mean) ** 2).sum(0, dtype=np.float32) / FLOAT_N)
    return std <= EPS


def builder(name: str) -> Callable[[float, int], Workload]:
    """``build(scale, seed)`` of ``ciao18/<name>``: the rdgc kernels at ``SIZES[name] * scale``.

    ``seed`` is unused (no Polybench address depends on data). Kernels get their
    registers per thread from :data:`golden.workloads.ciao18_regs.REGS`.
    """
    module = _MODULES[name]

    def build(scale: float = 1.0, seed: int = 0) -> Workload:
        rows = SYR2K_GRID_ROWS if name == "syr2k" else None
        run = Run(SIZES[name], scale, "compiled", _MINIMUM.get(name, 1), suite="ciao18",
                  max_grid_rows=rows)
        wl = corr_program(run) if name == "corr" else module.trace(run)
        set_regs(wl.kernels)
        wl.source = module.SOURCE.replace(" (corr_kernel)", "")
        wl.params.update(N=run.n, input_bytes=run.mem.footprint)
        return wl

    build.__doc__ = f"ciao18/{name}: {module.trace.__doc__.strip().splitlines()[0]}"
    return build


for _name, (_apki, _input, _nwarp, _fsmem, _bar, _cls) in TABLE_II.items():
    register_workload(
        "ciao18", _name, builder(_name), version=2 if _name == "corr" else 1,
        source=_MODULES[_name].SOURCE.replace(" (corr_kernel)", ""),
        description=f"Polybench/GPU {_name.upper()} at N = {SIZES[_name]} (ciao18 Table II)",
        apki=_apki, size=_input, N=SIZES[_name], n_warp=_nwarp, f_smem=_fsmem,
        barriers=_bar, cls=_cls)
