"""tian15 ``lud``: Rodinia 3.1 LU decomposition (``lud_cuda``) on a 1024x1024 matrix.

Follows ``cuda/lud/lud_kernel.cu`` and ``cuda/lud/lud.cu`` of Rodinia 3.1
(the OpenCL ``lud_kernel.cl`` that tian15 compiled has the same kernels and
index arithmetic). ``BLOCK_SIZE`` is 16. For every block step
``i = 0, 16, ..., dim - 32`` the host launches ``lud_diagonal<<<1, 16>>>``,
``lud_perimeter<<<(dim - i)/16 - 1, 32>>>`` and
``lud_internal<<<((dim - i)/16 - 1)^2, (16, 16)>>>``, then a final
``lud_diagonal`` at ``i = dim - 16``. All three kernels stage their tiles in
shared memory (``Space.SHARED`` rows here).

Which source accesses become instructions (register forwarding within a
barrier interval, aliasing) and the compute-count rule are in
``docs/workloads/tian15_b.md``.
"""

from __future__ import annotations

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._program import Program
from golden.workloads._replicate import Emit, cta_template, tile

__all__ = ["build", "diagonal_emit", "internal_emit", "lud_kernels", "perimeter_emit"]

SOURCE = "Rodinia 3.1 cuda/lud/lud_kernel.cu (lud_diagonal, lud_perimeter, lud_internal), lud.cu"

#: tian15 Table 2: input 1024x1024, MI 14.2.
PAPER_DIM = 1024
BS = 16  # BLOCK_SIZE
_SH = Space.SHARED


def diagonal_emit(dim: int, m0: int, pcs: PCs) -> Emit:
    """``lud_diagonal<<<1, 16>>>(m, dim, offset)``: LU of the 16x16 diagonal tile in shadow.

    ``at = (offset,)``.
    """
    return lambda kb, shape, at: _diagonal(kb, dim, at[0], m0, pcs)


def _diagonal(kb: KernelBuilder, dim: int, offset, m0: int, pcs: PCs) -> KernelTrace:
    rec = Program(kb, pcs, "lud_diagonal")
    tx = kb.tx

    def shadow(r, c):
        return (r * BS + c) * 4

    rec.compute(2 + 1)  # array_offset = offset*dim + offset; tx*4 for shadow[.][tx]
    for i in range(BS):
        rec.compute(2)  # array_offset + tx, array_offset += dim
        rec.load(f"ld_m[{i}]", m0 + ((offset + i) * dim + offset + tx) * 4)
        rec.store(f"st_shadow[{i}]", shadow(i, tx), space=_SH)
    rec.barrier()
    for i in range(BS - 1):
        act = tx > i
        # shadow[tx][i] -= shadow[tx][j] * shadow[j][i]; shadow[tx][i] /= shadow[i][i].
        # shadow[j][i] may alias shadow[tx][i] (tx is not a constant), so every update
        # is stored; the running value itself stays in a register.
        rec.compute(2)  # if (threadIdx.x > i)
        rec.load(f"a{i}.ld_shadow[tx][i]", shadow(tx, i), active=act, space=_SH)
        for j in range(i):
            rec.load(f"a{i}.ld_shadow[tx][{j}]", shadow(tx, j), active=act, space=_SH)
            rec.load(f"a{i}.ld_shadow[{j}][i]", shadow(j, i), active=act, space=_SH)
            rec.compute(1)  # FMA
            rec.store(f"a{i}.st_shadow[tx][i].{j}", shadow(tx, i), active=act, space=_SH)
        rec.load(f"a{i}.ld_shadow[i][i]", shadow(i, i), active=act, space=_SH)
        rec.compute(1)  # divide
        rec.store(f"a{i}.st_shadow[tx][i]", shadow(tx, i), active=act, space=_SH)
        rec.barrier()
        # shadow[i+1][tx] -= shadow[i+1][j] * shadow[j][tx]; shadow[i+1][j] may alias.
        rec.compute(2)
        rec.load(f"b{i}.ld_shadow[i+1][tx]", shadow(i + 1, tx), active=act, space=_SH)
        for j in range(i + 1):
            rec.load(f"b{i}.ld_shadow[i+1][{j}]", shadow(i + 1, j), active=act, space=_SH)
            rec.load(f"b{i}.ld_shadow[{j}][tx]", shadow(j, tx), active=act, space=_SH)
            rec.compute(1)
            rec.store(f"b{i}.st_shadow[i+1][tx].{j}", shadow(i + 1, tx), active=act, space=_SH)
        rec.barrier()
    rec.compute(3)  # array_offset = (offset+1)*dim + offset
    for i in range(1, BS):
        rec.load(f"ld_shadow[{i}]", shadow(i, tx), space=_SH)
        rec.compute(2)
        rec.store(f"st_m[{i}]", m0 + ((offset + i) * dim + offset + tx) * 4)
    return rec.build()


def perimeter_emit(dim: int, m0: int, pcs: PCs) -> Emit:
    """``lud_perimeter<<<(dim-offset)/16 - 1, 32>>>``: the row and column tiles of the step.

    ``at = (blockIdx.x, offset)``.
    """
    dia, prow, pcol = 0, BS * BS * 4, 2 * BS * BS * 4

    def emit(kb: KernelBuilder, shape: tuple, at: tuple) -> KernelTrace:
        bx, offset = at
        rec = Program(kb, pcs, "lud_perimeter")
        a = kb.tx < BS  # peri-row half (lanes 0-15); the other half does peri-col
        b = ~a
        ia = kb.tx
        ib = kb.tx - BS
        col = offset + (bx + 1) * BS  # column of this CTA's row tile / row of its col tile

        def m(r, c):
            return m0 + (r * dim + c) * 4

        def sh(base, r, c):
            return base + (r * BS + c) * 4

        rec.compute(2 + 2 + 2)  # if; array_offset (2); (blockIdx.x+1)*BLOCK_SIZE (2)
        for i in range(BS // 2):
            rec.compute(2)
            rec.load(f"A.ld_dia[{i}]", m(offset + i, offset + ia), active=a)
            rec.store(f"A.st_dia[{i}]", sh(dia, i, ia), active=a, space=_SH)
        for i in range(BS):
            rec.compute(2)
            rec.load(f"A.ld_row[{i}]", m(offset + i, col + ia), active=a)
            rec.store(f"A.st_peri_row[{i}]", sh(prow, i, ia), active=a, space=_SH)
        rec.compute(1 + 3)  # idx = tx - 16; array_offset = (offset + 8)*dim + offset
        for i in range(BS // 2, BS):
            rec.compute(2)
            rec.load(f"B.ld_dia[{i}]", m(offset + i, offset + ib), active=b)
            rec.store(f"B.st_dia[{i}]", sh(dia, i, ib), active=b, space=_SH)
        rec.compute(4)  # array_offset = (offset + (blockIdx.x+1)*16)*dim + offset
        for i in range(BS):
            rec.compute(2)
            rec.load(f"B.ld_col[{i}]", m(col + i, offset + ib), active=b)
            rec.store(f"B.st_peri_col[{i}]", sh(pcol, i, ib), active=b, space=_SH)
        rec.barrier()
        # peri_row[i][idx] -= dia[i][j] * peri_row[j][idx]: rows of the same column idx
        # with distinct constant i, j never alias, so each peri_row element is loaded
        # once and then forwarded from the thread's own stores; every update is stored.
        rec.compute(2)
        for i in range(1, BS):
            rec.load(f"A.c.ld_peri_row[{i}]", sh(prow, i, ia), active=a, space=_SH)
            for j in range(i):
                rec.load(f"A.c.ld_dia[{i}][{j}]", sh(dia, i, j), active=a, space=_SH)
                if i == 1:  # peri_row[0][idx]: the only row never on a left-hand side
                    rec.load("A.c.ld_peri_row[0]", sh(prow, 0, ia), active=a, space=_SH)
                rec.compute(1)  # FMA
                rec.store(f"A.c.st_peri_row[{i}][{j}]", sh(prow, i, ia), active=a, space=_SH)
        # peri_col[idx][i] -= peri_col[idx][j] * dia[j][i]; peri_col[idx][i] /= dia[i][i]
        for i in range(BS):
            rec.load(f"B.c.ld_peri_col[{i}]", sh(pcol, ib, i), active=b, space=_SH)
            for j in range(i):
                rec.load(f"B.c.ld_dia[{j}][{i}]", sh(dia, j, i), active=b, space=_SH)
                rec.compute(1)
                rec.store(f"B.c.st_peri_col[{i}][{j}]", sh(pcol, ib, i), active=b, space=_SH)
            rec.load(f"B.c.ld_dia[{i}][{i}]", sh(dia, i, i), active=b, space=_SH)
            rec.compute(1)  # divide
            rec.store(f"B.c.st_peri_col[{i}]", sh(pcol, ib, i), active=b, space=_SH)
        rec.barrier()
        rec.compute(2 + 3)  # if; array_offset = (offset+1)*dim + offset
        for i in range(1, BS):
            rec.load(f"A.s.ld_peri_row[{i}]", sh(prow, i, ia), active=a, space=_SH)
            rec.compute(2)
            rec.store(f"A.s.st_m[{i}]", m(offset + i, col + ia), active=a)
        rec.compute(4)
        for i in range(BS):
            rec.load(f"B.s.ld_peri_col[{i}]", sh(pcol, i, ib), active=b, space=_SH)
            rec.compute(2)
            rec.store(f"B.s.st_m[{i}]", m(col + i, offset + ib), active=b)
        return rec.build()

    return emit


def internal_emit(dim: int, m0: int, pcs: PCs) -> Emit:
    """``lud_internal<<<(n, n), (16, 16)>>>``: trailing update from the perimeter tiles.

    ``at = (blockIdx.x, blockIdx.y, offset)``.
    """
    prow, pcol = 0, BS * BS * 4

    def emit(kb: KernelBuilder, shape: tuple, at: tuple) -> KernelTrace:
        bx, by, offset = at
        rec = Program(kb, pcs, "lud_internal")
        tx, ty = kb.tx, kb.ty
        grow = offset + (by + 1) * BS
        gcol = offset + (bx + 1) * BS
        rec.compute(3 + 3 + 4 + 2)  # global_row_id, global_col_id, the m index, ty*16 + tx
        rec.load("ld_m_row", m0 + ((offset + ty) * dim + gcol + tx) * 4)
        rec.store("st_peri_row", prow + (ty * BS + tx) * 4, space=_SH)
        rec.compute(4)
        rec.load("ld_m_col", m0 + ((grow + ty) * dim + offset + tx) * 4)
        rec.store("st_peri_col", pcol + (ty * BS + tx) * 4, space=_SH)
        rec.barrier()
        for i in range(BS):  # sum += peri_col[ty][i] * peri_row[i][tx], unrolled
            rec.load(f"ld_peri_col[{i}]", pcol + (ty * BS + i) * 4, space=_SH)
            rec.load(f"ld_peri_row[{i}]", prow + (i * BS + tx) * 4, space=_SH)
            rec.compute(1)
        rec.compute(2)  # (global_row_id+ty)*dim reused; + global_col_id + tx
        addr = m0 + ((grow + ty) * dim + gcol + tx) * 4
        rec.load("ld_m", addr)
        rec.compute(1)
        rec.store("st_m", addr)
        return rec.build()

    return emit


#: Kernel -> (emitter, block, shared bytes, block axes).
KERNELS = {"lud_diagonal": (diagonal_emit, (BS,), BS * BS * 4, 0),
           "lud_perimeter": (perimeter_emit, (2 * BS,), 3 * BS * BS * 4, 1),
           "lud_internal": (internal_emit, (BS, BS), 2 * BS * BS * 4, 2)}


def lud_kernels(dim: int, m0: int, pcs: PCs) -> list[KernelTrace]:
    """Every launch of ``lud_cuda(m, dim)`` for the ``dim x dim`` float matrix at ``m0``."""
    if dim % BS or dim < 2 * BS:
        raise ValueError(f"matrix_dim must be a multiple of {BS} of at least {2 * BS}, not {dim}")
    # Every global address is m0 + ((offset + r)*dim + offset + c)*4, linear in the
    # block indices and in `offset`: each kernel's CTA is built once, with `offset`
    # as one more axis, and copied over every launch.
    tmpl = {name: cta_template(name, block, emit(dim, m0, pcs), (), (0,) * (axes + 1),
                               shared_bytes=shared)
            for name, (emit, block, shared, axes) in KERNELS.items()}
    kernels = []
    for offset in range(0, dim - BS, BS):
        n = (dim - offset) // BS - 1
        kernels.append(tile(tmpl["lud_diagonal"], (1,), offset))
        kernels.append(tile(tmpl["lud_perimeter"], (n,), offset))
        kernels.append(tile(tmpl["lud_internal"], (n, n), offset))
    kernels.append(tile(tmpl["lud_diagonal"], (1,), dim - BS))
    return kernels


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """tian15 lud at ``scale`` (side ``1024 * scale``, a multiple of 16, at least 32).

    The matrix values never reach an address, so the trace does not depend on ``seed``.
    """
    dim = scaled(PAPER_DIM, scale, multiple=BS, minimum=2 * BS)
    mem = DeviceMemory()
    m0 = mem.alloc("m", dim * dim * 4)  # lud.cu: cudaMalloc d_m
    return Workload(name="tian15/lud", kernels=lud_kernels(dim, m0, PCs()),
                    params={"matrix_dim": dim, "block_size": BS,
                            "arrays": mem.sizes()},
                    source=SOURCE)


register_workload("tian15", "lud", build, source=SOURCE, mi=14.2, size="1024x1024",
                  description="LU decomposition, 16x16 shared-memory tiles, 1024x1024 floats")
