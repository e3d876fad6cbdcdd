"""The simulation driver: workload -> ordered accesses -> hierarchies + policies -> results.

Every user of the golden model runs workloads through this module: the main
job (``gpucache run``), the papers' comparisons (``golden.experiments``) and
co-simulation (``tb.cosim``), so the order of accesses, the chunking and the
per-kernel accounting are the same everywhere.

The access order comes from the interleaver (``golden.trace.interleave``):
each kernel's warps are scheduled with RDGC's residency rule and the
configured warp scheduler, without feedback from the caches. Several
hierarchies can be driven by one interleaving (the interleaver does not
depend on the caches), which is how a comparison runs its configurations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from golden.cache.hierarchy import Hierarchy
from golden.configs.schema import GPUConfig
from golden.policies.base import Policy
from golden.trace.interleave import INSTRUCTION_FIELDS, Interleaved, interleave
from golden.trace.model import KernelTrace, Workload

__all__ = ["TIMINGS", "CHUNK", "INSTRUCTION_FIELDS", "Chunk", "KernelResult", "drive", "simulate"]

#: How accesses are ordered in time: the cycle-level timing model or the open-loop interleaver.
TIMINGS = ("cycle", "none")

#: Accesses handed to the hierarchies at a time: bounds memory, logs and the progress pace.
CHUNK = 1 << 18

@dataclass(frozen=True)
class Chunk:
    """A chunk of accesses that every hierarchy has just run (what ``on_chunk`` receives).

    Members
    -------
    kernel_index : int
        Position of the kernel in the workload.
    kernel : KernelTrace
        The kernel.
    accesses : numpy.ndarray
        The chunk's rows (``ACCESS_DTYPE``).
    done, total : int
        Accesses of the kernel run so far (this chunk included), and in all.
    outcomes : list
        Per hierarchy, the outcome of every access of the chunk (``Hierarchy.run``'s
        ``outcomes``) where asked for, else None.
    """

    kernel_index: int
    kernel: KernelTrace
    accesses: np.ndarray
    done: int
    total: int
    outcomes: list = field(default_factory=list)


@dataclass(frozen=True)
class KernelResult:
    """What the driver measured of one kernel."""

    name: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    instructions: int
    global_instructions: int
    shared_instructions: int
    other_memory_instructions: int
    accesses: int
    cycles: int
    end_cycle: int

    def as_dict(self) -> dict:
        """Plain-JSON form (grid and block as lists)."""
        return {"name": self.name, "grid": list(self.grid), "block": list(self.block),
                **{f: getattr(self, f) for f in INSTRUCTION_FIELDS},
                "accesses": self.accesses, "cycles": self.cycles}


def drive(workload: Workload, gpu: GPUConfig, hierarchies: Sequence[Hierarchy], *,
          chunk: int = CHUNK, outcomes: Sequence[bool] | None = None,
          on_chunk: Callable[[Chunk], None] | None = None) -> list[KernelResult]:
    """Run ``workload`` through every hierarchy, kernel by kernel, in the interleaver's order.

    Parameters
    ----------
    workload : Workload
        The kernels, in launch order.
    gpu : GPUConfig
        The machine whose SMs and scheduler order the accesses (the hierarchies
        may have other caches, e.g. a larger L1, but the same number of SMs).
    hierarchies : sequence of Hierarchy
        Driven with the same accesses, in order; their state carries over.
    chunk : int
        Accesses per ``Hierarchy.run`` call.
    outcomes : sequence of bool, optional
        Per hierarchy: collect per-access outcomes for ``on_chunk``.
    on_chunk : callable, optional
        Called with a :class:`Chunk` after every hierarchy ran it.

    Returns
    -------
    list of KernelResult
        One per kernel; cycles are the interleaver's issue slots (kernels run
        back to back).

    Raises
    ------
    ValueError
        If ``chunk`` is not positive, ``outcomes`` does not match ``hierarchies``, or
        a hierarchy has another number of SMs than ``gpu``.
    """
    if not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk: must be a positive integer, not {chunk!r}")
    want = [False] * len(hierarchies) if outcomes is None else list(outcomes)
    if len(want) != len(hierarchies):
        raise ValueError(f"outcomes: one flag per hierarchy ({len(hierarchies)}), not {len(want)}")
    for h in hierarchies:
        if h.gpu.n_sm != gpu.n_sm:
            raise ValueError(f"hierarchies: every hierarchy needs {gpu.n_sm} SMs, not {h.gpu.n_sm}")
    results = []
    start = 0
    for k, (kernel, il) in enumerate(zip(workload.kernels, interleave(workload, gpu), strict=True)):
        acc = il.accesses
        for lo in range(0, len(acc), chunk):
            part = acc[lo:lo + chunk]
            outs = [h.run(part, outcomes=o) for h, o in zip(hierarchies, want, strict=True)]
            if on_chunk is not None:
                on_chunk(Chunk(k, kernel, part, min(len(acc), lo + chunk), len(acc), outs))
        if on_chunk is not None and len(acc) == 0:
            on_chunk(Chunk(k, kernel, acc, 0, 0, [None] * len(hierarchies)))
        results.append(_kernel_result(kernel, il, start))
        start = int(il.end_cycle)
    return results


def _kernel_result(kernel: KernelTrace, il: Interleaved, start: int) -> KernelResult:
    return KernelResult(
        name=kernel.name, grid=tuple(kernel.grid), block=tuple(kernel.block),
        **{f: int(getattr(il, f)) for f in INSTRUCTION_FIELDS},
        accesses=len(il.accesses), cycles=int(il.end_cycle) - start, end_cycle=int(il.end_cycle))


def simulate(workload: Workload, gpu: GPUConfig, policy: Policy | None = None,
             on_chunk: Callable[[Chunk], None] | None = None, chunk: int = CHUNK, *,
             timing: str = "none", dependences: str = "auto",
             on_progress: Callable[[int, int, int], None] | None = None) -> dict:
    """The main job: ``workload`` through ``gpu``'s hierarchy with ``policy``.

    With ``timing="cycle"`` the cycle-level timing model (``golden.gpu``)
    orders the accesses, with misses in flight and latency feedback, and the
    result gains a ``timing`` section (IPC, occupancy, stalls, MSHR merges,
    reservation failures, time series); ``dependences`` and ``on_progress``
    (kernel index, CTAs retired, CTAs) apply to it. ``timing="none"`` is the
    interleaver's fast, open-loop order (``on_chunk`` and ``chunk`` apply).

    Parameters
    ----------
    workload : Workload
        The kernels to run, in launch order.
    gpu : GPUConfig
        Machine (SMs, scheduler, caches).
    policy : Policy, optional
        A cache-management policy (``golden.policies.base.get_policy``), or None.
    on_chunk : callable, optional
        Progress: called with each :class:`Chunk`.
    chunk : int
        Accesses per ``Hierarchy.run`` call.

    Returns
    -------
    dict
        ``{"kernels": [per-kernel counts], "totals": {...}, "caches": hierarchy
        stats, "policy_stats": the policy's stats}``, plain JSON values.
    """
    if timing not in TIMINGS:
        raise ValueError(f"timing: must be one of {', '.join(TIMINGS)}, not {timing!r}")
    if timing == "cycle":
        from golden.gpu.run import simulate_timed

        return simulate_timed(workload, gpu, policy, dependences=dependences, on_progress=on_progress)
    hierarchy = Hierarchy(gpu, policy=policy)
    kernels = [k.as_dict() for k in drive(workload, gpu, [hierarchy], chunk=chunk, on_chunk=on_chunk)]
    totals = {key: sum(r[key] for r in kernels) for key in (*INSTRUCTION_FIELDS, "accesses", "cycles")}
    caches = {level: {key: _plain(v) for key, v in s.items()} for level, s in hierarchy.stats().items()}
    return {"kernels": kernels, "totals": totals, "caches": caches,
            "policy_stats": {key: _plain(v) for key, v in hierarchy.policy.stats().items()}}


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v
