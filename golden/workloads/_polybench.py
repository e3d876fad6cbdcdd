"""Machinery shared by the Polybench/GPU emulators of the rdgc suite.

Every Polybench/GPU kernel is a bounds check followed by straight-line
code or by loops whose addresses are affine in the trip index. A kernel is
written here as lists of :class:`Access` (one memory instruction of the
source, its byte address per thread at trip 0 and its increment per trip)
and an :class:`Emitter` turns them into batched
:meth:`~golden.trace.builder.KernelBuilder.sequence` calls, so a loop of
thousands of trips costs a handful of builder calls.

Two ways of counting the global accesses of a thread are offered
(``accesses=``):

``"source"``
    Every array element the CUDA statement reads or writes is one access,
    as written: ``c[i] += a[k] * b[k]`` is a load of ``c[i]``, ``a[k]``,
    ``b[k]`` and a store of ``c[i]`` in every trip.
``"compiled"``
    What nvcc emits for the same source without ``__restrict__``: a load is
    dropped when the thread loaded or stored the same element earlier and
    no store through another pointer (which may alias it) came in between
    (store-to-load forwarding and redundant-load elimination). Stores are
    never dropped, since a later load through another pointer may read
    them. This is the count that reproduces RDGC's ``L`` (rdgc Table 4),
    and the default.

Each :class:`Access` says in which trips the compiler forwards it
(``forwarded``); the emulator modules work that out from the statement
order, and their docstrings say why.

An emulator module writes a function ``trace(run)`` that, given a
:class:`Run` (size N, arrays, PC numbering, access mode), allocates the
program's arrays, starts each launch with :meth:`Run.launch_1d` or
:meth:`Run.launch_2d` and writes the kernel's statements as :class:`Access`
lists (:func:`update` for the read-modify-write statements most kernels are
made of; :func:`matvec_kernel` and :func:`symmat_kernel` for the kernels
several programs share). :func:`register_rdgc` registers it and gives the
module's ``build(scale, seed, *, accesses)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Op, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled

__all__ = [
    "ACCESS_MODES",
    "ELEM",
    "EPILOGUE",
    "LOOP_OVERHEAD",
    "Access",
    "Emitter",
    "Run",
    "ceil_div",
    "check_mode",
    "ld",
    "make_workload",
    "matvec_kernel",
    "problem_size",
    "register_rdgc",
    "shifted",
    "st",
    "symmat_body",
    "symmat_kernel",
    "update",
]

#: ``sizeof(DATA_TYPE)``: every kernel emulated here is compiled with ``float``.
ELEM = 4

#: The two ways of counting accesses (module docstring).
ACCESS_MODES = ("source", "compiled")

#: Compute instructions per loop trip: counter increment and compare-and-branch.
LOOP_OVERHEAD = 2

#: Compute instructions after a thread's last memory instruction (``EXIT``).
EPILOGUE = 1

_FORWARDED = ("never", "always", "first", "rest")

#: Addresses held at once by one ``sequence`` call (``k * n_threads``).
_MAX_ELEMS = 1 << 23


def check_mode(accesses: str) -> None:
    """Raise ValueError unless ``accesses`` is one of :data:`ACCESS_MODES`."""
    if accesses not in ACCESS_MODES:
        raise ValueError(f"accesses: must be one of {', '.join(ACCESS_MODES)}, not {accesses!r}")


def problem_size(paper: int, scale: float, minimum: int) -> int:
    """The paper's size ``paper`` times ``scale`` (``0 < scale <= 1``), at least ``minimum``.

    Raises
    ------
    ValueError
        If ``scale`` is outside ``(0, 1]``.
    """
    if not 0 < scale <= 1:
        raise ValueError(f"scale: must be in (0, 1], not {scale}")
    return scaled(paper, scale, 1, minimum)


def make_workload(name: str, kernels: list[KernelTrace], mem: DeviceMemory, source: str,
                  suite: str = "rdgc", **params) -> Workload:
    """``Workload("<suite>/<name>")`` whose params hold ``params`` and the byte size of every array."""
    params["arrays"] = mem.sizes()
    return Workload(name=f"{suite}/{name}", kernels=kernels, params=params, source=source)


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` for positive integers: the sources' grid sizes."""
    return -(-a // b)


@dataclass(frozen=True, eq=False)
class Access:
    """One global memory instruction of a kernel's source.

    The byte address of a thread in trip ``t`` of the enclosing loop is
    ``addr + offset + t * step``.

    Parameters
    ----------
    op : Op
        LOAD or STORE.
    label : str
        PC label; one per memory instruction of the source.
    addr : numpy.ndarray or int
        Per-thread ``int64[n_threads]`` part of the address at trip 0, or a scalar.
        Several accesses may share one array (``offset`` then tells them apart).
    offset : int
        Scalar byte offset added to ``addr``.
    step : int
        Bytes added per trip of the enclosing loop.
    gap : int
        Compute instructions the thread issues just before this access.
    forwarded : str
        Trips in which nvcc forwards this load from an earlier access of the same
        element (``"never"``, ``"always"``, ``"first"``: trip 0 only, ``"rest"``:
        trips 1 and later). Only used with ``accesses="compiled"``.
    active : numpy.ndarray, optional
        ``bool[n_threads]``: threads that execute this access (a branch inside the
        kernel); the kernel's bounds check is given to the :class:`Emitter` instead.
    width : int
        Bytes per thread (4 for ``float``, 8 for ``double``).
    """

    op: Op
    label: str
    addr: np.ndarray | int
    offset: int = 0
    step: int = 0
    gap: int = 0
    forwarded: str = "never"
    active: np.ndarray | None = None
    width: int = ELEM

    def __post_init__(self) -> None:
        if self.forwarded not in _FORWARDED:
            raise ValueError(f"forwarded: must be one of {', '.join(_FORWARDED)}, "
                             f"not {self.forwarded!r}")
        if self.op != Op.LOAD and self.forwarded != "never":
            raise ValueError(f"forwarded: only a load can be forwarded, not {self.op.name} "
                             f"{self.label!r}")


def ld(label: str, addr, offset: int = 0, **kw) -> Access:
    """A load :class:`Access` (keyword arguments as there)."""
    return Access(Op.LOAD, label, addr, offset, **kw)


def st(label: str, addr, offset: int = 0, **kw) -> Access:
    """A store :class:`Access` (keyword arguments as there)."""
    return Access(Op.STORE, label, addr, offset, **kw)


def update(label: str, addr, terms: list[Access], offset: int = 0, *, step: int = 0,
           flops: int = 2, forwarded: str = "never", gap: int = 0,
           active: np.ndarray | None = None) -> list[Access]:
    """A statement ``x = f(x, terms)`` (``x += a * b``): load ``x``, the terms, store ``x``.

    Parameters
    ----------
    label : str
        Names ``x``: the PC labels are ``ld_<label>`` and ``st_<label>``.
    addr, offset, step : see :class:`Access`
        Where ``x`` is.
    terms : list of Access
        The other operands' loads, in source order.
    flops : int
        Compute instructions between the last load and the store.
    forwarded : str
        When nvcc forwards the load of ``x`` (see :class:`Access`).
    gap : int
        Compute instructions before the load of ``x``.
    active : numpy.ndarray, optional
        Threads that execute the statement (a branch); the terms carry their own.
    """
    where = {"step": step, "active": active}
    return [ld(f"ld_{label}", addr, offset, forwarded=forwarded, gap=gap, **where), *terms,
            st(f"st_{label}", addr, offset, gap=flops, **where)]


class Emitter:
    """Writes a kernel's accesses into a :class:`KernelBuilder` in program order.

    Parameters
    ----------
    kb : KernelBuilder
        The kernel under construction.
    accesses : str
        ``"source"`` or ``"compiled"`` (module docstring).
    prologue : int
        Compute instructions before the first access: index arithmetic and the
        bounds check.
    pcs : PCs, optional
        PC numbering; kernels of one program share one so their PCs differ.

    Raises
    ------
    ValueError
        For an unknown ``accesses`` mode.
    """

    def __init__(self, kb: KernelBuilder, accesses: str, *, prologue: int,
                 pcs: PCs | None = None) -> None:
        check_mode(accesses)
        self.kb = kb
        self.pcs = pcs if pcs is not None else PCs()
        self._compiled = accesses == "compiled"
        self._prologue = int(prologue)
        # Compute of dropped accesses and trailing loop overhead, carried to the next access.
        self._pending = self._prologue

    def straight(self, body: list[Access], *, active: np.ndarray | None = None) -> None:
        """Straight-line code: every access of ``body`` once, in order."""
        self.loop(body, 1, active=active, overhead=0)

    def loop(self, body: list[Access], trips: int, *, active: np.ndarray | None = None,
             thread_trips: np.ndarray | None = None, overhead: int = LOOP_OVERHEAD) -> None:
        """A loop of ``trips`` trips over ``body``.

        Parameters
        ----------
        body : list of Access
            One trip's accesses in program order.
        trips : int
            Trips of the longest-running thread.
        active : numpy.ndarray, optional
            ``bool[n_threads]``: threads that pass the kernel's bounds check.
        thread_trips : numpy.ndarray, optional
            ``int[n_threads]``: trips of each thread when they differ (a thread is
            inactive from its own last trip on; its warp runs on while any lane does).
        overhead : int
            Compute instructions at the start of every trip.
        """
        kb, n = self.kb, self.kb.n_threads
        n_body = len(body)
        if trips <= 0 or n_body == 0:
            return
        drop = {"never": (False, False), "always": (True, True),
                "first": (True, False), "rest": (False, True)}
        keep0 = np.array([not (self._compiled and drop[a.forwarded][0]) for a in body])
        keep1 = np.array([not (self._compiled and drop[a.forwarded][1]) for a in body])
        gap = np.array([a.gap for a in body], dtype=np.int64)
        gap[0] += overhead

        # (trip, entry) pairs in program order; dropped accesses pass their compute on.
        t = np.repeat(np.arange(trips, dtype=np.int64), n_body)
        e = np.tile(np.arange(n_body, dtype=np.int64), trips)
        keep = np.where(t == 0, keep0[e], keep1[e])
        csum = np.cumsum(gap[e]) + self._pending
        kept = np.flatnonzero(keep)
        if kept.size == 0:
            self._pending = int(csum[-1])
            return
        gaps = np.diff(csum[kept], prepend=0)
        self._pending = int(csum[-1] - csum[kept[-1]])
        t, e = t[kept], e[kept]

        ops = np.array([a.op for a in body], dtype=np.int64)
        pcs = np.array([self.pcs(a.label) for a in body], dtype=np.int64)
        step = np.array([a.step for a in body], dtype=np.int64)
        offset = np.array([a.offset for a in body], dtype=np.int64)
        widths = np.array([a.width for a in body], dtype=np.int64)
        addr = [np.broadcast_to(np.asarray(a.addr, dtype=np.int64), (n,)) for a in body]
        stacked = np.stack(addr) if n_body * n <= _MAX_ELEMS else None
        branch = None
        if any(a.active is not None for a in body):
            branch = [np.ones(n, bool) if a.active is None else np.asarray(a.active, bool)
                      for a in body]

        if active is not None:
            active = np.asarray(active, bool)
            if active.all():
                active = None  # the builder's fast path: no per-instruction masks to compute
        k_max = max(1, _MAX_ELEMS // n)
        for s in range(0, t.size, k_max):
            tt, ee = t[s:s + k_max], e[s:s + k_max]
            if stacked is not None:
                addrs = stacked[ee]
            else:
                addrs = np.stack([addr[x] for x in ee])
            addrs += (offset[ee] + tt * step[ee])[:, None]
            act = None if active is None else active[None, :]
            if thread_trips is not None:
                more = tt[:, None] < np.asarray(thread_trips)[None, :]
                act = more if act is None else act & more
            if branch is not None:
                sel = np.stack([branch[x] for x in ee])
                act = sel if act is None else act & sel
            kb.sequence(ops[ee], pcs[ee], addrs, active=act, widths=widths[ee],
                        gaps=gaps[s:s + k_max])

    def finish(self) -> KernelTrace:
        """Build the kernel.

        Each warp's tail is set to the compute after the kernel's last access plus
        :data:`EPILOGUE`, and to the prologue plus :data:`EPILOGUE` for a warp none
        of whose threads pass the bounds check. (The builder would also charge a
        warp the compute of loop trips all its threads had left.)
        """
        trace = self.kb.build()
        issued = np.diff(trace.warp_ptr) > 0
        trace.tail[issued] = self._pending + EPILOGUE
        trace.tail[~issued] = self._prologue + EPILOGUE
        return trace


class Run:
    """One traced run of a Polybench/GPU program: its size, arrays, PCs and access mode.

    Parameters
    ----------
    n_paper : int
        The problem size at ``scale = 1`` (rdgc Table 4).
    scale : float
        Size relative to the paper's, in ``(0, 1]``.
    accesses : str
        ``"source"`` or ``"compiled"`` (module docstring).
    minimum : int
        Smallest size the program runs at.
    suite : str
        Suite of the workload's name (``"rdgc"``; ``"ciao18"`` runs the same kernels at
        ciao18 Table II's sizes).
    max_grid_rows : int, optional
        Emit at most this many rows of CTAs (``blockIdx.y``) of a 2-D launch: the first
        CTAs in launch order, for grids whose whole trace would not fit in memory.

    Members
    -------
    n : int
        The problem size: ``n_paper * scale`` rounded, at least ``minimum``.
    mem : DeviceMemory
        The program's arrays, to allocate in its ``cudaMalloc`` order.
    pcs : PCs
        PC numbering shared by the program's kernels.

    Raises
    ------
    ValueError
        For an unknown ``accesses`` or a ``scale`` outside ``(0, 1]``.
    """

    def __init__(self, n_paper: int, scale: float, accesses: str, minimum: int = 1,
                 suite: str = "rdgc", max_grid_rows: int | None = None) -> None:
        check_mode(accesses)
        self.accesses = accesses
        self.suite = suite
        self.max_grid_rows = max_grid_rows
        self.n = problem_size(n_paper, scale, minimum)
        self.mem = DeviceMemory()
        self.pcs = PCs()

    def alloc(self, **elements: int) -> list[int]:
        """Allocate float arrays of ``elements[name]`` elements each, in the order given.

        The program's ``cudaMalloc`` calls, in one: returns the arrays' base addresses.
        """
        return [self.mem.alloc(name, count * ELEM) for name, count in elements.items()]

    def launch_1d(self, name: str, threads: int, block: int, *,
                  prologue: int) -> tuple[Emitter, np.ndarray]:
        """A launch of ``ceil(threads / block)`` blocks of ``block`` threads.

        Returns its :class:`Emitter` (``prologue`` as there) and each thread's index
        ``blockIdx.x * block + threadIdx.x``.
        """
        kb = KernelBuilder(name, grid=(ceil_div(threads, block),), block=(block,))
        return Emitter(kb, self.accesses, prologue=prologue, pcs=self.pcs), kb.bx * block + kb.tx

    def launch_2d(self, name: str, cols: int, rows: int, block: tuple[int, int], *,
                  prologue: int) -> tuple[Emitter, np.ndarray, np.ndarray]:
        """A launch of ``(ceil(cols / block[0]), ceil(rows / block[1]))`` blocks.

        With ``max_grid_rows`` set, only the first ``max_grid_rows`` rows of blocks are
        built (the grid's ``y`` is cut; every emitted CTA is exact).

        Returns its :class:`Emitter` (``prologue`` as there), each thread's row
        ``i = blockIdx.y * block[1] + threadIdx.y`` and column
        ``j = blockIdx.x * block[0] + threadIdx.x``.
        """
        grid_y = ceil_div(rows, block[1])
        if self.max_grid_rows is not None:
            grid_y = min(grid_y, self.max_grid_rows)
        kb = KernelBuilder(name, grid=(ceil_div(cols, block[0]), grid_y), block=block)
        em = Emitter(kb, self.accesses, prologue=prologue, pcs=self.pcs)
        return em, kb.by * block[1] + kb.ty, kb.bx * block[0] + kb.tx

    def workload(self, name: str, kernels: list[KernelTrace], source: str, **params) -> Workload:
        """``Workload("<suite>/<name>")``; params: ``params``, ``accesses`` and the array sizes."""
        return make_workload(name, kernels, self.mem, source, self.suite, **params,
                             accesses=self.accesses)


def register_rdgc(name: str, trace: Callable[..., Workload], *, n_paper: int, minimum: int = 1,
                  source: str, description: str, kernels: list[str], L: str
                  ) -> Callable[..., Workload]:
    """Register the Polybench/GPU workload ``rdgc/<name>`` and return its ``build``.

    Parameters
    ----------
    name : str
        Workload name within the suite.
    trace : callable
        ``trace(run, **options) -> Workload``: the program's launches for a :class:`Run`.
    n_paper : int
        The size N at scale 1: rdgc Table 4's, which its ``L`` formula is written in
        (stored as ``paper["size"]`` and ``paper["N"]``).
    minimum : int
        Smallest N the program runs at.
    source, description : str
        As :class:`~golden.workloads.registry.WorkloadSpec`.
    kernels : list of str
        The kernels rdgc Table 4 lists.
    L : str
        rdgc Table 4's L.

    Returns
    -------
    callable
        ``build(scale=1.0, seed=0, *, accesses="compiled", **options) -> Workload``.
    """
    def build(scale: float = 1.0, seed: int = 0, *, accesses: str = "compiled",
              **options) -> Workload:
        return trace(Run(n_paper, scale, accesses, minimum), **options)

    summary = trace.__doc__.strip().splitlines()[0] if trace.__doc__ else ""
    build.__doc__ = (
        f"rdgc/{name} at ``N = round({n_paper} * scale)`` (at least {minimum}): {summary}\n\n"
        "``seed`` is unused (no data-dependent addresses); ``accesses`` is ``\"compiled\"`` "
        "(default) or ``\"source\"`` (see :mod:`golden.workloads._polybench`); ``options`` "
        f"go to :func:`{trace.__module__}.{trace.__name__}`.")
    build.__module__, build.__qualname__ = trace.__module__, "build"
    register_workload("rdgc", name, build, source=source, description=description, version=2,
                      size=n_paper, N=n_paper, kernels=kernels, L=L)
    return build


def matvec_kernel(run: Run, name: str, *, threads: int, trips: int, block: int, acc: int,
                  matrix: int, per_thread: int, per_trip: int, vector: int,
                  zeroed: bool = False, prefix: str = "") -> KernelTrace:
    """A matrix-vector kernel, one thread per element of the result::

        t = blockIdx.x * block + threadIdx.x;
        if (t < threads) {
            acc[t] = 0;                                   // when zeroed
            for (k = 0; k < trips; k++)
                acc[t] += matrix[t * per_thread + k * per_trip] * vector[k];
        }

    (ATAX, BICG and MVT are two of these each.) nvcc forwards ``acc[t]`` from the
    store before it (only loads come between): from trip 1 on, and in trip 0 too
    after the zeroing store.

    Parameters
    ----------
    run, name
        The program (:class:`Run`) and the kernel's name.
    threads, trips, block : int
        Working threads, loop trips, threads per block.
    acc, matrix, vector : int
        Base addresses of the arrays.
    per_thread, per_trip : int
        Element strides of the matrix walk per thread and per trip.
    zeroed : bool
        The kernel stores 0 to ``acc[t]`` before the loop.
    prefix : str
        Prefix of the PC labels.
    """
    em, t = run.launch_1d(name, threads, block, prologue=2)  # index, bound comparison
    acc_t = acc + t * ELEM
    if zeroed:
        em.straight([st(f"{prefix}st_acc0", acc_t)], active=t < threads)
    em.loop(update(f"{prefix}acc", acc_t, [
        ld(f"{prefix}ld_matrix", matrix + t * per_thread * ELEM, step=per_trip * ELEM),
        ld(f"{prefix}ld_vector", vector, step=ELEM)],
        forwarded="always" if zeroed else "rest"), trips, active=t < threads)  # multiply, add
    return em.finish()


def symmat_body(j1: np.ndarray, first: int, m1: int, n: int, data: int, symmat: int,
                label: str = "") -> list[Access]:
    """One ``j2`` trip of the column-product loop of CORR's and COVAR's last kernels.

    Both kernels (1-based arrays with rows of ``m1 = M + 1`` floats) run, for
    ``j2 = j1 + first + t`` in trip ``t``::

        symmat[j1*m1 + j2] = 0.0;
        for (i = 1; i < N + 1; i++)
            symmat[j1*m1 + j2] += data[i*m1 + j1] * data[i*m1 + j2];
        symmat[j2*m1 + j1] = symmat[j1*m1 + j2];

    The inner loop is unrolled into the returned body (one :class:`Access` per
    access, ``4 * n + 3`` in all). Every read of ``symmat[j1*m1 + j2]`` follows a
    store to that element with only loads between, so nvcc forwards them all.

    Parameters
    ----------
    j1 : numpy.ndarray
        Each thread's ``j1``.
    first : int
        ``j2 - j1`` in trip 0 (1 for CORR, 0 for COVAR).
    m1 : int
        Row length of ``data`` and ``symmat`` in elements.
    n : int
        Trips of the inner ``i`` loop.
    data, symmat : int
        Base addresses of the arrays.
    label : str
        Prefix of the PC labels.
    """
    ij = j1 * (m1 + 1) * ELEM  # symmat[j1*m1 + j1] relative to symmat
    col = j1 * ELEM  # data[j1] relative to data
    sym = symmat + first * ELEM  # symmat[j1*m1 + j2] relative to ij in trip 0
    body = [st(f"{label}st_sym0", ij, sym, step=ELEM)]
    for i in range(1, n + 1):
        row = data + i * m1 * ELEM
        body += update(f"{label}sym", ij, [ld(f"{label}ld_data_j1", col, row),
                                           ld(f"{label}ld_data_j2", col, row + first * ELEM,
                                              step=ELEM)],
                       sym, step=ELEM, forwarded="always", gap=LOOP_OVERHEAD)  # mul, add
    body += [ld(f"{label}ld_sym_copy", ij, sym, step=ELEM, forwarded="always"),
             st(f"{label}st_sym_t", ij, symmat + first * m1 * ELEM, step=m1 * ELEM)]
    return body


def symmat_kernel(run: Run, name: str, *, m: int, n: int, first: int, block: int, data: int,
                  symmat: int, diagonal: bool) -> KernelTrace:
    """CORR's and COVAR's last kernel: the column products of ``data`` into ``symmat``.

    One thread per column ``j1 = blockIdx.x * block + threadIdx.x + 1`` for
    ``1 <= j1 <= M - first``; thread ``j1`` runs the ``M + 1 - first - j1`` trips
    ``j2 = j1 + first .. M`` of :func:`symmat_body` (its warp runs while any lane
    does), after storing ``symmat[j1][j1] = 1.0`` when ``diagonal``.

    Parameters
    ----------
    run, name
        The program (:class:`Run`) and the kernel's name.
    m, n : int
        The source's M (columns) and N (rows of ``data``).
    first : int
        ``j2 - j1`` in the first trip.
    block : int
        Threads per block.
    data, symmat : int
        Base addresses of the arrays.
    diagonal : bool
        The kernel sets the diagonal element first.
    """
    em, t = run.launch_1d(name, m, block, prologue=1 + 2)  # index, two bound comparisons
    j1 = t + 1
    m1 = m + 1
    active = (j1 >= 1) & (j1 < m1 - first)
    if diagonal:
        em.straight([st("st_sym_diag", j1 * (m1 + 1) * ELEM, symmat)], active=active)
    em.loop(symmat_body(j1, first, m1, n, data, symmat), m - first, active=active,
            thread_trips=np.where(active, m1 - first - j1, 0))
    return em.finish()


def shifted(kernel: KernelTrace, offset: int, rows: np.ndarray | None = None) -> KernelTrace:
    """A copy of ``kernel`` whose memory instructions address ``offset`` bytes further.

    Used for launches that differ only by a scalar argument that moves every
    address (3DCONV's plane ``i``, FDTD's ``_fict_[t]``).

    Parameters
    ----------
    kernel : KernelTrace
        The launch to copy.
    offset : int
        Bytes to add (non-negative).
    rows : numpy.ndarray, optional
        Boolean mask of the instruction rows to move; all memory rows when None.

    Raises
    ------
    ValueError
        If ``offset`` is negative.
    """
    if offset < 0:
        raise ValueError(f"offset: must be non-negative, not {offset}")
    insts = kernel.insts.copy()
    sel = insts["op"] != Op.BARRIER if rows is None else np.asarray(rows, bool)
    insts["base"][sel & (insts["lanes"] < 0)] += np.uint64(offset)
    lane_addrs = kernel.lane_addrs.copy()
    explicit = sel & (insts["lanes"] >= 0)
    if explicit.any():
        idx = insts["lanes"][explicit]
        lane = np.arange(32, dtype=np.uint32)
        on = ((insts["mask"][explicit][:, None] >> lane[None, :]) & 1).astype(bool)
        lane_addrs[idx] += np.where(on, np.uint64(offset), np.uint64(0))
    return KernelTrace(name=kernel.name, grid=kernel.grid, block=kernel.block, insts=insts,
                       lane_addrs=lane_addrs, tail=kernel.tail.copy(),
                       shared_bytes=kernel.shared_bytes, regs_per_thread=kernel.regs_per_thread)
