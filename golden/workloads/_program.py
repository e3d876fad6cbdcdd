"""Program-order statements of a kernel, handed to the builder in batches.

A kernel emulator that writes one :class:`~golden.trace.builder.KernelBuilder`
call per source statement pays the builder's per-call overhead (masks,
affine fits, row arrays) once per statement; kernels with hundreds of
unrolled statements spend most of their time there. :class:`Program` takes
the same statements (``load``, ``store``, ``atomic``, ``compute``,
``barrier``, and ``stage`` for a global-to-shared copy), names each memory
instruction by a label of its kernel, and issues each run of memory
instructions between barriers (or conditional compute) as one
:meth:`~golden.trace.builder.KernelBuilder.sequence` call. The rows are
those the statement-by-statement calls give.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Op, Space
from golden.workloads._common import PCs

__all__ = ["Program"]

#: Largest ``k * n_threads`` a single ``KernelBuilder.sequence`` call holds.
_MAX_ELEMS = 16_000_000


class Program:
    """Program-order memory instructions of one kernel, emitted in batches.

    Collects the statements of a kernel the way a :class:`KernelBuilder` does
    (``load``, ``store``, ``atomic``, ``stage``, ``compute``, ``barrier``) and hands each run of memory
    instructions between barriers to :meth:`KernelBuilder.sequence` in one
    call, which keeps the per-call overhead off kernels with many statements.
    The rows equal those of the corresponding :class:`KernelBuilder` calls.

    Parameters
    ----------
    kb : KernelBuilder
        The builder of the launch.
    pcs : PCs
        PC numbering of the workload.
    prefix : str
        Kernel name prepended to every PC label.
    """

    def __init__(self, kb: KernelBuilder, pcs: PCs, prefix: str) -> None:
        self.kb = kb
        self._pcs = pcs
        self._prefix = prefix
        self._rows: list[tuple] = []
        self._gap = 0

    def pc(self, label: str) -> int:
        """PC of the instruction ``label`` of this kernel."""
        return self._pcs(f"{self._prefix}:{label}")

    def compute(self, n: int, active=None) -> None:
        """``n`` compute instructions; with ``active``, only in warps with an active thread."""
        if n <= 0:
            return
        if active is None:
            self._gap += n
        else:
            self.flush()
            self.kb.compute(n, active=active)

    def load(self, label: str, addr, *, active=None, width: int = 4,
             space: Space = Space.GLOBAL) -> None:
        """A load of ``width`` bytes per thread (PC from ``label``)."""
        self._append(Op.LOAD, self.pc(label), addr, active, width, space)

    def store(self, label: str, addr, *, active=None, width: int = 4,
              space: Space = Space.GLOBAL) -> None:
        """A store of ``width`` bytes per thread (PC from ``label``)."""
        self._append(Op.STORE, self.pc(label), addr, active, width, space)

    def atomic(self, label: str, addr, *, active=None, width: int = 4,
               space: Space = Space.GLOBAL) -> None:
        """An atomic read-modify-write of ``width`` bytes per thread (PC from ``label``)."""
        self._append(Op.ATOMIC, self.pc(label), addr, active, width, space)

    def stage(self, label: str, src, dst, *, active=None, width: int = 4) -> None:
        """``shared[dst] = global[src]``: a global load, then a shared store.

        The tile staging most kernels begin with; the PC labels are ``ld_<label>``
        and ``st_<label>``.
        """
        self.load(f"ld_{label}", src, active=active, width=width)
        self.store(f"st_{label}", dst, active=active, width=width, space=Space.SHARED)

    def barrier(self) -> None:
        """``__syncthreads()`` (:meth:`KernelBuilder.barrier` after the pending statements)."""
        self.flush()
        self.kb.barrier()

    def _append(self, op, pc, addr, active, width, space) -> None:
        # A row's gap is compute issued by the warps that execute the row. Pending
        # compute is every warp's, so before a conditional row it is issued on its own.
        if active is not None and self._gap:
            self.flush()
        self._rows.append((op, pc, addr, active, width, space, self._gap))
        self._gap = 0
        if len(self._rows) * self.kb.n_threads >= _MAX_ELEMS:
            self.flush()

    def flush(self) -> None:
        """Emit the pending instructions (and pending compute) into the builder."""
        n = self.kb.n_threads
        if self._rows:
            ops, pcs, addrs, actives, widths, spaces, gaps = zip(*self._rows, strict=True)
            addr = np.empty((len(addrs), n), dtype=np.int64)
            for i, a in enumerate(addrs):
                addr[i] = a
            act = None
            if any(a is not None for a in actives):
                act = np.ones((len(actives), n), dtype=bool)
                for i, a in enumerate(actives):
                    if a is not None:
                        act[i] = a
            self.kb.sequence(np.array(ops), np.array(pcs), addr, active=act,
                             widths=np.array(widths), gaps=np.array(gaps),
                             space=np.array(spaces))
            self._rows = []
        if self._gap:
            self.kb.compute(self._gap)
            self._gap = 0

    def build(self) -> KernelTrace:
        """Finish the launch."""
        self.flush()
        return self.kb.build()
