"""Interleaving of per-warp instruction streams into the global order of line requests.

The interleaver stands in for the timing model (``golden/gpu``) until that
exists: it decides *when* every warp instruction issues, with a small set of
rules, and emits the coalesced line requests of the global memory
instructions in the order the cache hierarchy sees them. The rules, in
short (``docs/interleave.md`` gives each choice and its source):

* kernels run one after another; kernel ``k + 1`` starts on every SM at the
  cycle kernel ``k`` has finished on all SMs;
* CTA ``i`` runs on SM ``i % n_sm``; an SM runs its CTAs in *waves* of at
  most ``CB`` CTAs (RDGC Algorithm 3, plus a thread limit), and a wave runs
  to completion before the next wave starts (RDGC Algorithm 2);
* warp ``w`` of a wave belongs to scheduler ``w % schedulers_per_sm``; each
  scheduler issues at most one instruction per cycle, compute instructions
  included, picking a ready warp by loose round robin (``lrr``),
  greedy-then-oldest (``gto``) or oldest-first (``oldest``);
* a warp that issued a global load or atomic cannot issue for
  ``mem_latency`` cycles, and a barrier holds a warp until every warp of its
  CTA has reached it (or exited);
* requests are ordered by issue cycle, then SM, then issue order in the SM.

The per-SM scheduling is one compiled loop over instructions; coalescing is the
compiled core of :func:`golden.trace.coalesce.coalesce`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numba as nb
import numpy as np

from golden.configs.schema import SCHEDULERS, GPUConfig
from golden.trace.coalesce import ACCESS_DTYPE, _core_args, _count, _write, check_line_size
from golden.trace.model import KernelTrace, Op, Space, Workload

__all__ = ["Interleaved", "INSTRUCTION_FIELDS", "concurrent_ctas", "interleave_kernel", "interleave"]

#: The instruction counters of :class:`Interleaved`, in the order results report them.
INSTRUCTION_FIELDS = ("instructions", "global_instructions", "shared_instructions",
                      "other_memory_instructions")

_LRR, _GTO, _OLDEST = 0, 1, 2
_POLICY = {"lrr": _LRR, "gto": _GTO, "oldest": _OLDEST}
#: Ready time of a warp that waits at a barrier or has finished.
_NEVER = np.iinfo(np.int64).max


@dataclass(eq=False)
class Interleaved:
    """The line requests of one kernel in global order, with counts.

    Parameters
    ----------
    accesses : numpy.ndarray
        Rows of :data:`~golden.trace.coalesce.ACCESS_DTYPE`, one per line
        request of a global load, store or atomic, sorted by ``(cycle, sm)``
        and, within an SM and cycle, by issue order.
    end_cycle : int
        First cycle after the kernel: every warp of every SM has issued its
        last instruction and waited out its memory latency. The next kernel
        starts here.
    instructions : int
        Warp instructions issued (memory, barrier and compute).
    global_instructions : int
        Global loads, stores and atomics issued (the rows ``accesses`` comes from).
    shared_instructions : int
        Shared-memory instructions issued (not emitted).
    other_memory_instructions : int
        Local, constant and texture instructions issued (not emitted).
    ctas : int
        CTAs in the launch.
    waves_per_sm : int
        Largest number of waves (RDGC's ``Nitr``) over the SMs.
    """

    accesses: np.ndarray
    end_cycle: int
    instructions: int
    global_instructions: int
    shared_instructions: int
    other_memory_instructions: int
    ctas: int
    waves_per_sm: int


def concurrent_ctas(
    ctas_on_sm: int, warps_per_cta: int, threads_per_cta: int, gpu: GPUConfig
) -> tuple[int, int]:
    """CTAs resident at once on an SM and the number of waves (RDGC Algorithm 3).

    ``CB = BSM``, then at most ``MAXCB`` (``gpu.max_ctas_per_sm``), then at
    most ``floor(MAXCW / WpB)`` (``gpu.max_warps_per_sm``), and - beyond the
    paper - at most ``floor(max_threads_per_sm / threads_per_cta)``; a CTA
    too large for the limits still runs, alone (``CB >= 1``).
    ``Nitr = ceil(BSM / CB)``.

    Parameters
    ----------
    ctas_on_sm : int
        CTAs mapped to the SM (RDGC's ``BSM``).
    warps_per_cta : int
        Warps per CTA (``WpB``).
    threads_per_cta : int
        Threads per CTA.
    gpu : GPUConfig
        Supplies the residency limits.

    Returns
    -------
    cb, nitr : int
        Resident CTAs per wave and waves; ``(0, 0)`` for an SM without CTAs.
    """
    if ctas_on_sm <= 0:
        return 0, 0
    cb = min(ctas_on_sm, gpu.max_ctas_per_sm)
    if warps_per_cta * cb > gpu.max_warps_per_sm:
        cb = gpu.max_warps_per_sm // warps_per_cta
    cb = max(1, min(cb, gpu.max_threads_per_sm // threads_per_cta))
    return cb, -(-ctas_on_sm // cb)


# -- the compiled scheduler ------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _pick(s, t, m, n_sched, policy, ready, last):
    """Warp slot scheduler ``s`` issues at cycle ``t``, or ``-1 - earliest ready time``.

    The scheduler's warps are slots ``s, s + n_sched, ...`` (``m`` of them),
    oldest first.
    """
    lp = last[s]
    if policy == _GTO and lp >= 0 and ready[lp] <= t:
        return lp
    start = 0
    if policy == _LRR and lp >= 0:
        start = lp // n_sched + 1
    earliest = _NEVER
    for k in range(m):
        i = start + k
        if i >= m:
            i -= m
        p = s + i * n_sched
        r = ready[p]
        if r <= t:
            return p
        if r < earliest:
            earliest = r
    return -1 - earliest


@nb.njit(cache=True, nogil=True)
def _schedule(op, space, gap, warp_ptr, tail, n_ctas, wpc, n_sm, cb, n_sched, policy,
              latency, start, n_global):
    """Issue every instruction of a kernel; see the module docstring for the rules.

    Returns the global memory rows in SM-major issue order, their sort keys
    ``cycle * n_sm + sm``, the end cycle, the number of waves of the busiest SM
    and the counts (instructions, shared, other memory).
    """
    rec_row = np.empty(n_global, np.int64)
    rec_key = np.empty(n_global, np.int64)
    n_rec = 0
    n_inst = 0
    n_shared = 0
    n_other = 0
    end = start
    max_waves = 0
    slots = max(1, cb.max() * wpc)
    # Per warp slot of the current wave: next row, its end, compute
    # instructions left before the next row (the tail after the last row),
    # earliest issue cycle, barrier wait, global warp id.
    row = np.empty(slots, np.int64)
    rend = np.empty(slots, np.int64)
    left = np.empty(slots, np.int64)
    ready = np.empty(slots, np.int64)
    waiting = np.zeros(slots, np.bool_)
    gid = np.empty(slots, np.int64)
    arrived = np.empty(max(1, cb.max()), np.int64)
    exited = np.empty_like(arrived)
    # Lower bound of the earliest ready time of each scheduler's warps: a
    # scheduler is scanned only once its bound is reached.
    bound = np.empty(n_sched, np.int64)
    last = np.empty(n_sched, np.int64)
    per_sched = np.empty(n_sched, np.int64)
    for sm in range(n_sm):
        bsm = (n_ctas - sm + n_sm - 1) // n_sm if sm < n_ctas else 0
        t = start
        first = 0
        waves = 0
        while first < bsm:
            nc = min(cb[sm], bsm - first)
            nw = nc * wpc
            remaining = 0
            arrived[:nc] = 0
            exited[:nc] = 0
            for p in range(nw):
                g = (sm + (first + p // wpc) * n_sm) * wpc + p % wpc
                gid[p] = g
                row[p] = warp_ptr[g]
                rend[p] = warp_ptr[g + 1]
                left[p] = gap[row[p]] if row[p] < rend[p] else tail[g]
                waiting[p] = False
                if row[p] == rend[p] and left[p] == 0:
                    ready[p] = _NEVER
                    exited[p // wpc] += 1
                else:
                    ready[p] = t
                    remaining += 1
            bound[:] = t
            last[:] = -1
            for s in range(n_sched):
                per_sched[s] = (nw - s + n_sched - 1) // n_sched
            wave_end = t
            while remaining > 0:
                issued = False
                for s in range(n_sched):
                    if bound[s] > t:
                        continue
                    p = _pick(s, t, per_sched[s], n_sched, policy, ready, last)
                    if p < 0:
                        bound[s] = -1 - p
                        continue
                    issued = True
                    last[s] = p
                    n_inst += 1
                    c = p // wpc
                    check_barrier = False
                    if left[p] > 0:
                        left[p] -= 1
                        ready[p] = t + 1
                    else:
                        r = row[p]
                        o = op[r]
                        ready[p] = t + 1
                        if o == Op.BARRIER:
                            check_barrier = True
                            waiting[p] = True
                            ready[p] = _NEVER
                            arrived[c] += 1
                        elif space[r] == Space.GLOBAL:
                            rec_row[n_rec] = r
                            rec_key[n_rec] = t * n_sm + sm
                            n_rec += 1
                            if o == Op.LOAD or o == Op.ATOMIC:
                                ready[p] = t + 1 + latency
                        elif space[r] == Space.SHARED:
                            n_shared += 1
                        else:
                            n_other += 1
                        row[p] = r + 1
                        left[p] = gap[r + 1] if r + 1 < rend[p] else tail[gid[p]]
                    if row[p] == rend[p] and left[p] == 0 and not waiting[p]:
                        # Finished: the warp holds its slot until its last load returns.
                        wave_end = max(wave_end, ready[p])
                        ready[p] = _NEVER
                        remaining -= 1
                        exited[c] += 1
                        check_barrier = True
                    if check_barrier and arrived[c] > 0 and arrived[c] + exited[c] == wpc:
                        # Everyone still running has reached the barrier: release them.
                        arrived[c] = 0
                        for q in range(c * wpc, (c + 1) * wpc):
                            if not waiting[q]:
                                continue
                            waiting[q] = False
                            if row[q] == rend[q] and left[q] == 0:
                                wave_end = max(wave_end, t + 1)
                                remaining -= 1
                                exited[c] += 1
                            else:
                                ready[q] = t + 1
                                bound[q % n_sched] = min(bound[q % n_sched], t + 1)
                if not issued:
                    t = bound.min()
                    if t == _NEVER:
                        raise RuntimeError("interleave: every remaining warp waits at a barrier")
                else:
                    t += 1
            t = wave_end
            first += nc
            waves += 1
        end = max(end, t)
        max_waves = max(max_waves, waves)
    return rec_row[:n_rec], rec_key[:n_rec], end, max_waves, n_inst, n_shared, n_other


@nb.njit(cache=True, nogil=True)
def _fill(kernel_index, req_row, rec_row, rec_key, n_sm, cta, warp, pc, op,
          o_kernel, o_sm, o_cta, o_warp, o_pc, o_op, o_cycle):
    """Per-request fields from the request's row and its issue record, in one pass.

    Requests come in record order (one record per row), so one forward walk
    pairs every request with its record.
    """
    j = 0
    for i in range(req_row.size):
        r = req_row[i]
        while rec_row[j] != r:
            j += 1
        o_kernel[i] = kernel_index
        o_sm[i] = rec_key[j] % n_sm
        o_cycle[i] = rec_key[j] // n_sm
        o_cta[i] = cta[r]
        o_warp[i] = warp[r]
        o_pc[i] = pc[r]
        o_op[i] = op[r]


# -- the public functions ------------------------------------------------------


def _options(gpu: GPUConfig, line_size, sector_size, scheduler, start_cycle):
    """Resolve defaults and validate; returns (line_size, sector_size, policy code)."""
    line_size = gpu.l1.line_size if line_size is None else line_size
    sector_size = gpu.l1.sector_size if sector_size is None else sector_size
    check_line_size(line_size, sector_size)
    scheduler = gpu.scheduler if scheduler is None else scheduler
    if scheduler not in _POLICY:
        if scheduler in SCHEDULERS:
            raise ValueError(f"scheduler: {scheduler!r} needs the timing model (--timing cycle); the "
                             f"interleaver runs {', '.join(_POLICY)}")
        raise ValueError(f"scheduler: must be one of {', '.join(SCHEDULERS)}, not {scheduler!r}")
    if not isinstance(start_cycle, int | np.integer) or start_cycle < 0:
        raise ValueError(f"start_cycle: must be a non-negative integer, not {start_cycle!r}")
    if gpu.n_sm > np.iinfo(ACCESS_DTYPE["sm"]).max + 1:
        raise ValueError(f"n_sm: at most {np.iinfo(ACCESS_DTYPE['sm']).max + 1} SMs, not {gpu.n_sm}")
    return line_size, sector_size, _POLICY[scheduler]


def interleave_kernel(
    kernel: KernelTrace,
    kernel_index: int,
    gpu: GPUConfig,
    *,
    line_size: int | None = None,
    sector_size: int | None = None,
    scheduler: str | None = None,
    start_cycle: int = 0,
) -> Interleaved:
    """Schedule one kernel on ``gpu`` and return its line requests in global order.

    Parameters
    ----------
    kernel : KernelTrace
        The launch.
    kernel_index : int
        Index of the kernel in its workload (the ``kernel`` field), 0 to 65535.
    gpu : GPUConfig
        SM count, residency limits, schedulers per SM, policy and ``mem_latency``.
    line_size : int, optional
        Line size in bytes for coalescing; ``gpu.l1.line_size`` by default.
    sector_size : int, optional
        Sector size in bytes (0: no sectors); ``gpu.l1.sector_size`` by default.
    scheduler : str, optional
        ``"lrr"``, ``"gto"`` or ``"oldest"``; ``gpu.scheduler`` by default.
    start_cycle : int
        Cycle at which the kernel starts on every SM.

    Returns
    -------
    Interleaved

    Raises
    ------
    ValueError
        If an option is out of range.
    """
    line_size, sector_size, policy = _options(gpu, line_size, sector_size, scheduler, start_cycle)
    if not isinstance(kernel_index, int | np.integer) or not 0 <= kernel_index <= 0xFFFF:
        raise ValueError(f"kernel_index: must be an integer from 0 to 65535, not {kernel_index!r}")
    n_sm = gpu.n_sm
    wpc = kernel.warps_per_cta
    # Residency counts the GPU's warps (64-thread wavefronts on tian15), not the trace's.
    hw_wpc = -(-kernel.threads_per_cta // gpu.warp_size)
    cb = np.array([concurrent_ctas(len(range(sm, kernel.n_ctas, n_sm)), hw_wpc,
                                   kernel.threads_per_cta, gpu)[0] for sm in range(n_sm)],
                  dtype=np.int64)
    it = kernel.insts
    n_global = int(np.count_nonzero(kernel.memory_mask(Space.GLOBAL)))
    rec_row, rec_key, end, waves, n_inst, n_shared, n_other = _schedule(
        it["op"], it["space"], it["gap"], kernel.warp_ptr, kernel.tail, kernel.n_ctas, wpc,
        n_sm, cb, gpu.schedulers_per_sm, policy, gpu.mem_latency, int(start_cycle), n_global)
    # Each SM's records are already in key order: a stable sort merges the runs.
    order = np.argsort(rec_key, kind="stable")
    rec_row = rec_row[order]
    rec_key = rec_key[order]
    # The coalescer's compiled core writes straight into the request array.
    core = _core_args(kernel, line_size, sector_size)
    acc = np.empty(_count(*core, rec_row), dtype=ACCESS_DTYPE)
    acc["stream"] = 0
    _write(*core, rec_row, acc["inst"], acc["line"], acc["sectors"])
    _fill(kernel_index, acc["inst"], rec_row, rec_key, n_sm, it["cta"], it["warp"], it["pc"],
          it["op"], acc["kernel"], acc["sm"], acc["cta"], acc["warp"], acc["pc"], acc["op"],
          acc["cycle"])
    return Interleaved(
        accesses=acc,
        end_cycle=int(end),
        instructions=int(n_inst),
        global_instructions=int(rec_row.size),
        shared_instructions=int(n_shared),
        other_memory_instructions=int(n_other),
        ctas=kernel.n_ctas,
        waves_per_sm=int(waves),
    )


def interleave(
    workload: Workload,
    gpu: GPUConfig,
    *,
    line_size: int | None = None,
    sector_size: int | None = None,
    scheduler: str | None = None,
    start_cycle: int = 0,
) -> Iterator[Interleaved]:
    """Schedule a workload's kernels one after another, yielding one result per kernel.

    Kernel ``k + 1`` starts at the ``end_cycle`` of kernel ``k``. Results are
    produced one kernel at a time, so the requests of a whole workload are
    never all in memory. Options are validated before the first kernel runs.

    Parameters
    ----------
    workload : Workload
        The kernels, in launch order.
    gpu : GPUConfig
        The machine.
    line_size, sector_size, scheduler : optional
        As for :func:`interleave_kernel`.
    start_cycle : int
        Cycle at which the first kernel starts.

    Returns
    -------
    iterator of Interleaved
    """
    _options(gpu, line_size, sector_size, scheduler, start_cycle)
    if len(workload.kernels) > 0x10000:
        raise ValueError(f"kernels: at most 65536 per workload, not {len(workload.kernels)}")

    def run() -> Iterator[Interleaved]:
        cycle = start_cycle
        for k, kernel in enumerate(workload.kernels):
            res = interleave_kernel(kernel, k, gpu, line_size=line_size, sector_size=sector_size,
                                    scheduler=scheduler, start_cycle=cycle)
            cycle = res.end_cycle
            yield res

    return run()
