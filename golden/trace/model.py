"""The data model of GPU work: kernels as per-warp instruction streams.

A kernel launch is stored as one numpy structured array of *warp
instructions* (:data:`INST_DTYPE`), one row per memory or barrier
instruction a warp issues, ordered by warp and then by program order.
Compute instructions are not stored one by one: each row carries ``gap``,
the number of compute instructions the warp issued since its previous row,
and :attr:`KernelTrace.tail` holds the compute instructions after a warp's
last row. Whole workloads have tens of millions of memory instructions, so
there is never a Python object per instruction.

Lane addresses are kept compactly. Most GPU instructions address their
lanes affinely, so a row stores ``base``, ``sx``, ``sy`` and ``dx`` and the
byte address of lane ``l`` is::

    base + (l % dx) * sx + (l // dx) * sy

(``dx == 32`` is a 1-D stride, ``dx == blockDim.x < 32`` covers 2-D thread
blocks). A row whose lanes do not fit that form has ``lanes >= 0``: the
index of a row of :attr:`KernelTrace.lane_addrs` (``uint64[m, 32]``) that
holds every lane's address explicitly. Inactive lanes (``mask`` bit clear)
carry no access in either form.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "WARP_SIZE",
    "Op",
    "Space",
    "INST_DTYPE",
    "KernelTrace",
    "Workload",
    "lane_addresses",
]

#: Threads per warp. Every trace in gpucache uses 32-wide warps.
WARP_SIZE = 32


class Op(enum.IntEnum):
    """Operation of a stored warp instruction (compute instructions are counted, not stored)."""

    LOAD = 1
    STORE = 2
    ATOMIC = 3
    BARRIER = 4


class Space(enum.IntEnum):
    """Memory space an instruction addresses."""

    NONE = 0  # barriers
    GLOBAL = 1
    SHARED = 2
    LOCAL = 3
    CONST = 4
    TEXTURE = 5


#: One row per stored warp instruction. See the module docstring for the address form.
INST_DTYPE = np.dtype(
    [
        ("cta", "<i4"),  # linear CTA id: x + y*gx + z*gx*gy
        ("warp", "<i4"),  # warp index within the CTA
        ("pc", "<u4"),  # byte PC of the instruction
        ("op", "u1"),  # Op
        ("space", "u1"),  # Space
        ("width", "u1"),  # bytes accessed per active lane
        ("dx", "u1"),  # lanes per affine row (32 for a 1-D stride)
        ("gap", "<u4"),  # compute instructions issued since the warp's previous row
        ("mask", "<u4"),  # active-lane mask, bit l = lane l
        ("base", "<u8"),  # byte address of lane 0 (affine form)
        ("sx", "<i4"),  # byte stride between lanes within an affine row
        ("sy", "<i4"),  # byte stride between affine rows
        ("lanes", "<i4"),  # -1: affine form; otherwise a row of lane_addrs
    ]
)


def lane_addresses(kernel: KernelTrace, rows: np.ndarray | slice | None = None) -> np.ndarray:
    """Expand instructions to explicit lane addresses.

    Parameters
    ----------
    kernel : KernelTrace
        The kernel whose instructions to expand.
    rows : array of int, slice or None
        Which instruction rows; all when None.

    Returns
    -------
    numpy.ndarray
        ``uint64[n, 32]``; inactive lanes hold 0.
    """
    insts = kernel.insts if rows is None else kernel.insts[rows]
    lane = np.arange(WARP_SIZE, dtype=np.int64)
    dx = insts["dx"].astype(np.int64)[:, None]
    addr = (
        insts["base"].astype(np.int64)[:, None]
        + (lane[None, :] % dx) * insts["sx"].astype(np.int64)[:, None]
        + (lane[None, :] // dx) * insts["sy"].astype(np.int64)[:, None]
    ).astype(np.uint64)
    explicit = insts["lanes"] >= 0
    if explicit.any():
        addr[explicit] = kernel.lane_addrs[insts["lanes"][explicit]]
    active = ((insts["mask"][:, None] >> lane[None, :].astype(np.uint32)) & 1).astype(bool)
    addr[~active] = 0
    return addr


@dataclass(eq=False)
class KernelTrace:
    """One kernel launch as per-warp instruction streams.

    Parameters
    ----------
    name : str
        Kernel name (as in the source, e.g. ``"matrixMul"``).
    grid : tuple of int
        Grid dimensions in CTAs, ``(x, y, z)``.
    block : tuple of int
        CTA dimensions in threads, ``(x, y, z)``.
    insts : numpy.ndarray
        Rows of :data:`INST_DTYPE`, sorted by ``(cta, warp)`` and program order.
    lane_addrs : numpy.ndarray
        ``uint64[m, 32]``, explicit lane addresses for rows with ``lanes >= 0``.
    tail : numpy.ndarray
        ``uint32[n_warps]``, compute instructions after each warp's last row.
    shared_bytes : int
        Shared memory per CTA in bytes (for occupancy).
    regs_per_thread : int
        Registers per thread (for occupancy; 0 when unknown).
    consumers : numpy.ndarray or None
        ``int64[len(insts)]`` or None. Where a trace carries registers (Accel-Sim
        imports), row ``r``'s consumer distance: its result is first read (or its
        destination register written again) by the warp's instruction
        ``consumers[r]`` instructions after it, counting compute instructions
        and rows; ``-1`` when nothing later in the warp uses it (and for rows
        without a result). The timing model's ``registers`` dependence rule
        waits there (``docs/timing.md``). None: the trace has no registers (the
        built-in emulators).

    Members
    -------
    warp_ptr : numpy.ndarray
        ``int64[n_warps + 1]``: the rows of global warp ``g = cta * warps_per_cta + warp``
        are ``insts[warp_ptr[g]:warp_ptr[g + 1]]``. Derived on construction.
    """

    name: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    insts: np.ndarray
    lane_addrs: np.ndarray
    tail: np.ndarray
    shared_bytes: int = 0
    regs_per_thread: int = 0
    consumers: np.ndarray | None = field(default=None, repr=False)
    warp_ptr: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.grid = tuple(int(v) for v in self.grid)
        self.block = tuple(int(v) for v in self.block)
        if self.consumers is not None:
            self.consumers = np.asarray(self.consumers, np.int64)
            if self.consumers.shape != (len(self.insts),):
                raise ValueError(f"consumers: {self.consumers.shape} entries for {len(self.insts)} rows")
        gid = self.insts["cta"].astype(np.int64) * self.warps_per_cta + self.insts["warp"]
        self.warp_ptr = np.searchsorted(gid, np.arange(self.n_warps + 1, dtype=np.int64))

    @property
    def n_ctas(self) -> int:
        """Number of CTAs in the grid."""
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def threads_per_cta(self) -> int:
        """Threads per CTA."""
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def warps_per_cta(self) -> int:
        """Warps per CTA (a partial last warp counts as one)."""
        return -(-self.threads_per_cta // WARP_SIZE)

    @property
    def n_warps(self) -> int:
        """Warps in the whole launch."""
        return self.n_ctas * self.warps_per_cta

    @property
    def n_instructions(self) -> int:
        """Warp instructions issued: stored rows, compute gaps and tails."""
        return int(len(self.insts) + self.insts["gap"].sum(dtype=np.int64) + self.tail.sum(dtype=np.int64))

    def memory_mask(self, space: Space = Space.GLOBAL) -> np.ndarray:
        """Boolean mask of the rows that are memory instructions in ``space``."""
        return (self.insts["space"] == space) & (self.insts["op"] != Op.BARRIER)


@dataclass(eq=False)
class Workload:
    """A sequence of kernel launches with the metadata to reproduce it.

    Parameters
    ----------
    name : str
        Workload name (``"tian15/matrixmul"``).
    kernels : list of KernelTrace
        Launches in execution order.
    params : dict
        Inputs that define the workload (sizes, scale, seed, generator version),
        JSON-serialisable.
    source : str
        The source code the trace follows (file and suite), or the trace it was imported from.
    """

    name: str
    kernels: list[KernelTrace]
    params: dict = field(default_factory=dict)
    source: str = ""

    @property
    def n_instructions(self) -> int:
        """Warp instructions over all kernels."""
        return sum(k.n_instructions for k in self.kernels)
