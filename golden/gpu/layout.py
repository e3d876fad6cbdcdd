"""Names of the timing model's configuration vector, counters, scalars and event kinds.

The compiled model (:mod:`golden.gpu.core`) takes its configuration as one
``int64`` vector and keeps its counters and loop scalars in ``int64``
arrays; these are the indices, defined once for the compiled code and for
the Python front end (:mod:`golden.gpu.model`) that fills and reads them.
"""

from __future__ import annotations

__all__ = ["TABLES", "SMEM_BLOCKS", "CONFIG", "COUNTERS", "LATENCIES", "LATENCY_BINS", "SCALARS", "STALLS",
           "SCHEDULER_CODES", "DEPENDENCES", "DEADLOCKS", "UNBLOCKED", "BLOCK_ALL", "BLOCK_LOADS"]

#: The state's tables: each an ``int64[fields, entries]`` array, one row per field.
#: ``w`` per warp slot (SMs x slots), ``cta`` per CTA slot, ``sm`` per SM, ``e`` per L1 MSHR
#: (``e_sec``: the sectors it fetches, ``e_reads``: its requests still below),
#: ``r`` per request of the pool, ``wt`` per MSHR waiter, ``part`` per L2 sub-partition,
#: ``f`` per L2 MSHR (``f_sec``: the L2 sectors its line gets at the fill, ``f_reads``: its reads
#: still on their way from below), ``bank`` per DRAM bank (``d_pick``: the FR-FCFS scheduler's choice
#: for it; ``dq_bhead``/``dq_btail``: its own requests in the channel's queue, oldest first),
#: ``ch`` per DRAM channel (its FR-FCFS queue: ``dq_head``/``dq_tail``/``dq_n``, the free
#: entries of its part of the ``dq`` pool ``dq_nfree``, the cycle of its next wake-up ``dq_wake``,
#: the arrival number the next request gets ``dq_seq``, the request at the last place of the
#: scheduler's window ``dq_bound``, -1 while the queue is shorter than the window),
#: Under ``dram_model = "commands"`` a bank's ``dc_`` fields are GPGPU-Sim's ``bank_t``: whether its
#: row ``d_open`` is active, the request it serves (``dc_mrq``, -1: none) and the bytes sent of it,
#: and the DRAM cycle from which each of its timing counters is clear (``dc_rcd`` ...); the bank
#: groups' counters (``dc_ccdl``, ``dc_rtpl``) are kept in the rows of the channel's first banks. A
#: channel's are the next DRAM cycle it runs (``dc_next``), whether a wake-up is due for it
#: (``dc_ticking``), the rotating bank priority, the requests its banks hold, the DRAM cycle of its
#: last data out of the column pipeline, and its own counters.
#: ``dq`` per DRAM request of the ``frfcfs`` scheduler's pool (``dq_entry``: the L2 MSHR a read
#: fills, -1 for a write; ``dq_seq``: its arrival number; ``dq_bnext``/``dq_bprev``: its bank's
#: list; ``dq_win_t``: the cycle it entered the scheduler's window; ``dq_free``: each channel's
#: stack of free entries; channel ``c`` owns entries ``c * dq_per_channel`` to
#: ``(c + 1) * dq_per_channel - 1``), ``smem`` per block of the
#: SMs' shared-memory caches (ciao18's CIAO-P: ``SMEM_BLOCKS`` per SM, direct mapped), ``lq`` per
#: entry of the SMs' L1 lookup pipelines (``l1.lookup_latency``: a line request on its way from
#: the LD/ST unit to the tag lookup; ``w_lq`` counts a warp's entries, ``lq_head``/``lq_n`` an
#: SM's ring, ``lq_fail`` the reservation failure its head met), ``ldq`` per entry of the SMs'
#: memory-instruction queues (``ldst_queue``: a global memory instruction issued and waiting for
#: the LD/ST unit; ``w_ldq`` counts a warp's entries, ``ldq_head``/``ldq_n`` an SM's ring, or under
#: ``ldst_dispatch`` round-robin ``ldq_head`` the collector unit dispatched last and ``ldq_row``
#: -1 in an empty entry: ``core._ldq_dispatch``). Under
#: the ``registers`` dependence
#: rule, ``w_stop`` is the position (in the warp's instructions) it may not issue before its
#: pending loads that position waits for are back, ``w_old`` its oldest row that may still be
#: pending, and ``r_row``/``wt_row`` the row a request or MSHR waiter completes. ``w_stall_t`` is
#: one more than the cycle the timing model saw a policy block a warp (0: not blocked), the order
#: of ``stalled_release = "last"``. ``idle_from`` is the first cycle an SM without warps or queued
#: work was skipped (-1: not idle); ``cta_core`` is indexed by cluster, not SM (``cta_issue =
#: "rotating"``: entry ``c`` holds the core of cluster ``c`` that started its last CTA); ``r_bytes``
#: is the data a write or atomic request carries (``write_packet``). With an instruction cache
#: (``icache_bytes``), ``ic`` has per SM, set and way the line it holds and the cycle it was last
#: used, ``im`` per SM and MSHR the line it reads (``im_sent``: its read is made); ``w_pc`` is a
#: warp's last issued instruction's PC, ``w_iline`` the instruction line it has fetched, ``w_imiss``
#: the line it waits for (0 stands for none in all four: an instruction line is at least
#: ``PROGRAM_BASE / line size``); an SM's ``ic_want`` asks for its instruction reads to be made
#: (core._icache_requests). ``w_stores`` counts a warp's stores not yet acknowledged
#: (``store_acks = "l2"``; a warp exits only when it is 0).
TABLES = {
    'w': (
        'w_cta', 'w_cta_id', 'w_warp', 'w_row', 'w_end', 'w_left', 'w_tail', 'w_pend', 'w_age', 'w_load_t',
        'ctl_gwarp', 'ctl_prio', 'w_active', 'w_bar', 'w_done', 'w_act2', 'w_elig', 'ctl_blocked',
        'ctl_redirect', 'w_lq', 'ctl_winst', 'w_stop', 'w_old', 'w_stall_t', 'w_ldq', 'w_pc', 'w_iline',
        'w_imiss', 'w_stores'
    ),
    'cta': (
        'cta_id', 'cta_live', 'cta_arrived', 'cta_done'
    ),
    'sm': (
        'sm_ctas', 'sm_warps', 'sm_threads', 'sm_regs', 'sm_smem', 'ld_slot', 'ld_row', 'ld_next',
        'mq_head', 'mq_n', 'inj_free', 'sm_rsp_free', 'l1_meta', 'ctl_limit', 'ctl_resident',
        'sm_limit_seen', 'sm_elig_dirty', 'ld_fail', 'wake', 'ctl_ready', 'ctl_first_cta', 'ctl_window',
        'ctl_win_ready', 'ctl_win_loads', 'ctl_win_misses', 'ctl_win_merges', 'ctl_inst', 'ctl_wpc',
        'ctl_smem_lines', 'ld_asked', 'ld_pre', 'quiet_from', 'quiet_until', 'ctl_changed', 'lq_head', 'lq_n',
        'lq_fail', 'ctl_nblocked', 'ldq_head', 'ldq_n', 'l1_out_t', 'l1_out_n', 'ctl_vta_hits',
        'rsp_n', 'rsp_last', 'idle_from', 'cta_core', 'ic_want'
    ),
    'e': (
        'e_line', 'e_sec', 'e_n', 'e_head', 'e_tail', 'e_flags', 'e_write', 'e_free', 'e_smem', 'e_reads',
        'e_key'
    ),
    'r': (
        'r_kind', 'r_sm', 'r_line', 'r_sec', 'r_entry', 'r_flags', 'r_slot', 'r_warp', 'r_cta', 'r_pc',
        'r_t', 'r_issue', 'r_resp', 'r_next', 'r_part', 'rq_free', 'r_ready', 'r_row', 'r_bytes'
    ),
    'wt': (
        'wt_slot', 'wt_next', 'wt_free', 'wt_row'
    ),
    'part': (
        'q_head', 'q_tail', 'q_n', 'p_in_free', 'p_rsp_free', 'l2_meta', 'h_head', 'h_tail', 'h_n', 'h_busy',
        # icnt_response_buffer: flits in the crossbar's input, its first response still outside
        # (-1: none), how many wait outside (in the L2-to-icnt queue).
        'x_flits', 'x_next', 'x_wait'
    ),
    'f': (
        'f_line', 'f_n', 'f_head', 'f_tail', 'f_flags', 'f_dirty', 'l2_free', 'f_sec', 'f_reads', 'f_key'
    ),
    'bank': (
        'd_open', 'd_ready', 'd_act', 'd_pick', 'dq_bhead', 'dq_btail',
        'dc_active', 'dc_mrq', 'dc_tx', 'dc_rcd', 'dc_rcdwr', 'dc_ras', 'dc_rc', 'dc_rp', 'dc_rtp', 'dc_wtp',
        'dc_ccdl', 'dc_rtpl'
    ),
    'ch': (
        'd_bus', 'dq_head', 'dq_tail', 'dq_n', 'dq_nfree', 'dq_wake', 'd_col', 'd_dir', 'd_grp', 'dq_seq',
        'dq_bound', 'dc_next', 'dc_ticking', 'dc_prio', 'dc_nmrq', 'dc_out', 'dc_ccd', 'dc_rrd', 'dc_rtw',
        'dc_wtr'
    ),
    'dq': (
        'dq_bank', 'dq_row', 'dq_bytes', 'dq_write', 'dq_entry', 'dq_next', 'dq_prev', 'dq_free', 'dq_seq',
        'dq_bnext', 'dq_bprev', 'dq_win_t'
    ),
    'port': (
        'port_head', 'port_tail'
    ),
    'smem': (
        'x_tag', 'x_owner'
    ),
    'lq': (
        'lq_slot', 'lq_row', 'lq_req', 'lq_ready'
    ),
    'ldq': (
        'ldq_slot', 'ldq_row'
    ),
    'ic': (
        'ic_tag', 'ic_lru'
    ),
    'im': (
        'im_line', 'im_sent'
    ),
}

#: Blocks of an SM's shared-memory cache at most: ciao18's 9-bit block index (G and 8 R bits).
SMEM_BLOCKS = 512

#: Fields of the configuration vector, in order.
CONFIG = (
    "n_sm", "slots", "n_sched", "sched", "warp_limit", "two_level_active", "max_ctas", "max_threads",
    "max_regs", "max_smem", "dep",
    "l1_latency", "l1_ports", "l1_mshrs", "l1_merges", "l1_miss_queue", "l1_alloc_on_fill", "l1_write",
    "l2_latency", "l2_mshrs", "l2_merges", "l2_alloc_on_fill", "l2_shift", "n_part", "l2_sets",
    "icnt_latency", "flit_bytes", "line_bytes", "sector_bytes", "l2_line_bytes", "has_l3", "l3_latency",
    "n_channels", "dram_banks", "dram_row_lines", "t_cl", "t_rcd", "t_rp", "t_ras", "dram_bytes_per_100",
    "dram_latency", "fixed_latency", "series_period", "log_capacity", "kernel",
    "wpc", "tpc", "smem_per_cta", "regs_per_cta", "n_ctas", "l1_miss_latency", "l1_mq_ring",
    "l2_sector_bytes", "self_check", "l1_lookup_latency", "l1_lq_size", "stalled_release", "ldst_queue",
    "issue_rotating", "l2_write_fetch",
    "dram_frfcfs", "dram_queue", "dram_chip_bit", "dram_bank_mask", "dram_row_mask", "dq_per_channel",
    "dq_reserve", "icnt_packet_gap", "l1_response_rate", "log_ldst", "icnt_response_rr", "icnt_input_fifo",
    "smem_xor", "cta_rotating", "sms_per_cluster", "cta_first_cluster", "write_segment",
    "icache_sets", "icache_ways", "icache_mshrs", "l2_byte_mask", "smem_latency", "l2_lookup_latency",
    "store_acks", "smem_unit", "t_ccd", "t_ccdl", "t_wtr", "t_rtw", "dram_atom_bytes", "dram_group_shift",
    "dram_group_mask", "icnt_request_fifo", "icnt_input_buffer", "l2_mshr_sector", "l1_mshr_sector",
    "ldst_rr",
    # A sub-partition takes requests while fewer than l2_input_cap wait in its L2 queue (0: always).
    "l2_input_cap",
    # A sub-partition looks up requests while fewer than l2_output_cap responses wait outside the
    # crossbar's input (0: always), which holds rsp_buffer flits (0: unbounded).
    "l2_output_cap", "rsp_buffer",
    # dram_model "commands": DRAM cycle n is in core cycle n * dc_num // dc_den; the timings in
    # DRAM cycles (dc_rcdwr, dc_wtp, dc_rtp derived as GPGPU-Sim derives them).
    "dram_commands", "dc_num", "dc_den", "dc_cl", "dc_wl", "dc_rcd", "dc_rcdwr", "dc_ras", "dc_rc", "dc_rp",
    "dc_rrd", "dc_ccd", "dc_ccdl", "dc_rtw", "dc_wtr", "dc_wtp", "dc_rtp", "dc_rtpl",
)

#: Latencies the model keeps as histograms (``docs/timing.md``, "Outputs"): a request's round trip,
#: from leaving the LD/ST unit to its response's arrival at the SM (GPGPU-Sim's ``mf_lat_table``);
#: a DRAM request's wait in the FR-FCFS scheduler's window (its ``mrq_lat_table``); a data request's
#: way to its sub-partition, from the same start to its last flit's arrival there
#: (``icnt2mem_lat_table``); and a data response's way back, from leaving its sub-partition to its
#: arrival at the SM (``icnt2sh_lat_table``). Each has ``LATENCY_BINS`` counters on GPGPU-Sim's
#: bins: bin ``i`` counts latencies ``l`` with ``floor(log2(l)) == i`` (``l`` 0 in bin 0), the last
#: bin also every longer one.
LATENCIES = ("round_trip", "dram_wait", "to_memory", "to_sm")
LATENCY_BINS = 32

#: Counters the model accumulates over a run (``int64``), in order.
COUNTERS = (
    "instructions", "global_instructions", "shared_instructions", "other_memory_instructions",
    "barriers", "l1_accesses", "l1_hits", "l1_sector_misses", "l1_mshr_merges",
    "l1_reservation_fails_mshr", "l1_reservation_fails_merge", "l1_reservation_fails_queue",
    "l2_accesses", "l2_hits", "l2_mshr_merges", "l2_reservation_fails", "dram_reads", "dram_writes",
    "dram_row_hits", "load_latency_sum", "loads_completed", "warp_cycles", "slot_cycles", "ctas_launched",
    "issue_cycles", "stall_none", "stall_memory", "stall_barrier", "stall_structural", "stall_throttled",
    "stall_fetch",
    "smem_cache_accesses", "smem_cache_hits", "smem_cache_migrations", "smem_cache_evictions",
    "l1_bypassed", "l2_sector_misses", "l1_sector_loads", "l1_sector_load_hits", "l2_sector_accesses",
    "l2_sector_hits", "self_check_fails", "busy_sm_cycles", "blocked_warp_cycles",
    # SM-cycles the loop skipped and settled later (quiet SMs), and those of them with the LD/ST
    # unit or the lookup pipeline held by a reservation failure: how much the shortcut saves.
    "quiet_sm_cycles", "quiet_held_sm_cycles",
    # Policy blocks the loop released: on one SM whose every warp with instructions left was blocked
    # (at a warp's exit or a CTA dispatch), and on the whole GPU when only blocked warps could go on.
    "policy_releases_sm", "policy_releases_gpu",
    # L1 misses refused because every way of their set waited for a fill (allocate on miss).
    "l1_reservation_fails_line",
    # L2 misses refused because the DRAM channel's request queue was full (``frfcfs``), and the
    # DRAM requests that waited behind a younger row hit.
    "l2_reservation_fails_dram", "dram_reordered",
    # The loop's own work (docs/timing.md, "The loop's work counted"): GPU cycles it stepped (the
    # rest it jumped), SM-cycles it stepped and those of them that neither injected, looked up,
    # sent an access nor issued, and the events it handled by kind (the order of core.EV_*).
    "loop_gpu_cycles", "loop_sm_cycles", "loop_sm_cycles_idle",
    "events_hit", "events_l2_arrive", "events_l2_fill", "events_l1_fill", "events_dram_arrive",
    "events_dram_wake", "events_port_arrive", "events_port_free", "events_smem",
    # SM-cycles of SMs without warps or work the loop skipped and settled later (core._settle).
    "idle_sm_cycles",
    # The instruction cache (icache_bytes): warps' lookups of a new line, those that missed, those
    # of them that met the line's MSHR; its reads at the L2 (kept out of the L2's data counters).
    "icache_accesses", "icache_misses", "icache_merges", "l2_inst_accesses", "l2_inst_hits",
    # Shared-memory instructions in the LD/ST unit (smem_unit "ldst"): their bank accesses, one a
    # cycle, and the cycles of those beyond each instruction's first (GPGPU-Sim's
    # gpgpu_n_shmem_bank_access and gpgpu_n_shmem_bkconflict).
    "shared_bank_accesses", "shared_bank_conflicts",
    # dram_model "commands": the channels' activations and precharges (GPGPU-Sim's n_act, n_pre).
    "dram_activates", "dram_precharges",
    # Each latency's sum and count (LATENCIES), then the histograms, LATENCY_BINS counters each.
) + tuple(f"{name}_{part}" for name in LATENCIES for part in ("sum", "n")) \
  + tuple(f"{name}_log2_{i}" for name in LATENCIES for i in range(LATENCY_BINS))

#: The issue-stall reasons of a scheduler cycle, in the order of the ``stall_*`` counters.
STALLS = ("none", "memory", "barrier", "structural", "throttled", "fetch")

#: Loop scalars kept between calls of the compiled loop (the run is resumable).
SCALARS = (
    "cycle", "next_cta", "dispatch", "retired_ctas", "inflight", "accesses", "age", "status",
    "series_n", "log_n", "series_next", "blocked_kind", "blocked_where",
    # The most warps resident on one SM at once in the kernel (a warp limit at or above it never binds).
    "peak_sm_warps",
    # cta_issue "rotating": the cluster that last started a CTA (kept from kernel to kernel).
    "cta_last",
    # The cycle the line request being looked up left the LD/ST unit (its requests' round trip
    # starts there: with l1.lookup_latency, before the lookup pipeline, as GPGPU-Sim's timestamp).
    "sent",
)

#: Ticks of a core cycle in which the DRAM's times are kept (``golden.gpu.core._dram_access``).
DRAM_TICKS = 1000

#: Scheduler policy codes.
SCHEDULER_CODES = {"lrr": 0, "gto": 1, "oldest": 2, "two-level": 3}

#: Dependence rules: what a warp waits for while it has loads outstanding.
#: ``next-memory``: its next memory or barrier instruction waits (compute goes on);
#: ``none``: nothing waits (the warp only holds its slot until its loads return);
#: ``next-instruction``: its next instruction of any kind waits;
#: ``registers``: the instruction that reads (or overwrites) a load's destination register waits
#: for that load (``KernelTrace.consumers``, from an Accel-Sim trace's registers).
DEPENDENCES = {"next-memory": 0, "none": 1, "next-instruction": 2, "registers": 3}

#: Values of a warp's ``ctl_blocked`` (``SchedulerControl.blocked``): it may issue anything,
#: nothing, or anything but a global load (CCWS: a throttled warp still issues compute and stores).
UNBLOCKED, BLOCK_ALL, BLOCK_LOADS = 0, 1, 2

#: What a deadlock report names (``blocked_kind``).
DEADLOCKS = {1: "barrier", 2: "l1 MSHR", 3: "l1 miss queue", 4: "l2 MSHR", 5: "request pool",
             6: "event queue", 7: "DRAM request queue"}


def index(names: tuple[str, ...]) -> dict[str, int]:
    """``{name: position}`` of a layout tuple."""
    return {n: i for i, n in enumerate(names)}
