"""Helpers shared by the kernel emulators: device-memory layout, PC numbering, registration."""

from __future__ import annotations

from collections.abc import Callable

from golden.trace.model import Workload
from golden.workloads.registry import WorkloadSpec, register

__all__ = ["DeviceMemory", "PCs", "register_workload", "scaled"]


class DeviceMemory:
    """Bump allocator for the arrays a workload passes to its kernels.

    Arrays get disjoint, ``align``-aligned byte ranges starting at ``base``,
    like ``cudaMalloc`` (which aligns to 256 B), so no two arrays share a
    cache line.

    Parameters
    ----------
    base : int
        Address of the first array.
    align : int
        Alignment of every array in bytes.
    """

    def __init__(self, base: int = 0x1000_0000, align: int = 256) -> None:
        self._next = base
        self._align = align
        self.arrays: dict[str, tuple[int, int]] = {}

    def alloc(self, name: str, nbytes: int) -> int:
        """Reserve ``nbytes`` for array ``name`` and return its base address."""
        if name in self.arrays:
            raise ValueError(f"Array {name!r} is allocated twice")
        addr = self._next
        self.arrays[name] = (addr, int(nbytes))
        self._next = addr + -(-int(nbytes) // self._align) * self._align
        return addr

    def sizes(self) -> dict[str, int]:
        """Bytes of every array, in allocation order."""
        return {name: n for name, (_, n) in self.arrays.items()}

    @property
    def footprint(self) -> int:
        """Bytes allocated over all arrays."""
        return sum(n for _, n in self.arrays.values())


class PCs:
    """Distinct byte PCs for the memory instructions of a kernel.

    ``pcs("ld_a")`` returns the same PC for the same label and a new one
    (8 bytes further, like SASS) for a new label, in first-use order.
    """

    def __init__(self, start: int = 0x100, step: int = 8) -> None:
        self._next = start
        self._step = step
        self._pcs: dict[str, int] = {}

    def __call__(self, label: str) -> int:
        if label not in self._pcs:
            self._pcs[label] = self._next
            self._next += self._step
        return self._pcs[label]


def scaled(size: int, scale: float, multiple: int = 1, minimum: int | None = None) -> int:
    """``size * scale`` rounded to a multiple of ``multiple``, at least ``minimum`` (default ``multiple``)."""
    lo = multiple if minimum is None else minimum
    return max(lo, int(round(size * scale / multiple)) * multiple)


def register_workload(suite: str, name: str, build: Callable[[float, int], Workload], *,
                      source: str, description: str, version: int = 1, **paper) -> WorkloadSpec:
    """Register a built-in workload (see :class:`~golden.workloads.registry.WorkloadSpec`).

    ``paper`` holds the paper's figures for it (``mi=395.6``, ``L="3N"``).
    """
    return register(WorkloadSpec(name=name, suite=suite, build=build, description=description,
                                 source=source, version=version, paper=paper))
