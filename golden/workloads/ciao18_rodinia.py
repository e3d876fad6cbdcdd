"""ciao18 Rodinia workloads whose kernels other suites already emulate: backprop, hotspot, lud, nn, nw.

ciao18 Table II evaluates Rodinia (its reference [9]) CUDA programs. Five
of them are emulated elsewhere from the same Rodinia 3.1 CUDA files, and
run here at Table II's input sizes (docs/workloads/ciao18.md):

``backprop``
    :func:`golden.workloads._rodinia.backprop_kernels` (``cuda/backprop``),
    65536 input units, Rodinia's run script: the input layer and its
    ``(n + 1) x 17`` weight matrix are 4.7 MB, Table II's 5 MB (the program's
    arrays, with the previous-weights copy, are 9.4 MB).
``hotspot``
    :func:`golden.workloads.rdgc_hotspot.hotspot_kernels` (``cuda/hotspot``),
    512 x 512 (``temp_512``/``power_512``: 2 MB), pyramid height 2, 2 steps.
``lud``
    :func:`golden.workloads.tian15_lud.lud_kernels` (``cuda/lud``, the CUDA
    kernels), an 80 x 80 matrix (25 KB).
``nn``
    :func:`golden.workloads.tian15_nn.nearest_neighbor_kernel` with CUDA
    ``euclid``'s 256-thread CTAs (``cuda/nn/nn_cuda.cu``), 42764 records
    (Rodinia's ``filelist_4``; their 8-byte records are Table II's 334 KB).
``nw``
    :func:`golden.workloads._rodinia.needle_kernels` (``cuda/nw``),
    2048-long sequences (two ``2049 x 2049`` int matrices: 32 MB).

Every kernel gets ptxas's register count (:mod:`golden.workloads.ciao18_regs`);
shared memory per CTA is set by the shared emulators from the sources'
``__shared__`` declarations.
"""

from __future__ import annotations

from collections.abc import Callable

from golden.trace.model import KernelTrace, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._rodinia import BLOCK, backprop_kernels, needle_kernels
from golden.workloads.ciao18_regs import set_regs
from golden.workloads.rdgc_hotspot import PYRAMID_HEIGHT, SIM_TIME, hotspot_kernels
from golden.workloads.tian15_lud import BS, lud_kernels
from golden.workloads.tian15_nn import nearest_neighbor_kernel

__all__ = ["SIZES", "TABLE_II"]

#: ciao18 Table II per program: (APKI, Input, N_warp, F_smem, barriers, class).
TABLE_II = {
    "backprop": (3, "5MB", 36, 0.13, True, "CI"),
    "hotspot": (1, "2MB", 48, 0.19, True, "CI"),
    "lud": (2, "25KB", 38, 0.50, True, "CI"),
    "nn": (8, "334KB", 48, 0.00, False, "CI"),
    "nw": (5, "32MB", 48, 0.35, True, "CI"),
}

#: Size parameter at scale 1 (input units, grid side, matrix side, records, sequence length).
SIZES = {"backprop": 65_536, "hotspot": 512, "lud": 80, "nn": 42_764, "nw": 2048}

#: CUDA nn's ``DEFAULT_THREADS_PER_BLOCK``.
NN_BLOCK = 256

_SOURCES = {
    "backprop": "Rodinia 3.1 cuda/backprop/backprop_cuda_kernel.cu, backprop_cuda.cu",
    "hotspot": "Rodinia 3.1 cuda/hotspot/hotspot.cu (calculate_temp)",
    "lud": "Rodinia 3.1 cuda/lud/cuda/lud_kernel.cu, lud.cu",
    "nn": "Rodinia 3.1 cuda/nn/nn_cuda.cu (euclid)",
    "nw": "Rodinia 3.1 cuda/nw/needle_kernel.cu, needle.cu",
}


def _backprop(scale: float, mem: DeviceMemory, pcs: PCs) -> tuple[list[KernelTrace], dict]:
    n_in = scaled(SIZES["backprop"], scale, multiple=BLOCK)
    return backprop_kernels(n_in, mem=mem, pcs=pcs), {"input_units": n_in, "hidden_units": BLOCK}


def _hotspot(scale: float, mem: DeviceMemory, pcs: PCs) -> tuple[list[KernelTrace], dict]:
    n = scaled(SIZES["hotspot"], scale, minimum=BLOCK)
    return (hotspot_kernels(n, mem=mem, pcs=pcs),
            {"n": n, "pyramid_height": PYRAMID_HEIGHT, "sim_time": SIM_TIME})


def _lud(scale: float, mem: DeviceMemory, pcs: PCs) -> tuple[list[KernelTrace], dict]:
    dim = scaled(SIZES["lud"], scale, multiple=BS, minimum=2 * BS)
    m0 = mem.alloc("m", dim * dim * 4)  # lud.cu: cudaMalloc d_m
    return lud_kernels(dim, m0, pcs), {"matrix_dim": dim}


def _nn(scale: float, mem: DeviceMemory, pcs: PCs) -> tuple[list[KernelTrace], dict]:
    n = scaled(SIZES["nn"], scale)
    return [nearest_neighbor_kernel("euclid", n, NN_BLOCK, mem, pcs)], {"records": n}


def _nw(scale: float, mem: DeviceMemory, pcs: PCs) -> tuple[list[KernelTrace], dict]:
    n = scaled(SIZES["nw"], scale, multiple=BLOCK, minimum=2 * BLOCK)
    return needle_kernels(n, 10, mem=mem, pcs=pcs), {"n": n, "penalty": 10}


_KERNELS = {"backprop": _backprop, "hotspot": _hotspot, "lud": _lud, "nn": _nn, "nw": _nw}


def _builder(name: str) -> Callable[[float, int], Workload]:
    def build(scale: float = 1.0, seed: int = 0) -> Workload:
        """ciao18 Rodinia workload at ``scale`` of Table II's size; ``seed`` is unused
        (none of these programs' addresses depends on its data)."""
        mem = DeviceMemory()
        kernels, params = _KERNELS[name](scale, mem, PCs())
        return Workload(name=f"ciao18/{name}", kernels=set_regs(kernels),
                        params={**params, "arrays": mem.sizes(), "input_bytes": mem.footprint},
                        source=_SOURCES[name])
    return build


for _name, (_apki, _input, _nwarp, _fsmem, _bar, _cls) in TABLE_II.items():
    register_workload(
        "ciao18", _name, _builder(_name), source=_SOURCES[_name], version=1,
        description=f"Rodinia {_name} at {SIZES[_name]} (ciao18 Table II)",
        apki=_apki, size=_input, N=SIZES[_name], n_warp=_nwarp, f_smem=_fsmem,
        barriers=_bar, cls=_cls)
