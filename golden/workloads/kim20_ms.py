"""kim20 MS: CUDA SDK ``mergeSort`` (key-value merge sort) of 131072 random keys.

Follows ``Samples/0_Introduction/mergeSort/mergeSort.cu`` (and ``main.cpp``,
``mergeSort_common.h``) of NVIDIA/cuda-samples. kim20 ran the CUDA SDK 8.0
sample, which we could not read; the current copy synchronises through
cooperative groups (``cg::sync``) where 8.0 called ``__syncthreads()``, and we
assume the kernels' addresses are unchanged. ``SHARED_SIZE_LIMIT = 1024``,
``SAMPLE_STRIDE = 128``,
ascending (``DIR = 1``). The host (``mergeSort``):

1. ``mergeSortSharedKernel<<<N/1024, 512>>>``: each CTA loads 1024 keys and
   values into ``s_key``/``s_val`` (8 KB) and merges runs of 1, 2, ..., 512
   in shared memory; each step every thread loads ``keyA, valA, keyB, valB``
   and finds their ranks in the other run by ``binarySearchExclusive`` /
   ``binarySearchInclusive`` (``log2(stride) + 1`` probes each, at
   data-dependent shared addresses), then stores both pairs;
2. for ``stride = 1024, 2048, ..., N/2``:
   ``generateSampleRanksKernel<<<N/256/256, 256>>>`` (each thread takes one
   sample, every 128th key, of a run and binary-searches the other run in
   global memory), ``mergeRanksAndIndicesKernel`` twice (merges the sample
   ranks into ``d_LimitsA``/``d_LimitsB``), and
   ``mergeElementaryIntervalsKernel<<<N/128, 128>>>`` (each CTA merges the
   two at most 128-key pieces between consecutive limits in shared memory
   and writes them out), swapping the key/value buffers.

Input (choice): the sample sorts ``N = 4 * 1048576`` keys ``rand() % 65536``;
kim20 names no input, and 4 M keys emulate to about 85 M warp memory
instructions, most with per-lane data-dependent shared addresses: beyond
the suite's generation budget. We sort ``N = 131072`` keys (a power of two,
so no run is partial and the host's ``cudaMemcpy`` of a leftover segment
never happens), drawn uniformly from ``[0, 65536)`` with
``numpy.random.default_rng(seed)`` (the sample's ``srand(2009)`` stream is
glibc's); values are ``0 .. N-1`` as ``fillValues`` writes them. The sort is
carried out on the keys alongside the emulation, so every probe and every
interval length is the one the kernels compute. ``--scale`` shrinks N (a
power of two, at least 2048).
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads._program import Program

__all__ = ["build", "N_PAPER", "merge_sort_kernels", "REGS"]

SOURCE = ("CUDA SDK mergeSort: Samples/0_Introduction/mergeSort/mergeSort.cu "
          "(mergeSortSharedKernel, generateSampleRanksKernel, mergeRanksAndIndicesKernel, "
          "mergeElementaryIntervalsKernel), main.cpp")
N_PAPER = 131072  # our choice (module docstring); the sample's own N is 4 * 1048576
SHARED_SIZE_LIMIT = 1024
SAMPLE_STRIDE = 128
NUM_VALUES = 65536  # main.cpp: rand() % numValues
#: Registers per thread: estimate (docs/workloads/kim20.md, "Registers").
REGS = {"mergeSortSharedKernel": 24, "generateSampleRanksKernel": 20,
        "mergeRanksAndIndicesKernel": 16, "mergeElementaryIntervalsKernel": 24}
_SH = Space.SHARED
_U = 4  # sizeof(uint)


def _search(p: Program, label: str, val: np.ndarray, data: np.ndarray, base: np.ndarray,
            length: np.ndarray, stride: int, inclusive: bool, active: np.ndarray,
            addr_of, space: Space) -> np.ndarray:
    """binarySearchInclusive/Exclusive: one load per halving of ``stride``; returns ``pos``.

    ``data[base + k]`` is element ``k`` of the searched run for every thread;
    ``addr_of(index)`` gives the byte address of ``data[index]``. Threads with
    ``length == 0`` return 0 without loading.
    """
    pos = np.zeros_like(val)
    on = active & (length > 0)
    p.compute(2, active=active)  # if (L == 0)
    while stride > 0:
        new = np.minimum(pos + stride, length)
        idx = np.where(on, base + new - 1, 0)
        p.compute(3, active=on)  # loop test, umin, address
        p.load(label, addr_of(idx), active=on, space=space)
        got = data[idx]
        take = on & ((got <= val) if inclusive else (got < val))
        p.compute(2, active=on)  # compare, select
        pos = np.where(take, new, pos)
        stride >>= 1
    return pos


def _next_pow2(x: int) -> int:
    return 1 << (int(x) - 1).bit_length() if x > 1 else 1


def _sort_shared(keys: np.ndarray, src_key: int, src_val: int, dst_key: int, dst_val: int,
                 pcs: PCs) -> tuple[KernelTrace, np.ndarray]:
    """mergeSortSharedKernel over runs of 1024; returns the launch and the sorted runs."""
    n = len(keys)
    half = SHARED_SIZE_LIMIT // 2
    kb = KernelBuilder("mergeSortSharedKernel", grid=(n // SHARED_SIZE_LIMIT,), block=(half,),
                       shared_bytes=2 * SHARED_SIZE_LIMIT * _U)
    p = Program(kb, pcs, kb.name)
    tx, cta = kb.tx, kb.gtid // half
    s_val = SHARED_SIZE_LIMIT * _U
    g = cta * SHARED_SIZE_LIMIT + tx
    s = keys.reshape(-1, SHARED_SIZE_LIMIT).copy()
    p.compute(8)  # four pointer offsets
    for k, off in (("lo", 0), ("hi", half)):
        p.stage(f"key_{k}", src_key + (g + off) * _U, (tx + off) * _U)
        p.stage(f"val_{k}", src_val + (g + off) * _U, s_val + (tx + off) * _U)
    stride = 1
    while stride < SHARED_SIZE_LIMIT:  # arrayLength is an argument: a loop, one PC each
        p.compute(2 + 4)  # loop overhead; lPos, baseKey, baseVal
        l_pos = tx & (stride - 1)
        base = 2 * (tx - l_pos)
        p.barrier()
        flat = cta * SHARED_SIZE_LIMIT
        key_a, key_b = s.reshape(-1)[flat + base + l_pos], s.reshape(-1)[flat + base + l_pos + stride]
        p.load("ld_keyA", (base + l_pos) * _U, space=_SH)
        p.load("ld_valA", s_val + (base + l_pos) * _U, space=_SH)
        p.load("ld_keyB", (base + l_pos + stride) * _U, space=_SH)
        p.load("ld_valB", s_val + (base + l_pos + stride) * _U, space=_SH)
        every = np.ones(kb.n_threads, dtype=bool)
        run = np.full(kb.n_threads, stride)
        flat_s = s.reshape(-1)
        pos_a = _search(p, "ld_probeB", key_a, flat_s, flat + base + stride, run, stride, False,
                        every, lambda i: (i % SHARED_SIZE_LIMIT) * _U, _SH) + l_pos
        pos_b = _search(p, "ld_probeA", key_b, flat_s, flat + base, run, stride, True,
                        every, lambda i: (i % SHARED_SIZE_LIMIT) * _U, _SH) + l_pos
        p.barrier()
        p.store("st_keyA", (base + pos_a) * _U, space=_SH)
        p.store("st_valA", s_val + (base + pos_a) * _U, space=_SH)
        p.store("st_keyB", (base + pos_b) * _U, space=_SH)
        p.store("st_valB", s_val + (base + pos_b) * _U, space=_SH)
        new = np.empty_like(flat_s)
        new[flat + base + pos_a] = key_a
        new[flat + base + pos_b] = key_b
        s = new.reshape(s.shape)
        stride <<= 1
    p.barrier()
    for k, off in (("lo", 0), ("hi", half)):
        p.load(f"ld_out_key_{k}", (tx + off) * _U, space=_SH)
        p.store(f"st_out_key_{k}", dst_key + (g + off) * _U)
        p.load(f"ld_out_val_{k}", s_val + (tx + off) * _U, space=_SH)
        p.store(f"st_out_val_{k}", dst_val + (g + off) * _U)
    return p.build(), s.reshape(-1)


def _sample_ranks(keys: np.ndarray, stride: int, src: int, ranks_a: int, ranks_b: int,
                  pcs: PCs) -> tuple[KernelTrace, np.ndarray, np.ndarray]:
    """generateSampleRanksKernel for runs of ``stride``; returns the launch and both rank arrays."""
    n = len(keys)
    threads = n // (2 * SAMPLE_STRIDE)
    kb = KernelBuilder("generateSampleRanksKernel", grid=(-(-threads // 256),), block=(256,))
    p = Program(kb, pcs, kb.name)
    pos = kb.gtid
    live = pos < threads
    samples = stride // SAMPLE_STRIDE
    i = pos & (samples - 1)
    seg = (pos - i) * (2 * SAMPLE_STRIDE)
    seg = np.where(live, seg, 0)
    rank_off = seg // SAMPLE_STRIDE
    ra, rb = np.zeros(n // SAMPLE_STRIDE, np.int64), np.zeros(n // SAMPLE_STRIDE, np.int64)
    length = np.full(kb.n_threads, stride)
    p.compute(12)  # pos, bounds, i, segmentBase, pointer offsets, segment sizes
    # i < segmentSamplesA: every live thread (runs are whole)
    p.store("st_ranksA_self", ranks_a + (rank_off + i) * _U, active=live)
    at = np.where(live, seg + i * SAMPLE_STRIDE, 0)
    p.load("ld_sampleA", src + at * _U, active=live)
    r = _search(p, "ld_probe_in_B", keys[at], keys, seg + stride, length, _next_pow2(stride),
                False, live, lambda k: src + k * _U, Space.GLOBAL)
    p.store("st_ranksB_of_A", ranks_b + (rank_off + i) * _U, active=live)
    rb[(rank_off + i)[live]] = r[live]
    ra[(rank_off + i)[live]] = (i * SAMPLE_STRIDE)[live]
    # i < segmentSamplesB
    p.store("st_ranksB_self", ranks_b + (rank_off + samples + i) * _U, active=live)
    at = np.where(live, seg + stride + i * SAMPLE_STRIDE, 0)
    p.load("ld_sampleB", src + at * _U, active=live)
    r = _search(p, "ld_probe_in_A", keys[at], keys, seg, length, _next_pow2(stride), True, live,
                lambda k: src + k * _U, Space.GLOBAL)
    p.store("st_ranksA_of_B", ranks_a + (rank_off + samples + i) * _U, active=live)
    ra[(rank_off + samples + i)[live]] = r[live]
    rb[(rank_off + samples + i)[live]] = (i * SAMPLE_STRIDE)[live]
    return p.build(), ra, rb


def _merge_ranks(ranks: np.ndarray, stride: int, n: int, ranks_at: int, limits_at: int,
                 pcs: PCs) -> tuple[KernelTrace, np.ndarray]:
    """mergeRanksAndIndicesKernel on one rank array; returns the launch and the limits."""
    threads = n // (2 * SAMPLE_STRIDE)
    kb = KernelBuilder("mergeRanksAndIndicesKernel", grid=(-(-threads // 256),), block=(256,))
    p = Program(kb, pcs, kb.name)
    pos = kb.gtid
    live = pos < threads
    samples = stride // SAMPLE_STRIDE
    i = pos & (samples - 1)
    off = np.where(live, (pos - i) * 2, 0)
    limits = np.zeros(n // SAMPLE_STRIDE, np.int64)
    length = np.full(kb.n_threads, samples)
    p.compute(12)
    at = np.where(live, off + i, 0)
    p.load("ld_rankA", ranks_at + at * _U, active=live)
    dst = _search(p, "ld_probe_B", ranks[at], ranks, off + samples, length, _next_pow2(samples),
                  False, live, lambda k: ranks_at + k * _U, Space.GLOBAL) + i
    p.compute(1, active=live)
    p.store("st_limitA", limits_at + (off + dst) * _U, active=live)
    limits[(off + dst)[live]] = ranks[at][live]
    at = np.where(live, off + samples + i, 0)
    p.load("ld_rankB", ranks_at + at * _U, active=live)
    dst = _search(p, "ld_probe_A", ranks[at], ranks, off, length, _next_pow2(samples), True,
                  live, lambda k: ranks_at + k * _U, Space.GLOBAL) + i
    p.compute(1, active=live)
    p.store("st_limitB", limits_at + (off + dst) * _U, active=live)
    limits[(off + dst)[live]] = ranks[at][live]
    return p.build(), limits


def _merge_intervals(keys: np.ndarray, stride: int, limits_a: np.ndarray, limits_b: np.ndarray,
                     arr: dict, src: str, dst: str, pcs: PCs) -> tuple[KernelTrace, np.ndarray]:
    """mergeElementaryIntervalsKernel; returns the launch and the merged keys."""
    n = len(keys)
    pairs = n // SAMPLE_STRIDE
    s_val = 2 * SAMPLE_STRIDE * _U
    scalars = 2 * s_val  # startSrcA, startSrcB, lenSrcA, lenSrcB, startDstA, startDstB
    kb = KernelBuilder("mergeElementaryIntervalsKernel", grid=(pairs,), block=(SAMPLE_STRIDE,),
                       shared_bytes=scalars + 6 * _U)
    p = Program(kb, pcs, kb.name)
    tx, bx = kb.tx, kb.gtid // SAMPLE_STRIDE
    segment_samples = 2 * stride // SAMPLE_STRIDE
    interval = bx & (segment_samples - 1)
    seg = (bx - interval) * SAMPLE_STRIDE
    last = interval + 1 >= segment_samples
    nxt = np.minimum(bx + 1, pairs - 1)
    start_a, start_b = limits_a[bx], limits_b[bx]
    len_a = np.where(last, stride, limits_a[nxt]) - start_a
    len_b = np.where(last, stride, limits_b[nxt]) - start_b
    lead = tx == 0
    p.compute(10)  # intervalI, segmentBase, four pointer offsets
    p.compute(2)  # threadIdx.x == 0
    p.compute(8, active=lead)
    p.load("ld_limitA", arr["LimitsA"] + bx * _U, active=lead)
    p.load("ld_limitB", arr["LimitsB"] + bx * _U, active=lead)
    p.compute(2, active=lead)
    p.load("ld_limitA_next", arr["LimitsA"] + (bx + 1) * _U, active=lead & ~last)
    p.load("ld_limitB_next", arr["LimitsB"] + (bx + 1) * _U, active=lead & ~last)
    p.compute(5, active=lead)
    for k, name in enumerate(("startSrcA", "startSrcB", "lenSrcA", "lenSrcB", "startDstA",
                              "startDstB")):
        p.store(f"st_{name}", np.full(kb.n_threads, scalars + k * _U), active=lead, space=_SH)
    p.barrier()
    in_a, in_b = tx < len_a, tx < len_b
    sh_scalar = {name: np.full(kb.n_threads, scalars + k * _U) for k, name in enumerate(
        ("startSrcA", "startSrcB", "lenSrcA", "lenSrcB", "startDstA", "startDstB"))}
    p.load("ld_lenSrcA", sh_scalar["lenSrcA"], space=_SH)
    p.load("ld_startSrcA", sh_scalar["startSrcA"], active=in_a, space=_SH)
    ga = seg + start_a + tx
    p.stage("keyA", arr[f"{src}Key"] + ga * _U, tx * _U, active=in_a)
    p.stage("valA", arr[f"{src}Val"] + ga * _U, s_val + tx * _U, active=in_a)
    p.load("ld_lenSrcB", sh_scalar["lenSrcB"], space=_SH)
    p.load("ld_startSrcB", sh_scalar["startSrcB"], active=in_b, space=_SH)
    gb = seg + stride + start_b + tx
    p.stage("keyB", arr[f"{src}Key"] + gb * _U, (SAMPLE_STRIDE + tx) * _U, active=in_b)
    p.stage("valB", arr[f"{src}Val"] + gb * _U, s_val + (SAMPLE_STRIDE + tx) * _U, active=in_b)
    p.barrier()
    # merge(): the two pieces sit at s_key[0 .. lenA) and s_key[128 .. 128 + lenB).
    sk = np.zeros(pairs * 2 * SAMPLE_STRIDE, dtype=keys.dtype)
    cta_base = bx * 2 * SAMPLE_STRIDE
    sk[(cta_base + tx)[in_a]] = keys[ga[in_a]]
    sk[(cta_base + SAMPLE_STRIDE + tx)[in_b]] = keys[gb[in_b]]
    key_a = sk[cta_base + tx]
    key_b = sk[cta_base + SAMPLE_STRIDE + tx]
    p.compute(4)  # reading lenSrcA/B for merge's arguments
    p.load("ld_m_keyA", tx * _U, active=in_a, space=_SH)
    p.load("ld_m_valA", s_val + tx * _U, active=in_a, space=_SH)
    local = lambda k: (k - cta_base) * _U  # noqa: E731 (shared byte address of a CTA's element)
    pos_a = _search(p, "ld_m_probeB", key_a, sk, cta_base + SAMPLE_STRIDE, len_b, SAMPLE_STRIDE,
                    False, in_a, local, _SH) + tx
    p.load("ld_m_keyB", (SAMPLE_STRIDE + tx) * _U, active=in_b, space=_SH)
    p.load("ld_m_valB", s_val + (SAMPLE_STRIDE + tx) * _U, active=in_b, space=_SH)
    pos_b = _search(p, "ld_m_probeA", key_b, sk, cta_base, len_a, SAMPLE_STRIDE, True, in_b,
                    local, _SH) + tx
    p.barrier()
    p.store("st_m_keyA", pos_a * _U, active=in_a, space=_SH)
    p.store("st_m_valA", s_val + pos_a * _U, active=in_a, space=_SH)
    p.store("st_m_keyB", pos_b * _U, active=in_b, space=_SH)
    p.store("st_m_valB", s_val + pos_b * _U, active=in_b, space=_SH)
    p.barrier()
    start_dst_a = start_a + start_b
    start_dst_b = start_dst_a + len_a
    p.load("ld_lenA_out", sh_scalar["lenSrcA"], space=_SH)
    p.load("ld_startDstA", sh_scalar["startDstA"], active=in_a, space=_SH)
    for kind, sh_off in (("key", 0), ("val", s_val)):
        p.load(f"ld_out_{kind}A", sh_off + tx * _U, active=in_a, space=_SH)
        p.store(f"st_out_{kind}A", arr[f"{dst}{kind.title()}"] + (seg + start_dst_a + tx) * _U,
                active=in_a)
    p.load("ld_lenB_out", sh_scalar["lenSrcB"], space=_SH)
    p.load("ld_startDstB", sh_scalar["startDstB"], active=in_b, space=_SH)
    for kind, sh_off in (("key", 0), ("val", s_val)):
        p.load(f"ld_out_{kind}B", sh_off + (len_a + tx) * _U, active=in_b, space=_SH)
        p.store(f"st_out_{kind}B", arr[f"{dst}{kind.title()}"] + (seg + start_dst_b + tx) * _U,
                active=in_b)
    merged = np.sort(keys.reshape(-1, 2 * stride), axis=1, kind="stable").reshape(-1)
    return p.build(), merged


def merge_sort_kernels(keys: np.ndarray, *, mem: DeviceMemory | None = None,
                       pcs: PCs | None = None) -> tuple[list[KernelTrace], np.ndarray]:
    """Every launch of ``mergeSort`` on ``keys``; returns them and the sorted keys.

    Raises
    ------
    ValueError
        If ``len(keys)`` is not a power of two of at least 2048.
    """
    n = len(keys)
    if n < 2 * SHARED_SIZE_LIMIT or n & (n - 1):
        raise ValueError(f"N: must be a power of two of at least {2 * SHARED_SIZE_LIMIT}, not {n}")
    mem = DeviceMemory() if mem is None else mem
    pcs = PCs() if pcs is None else pcs
    arr = {}
    for name in ("DstKey", "DstVal", "BufKey", "BufVal", "SrcKey", "SrcVal"):  # main.cpp
        arr[name] = mem.alloc(f"d_{name}", n * _U)
    max_samples = 32768  # initMergeSort: MAX_SAMPLE_COUNT
    for name in ("RanksA", "RanksB", "LimitsA", "LimitsB"):
        arr[name] = mem.alloc(f"d_{name}", max_samples * _U)
    stages = (n // SHARED_SIZE_LIMIT).bit_length() - 1
    ikey, okey = ("Buf", "Dst") if stages & 1 else ("Dst", "Buf")
    keys = np.asarray(keys, dtype=np.int64)
    shared, cur = _sort_shared(keys, arr["SrcKey"], arr["SrcVal"], arr[f"{ikey}Key"],
                               arr[f"{ikey}Val"], pcs)
    out = [shared]
    stride = SHARED_SIZE_LIMIT
    while stride < n:
        k1, ra, rb = _sample_ranks(cur, stride, arr[f"{ikey}Key"], arr["RanksA"], arr["RanksB"],
                                   pcs)
        k2, la = _merge_ranks(ra, stride, n, arr["RanksA"], arr["LimitsA"], pcs)
        k3, lb = _merge_ranks(rb, stride, n, arr["RanksB"], arr["LimitsB"], pcs)
        k4, cur = _merge_intervals(cur, stride, la, lb, arr, ikey, okey, pcs)
        out += [k1, k2, k3, k4]
        ikey, okey = okey, ikey
        stride <<= 1
    return with_resources(out, REGS), cur


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """mergeSort of ``131072 * scale`` keys (rounded down to a power of two, at least 2048)."""
    n = max(2 * SHARED_SIZE_LIMIT, 1 << int(np.floor(np.log2(max(N_PAPER * scale, 1)))))
    keys = np.random.default_rng(seed).integers(0, NUM_VALUES, n)
    mem = DeviceMemory()
    kernels, _ = merge_sort_kernels(keys, mem=mem, pcs=PCs())
    return Workload(name="kim20/ms", kernels=kernels,
                    params={"n": n, "num_values": NUM_VALUES, "arrays": mem.sizes()},
                    source=SOURCE)


register_workload(SUITE, "ms", build, source=SOURCE, size="131072 keys",
                  description="CUDA SDK merge sort: shared-memory runs of 1024, then sample-rank "
                              "merges",
                  **paper_figures("ms"))
