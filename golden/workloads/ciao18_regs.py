"""Registers per thread of the ciao18 kernels, as ``ptxas -v`` reports them.

None of the sources sets ``__launch_bounds__`` or ``-maxrregcount``, so the
register count is the compiler's choice. The figures below were measured
with nvcc 13.0 (``nvcc -arch=sm_75 -c -Xptxas -v``; sm_75 is the oldest
target nvcc 13 accepts, ciao18's GTX 480 is sm_20, whose compiler would
give somewhat different counts) on the kernels of

* Rodinia 3.1 (``yuhc/gpu-rodinia`` at 9c10d3e): ``backprop_cuda_kernel.cu``,
  ``gaussian.cu``, ``hotspot.cu``, ``lud_kernel.cu``, ``nn_cuda.cu``,
  ``needle_kernel.cu`` as shipped, and ``kmeans_cuda_kernel.cu`` with its
  ``tex1Dfetch`` reads written as global reads (texture references do not
  compile with nvcc 13);
* Mars (``wenbinf/Mars`` at f47db01) ``sample_apps/StringMatch``: ``MarsLib.cu``
  with ``MarsScan.cu`` and the application's ``map.cu``, ``cutil.h`` stubbed;
* Polybench/GPU 1.0, the kernel bodies quoted in the ``rdgc_*`` modules with
  the sizes passed as ``int`` arguments instead of ``#define`` constants.

ptxas also reported the static shared memory of every Rodinia kernel, and it
equals the ``shared_bytes`` the emulators compute from the ``__shared__``
declarations (backprop 1088, hotspot 3072, lud 1024/3072/2048, nw 2180).
"""

from __future__ import annotations

from golden.trace.model import KernelTrace

__all__ = ["REGS", "MARS_REGS", "set_regs"]

#: Kernel name -> registers per thread.
REGS = {
    # Polybench/GPU 1.0
    "atax_kernel1": 20, "atax_kernel2": 26,
    "bicg_kernel1": 26, "bicg_kernel2": 20,
    "mvt_kernel1": 20, "mvt_kernel2": 24,
    "gesummv_kernel": 24,
    "syr2k_kernel": 30,
    "syrk_kernel": 28,
    "Convolution2D_kernel": 30,
    "corr_kernel": 32, "mean_kernel": 28, "std_kernel": 26, "reduce_kernel": 16,
    # Rodinia 3.1
    "bpnn_layerforward_CUDA": 20, "bpnn_adjust_weights_cuda": 28,
    "Fan1": 15, "Fan2": 16,
    "calculate_temp": 35,
    "invert_mapping": 30, "kmeansPoint": 52,
    "lud_diagonal": 46, "lud_perimeter": 64, "lud_internal": 32,
    "euclid": 12,
    "needle_cuda_shared_1": 54, "needle_cuda_shared_2": 54,
    # Mars StringMatch (MarsLib.cu with its map.cu inlined; MarsScan.cu's kernels are
    # in golden.workloads._mars.REGS)
    "MapperCount": 28, "Mapper": 50,
}


#: Mars applications: the kernels that inline the application's ``map_count``/``map``,
#: ``reduce_count``/``reduce`` or ``compare`` (MarsLib.cu and MarsSort.cu of each
#: ``sample_apps/<App>``, ``cutil.h`` stubbed, ``cudaThreadSynchronize`` as
#: ``cudaDeviceSynchronize``). The other MarsSort.cu kernels are in
#: :data:`golden.workloads._mars.SORT_REGS`, MarsScan.cu's in ``_mars.REGS``.
MARS_REGS = {
    app: dict(zip(("MapperCount", "Mapper", "ReducerCount", "Reducer", "bitonicKernel",
                   "unitBitonicSortKernel", "partBitonicSortKernel",
                   "bitonicSortSingleBlock_kernel", "getChunkBoundary_kernel"), regs, strict=True))
    for app, regs in {
        "wc": (26, 52, 8, 14, 24, 27, 25, 18, 14),
        "ii": (30, 59, 8, 14, 28, 30, 28, 20, 18),
        "pvc": (20, 49, 18, 36, 28, 30, 28, 20, 18),
        "ss": (18, 66, 8, 14, 22, 32, 23, 21, 12),
        "kmn": (18, 64, 18, 36, 28, 30, 28, 28, 18),
    }.items()
}


def set_regs(kernels: list[KernelTrace]) -> list[KernelTrace]:
    """Set every kernel's ``regs_per_thread`` from :data:`REGS` (by kernel name); returns them."""
    for k in kernels:
        k.regs_per_thread = REGS[k.name]
    return kernels
