"""drp16 Table 2's four CUDA applications as LLC streams: cfd, blackscholes, fastwalsh, reduction.

drp16 runs them on MacSim's GPU model (Section 3): six shader cores, 80
warp contexts each, a 32 KB 8-way data cache per core; "we consider all
requests coming from the shader cores as originating from the shader cache
misses", so every access is the ``shader`` stream. Each application here
is an emulator of the kernels' global loads and stores (the CUDA sources
named in Table 2), coalesced per warp into 64-byte lines, ordered by
:func:`warp_order`, and filtered by the six 32 KB 8-way ``WRITE_EVICT`` L1s
(:mod:`golden.llc.gpu_caches`). The L1s are invalidated between kernel
launches (NVIDIA L1s are not coherent; the driver invalidates them).

======================  ==========================================================
``cfd``                 Rodinia 3.0 euler3d on a 97046-element mesh (Table 2:
                        fvcorr.domn.097K, 759 x 128 threads), first 71 launches
``blackscholes``        SDK 4.2 BlackScholes, 4 M options, 480 x 128 threads
``fastwalsh``           SDK 4.2 fastWalshTransform, 2^23 elements, the first two
                        ``fwtBatch2Kernel`` launches (8192 x 256 threads)
``reduction``           SDK 4.2 reduction, 16 K elements, 64 x 256 threads
======================  ==========================================================

``scale`` multiplies every data size (element and option counts; the
fastwalsh length is rounded to a power of two) and the L1s' size, so that
they keep their ratio to an LLC scaled by the same factor. The details each emulator fixes are in
its docstring and ``docs/drp16_workloads.md``.
"""

from __future__ import annotations

import numpy as np

from golden.llc.gpu_caches import WRITE_EVICT, GpuCache, GpuCaches
from golden.llc.streams import SHADER
from golden.workloads.rdgc_cfd import FAR_FIELD, NDIM, NNB, NVAR, tet_mesh

__all__ = ["APPS", "SHADER_CORES", "cuda_stream", "warp_order"]

#: drp16 Section 3 (MacSim, from TAP [43]): six shader cores, 80 warps each, a 32 KB 8-way data cache.
SHADER_CORES = 6
WARPS_PER_CORE = 80
L1 = GpuCache("shader-l1", 32 << 10, 8, WRITE_EVICT, SHADER_CORES)
#: Fermi's limit of resident CTAs per core (MacSim's GPU model follows it).
CTAS_PER_CORE = 8
_BASE = 0x4000_0000 >> 6  # the GPU's data, in 64-byte lines
_F4 = 4


class _Kernel:
    """One launch: its memory instructions as per-thread byte addresses, in program order."""

    def __init__(self, ctas: int, threads: int) -> None:
        self.ctas, self.threads = ctas, threads
        self.insts: list[tuple[int, np.ndarray, np.ndarray | None]] = []

    def load(self, addr, active=None) -> None:
        """A 4-byte load per thread at byte address ``addr`` (an array over the grid's threads)."""
        self.insts.append((1, np.asarray(addr, np.int64), active))

    def store(self, addr, active=None) -> None:
        """A 4-byte store per thread."""
        self.insts.append((2, np.asarray(addr, np.int64), active))


def warp_order(kernel: _Kernel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's line requests in issue order: ``(core, op, line)``.

    CTA ``c`` runs on core ``c % 6``; a core holds ``min(8, 80 / warps per
    CTA)`` CTAs at a time, so the grid runs in waves of ``6 x`` that many
    CTAs. Within a wave, instruction ``k`` of every warp issues before
    instruction ``k + 1`` of any (round robin over the wave's warps, every
    warp progressing at the same rate); each warp's instruction requests
    its distinct lines in increasing order (coalescing).
    """
    wpc = -(-kernel.threads // 32)
    per_core = max(1, min(CTAS_PER_CORE, WARPS_PER_CORE // wpc))
    n = kernel.ctas * kernel.threads
    tid = np.arange(n, dtype=np.int64)
    cta = tid // kernel.threads
    warp = cta * wpc + (tid % kernel.threads) // 32
    wave = cta // (SHADER_CORES * per_core)
    keys, ops = [], []
    for k, (op, addr, active) in enumerate(kernel.insts):
        sel = slice(None) if active is None else np.asarray(active, bool)
        a = np.broadcast_to(addr, (n,))[sel] >> 6
        w = warp[sel]
        u = np.unique(np.stack([w, a], axis=1), axis=0)  # distinct lines per warp, sorted
        wv = wave[u[:, 0] // wpc * kernel.threads]
        keys.append(np.stack([wv, np.full(len(u), k), u[:, 0], u[:, 1]], axis=1))
        ops.append(np.full(len(u), op, np.int64))
    key = np.concatenate(keys)
    op = np.concatenate(ops)
    order = np.lexsort((key[:, 3], key[:, 2], key[:, 1], key[:, 0]))
    key, op = key[order], op[order]
    core = (key[:, 2] // wpc) % SHADER_CORES
    return core, op, key[:, 3] + _BASE


def _alloc(sizes: dict[str, int]) -> dict[str, int]:
    """Byte base of each array, 256-byte aligned, in order (cudaMalloc)."""
    out, at = {}, 0
    for name, nbytes in sizes.items():
        out[name] = at
        at += -(-nbytes // 256) * 256
    return out


def _cfd(scale: float, seed: int) -> list[_Kernel]:
    """Rodinia 3.0 ``cfd/euler3d.cu``: the first 71 launches on a generated 97046-element mesh.

    ``main`` launches ``initialize_variables`` three times (variables, old
    variables, fluxes), then per iteration ``compute_step_factor`` and, for
    each of the ``RK = 3`` stages, ``compute_flux`` and ``time_step``: 3 + 7
    per iteration, so launch 71 is the fifth of the tenth iteration. The
    per-iteration ``cudaMemcpy`` of variables into old variables is a DMA
    copy and is not modelled. The mesh is :func:`golden.workloads.rdgc_cfd.tet_mesh`
    (Rodinia's input files are not distributed); the arrays and their
    layout (``a[i + k * nelr]``) are euler3d.cu's; ``block_length`` 128.
    """
    nel = max(128, round(97_046 * scale))
    nb_ = tet_mesh(nel, seed)
    nelr = 128 * -(-nel // 128)
    nb_ = np.concatenate([nb_, np.repeat(nb_[-1:], nelr - nel, axis=0)])
    b = _alloc({"areas": nelr * _F4, "ese": nelr * NNB * _F4, "normals": nelr * NDIM * NNB * _F4,
                "variables": nelr * NVAR * _F4, "old_variables": nelr * NVAR * _F4,
                "fluxes": nelr * NVAR * _F4, "step_factors": nelr * _F4})
    i = np.arange(nelr, dtype=np.int64)
    ctas = nelr // 128

    def init(array):
        k = _Kernel(ctas, 128)
        for v in range(NVAR):
            k.store(b[array] + (i + v * nelr) * _F4)
        return k

    step = _Kernel(ctas, 128)
    for v in range(NVAR):
        step.load(b["variables"] + (i + v * nelr) * _F4)
    step.load(b["areas"] + i * _F4)
    step.store(b["step_factors"] + i * _F4)

    flux = _Kernel(ctas, 128)
    for v in range(NVAR):
        flux.load(b["variables"] + (i + v * nelr) * _F4)
    for j in range(NNB):
        flux.load(b["ese"] + (i + j * nelr) * _F4)
        for d in range(NDIM):
            flux.load(b["normals"] + (i + (j + d * NNB) * nelr) * _F4)
        inner = nb_[:, j] >= 0
        other = np.maximum(nb_[:, j], 0).astype(np.int64)
        for v in range(NVAR):
            flux.load(b["variables"] + (other + v * nelr) * _F4, active=inner)
    for v in range(NVAR):
        flux.store(b["fluxes"] + (i + v * nelr) * _F4)
    assert FAR_FIELD < 0  # faces to no element load nothing (nb < 0)

    tstep = _Kernel(ctas, 128)
    tstep.load(b["step_factors"] + i * _F4)
    for v in range(NVAR):
        tstep.load(b["old_variables"] + (i + v * nelr) * _F4)
        tstep.load(b["fluxes"] + (i + v * nelr) * _F4)
        tstep.store(b["variables"] + (i + v * nelr) * _F4)

    launches = [init("variables"), init("old_variables"), init("fluxes")]
    while len(launches) < 71:
        launches += [step] + [flux, tstep] * 3
    return launches[:71]


def _blackscholes(scale: float, seed: int) -> list[_Kernel]:
    """SDK 4.2 ``BlackScholes``: ``BlackScholesGPU<<<480, 128>>>`` over ``OPT_N`` = 4 M options.

    Each thread loops ``for (opt = tid; opt < optN; opt += THREAD_N)``,
    loading ``StockPrice``, ``OptionStrike``, ``OptionYears`` and storing
    ``CallResult``, ``PutResult``. The sample launches the kernel 512
    times over the same arrays; we emit the first 4 launches (every launch
    has the same addresses; 4 are enough to show the reuse across launches,
    5 x 16 MB apart).
    """
    opt_n = max(480 * 128, round(4_000_000 * scale))
    b = _alloc({a: opt_n * _F4 for a in ("call", "put", "stock", "strike", "years")})
    threads = 480 * 128
    rounds = -(-opt_n // threads)
    k = _Kernel(480, 128)
    tid = np.arange(threads, dtype=np.int64)
    for r in range(rounds):
        opt = tid + r * threads
        live = opt < opt_n
        for a in ("stock", "strike", "years"):
            k.load(b[a] + opt * _F4, active=live)
        for a in ("call", "put"):
            k.store(b[a] + opt * _F4, active=live)
    return [k] * 4


def _fastwalsh(scale: float, seed: int) -> list[_Kernel]:
    """SDK 4.2 ``fastWalshTransform``: the first two launches, ``fwtBatch2Kernel`` radix-4 passes.

    ``fwtBatchGPU`` on ``log2N`` = 23 launches ``fwtBatch2Kernel<<<(N/4/256,
    M), 256>>>(d_Data, d_Data, N/4)`` then, with ``N /= 4`` and ``M *= 4``,
    again with stride ``N/16``: 8192 x 256 threads each. Thread ``pos``
    loads and stores ``d[i0 + k * stride]``, ``k`` = 0..3, with ``lo = pos &
    (stride - 1)``, ``i0 = ((pos - lo) << 2) + lo`` in its batch.
    """
    log2n = max(12, round(23 + np.log2(scale)))
    n = 1 << log2n
    out = []
    for stride, batches in ((n // 4, 1), (n // 16, 4)):
        per = n // batches  # elements per batch
        threads = np.arange(n // 4, dtype=np.int64)
        y, pos = threads // (per // 4), threads % (per // 4)
        lo = pos & (stride - 1)
        i0 = y * per + ((pos - lo) << 2) + lo
        k = _Kernel(n // 4 // 256, 256)
        for j in range(4):
            k.load((i0 + j * stride) * _F4)
        for j in range(4):
            k.store((i0 + j * stride) * _F4)
        out.append(k)
    return out


def _reduction(scale: float, seed: int) -> list[_Kernel]:
    """SDK 4.2 ``reduction``, its sixth kernel (``reduce5``) on 16 K elements, 64 x 256 threads.

    With 16 K elements in 64 blocks of 256 threads each thread loads one
    element (``g_idata[blockIdx.x * 256 + tid]``; the second load of
    ``reduce5`` is past the end) and thread 0 of each block stores
    ``g_odata[blockIdx.x]``. The sample runs the kernel 100 times
    (``testIterations``) on the same input; every launch is emitted.
    """
    n = max(256, round(16_384 * scale))
    blocks = -(-n // 256)
    b = _alloc({"in": n * _F4, "out": blocks * _F4})
    k = _Kernel(blocks, 256)
    i = np.arange(blocks * 256, dtype=np.int64)
    k.load(b["in"] + np.minimum(i, n - 1) * _F4, active=i < n)
    k.store(b["out"] + (i // 256) * _F4, active=i % 256 == 0)
    return [k] * 100


#: The applications, in Table 2's order (mixes S15-S18 / D15-D18 / Q15-Q18).
APPS = {"cfd": _cfd, "blackscholes": _blackscholes, "fastwalsh": _fastwalsh, "reduction": _reduction}


def cuda_stream(app: str, scale: float = 1.0, seed: int = 0) -> np.ndarray:
    """The LLC accesses (``LLC_TRACE_DTYPE``, stream ``shader``) of a Table 2 application.

    Parameters
    ----------
    app : str
        A key of :data:`APPS`.
    scale : float
        Data-size factor (1.0: drp16's inputs).
    seed : int
        Seed of anything random (cfd's mesh face order).

    Raises
    ------
    KeyError
        For an unknown application (the mix layer reports it as an InputError).
    """
    caches = GpuCaches([L1], scale)
    out = []
    cache = {}
    for k in APPS[app](scale, seed):
        if id(k) not in cache:
            cache[id(k)] = warp_order(k)
        core, op, line = cache[id(k)]
        out.append(caches.access(0, SHADER, op, line, inst=core))
        caches.invalidate(0)
    return np.concatenate(out)
