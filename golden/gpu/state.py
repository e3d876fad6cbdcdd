"""The timing model's state: the configuration vector and every array the compiled loop updates.

:func:`config_vector` turns a :class:`~golden.configs.schema.GPUConfig` into
the ``int64`` vector of :data:`golden.gpu.layout.CONFIG` (sizes resolved,
clock domains converted to core cycles), checking what the timing model
cannot run with a one-line error naming the field. :func:`new_state`
allocates the arrays (:class:`TimingState`), which persist over the kernels
of a run; :func:`start_kernel` resets the per-kernel part.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from golden.configs.dram_address import parse_dram_address_map
from golden.configs.schema import STALLED_RELEASES, GPUConfig
from golden.errors import InputError
from golden.gpu import layout
from golden.gpu.program import CHUNK_BYTES, Program
from golden.gpu.queues import map_size, new_events
from golden.units.ciao_smem import cache_rows

__all__ = ["TimingState", "ProgramArrays", "check_timing_config", "config_vector", "l2_byte_mask",
           "new_state",
           "start_kernel", "series_columns", "N_SERIES", "row", "resident_ctas", "smem_cache_blocks"]

_K = layout.index(layout.CONFIG)
_S = layout.index(layout.SCALARS)

#: The kernel's arrays as the compiled loop reads them.
ProgramArrays = namedtuple("ProgramArrays", ("op", "space", "pc", "gap", "req_ptr", "req_line", "req_sec",
                                             "warp_ptr", "tail", "use", "req_chunks", "req_wbytes",
                                             "smem_cycles"))

#: All arrays and sizes of the model's state: the tables of :data:`golden.gpu.layout.TABLES`
#: (``int64[fields, entries]``), then the queues, maps, counters and outputs. ``rpend`` and
#: ``rstop`` are per instruction row of the running kernel under the ``registers`` dependence rule
#: (line requests of a load still outstanding, and the position of its consumer; ``kernel_rows``),
#: one entry otherwise. ``sched_active`` has per SM and scheduler the mask of its resident warps: bit
#: ``i`` for slot ``scheduler + i * schedulers_per_sm`` (used when a scheduler has at most 62 slots).
TimingState = namedtuple("TimingState", tuple(layout.TABLES) + (
    "sched_last", "sched_sleep", "sched_active", "mq", "l1_keys", "l1_vals", "l1_map_size", "l2_keys",
    "l2_vals", "l2_map_size", "l1_sec", "l2_sec", "l2_unread", "l2_wbytes", "r_wbytes",
    "rq_meta", "wt_meta", "ev_node", "ev_bucket", "ev_ovf", "ev_meta", "c", "sc", "series", "log", "rpend",
    "rstop"))


def row(table: str, name: str) -> int:
    """Row of field ``name`` in state table ``table``."""
    return layout.TABLES[table].index(name)


def series_columns() -> tuple[str, ...]:
    """Columns of the time-series rows the loop records.

    At each row's cycle, over the GPU: ``instructions``, ``l1_accesses``, ``l1_hits`` and
    ``vta_hits`` count from the run's start; ``resident_warps`` are the warps in slots, and
    ``active_warps`` those of them within the warp limit that no policy blocks (``blocked`` 0:
    neither stalled, ``BLOCK_ALL``, nor kept from global loads, ``BLOCK_LOADS`` as CCWS throttles);
    ``vta_hits`` is what a
    policy's victim tag arrays counted (``SchedulerControl.vta_hits``; 0 without one).
    """
    return ("cycle", "instructions", "resident_warps", "l1_accesses", "l1_hits", "active_warps", "vta_hits")


#: Columns of a time-series row.
N_SERIES = len(series_columns())


def _ticks(value: int, gpu: GPUConfig) -> int:
    """DRAM cycles to ticks of a core cycle (``layout.DRAM_TICKS`` each; rounded to the nearest)
    when both clocks are known; a DRAM cycle is a core cycle otherwise."""
    if gpu.core_clock_mhz and gpu.dram_clock_mhz:
        return round(value * layout.DRAM_TICKS * gpu.core_clock_mhz / gpu.dram_clock_mhz)
    return value * layout.DRAM_TICKS


def l2_byte_mask(gpu: GPUConfig) -> bool:
    """Whether the L2 keeps GPGPU-Sim's byte mask of written bytes (``docs/timing.md``, "The L2's
    byte mask"): a write-back L2 that allocates store misses lazily (``write_allocate`` "lazy")
    with 32-byte sectors, under L1 lines of whole 32-byte sectors."""
    l1, l2 = gpu.l1, gpu.l2
    return (l2.write == "write-back" and l2.write_allocate == "lazy" and l2.sector_size == CHUNK_BYTES
            and l1.line_size % CHUNK_BYTES == 0)


def check_timing_config(gpu: GPUConfig) -> None:
    """Refuse a config the timing model cannot run, naming the field.

    A valid :class:`~golden.configs.schema.GPUConfig` may still be one the functional model runs
    and the timing model does not (a write-back L1, for instance). The command line passes this
    check to :func:`golden.configs.loader.load_config` when it will run the timing model, so a
    config file's mistake is reported with its file and line.

    Raises
    ------
    InputError
        ``"field: why"`` for the first field the timing model refuses.
    """
    l1, l2 = gpu.l1, gpu.l2
    if l1.write == "write-back":
        raise InputError("l1.write: the timing model runs write-through or write-evict L1s (GPU L1s do not "
                         "hold dirty global data), not write-back")
    if gpu.warp_limit > gpu.max_warps_per_sm:
        raise InputError(f"warp_limit: must be at most max_warps_per_sm ({gpu.max_warps_per_sm}), "
                         f"not {gpu.warp_limit}")
    for name, level in (("l1", l1), ("l2", l2)):
        if level.lookup_latency > level.latency:
            raise InputError(f"{name}.lookup_latency: the lookup pipeline is part of the hit latency, so it "
                             f"must be at most {name}'s hit latency ({level.latency}), "
                             f"not {level.lookup_latency}")
    if l2.miss_latency:
        raise InputError("l2.miss_latency: the timing model has it at the L1 only; a miss leaves the L2 "
                         "l2.hit_latency - l2.lookup_latency cycles after its lookup")
    if gpu.l2_partitions > l2.sets:
        raise InputError(f"l2_partitions: {gpu.l2_partitions} sub-partitions need at least as many L2 sets, "
                         f"not {l2.sets}")


def config_vector(gpu: GPUConfig, *, dependences: str = "next-memory", fixed_latency: int = -1,
                  series_period: int = 1000, log_capacity: int = 0, self_check: bool = False,
                  log_ldst: bool = False) -> np.ndarray:
    """The configuration vector of ``gpu`` (kernel fields zero; see :func:`start_kernel`).

    Parameters
    ----------
    gpu : GPUConfig
        The machine.
    dependences : str
        A key of :data:`golden.gpu.layout.DEPENDENCES`.
    fixed_latency : int
        -1 for the full memory model; otherwise an ideal memory: every access
        runs through the functional hierarchy at once and each load's data
        arrives ``fixed_latency`` cycles after it is sent (no MSHR, queue or
        bandwidth limit).
    series_period : int
        Cycles between time-series rows.
    log_capacity : int
        Rows of the per-access log kept (0: none).
    self_check : bool
        Check the loop's shortcuts as it runs (``docs/timing.md``, "Speed"): every
        scheduler left asleep is scanned anyway and must find no warp to issue for
        the reason it slept on (a mismatch counts in ``self_check_fails``), and no
        SM is left quiet, so its counts are added cycle by cycle. Slower; the
        results must equal a run without it.
    log_ldst : bool
        Also log each global memory instruction's issue, the LD/ST unit's
        taking it and each load's completion (``golden.gpu.core.LOG_MEM_ISSUE``,
        ``LOG_LDST_TAKE``, ``LOG_LOAD_DONE``); needs ``log_capacity`` > 0.

    Raises
    ------
    InputError
        With the field name, for a config the timing model cannot run (:func:`check_timing_config`).
    ValueError
        For an argument out of range.
    """
    l1, l2 = gpu.l1, gpu.l2
    check_timing_config(gpu)
    if log_ldst and log_capacity <= 0:
        raise ValueError("log_ldst: the LD/ST unit's rows go to the per-access log; set log_capacity > 0")
    if dependences not in layout.DEPENDENCES:
        raise ValueError(f"dependences: must be one of {', '.join(layout.DEPENDENCES)}, not {dependences!r}")
    if series_period < 1:
        raise ValueError(f"series_period: must be a positive number of cycles, not {series_period}")
    slots = gpu.max_warps_per_sm
    k = np.zeros(len(layout.CONFIG), np.int64)
    l1_mshrs = l1.mshrs or slots * 32
    # Requests waiting for a cluster's crossbar input beyond the miss queue (core._queue_full).
    buffer = gpu.icnt_input_buffer if gpu.icnt_request_queues == "single" else 0
    values = {
        "n_sm": gpu.n_sm, "slots": slots, "n_sched": gpu.schedulers_per_sm,
        "sched": layout.SCHEDULER_CODES[gpu.scheduler], "warp_limit": gpu.warp_limit,
        "two_level_active": gpu.two_level_active, "max_ctas": gpu.max_ctas_per_sm,
        "max_threads": gpu.max_threads_per_sm, "max_regs": gpu.max_regs_per_sm,
        "max_smem": gpu.shared_mem_bytes, "dep": layout.DEPENDENCES[dependences],
        "l1_latency": l1.latency, "l1_miss_latency": l1.miss_latency, "l1_ports": l1.ports,
        # The lookup pipeline holds what the LD/ST unit sent in the last lookup_latency cycles.
        "l1_lookup_latency": l1.lookup_latency, "l1_lq_size": max(1, l1.lookup_latency * l1.ports),
        # The miss queue's ring also holds the requests still waiting out l1.miss_latency (they
        # are in GPGPU-Sim's l1_latency queue, not its miss queue): at most (latency + 1) x ports.
        # ... and the instruction cache's reads (at most one per MSHR), which share the SM's port.
        "l1_mq_ring": (l1.miss_queue or l1_mshrs + slots * 32) + (l1.miss_latency + 1) * l1.ports
        + buffer
        + (gpu.icache_mshrs if gpu.icache_bytes else 0),
        "icache_sets": gpu.icache_bytes // (gpu.icache_assoc * l1.line_size), "icache_ways": gpu.icache_assoc,
        "icache_mshrs": gpu.icache_mshrs,
        "l1_mshrs": l1_mshrs, "l1_merges": l1.mshr_merges,
        "l1_miss_queue": l1.miss_queue or l1_mshrs + slots * 32, "l1_alloc_on_fill": l1.allocate == "on-fill",
        "l1_write": ("write-through", "write-evict", "write-back").index(l1.write),
        # The L2's latency after its lookup; its lookup pipeline delays arrivals (core._inject).
        "l2_latency": l2.latency - l2.lookup_latency, "l2_lookup_latency": l2.lookup_latency,
        "l2_mshrs": l2.mshrs or 1024, "l2_merges": l2.mshr_merges, "l2_mshr_sector": l2.mshr_key == "sector",
        "l1_mshr_sector": l1.mshr_key == "sector",
        "l2_alloc_on_fill": l2.allocate == "on-fill",
        "l2_shift": l2.line_size.bit_length() - l1.line_size.bit_length(),
        "n_part": gpu.l2_partitions, "l2_sets": l2.sets, "icnt_latency": gpu.icnt_latency,
        "icnt_packet_gap": gpu.icnt_packet_gap, "l1_response_rate": gpu.l1_response_rate,
        "icnt_response_rr": gpu.icnt_response_order == "round-robin",
        "icnt_input_fifo": gpu.icnt_input_queues == "single",
        "icnt_request_fifo": gpu.icnt_request_queues == "single", "icnt_input_buffer": buffer,
        # A queue of N with room R takes a request while it holds at most N - R (GPGPU-Sim's
        # is_avilable_size): fewer than N - R + 1.
        "l2_input_cap": gpu.l2_input_queue - gpu.l2_input_room + 1 if gpu.l2_input_queue else 0,
        "l2_output_cap": gpu.l2_response_queue, "rsp_buffer": gpu.icnt_response_buffer,
        "smem_xor": gpu.smem_cache_index == "xor",
        "cta_rotating": gpu.cta_issue == "rotating", "sms_per_cluster": gpu.sms_per_cluster,
        "cta_first_cluster": gpu.cta_first_cluster,
        "write_segment": gpu.write_packet == "segment" and not l1.sector_size,
        "flit_bytes": gpu.icnt_flit_bytes, "line_bytes": l1.line_size,
        "sector_bytes": l1.sector_size,
        "l2_line_bytes": l2.line_size, "l2_sector_bytes": l2.sector_size, "has_l3": gpu.l3 is not None,
        "l3_latency": gpu.l3.latency if gpu.l3 is not None else 0,
        "n_channels": gpu.dram_channels or gpu.l2_partitions, "dram_banks": gpu.dram_banks,
        "dram_row_lines": max(1, gpu.dram_row_bytes // l2.line_size),
        "t_cl": _ticks(gpu.dram_t_cl, gpu), "t_rcd": _ticks(gpu.dram_t_rcd, gpu),
        "t_rp": _ticks(gpu.dram_t_rp, gpu), "t_ras": _ticks(gpu.dram_t_ras, gpu),
        "t_ccd": _ticks(gpu.dram_t_ccd, gpu), "t_ccdl": _ticks(gpu.dram_t_ccdl, gpu),
        "t_wtr": _ticks(gpu.dram_t_wtr, gpu), "t_rtw": _ticks(gpu.dram_t_rtw, gpu),
        "dram_atom_bytes": gpu.dram_atom_bytes,
        # A bank's group: its high bits (GPGPU-Sim's default) or its low bits.
        "dram_group_shift": (gpu.dram_banks // gpu.dram_bank_groups).bit_length() - 1
        if gpu.dram_bank_group_index == "high" else 0,
        "dram_group_mask": gpu.dram_bank_groups - 1,
        "dram_bytes_per_100": round(gpu.dram_bus_bytes * 100 * (
            gpu.dram_clock_mhz / gpu.core_clock_mhz if gpu.core_clock_mhz and gpu.dram_clock_mhz else 1)),
        "dram_latency": gpu.dram_latency, "fixed_latency": fixed_latency, "series_period": series_period,
        "self_check": int(self_check),
        "stalled_release": STALLED_RELEASES.index(gpu.stalled_release), "ldst_queue": gpu.ldst_queue,
        "ldst_rr": gpu.ldst_dispatch == "round-robin",
        "issue_rotating": gpu.issue_order == "rotating", "l2_write_fetch": l2.write_allocate == "fetch",
        "l2_byte_mask": l2_byte_mask(gpu), "smem_latency": gpu.smem_latency,
        "log_capacity": log_capacity, "log_ldst": int(log_ldst),
        "dram_frfcfs": gpu.dram_scheduler == "frfcfs", "dram_queue": gpu.dram_queue,
        **_command_timings(gpu),
        "store_acks": gpu.store_acks == "l2", "smem_unit": gpu.smem_unit == "ldst",
    }
    address_map = parse_dram_address_map(gpu.dram_address_map)
    values["dram_chip_bit"] = -1 if address_map is None else address_map.chip_bit
    values["dram_bank_mask"] = 0 if address_map is None else address_map.bank_mask
    values["dram_row_mask"] = 0 if address_map is None else address_map.row_mask
    if gpu.dram_scheduler == "frfcfs":
        # Misses are refused while a channel holds more than ``limit`` requests: the scheduler's
        # queue and one per MSHR of the sub-partitions it serves (+ 8 for a serve's own). The
        # ``dq_reserve`` entries of its pool above that take what is never refused, a write-back
        # and a sector read from each L2 MSHR in flight, whichever channel the address map sends
        # them to: the pool cannot run dry.
        per_channel = -(-gpu.l2_partitions // values["n_channels"])
        limit = per_channel * values["l2_mshrs"] + 8 + gpu.dram_queue
        values["dq_reserve"] = 2 * gpu.l2_partitions * values["l2_mshrs"] + 8
        # Under dram_model "commands" each bank also holds the request it serves.
        values["dq_per_channel"] = limit + values["dq_reserve"] + (
            gpu.dram_banks if gpu.dram_model == "commands" else 0)
    else:
        values["dq_reserve"] = 0
        values["dq_per_channel"] = 1
    for name, v in values.items():
        k[_K[name]] = int(v)
    return k


def _command_timings(gpu: GPUConfig) -> dict[str, int]:
    """The configuration words of ``dram_model = "commands"``: its clock ratio and its timings in DRAM
    cycles, with GPGPU-Sim's derived ones (``gpu-sim.h``: ``tRCDWR = tRCD - (WL + 1)``, ``tWTP = WL +
    BL / ratio + tWR``, ``tRTP = BL / ratio``; ``BL / ratio``, the cycles of an atom on the bus)."""
    clocked = bool(gpu.core_clock_mhz and gpu.dram_clock_mhz)
    burst = -(-gpu.dram_atom_bytes // gpu.dram_bus_bytes) if gpu.dram_bus_bytes else 0
    return {"dram_commands": gpu.dram_model == "commands",
            "dc_num": round(gpu.core_clock_mhz * 1000) if clocked else 1,
            "dc_den": round(gpu.dram_clock_mhz * 1000) if clocked else 1,
            "dc_cl": gpu.dram_t_cl, "dc_wl": gpu.dram_t_wl, "dc_rcd": gpu.dram_t_rcd,
            "dc_rcdwr": max(0, gpu.dram_t_rcd - (gpu.dram_t_wl + 1)), "dc_ras": gpu.dram_t_ras,
            "dc_rc": gpu.dram_t_rc, "dc_rp": gpu.dram_t_rp, "dc_rrd": gpu.dram_t_rrd,
            "dc_ccd": gpu.dram_t_ccd,
            "dc_ccdl": gpu.dram_t_ccdl, "dc_rtw": gpu.dram_t_rtw, "dc_wtr": gpu.dram_t_wtr,
            "dc_wtp": gpu.dram_t_wl + burst + gpu.dram_t_wr, "dc_rtp": burst, "dc_rtpl": gpu.dram_t_rtpl}


def new_state(k: np.ndarray, l1_lines: int, l2_lines: int) -> TimingState:
    """Allocate the model's arrays for configuration vector ``k`` (all queues empty, DRAM rows closed).

    ``l1_lines`` is the number of L1 lines of all SMs, ``l2_lines`` of the L2 (their sector masks).
    """
    n_sm, slots, ctas = k[_K["n_sm"]], k[_K["slots"]], k[_K["max_ctas"]]
    m1, mq, m2, n_part = k[_K["l1_mshrs"]], k[_K["l1_mq_ring"]], k[_K["l2_mshrs"]], k[_K["n_part"]]
    merges = k[_K["l1_merges"]] or 32
    ic_sets, ic_ways, ic_mshrs = k[_K["icache_sets"]], k[_K["icache_ways"]], k[_K["icache_mshrs"]]
    n_req = int(n_sm * (m1 + mq + ic_mshrs) * 2 + 4096)
    byte_mask = bool(k[_K["l2_byte_mask"]])
    n_wait = int(n_sm * (m1 * merges + slots * 32))
    sizes = {"w": n_sm * slots, "cta": n_sm * ctas, "sm": n_sm, "e": n_sm * m1, "r": n_req, "wt": n_wait,
             "part": n_part, "f": n_part * m2, "bank": k[_K["n_channels"]] * k[_K["dram_banks"]],
             "ch": k[_K["n_channels"]], "smem": n_sm * layout.SMEM_BLOCKS, "port": n_sm * n_part,
             "lq": n_sm * k[_K["l1_lq_size"]],
             "ldq": n_sm * max(1, k[_K["ldst_queue"]]), "dq": k[_K["n_channels"]] * k[_K["dq_per_channel"]],
             "ic": max(1, n_sm * ic_sets * ic_ways), "im": n_sm * ic_mshrs}
    arrays = {name: np.zeros((len(fields), int(sizes[name])), np.int64)
              for name, fields in layout.TABLES.items()}
    # An empty entry of an LD/ST queue dispatched round robin (core._ldq_dispatch) has row -1.
    arrays["ldq"][layout.TABLES["ldq"].index("ldq_row")] = -1
    l1_map, l2_map = map_size(int(m1)), map_size(int(m2))
    # Events: requests, loads, per DRAM request its arrival and at most one wake-up of its channel,
    # and per SM at most one wake-up of its crossbar output (icnt_response_order round-robin).
    node, bucket, ovf, meta = new_events(n_req + int(n_sm * slots * 32) + 1024 + 2 * int(sizes["dq"])
                                         + int(n_sm))
    state = TimingState(
        **arrays, sched_last=np.full(int(n_sm * k[_K["n_sched"]]), -1, np.int64),
        sched_sleep=np.zeros(int(n_sm * k[_K["n_sched"]]), np.int64),
        sched_active=np.zeros(int(n_sm * k[_K["n_sched"]]), np.int64),
        mq=np.zeros(int(n_sm * mq), np.int64), l1_keys=np.full(int(n_sm * l1_map), -1, np.int64),
        l1_vals=np.zeros(int(n_sm * l1_map), np.int64), l1_map_size=np.int64(l1_map),
        l2_keys=np.full(int(n_part * l2_map), -1, np.int64), l2_vals=np.zeros(int(n_part * l2_map), np.int64),
        l2_map_size=np.int64(l2_map), l1_sec=np.zeros(int(l1_lines), np.int64),
        l2_sec=np.zeros(int(l2_lines), np.int64),
        # The L2's byte mask (core._l2_write): per line its sectors written in part and unreadable,
        # per line and 32-byte sector the bytes written; per request the bytes a store writes.
        l2_unread=np.zeros(int(l2_lines) if byte_mask else 1, np.int64),
        l2_wbytes=np.zeros(int(l2_lines * k[_K["l2_line_bytes"]] // CHUNK_BYTES) if byte_mask else 1,
                           np.int64),
        r_wbytes=np.zeros(int(n_req * k[_K["line_bytes"]] // CHUNK_BYTES) if byte_mask else 1, np.int64),
        # Each pool's free stack: its size, and the position below which it still holds 0, 1, ... unwritten
        # (core._pool_take).
        rq_meta=np.array([n_req, n_req], np.int64),
        wt_meta=np.array([n_wait, n_wait], np.int64), ev_node=node, ev_bucket=bucket, ev_ovf=ovf,
        ev_meta=meta,
        c=np.zeros(len(layout.COUNTERS), np.int64), sc=np.zeros(len(layout.SCALARS), np.int64),
        series=np.zeros((1, N_SERIES), np.int64),
        log=np.zeros((max(1, int(k[_K["log_capacity"]])), 5), np.int64),
        rpend=np.zeros(1, np.int64), rstop=np.zeros(1, np.int64))
    state.e[row("e", "e_free")] = np.tile(np.arange(m1, dtype=np.int64), int(n_sm))
    state.sm[row("sm", "l1_meta")] = m1
    state.f[row("f", "l2_free")] = np.arange(n_part * m2, dtype=np.int64)
    state.part[row("part", "l2_meta")] = m2
    state.part[row("part", "x_next")] = -1
    state.bank[row("bank", "d_open")] = -1
    state.bank[row("bank", "d_pick")] = -1
    state.bank[row("bank", "dc_mrq")] = -1
    state.bank[row("bank", "dq_bhead")] = -1
    state.bank[row("bank", "dq_btail")] = -1
    n_ch, per_ch = int(k[_K["n_channels"]]), int(k[_K["dq_per_channel"]])
    state.dq[row("dq", "dq_free")] = np.arange(n_ch * per_ch, dtype=np.int64)  # channel c: c*per_ch + i
    state.ch[row("ch", "dq_nfree")] = per_ch
    state.ch[row("ch", "dq_head")] = -1
    state.ch[row("ch", "dq_tail")] = -1
    state.ch[row("ch", "d_dir")] = -1  # no column command yet
    state.ch[row("ch", "dq_wake")] = -1
    state.ch[row("ch", "dq_bound")] = -1
    state.sm[row("sm", "ld_slot")] = -1
    state.sm[row("sm", "ld_asked")] = -1
    state.sm[row("sm", "quiet_from")] = -1  # no SM is quiet (core._quiet) or idle (the loop) yet
    state.sm[row("sm", "idle_from")] = -1
    state.sm[row("sm", "ctl_first_cta")] = -1
    # cta_issue "rotating" starts at cluster cta_first_cluster and at each cluster's first SM, as
    # GPGPU-Sim's m_last_cluster_issue and m_cta_issue_next_core begin one before them.
    n_cl = int(n_sm) // int(k[_K["sms_per_cluster"]])
    state.sc[_S["cta_last"]] = (int(k[_K["cta_first_cluster"]]) - 1) % n_cl
    state.sm[row("sm", "cta_core")] = int(k[_K["sms_per_cluster"]]) - 1
    state.port[row("port", "port_head")] = -1
    state.smem[row("smem", "x_tag")] = -1
    return state


def resident_ctas(k: np.ndarray) -> int:
    """CTAs of the kernel in ``k`` (its fields set) one SM holds at most: the tightest of its limits."""
    limits = [k[_K["max_ctas"]], k[_K["slots"]] // k[_K["wpc"]], k[_K["max_threads"]] // k[_K["tpc"]]]
    for need, have in (("regs_per_cta", "max_regs"), ("smem_per_cta", "max_smem")):
        if k[_K[need]] > 0:
            limits.append(k[_K[have]] // k[_K[need]])
    return int(max(0, min(limits)))


def smem_cache_blocks(k: np.ndarray) -> int:
    """Blocks of each SM's shared-memory cache for the kernel in ``k`` (ciao18 CIAO-P; 0: none).

    The cache takes the shared memory the kernel leaves unused when an SM holds
    as many of its CTAs as fit (``docs/timing.md``), laid out as
    :func:`golden.units.ciao_smem.cache_rows` says: two bank groups of that many rows.
    """
    unused = int(k[_K["max_smem"]] - resident_ctas(k) * k[_K["smem_per_cta"]])
    return 2 * cache_rows(unused)


def start_kernel(k: np.ndarray, state: TimingState, program: Program, kernel_index: int, cycle: int,
                 series_rows: int) -> np.ndarray:
    """Prepare a kernel: its fields of the configuration vector (returned) and the per-kernel state.

    The memory system keeps its contents (caches, DRAM rows); warps, CTAs
    and the schedulers start empty at ``cycle``.
    """
    if (state.sm[row("sm", "ld_slot")] >= 0).any() or state.sm[row("sm", "mq_n")].any() \
            or state.sm[row("sm", "lq_n")].any() or state.w[row("w", "w_stores")].any():
        # The previous kernel must have drained its LD/ST units, lookup pipelines and miss queues
        # and had its stores acknowledged (core._retire_if_done).
        raise RuntimeError("timing model: a kernel ended with an LD/ST unit, lookup pipeline or miss queue "
                           "still busy, or a store unacknowledged")
    k = k.copy()
    k[_K["kernel"]] = kernel_index
    k[_K["wpc"]] = program.warps_per_cta
    k[_K["tpc"]] = program.threads_per_cta
    k[_K["smem_per_cta"]] = program.shared_bytes
    k[_K["regs_per_cta"]] = program.regs_per_thread * program.threads_per_cta
    k[_K["n_ctas"]] = program.n_ctas
    for name in ("w_active", "w_bar", "w_done", "w_act2", "w_elig"):
        state.w[row("w", name)] = 0
    state.cta[row("cta", "cta_id")] = -1
    for name in ("sm_ctas", "sm_warps", "sm_threads", "sm_regs", "sm_smem", "ctl_resident", "ctl_ready",
                 "ctl_win_ready", "ctl_win_loads", "ctl_win_misses", "ctl_win_merges", "ctl_nblocked"):
        state.sm[row("sm", name)] = 0
    state.sm[row("sm", "ctl_first_cta")] = -1
    state.w[row("w", "ctl_gwarp")] = -1
    state.w[row("w", "ctl_redirect")] = 0
    # The shared-memory cache starts empty each kernel: its space is allocated anew (SMMT).
    state.sm[row("sm", "ctl_smem_lines")] = smem_cache_blocks(k)
    state.smem[row("smem", "x_tag")] = -1
    state.sched_last[:] = -1
    state.sched_sleep[:] = 0
    state.sched_active[:] = 0
    state.sm[row("sm", "quiet_from")] = -1
    state.sm[row("sm", "idle_from")] = -1
    state.sm[row("sm", "sm_elig_dirty")] = 1
    sc = state.sc
    accesses, cta_last = sc[_S["accesses"]], sc[_S["cta_last"]]
    sc[:] = 0
    sc[_S["accesses"]] = accesses
    sc[_S["cta_last"]] = cta_last  # GPGPU-Sim's turn of the clusters goes on from kernel to kernel
    sc[_S["cycle"]] = cycle
    sc[_S["dispatch"]] = 1
    sc[_S["series_next"]] = cycle
    return k
