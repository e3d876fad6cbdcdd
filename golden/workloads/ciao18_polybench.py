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
:data:`SYR2K_GRID_ROWS` row of CTAs is emitted.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

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
from golden.workloads._polybench import Run
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
        wl = module.trace(run)
        set_regs(wl.kernels)
        wl.source = module.SOURCE
        wl.params.update(N=run.n, input_bytes=run.mem.footprint)
        return wl

    build.__doc__ = f"ciao18/{name}: {module.trace.__doc__.strip().splitlines()[0]}"
    return build


for _name, (_apki, _input, _nwarp, _fsmem, _bar, _cls) in TABLE_II.items():
    register_workload(
        "ciao18", _name, builder(_name), source=_MODULES[_name].SOURCE, version=1,
        description=f"Polybench/GPU {_name.upper()} at N = {SIZES[_name]} (ciao18 Table II)",
        apki=_apki, size=_input, N=SIZES[_name], n_warp=_nwarp, f_smem=_fsmem,
        barriers=_bar, cls=_cls)
