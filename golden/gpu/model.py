"""The timing model's front end: run a workload's kernels cycle by cycle on a hierarchy.

:class:`TimingModel` owns the model's state for one
:class:`~golden.cache.hierarchy.Hierarchy` (whose caches and policy hooks it
drives) and runs kernels one after another, each starting when the previous
one has drained. It calls the compiled loop (:mod:`golden.gpu.core`) in
slices of cycles, so it can report progress, collect the time series and
detect a deadlock. ``docs/timing.md`` describes the model.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from golden.cache.hierarchy import Hierarchy
from golden.configs.schema import GPUConfig
from golden.errors import InputError, SimulationError
from golden.gpu import layout
from golden.gpu.core import (
    DEADLOCK,
    FINISHED,
    LOG_FIRST_CTA,
    LOG_LDST_TAKE,
    LOG_LOAD_DONE,
    LOG_MEM_ISSUE,
    LOG_READY,
    step_function,
)
from golden.gpu.program import Program, SharedBanks, kernel_program
from golden.gpu.state import (
    N_SERIES,
    ProgramArrays,
    config_vector,
    new_state,
    row,
    series_columns,
    start_kernel,
)
from golden.trace.model import KernelTrace

__all__ = ["DeadlockError", "KernelTiming", "SchedulerControl", "TimingModel", "check_fits",
           "require_registers"]

_K = layout.index(layout.CONFIG)
_S = layout.index(layout.SCALARS)
#: Outcomes of the per-access log's rows that are not accesses.
_NOT_ACCESSES = np.array([LOG_READY, LOG_FIRST_CTA, LOG_MEM_ISSUE, LOG_LDST_TAKE, LOG_LOAD_DONE])

#: Cycles per call of the compiled loop (progress and time-series granularity).
SLICE = 1 << 16
#: Counters a slice must change unless the run is stuck (``run_kernel``'s livelock check): the
#: instructions issued and the events handled.
_PROGRESS = np.array([layout.COUNTERS.index("instructions")]
                     + [i for i, name in enumerate(layout.COUNTERS) if name.startswith("events_")])

#: What a policy can read and set of the warp schedulers each cycle (``attach_scheduler``):
#: ``limit[sm]`` (at most that many of the oldest warps may issue; 0 none), ``blocked[slot]``
#: (``golden.gpu.layout``: 0 the warp may issue, ``BLOCK_ALL`` 1 it may not, ``BLOCK_LOADS`` 2 it
#: may issue anything but a global load, until a warp of its SM exits), ``priority[slot]`` (lower first
#: for gto/oldest/swl order),
#: ``resident[sm]`` (resident warps), ``warp[slot]`` (the slot's warp: cta * warps_per_cta + warp,
#: -1 when free). Slots are ``sm * max_warps_per_sm + slot``.
#: Per-SM monitors (read-only, except ``window``): ``ready[sm]`` (warps able to issue: resident
#: warps that have not issued their last instruction), ``first_cta[sm]`` (cycle of the SM's first
#: CTA of the running kernel, -1 before), ``window[sm]`` (a policy sets it: the sampling window's
#: length in cycles from ``first_cta``; 0 none), and over the window so far: ``win_ready[sm]``
#: (the sum over its cycles of ``ready``), ``win_loads[sm]`` (loads that passed the L1 lookup:
#: hits, misses, sector misses, MSHR merges), ``win_misses[sm]`` (misses and sector misses),
#: ``win_merges[sm]`` (MSHR merges). ``docs/timing.md`` has the exact cycle rules.
#: After those, read-only: ``inst[sm]`` (warp instructions the SM has issued since the run
#: started) and ``wpc[sm]`` (warps per CTA of the kernel the SM last started a CTA of;
#: ``warp[slot] = cta * wpc + warp``). Last, ciao18's on-chip memory path: ``redirect[slot]`` (a
#: policy sets it: the warp's loads go to the SM's shared-memory cache; a new warp starts at 0)
#: and ``smem_lines[sm]`` (read-only: blocks of that cache for the running kernel, 0 when the
#: kernel leaves no room; ``docs/timing.md``). ``changed[sm]``: a hook that changes ``blocked`` of
#: one of the SM's warps sets it to 1 (``golden.policies.warp_block.set_blocked``), or the SM's
#: sleeping schedulers may not see the change (``docs/timing.md``, "Speed"; ``self_check`` finds
#: it). ``winst[slot]`` (read-only): warp instructions the slot's warp has issued since it started
#: (0 for a new warp; CCWS's LLDS over the resident warps). ``vta_hits[sm]``: a policy with a victim
#: tag array adds its hits there (the time series' ``vta_hits``). ``attach_scheduler`` may return
#: ``{level: LevelHooks}``: hooks rebuilt on these arrays.
SchedulerControl = namedtuple("SchedulerControl", ("limit", "blocked", "priority", "resident", "warp",
                                                   "ready", "first_cta", "window", "win_ready", "win_loads",
                                                   "win_misses", "win_merges", "inst", "wpc", "redirect",
                                                   "smem_lines", "changed", "winst", "vta_hits"))


class DeadlockError(SimulationError):
    """No warp can ever issue again; the message names the cycle and the blocked resource."""


@dataclass
class KernelTiming:
    """What the timing model measured of one kernel."""

    name: str
    start: int
    end: int
    counters: dict
    series: np.ndarray = field(repr=False)
    #: The most warps resident on one SM at once.
    peak_sm_warps: int = 0

    @property
    def cycles(self) -> int:
        """Cycles from the kernel's start until it drained."""
        return self.end - self.start

    @property
    def ipc(self) -> float:
        """Warp instructions per cycle over the GPU."""
        return self.counters["instructions"] / self.cycles if self.cycles else 0.0


def check_fits(gpu: GPUConfig, kernel: KernelTrace) -> None:
    """Raise InputError naming the limit when one CTA of ``kernel`` can never be resident on an SM."""
    wpc = -(-kernel.threads_per_cta // gpu.warp_size)
    limits = (("max_warps_per_sm", wpc, gpu.max_warps_per_sm, "warps"),
              ("max_threads_per_sm", kernel.threads_per_cta, gpu.max_threads_per_sm, "threads"),
              ("shared_mem_bytes", kernel.shared_bytes, gpu.shared_mem_bytes, "bytes of shared memory"),
              ("max_regs_per_sm", kernel.regs_per_thread * kernel.threads_per_cta, gpu.max_regs_per_sm,
               "registers"))
    for name, need, have, what in limits:
        if need > have:
            raise InputError(f"{name}: a CTA of kernel {kernel.name!r} needs {need} {what}, more than the "
                             f"{have} an SM has, so it can never run")


def require_registers(kernel: KernelTrace, where: str = "") -> None:
    """Raise InputError unless ``kernel`` carries registers (the ``registers`` dependence rule).

    ``where`` names the workload in the message.
    """
    if kernel.consumers is None:
        raise InputError(f"dependences: 'registers' needs a trace with registers (an Accel-Sim import); "
                         f"kernel {kernel.name!r}{' of ' + where if where else ''} has none")


class TimingModel:
    """The cycle-level model of ``gpu`` driving the caches and policy of ``hierarchy``.

    Parameters
    ----------
    gpu : GPUConfig
        The machine (SMs, schedulers, latencies, MSHRs, interconnect, DRAM).
    hierarchy : Hierarchy
        The caches and policy hooks the model runs; its state carries over.
    dependences : str
        What a warp with loads outstanding waits for (:data:`golden.gpu.layout.DEPENDENCES`).
    fixed_latency : int
        -1 for the full memory model; otherwise ideal memory with this load latency.
    series_period : int
        Cycles per time-series row.
    log_capacity : int
        Per-access log rows to keep (tests, co-simulation); 0 for none.
    self_check : bool
        Check the loop's shortcuts while it runs (:func:`golden.gpu.state.config_vector`).
    log_ldst : bool
        Also log the LD/ST unit's instructions (:meth:`ldst_log`); needs ``log_capacity`` > 0.

    Raises
    ------
    ValueError
        If the configuration cannot run (the message names the field).
    """

    def __init__(self, gpu: GPUConfig, hierarchy: Hierarchy, *, dependences: str = "next-memory",
                 fixed_latency: int = -1, series_period: int = 1000, log_capacity: int = 0,
                 self_check: bool = False, log_ldst: bool = False) -> None:
        if hierarchy.gpu.n_sm != gpu.n_sm:
            raise ValueError(f"n_sm: the hierarchy has {hierarchy.gpu.n_sm} SMs, the GPU {gpu.n_sm}")
        self.gpu = gpu
        self.hierarchy = hierarchy
        self.k = config_vector(gpu, dependences=dependences, fixed_latency=fixed_latency,
                               series_period=series_period, log_capacity=log_capacity, self_check=self_check,
                               log_ldst=log_ldst)
        self.state = new_state(self.k, gpu.n_sm * hierarchy.gpu.l1.lines, hierarchy.gpu.l2.lines)
        self.cycle = 0
        self.log: list[np.ndarray] = []
        self.lost = 0
        attach = getattr(hierarchy.policy, "attach_scheduler", None)
        if attach is not None:
            s = self.state
            sm = {name: s.sm[row("sm", f"ctl_{name}")] for name in SchedulerControl._fields[5:]
                  if name not in ("redirect", "winst")}
            # A policy whose hooks read the control arrays returns its levels' hooks rebuilt on them.
            rebound = attach(SchedulerControl(s.sm[row("sm", "ctl_limit")], s.w[row("w", "ctl_blocked")],
                                              s.w[row("w", "ctl_prio")], s.sm[row("sm", "ctl_resident")],
                                              s.w[row("w", "ctl_gwarp")],
                                              redirect=s.w[row("w", "ctl_redirect")],
                                              winst=s.w[row("w", "ctl_winst")], **sm))
            if rebound:
                hierarchy.hooks.update(rebound)
        self._step, self._hooks = step_function(hierarchy.engine_hooks(), self.k, hierarchy.engine.header())

    def program(self, kernel: KernelTrace) -> Program:
        """``kernel`` in the model's form for this GPU (checked to fit an SM)."""
        check_fits(self.gpu, kernel)
        l1 = self.hierarchy.gpu.l1
        gpu = self.gpu
        banks = SharedBanks(gpu.shared_mem_banks, gpu.warp_size // gpu.smem_warp_parts,
                            gpu.smem_broadcast) if gpu.smem_unit == "ldst" else None
        return kernel_program(kernel, gpu.warp_size, l1.line_size, l1.sector_size,
                              write_chunks=bool(self.k[_K["write_segment"]]),
                              write_bytes=bool(self.k[_K["l2_byte_mask"]]), shared_banks=banks,
                              per_sector=gpu.coalescing == "sector")

    def run_kernel(self, kernel: KernelTrace, index: int,
                   on_progress: Callable[[int, int], None] | None = None) -> KernelTiming:
        """Run one kernel from the current cycle until every CTA retired and memory drained.

        Parameters
        ----------
        kernel : KernelTrace
            The launch.
        index : int
            Its position in the workload (the hooks' ``a.kernel``).
        on_progress : callable, optional
            Called with (CTAs retired, CTAs) after every slice of cycles.

        Raises
        ------
        DeadlockError
            If no warp can ever issue again.
        """
        prog = self.program(kernel)
        registers = self.k[_K["dep"]] == layout.DEPENDENCES["registers"]
        if registers:
            require_registers(kernel)
        use = prog.use if registers else np.zeros(1, np.int64)
        chunks = prog.req_chunks if prog.req_chunks is not None else np.zeros(1, np.uint8)
        wbytes = prog.req_wbytes if prog.req_wbytes is not None else np.zeros((1, 1), np.uint32)
        smem = prog.smem_cycles if prog.smem_cycles is not None else np.zeros(1, np.uint8)
        arrays = ProgramArrays(prog.op, prog.space, prog.pc, prog.gap, prog.req_ptr, prog.req_line,
                               prog.req_sec, prog.warp_ptr, prog.tail, use, chunks, wbytes, smem)
        state = self.state
        if registers:
            # Per row of this kernel: line requests outstanding, and the consumer's position.
            n = len(prog.op)
            state = state._replace(rpend=np.zeros(n, np.int64), rstop=np.zeros(n, np.int64))
        state.sc[_S["accesses"]] = self.hierarchy.t
        k = start_kernel(self.k, state, prog, index, self.cycle, 0)
        period = int(k[_K["series_period"]])
        state = state._replace(series=np.zeros((SLICE // period + 2, N_SERIES), np.int64))
        before = state.c.copy()
        rows = []
        h1, h2, h3 = self._hooks
        start = self.cycle
        buf = self.hierarchy.engine.buf
        while True:
            state.sc[_S["series_n"]] = 0
            state.sc[_S["log_n"]] = 0
            moved = state.c[_PROGRESS]
            self._step(buf, k, state, arrays, h1, h2, h3, np.int64(SLICE))
            rows.append(state.series[:state.sc[_S["series_n"]]].copy())
            if k[_K["log_capacity"]]:
                self.log.append(state.log[:min(state.sc[_S["log_n"]], k[_K["log_capacity"]])].copy())
                self.lost += max(0, int(state.sc[_S["log_n"]] - k[_K["log_capacity"]]))
            status = state.sc[_S["status"]]
            if on_progress is not None:
                on_progress(int(state.sc[_S["retired_ctas"]]), prog.n_ctas)
            if status == FINISHED:
                break
            if status == DEADLOCK:
                raise DeadlockError(self._deadlock_message(kernel))
            if np.array_equal(moved, state.c[_PROGRESS]) and state.ev_meta[0] == 0:
                # A whole slice stepped with nothing issued, nothing handled and nothing to come: a
                # unit waits for something no part of the model will do (a bug, never a workload's).
                cycle = int(state.sc[_S["cycle"]])
                raise DeadlockError(f"livelock in kernel {kernel.name!r} at cycle {cycle}: {SLICE:,} "
                                    f"cycles with no instruction issued and no event due")
        self.cycle = int(state.sc[_S["cycle"]])
        self.hierarchy.t = int(state.sc[_S["accesses"]])
        counters = {name: int(v) for name, v in zip(layout.COUNTERS, state.c - before, strict=True)}
        series = np.concatenate(rows) if rows else np.zeros((0, N_SERIES), np.int64)
        return KernelTiming(name=kernel.name, start=start, end=self.cycle, counters=counters, series=series,
                            peak_sm_warps=int(state.sc[_S["peak_sm_warps"]]))

    def _deadlock_message(self, kernel: KernelTrace) -> str:
        sc = self.state.sc
        kind = layout.DEADLOCKS.get(int(sc[_S["blocked_kind"]]), "unknown resource")
        where = int(sc[_S["blocked_where"]])
        place = {"barrier": f"SM {where}", "l1 MSHR": f"SM {where}", "l1 miss queue": f"SM {where}",
                 "l2 MSHR": f"L2 sub-partition {where}",
                 "DRAM request queue": f"DRAM channel {where}"}.get(kind, "the memory system")
        return (f"deadlock in kernel {kernel.name!r} at cycle {int(sc[_S['cycle']])}: no warp can issue "
                f"again; blocked on the {kind} of {place}")

    def access_log(self) -> np.ndarray:
        """The per-access log so far: rows of (cycle, sm, line, op, outcome) (``log_capacity`` > 0)."""
        log = self.event_log()
        return log[~np.isin(log[:, 4], _NOT_ACCESSES)]

    def ldst_log(self) -> np.ndarray:
        """The LD/ST unit's rows so far (``log_ldst``): (cycle, sm, warp slot, program row, what).

        ``what`` is ``golden.gpu.core.LOG_MEM_ISSUE`` (a memory instruction for the unit issued: a
        global one with line requests, or a shared one with ``smem_unit = "ldst"``),
        ``LOG_LDST_TAKE`` (the SM's LD/ST unit took it) or ``LOG_LOAD_DONE`` (a load's last line
        is back: the warp may use it). The warp slot is SM x slots + slot; the program row indexes
        the kernel's ``insts``. Per SM the unit takes instructions in issue order.
        """
        log = self.event_log()
        return log[np.isin(log[:, 4], (LOG_MEM_ISSUE, LOG_LDST_TAKE, LOG_LOAD_DONE))]

    def event_log(self) -> np.ndarray:
        """The accesses, the SMs' monitor events (outcomes 5 and 6, ``golden.gpu.core``) and the
        LD/ST unit's rows (8 and 9, with ``log_ldst``) so far.

        Raises
        ------
        RuntimeError
            If a slice of cycles logged more rows than ``log_capacity`` (the rest were lost).
        """
        if self.lost:
            raise RuntimeError(f"the per-access log lost {self.lost} rows: raise log_capacity")
        return np.concatenate(self.log) if self.log else np.zeros((0, 5), np.int64)


def series_names() -> tuple[str, ...]:
    """Names of the time-series columns."""
    return series_columns()
