"""ciao18 SS: Mars SimilarityScore, cosine similarity of every pair of 1024 documents.

Follows ``sample_apps/SimilarityScore/{main.cu, map.cu, compare.cu, global.h}``
of ``wenbinf/Mars`` at f47db01 and the framework in
:mod:`golden.workloads._mars` (``MarsLib.cu``, ``MarsScan.cu``, ``MarsSort.cu``).
The run script (``SS_BIN/run.sh``) runs ``SimilarityScore 1024 256``:
1024 documents of 256 features (``rand() % 100``; here drawn from ``seed``),
one map record per pair ``doc1 < doc2`` (523,776), ``MAP_GROUP``.

``map`` reads both documents as ``float4`` and emits the similarity (4-byte
key) with the pair (8-byte value) from its shared-memory slot::

    for (i = 0; i < col4; i++) { aValue = a[i]; bValue = b[i]; up += ...; }
    *o_result = up / (sqrtf(doc1Down) * sqrtf(doc2Down));
    EMIT_INTERMEDIATE_FUNC(o_result, o_doc, sizeof(float), sizeof(int2));

The group phase sorts the similarities in descending order (``compare``:
equal within ``1e-7``) and finds the runs of equal ones.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._mars import OUTPUT_BUF, Emitter, GroupPhase, MapPhase
from golden.workloads.ciao18_regs import MARS_REGS

__all__ = ["DIM", "DOCS", "SMALL", "build", "similarity", "ss_compare"]

#: ``SimilarityScore 1024 256`` (run script): documents and features at scale 1.
DOCS, DIM = 1024, 256
#: compare.cu's ``SMALL``: similarities closer than this are equal.
SMALL = np.float32(1e-7)
#: sizeof(SS_KEY_T) (one pointer), sizeof(SS_VAL_T) (doc1, doc2, dim, result).
KEY_BYTES, VAL_BYTES = 8, 16

SOURCE = ("Mars (wenbinf/Mars) sample_apps/SimilarityScore/main.cu, map.cu, compare.cu; "
          "MarsLib.cu, MarsScan.cu, MarsSort.cu")


def similarity(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``doc1``, ``doc2`` and the float32 cosine similarity of every pair, in record order."""
    docs = len(matrix)
    d1, d2 = np.triu_indices(docs, 1)  # for i: for j > i (main.cu's record order)
    m = matrix.astype(np.float64)
    up = m @ m.T
    norm = np.sqrt(np.einsum("ij,ij->i", m, m))
    with np.errstate(divide="ignore", invalid="ignore"):
        res = (up[d1, d2] / (norm[d1] * norm[d2])).astype(np.float32)
    return d1, d2, res


def ss_compare(result: np.ndarray):
    """compare.cu: ``fabsf(a - b) < SMALL`` is 0, then descending."""
    def compare(kb: KernelBuilder, pc, on, ra, rb, addr_a, addr_b) -> np.ndarray:
        kb.load(pc("cmp_ld_a"), addr_a, active=on)
        kb.load(pc("cmp_ld_b"), addr_b, active=on)
        kb.compute(5, active=on)  # fabsf(a - b) < SMALL, a < b, returns
        a, b = result[ra], result[rb]
        return np.where(np.abs(a - b) < SMALL, 0, np.where(a < b, 1, -1))
    return compare


def _map_fns(phase: MapPhase, matrix_addr: int, d1: np.ndarray, d2: np.ndarray, dim: int):
    col4 = dim >> 2

    def map_count(kb: KernelBuilder, pcs: PCs, prefix: str, tid, live, em: Emitter) -> None:
        em.emit(live)  # EMIT_INTER_COUNT_FUNC(sizeof(float), sizeof(int2))

    def map_fn(kb: KernelBuilder, pcs: PCs, prefix: str, tid, live, em: Emitter) -> None:
        def pc(label):
            return pcs(f"{prefix}:{label}")
        rec = np.where(live, tid, 0)
        kb.load(pc("ld_matrix"), phase.key_addr(rec), active=live, width=8)
        for off, label in ((0, "doc1"), (4, "doc2"), (8, "dim")):
            kb.load(pc(f"ld_{label}"), phase.val_addr(rec) + off, active=live)
        kb.compute(8, active=live)  # a, b, col4, remainder, accumulators
        a = matrix_addr + 4 * dim * d1[rec]
        b = matrix_addr + 4 * dim * d2[rec]
        for i in range(col4):
            kb.compute(2, active=live)  # i < col4
            kb.load(pc("ld_a"), a + 16 * i, active=live, width=16)
            kb.load(pc("ld_b"), b + 16 * i, active=live, width=16)
            kb.compute(12, active=live)  # three 4-term dot products
        kb.compute(8 + 4 * (dim & 3), active=live)  # remainder loop, sqrtf x2, the division
        slot = OUTPUT_BUF * kb.tx
        kb.store(pc("st_o_result"), slot, active=live, space=Space.SHARED)
        kb.store(pc("st_o_doc_x"), slot + 4, active=live, space=Space.SHARED)
        kb.store(pc("st_o_doc_y"), slot + 8, active=live, space=Space.SHARED)
        em.emit(live, slot, slot + 4, tag=rec)
    return map_count, map_fn


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """SimilarityScore over ``1024 * scale`` documents (at least 4) of 256 features."""
    docs = scaled(DOCS, scale, minimum=4)
    rng = np.random.default_rng(seed)
    matrix = rng.integers(0, 100, (docs, DIM)).astype(np.float32)
    d1, d2, result = similarity(matrix)
    mem, pcs = DeviceMemory(), PCs()
    d_matrix = mem.alloc("d_matrix", matrix.nbytes)
    regs = MARS_REGS["ss"]
    phase = MapPhase(mem, pcs, len(d1), KEY_BYTES, VAL_BYTES, 4, 8, regs)
    kernels, counts = phase.kernels(*_map_fns(phase, d_matrix, d1, d2, DIM))
    group = GroupPhase(mem, pcs, phase.inter, ss_compare(result), regs)
    more, groups = group.kernels()
    records = len(d1)
    return Workload(name="ciao18/ss", kernels=kernels + more,
                    params={"docs": docs, "dim": DIM, "records": records,
                            "groups": len(groups.start), "arrays": mem.sizes(),
                            "input_bytes": matrix.nbytes + records * (KEY_BYTES + VAL_BYTES + 16)},
                    source=SOURCE)


register_workload("ciao18", "ss", build, source=SOURCE, version=1,
                  description="Mars SimilarityScore: 1024 x 256 documents, map and group (sort)",
                  apki=34, size="23MB", N=DOCS, n_warp=48, f_smem=0.50, barriers=True, cls="SWS")
