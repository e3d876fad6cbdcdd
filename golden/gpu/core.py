"""The compiled cycle loop of the timing model.

One call of ``step`` advances a kernel by up to ``budget`` cycles and
returns; all state lives in the arrays of :class:`golden.gpu.state.TimingState`,
so the Python front end resumes it (for progress, time series and deadlock
checks). Per cycle, in this order:

1. events due this cycle (hit data, L2 arrivals, L2 fills from DRAM/L3,
   responses arriving at an SM), first in first out within a cycle;
2. each L2 sub-partition serves the head of its request queue (one per cycle);
3. each SM: its miss queue injects one request into the interconnect when
   its port is free (and, after a lookup, ``l1.miss_latency`` cycles more
   have passed); the heads of its L1 lookup pipeline that have waited out
   ``l1.lookup_latency`` look the L1 up (up to ``l1.ports``); its LD/ST unit
   sends up to ``l1.ports`` line requests of the instruction it holds into
   the pipeline (or, with no lookup latency, through the L1 at once). A
   lookup that cannot get an MSHR, a merge or a miss-queue slot is a
   reservation failure and is retried next cycle; then each scheduler
   issues at most one instruction;
4. waiting CTAs are dispatched (one per SM per cycle);
5. a cycle in which nothing happened is skipped to the next event.

Cache state changes run through the functional engine's phases
(:func:`golden.cache.engine.family_globals`), so policies see the same hooks;
``docs/timing.md`` gives the order in which the model calls them.
"""

from __future__ import annotations

import types as pytypes

import numba as nb
import numpy as np

from golden.cache import engine
from golden.cache.bound_hooks import bind, hook_key, level_refs, level_states
from golden.cache.by_ref import by_ref, frozen

# The engine's phases and header layout. _compile binds these names to the compiled copies of
# one engine family (golden.cache.engine.family_globals); the imports give them to readers and linters.
from golden.cache.engine import (  # noqa: I001
    NP,
    O_CLOCK,
    O_DIRTY,
    O_FREQ,
    O_RNG,
    O_STAMP,
    O_TAG,
    O_TREE,
    P_REPL,
    P_WAYS,
    _access,
    _at,
    _at_u64,
    _drop,
    _engine_hooks,
    _evict_way,
    _find,
    _hit,
    _miss,
    _on_evict,
    _on_hit,
    _on_lookup,
    _on_miss,
    _on_request,
    _on_smem,
    _params,
    _ptr,
    _put,
    _respond,
    _victim,
    level_set_index,
)
from golden.cache.hooks import (
    HOOK_SPECS,
    SMEM_ALLOC,
    SMEM_FILL,
    SMEM_HIT,
    SMEM_MERGE,
    SMEM_MIGRATE,
    Access,
    at_level,
)
from golden.cache.replacement import choose_victim, insert, invalidate, touch
from golden.gpu import layout
from golden.gpu.bits import trailing_zeros
from golden.gpu.program import CHUNK_BYTES
from golden.gpu.queues import (
    NEVER,
    event_advance,
    event_due,
    event_pop,
    event_push_far,
    event_push_near,
    event_top_time,
    map_del,
    map_find,
    map_put,
)
from golden.gpu.specialise import Specialisation, specialisation
from golden.trace.model import Op, Space

__all__ = ["step_function", "shared_functions"]

(K_N_SM, K_SLOTS, K_N_SCHED, K_SCHED, K_WARP_LIMIT, K_TWO_ACTIVE, K_MAX_CTAS, K_MAX_THREADS,
 K_MAX_REGS, K_MAX_SMEM, K_DEP,
 K_L1_LAT, K_L1_PORTS, K_L1_MSHRS, K_L1_MERGES, K_L1_MQ, K_L1_ON_FILL, K_L1_WRITE,
 K_L2_LAT, K_L2_MSHRS, K_L2_MERGES, K_L2_ON_FILL, K_L2_SHIFT, K_N_PART, K_L2_SETS,
 K_ICNT_LAT, K_FLIT, K_LINE_BYTES, K_SECTOR_BYTES, K_L2_LINE_BYTES, K_HAS_L3, K_L3_LAT,
 K_N_CH, K_BANKS, K_ROW_LINES, K_T_CL, K_T_RCD, K_T_RP, K_T_RAS, K_DRAM_BPC100,
 K_DRAM_LAT, K_FIXED_LAT, K_PERIOD, K_LOG_CAP, K_KERNEL,
 K_WPC, K_TPC, K_SMEM_CTA, K_REGS_CTA, K_N_CTAS, K_L1_MISS_LAT, K_L1_MQ_RING,
 K_L2_SECTOR_BYTES, K_SELF_CHECK, K_L1_LOOKUP, K_LQ_SIZE, K_STALLED_RELEASE, K_LDST_QUEUE,
 K_ISSUE_ROTATING, K_L2_WRITE_FETCH, K_DRAM_FRFCFS, K_DRAM_QUEUE, K_DRAM_CHIP_BIT, K_DRAM_BANK_MASK,
 K_DRAM_ROW_MASK, K_DQ_PER_CH, K_DQ_RESERVE, K_ICNT_GAP, K_L1_RATE, K_LOG_LDST,
 K_RSP_RR, K_IN_FIFO, K_SMEM_XOR, K_CTA_ROTATING, K_SMS_PER_CLUSTER,
 K_CTA_FIRST_CLUSTER, K_WRITE_SEGMENT, K_IC_SETS, K_IC_WAYS, K_IC_MSHRS,
 K_L2_BYTE_MASK, K_SMEM_LAT, K_L2_LOOKUP, K_STORE_ACKS, K_SMEM_UNIT, K_T_CCD, K_T_CCDL, K_T_WTR, K_T_RTW,
 K_DRAM_ATOM, K_DRAM_GROUP_SHIFT, K_DRAM_GROUP_MASK, K_REQ_FIFO, K_ICNT_BUF,
 K_L2_MSHR_SECTOR, K_L1_MSHR_SECTOR, K_LDST_RR, K_L2_IN_CAP, K_L2_OUT_CAP, K_RSP_BUF,
 K_DRAM_COMMANDS, K_DC_NUM, K_DC_DEN, K_DC_CL, K_DC_WL, K_DC_RCD, K_DC_RCDWR, K_DC_RAS, K_DC_RC, K_DC_RP,
 K_DC_RRD, K_DC_CCD, K_DC_CCDL, K_DC_RTW, K_DC_WTR, K_DC_WTP, K_DC_RTP, K_DC_RTPL) = range(len(layout.CONFIG))

# The configuration words by the loop's names, for a specialised build (golden.gpu.specialise).
_CONFIG_NAMES = {name: i for name, i in globals().items() if name.startswith("K_")}
assert sorted(_CONFIG_NAMES.values()) == list(range(len(layout.CONFIG)))

(C_INST, C_GLOBAL, C_SHARED, C_OTHER, C_BARRIERS, C_L1_ACC, C_L1_HITS, C_L1_SECTOR_MISSES,
 C_L1_MERGES, C_L1_FAIL_MSHR, C_L1_FAIL_MERGE, C_L1_FAIL_QUEUE, C_L2_ACC, C_L2_HITS, C_L2_MERGES,
 C_L2_FAIL, C_DRAM_READS, C_DRAM_WRITES, C_DRAM_ROW_HITS, C_LOAD_LAT, C_LOADS_DONE, C_WARP_CYCLES,
 C_SLOT_CYCLES, C_CTAS, C_ISSUE_CYCLES, C_STALL_NONE, C_STALL_MEM, C_STALL_BAR, C_STALL_STRUCT,
 C_STALL_THROTTLE, C_STALL_FETCH, C_SMEM_ACC, C_SMEM_HITS, C_SMEM_MIGRATIONS, C_SMEM_EVICTIONS,
 C_L1_BYPASSED, C_L2_SECTOR_MISSES, C_L1_SEC_LOADS, C_L1_SEC_LOAD_HITS, C_L2_SEC_ACC,
 C_L2_SEC_HITS, C_SELF_CHECK_FAILS, C_BUSY_SM_CYCLES, C_BLOCKED_CYCLES, C_QUIET_CYCLES,
 C_QUIET_HELD_CYCLES, C_POLICY_RELEASES_SM, C_POLICY_RELEASES_GPU,
 C_L1_FAIL_LINE, C_L2_FAIL_DRAM, C_DRAM_REORDERED, C_LOOP_CYCLES, C_LOOP_SM_CYCLES, C_LOOP_SM_IDLE,
 C_EV_HIT, C_EV_L2_ARRIVE, C_EV_L2_FILL, C_EV_L1_FILL, C_EV_DRAM_ARRIVE, C_EV_DRAM_WAKE,
 C_EV_PORT_ARRIVE, C_EV_PORT_FREE, C_EV_SMEM, C_IDLE_SM_CYCLES, C_IC_ACC, C_IC_MISSES, C_IC_MERGES,
 C_L2_INST_ACC,
 C_L2_INST_HITS, C_SMEM_BANK_ACC, C_SMEM_BANK_CONFLICTS, C_DRAM_ACTS, C_DRAM_PRES,
 C_ROUND_TRIP, C_ROUND_TRIP_N, C_DRAM_WAIT, C_DRAM_WAIT_N, C_TO_MEM, C_TO_MEM_N, C_TO_SM, C_TO_SM_N,
 ) = range(len(layout.COUNTERS) - len(layout.LATENCIES) * layout.LATENCY_BINS)
# The first bin of each latency's histogram (layout.LATENCIES).
C_ROUND_TRIP_BINS = layout.COUNTERS.index("round_trip_log2_0")
C_DRAM_WAIT_BINS = layout.COUNTERS.index("dram_wait_log2_0")
C_TO_MEM_BINS = layout.COUNTERS.index("to_memory_log2_0")
C_TO_SM_BINS = layout.COUNTERS.index("to_sm_log2_0")

(S_CYCLE, S_NEXT_CTA, S_DISPATCH, S_RETIRED, S_INFLIGHT, S_ACCESSES, S_AGE, S_STATUS, S_SERIES_N,
 S_LOG_N, S_SERIES_NEXT, S_BLOCKED_KIND, S_BLOCKED_WHERE, S_PEAK_SM_WARPS,
 S_CTA_LAST, S_SENT) = range(len(layout.SCALARS))

# Rows of the state's tables (golden.gpu.layout.TABLES), one constant per field.
(W_W_CTA, W_W_CTA_ID, W_W_WARP, W_W_ROW, W_W_END, W_W_LEFT, W_W_TAIL, W_W_PEND, W_W_AGE, W_W_LOAD_T,
 W_CTL_GWARP, W_CTL_PRIO, W_W_ACTIVE, W_W_BAR, W_W_DONE, W_W_ACT2, W_W_ELIG, W_CTL_BLOCKED,
 W_CTL_REDIRECT, W_W_LQ, W_CTL_WINST, W_W_STOP, W_W_OLD, W_W_STALL_T, W_W_LDQ, W_W_PC, W_W_ILINE,
 W_W_IMISS, W_W_STORES,) = range(29)
(T_CTA_ID, T_CTA_LIVE, T_CTA_ARRIVED, T_CTA_DONE,) = range(4)
(M_SM_CTAS, M_SM_WARPS, M_SM_THREADS, M_SM_REGS, M_SM_SMEM, M_LD_SLOT, M_LD_ROW, M_LD_NEXT,
 M_MQ_HEAD, M_MQ_N, M_INJ_FREE, M_SM_RSP_FREE, M_L1_META, M_CTL_LIMIT, M_CTL_RESIDENT,
 M_SM_LIMIT_SEEN, M_SM_ELIG_DIRTY, M_LD_FAIL, M_WAKE, M_CTL_READY, M_CTL_FIRST_CTA, M_CTL_WINDOW,
 M_CTL_WIN_READY, M_CTL_WIN_LOADS, M_CTL_WIN_MISSES, M_CTL_WIN_MERGES, M_CTL_INST, M_CTL_WPC,
 M_CTL_SMEM_LINES, M_LD_ASKED, M_LD_PRE, M_QUIET_FROM, M_QUIET_UNTIL, M_CTL_CHANGED, M_LQ_HEAD, M_LQ_N,
 M_LQ_FAIL, M_CTL_NBLOCKED, M_LDQ_HEAD, M_LDQ_N, M_L1_OUT_T, M_L1_OUT_N, M_CTL_VTA_HITS,
 M_RSP_N, M_RSP_LAST, M_IDLE_FROM, M_CTA_CORE, M_IC_WANT,) = range(48)
(E_E_LINE, E_E_SEC, E_E_N, E_E_HEAD, E_E_TAIL, E_E_FLAGS, E_E_WRITE, E_E_FREE, E_E_SMEM,
 E_E_READS, E_E_KEY) = range(11)
(R_R_KIND, R_R_SM, R_R_LINE, R_R_SEC, R_R_ENTRY, R_R_FLAGS, R_R_SLOT, R_R_WARP, R_R_CTA, R_R_PC,
 R_R_T, R_R_ISSUE, R_R_RESP, R_R_NEXT, R_R_PART, R_RQ_FREE, R_R_READY, R_R_ROW, R_R_BYTES,) = range(19)
(Q_WT_SLOT, Q_WT_NEXT, Q_WT_FREE, Q_WT_ROW,) = range(4)
(P_Q_HEAD, P_Q_TAIL, P_Q_N, P_P_IN_FREE, P_P_RSP_FREE, P_L2_META, P_H_HEAD, P_H_TAIL, P_H_N,
 P_H_BUSY, P_X_FLITS, P_X_NEXT, P_X_WAIT,) = range(13)
(F_F_LINE, F_F_N, F_F_HEAD, F_F_TAIL, F_F_FLAGS, F_F_DIRTY, F_L2_FREE, F_F_SEC, F_F_READS,
 F_F_KEY) = range(10)
(B_D_OPEN, B_D_READY, B_D_ACT, B_D_PICK, B_DQ_HEAD, B_DQ_TAIL,
 B_DC_ACTIVE, B_DC_MRQ, B_DC_TX, B_DC_RCD, B_DC_RCDWR, B_DC_RAS, B_DC_RC, B_DC_RP, B_DC_RTP, B_DC_WTP,
 B_DC_CCDL, B_DC_RTPL,) = range(18)
(H_D_BUS, H_DQ_HEAD, H_DQ_TAIL, H_DQ_N, H_DQ_NFREE, H_DQ_WAKE, H_D_COL, H_D_DIR, H_D_GRP, H_DQ_SEQ,
 H_DQ_BOUND, H_DC_NEXT, H_DC_TICKING, H_DC_PRIO, H_DC_NMRQ, H_DC_OUT, H_DC_CCD, H_DC_RRD, H_DC_RTW,
 H_DC_WTR,) = range(20)
(DQ_BANK, DQ_ROW, DQ_BYTES, DQ_WRITE, DQ_ENTRY, DQ_NEXT, DQ_PREV, DQ_FREE, DQ_SEQ, DQ_BNEXT,
 DQ_BPREV, DQ_WIN_T,) = range(12)
(PT_HEAD, PT_TAIL,) = range(2)
(X_X_TAG, X_X_OWNER,) = range(2)
(L_LQ_SLOT, L_LQ_ROW, L_LQ_REQ, L_LQ_READY,) = range(4)
(D_LDQ_SLOT, D_LDQ_ROW,) = range(2)
(IC_TAG, IC_LRU,) = range(2)
(IM_LINE, IM_SENT,) = range(2)

assert [len(v) for v in layout.TABLES.values()] == [29, 4, 48, 11, 19, 4, 13, 10, 18, 20, 12, 2, 2, 4, 2, 2,
                                                     2]
SMEM_BLOCKS = layout.SMEM_BLOCKS
LATENCY_LAST_BIN = layout.LATENCY_BINS - 1

# DRAM times are kept in ticks of a core cycle (_dram_access): a DRAM cycle of another clock is
# not rounded to whole core cycles.
DRAM_TICKS = np.int64(layout.DRAM_TICKS)
# Status of a call: still running, kernel finished, deadlock.
RUNNING, FINISHED, DEADLOCK = 0, 1, 2
LOAD, STORE, ATOMIC, BARRIER = int(Op.LOAD), int(Op.STORE), int(Op.ATOMIC), int(Op.BARRIER)
GLOBAL, SHARED = int(Space.GLOBAL), int(Space.SHARED)
# Request kinds and event kinds.
RQ_READ, RQ_WRITE, RQ_ATOMIC = 1, 2, 3
# r_entry of an instruction cache's read (a load request with no L1D MSHR behind it).
INST_FETCH = -2
# Where instructions live: GPGPU-Sim's PROGRAM_MEM_START (an instruction at pc is read at this + pc).
PROGRAM_BASE = 0xF0000000
EV_HIT, EV_L2_ARRIVE, EV_L2_FILL, EV_L1_FILL, EV_DRAM_ARRIVE, EV_DRAM_WAKE = 1, 2, 3, 4, 5, 6
# icnt_response_order "round-robin": a response reaches its SM's crossbar output; the output is free again.
EV_PORT_ARRIVE, EV_PORT_FREE = 7, 8
# A shared-memory load's result (smem_latency).
EV_SMEM = 9
_EV_SHIFT = 48
_EV_MASK = (1 << _EV_SHIFT) - 1
# _handle counts an event of kind k in C_EV_HIT - EV_HIT + k: the codes run in the counters' order.
assert (EV_HIT, EV_L2_ARRIVE, EV_L2_FILL, EV_L1_FILL, EV_DRAM_ARRIVE, EV_DRAM_WAKE, EV_PORT_ARRIVE,
        EV_PORT_FREE, EV_SMEM) == tuple(range(EV_HIT, EV_HIT + C_EV_SMEM - C_EV_HIT + 1))
# The ``registers`` dependence rule (layout.DEPENDENCES), and a warp's stop when nothing it will
# issue waits for a load.
DEP_REGISTERS = 3
NO_STOP = np.int64(1) << 62
# Issue check results (0: can issue), in the order of layout.STALLS after "issued".
OK, WHY_NONE, WHY_MEM, WHY_BAR, WHY_STRUCT, WHY_THROTTLE, WHY_FETCH = range(7)
# An SM's wake flags (``M_WAKE``) hold one bit per scheduler: all of them.
WAKE_ALL = -1
# A warp's ``ctl_blocked`` (SchedulerControl.blocked): may issue nothing, or anything but a global load.
UNBLOCKED, BLOCK_ALL, BLOCK_LOADS = layout.UNBLOCKED, layout.BLOCK_ALL, layout.BLOCK_LOADS
WRITE_BACK = engine.WRITE_BACK
WRITE_EVICT = engine.WRITE_EVICT
MEMORY = engine.MEMORY
# Access-log columns: cycle, sm, line, op, outcome (1 hit, 2 miss, 3 merge, 4 sector miss); and the
# SM events of the occupancy monitor: outcome 5 (``line`` = the SM's warps able to issue from this
# cycle on), outcome 6 (the SM's first CTA of the kernel: its sampling window starts); outcome 7
# a load sent past the L1 before its lookup (``on_lookup``).
LOG_READY, LOG_FIRST_CTA, LOG_BYPASS = 5, 6, 7
#: Outcomes of the LD/ST unit's rows in the per-access log (``log_ldst``): a global memory
#: instruction issued (line: its warp slot, SM x slots + slot; op: its program row) and the LD/ST
#: unit taking it (the same fields). Issue and take share a cycle when the unit was free. A load
#: done (the same fields): its last line is back, so the warp may use it.
LOG_MEM_ISSUE, LOG_LDST_TAKE, LOG_LOAD_DONE = 8, 9, 10
N_LOG = 5
# Bytes of a packet's header (GPGPU-Sim's READ_PACKET_SIZE and WRITE_PACKET_SIZE, shader.h): a read
# request is the header alone, a write or a response the header and its data (mem_fetch::size).
PACKET_HEADER = 8
# A 32-byte sector's byte mask (the L2's, state.l2_byte_mask) with every byte written.
FULL_CHUNK = (np.int64(1) << CHUNK_BYTES) - 1
# In an L1 or L2 sector mask (l1_sec, l2_sec): the way holds a line whose fill is pending (allocate on
# miss, _reserve); masks have at most 8 sectors. Added to such a line's replacement stamp, so that LRU
# and FIFO never choose it while an unreserved way is left.
RESERVED = np.int64(1) << 62
RESERVED_STAMP = np.int64(1) << 58
# In a sector mask: a resident line some of whose sectors are being fetched under allocate on miss
# (a sector miss): GPGPU-Sim's ``allocate_sector`` marks the sector RESERVED, and a line with any
# reserved sector is no victim (``is_reserved_line``). Its valid sectors still hit.
PENDING = np.int64(1) << 61
PROTECTED = RESERVED | PENDING
# A scheduler with at most this many warp slots finds its resident warps through a mask of them
# (sched_active, one int64 per scheduler); one with more scans its slots.
MASK_SLOTS = 62


def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


def _mask_bytes(sectors, sector_bytes, line_bytes):
    """Bytes of the ``sectors`` of a line: those sectors on a sectored cache, else the line."""
    if sector_bytes > 0:
        return _popcount(sectors) * sector_bytes
    return line_bytes


def _bytes_of(K, sec):
    """Bytes a request moves: its sectors' bytes on a sectored L1, else the line."""
    return _mask_bytes(sec, K[K_SECTOR_BYTES], K[K_LINE_BYTES])


def _segment_bytes(chunks, line_bytes):
    """Data bytes of a store to the 32-byte ``chunks`` of a line, sized as GPGPU-Sim's coalescer
    sizes a write (``memory_coalescing_arch_reduce_and_send``): in each 128-byte segment (the line,
    if shorter) with a chunk written, the aligned 32 or 64 bytes that hold its chunks, else the
    whole segment."""
    seg = min(line_bytes, 128) // 32  # chunks per segment: 1, 2 or 4
    total = np.int64(0)
    for s in range(line_bytes // 32 // seg):
        q = (chunks >> (s * seg)) & ((1 << seg) - 1)
        if q == 0:
            continue
        if seg == 4 and (q & 3) and (q & 12):
            total += 128
        else:
            half = q if seg < 4 else (q & 3) | (q >> 2)  # the used half's two chunks
            total += 64 if seg >= 2 and half == 3 else 32
    return total


def _l2_sectors(K, line, sec):
    """L2 sectors (a mask) that L1 line ``line``'s sectors ``sec`` cover; 1 on an L2 without sectors.

    The L1 line is part ``line mod 2^l2_shift`` of its L2 line; an L1 without sectors has one
    sector, the line.
    """
    s2 = K[K_L2_SECTOR_BYTES]
    if s2 == 0:
        return np.int64(1)
    s1 = K[K_SECTOR_BYTES] if K[K_SECTOR_BYTES] > 0 else K[K_LINE_BYTES]
    off = (line & ((np.int64(1) << K[K_L2_SHIFT]) - 1)) * K[K_LINE_BYTES]
    m = np.int64(0)
    i = np.int64(0)
    while sec >> i:
        if (sec >> i) & 1:
            lo = off + i * s1
            for j in range(lo // s2, (lo + s1 - 1) // s2 + 1):
                m |= np.int64(1) << j
        i += 1
    return m


def _l2_bytes(K, sectors):
    """Bytes an L2 fetch of ``sectors`` reads from below: those sectors, or the line without sectors."""
    return _mask_bytes(sectors, K[K_L2_SECTOR_BYTES], K[K_L2_LINE_BYTES])


def _flits(K, nbytes):
    """Flits of a packet carrying ``nbytes`` of data and the header, GPGPU-Sim's way (``mem_fetch::size``)."""
    return (nbytes + PACKET_HEADER + K[K_FLIT] - 1) // K[K_FLIT]


def _event(S, time, kind, payload):
    value = (np.int64(kind) << _EV_SHIFT) | payload
    done = event_push_near(S.ev_node, S.ev_bucket, S.ev_meta, time, value)
    if done < 0:
        event_push_far(S.ev_ovf, S.ev_meta, time, value)
    elif done == 0:
        S.sc[S_STATUS] = DEADLOCK
        S.sc[S_BLOCKED_KIND] = 6


def _pool_take(table, row, meta):
    """The index on top of a pool's free stack (row ``row`` of ``table``; the caller checked it is not
    empty), taken off it.

    ``meta`` holds the stack's size and the position below which it was never written: a stack of
    ``N`` starts as ``0 .. N - 1`` without being written (writing it touched every page of a pool
    sized for the worst case: 88 MB of waiters on the kim20 preset, zeroed by the kernel and
    written again each run), so a position below that mark still holds its own index.
    """
    n = meta[0] - 1
    meta[0] = n
    if n < meta[1]:
        return n
    return table[row, n]


def _pool_give(table, row, meta, x):
    """Put index ``x`` back on top of a pool's free stack (:func:`_pool_take`)."""
    n = meta[0]
    table[row, n] = x
    meta[0] = n + 1
    if n < meta[1]:
        meta[1] = n


def _new_request(S, kind, sm, line, sec, entry, flags, slot, row, a, part, ready):
    """A request from the pool (the caller checked one is free); returns its index.

    ``ready`` is the first cycle it may leave the SM's miss queue: the cycle after its lookup, plus
    ``l1.miss_latency`` for a request that looked the L1 up.
    """
    r = _pool_take(S.r, R_RQ_FREE, S.rq_meta)
    S.r[R_R_KIND, r] = kind
    S.r[R_R_SM, r] = sm
    S.r[R_R_LINE, r] = line
    S.r[R_R_SEC, r] = sec
    S.r[R_R_ENTRY, r] = entry
    S.r[R_R_FLAGS, r] = flags
    S.r[R_R_SLOT, r] = slot
    S.r[R_R_ROW, r] = row
    S.r[R_R_WARP, r] = a.warp
    S.r[R_R_CTA, r] = a.cta
    S.r[R_R_PC, r] = a.pc
    S.r[R_R_T, r] = a.t
    S.r[R_R_ISSUE, r] = S.sc[S_SENT]
    S.r[R_R_RESP, r] = 0
    S.r[R_R_NEXT, r] = -1
    S.r[R_R_PART, r] = part
    S.r[R_R_READY, r] = ready
    S.sc[S_INFLIGHT] += 1
    return r


def _latency(S, total, bins, cycles):
    """Count a latency of ``cycles``: its sum and count at counters ``total`` and ``total + 1``, and
    its bin of the histogram at ``bins`` (GPGPU-Sim's ``LOGB2``: floor of log2, 0 for 0)."""
    S.c[total] += cycles
    S.c[total + 1] += 1
    b = 0
    while cycles > 1 and b < LATENCY_LAST_BIN:
        cycles >>= 1
        b += 1
    S.c[bins + b] += 1


def _free_request(S, r):
    _pool_give(S.r, R_RQ_FREE, S.rq_meta, r)
    S.sc[S_INFLIGHT] -= 1


def _request_access(K, S, r, c, op, line):
    """The hook context of request ``r`` at a level (instance ``c``, ``line`` in that level's units)."""
    return Access(c, S.r[R_R_SM, r], S.r[R_R_WARP, r], S.r[R_R_CTA, r], K[K_KERNEL], S.r[R_R_PC, r], op,
                  S.r[R_R_SEC, r], line,
                  np.int64(-1), np.int64(-1), S.sc[S_CYCLE], np.int64(0), S.r[R_R_T, r])


def _partition(K, q, line2):
    """L2 sub-partition of an L2 line: its set's slice of the sets (``docs/timing.md``)."""
    s = level_set_index(q, line2)
    return s * K[K_N_PART] // K[K_L2_SETS]


def _gather_bits(x, mask):
    """The bits of ``x`` under ``mask``, packed from the lowest (GPGPU-Sim's ``addrdec_packbits``)."""
    out = np.int64(0)
    k = 0
    while mask:
        low = mask & -mask
        if x & low:
            out |= np.int64(1) << k
        k += 1
        mask ^= low
    return out


def _dram_place(K, part, line2):
    """``(channel, bank, row)`` of L2 line ``line2``, which partition ``part`` reads or writes.

    Without an address map the channel is the partition's and banks are interleaved by row over
    the line number; with one, GPGPU-Sim's decoder (:mod:`golden.configs.dram_address`).
    """
    if K[K_DRAM_CHIP_BIT] < 0:
        rl = K[K_ROW_LINES]
        return part * K[K_N_CH] // K[K_N_PART], (line2 // rl) % K[K_BANKS], line2 // (rl * K[K_BANKS])
    a = line2 * K[K_L2_LINE_BYTES]
    cb = K[K_DRAM_CHIP_BIT]
    hi = a >> cb
    g = hi // K[K_N_CH]
    rest = (g << cb) | (a & ((np.int64(1) << cb) - 1))
    return hi - g * K[K_N_CH], _gather_bits(rest, K[K_DRAM_BANK_MASK]), _gather_bits(rest, K[K_DRAM_ROW_MASK])


def _dram_access(K, S, start, ch, bank, row, nbytes, is_write):
    """An access of ``nbytes`` to ``row`` of ``bank`` in channel ``ch`` begins at cycle ``start``:
    the cycle its data is through.

    Banks keep their open row (open-page policy); a row hit costs tCL, a
    closed bank tRCD + tCL, a row conflict tRP + tRCD + tCL with the
    precharge no earlier than tRAS after the activation; the channel's data
    bus serialises the transfers, each a whole number of ``dram_atom_bytes``
    atoms. The channel's column commands keep GPGPU-Sim's spacing: ``t_ccd``
    apart, ``t_ccdl`` within a bank group, ``t_rtw`` from a read's to a
    write's and ``t_wtr`` from a write's to a read's. Times inside are ticks,
    ``DRAM_TICKS`` a core cycle, so that DRAM cycles in another clock keep
    their length (``docs/timing.md``, "DRAM").
    """
    i = ch * K[K_BANKS] + bank
    begin = max(start * DRAM_TICKS, S.bank[B_D_READY, i])
    if S.bank[B_D_OPEN, i] == row:
        cas = begin
        S.c[C_DRAM_ROW_HITS] += 1
    else:
        act = begin
        if S.bank[B_D_OPEN, i] >= 0:
            act = max(begin, S.bank[B_D_ACT, i] + K[K_T_RAS]) + K[K_T_RP]
        S.bank[B_D_ACT, i] = act
        S.bank[B_D_OPEN, i] = row
        cas = act + K[K_T_RCD]
    group = _dram_group(K, bank)
    if S.ch[H_D_DIR, ch] >= 0:
        if S.ch[H_D_DIR, ch] != is_write:
            gap = K[K_T_WTR] if S.ch[H_D_DIR, ch] else K[K_T_RTW]
        else:
            gap = K[K_T_CCD]
            if group == S.ch[H_D_GRP, ch]:
                gap = max(gap, K[K_T_CCDL])
        if gap > 0:
            cas = max(cas, S.ch[H_D_COL, ch] + gap)
    atom = K[K_DRAM_ATOM]
    if atom > 0:
        nbytes = (nbytes + atom - 1) // atom * atom
    burst = np.int64(0)
    if K[K_DRAM_BPC100] > 0:
        burst = (nbytes * 100 * DRAM_TICKS + K[K_DRAM_BPC100] - 1) // K[K_DRAM_BPC100]
    data = max(cas + K[K_T_CL], S.ch[H_D_BUS, ch])
    S.ch[H_D_BUS, ch] = data + burst
    # The request's last column command (its atoms' commands t_ccd apart, the data behind each).
    S.ch[H_D_COL, ch] = data - K[K_T_CL] + max(np.int64(0), burst - K[K_T_CCD])
    S.ch[H_D_DIR, ch] = is_write
    S.ch[H_D_GRP, ch] = group
    S.bank[B_D_READY, i] = cas + max(burst, DRAM_TICKS)
    S.c[C_DRAM_WRITES if is_write else C_DRAM_READS] += 1
    return (data + burst + DRAM_TICKS - 1) // DRAM_TICKS


def _dram_group(K, bank):
    """The bank group of ``bank`` (a channel's bank number): its high or low bits."""
    return (bank >> K[K_DRAM_GROUP_SHIFT]) & K[K_DRAM_GROUP_MASK]


def _dram(K, S, t, part, line2, nbytes, is_write, e):
    """Partition ``part`` sends DRAM an access of ``nbytes`` to L2 line ``line2`` at cycle ``t``;
    a read fills L2 MSHR ``e`` (an ``EV_L2_FILL``) when its data is back, a write passes ``e = -1``.

    ``fcfs``: timed now, in the order of arrival, ``dram_latency`` after the access.
    ``frfcfs``: after ``dram_latency`` the request joins its channel's queue
    (``_dram_arrive``), whose scheduler (``_dram_schedule``) takes it when its turn comes.
    """
    ch, bank, row = _dram_place(K, part, line2)
    if not K[K_DRAM_FRFCFS]:
        done = _dram_access(K, S, t, ch, bank, row, nbytes, is_write) + K[K_DRAM_LAT]
        if e >= 0:
            _event(S, done, EV_L2_FILL, e)
        return
    n = S.ch[H_DQ_NFREE, ch]
    if n == 0:  # cannot happen while _l2_serve keeps the reserve (state.config_vector): report it
        S.sc[S_STATUS] = DEADLOCK
        S.sc[S_BLOCKED_KIND] = 7
        S.sc[S_BLOCKED_WHERE] = ch
        return
    S.ch[H_DQ_NFREE, ch] = n - 1
    x = S.dq[DQ_FREE, ch * K[K_DQ_PER_CH] + n - 1]
    S.dq[DQ_BANK, x] = bank
    S.dq[DQ_ROW, x] = row
    S.dq[DQ_BYTES, x] = nbytes
    S.dq[DQ_WRITE, x] = is_write
    S.dq[DQ_ENTRY, x] = e
    _event(S, t + K[K_DRAM_LAT], EV_DRAM_ARRIVE, x)


def _list_append(nodes, nxt, prv, owners, head, tail, o, x):
    """Append entry ``x`` (rows ``nxt``, ``prv`` of ``nodes``) to the doubly linked list of owner ``o``
    (rows ``head``, ``tail`` of ``owners``)."""
    last = owners[tail, o]
    nodes[nxt, x] = -1
    nodes[prv, x] = last
    if last >= 0:
        nodes[nxt, last] = x
    else:
        owners[head, o] = x
    owners[tail, o] = x


def _list_remove(nodes, nxt, prv, owners, head, tail, o, x):
    """Take entry ``x`` out of owner ``o``'s doubly linked list (as :func:`_list_append`)."""
    before, after = nodes[prv, x], nodes[nxt, x]
    if before >= 0:
        nodes[nxt, before] = after
    else:
        owners[head, o] = after
    if after >= 0:
        nodes[prv, after] = before
    else:
        owners[tail, o] = before


def _dram_arrive(K, S, t, x):
    """DRAM request ``x`` joins the tail of its channel's queue and of its bank's; the scheduler runs."""
    ch = x // K[K_DQ_PER_CH]  # each channel's requests are its own slice of the pool
    _list_append(S.dq, DQ_NEXT, DQ_PREV, S.ch, H_DQ_HEAD, H_DQ_TAIL, ch, x)
    bank = ch * K[K_BANKS] + S.dq[DQ_BANK, x]
    _list_append(S.dq, DQ_BNEXT, DQ_BPREV, S.bank, B_DQ_HEAD, B_DQ_TAIL, bank, x)
    S.ch[H_DQ_N, ch] += 1
    S.dq[DQ_SEQ, x] = S.ch[H_DQ_SEQ, ch]
    S.ch[H_DQ_SEQ, ch] += 1
    if K[K_DRAM_QUEUE] == 0 or S.ch[H_DQ_N, ch] <= K[K_DRAM_QUEUE]:
        S.dq[DQ_WIN_T, x] = t  # in the window at once (else when the window reaches it: _dram_unlink)
    if S.ch[H_DQ_N, ch] == K[K_DRAM_QUEUE]:
        S.ch[H_DQ_BOUND, ch] = x  # the window is full from now: x holds its last place
    if not K[K_DRAM_COMMANDS]:
        _dram_schedule(K, S, t, ch)
    elif not S.ch[H_DC_TICKING, ch]:
        _dram_tick(K, S, t, ch)  # an idle channel wakes (a ticking one sees x at its next cycle)


def _bank_free(S, i):
    """The first core cycle at which DRAM bank ``i`` (of all channels) is free: its ready tick rounded up."""
    return (S.bank[B_D_READY, i] + DRAM_TICKS - 1) // DRAM_TICKS


def _dram_window_end(S, ch):
    """The arrival number of the last request in channel ``ch``'s scheduling window (its oldest
    ``dram_queue`` requests; all of them while it holds fewer, or ``dram_queue`` is 0)."""
    b = S.ch[H_DQ_BOUND, ch]
    return S.dq[DQ_SEQ, b] if b >= 0 else NEVER


def _dram_unlink(K, S, t, ch, x):
    """Take request ``x`` out of its channel's queue and its bank's at cycle ``t``, moving the
    window's last place on when ``x`` was inside the window, and free its entry."""
    _dram_dequeue(K, S, t, ch, x)
    _dram_free(K, S, ch, x)


def _dram_dequeue(K, S, t, ch, x):
    """Take request ``x`` out of its channel's queue and its bank's at cycle ``t`` (its entry kept),
    moving the window's last place on when ``x`` was inside the window."""
    b = S.ch[H_DQ_BOUND, ch]
    if b >= 0 and S.dq[DQ_SEQ, x] <= S.dq[DQ_SEQ, b]:
        n = S.dq[DQ_NEXT, b]
        S.ch[H_DQ_BOUND, ch] = n  # -1: the queue is now shorter than the window
        if n >= 0:
            S.dq[DQ_WIN_T, n] = t  # the request behind the window enters it
    _list_remove(S.dq, DQ_NEXT, DQ_PREV, S.ch, H_DQ_HEAD, H_DQ_TAIL, ch, x)
    bank = ch * K[K_BANKS] + S.dq[DQ_BANK, x]
    _list_remove(S.dq, DQ_BNEXT, DQ_BPREV, S.bank, B_DQ_HEAD, B_DQ_TAIL, bank, x)
    S.ch[H_DQ_N, ch] -= 1


def _dram_free(K, S, ch, x):
    """Give DRAM request entry ``x`` back to channel ``ch``'s part of the pool."""
    S.dq[DQ_FREE, ch * K[K_DQ_PER_CH] + S.ch[H_DQ_NFREE, ch]] = x
    S.ch[H_DQ_NFREE, ch] += 1


def _dram_walk_pick(K, S, t, ch, b):
    """Self-check: bank ``b``'s FR-FCFS pick by a walk of channel ``ch``'s window in queue order
    (the scheduler's rule, stated directly), or -1."""
    w = K[K_DRAM_QUEUE] if K[K_DRAM_QUEUE] > 0 else S.ch[H_DQ_N, ch]
    i = ch * K[K_BANKS] + b
    if S.bank[B_D_READY, i] > t * DRAM_TICKS:
        return -1
    pick = -1
    x = S.ch[H_DQ_HEAD, ch]
    seen = 0
    while x >= 0 and seen < w:
        if S.dq[DQ_BANK, x] == b:
            if pick < 0:
                pick = x
            elif S.dq[DQ_ROW, x] == S.bank[B_D_OPEN, i] and S.dq[DQ_ROW, pick] != S.bank[B_D_OPEN, i]:
                pick = x
        x = S.dq[DQ_NEXT, x]
        seen += 1
    return pick


def _dram_walk_wake(K, S, t, ch):
    """Self-check: channel ``ch``'s next wake-up by a walk of its window: the first cycle after
    ``t`` a bank one of its requests waits for is free (``NEVER`` for an empty queue)."""
    w = K[K_DRAM_QUEUE] if K[K_DRAM_QUEUE] > 0 else S.ch[H_DQ_N, ch]
    wake = NEVER
    x = S.ch[H_DQ_HEAD, ch]
    seen = 0
    while x >= 0 and seen < w:
        wake = min(wake, max(_bank_free(S, ch * K[K_BANKS] + S.dq[DQ_BANK, x]), t + 1))
        x = S.dq[DQ_NEXT, x]
        seen += 1
    return wake


def _dram_pick(S, i, x, last):
    """FR-FCFS's pick for bank ``i`` (of all channels), whose oldest request ``x`` is in the window
    (arrival numbers up to ``last``): the oldest to its open row, else ``x``."""
    if S.dq[DQ_ROW, x] != S.bank[B_D_OPEN, i]:
        y = S.dq[DQ_BNEXT, x]
        while y >= 0 and S.dq[DQ_SEQ, y] <= last:
            if S.dq[DQ_ROW, y] == S.bank[B_D_OPEN, i]:
                S.c[C_DRAM_REORDERED] += 1
                return y  # a row hit goes before the older request
            y = S.dq[DQ_BNEXT, y]
    return x


def _dc_core(K, n):
    """The core cycle of DRAM cycle ``n`` (``dram_model = "commands"``)."""
    return n * K[K_DC_NUM] // K[K_DC_DEN]


def _dram_tick(K, S, t, ch):
    """``dram_model = "commands"``: channel ``ch`` runs its DRAM cycles that fall in core cycle ``t``
    (:func:`_dram_cycle`), and asks for a wake-up at its next one while it has work (requests in
    its queue or held by its banks); an idle channel's counters need no cycles run."""
    S.ch[H_DC_TICKING, ch] = 0
    n = max(S.ch[H_DC_NEXT, ch], (t * K[K_DC_DEN] + K[K_DC_NUM] - 1) // K[K_DC_NUM])
    while _dc_core(K, n) == t:
        _dram_cycle(K, S, t, ch, n)
        n += 1
    S.ch[H_DC_NEXT, ch] = n
    if S.ch[H_DQ_N, ch] > 0 or S.ch[H_DC_NMRQ, ch] > 0:
        S.ch[H_DC_TICKING, ch] = 1
        _event(S, _dc_core(K, n), EV_DRAM_WAKE, ch)


def _dram_cycle(K, S, t, ch, n):
    """DRAM cycle ``n`` of channel ``ch`` (in core cycle ``t``), as GPGPU-Sim's ``dram_t::cycle``.

    The scheduler (``scheduler_frfcfs``) gives FR-FCFS's pick to the first bank without a request,
    from the rotating priority, which then moves on by one; then the banks, from the priority,
    each issue the column command of their request if no counter holds it (the first one found
    goes; ``issue_col_command``) or else a row command (``issue_row_command``, only while no
    command of either kind has gone this cycle: an activation or a precharge moves the priority to
    the bank after it). The counters are the DRAM cycles from which each is clear.
    """
    nb = K[K_BANKS]
    base = ch * nb
    if S.ch[H_DQ_N, ch] > 0 and S.ch[H_DC_NMRQ, ch] < nb:  # a request waits and a bank is free
        last = _dram_window_end(S, ch)
        for k in range(nb):
            b = (k + S.ch[H_DC_PRIO, ch]) % nb
            i = base + b
            x = S.bank[B_DQ_HEAD, i]
            if S.bank[B_DC_MRQ, i] >= 0 or x < 0 or S.dq[DQ_SEQ, x] > last:
                continue
            x = _dram_pick(S, i, x, last)
            if K[K_SELF_CHECK] and x != _dram_walk_pick(K, S, t, ch, b):
                S.c[C_SELF_CHECK_FAILS] += 1
            S.ch[H_DC_PRIO, ch] = (S.ch[H_DC_PRIO, ch] + 1) % nb
            _latency(S, C_DRAM_WAIT, C_DRAM_WAIT_BINS, t - S.dq[DQ_WIN_T, x])
            if S.bank[B_DC_ACTIVE, i] and S.bank[B_D_OPEN, i] == S.dq[DQ_ROW, x]:
                S.c[C_DRAM_ROW_HITS] += 1
            S.c[C_DRAM_WRITES if S.dq[DQ_WRITE, x] else C_DRAM_READS] += 1
            _dram_dequeue(K, S, t, ch, x)
            S.bank[B_DC_MRQ, i] = x
            S.bank[B_DC_TX, i] = 0
            S.ch[H_DC_NMRQ, ch] += 1
            break
    if S.ch[H_DC_NMRQ, ch] == 0:
        return  # no bank holds a request: no command can go
    col = False
    row = False
    for k in range(nb):
        j = (k + S.ch[H_DC_PRIO, ch]) % nb  # the priority a row command moved applies at once
        if not col:
            col = _dram_column(K, S, ch, j, n)
        if not col and not row:
            row = _dram_row(K, S, ch, j, n)


def _dram_column(K, S, ch, j, n):
    """Bank ``j`` of channel ``ch`` issues its request's next column command at DRAM cycle ``n`` if
    nothing holds it (GPGPU-Sim's ``issue_col_command``); True if it did.

    A command moves one ``dram_atom_bytes`` atom; its data leaves the column pipeline ``CL`` (a
    read) or ``WL`` (a write) cycles later, in command order, one a cycle (``rwq``). A read's L2
    fill is due the core cycle after its last atom's. The bank is free for the scheduler once its
    request's last command has gone.
    """
    nb = K[K_BANKS]
    i = ch * nb + j
    x = S.bank[B_DC_MRQ, i]
    if x < 0 or not S.bank[B_DC_ACTIVE, i] or S.bank[B_D_OPEN, i] != S.dq[DQ_ROW, x]:
        return False
    g = ch * nb + _dram_group(K, j)
    if n < S.ch[H_DC_CCD, ch] or n < S.bank[B_DC_CCDL, g]:
        return False
    if S.dq[DQ_WRITE, x]:
        if n < S.bank[B_DC_RCDWR, i] or n < S.ch[H_DC_RTW, ch]:
            return False
        out = max(n + K[K_DC_WL], S.ch[H_DC_OUT, ch] + 1)
        S.ch[H_DC_WTR, ch] = n + K[K_DC_WTR]
        S.bank[B_DC_WTP, i] = n + K[K_DC_WTP]
    else:
        if n < S.bank[B_DC_RCD, i] or n < S.ch[H_DC_WTR, ch]:
            return False
        out = max(n + K[K_DC_CL], S.ch[H_DC_OUT, ch] + 1)
        S.ch[H_DC_RTW, ch] = n + K[K_DC_RTW]
        S.bank[B_DC_RTP, i] = n + K[K_DC_RTP]
        S.bank[B_DC_RTPL, g] = n + K[K_DC_RTPL]
    S.ch[H_DC_OUT, ch] = out
    S.ch[H_DC_CCD, ch] = n + K[K_DC_CCD]
    S.bank[B_DC_CCDL, g] = n + K[K_DC_CCDL]
    S.bank[B_DC_TX, i] += K[K_DRAM_ATOM]
    if S.bank[B_DC_TX, i] >= S.dq[DQ_BYTES, x]:
        S.bank[B_DC_MRQ, i] = -1
        S.ch[H_DC_NMRQ, ch] -= 1
        if S.dq[DQ_ENTRY, x] >= 0:
            _event(S, _dc_core(K, out) + 1, EV_L2_FILL, S.dq[DQ_ENTRY, x])
        _dram_free(K, S, ch, x)
    return True


def _dram_row(K, S, ch, j, n):
    """Bank ``j`` of channel ``ch`` activates its request's row, or precharges another, at DRAM cycle
    ``n`` if nothing holds it (GPGPU-Sim's ``issue_row_command``); True if it did."""
    nb = K[K_BANKS]
    i = ch * nb + j
    x = S.bank[B_DC_MRQ, i]
    if x < 0:
        return False
    if not S.bank[B_DC_ACTIVE, i]:
        if n < S.ch[H_DC_RRD, ch] or n < S.bank[B_DC_RP, i] or n < S.bank[B_DC_RC, i]:
            return False
        S.bank[B_D_OPEN, i] = S.dq[DQ_ROW, x]
        S.bank[B_DC_ACTIVE, i] = 1
        S.ch[H_DC_RRD, ch] = n + K[K_DC_RRD]
        S.bank[B_DC_RCD, i] = n + K[K_DC_RCD]
        S.bank[B_DC_RCDWR, i] = n + K[K_DC_RCDWR]
        S.bank[B_DC_RAS, i] = n + K[K_DC_RAS]
        S.bank[B_DC_RC, i] = n + K[K_DC_RC]
        S.c[C_DRAM_ACTS] += 1
    elif S.bank[B_D_OPEN, i] != S.dq[DQ_ROW, x]:
        g = ch * nb + _dram_group(K, j)
        if n < S.bank[B_DC_RAS, i] or n < S.bank[B_DC_WTP, i] or n < S.bank[B_DC_RTP, i] \
                or n < S.bank[B_DC_RTPL, g]:
            return False
        S.bank[B_DC_ACTIVE, i] = 0
        S.bank[B_DC_RP, i] = n + K[K_DC_RP]
        S.c[C_DRAM_PRES] += 1
    else:
        return False
    S.ch[H_DC_PRIO, ch] = (j + 1) % nb
    return True


def _dram_schedule(K, S, t, ch):
    """FR-FCFS on channel ``ch`` at cycle ``t`` (GPGPU-Sim's ``frfcfs_scheduler``).

    Among the oldest ``dram_queue`` requests, every bank free at ``t`` takes the
    oldest to its open row, or the oldest to it when none is; they are served
    in queue order (the data bus takes them so). The channel wakes again when
    a bank one of its first ``dram_queue`` requests waits for is free.

    Each bank keeps its own requests oldest first, so a call looks at the banks
    and at most the requests of a free bank ahead of its first row hit, not at
    the whole window: the same choices as a walk of the window in queue order.
    """
    nb = K[K_BANKS]
    base = ch * nb
    last = _dram_window_end(S, ch)
    picks = 0
    one = -1  # the bank of the only pick
    wake = NEVER  # the first cycle after t a bank with a request in the window is free
    for b in range(nb):
        i = base + b
        x = S.bank[B_DQ_HEAD, i]
        if x < 0 or S.dq[DQ_SEQ, x] > last:
            continue
        if S.bank[B_D_READY, i] > t * DRAM_TICKS:
            wake = min(wake, _bank_free(S, i))
            continue
        S.bank[B_D_PICK, i] = _dram_pick(S, i, x, last)
        picks += 1
        one = b
    if K[K_SELF_CHECK]:
        for b in range(nb):
            if _dram_walk_pick(K, S, t, ch, b) != S.bank[B_D_PICK, base + b]:
                S.c[C_SELF_CHECK_FAILS] += 1
    served = picks
    while picks > 0:
        # The picks in queue order: the oldest first.
        first = one
        if served > 1:
            first = -1
            for b in range(nb):
                x = S.bank[B_D_PICK, base + b]
                if x >= 0 and (first < 0 or S.dq[DQ_SEQ, x] < S.dq[DQ_SEQ, S.bank[B_D_PICK, base + first]]):
                    first = b
        x = S.bank[B_D_PICK, base + first]
        S.bank[B_D_PICK, base + first] = -1
        picks -= 1
        _latency(S, C_DRAM_WAIT, C_DRAM_WAIT_BINS, t - S.dq[DQ_WIN_T, x])
        done = _dram_access(K, S, t, ch, S.dq[DQ_BANK, x], S.dq[DQ_ROW, x], S.dq[DQ_BYTES, x],
                            S.dq[DQ_WRITE, x] != 0)
        if S.dq[DQ_ENTRY, x] >= 0:
            _event(S, done, EV_L2_FILL, S.dq[DQ_ENTRY, x])
        _dram_unlink(K, S, t, ch, x)
    if served:
        # The window has moved on: the banks with a request in it now, and when they are free.
        last = _dram_window_end(S, ch)
        wake = NEVER
        for b in range(nb):
            x = S.bank[B_DQ_HEAD, base + b]
            if x >= 0 and S.dq[DQ_SEQ, x] <= last:
                wake = min(wake, max(_bank_free(S, base + b), t + 1))
    if K[K_SELF_CHECK] and wake != _dram_walk_wake(K, S, t, ch):
        S.c[C_SELF_CHECK_FAILS] += 1
    if wake < NEVER and (S.ch[H_DQ_WAKE, ch] <= t or wake < S.ch[H_DQ_WAKE, ch]):
        S.ch[H_DQ_WAKE, ch] = wake
        _event(S, wake, EV_DRAM_WAKE, ch)


def _part_append(S, part, head, tail, n, r):
    """Append request ``r`` to one of sub-partition ``part``'s queues (its rows ``head``, ``tail``
    and ``n``: the L2's arrivals, or the responses behind the input's head), linked through ``r_next``."""
    S.r[R_R_NEXT, r] = -1
    if S.part[n, part] == 0:
        S.part[head, part] = r
    else:
        S.r[R_R_NEXT, S.part[tail, part]] = r
    S.part[tail, part] = r
    S.part[n, part] += 1


def _depart(K, S, part, ready, flits):
    """Cycle a response of ``flits`` flits ready at ``ready`` leaves ``part`` (a flit a cycle)."""
    depart = max(ready, S.part[P_P_RSP_FREE, part])
    # A crossbar input idles icnt_packet_gap cycles after each packet too (measured on Accel-Sim:
    # docs/validation.md, "The crossbar's inputs idle too").
    S.part[P_P_RSP_FREE, part] = depart + flits + K[K_ICNT_GAP]
    return depart


def _response_flits(K, S, r):
    """Flits of request ``r``'s response: the header and the data; a write's acknowledgement
    (``store_acks``) the header, one per L2 sector it writes (GPGPU-Sim acknowledges each of the
    sector requests its sectored L2 breaks a request into; an L2 without sectors has one)."""
    if S.r[R_R_KIND, r] == RQ_WRITE:
        return _flits(K, 0) * _popcount(_l2_sectors(K, S.r[R_R_LINE, r], S.r[R_R_SEC, r]))
    return _flits(K, _bytes_of(K, S.r[R_R_SEC, r]))


def _store_done(K, S, r, part, ready):
    """Store request ``r`` is done at the L2: freed, or (``store_acks``) acknowledged at ``ready``."""
    if K[K_STORE_ACKS]:
        _respond_to_sm(K, S, r, part, ready)
    else:
        _free_request(S, r)


def _respond_to_sm(K, S, r, part, ready):
    """Send request ``r``'s response from ``part`` at cycle ``ready``; schedules its arrival.

    With ``icnt_input_queues = "single"`` a sub-partition offers one response at a time to the
    SM outputs: while one is on its way or waits for its output, the next ones wait behind it
    (the ``h_`` queue, linked through ``r_next``, their ready cycles in ``r_ready``, which
    nothing else uses while a response travels) until :func:`_port_serve` takes it. Once the
    response leaves, ``r_ready`` holds its departure (the start of its ``to_sm`` latency). With
    ``icnt_response_buffer`` the queue's first responses are in the crossbar's input, as many as
    its flits hold, the others in the L2-to-icnt queue (``x_`` rows); ``r_ready`` then holds
    the cycle a response entered the crossbar (GPGPU-Sim's ``icnt_push``, where ``to_sm``
    starts), and it leaves for its SM's output no sooner.
    """
    flits = _response_flits(K, S, r)
    if K[K_IN_FIFO]:
        if S.part[P_H_BUSY, part] or S.part[P_H_N, part] > 0:
            S.r[R_R_READY, r] = ready
            _part_append(S, part, P_H_HEAD, P_H_TAIL, P_H_N, r)
            if K[K_RSP_BUF]:
                if S.part[P_X_NEXT, part] < 0 and _input_takes(K, S, part, flits):
                    S.part[P_X_FLITS, part] += flits  # into the crossbar's input when ready
                else:
                    if S.part[P_X_NEXT, part] < 0:
                        S.part[P_X_NEXT, part] = r
                    S.part[P_X_WAIT, part] += 1
            return
        S.part[P_H_BUSY, part] = 1
        S.part[P_X_FLITS, part] += flits  # an empty input takes it whatever its size
    depart = _depart(K, S, part, ready, flits)
    # The response's way back to the SM starts (latency to_sm): in the crossbar's input, or leaving.
    S.r[R_R_READY, r] = ready if K[K_RSP_BUF] else depart
    if K[K_RSP_RR]:
        # The SM's output chooses among the sub-partitions itself (_port_serve).
        _event(S, depart + K[K_ICNT_LAT], EV_PORT_ARRIVE, r)
        return
    arrive = max(depart + K[K_ICNT_LAT], S.sm[M_SM_RSP_FREE, S.r[R_R_SM, r]])
    # A crossbar output (here: towards the SM) idles icnt_packet_gap cycles after each packet.
    S.sm[M_SM_RSP_FREE, S.r[R_R_SM, r]] = arrive + flits + K[K_ICNT_GAP]
    _event(S, arrive + flits, EV_L1_FILL, r)


def _port_arrive(K, S, t, r):
    """Response ``r`` reaches its SM's crossbar output at ``t`` (``icnt_response_order`` round-robin).

    It waits in the output's queue for its sub-partition (``port`` table, linked through
    ``r_next``, which nothing else uses while a response travels); a free output serves it now.
    """
    sm = S.r[R_R_SM, r]
    q = sm * K[K_N_PART] + S.r[R_R_PART, r]
    S.r[R_R_NEXT, r] = -1
    if S.port[PT_HEAD, q] < 0:
        S.port[PT_HEAD, q] = r
    else:
        S.r[R_R_NEXT, S.port[PT_TAIL, q]] = r
    S.port[PT_TAIL, q] = r
    S.sm[M_RSP_N, sm] += 1
    # While responses wait, one EV_PORT_FREE is due when the output is next free (at most this
    # cycle): the first to wait serves itself or asks for it.
    if S.sm[M_RSP_N, sm] == 1:
        if S.sm[M_SM_RSP_FREE, sm] <= t:
            _port_serve(K, S, t, sm)
        else:
            _event(S, S.sm[M_SM_RSP_FREE, sm], EV_PORT_FREE, sm)


def _port_serve(K, S, t, sm):
    """The free crossbar output towards ``sm`` takes the next waiting response at ``t``.

    Round robin over the sub-partitions, from the one after the sub-partition served last (the
    output arbiter of GPGPU-Sim's iSLIP crossbar): a sub-partition's responses leave in the
    order it sent them, the sub-partitions take turns. The output idles icnt_packet_gap cycles
    after each packet, as in the FIFO rule.
    """
    n_part = K[K_N_PART]
    for k in range(1, n_part + 1):
        part = (S.sm[M_RSP_LAST, sm] + k) % n_part
        q = sm * n_part + part
        r = S.port[PT_HEAD, q]
        if r >= 0:
            S.port[PT_HEAD, q] = S.r[R_R_NEXT, r]
            S.sm[M_RSP_N, sm] -= 1
            S.sm[M_RSP_LAST, sm] = part
            flits = _response_flits(K, S, r)
            S.sm[M_SM_RSP_FREE, sm] = t + flits + K[K_ICNT_GAP]
            _event(S, t + flits, EV_L1_FILL, r)
            if K[K_IN_FIFO]:
                _next_from_input(K, S, t + flits, part, flits)
            if S.sm[M_RSP_N, sm] > 0:
                _event(S, S.sm[M_SM_RSP_FREE, sm], EV_PORT_FREE, sm)
            return


def _next_from_input(K, S, t, part, gone):
    """``icnt_input_queues = "single"``: ``part``'s response at its SM output has left the input by
    cycle ``t`` (its last flit; ``gone`` flits); the next one waiting behind it, if any, comes up
    to its output, no sooner than its own trip through the crossbar would bring it. With
    ``icnt_response_buffer``, responses from the L2-to-icnt queue enter the crossbar's input
    while they fit (an empty input takes the next whatever its size)."""
    S.part[P_H_BUSY, part] = 0
    S.part[P_X_FLITS, part] -= gone
    if S.part[P_H_N, part] == 0:
        return
    r = S.part[P_H_HEAD, part]
    S.part[P_H_HEAD, part] = S.r[R_R_NEXT, r]
    S.part[P_H_N, part] -= 1
    S.part[P_H_BUSY, part] = 1
    if K[K_RSP_BUF]:
        # The L2-to-icnt queue's first responses enter while they fit (r itself, if it is still
        # there, enters the input now empty).
        x = S.part[P_X_NEXT, part]
        while x >= 0 and _input_takes(K, S, part, _response_flits(K, S, x)):
            S.part[P_X_NEXT, part] = S.r[R_R_NEXT, x]
            S.part[P_X_WAIT, part] -= 1
            S.part[P_X_FLITS, part] += _response_flits(K, S, x)
            S.r[R_R_READY, x] = max(S.r[R_R_READY, x], t)  # its to_sm starts now, or when ready
            x = S.part[P_X_NEXT, part]
    depart = _depart(K, S, part, S.r[R_R_READY, r], _response_flits(K, S, r))
    if not K[K_RSP_BUF]:
        S.r[R_R_READY, r] = depart
    _event(S, max(depart + K[K_ICNT_LAT], t), EV_PORT_ARRIVE, r)


def _input_takes(K, S, part, flits):
    """``part``'s crossbar input has room for a response of ``flits`` (an empty one takes any)."""
    return S.part[P_X_FLITS, part] == 0 or S.part[P_X_FLITS, part] + flits <= K[K_RSP_BUF]


# -- L2 sub-partitions -------------------------------------------------------------------


def _below_l2(buf, K, S, h1, h2, h3, t, part, line2, nbytes, b, flags, e):
    """Fetch an L2 line for MSHR ``e`` from the L3 (functional, fixed latency) or DRAM; its
    ``EV_L2_FILL`` comes when the data is back."""
    if K[K_HAS_L3]:
        q3 = _params(buf, 2 * NP)
        served, _ = _access(buf, q3, h1, h2, h3, 2, at_level(b, np.int64(0), np.int64(LOAD), line2,
                                                               np.int64(-1), np.int64(-1)), flags)
        if served != MEMORY:
            _event(S, t + K[K_L3_LAT], EV_L2_FILL, e)
        else:
            _dram(K, S, t + K[K_L3_LAT], part, line2, nbytes, False, e)
    else:
        _dram(K, S, t, part, line2, nbytes, False, e)


def _write_below_l2(buf, K, S, h1, h2, h3, t, part, line2, b):
    """A dirty L2 line leaves: written to the L3 (functional) or to DRAM."""
    if K[K_HAS_L3]:
        q3 = _params(buf, 2 * NP)
        _access(buf, q3, h1, h2, h3, 2, at_level(b, np.int64(0), np.int64(STORE), line2, np.int64(-1),
                                                 np.int64(-1)), np.int64(0))
    else:
        _dram(K, S, t, part, line2, K[K_L2_LINE_BYTES], True, np.int64(-1))


def _l2_install(buf, K, S, h1, h2, h3, t, part, b, dirty, sectors):
    """Install ``b.line`` in the L2 with valid ``sectors`` (victim, write-back of a dirty victim).

    Returns the context.
    """
    q = _params(buf, NP)
    s, sid, base, way = _find(buf, q, 0, b.line)
    b = at_level(b, np.int64(0), b.op, b.line, s, way)
    if way >= 0:  # already resident: the sectors join the line
        if dirty:
            _at(buf, q[O_DIRTY])[base + way] = 1
        S.l2_sec[base + way] |= sectors
        return b
    v, wb = _take_way(buf, q, h1, h2, h3, 1, b, sid, base, S.l2_sec)
    if wb >= 0:
        _write_below_l2(buf, K, S, h1, h2, h3, t, part, wb, b)
    S.l2_sec[base + v] = sectors
    _l2_new_line(K, S, base + v)
    return _put(buf, q, h1, h2, h3, 1, b, sid, base, v, dirty)


def _l2_new_line(K, S, slot):
    """A line takes L2 way ``slot`` (set base + way): nothing of it is written yet (GPGPU-Sim's
    ``allocate_line`` clears the byte mask)."""
    if K[K_L2_BYTE_MASK]:
        S.l2_unread[slot] = 0
        spl = K[K_L2_LINE_BYTES] // CHUNK_BYTES
        for j in range(spl):
            S.l2_wbytes[slot * spl + j] = 0


def _chunk_offset(K, line):
    """The first 32-byte sector of L1 line ``line`` in its L2 line (the L1 line is part
    ``line mod 2^l2_shift`` of it)."""
    return (line & ((np.int64(1) << K[K_L2_SHIFT]) - 1)) * (K[K_LINE_BYTES] // CHUNK_BYTES)


def _store_sectors(K, S, r):
    """L2 sectors store ``r`` writes a byte of (under the L2's byte mask)."""
    cpl = K[K_LINE_BYTES] // CHUNK_BYTES
    off = _chunk_offset(K, S.r[R_R_LINE, r])
    m = np.int64(0)
    for j in range(cpl):
        if S.r_wbytes[r * cpl + j]:
            m |= np.int64(1) << (off + j)
    return m


def _l2_write_bytes(K, S, r, slot):
    """Add store ``r``'s bytes to the byte mask of L2 way ``slot``; returns the sectors it wrote
    whose every byte is now written (GPGPU-Sim's ``update_m_readable``: such a sector is readable)."""
    cpl = K[K_LINE_BYTES] // CHUNK_BYTES
    spl = K[K_L2_LINE_BYTES] // CHUNK_BYTES
    off = _chunk_offset(K, S.r[R_R_LINE, r])
    full = np.int64(0)
    for j in range(cpl):
        b = S.r_wbytes[r * cpl + j]
        if b:
            x = slot * spl + off + j
            S.l2_wbytes[x] |= b
            if S.l2_wbytes[x] == FULL_CHUNK:
                full |= np.int64(1) << (off + j)
    return full


def _read_unreadable(S, slot, sectors):
    """A read fetches ``sectors`` of L2 way ``slot``: those written in part are not valid until the
    fill (GPGPU-Sim's ``allocate_sector``: later requests merge with the read), readable after it.
    (A reserved way's mask holds no sector bits: only the unreadable ones change.)"""
    S.l2_sec[slot] &= ~(sectors & S.l2_unread[slot])
    S.l2_unread[slot] &= ~sectors


def _all_reserved(p, sec, base):
    """Every way of the set at ``base`` waits for a fill (``sec``: the level's sector masks)."""
    for w in range(p[P_WAYS]):
        if not sec[base + w] & PROTECTED:
            return False
    return True


def _take_way(buf, p, h1, h2, h3, L, a, sid, base, sec):
    """The way a new line takes in the set at ``base``, its line evicted: ``(way, line to write back or -1)``.

    As the engine's ``_victimize`` (the replacement policy's choice, then the
    ``victim`` hook), but never a reserved way, which the caller made sure is
    not every way (:func:`_all_reserved`): LRU and FIFO never choose one (its
    stamp is raised by ``RESERVED_STAMP``); another policy's choice, or a
    hook's, that is reserved gives way to the least recently stamped way that
    is not (the hook's only if the policy's was reserved).
    """
    stamp = _at(buf, p[O_STAMP])
    v = choose_victim(p[P_REPL], _at(buf, p[O_TAG]), stamp, _at(buf, p[O_FREQ]), _at(buf, p[O_TREE]),
                      _at_u64(buf, p[O_RNG]), a.c, sid, base, p[P_WAYS])
    if sec[base + v] & PROTECTED:
        v = np.int64(-1)
        for w in range(p[P_WAYS]):
            if not sec[base + w] & PROTECTED and (v < 0 or stamp[base + w] < stamp[base + v]):
                v = np.int64(w)
    w = _victim(h1, h2, h3, L, a, v)
    if not sec[base + w] & PROTECTED:
        v = w
    return v, _evict_way(buf, p, h1, h2, h3, L, a, base, v)


def _reserve(buf, p, h1, h2, h3, L, a, sid, base, sec):
    """Allocate on miss: the victim leaves now and its way holds ``a.line`` until the fill.

    GPGPU-Sim's reserved line (``tag_array::access``): no lookup hits it (a
    request for it merges into its MSHR), no other miss may take its way, and
    its replacement stamp is the miss's (``allocate`` sets the last access
    time; the fill does not). Returns ``(way, line to write back or -1)``.
    """
    v, wb = _take_way(buf, p, h1, h2, h3, L, a, sid, base, sec)
    _at(buf, p[O_TAG])[base + v] = a.line
    _at(buf, p[O_DIRTY])[base + v] = 0
    stamp = _at(buf, p[O_STAMP])
    insert(p[P_REPL], stamp, _at(buf, p[O_FREQ]), _at(buf, p[O_TREE]), _at(buf, p[O_CLOCK]), sid, base, v,
           p[P_WAYS])
    stamp[base + v] += RESERVED_STAMP
    sec[base + v] = RESERVED
    return v, wb


def _fill_reserved(buf, p, h1, h2, h3, L, a, sid, base, way, dirty, sec, sectors):
    """The line reserved in ``way`` arrived: valid with ``sectors`` (fill counter, ``on_fill``); the
    context with ``a.way``. Its replacement stamp stays the miss's."""
    stamp = _at(buf, p[O_STAMP])
    st = stamp[base + way] - RESERVED_STAMP
    a = _put(buf, p, h1, h2, h3, L, a, sid, base, way, dirty)
    stamp[base + way] = st
    sec[base + way] = sectors
    return a


def _stamp_found(buf, p, sid, base, way, sec):
    """A lookup found its line's tag in ``way`` without hitting (it merges with the line's fill, or
    misses a sector): the line becomes the most recently used, as GPGPU-Sim's
    ``set_last_access_time`` (``HIT_RESERVED``) and ``allocate_sector`` (``SECTOR_MISS``) make it
    under allocate on miss. A reserved line keeps its stamp's raise. No hook."""
    stamp = _at(buf, p[O_STAMP])
    st = stamp[base + way]
    touch(p[P_REPL], stamp, _at(buf, p[O_FREQ]), _at(buf, p[O_TREE]), _at(buf, p[O_CLOCK]), sid, base, way,
          p[P_WAYS])
    if sec[base + way] & RESERVED and stamp[base + way] != st:
        stamp[base + way] += RESERVED_STAMP


def _found(buf, p, on_fill, sid, base, way, rway, sec, fetches):
    """A lookup found its line resident in ``way`` or reserved in ``rway`` (-1: not found) and did
    not hit it. Under allocate on miss the line is stamped (:func:`_stamp_found`), and a resident
    line that ``fetches`` sectors (a mask, 0 for none) is no victim until they are back
    (:data:`PENDING`, GPGPU-Sim's ``allocate_sector``); under allocate on fill nothing changes
    (GPGPU-Sim allocates the sector at its fill)."""
    if on_fill or (way < 0 and rway < 0):
        return
    _stamp_found(buf, p, sid, base, way if way >= 0 else rway, sec)
    if way >= 0 and fetches:
        sec[base + way] |= PENDING


def _sector_pending(per_sector, keys, vals, off, size, line, sectors, sec, slot):
    """After a fill of ``line`` (resident in ``slot``) under allocate on miss: the line stays no
    victim while another of its MSHR entries still fetches a sector (:data:`PENDING`). With an
    entry per line the filled entry was the line's only one."""
    if per_sector and _mshr_line_entry(per_sector, keys, vals, off, size, line, sectors) >= 0:
        sec[slot] |= PENDING
    else:
        sec[slot] &= ~PENDING


def _clear_way(buf, p, base, way):
    """Empty ``way`` of the set at ``base`` without any hook (its line left by other means)."""
    _at(buf, p[O_TAG])[base + way] = -1
    _at(buf, p[O_DIRTY])[base + way] = 0
    invalidate(_at(buf, p[O_STAMP]), _at(buf, p[O_FREQ]), base, way)


#: Keys per line in an MSHR map with entries per sector: a line has at most 8 sectors (schema).
MSHR_SECTOR_KEYS = 8


def _mshr_key(per_sector, line, sec):
    """An MSHR map's key of a request for sectors ``sec`` of ``line``: the line, or with MSHRs per
    sector (``mshr_key = "sector"``) its first sector of ``sec`` (GPGPU-Sim's ``mshr_addr``)."""
    if not per_sector:
        return line
    k = np.int64(0)
    while k < MSHR_SECTOR_KEYS - 1 and not (sec >> k) & 1:
        k += 1
    return line * MSHR_SECTOR_KEYS + k


def _mshr_line_entry(per_sector, keys, vals, off, size, line, sectors):
    """An entry of ``line`` in the MSHR map at ``keys[off:off + size]``, or -1: its entry, or with
    MSHRs per sector the first found of its ``sectors`` sectors' entries."""
    if not per_sector:
        return map_find(keys, vals, off, size, line)
    for k in range(sectors):
        e = map_find(keys, vals, off, size, line * MSHR_SECTOR_KEYS + k)
        if e >= 0:
            return e
    return np.int64(-1)


def _l2_output_full(K, S, part):
    """``part``'s L2-to-icnt queue is full (``l2_response_queue``): the L2 looks up nothing."""
    return K[K_L2_OUT_CAP] > 0 and S.part[P_X_WAIT, part] >= K[K_L2_OUT_CAP]


def _l2_serve(buf, K, S, h1, h2, h3, t, part, r):
    """Serve request ``r`` at L2 sub-partition ``part``; False when it must wait (MSHRs full).

    On a sectored L2 (``l2.sector_size``) a line keeps a mask of valid sectors: a read or atomic
    whose sectors are not all valid on a resident line is a sector miss, which reads the missing
    sectors from below and calls no hook; a store makes its sectors valid without fetching.
    Under the byte mask (``state.l2_byte_mask``) a sector a store writes in part is valid but
    unreadable (``l2_unread``) until its bytes are all written or a read fetches it
    (``docs/timing.md``, "The L2's byte mask").
    """
    q = _params(buf, NP)
    kind = S.r[R_R_KIND, r]
    line2 = S.r[R_R_LINE, r] >> K[K_L2_SHIFT]
    bmask = K[K_L2_BYTE_MASK] != 0
    # A store's sectors under the byte mask are those it writes a byte of (GPGPU-Sim's coalesced
    # sector mask), else those of its L1 request.
    need = _store_sectors(K, S, r) if bmask and kind == RQ_WRITE else _l2_sectors(K, S.r[R_R_LINE, r],
                                                                                  S.r[R_R_SEC, r])
    op = np.int64(LOAD) if kind == RQ_READ else (np.int64(STORE) if kind == RQ_WRITE else np.int64(ATOMIC))
    s, sid, base, way = _find(buf, q, 0, line2)
    rway = np.int64(-1)
    if way >= 0 and S.l2_sec[base + way] & RESERVED:
        rway = way
        way = np.int64(-1)  # a line waiting for its fill: the request meets its MSHR
    b = _request_access(K, S, r, np.int64(0), op, line2)
    b = at_level(b, np.int64(0), op, line2, s, way)
    valid = S.l2_sec[base + way] if way >= 0 else np.int64(0)
    if bmask and kind != RQ_WRITE and way >= 0:
        valid &= ~S.l2_unread[base + way]  # a read finds a sector written in part missing
    hit = way >= 0 and (valid & need) == need
    off = part * S.l2_map_size
    e = np.int64(-1)
    other = np.int64(-1)  # per sector: an entry of another sector of the line, which is on its way
    if way < 0 or (not hit and (kind != RQ_WRITE or bmask)):  # a pending MSHR of the line matters
        # Per sector, a read is named by the first sector it still lacks (valid is 0 without a way).
        lacking = need & ~valid if kind != RQ_WRITE else np.int64(0)
        e = map_find(S.l2_keys, S.l2_vals, off, S.l2_map_size,
                     _mshr_key(K[K_L2_MSHR_SECTOR], line2, lacking if lacking else need))
        if e < 0 and K[K_L2_MSHR_SECTOR] and (rway >= 0 or (way < 0 and K[K_L2_ON_FILL])):
            other = _mshr_line_entry(True, S.l2_keys, S.l2_vals, off, S.l2_map_size, line2,
                                     K[K_L2_LINE_BYTES] // K[K_L2_SECTOR_BYTES])
            if kind == RQ_WRITE:
                e = other  # a store to a line on its way joins one of its entries, as it joins a line's
    # A store that misses the line under write_allocate "fetch" reads it as a load miss does.
    fetch_write = kind == RQ_WRITE and way < 0 and e < 0 and K[K_L2_WRITE_FETCH] != 0
    if not hit and (kind != RQ_WRITE or fetch_write):
        if e < 0 and S.part[P_L2_META, part] == 0:
            S.c[C_L2_FAIL] += 1
            return False
        if e >= 0 and K[K_L2_MERGES] > 0 and S.f[F_F_N, e] >= K[K_L2_MERGES]:
            S.c[C_L2_FAIL] += 1
            return False
    if way < 0 and rway < 0 and e < 0 and not K[K_L2_ON_FILL] and _all_reserved(q, S.l2_sec, base):
        # Every way waits for a fill: no line can be allocated (GPGPU-Sim's LINE_ALLOC_FAIL).
        S.c[C_L2_FAIL] += 1
        return False
    if K[K_DRAM_FRFCFS] and not hit and e < 0 and not (way >= 0 and kind == RQ_WRITE):
        # A miss may send DRAM a read and a write-back: refused while the channel's queue is full
        # (GPGPU-Sim: the DRAM scheduler's queue backs up the L2's DRAM queue and its miss queue).
        ch, _, _ = _dram_place(K, part, line2)
        if S.ch[H_DQ_NFREE, ch] < K[K_DQ_RESERVE]:
            S.c[C_L2_FAIL] += 1
            S.c[C_L2_FAIL_DRAM] += 1
            return False
    # An instruction cache's read is counted apart (GPGPU-Sim's INST_ACC_R): the L2's counters are data's.
    data = S.r[R_R_ENTRY, r] != INST_FETCH
    if data:
        S.c[C_L2_ACC] += 1
        # Per sector, as GPGPU-Sim counts a sectored cache: the request's sectors and those present.
        S.c[C_L2_SEC_ACC] += _popcount(need)
        S.c[C_L2_SEC_HITS] += _popcount(need & valid)
    else:
        S.c[C_L2_INST_ACC] += 1
        S.c[C_L2_INST_HITS] += hit
    if way >= 0 and (hit or kind == RQ_WRITE):
        if hit:
            S.c[C_L2_HITS] += data
            _hit(buf, q, h1, h2, h3, 1, b, sid, base, kind == RQ_READ)
        else:
            # A store to sectors the line lacks: they become valid (written), no fetch, no hook
            # (under the byte mask, below).
            S.c[C_L2_SECTOR_MISSES] += 1
            _found(buf, q, K[K_L2_ON_FILL], sid, base, way, rway, S.l2_sec, np.int64(0))
            if not bmask:
                S.l2_sec[base + way] |= need
        if bmask and kind == RQ_WRITE:
            # GPGPU-Sim's write hit (update_m_readable) and lazy write miss of a sector: a sector
            # absent becomes valid, readable if its bytes are all written; one being fetched stays
            # for its fill (readable then) unless written whole; a written sector the store
            # completes becomes readable.
            full = _l2_write_bytes(K, S, r, base + way)
            new = need & ~valid
            pend = S.f[F_F_SEC, e] if e >= 0 else np.int64(0)
            absent = new & ~pend
            S.l2_sec[base + way] |= absent | (new & pend & full)
            S.l2_unread[base + way] = (S.l2_unread[base + way] | (absent & ~full)) & ~full
        if kind != RQ_READ:
            _at(buf, q[O_DIRTY])[base + way] = 1
        if kind == RQ_WRITE:
            _store_done(K, S, r, part, t + K[K_L2_LAT])
        else:
            if kind == RQ_READ:
                S.r[R_R_RESP, r] = _on_request(h1, h2, h3, 1, b, S.r[R_R_FLAGS, r])
            _respond_to_sm(K, S, r, part, t + K[K_L2_LAT])
        return True
    if e >= 0:  # the line (or some of its sectors) is on its way from below: wait for it
        # A store allocated lazily is done now: GPGPU-Sim's lazy fetch-on-read marks the reserved
        # line's sectors and acknowledges it at once, outside the MSHR (store_acks).
        lazy_ack = kind == RQ_WRITE and K[K_STORE_ACKS] != 0 and K[K_L2_WRITE_FETCH] == 0
        if not lazy_ack:
            S.f[F_F_N, e] += 1
        missing = np.int64(0)
        if kind == RQ_WRITE:
            if bmask and rway >= 0:
                # Written whole: valid at the fill without being read; in part, and not being
                # read: valid at the fill but unreadable (l2_unread of the reserved way).
                full = _l2_write_bytes(K, S, r, base + rway)
                new = need & ~S.f[F_F_SEC, e]
                S.f[F_F_SEC, e] |= new & full
                S.l2_unread[base + rway] = (S.l2_unread[base + rway] | new) & ~full
            else:
                S.f[F_F_SEC, e] |= need  # written: valid at the fill without being read
        else:
            missing = need & ~S.f[F_F_SEC, e] & ~valid
            if bmask and (way >= 0 or rway >= 0):
                _read_unreadable(S, base + (way if way >= 0 else rway), missing)
        _found(buf, q, K[K_L2_ON_FILL], sid, base, way, rway, S.l2_sec, missing)
        if missing:
            # Sectors the entry is not fetching: read them too; the entry fills when both arrived.
            S.c[C_L2_SECTOR_MISSES] += data
            S.f[F_F_SEC, e] |= missing
            S.f[F_F_READS, e] += 1
            _below_l2(buf, K, S, h1, h2, h3, t + K[K_L2_LAT], part, line2, _l2_bytes(K, missing), b,
                      S.f[F_F_FLAGS, e], e)
        else:
            S.c[C_L2_MERGES] += data
        if kind != RQ_READ:
            S.f[F_F_DIRTY, e] = 1
        if lazy_ack:
            _store_done(K, S, r, part, t + K[K_L2_LAT])
            return True
        S.r[R_R_NEXT, r] = -1
        S.r[R_R_NEXT, S.f[F_F_TAIL, e]] = r
        S.f[F_F_TAIL, e] = r
        return True
    if fetch_write:
        # GPGPU-Sim's naive write-allocate (W, data_cache::wr_miss_wa): the store goes on to DRAM
        # and the line is read and allocated below. The store waits on the line's MSHR, freed (or,
        # under store_acks, acknowledged) at its fill: GPGPU-Sim acknowledges it when DRAM has
        # written it, sent just before the read (docs/timing.md, "Store acknowledgements").
        _dram(K, S, t + K[K_L2_LAT], part, line2, S.r[R_R_BYTES, r], True, np.int64(-1))
    elif kind == RQ_WRITE:
        # Write-allocate without fetching: the written sectors are the line's (lazy fetch-on-read).
        req = _miss(buf, q, h1, h2, h3, 1, b, False)
        if _respond(buf, q, h1, h2, h3, 1, b, req, np.int64(0)):
            _dram(K, S, t, part, line2, S.r[R_R_BYTES, r], True, np.int64(-1))
        else:
            b = _l2_install(buf, K, S, h1, h2, h3, t, part, b, np.int64(1), need)
            if bmask:
                # Sectors written in part are unreadable (GPGPU-Sim's wr_miss_wa_lazy_fetch_on_read).
                S.l2_unread[base + b.way] = need & ~_l2_write_bytes(K, S, r, base + b.way)
        _store_done(K, S, r, part, t + K[K_L2_LAT])
        return True
    if way >= 0 or rway >= 0 or other >= 0:
        # A sector miss: an MSHR reads the missing sectors; no hook (as at the L1). Sectors written
        # in part are fetched too: until their fill they are not valid (GPGPU-Sim's allocate_sector).
        # Per sector, a sector of a line on its way misses so too; its entry keeps the line's flags.
        S.c[C_L2_SECTOR_MISSES] += data
        req = S.f[F_F_FLAGS, other] if other >= 0 else np.int64(0)
        fetch = need & ~valid
        _found(buf, q, K[K_L2_ON_FILL], sid, base, way, rway, S.l2_sec, fetch)
        if bmask and (way >= 0 or rway >= 0):
            _read_unreadable(S, base + (way if way >= 0 else rway), fetch)
    else:
        req = _miss(buf, q, h1, h2, h3, 1, b, kind == RQ_READ)
        fetch = need
    n = S.part[P_L2_META, part] - 1
    S.part[P_L2_META, part] = n
    e = S.f[F_L2_FREE, part * K[K_L2_MSHRS] + n]  # a global entry index
    key = _mshr_key(K[K_L2_MSHR_SECTOR], line2, fetch)
    map_put(S.l2_keys, S.l2_vals, off, S.l2_map_size, key, e)
    S.f[F_F_KEY, e] = key
    S.f[F_F_LINE, e] = line2
    S.f[F_F_N, e] = 1
    S.f[F_F_HEAD, e] = r
    S.f[F_F_TAIL, e] = r
    S.f[F_F_FLAGS, e] = req
    S.f[F_F_DIRTY, e] = 1 if kind == RQ_ATOMIC else 0
    S.f[F_F_SEC, e] = fetch
    S.f[F_F_READS, e] = 1
    S.r[R_R_NEXT, r] = -1
    if way < 0 and rway < 0 and not K[K_L2_ON_FILL]:
        v, wb = _reserve(buf, q, h1, h2, h3, 1, b, sid, base, S.l2_sec)
        _l2_new_line(K, S, base + v)
        if wb >= 0:
            _write_below_l2(buf, K, S, h1, h2, h3, t, part, wb, b)
    _below_l2(buf, K, S, h1, h2, h3, t + K[K_L2_LAT], part, line2, _l2_bytes(K, fetch), b, req, e)
    return True


def _l2_fill(buf, K, S, h1, h2, h3, t, e):
    """A read of L2 MSHR ``e`` arrived from below; after its last: fill (or bypass), answer every waiter.

    A line still resident (a sector miss) gets the sectors and no hook; otherwise ``on_response``
    decides bypass or fill, as at the L1.
    """
    S.f[F_F_READS, e] -= 1
    if S.f[F_F_READS, e] > 0:
        return
    q = _params(buf, NP)
    part = e // K[K_L2_MSHRS]
    line2 = S.f[F_F_LINE, e]
    r0 = S.f[F_F_HEAD, e]
    b = _request_access(K, S, r0, np.int64(0), np.int64(LOAD), line2)
    s, sid, base, way = _find(buf, q, 0, line2)
    if way >= 0 and S.l2_sec[base + way] & RESERVED:
        # Allocated at the miss: the line fills its way, or leaves it free when it bypasses.
        if _respond(buf, q, h1, h2, h3, 1, b, S.f[F_F_FLAGS, e], np.int64(0)):
            _clear_way(buf, q, base, way)
            S.l2_sec[base + way] = 0
            _l2_new_line(K, S, base + way)
            way = np.int64(-1)
        else:
            # Sectors written in part while it was on its way are valid but unreadable.
            unread = S.l2_unread[base + way] if K[K_L2_BYTE_MASK] else np.int64(0)
            b = _fill_reserved(buf, q, h1, h2, h3, 1, at_level(b, np.int64(0), np.int64(LOAD), line2, s, way),
                               sid, base, way, S.f[F_F_DIRTY, e], S.l2_sec, S.f[F_F_SEC, e] | unread)
    elif way >= 0:
        b = at_level(b, np.int64(0), np.int64(LOAD), line2, s, way)
        S.l2_sec[base + way] |= S.f[F_F_SEC, e]
        if K[K_L2_ON_FILL]:
            _stamp_found(buf, q, sid, base, way, S.l2_sec)  # GPGPU-Sim's fill allocates the sector
        if S.f[F_F_DIRTY, e]:
            _at(buf, q[O_DIRTY])[base + way] = 1
    elif not _respond(buf, q, h1, h2, h3, 1, b, S.f[F_F_FLAGS, e], np.int64(0)):
        b = _l2_install(buf, K, S, h1, h2, h3, t, part, b, S.f[F_F_DIRTY, e], S.f[F_F_SEC, e])
        way = b.way
    map_del(S.l2_keys, S.l2_vals, part * S.l2_map_size, S.l2_map_size, S.f[F_F_KEY, e])
    if way >= 0 and K[K_L2_SECTOR_BYTES] and not K[K_L2_ON_FILL]:
        _sector_pending(K[K_L2_MSHR_SECTOR], S.l2_keys, S.l2_vals, part * S.l2_map_size, S.l2_map_size, line2,
                        K[K_L2_LINE_BYTES] // K[K_L2_SECTOR_BYTES], S.l2_sec, base + way)
    S.f[F_L2_FREE, part * K[K_L2_MSHRS] + S.part[P_L2_META, part]] = e
    S.part[P_L2_META, part] += 1
    r = r0
    while r >= 0:
        nxt = S.r[R_R_NEXT, r]
        kind = S.r[R_R_KIND, r]
        if kind == RQ_WRITE:
            _store_done(K, S, r, part, t)
        else:
            if kind == RQ_READ:
                br = _request_access(K, S, r, np.int64(0), np.int64(LOAD), line2)
                S.r[R_R_RESP, r] = _on_request(h1, h2, h3, 1, at_level(br, np.int64(0), np.int64(LOAD), line2,
                                                                   b.set, way), S.r[R_R_FLAGS, r])
            _respond_to_sm(K, S, r, part, t)
        r = nxt


# -- SMs: LD/ST unit, L1, responses -----------------------------------------------------


def _waiter(S, slot, row, nxt):
    w = _pool_take(S.wt, Q_WT_FREE, S.wt_meta)
    S.wt[Q_WT_SLOT, w] = slot
    S.wt[Q_WT_ROW, w] = row
    S.wt[Q_WT_NEXT, w] = nxt
    return w


def _load_done(K, S, gslot, row, t):
    """One line of instruction ``row``, one of a warp's outstanding global loads, has arrived."""
    last = _result_back(K, S, gslot, row)
    if last and K[K_LOG_LDST]:
        _log(K, S, gslot // K[K_SLOTS], gslot, row, np.int64(LOG_LOAD_DONE))
    S.c[C_LOADS_DONE] += 1
    S.c[C_LOAD_LAT] += t - S.w[W_W_LOAD_T, gslot]
    _retire_if_done(K, S, gslot)


def _result_back(K, S, gslot, row):
    """One of the results warp slot ``gslot`` waits for (a line of load ``row``, or a shared load's
    result) is back: the warp's dependences let go of it; True if it was the warp's last."""
    _rouse(K, S, gslot // K[K_SLOTS])
    S.w[W_W_PEND, gslot] -= 1
    if K[K_DEP] == DEP_REGISTERS:
        S.rpend[row] -= 1
        if S.rpend[row] == 0 and S.rstop[row] == S.w[W_W_STOP, gslot]:
            _restop(S, gslot)
            S.sm[M_WAKE, gslot // K[K_SLOTS]] |= np.int64(1) << (gslot % K[K_SLOTS] % K[K_N_SCHED])
    last = S.w[W_W_PEND, gslot] == 0
    if last:
        # Only the last line can make the warp ready (``_why``): its scheduler alone wakes.
        S.sm[M_WAKE, gslot // K[K_SLOTS]] |= np.int64(1) << (gslot % K[K_SLOTS] % K[K_N_SCHED])
    return last


def _pending(S, P, g, r, n):
    """Warp slot ``g`` issued load ``r`` of ``n`` line requests (``registers`` rule): its consumer's stop."""
    S.rpend[r] = n
    use = P.use[r]
    S.rstop[r] = S.w[W_CTL_WINST, g] - 1 + use if use > 0 else NO_STOP
    if S.rstop[r] < S.w[W_W_STOP, g]:
        S.w[W_W_STOP, g] = S.rstop[r]


def _restop(S, g):
    """Warp slot ``g``'s stop once a load is back: the nearest consumer of the loads still pending."""
    o = S.w[W_W_OLD, g]
    end = S.w[W_W_ROW, g]
    while o < end and S.rpend[o] == 0:
        o += 1
    S.w[W_W_OLD, g] = o
    stop = NO_STOP
    for x in range(o, end):
        if S.rpend[x] > 0 and S.rstop[x] < stop:
            stop = S.rstop[x]
    S.w[W_W_STOP, g] = stop


def _window_end(S, sm):
    """First cycle after ``sm``'s sampling window (-1 before its first CTA or without a window)."""
    if S.sm[M_CTL_FIRST_CTA, sm] < 0 or S.sm[M_CTL_WINDOW, sm] <= 0:
        return np.int64(-1)
    return S.sm[M_CTL_FIRST_CTA, sm] + S.sm[M_CTL_WINDOW, sm]


def _window_load(S, sm, t, miss, merge):
    """Count a load's L1 lookup at cycle ``t`` in ``sm``'s sampling window (``docs/timing.md``)."""
    if t < _window_end(S, sm):
        S.sm[M_CTL_WIN_LOADS, sm] += 1
        S.sm[M_CTL_WIN_MISSES, sm] += miss
        S.sm[M_CTL_WIN_MERGES, sm] += merge


def _window_cycles(S, sm, first, n):
    """Add the warps able to issue in cycles ``first .. first + n - 1`` that fall in ``sm``'s window."""
    end = _window_end(S, sm)
    if end < 0:
        return
    lo = max(first, S.sm[M_CTL_FIRST_CTA, sm])
    hi = min(first + n, end)
    if hi > lo:
        S.sm[M_CTL_WIN_READY, sm] += (hi - lo) * S.sm[M_CTL_READY, sm]


def _set_ready(K, S, sm, delta):
    """The count of ``sm``'s warps able to issue changes by ``delta`` (logged when logging)."""
    S.sm[M_CTL_READY, sm] += delta
    if K[K_LOG_CAP] > 0:
        _log(K, S, sm, S.sm[M_CTL_READY, sm], np.int64(0), np.int64(LOG_READY))


def _settle(K, S, sm, upto):
    """Account a quiet SM's cycles up to ``upto`` (exclusive); it stays quiet from there.

    A quiet SM (``quiet_from`` >= 0) has warps, all its schedulers asleep, no
    wake-up pending and an idle LD/ST unit: until something happens to it, each
    cycle would add the same counts (its warps, its slots, each scheduler's
    stall reason, its sampling window's ready warps), so the loop skips it and
    adds them here, before anything changes what they would be.

    An idle SM (``idle_from`` >= 0: no warps, nothing queued for its L1) is
    settled here too: each of its cycles adds its slots and a scheduler cycle
    with no warp for each scheduler. Only a CTA's start (:func:`_dispatch`)
    ends it.
    """
    first = S.sm[M_IDLE_FROM, sm]
    if first >= 0:
        n = upto - first
        if n > 0:
            _idle_cycles(K, S, n)
            S.c[C_IDLE_SM_CYCLES] += n
        S.sm[M_IDLE_FROM, sm] = upto
        return
    first = S.sm[M_QUIET_FROM, sm]
    if first < 0:
        return
    n = upto - first
    if n > 0:
        n_sched = K[K_N_SCHED]
        _sm_cycles(S, sm, n)
        S.c[C_SLOT_CYCLES] += n * K[K_SLOTS]
        S.c[C_ISSUE_CYCLES] += n * n_sched
        for k in range(sm * n_sched, (sm + 1) * n_sched):
            S.c[C_STALL_NONE - 1 + S.sched_sleep[k]] += n
        _window_cycles(S, sm, first, n)
        _retries(S, sm, n)
        S.c[C_QUIET_CYCLES] += n
        if S.sm[M_LD_SLOT, sm] >= 0 or S.sm[M_LQ_N, sm] > 0 and S.sm[M_LQ_FAIL, sm] > 0:
            S.c[C_QUIET_HELD_CYCLES] += n
    S.sm[M_QUIET_FROM, sm] = upto


def _idle_cycles(K, S, n):
    """Add ``n`` cycles of an SM without warps: its slots, and each scheduler finding no warp."""
    S.c[C_SLOT_CYCLES] += n * K[K_SLOTS]
    S.c[C_ISSUE_CYCLES] += n * K[K_N_SCHED]
    S.c[C_STALL_NONE] += n * K[K_N_SCHED]


def _retries(S, sm, n):
    """Count ``n`` more cycles of ``sm``'s held reservation failures.

    A failed request is retried every cycle with the same outcome until something
    happens to the SM: the LD/ST unit's (``ld_fail``) and the lookup pipeline
    head's (``lq_fail``), each counted under its kind once a cycle.
    """
    if S.sm[M_LD_SLOT, sm] >= 0 and S.sm[M_LD_FAIL, sm] > 0:
        S.c[S.sm[M_LD_FAIL, sm]] += n
    if S.sm[M_LQ_N, sm] > 0 and S.sm[M_LQ_FAIL, sm] > 0:
        S.c[S.sm[M_LQ_FAIL, sm]] += n


def _sm_cycles(S, sm, n):
    """Add ``n`` cycles of ``sm``'s resident warps: all of them, whether it is busy, those a policy blocks."""
    S.c[C_WARP_CYCLES] += n * S.sm[M_SM_WARPS, sm]
    if S.sm[M_SM_WARPS, sm] > 0:
        S.c[C_BUSY_SM_CYCLES] += n
    S.c[C_BLOCKED_CYCLES] += n * S.sm[M_CTL_NBLOCKED, sm]


def _count_blocked(K, S, sm):
    """Count ``sm``'s resident warps a policy blocks (``ctl_blocked`` nonzero) after a block changed.

    A warp newly blocked gets the cycle it is seen blocked (plus one) in ``w_stall_t``, the order
    ``stalled_release = "last"`` releases in; an unblocked warp's is 0.
    """
    n = np.int64(0)
    for w in range(K[K_SLOTS]):
        g = sm * K[K_SLOTS] + w
        if S.w[W_W_ACTIVE, g] and S.w[W_CTL_BLOCKED, g] != 0:
            n += 1
            if S.w[W_W_STALL_T, g] == 0:
                S.w[W_W_STALL_T, g] = S.sc[S_CYCLE] + 1
        else:
            S.w[W_W_STALL_T, g] = 0
    S.sm[M_CTL_NBLOCKED, sm] = n


def _rouse(K, S, sm):
    """Something happens to ``sm`` in this cycle: settle its quiet or idle cycles; the loop runs it again."""
    if S.sm[M_QUIET_FROM, sm] >= 0 or S.sm[M_IDLE_FROM, sm] >= 0:
        _settle(K, S, sm, S.sc[S_CYCLE])
        S.sm[M_QUIET_FROM, sm] = -1
        S.sm[M_IDLE_FROM, sm] = -1


def _settle_all(K, S, upto):
    """Settle every quiet or idle SM up to ``upto`` (the loop returns: the counters must be whole)."""
    for sm in range(K[K_N_SM]):
        _settle(K, S, sm, upto)


def _log(K, S, sm, line, op, outcome):
    n = S.sc[S_LOG_N]
    if n < K[K_LOG_CAP]:
        S.log[n, 0] = S.sc[S_CYCLE]
        S.log[n, 1] = sm
        S.log[n, 2] = line
        S.log[n, 3] = op
        S.log[n, 4] = outcome
    S.sc[S_LOG_N] = n + 1


def _release(K, S, sm, g, row, t):
    """Request data for load ``row`` of warp slot ``g`` leaves ``sm``'s L1 at ``t`` or, past the
    L1's ``l1_response_rate`` requests a cycle, in the first cycle with room (then as an event)."""
    rate = K[K_L1_RATE]
    c = t
    if rate > 0:
        c = S.sm[M_L1_OUT_T, sm]
        if c < t:
            c = t
            S.sm[M_L1_OUT_N, sm] = 0
        if S.sm[M_L1_OUT_N, sm] >= rate:
            c += 1
            S.sm[M_L1_OUT_N, sm] = 0
        S.sm[M_L1_OUT_T, sm] = c
        S.sm[M_L1_OUT_N, sm] += 1
    if c == t:
        _load_done(K, S, g, row, t)
    else:
        _event(S, c, EV_HIT, _hit_payload(K, g, row))


def _l1_fill(buf, K, S, h1, h2, h3, t, r):
    """A response arrived at its SM: fill the L1 (or bypass) and wake the waiting warps."""
    sm = S.r[R_R_SM, r]
    _rouse(K, S, sm)
    if S.r[R_R_ENTRY, r] == INST_FETCH:
        _icache_fill(K, S, t, r)
        return
    # Every data request's response counts (GPGPU-Sim's memlatstat_read_done: acknowledgements too).
    _latency(S, C_ROUND_TRIP, C_ROUND_TRIP_BINS, t - S.r[R_R_ISSUE, r])
    _latency(S, C_TO_SM, C_TO_SM_BINS, t - S.r[R_R_READY, r])
    if S.r[R_R_KIND, r] == RQ_WRITE:
        # A store's acknowledgement (store_acks): its warp may exit when it has them all.
        g = sm * K[K_SLOTS] + S.r[R_R_SLOT, r]
        S.w[W_W_STORES, g] -= 1
        _free_request(S, r)
        _retire_if_done(K, S, g)
        return
    if S.r[R_R_KIND, r] == RQ_ATOMIC or S.r[R_R_ENTRY, r] < 0:
        # An atomic's result, or a load sent past the L1 before its lookup: no line, no MSHR.
        _release(K, S, sm, sm * K[K_SLOTS] + S.r[R_R_SLOT, r], S.r[R_R_ROW, r], t)
        _free_request(S, r)
        return
    e = S.r[R_R_ENTRY, r]
    S.e[E_E_READS, e] -= 1
    if S.e[E_E_READS, e] > 0:
        # The entry also reads sectors a merged load asked for: it fills when they are back too.
        _free_request(S, r)
        return
    p = _params(buf, 0)
    line = S.e[E_E_LINE, e]
    a = _request_access(K, S, r, sm, np.int64(LOAD), line)
    s, sid, base, way = _find(buf, p, sm, line)
    a = at_level(a, sm, np.int64(LOAD), line, s, way)
    if way >= 0 and S.l1_sec[base + way] & RESERVED:
        # Allocated at the miss: the line fills its way, or leaves it free when it bypasses.
        a = at_level(a, sm, np.int64(LOAD), line, s, np.int64(-1))
        if _respond(buf, p, h1, h2, h3, 0, a, S.e[E_E_FLAGS, e], S.r[R_R_RESP, r]):
            _clear_way(buf, p, base, way)
            S.l1_sec[base + way] = 0
        else:
            a = _fill_reserved(buf, p, h1, h2, h3, 0, a, sid, base, way, S.e[E_E_WRITE, e], S.l1_sec,
                               S.e[E_E_SEC, e])
    elif S.e[E_E_SMEM, e]:
        # A miss of a redirected warp: the line fills the shared-memory cache, not the L1D.
        _smem_install(h1, h2, h3, K, S, sm, line, S.r[R_R_SLOT, r], a)
        _smem_event(h1, h2, h3, K, S, a, sm, line, SMEM_FILL, e - sm * K[K_L1_MSHRS], t)
    elif way >= 0:
        # A sector miss (or a line a store brought in meanwhile): the sectors join the line.
        S.l1_sec[base + way] |= S.e[E_E_SEC, e]
        if K[K_L1_ON_FILL]:
            _stamp_found(buf, p, sid, base, way, S.l1_sec)  # GPGPU-Sim's fill allocates the sector
    elif not _respond(buf, p, h1, h2, h3, 0, a, S.e[E_E_FLAGS, e], S.r[R_R_RESP, r]):
        v, wb = _take_way(buf, p, h1, h2, h3, 0, a, sid, base, S.l1_sec)
        a = _put(buf, p, h1, h2, h3, 0, a, sid, base, v, S.e[E_E_WRITE, e])
        S.l1_sec[base + v] = S.e[E_E_SEC, e]
    map_del(S.l1_keys, S.l1_vals, sm * S.l1_map_size, S.l1_map_size, S.e[E_E_KEY, e])
    if way >= 0 and K[K_SECTOR_BYTES] and not K[K_L1_ON_FILL]:
        _sector_pending(K[K_L1_MSHR_SECTOR], S.l1_keys, S.l1_vals, sm * S.l1_map_size, S.l1_map_size, line,
                        K[K_LINE_BYTES] // K[K_SECTOR_BYTES], S.l1_sec, base + way)
    S.e[E_E_FREE, sm * K[K_L1_MSHRS] + S.sm[M_L1_META, sm]] = e - sm * K[K_L1_MSHRS]
    S.sm[M_L1_META, sm] += 1
    w = S.e[E_E_HEAD, e]
    while w >= 0:
        nxt = S.wt[Q_WT_NEXT, w]
        if S.wt[Q_WT_SLOT, w] >= 0:
            # GPGPU-Sim hands the merged requests to the writeback one a cycle (l1_response_rate).
            _release(K, S, sm, sm * K[K_SLOTS] + S.wt[Q_WT_SLOT, w], S.wt[Q_WT_ROW, w], t)
        _pool_give(S.wt, Q_WT_FREE, S.wt_meta, w)
        w = nxt
    _free_request(S, r)


def _fetch_next(K, S, P, sm, g):
    """Instruction cache: warp slot ``g`` of ``sm`` looks up its next instruction's line if it left its own.

    A fetch brings two instructions, the one fetched and the warp's next (GPGPU-Sim's decode; in
    Accel-Sim's trace mode the next trace instruction, wherever it lies), so only the warp's 1st,
    3rd, 5th... instruction is looked up. The next instruction is the warp's next row, or a compute
    instruction 16 bytes after the last one issued (the exporter's layout, and straight-line SASS).
    A hit makes the line the warp's;
    a miss makes the warp wait for it (``WHY_FETCH``), merged into the line's MSHR if one reads it,
    else asking for one (``ic_want``: :func:`_icache_requests`).
    """
    if S.w[W_CTL_WINST, g] & 1:
        return  # the second of the two instructions the last fetch brought
    r = S.w[W_W_ROW, g]
    if S.w[W_W_LEFT, g] > 0:
        pc = S.w[W_W_PC, g] + 16
    elif r < S.w[W_W_END, g]:
        pc = np.int64(P.pc[r])
    else:
        return
    line = (PROGRAM_BASE + pc) // K[K_LINE_BYTES]
    if line == S.w[W_W_ILINE, g]:
        return
    S.c[C_IC_ACC] += 1
    base = _icache_set(K, sm, line)
    for i in range(base, base + K[K_IC_WAYS]):
        if S.ic[IC_TAG, i] == line:
            S.ic[IC_LRU, i] = S.sc[S_CYCLE]
            S.w[W_W_ILINE, g] = line
            return
    S.c[C_IC_MISSES] += 1
    S.w[W_W_IMISS, g] = line
    if _icache_mshr(K, S, sm, line):
        S.c[C_IC_MERGES] += 1


def _icache_set(K, sm, line):
    """Instruction cache: the first entry of ``line``'s set in ``sm``'s cache (``ic`` table)."""
    return (sm * K[K_IC_SETS] + line % K[K_IC_SETS]) * K[K_IC_WAYS]


def _icache_mshr(K, S, sm, line):
    """Instruction cache: a warp of ``sm`` waits for ``line``. True if an MSHR of the SM reads it (the
    warp merges); else the warp takes a free one, whose read :func:`_icache_requests` makes at the
    end of the SM's cycle (it needs the L2's parameters), or with every MSHR busy waits for a fill
    to free one."""
    m = K[K_IC_MSHRS]
    free = np.int64(-1)
    for i in range(sm * m, (sm + 1) * m):
        if S.im[IM_LINE, i] == line:
            return True
        if S.im[IM_LINE, i] == 0 and free < 0:
            free = i
    if free >= 0:
        S.im[IM_LINE, free] = line
        S.im[IM_SENT, free] = 0
        S.sm[M_IC_WANT, sm] = 1
    return False


def _icache_requests(buf, K, S, t, sm):
    """Instruction cache: each MSHR of ``sm`` not yet read sends its line's read into the SM's miss
    queue (a load of the line with no L1D MSHR behind it, ready next cycle)."""
    S.sm[M_IC_WANT, sm] = 0
    m = K[K_IC_MSHRS]
    for i in range(sm * m, (sm + 1) * m):
        line = S.im[IM_LINE, i]
        if line == 0 or S.im[IM_SENT, i]:
            continue
        if S.rq_meta[0] == 0:
            S.sm[M_IC_WANT, sm] = 1  # no request free: ask again next cycle
            return
        S.im[IM_SENT, i] = 1
        sec = (np.int64(1) << (K[K_LINE_BYTES] // K[K_SECTOR_BYTES])) - 1 if K[K_SECTOR_BYTES] > 0 \
            else np.int64(1)
        a = Access(sm, sm, np.int64(-1), np.int64(-1), K[K_KERNEL], line * K[K_LINE_BYTES] - PROGRAM_BASE,
                   np.int64(LOAD), sec, line, np.int64(-1), np.int64(-1), t, np.int64(0), S.sc[S_ACCESSES])
        r = _new_request(S, RQ_READ, sm, line, sec, np.int64(INST_FETCH), np.int64(0), np.int64(-1),
                         np.int64(-1), a, _partition(K, _params(buf, NP), line >> K[K_L2_SHIFT]), t + 1)
        _enqueue(K, S, sm, r)


def _icache_fill(K, S, t, r):
    """Instruction cache: read ``r`` brought its line; it replaces the set's least recently used line
    (allocate on fill), frees its MSHR and releases the warps that waited for it."""
    sm = S.r[R_R_SM, r]
    line = S.r[R_R_LINE, r]
    base = _icache_set(K, sm, line)
    v = base
    for i in range(base, base + K[K_IC_WAYS]):
        if S.ic[IC_TAG, i] == 0:
            v = i
            break
        if S.ic[IC_LRU, i] < S.ic[IC_LRU, v]:
            v = i
    S.ic[IC_TAG, v] = line
    S.ic[IC_LRU, v] = t
    m = K[K_IC_MSHRS]
    for i in range(sm * m, (sm + 1) * m):
        if S.im[IM_LINE, i] == line:
            S.im[IM_LINE, i] = 0
    for g in range(sm * K[K_SLOTS], (sm + 1) * K[K_SLOTS]):
        if S.w[W_W_IMISS, g] == line:
            S.w[W_W_IMISS, g] = 0
            S.w[W_W_ILINE, g] = line
        elif S.w[W_W_IMISS, g] != 0:
            # The freed MSHR goes to a warp that waits for a line no MSHR reads (all were busy).
            _icache_mshr(K, S, sm, S.w[W_W_IMISS, g])
    S.sm[M_WAKE, sm] = WAKE_ALL
    _free_request(S, r)


def _l1_access(K, S, P, t, sm, slot, row, i):
    """The hook context of line request ``i`` of instruction ``row`` (slot ``slot`` of ``sm``) at ``t``."""
    g = sm * K[K_SLOTS] + slot
    # The program's narrow columns (golden.gpu.program.Program) widen here: every field is int64.
    return Access(sm, sm, S.w[W_W_WARP, g], S.w[W_W_CTA_ID, g], K[K_KERNEL], np.int64(P.pc[row]),
                  np.int64(P.op[row]), np.int64(P.req_sec[i]), P.req_line[i], np.int64(-1), np.int64(-1), t,
                  np.int64(0), S.sc[S_ACCESSES])


def _l1_send(buf, K, S, h1, h2, h3, t, sm, slot, row, i, P):
    """Line request ``i`` of the instruction in ``sm``'s LD/ST unit leaves the unit; False if it cannot.

    With ideal memory the hierarchy serves it at once; a load the policy sends
    past the L1 (``on_lookup``) goes to the miss queue; any other request is
    looked up now (``l1.lookup_latency`` 0) or enters the SM's lookup
    pipeline, to reach the lookup ``l1.lookup_latency`` cycles later
    (:func:`_lookups`). A full pipeline holds the unit without a reservation
    failure (GPGPU-Sim's ``l1_latency`` queue entry taken: a bank conflict).
    """
    a0 = _l1_access(K, S, P, t, sm, slot, row, i)
    S.sc[S_SENT] = t
    op = a0.op
    line = a0.line
    sec = a0.sectors
    g = sm * K[K_SLOTS] + slot
    is_load = op == LOAD
    if K[K_FIXED_LAT] >= 0:
        # Ideal memory: the whole hierarchy answers at once, every load after a fixed latency.
        way = _find(buf, _params(buf, 0), sm, line)[3]
        _access(buf, _params(buf, 0), h1, h2, h3, 0, a0, np.int64(0))
        S.c[C_L1_ACC] += 1
        S.sc[S_ACCESSES] += 1
        _log(K, S, sm, line, op, np.int64(1 if way >= 0 else 2))
        if is_load:
            _window_load(S, sm, t, np.int64(way < 0), np.int64(0))
        if op != STORE:
            _event(S, t + K[K_FIXED_LAT], EV_HIT, _hit_payload(K, g, row))
        return True
    if is_load:
        # The policy may send the load past the L1 before its lookup (on_lookup: kim20's B mode).
        # A retry after a reservation failure reuses the answer, so the hook runs once a request.
        if S.sm[M_LD_ASKED, sm] != i:
            S.sm[M_LD_ASKED, sm] = i
            S.sm[M_LD_PRE, sm] = _on_lookup(h1, h2, h3, 0, a0)
        pre = S.sm[M_LD_PRE, sm]
        if pre != 0:
            if _queue_full(K, S, sm):
                return False
            S.c[C_L1_BYPASSED] += 1
            S.sc[S_ACCESSES] += 1
            _log(K, S, sm, line, op, np.int64(LOG_BYPASS))
            # No MSHR (entry -1): its response goes to the warp alone, with no fill (_l1_fill).
            r = _new_request(S, RQ_READ, sm, line, sec, np.int64(-1), pre, slot, row, a0,
                             _partition(K, _params(buf, NP), line >> K[K_L2_SHIFT]), t)
            _enqueue(K, S, sm, r)
            return True
    if K[K_L1_LOOKUP] == 0:
        return _l1_lookup(buf, K, S, h1, h2, h3, t, sm, slot, row, a0, P, i)
    n = S.sm[M_LQ_N, sm]
    if n >= K[K_LQ_SIZE]:
        S.sm[M_LD_FAIL, sm] = 0
        return False
    q = sm * K[K_LQ_SIZE] + (S.sm[M_LQ_HEAD, sm] + n) % K[K_LQ_SIZE]
    S.lq[L_LQ_SLOT, q] = slot
    S.lq[L_LQ_ROW, q] = row
    S.lq[L_LQ_REQ, q] = i
    S.lq[L_LQ_READY, q] = t + K[K_L1_LOOKUP]
    S.sm[M_LQ_N, sm] = n + 1
    S.w[W_W_LQ, g] += 1
    return True


def _lookups(buf, K, S, h1, h2, h3, t, sm, P):
    """The heads of ``sm``'s lookup pipeline whose ``l1.lookup_latency`` is over look the L1 up.

    Up to ``l1.ports`` a cycle, in order; a reservation failure holds the head
    (and every entry behind it) for a retry next cycle, its kind kept in
    ``lq_fail``. True if one was looked up.
    """
    size = K[K_LQ_SIZE]
    done = False
    for _ in range(K[K_L1_PORTS]):
        if S.sm[M_LQ_N, sm] == 0:
            break
        q = sm * size + S.sm[M_LQ_HEAD, sm]
        if S.lq[L_LQ_READY, q] > t:
            break
        slot = S.lq[L_LQ_SLOT, q]
        unit_fail = S.sm[M_LD_FAIL, sm]
        row = S.lq[L_LQ_ROW, q]
        i = S.lq[L_LQ_REQ, q]
        S.sc[S_SENT] = S.lq[L_LQ_READY, q] - K[K_L1_LOOKUP]
        if not _l1_lookup(buf, K, S, h1, h2, h3, t, sm, slot, row, _l1_access(K, S, P, t, sm, slot, row, i),
                          P, i):
            # The failure's kind belongs to the pipeline's head, not to the LD/ST unit.
            S.sm[M_LQ_FAIL, sm] = S.sm[M_LD_FAIL, sm]
            S.sm[M_LD_FAIL, sm] = unit_fail
            break
        S.sm[M_LQ_FAIL, sm] = 0
        S.sm[M_LQ_HEAD, sm] = (S.sm[M_LQ_HEAD, sm] + 1) % size
        S.sm[M_LQ_N, sm] -= 1
        g = sm * K[K_SLOTS] + slot
        S.w[W_W_LQ, g] -= 1
        done = True
        if S.w[W_W_LQ, g] == 0 and S.w[W_W_ACTIVE, g]:
            _retire_if_done(K, S, g)
    return done


def _chunks(K, P, i):
    """The 32-byte chunks request ``i`` writes, under write_packet "segment" (else 0: not kept)."""
    return np.int64(P.req_chunks[i]) if K[K_WRITE_SEGMENT] else np.int64(0)


def _lq_ready(K, S, sm):
    """Cycle the head of ``sm``'s (non-empty) lookup pipeline reaches the lookup."""
    return S.lq[L_LQ_READY, sm * K[K_LQ_SIZE] + S.sm[M_LQ_HEAD, sm]]


def _hit_payload(K, g, row):
    """The ``EV_HIT`` event of warp slot ``g``'s load ``row``."""
    return row * (K[K_N_SM] * K[K_SLOTS]) + g


def _hit_data(K, S, t, g, row):
    """A load of slot ``g`` hit at cycle ``t``: its data after the rest of the hit latency.

    The lookup pipeline's cycles are part of ``l1.hit_latency``; when they are all
    of it the data is there at the lookup, as GPGPU-Sim releases the register at
    the head of its ``l1_latency`` queue (the warp may issue in the same cycle).
    """
    d = K[K_L1_LAT] - K[K_L1_LOOKUP]
    if d == 0 and K[K_L1_LOOKUP] > 0:
        _load_done(K, S, g, row, t)
    else:
        _event(S, t + d, EV_HIT, _hit_payload(K, g, row))


def _l1_lookup(buf, K, S, h1, h2, h3, t, sm, slot, row, a0, P, i):
    """The L1 lookup of line request ``a0`` (request ``i`` of program ``P``, of instruction ``row``)
    of warp slot ``slot``; False on a reservation failure."""
    p = _params(buf, 0)
    op = a0.op
    line = a0.line
    sec = a0.sectors
    g = sm * K[K_SLOTS] + slot
    s, sid, base, way = _find(buf, p, sm, line)
    rway = np.int64(-1)
    if way >= 0 and S.l1_sec[base + way] & RESERVED:
        rway = way
        way = np.int64(-1)  # a line waiting for its fill: a load meets its MSHR, a store misses
    a = at_level(a0, sm, op, line, s, way)
    is_load = op == LOAD
    redirect = is_load and S.w[W_CTL_REDIRECT, g] != 0 and S.sm[M_CTL_SMEM_LINES, sm] > 0
    if redirect:
        # ciao18's CIAO-P: the warp's loads go to the shared-memory cache (docs/timing.md).
        a = at_level(a, sm, op, line, np.int64(-1), np.int64(-1))
        if _smem_lookup(buf, p, h1, h2, h3, K, S, t, sm, slot, g, row, line, a, base, way):
            return True
    sector_hit = way >= 0 and (S.l1_sec[base + way] & sec) == sec
    wpol = K[K_L1_WRITE]
    if is_load and sector_hit and not redirect:
        _sector_loads(S, sec, sec)
        S.c[C_L1_ACC] += 1
        S.c[C_L1_HITS] += 1
        S.sc[S_ACCESSES] += 1
        _hit(buf, p, h1, h2, h3, 0, a, sid, base, True)
        _log(K, S, sm, line, op, np.int64(1))
        _window_load(S, sm, t, np.int64(0), np.int64(0))
        _hit_data(K, S, t, g, row)
        return True
    off = sm * S.l1_map_size
    if is_load:
        # Per sector, a load is named by the first sector it lacks; a line on its way in another
        # sector's entry (other) makes it a sector miss with an entry of its own.
        lacking = sec & ~S.l1_sec[base + way] if way >= 0 else sec
        e = map_find(S.l1_keys, S.l1_vals, off, S.l1_map_size,
                     _mshr_key(K[K_L1_MSHR_SECTOR], line, lacking if lacking else sec))
        other = np.int64(-1)
        if e < 0 and K[K_L1_MSHR_SECTOR] and way < 0:
            other = _mshr_line_entry(True, S.l1_keys, S.l1_vals, off, S.l1_map_size, line,
                                     K[K_LINE_BYTES] // K[K_SECTOR_BYTES])
        if e >= 0:
            if K[K_L1_MERGES] > 0 and S.e[E_E_N, e] >= K[K_L1_MERGES]:
                S.c[C_L1_FAIL_MERGE] += 1
                S.sm[M_LD_FAIL, sm] = C_L1_FAIL_MERGE
                return False
            if S.wt_meta[0] == 0:
                S.c[C_L1_FAIL_MERGE] += 1
                S.sm[M_LD_FAIL, sm] = C_L1_FAIL_MERGE
                return False
            # Sectors neither present nor being fetched by the entry are read too (GPGPU-Sim keeps
            # one MSHR per sector: a miss of their own); the entry fills when all its reads are back.
            extra = sec & ~S.e[E_E_SEC, e]
            if way >= 0:
                extra &= ~S.l1_sec[base + way]
            if extra and _queue_full(K, S, sm):
                return False
            S.c[C_SMEM_ACC if redirect else C_L1_ACC] += 1
            if not redirect:
                _sector_loads(S, sec, S.l1_sec[base + way] if way >= 0 else np.int64(0))
            elif S.e[E_E_SMEM, e]:  # a redirected load waits for the entry's fill of the shared-memory cache
                _smem_event(h1, h2, h3, K, S, a, sm, line, SMEM_MERGE, e - sm * K[K_L1_MSHRS], t)
            S.sc[S_ACCESSES] += 1
            S.e[E_E_N, e] += 1
            if not redirect:
                _found(buf, p, K[K_L1_ON_FILL], sid, base, way, rway, S.l1_sec, extra)
            w = _waiter(S, slot, row, np.int64(-1))
            S.wt[Q_WT_NEXT, S.e[E_E_TAIL, e]] = w
            S.e[E_E_TAIL, e] = w
            if extra:
                S.c[C_L1_SECTOR_MISSES] += 1
                S.e[E_E_SEC, e] |= extra
                S.e[E_E_READS, e] += 1
                r = _new_request(S, RQ_READ, sm, line, extra, e, S.e[E_E_FLAGS, e], slot, row, a,
                                 _partition(K, _params(buf, NP), line >> K[K_L2_SHIFT]),
                                 t + 1 + K[K_L1_MISS_LAT])
                _enqueue(K, S, sm, r)
                _log(K, S, sm, line, op, np.int64(4))
                _window_load(S, sm, t, np.int64(1), np.int64(0))
            else:
                S.c[C_L1_MERGES] += 1
                _log(K, S, sm, line, op, np.int64(3))
                _window_load(S, sm, t, np.int64(0), np.int64(1))
            return True
        if way < 0 and rway < 0 and other < 0 and not redirect and not K[K_L1_ON_FILL] and _all_reserved(
                p, S.l1_sec, base):
            # Every way waits for a fill: no line can be allocated (GPGPU-Sim's LINE_ALLOC_FAIL).
            S.c[C_L1_FAIL_LINE] += 1
            S.sm[M_LD_FAIL, sm] = C_L1_FAIL_LINE
            return False
        if S.sm[M_L1_META, sm] == 0 or S.wt_meta[0] == 0:
            S.c[C_L1_FAIL_MSHR] += 1
            S.sm[M_LD_FAIL, sm] = C_L1_FAIL_MSHR
            return False
        if _queue_full(K, S, sm):
            return False
        S.c[C_SMEM_ACC if redirect else C_L1_ACC] += 1
        if not redirect:
            _sector_loads(S, sec, S.l1_sec[base + way] if way >= 0 else np.int64(0))
        S.sc[S_ACCESSES] += 1
        _window_load(S, sm, t, np.int64(1), np.int64(0))
        flags = np.int64(0)
        if redirect:
            # The MSHR fills the shared-memory cache; the policy sees the miss (its VTA probe) but
            # neither the L1D's counters nor its replacement state change, and no flags are kept.
            _on_miss(h1, h2, h3, 0, a)
            _log(K, S, sm, line, op, np.int64(2))
        elif way >= 0 or other >= 0:
            # A sector miss: of a resident line, or (per sector) of one on its way in another
            # sector's entry, whose policy flags it keeps; no hook, no way taken.
            S.c[C_L1_SECTOR_MISSES] += 1
            _log(K, S, sm, line, op, np.int64(4))
            sec = lacking
            _found(buf, p, K[K_L1_ON_FILL], sid, base, way, rway, S.l1_sec, sec)
            if other >= 0:
                flags = S.e[E_E_FLAGS, other]
        else:
            flags = _miss(buf, p, h1, h2, h3, 0, a, True)
            _log(K, S, sm, line, op, np.int64(2))
            if not K[K_L1_ON_FILL]:
                # A write-through L1 has no dirty line to write back.
                _reserve(buf, p, h1, h2, h3, 0, a, sid, base, S.l1_sec)
        n = S.sm[M_L1_META, sm] - 1
        S.sm[M_L1_META, sm] = n
        e = S.e[E_E_FREE, sm * K[K_L1_MSHRS] + n] + sm * K[K_L1_MSHRS]
        key = _mshr_key(K[K_L1_MSHR_SECTOR], line, sec)
        map_put(S.l1_keys, S.l1_vals, off, S.l1_map_size, key, e)
        S.e[E_E_KEY, e] = key
        S.e[E_E_LINE, e] = line
        S.e[E_E_SEC, e] = sec
        S.e[E_E_N, e] = 1
        S.e[E_E_FLAGS, e] = flags
        S.e[E_E_WRITE, e] = 0
        S.e[E_E_SMEM, e] = 1 if redirect else 0
        S.e[E_E_READS, e] = 1
        w = _waiter(S, slot, row, np.int64(-1))
        S.e[E_E_HEAD, e] = w
        S.e[E_E_TAIL, e] = w
        r = _new_request(S, RQ_READ, sm, line, sec, e, flags, slot, row, a,
                         _partition(K, _params(buf, NP), line >> K[K_L2_SHIFT]), t + 1 + K[K_L1_MISS_LAT])
        _enqueue(K, S, sm, r)
        if redirect:
            _smem_event(h1, h2, h3, K, S, a, sm, line, SMEM_ALLOC, e - sm * K[K_L1_MSHRS], t)
        return True
    # Stores and atomics: written through to the L2 (atomics are performed there).
    if _queue_full(K, S, sm):
        return False
    S.c[C_L1_ACC] += 1
    S.sc[S_ACCESSES] += 1
    if way >= 0:
        S.c[C_L1_HITS] += 1
        _hit(buf, p, h1, h2, h3, 0, a, sid, base, False)
        _log(K, S, sm, line, op, np.int64(1))
        if wpol == WRITE_EVICT:
            _drop(buf, p, h1, h2, h3, 0, a, base, way)
            invalidate(_at(buf, p[O_STAMP]), _at(buf, p[O_FREQ]), base, way)
            S.l1_sec[base + way] = 0
    else:
        _miss(buf, p, h1, h2, h3, 0, a, False)
        _log(K, S, sm, line, op, np.int64(2))
    r = _new_request(S, RQ_WRITE if op == STORE else RQ_ATOMIC, sm, line, sec, np.int64(-1), np.int64(0),
                     slot, row, a, _partition(K, _params(buf, NP), line >> K[K_L2_SHIFT]),
                     t + 1 + K[K_L1_MISS_LAT])
    if op == STORE and K[K_STORE_ACKS]:
        S.w[W_W_STORES, sm * K[K_SLOTS] + slot] += 1
    # The data it carries: its sectors or line, or (write_packet "segment") GPGPU-Sim's segment.
    if K[K_WRITE_SEGMENT] and op == STORE:
        S.r[R_R_BYTES, r] = _segment_bytes(_chunks(K, P, i), K[K_LINE_BYTES])
    else:
        S.r[R_R_BYTES, r] = _bytes_of(K, sec)
    if K[K_L2_BYTE_MASK]:
        # The bytes it writes, per 32-byte sector of its line (none for an atomic: read at the L2).
        cpl = K[K_LINE_BYTES] // CHUNK_BYTES
        for j in range(cpl):
            S.r_wbytes[r * cpl + j] = P.req_wbytes[i, j] if op == STORE else 0
    _enqueue(K, S, sm, r)
    return True


def _sector_loads(S, sec, valid):
    """Count a load's L1 lookup per sector: its sectors, and those present (GPGPU-Sim's per-sector count)."""
    S.c[C_L1_SEC_LOADS] += _popcount(sec)
    S.c[C_L1_SEC_LOAD_HITS] += _popcount(sec & valid)


def _smem_block(K, S, sm, line):
    """Row of ``S.smem`` that holds ``line`` in ``sm``'s shared-memory cache (direct mapped).

    ``smem_cache_index = "mod"``: the line's low bits, as ciao18's translation unit
    (Fig. 7c: the group bit G and the row bits R under the row mask). ``"xor"``: those
    XOR the line's bits 8 and up (``golden.units.ciao_smem.translate``).
    """
    if K[K_SMEM_XOR]:
        line = line ^ (line >> 8)
    return sm * SMEM_BLOCKS + (line & (S.sm[M_CTL_SMEM_LINES, sm] - 1))


def _smem_event(h1, h2, h3, K, S, a, sm, line, event, entry, t):
    """Tell the policy of an event of ``sm``'s shared-memory cache (``on_smem``) for ``line``:
    ``a.set`` = -1 and ``a.way`` = the block of the SM's cache the line takes."""
    block = _smem_block(K, S, sm, line) - sm * SMEM_BLOCKS
    _on_smem(h1, h2, h3, 0, at_level(a, sm, np.int64(LOAD), line, np.int64(-1), block), np.int64(event),
             entry, t)


def _smem_install(h1, h2, h3, K, S, sm, line, slot, a):
    """Put ``line`` in ``sm``'s shared-memory cache for the warp in ``slot`` (direct mapped).

    A different block in its place is evicted: the L1 level's ``on_evict`` hears
    of it with ``a.set = -1`` and, for ``way``, the slot of the warp that brought
    the block in (the WID field of the block's tag), so that ciao18's VTA sees
    shared-memory interference (ciao18 Section III-B: one VTA for both).
    """
    i = _smem_block(K, S, sm, line)
    old = S.smem[X_X_TAG, i]
    if old >= 0 and old != line:
        S.c[C_SMEM_EVICTIONS] += 1
        _on_evict(h1, h2, h3, 0, at_level(a, sm, np.int64(LOAD), line, np.int64(-1), np.int64(-1)),
                  S.smem[X_X_OWNER, i], old, np.int64(0))
    S.smem[X_X_TAG, i] = line
    S.smem[X_X_OWNER, i] = slot


def _smem_lookup(buf, p, h1, h2, h3, K, S, t, sm, slot, g, row, line, a, base, way):
    """A redirected load's shared-memory cache hit, or its line's migration from the L1D.

    Returns True when the load is served so (its data after the L1's hit
    latency); False for a miss, which the caller merges into a pending MSHR
    or sends below like an L1 miss, into the shared-memory cache.
    """
    i = _smem_block(K, S, sm, line)
    if S.smem[X_X_TAG, i] == line:
        S.c[C_SMEM_HITS] += 1
        _on_hit(h1, h2, h3, 0, a)
        _smem_event(h1, h2, h3, K, S, a, sm, line, SMEM_HIT, np.int64(-1), t)
    elif way < 0 or _mshr_line_entry(K[K_L1_MSHR_SECTOR], S.l1_keys, S.l1_vals, sm * S.l1_map_size,
                                     S.l1_map_size, line, K[K_LINE_BYTES] // max(1, K[K_SECTOR_BYTES])) >= 0:
        return False
    else:
        # The line is in the L1D (and not being filled): it moves to the shared-memory cache
        # through the response queue (ciao18 Section IV-B), a single copy; no eviction hook.
        _clear_way(buf, p, base, way)
        S.l1_sec[base + way] = 0
        S.c[C_SMEM_MIGRATIONS] += 1
        _smem_install(h1, h2, h3, K, S, sm, line, slot, a)
        _smem_event(h1, h2, h3, K, S, a, sm, line, SMEM_MIGRATE, np.int64(-1), t)
    S.c[C_SMEM_ACC] += 1
    S.sc[S_ACCESSES] += 1
    _log(K, S, sm, line, np.int64(LOAD), np.int64(1))
    _window_load(S, sm, t, np.int64(0), np.int64(0))
    _hit_data(K, S, t, g, row)
    return True


def _queue_held(K, S, sm):
    """Entries of ``sm``'s miss queue that count against its capacity.

    Requests still waiting out ``l1.miss_latency`` (ready after the next cycle) are in GPGPU-Sim's
    ``l1_latency`` queue, in front of the lookup, not in its miss queue; they sit at the tail.
    """
    q = K[K_L1_MQ_RING]
    n = S.sm[M_MQ_N, sm]
    held = n
    if K[K_L1_MISS_LAT] > 0:
        t = S.sc[S_CYCLE]
        i = n - 1
        while i >= 0 and S.r[R_R_READY, S.mq[sm * q + (S.sm[M_MQ_HEAD, sm] + i) % q]] > t + 1:
            held -= 1
            i -= 1
    return held


def _input_of(K, sm):
    """The row of ``sm_inj_free`` that is ``sm``'s crossbar input: its own, or under
    ``icnt_request_queues = "single"`` its cluster's (the cluster's first SM's)."""
    if K[K_REQ_FIFO]:
        return sm - sm % K[K_SMS_PER_CLUSTER]
    return sm


def _buffer_full(K, S, sm, held):
    """``sm``'s miss queue holds ``held`` (at least ``l1.miss_queue``): True unless its cluster's
    input buffer (``icnt_input_buffer``) has room for one more. Each SM's requests beyond its
    miss queue wait in the buffer its cluster's SMs share (GPGPU-Sim's injection buffer)."""
    if K[K_ICNT_BUF] == 0:
        return True
    base = _input_of(K, sm)  # a buffer comes with icnt_request_queues "single" (state.config_vector)
    used = held - K[K_L1_MQ]
    for k in range(base, base + K[K_SMS_PER_CLUSTER]):
        if k != sm:
            used += max(np.int64(0), _queue_held(K, S, k) - K[K_L1_MQ])
    return used >= K[K_ICNT_BUF]


def _queue_full(K, S, sm):
    """No miss-queue slot or free request for ``sm``: a reservation failure (counted)."""
    held = _queue_held(K, S, sm)
    if (held >= K[K_L1_MQ] and _buffer_full(K, S, sm, held)) or S.sm[M_MQ_N, sm] >= K[K_L1_MQ_RING] \
            or S.rq_meta[0] == 0:
        S.c[C_L1_FAIL_QUEUE] += 1
        S.sm[M_LD_FAIL, sm] = C_L1_FAIL_QUEUE
        return True
    return False


def _enqueue(K, S, sm, r):
    q = K[K_L1_MQ_RING]
    S.mq[sm * q + (S.sm[M_MQ_HEAD, sm] + S.sm[M_MQ_N, sm]) % q] = r
    S.sm[M_MQ_N, sm] += 1


def _head_ready(K, S, sm):
    """The cycle the head of ``sm``'s (non-empty) miss queue may leave the SM."""
    return S.r[R_R_READY, S.mq[sm * K[K_L1_MQ_RING] + S.sm[M_MQ_HEAD, sm]]]


def _inject_time(K, S, sm):
    """First cycle the head of ``sm``'s (non-empty) miss queue can enter the interconnect."""
    return max(S.sm[M_INJ_FREE, _input_of(K, sm)], _head_ready(K, S, sm))


def _l2_refuses(K, S, sm):
    """Whether the sub-partition that ``sm``'s miss-queue head goes to takes no request from the
    crossbar now: its L2 input queue holds ``l2_input_cap`` requests (``l2_input_queue``; GPGPU-Sim's
    full icnt-to-L2 queue, whose packets wait in the crossbar, here at their SMs)."""
    r = S.mq[sm * K[K_L1_MQ_RING] + S.sm[M_MQ_HEAD, sm]]
    return S.part[P_Q_N, S.r[R_R_PART, r]] >= K[K_L2_IN_CAP]


def _l2_took(K, S, part):
    """``part``'s L2 input queue has room again: rouse the quiet SMs whose miss-queue head goes to it."""
    q = K[K_L1_MQ_RING]
    for sm in range(K[K_N_SM]):
        if S.sm[M_QUIET_FROM, sm] >= 0 and S.sm[M_MQ_N, sm] > 0 \
                and S.r[R_R_PART, S.mq[sm * q + S.sm[M_MQ_HEAD, sm]]] == part:
            _rouse(K, S, sm)


def _inject(K, S, t, sm):
    """The head of ``sm``'s miss queue enters the interconnect when the SM's port is free.

    The request takes the next free turn of its sub-partition's output (in the order requests
    are sent). Its input is free again after the packet's flits (``"per-output"``), or, under
    ``icnt_request_queues = "single"``, only once the output has taken them: the input is its
    cluster's (``sm_inj_free`` of the cluster's first SM), and the cluster's next request, from
    whichever of its SMs has waited longest, stays behind it (head-of-line blocking;
    ``docs/timing.md``, "Interconnect").
    """
    if S.sm[M_MQ_N, sm] == 0 or _inject_time(K, S, sm) > t:
        return False
    if K[K_L2_IN_CAP] and _l2_refuses(K, S, sm):
        return False
    spc = K[K_SMS_PER_CLUSTER]
    if K[K_REQ_FIFO] and spc > 1:
        # The cluster's queue keeps the order its SMs' requests came to it: another SM of the
        # cluster whose head has waited longer goes first (the loop visits it later this cycle; one
        # visited earlier that could go has gone and taken the input, one whose sub-partition
        # refused it holds the input).
        base = _input_of(K, sm)
        mine = _head_ready(K, S, sm)
        for k in range(base, base + spc):
            if k == sm or S.sm[M_MQ_N, k] == 0:
                continue
            theirs = _head_ready(K, S, k)
            if k > sm and theirs < mine:
                return False
            if k < sm and theirs <= mine and K[K_L2_IN_CAP] and _l2_refuses(K, S, k):
                return False
    q = K[K_L1_MQ_RING]
    r = S.mq[sm * q + S.sm[M_MQ_HEAD, sm]]
    S.sm[M_MQ_HEAD, sm] = (S.sm[M_MQ_HEAD, sm] + 1) % q
    S.sm[M_MQ_N, sm] -= 1
    flits = _flits(K, 0) if S.r[R_R_KIND, r] == RQ_READ else _flits(K, S.r[R_R_BYTES, r])
    part = S.r[R_R_PART, r]
    arrive = max(t + K[K_ICNT_LAT], S.part[P_P_IN_FREE, part])
    S.part[P_P_IN_FREE, part] = arrive + flits + K[K_ICNT_GAP]  # the output towards the sub-partition
    # The input, as _depart's: free after the packet, or only after its output took it.
    sent = arrive - K[K_ICNT_LAT] if K[K_REQ_FIFO] else t
    S.sm[M_INJ_FREE, _input_of(K, sm)] = sent + flits + K[K_ICNT_GAP]
    if S.r[R_R_ENTRY, r] != INST_FETCH:  # GPGPU-Sim's icnt2mem: to the last flit's arrival
        _latency(S, C_TO_MEM, C_TO_MEM_BINS, arrive + flits - S.r[R_R_ISSUE, r])
    # The L2's lookup pipeline (GPGPU-Sim's ROP delay queue) lies between arrival and the queue.
    _event(S, arrive + flits + K[K_L2_LOOKUP], EV_L2_ARRIVE, r)
    return True


# -- warps, CTAs and schedulers ---------------------------------------------------------


def _mark_active(K, S, g, active):
    """Slot ``g`` starts or stops holding a warp: its bit in its scheduler's ``sched_active`` mask."""
    n_sched = K[K_N_SCHED]
    w = g % K[K_SLOTS]
    i = w // n_sched
    if i >= MASK_SLOTS:
        return  # its scheduler scans its slots (_pick); a shift past 63 would be undefined
    k = (g // K[K_SLOTS]) * n_sched + w % n_sched
    bit = np.int64(1) << i
    if active:
        S.sched_active[k] |= bit
    else:
        S.sched_active[k] &= ~bit


def _blocks_possible(S, sm):
    """Whether a warp of ``sm`` may be policy-blocked: some block counted (``ctl_nblocked``) or one
    set since the last count (``ctl_changed``, which every block sets: ``set_blocked``)."""
    return S.sm[M_CTL_NBLOCKED, sm] > 0 or S.sm[M_CTL_CHANGED, sm] != 0


def _retire_if_done(K, S, g):
    """Retire slot ``g`` if it issued everything, its loads are back and the LD/ST unit is done with it.

    A warp's last store can still be in the LD/ST unit (sending its line
    requests), waiting for it (``ldst_queue``) or in the lookup pipeline when the warp issues its last
    instruction: the slot stays taken until both are done with it, or a new
    warp in the slot would be charged with the store, and the kernel could end
    with the unit still busy. Under ``store_acks`` it also waits for its stores'
    acknowledgements (GPGPU-Sim's ``stores_done``).
    """
    sm = g // K[K_SLOTS]
    if S.w[W_W_DONE, g] and S.w[W_W_PEND, g] == 0 and S.sm[M_LD_SLOT, sm] != g - sm * K[K_SLOTS] \
            and S.w[W_W_LQ, g] == 0 and S.w[W_W_LDQ, g] == 0 and S.w[W_W_STORES, g] == 0:
        _retire(K, S, g)


def _retire(K, S, g):
    """Warp slot ``g`` has issued everything and its loads are back: free it."""
    sm = g // K[K_SLOTS]
    S.sm[M_WAKE, sm] = WAKE_ALL
    S.w[W_W_ACTIVE, g] = False
    _mark_active(K, S, g, False)
    S.w[W_CTL_GWARP, g] = -1
    # A warp's exit ends the load blocks (BLOCK_LOADS) of the SM's other warps: the policy that set
    # them (CCWS) stacked the warps with this one among them and decides again at the SM's next L1
    # access. Its public code restacks every cycle; without this an SM whose unblocked warps have
    # all exited keeps the rest blocked until its next L1 event, or, when none comes, until the whole
    # GPU idles and the loop releases every block (_unblock; docs/policies/ciao18.md).
    # With no block counted or pending (a policy's change sets ctl_changed), no resident warp is
    # blocked and every slot's w_stall_t is 0, as a count would leave them, and no slot is load-blocked
    # (CCWS blocks resident warps only, and a warp leaves its slot here): both scans are skipped
    # (PVC's warps live for about ten instructions, and each scans the SM's slots).
    if _blocks_possible(S, sm):
        base = sm * K[K_SLOTS]
        for w2 in range(K[K_SLOTS]):
            if S.w[W_CTL_BLOCKED, base + w2] == BLOCK_LOADS:
                S.w[W_CTL_BLOCKED, base + w2] = UNBLOCKED
        _count_blocked(K, S, sm)
    S.sm[M_CTL_RESIDENT, sm] -= 1
    S.sm[M_SM_WARPS, sm] -= 1
    c = sm * K[K_MAX_CTAS] + S.w[W_W_CTA, g]
    S.cta[T_CTA_LIVE, c] -= 1
    S.sm[M_SM_ELIG_DIRTY, sm] = True
    if S.cta[T_CTA_LIVE, c] > 0:
        _release_stalled(K, S, sm)  # no CTA can start here now: the check after dispatch does not run
    else:
        S.cta[T_CTA_ID, c] = -1
        S.sm[M_SM_CTAS, sm] -= 1
        S.sm[M_SM_THREADS, sm] -= K[K_TPC]
        S.sm[M_SM_REGS, sm] -= K[K_REGS_CTA]
        S.sm[M_SM_SMEM, sm] -= K[K_SMEM_CTA]
        S.sc[S_RETIRED] += 1
        S.sc[S_DISPATCH] = 1


def _release_stalled(K, S, sm):
    """Release the policy's blocks on ``sm`` when every warp there with instructions left is blocked.

    ciao18 reactivates a stalled warp at a low-cut-off epoch once its pair warp has completed
    (Algorithm 1), but its epochs are counted in the SM's instructions: when the SM's unstalled
    warps have all exited, no instruction issues and no epoch ends, and the SM would wait for the
    whole GPU to idle (:func:`_unblock`). So the SM's blocks are released when a warp's exit or a
    CTA dispatch leaves it so (``docs/timing.md``, "Policy blocks"): all of them at once
    (``stalled_release = "all"``), or only the warp blocked last (``"last"``, ciao18's "in the
    reverse order": the latest ``w_stall_t``, of equals the highest slot), the next one at the
    next exit that leaves the SM so again. The policy hears of it as of any block the timing model
    clears.
    """
    if not _blocks_possible(S, sm):
        return  # the scan below would return at once
    base = sm * K[K_SLOTS]
    n = np.int64(0)
    last = np.int64(-1)
    last_t = np.int64(-1)
    for w in range(K[K_SLOTS]):
        g = base + w
        if S.w[W_W_ACTIVE, g] and not S.w[W_W_DONE, g]:
            if S.w[W_CTL_BLOCKED, g] == UNBLOCKED:
                return
            n += 1
            # A block the loop has not counted yet (ctl_changed still set) is this cycle's.
            stall_t = S.w[W_W_STALL_T, g] if S.w[W_W_STALL_T, g] else S.sc[S_CYCLE] + 1
            if stall_t >= last_t:
                last, last_t = g, stall_t
    if n == 0:
        return
    _rouse(K, S, sm)  # its quiet cycles so far had the blocked warps: count them before the count changes
    if K[K_STALLED_RELEASE] == 1:
        S.w[W_CTL_BLOCKED, last] = UNBLOCKED
        _count_blocked(K, S, sm)
    else:
        for w in range(K[K_SLOTS]):
            S.w[W_CTL_BLOCKED, base + w] = UNBLOCKED
            S.w[W_W_STALL_T, base + w] = 0
        S.sm[M_CTL_NBLOCKED, sm] = 0
    S.sm[M_WAKE, sm] = WAKE_ALL
    S.c[C_POLICY_RELEASES_SM] += 1


def _finish_issue(K, S, g):
    """Slot ``g`` issued its last instruction."""
    S.w[W_W_DONE, g] = True
    _set_ready(K, S, g // K[K_SLOTS], np.int64(-1))
    c = (g // K[K_SLOTS]) * K[K_MAX_CTAS] + S.w[W_W_CTA, g]
    S.cta[T_CTA_DONE, c] += 1
    _release_barrier(K, S, g // K[K_SLOTS], c)
    _retire_if_done(K, S, g)


def _release_barrier(K, S, sm, c):
    """Release CTA ``c``'s warps once all that still run have reached the barrier."""
    if S.cta[T_CTA_ARRIVED, c] == 0 or S.cta[T_CTA_ARRIVED, c] + S.cta[T_CTA_DONE, c] < K[K_WPC]:
        return
    S.cta[T_CTA_ARRIVED, c] = 0
    S.sm[M_WAKE, sm] = WAKE_ALL
    slot_c = c - sm * K[K_MAX_CTAS]
    for w in range(K[K_SLOTS]):
        g = sm * K[K_SLOTS] + w
        if S.w[W_W_ACTIVE, g] and S.w[W_W_CTA, g] == slot_c and S.w[W_W_BAR, g]:
            S.w[W_W_BAR, g] = False
            if S.w[W_W_ROW, g] == S.w[W_W_END, g] and S.w[W_W_LEFT, g] == 0:
                # The barrier was the warp's last instruction: it is done (no further release
                # can follow, the count of arrivals has just been reset).
                S.w[W_W_DONE, g] = True
                _set_ready(K, S, sm, np.int64(-1))
                S.cta[T_CTA_DONE, c] += 1
                _retire_if_done(K, S, g)


def _issue_block2core(K, S, P):
    """``cta_issue = "rotating"``: GPGPU-Sim's ``gpgpu_sim::issue_block2core``; True if a CTA started.

    Each cluster may start one CTA this cycle, on the first of its SMs, in turn
    from the one after the SM it started its last CTA on, that has room
    (``simt_core_cluster::issue_block2core``). The clusters are visited from the
    one after the last cluster that started a CTA when the cycle began; the
    turns are kept from one kernel to the next.
    """
    per = K[K_SMS_PER_CLUSTER]
    n_cl = K[K_N_SM] // per
    last = S.sc[S_CTA_LAST]
    started = False
    for i in range(n_cl):
        cl = last + 1 + i
        if cl >= n_cl:
            cl -= n_cl
        core = S.sm[M_CTA_CORE, cl]
        for _ in range(per):
            core += 1
            if core >= per:
                core = 0
            if _dispatch(K, S, P, cl * per + core):
                S.sm[M_CTA_CORE, cl] = core
                S.sc[S_CTA_LAST] = cl
                started = True
                break
    return started


def _dispatch(K, S, P, sm):
    """Start the next CTA on ``sm`` if it fits; True when one started."""
    cta = S.sc[S_NEXT_CTA]
    if cta >= K[K_N_CTAS]:
        return False
    if (S.sm[M_SM_CTAS, sm] + 1 > K[K_MAX_CTAS] or S.sm[M_SM_WARPS, sm] + K[K_WPC] > K[K_SLOTS]
            or S.sm[M_SM_THREADS, sm] + K[K_TPC] > K[K_MAX_THREADS]
            or S.sm[M_SM_REGS, sm] + K[K_REGS_CTA] > K[K_MAX_REGS]
            or S.sm[M_SM_SMEM, sm] + K[K_SMEM_CTA] > K[K_MAX_SMEM]):
        return False
    _rouse(K, S, sm)
    S.sc[S_NEXT_CTA] = cta + 1
    S.sm[M_WAKE, sm] = WAKE_ALL
    S.sm[M_CTL_WPC, sm] = K[K_WPC]
    slot_c = np.int64(0)
    while S.cta[T_CTA_ID, sm * K[K_MAX_CTAS] + slot_c] >= 0:
        slot_c += 1
    c = sm * K[K_MAX_CTAS] + slot_c
    S.cta[T_CTA_ID, c] = cta
    S.cta[T_CTA_LIVE, c] = K[K_WPC]
    S.cta[T_CTA_ARRIVED, c] = 0
    S.cta[T_CTA_DONE, c] = 0
    S.sm[M_SM_CTAS, sm] += 1
    S.sm[M_SM_WARPS, sm] += K[K_WPC]
    if S.sm[M_SM_WARPS, sm] > S.sc[S_PEAK_SM_WARPS]:
        S.sc[S_PEAK_SM_WARPS] = S.sm[M_SM_WARPS, sm]
    S.sm[M_SM_THREADS, sm] += K[K_TPC]
    S.sm[M_SM_REGS, sm] += K[K_REGS_CTA]
    S.sm[M_SM_SMEM, sm] += K[K_SMEM_CTA]
    S.c[C_CTAS] += 1
    w = np.int64(0)
    for k in range(K[K_WPC]):
        while S.w[W_W_ACTIVE, sm * K[K_SLOTS] + w]:
            w += 1
        g = sm * K[K_SLOTS] + w
        gw = cta * K[K_WPC] + k
        S.w[W_W_ACTIVE, g] = True
        _mark_active(K, S, g, True)
        S.w[W_W_CTA, g] = slot_c
        S.w[W_W_CTA_ID, g] = cta
        S.w[W_W_WARP, g] = k
        S.w[W_W_ROW, g] = P.warp_ptr[gw]
        S.w[W_W_END, g] = P.warp_ptr[gw + 1]
        first = S.w[W_W_ROW, g]
        S.w[W_W_LEFT, g] = np.int64(P.gap[first]) if first < S.w[W_W_END, g] else P.tail[gw]
        S.w[W_W_TAIL, g] = P.tail[gw]
        S.w[W_W_PEND, g] = 0
        S.w[W_W_STOP, g] = NO_STOP
        S.w[W_W_OLD, g] = S.w[W_W_ROW, g]
        S.w[W_W_BAR, g] = False
        S.w[W_W_DONE, g] = False
        S.w[W_W_AGE, g] = S.sc[S_AGE]
        S.w[W_W_ACT2, g] = False
        S.sc[S_AGE] += 1
        S.w[W_CTL_GWARP, g] = gw
        S.w[W_CTL_BLOCKED, g] = 0  # a new warp starts unblocked (a policy's block was its predecessor's)
        S.w[W_W_STALL_T, g] = 0
        S.w[W_CTL_REDIRECT, g] = 0
        S.w[W_CTL_WINST, g] = 0
        S.w[W_W_PC, g] = 0
        S.w[W_W_ILINE, g] = 0
        S.w[W_W_IMISS, g] = 0
        if K[K_IC_SETS] > 0:
            _fetch_next(K, S, P, sm, g)
        S.sm[M_CTL_RESIDENT, sm] += 1
    if S.sm[M_CTL_FIRST_CTA, sm] < 0:
        S.sm[M_CTL_FIRST_CTA, sm] = S.sc[S_CYCLE]
        if K[K_LOG_CAP] > 0:
            _log(K, S, sm, np.int64(0), np.int64(0), np.int64(LOG_FIRST_CTA))
    _set_ready(K, S, sm, K[K_WPC])
    S.sm[M_SM_ELIG_DIRTY, sm] = True
    # Warps without any instruction finish at once.
    for w2 in range(K[K_SLOTS]):
        g = sm * K[K_SLOTS] + w2
        if S.w[W_W_ACTIVE, g] and S.w[W_W_CTA, g] == slot_c and not S.w[W_W_DONE, g] \
                and S.w[W_W_ROW, g] == S.w[W_W_END, g] \
                and S.w[W_W_LEFT, g] == 0:
            _finish_issue(K, S, g)
    return True


def _why(K, W, M, op, space, sm, g):
    """Can warp slot ``g`` issue now? OK or the reason it cannot (``layout.STALLS``)."""
    if not W[W_W_ACTIVE, g] or W[W_W_DONE, g]:
        return WHY_NONE
    if W[W_W_BAR, g]:
        return WHY_BAR
    if W[W_W_IMISS, g] != 0:
        return WHY_FETCH
    blocked = W[W_CTL_BLOCKED, g]
    if blocked == BLOCK_ALL or not W[W_W_ELIG, g]:
        return WHY_THROTTLE
    if blocked == BLOCK_LOADS and W[W_W_LEFT, g] == 0 and op[W[W_W_ROW, g]] == LOAD \
            and space[W[W_W_ROW, g]] == GLOBAL:
        # CCWS: a throttled warp may issue anything but a global load (its next instruction here).
        return WHY_THROTTLE
    dep = K[K_DEP]
    if dep == DEP_REGISTERS:
        if W[W_W_STOP, g] <= W[W_CTL_WINST, g]:
            return WHY_MEM
        if W[W_W_LEFT, g] > 0:
            return OK
    elif W[W_W_LEFT, g] > 0:
        if dep == 2 and W[W_W_PEND, g] > 0:
            return WHY_MEM
        return OK
    elif dep != 1 and W[W_W_PEND, g] > 0:
        return WHY_MEM
    r = W[W_W_ROW, g]
    if (space[r] == GLOBAL or space[r] == SHARED and K[K_SMEM_UNIT]) and op[r] != BARRIER \
            and M[M_LD_SLOT, sm] >= 0 and M[M_LDQ_N, sm] >= K[K_LDST_QUEUE]:
        return WHY_STRUCT
    return OK


def _limit(K, M, sm):
    """The warp limit of ``sm``: the configured one or a policy's lower one; 0 for none."""
    limit = K[K_WARP_LIMIT]
    if M[M_CTL_LIMIT, sm] > 0 and (limit == 0 or M[M_CTL_LIMIT, sm] < limit):
        limit = M[M_CTL_LIMIT, sm]
    return limit


def _eligible(K, W, sm, g, limit):
    """Whether slot ``g`` of ``sm`` holds a warp among the ``limit`` oldest resident ones (0: any)."""
    if not W[W_W_ACTIVE, g]:
        return False
    if limit == 0:
        return True
    base = sm * K[K_SLOTS]
    older = 0
    for w2 in range(K[K_SLOTS]):
        g2 = base + w2
        if W[W_W_ACTIVE, g2] and (W[W_CTL_PRIO, g2], W[W_W_AGE, g2]) < (W[W_CTL_PRIO, g], W[W_W_AGE, g]):
            older += 1
    return older < limit


def _eligibility(K, W, M, sm):
    """Warp limiting: only the ``limit`` oldest resident warps may issue."""
    limit = _limit(K, M, sm)
    base = sm * K[K_SLOTS]
    if limit == 0:
        # No limit: every resident warp (_eligible's answer, without a call per slot).
        for g in range(base, base + K[K_SLOTS]):
            W[W_W_ELIG, g] = W[W_W_ACTIVE, g]
    else:
        for g in range(base, base + K[K_SLOTS]):
            W[W_W_ELIG, g] = _eligible(K, W, sm, g, limit)
    M[M_SM_ELIG_DIRTY, sm] = False


def _pick(K, S, P, sm, s):
    """The slot scheduler ``s`` of ``sm`` issues this cycle, or ``-reason``."""
    # The state and the program go by reference: by value, a call would copy five arrays' descriptors.
    W = S.w
    M = S.sm
    last_of = S.sched_last
    op = P.op
    space = P.space
    n_sched = K[K_N_SCHED]
    m = (K[K_SLOTS] - s + n_sched - 1) // n_sched
    base = sm * K[K_SLOTS]
    last = last_of[sm * n_sched + s]
    policy = K[K_SCHED]
    why = _greedy_why(K, W, M, op, space, sm, last)
    if why == OK:
        return last
    worst = why  # WHY_NONE, the least reason, unless gto's last warp gave another
    if policy == 0 or policy == 3:  # lrr (and two-level's active set): round robin after the last
        start = 0 if last < 0 else last // n_sched + 1
        if policy == 3:
            _two_level(K, W, M, op, space, sm, s, m)
        for k in range(m):
            i = start + k
            if i >= m:
                i -= m
            w = s + i * n_sched
            g = base + w
            if policy == 3 and not W[W_W_ACT2, g]:
                if W[W_W_ACTIVE, g] and not W[W_W_DONE, g]:
                    worst = max(worst, np.int64(WHY_MEM))
                continue
            why = _why(K, W, M, op, space, sm, g)
            if why == OK:
                return w
            worst = max(worst, why)
        return -worst
    # gto's fallback and oldest: the ready warp with the lowest (priority, age) (_oldest_ready). A
    # slot with no warp gives the least reason (WHY_NONE, where worst starts): only the resident
    # warps are asked, in slot order, through the scheduler's mask of them when it has at most
    # MASK_SLOTS slots (the scan over every slot costs about 25 instructions a slot; PVC's SMs hold
    # few warps).
    best = np.int64(-1)
    if m <= MASK_SLOTS:
        resident = S.sched_active[sm * n_sched + s]
        while resident != 0:
            i = trailing_zeros(resident)
            resident &= resident - 1
            best, worst = _oldest_ready(K, W, M, op, space, sm, base, s + i * n_sched, best, worst)
    else:
        for i in range(m):
            if W[W_W_ACTIVE, base + s + i * n_sched]:
                best, worst = _oldest_ready(K, W, M, op, space, sm, base, s + i * n_sched, best, worst)
    if best >= 0:
        return best
    return -worst


def _greedy_why(K, W, M, op, space, sm, last):
    """gto's greedy choice: OK when the scheduler's last warp (slot ``last`` of ``sm``) may issue again,
    else why not; ``WHY_NONE``, the least reason, for another scheduler or no last warp."""
    if K[K_SCHED] != 1 or last < 0:
        return np.int64(WHY_NONE)
    return np.int64(_why(K, W, M, op, space, sm, sm * K[K_SLOTS] + last))


def _oldest_ready(K, W, M, op, space, sm, base, w, best, worst):
    """gto's fallback and oldest, one resident slot ``w`` on: the ready warp with the lowest (priority,
    age) so far and, while none is ready, the worst reason. A warp no older than a ready one is not
    asked (a stall's reason is wanted only when no warp is ready)."""
    g = base + w
    if best >= 0 and not (W[W_CTL_PRIO, g], W[W_W_AGE, g]) < (W[W_CTL_PRIO, base + best],
                                                              W[W_W_AGE, base + best]):
        return best, worst
    why = _why(K, W, M, op, space, sm, g)
    if why == OK:
        return w, worst
    if best < 0:
        return best, max(worst, why)
    return best, worst


def _two_level(K, W, M, op, space, sm, s, m):
    """GPGPU-Sim's two-level scheduler: keep up to ``two_level_active`` warps in the active set.

    A warp in the active set that waits (for memory or at a barrier: GPGPU-Sim's
    ``shd_warp_t::waiting()`` counts a warp at a barrier as waiting) leaves it; the oldest
    resident warps that do not wait fill it up. A barrier's waiters must leave, or an active set
    full of them would shut out the warps the barrier waits for.
    """
    n_sched = K[K_N_SCHED]
    base = sm * K[K_SLOTS]
    count = 0
    for i in range(m):
        g = base + s + i * n_sched
        if W[W_W_ACT2, g]:
            why = _why(K, W, M, op, space, sm, g)
            if not W[W_W_ACTIVE, g] or W[W_W_DONE, g] or why == WHY_MEM or why == WHY_BAR:
                W[W_W_ACT2, g] = False
            else:
                count += 1
    while count < K[K_TWO_ACTIVE]:
        best = np.int64(-1)
        for i in range(m):
            g = base + s + i * n_sched
            if W[W_W_ACTIVE, g] and not W[W_W_DONE, g] and not W[W_W_ACT2, g] \
                    and _why(K, W, M, op, space, sm, g) not in (WHY_MEM, WHY_BAR):
                if best < 0 or W[W_W_AGE, g] < W[W_W_AGE, best]:
                    best = g
        if best < 0:
            break
        W[W_W_ACT2, best] = True
        count += 1


def _ldst_start(S, P, sm, w, r):
    """The LD/ST unit of ``sm`` takes instruction row ``r`` of warp slot ``w``: it sends its line
    requests (a global row: ``ld_next`` the next request) or makes its bank accesses (a shared row:
    ``ld_next`` the accesses made)."""
    S.sm[M_LD_SLOT, sm] = w
    S.sm[M_LD_ROW, sm] = r
    S.sm[M_LD_NEXT, sm] = P.req_ptr[r] if P.space[r] == GLOBAL else 0


def _ldst_unit_free(K, S, P, sm):
    """The LD/ST unit of ``sm`` is done with its instruction: it takes the next from the next cycle,
    and the warp may retire."""
    g = sm * K[K_SLOTS] + S.sm[M_LD_SLOT, sm]
    S.sm[M_LD_SLOT, sm] = -1
    S.sm[M_WAKE, sm] = WAKE_ALL
    _ldst_next(K, S, P, sm)  # it sends from the next cycle, as an instruction just issued
    if S.w[W_W_ACTIVE, g]:
        _retire_if_done(K, S, g)


def _bank_access(K, S, P, sm, t):
    """The LD/ST unit of ``sm`` makes one bank access of its shared-memory row (GPGPU-Sim's
    ``ldst_unit::shared_cycle``). After the last, a load's result is ``smem_latency - 1`` cycles
    on (the pipeline's stages) and the unit is free."""
    r = S.sm[M_LD_ROW, sm]
    S.sm[M_LD_NEXT, sm] += 1
    S.c[C_SMEM_BANK_ACC] += 1
    if S.sm[M_LD_NEXT, sm] > 1:
        S.c[C_SMEM_BANK_CONFLICTS] += 1
    if S.sm[M_LD_NEXT, sm] < np.int64(P.smem_cycles[r]):
        return
    if P.op[r] == LOAD and K[K_SMEM_LAT] > 0:
        g = sm * K[K_SLOTS] + S.sm[M_LD_SLOT, sm]
        _event(S, t + K[K_SMEM_LAT] - 1, EV_SMEM, _hit_payload(K, g, r))
    _ldst_unit_free(K, S, P, sm)


def _ldq_move(S, a, b):
    """Queue entry ``a`` (an index into ``S.ldq``) moves to entry ``b``; ``a`` is empty after."""
    S.ldq[D_LDQ_SLOT, b] = S.ldq[D_LDQ_SLOT, a]
    S.ldq[D_LDQ_ROW, b] = S.ldq[D_LDQ_ROW, a]
    S.ldq[D_LDQ_ROW, a] = -1


def _ldq_free_entry(S, base, d):
    """Where an instruction enters a round-robin queue of ``d`` entries from ``base``:
    ``OC_EX_MEM`` (entry 0) if it is empty, which it is only with the whole queue; else the lowest
    free collector unit (entries 1 to ``d - 2``; GPGPU-Sim's ``allocate_cu``); else ``ID_OC_MEM``
    (entry ``d - 1``) while every unit is taken."""
    for k in range(d - 1):
        if S.ldq[D_LDQ_ROW, base + k] < 0:
            return base + k
    return base + d - 1


def _ldq_dispatch(S, sm, base, d):
    """``OC_EX_MEM`` (entry 0 of the round-robin queue from ``base``) has just been taken: the
    collector unit after the one dispatched last that holds an instruction moves into it
    (``dispatch_unit_t::find_ready``), then ``ID_OC_MEM``'s instruction into the lowest free unit
    (``allocate_cu``, after the dispatch within GPGPU-Sim's cycle). Every instruction of the queue
    but ``OC_EX_MEM``'s is in a unit while one is free, so a waiting instruction is always found,
    and ``OC_EX_MEM`` is full again whenever ``ID_OC_MEM`` held one."""
    S.ldq[D_LDQ_ROW, base] = -1
    units = d - 2
    last = S.sm[M_LDQ_HEAD, sm]
    for n in range(units):
        c = (last + 1 + n) % units
        if S.ldq[D_LDQ_ROW, base + 1 + c] >= 0:
            _ldq_move(S, base + 1 + c, base)
            S.sm[M_LDQ_HEAD, sm] = c
            break
    if S.ldq[D_LDQ_ROW, base + d - 1] >= 0:
        _ldq_move(S, base + d - 1, _ldq_free_entry(S, base, d))


def _ldst_next(K, S, P, sm):
    """The LD/ST unit of ``sm`` is free: it takes the next instruction of its queue, if any (the
    oldest, or under ``ldst_dispatch`` round-robin ``OC_EX_MEM``'s)."""
    if S.sm[M_LDQ_N, sm] == 0:
        return
    d = K[K_LDST_QUEUE]
    if K[K_LDST_RR]:
        q = sm * d
    else:
        q = sm * d + S.sm[M_LDQ_HEAD, sm]
        S.sm[M_LDQ_HEAD, sm] = (S.sm[M_LDQ_HEAD, sm] + 1) % d
    w = S.ldq[D_LDQ_SLOT, q]
    r = S.ldq[D_LDQ_ROW, q]
    if K[K_LDST_RR]:
        _ldq_dispatch(S, sm, q, d)
    S.sm[M_LDQ_N, sm] -= 1
    S.w[W_W_LDQ, sm * K[K_SLOTS] + w] -= 1
    if K[K_LOG_LDST]:
        _log(K, S, sm, sm * K[K_SLOTS] + w, r, np.int64(LOG_LDST_TAKE))
    _ldst_start(S, P, sm, w, r)


def _ldst_take(K, S, P, sm, g, w, r):
    """Memory row ``r`` of warp slot ``w`` (``g`` on the GPU) goes to the LD/ST unit of ``sm``, or
    waits in its queue while the unit is busy (``_why`` checked room): at its tail, or under
    ``ldst_dispatch`` round-robin in ``OC_EX_MEM`` if that is empty (so is the queue), else in the
    lowest free collector unit, else in ``ID_OC_MEM``."""
    if K[K_LOG_LDST]:
        _log(K, S, sm, g, r, np.int64(LOG_MEM_ISSUE))
    if S.sm[M_LD_SLOT, sm] < 0:
        if K[K_LOG_LDST]:
            _log(K, S, sm, g, r, np.int64(LOG_LDST_TAKE))
        _ldst_start(S, P, sm, w, r)
        return
    d = K[K_LDST_QUEUE]
    if K[K_LDST_RR]:
        q = _ldq_free_entry(S, sm * d, d)
    else:
        q = sm * d + (S.sm[M_LDQ_HEAD, sm] + S.sm[M_LDQ_N, sm]) % d
    S.ldq[D_LDQ_SLOT, q] = w
    S.ldq[D_LDQ_ROW, q] = r
    S.sm[M_LDQ_N, sm] += 1
    S.w[W_W_LDQ, g] += 1


def _issue(K, S, P, sm, w, t):
    """Slot ``w`` of ``sm`` issues its next instruction."""
    g = sm * K[K_SLOTS] + w
    S.c[C_INST] += 1
    S.sm[M_CTL_INST, sm] += 1
    S.w[W_CTL_WINST, g] += 1
    if S.w[W_W_LEFT, g] > 0:
        S.w[W_W_LEFT, g] -= 1
        if K[K_IC_SETS] > 0:
            S.w[W_W_PC, g] += 16
            _fetch_next(K, S, P, sm, g)
    else:
        r = S.w[W_W_ROW, g]
        o = np.int64(P.op[r])
        if o == BARRIER:
            S.c[C_BARRIERS] += 1
            S.w[W_W_BAR, g] = True
            c = sm * K[K_MAX_CTAS] + S.w[W_W_CTA, g]
            S.cta[T_CTA_ARRIVED, c] += 1
        elif P.space[r] == GLOBAL:
            S.c[C_GLOBAL] += 1
            n = P.req_ptr[r + 1] - P.req_ptr[r]
            if n > 0:
                _ldst_take(K, S, P, sm, g, w, r)
                if o != STORE:
                    S.w[W_W_PEND, g] += n
                    S.w[W_W_LOAD_T, g] = t
                    if K[K_DEP] == DEP_REGISTERS:
                        _pending(S, P, g, r, n)
        elif P.space[r] == SHARED:
            S.c[C_SHARED] += 1
            if K[K_SMEM_UNIT]:
                # It takes the LD/ST unit, or waits in its queue, as a global instruction does.
                _ldst_take(K, S, P, sm, g, w, r)
            if o == LOAD and K[K_SMEM_LAT] > 0:
                # Its result comes smem_latency cycles on (after its bank accesses with the unit);
                # the warp's dependences wait for it as for a global load's (GPGPU-Sim's
                # shared-memory pipeline, gpgpu_smem_latency).
                S.w[W_W_PEND, g] += 1
                if K[K_DEP] == DEP_REGISTERS:
                    _pending(S, P, g, r, 1)
                if not K[K_SMEM_UNIT]:
                    _event(S, t + K[K_SMEM_LAT], EV_SMEM, _hit_payload(K, g, r))
        else:
            S.c[C_OTHER] += 1
        r += 1
        S.w[W_W_ROW, g] = r
        S.w[W_W_LEFT, g] = np.int64(P.gap[r]) if r < S.w[W_W_END, g] else S.w[W_W_TAIL, g]
        if K[K_IC_SETS] > 0:
            S.w[W_W_PC, g] = np.int64(P.pc[r - 1])
            _fetch_next(K, S, P, sm, g)
        if o == BARRIER:
            _release_barrier(K, S, sm, sm * K[K_MAX_CTAS] + S.w[W_W_CTA, g])
            return
    if S.w[W_W_ROW, g] == S.w[W_W_END, g] and S.w[W_W_LEFT, g] == 0 and not S.w[W_W_BAR, g] \
            and not S.w[W_W_DONE, g]:
        _finish_issue(K, S, g)


# -- the loop ----------------------------------------------------------------------------


def _handle(buf, K, S, h1, h2, h3, t, v):
    kind = v >> _EV_SHIFT
    x = v & _EV_MASK
    S.c[C_EV_HIT - EV_HIT + kind] += 1  # the events_* counters follow the EV_* codes
    if kind == EV_HIT:
        n_slots = K[K_N_SM] * K[K_SLOTS]
        _load_done(K, S, x % n_slots, x // n_slots, t)
    elif kind == EV_L2_ARRIVE:
        _part_append(S, S.r[R_R_PART, x], P_Q_HEAD, P_Q_TAIL, P_Q_N, x)
    elif kind == EV_L2_FILL:
        _l2_fill(buf, K, S, h1, h2, h3, t, x)
    elif kind == EV_DRAM_ARRIVE:
        _dram_arrive(K, S, t, x)
    elif kind == EV_DRAM_WAKE and K[K_DRAM_COMMANDS]:
        _dram_tick(K, S, t, x)
    elif kind == EV_DRAM_WAKE:
        if S.ch[H_DQ_WAKE, x] == t:
            S.ch[H_DQ_WAKE, x] = -1
        _dram_schedule(K, S, t, x)
    elif kind == EV_PORT_ARRIVE:
        _port_arrive(K, S, t, x)
    elif kind == EV_PORT_FREE:
        _port_serve(K, S, t, x)
    elif kind == EV_SMEM:
        n_slots = K[K_N_SM] * K[K_SLOTS]
        _result_back(K, S, x % n_slots, x // n_slots)
        _retire_if_done(K, S, x % n_slots)
    else:
        _l1_fill(buf, K, S, h1, h2, h3, t, x)


def _loop(buf, K, S, P, h1, h2, h3, budget):
    # The SM table, the counters and the scalars in locals: read through S, each use after a store
    # reads their descriptors again (a store to any int64 array may alias them); a local may not be.
    M = S.sm
    C = S.c
    SC = S.sc
    t = SC[S_CYCLE]
    stop = t + budget
    n_sm = K[K_N_SM]
    n_sched = K[K_N_SCHED]
    while t < stop:
        SC[S_CYCLE] = t
        C[C_LOOP_CYCLES] += 1
        busy = False
        event_advance(S.ev_node, S.ev_bucket, S.ev_ovf, S.ev_meta, t)
        while event_due(S.ev_bucket, S.ev_meta):
            _handle(buf, K, S, h1, h2, h3, t, event_pop(S.ev_node, S.ev_bucket, S.ev_meta))
            busy = True
        for part in range(K[K_N_PART]):
            if S.part[P_Q_N, part] > 0 and not _l2_output_full(K, S, part):
                r = S.part[P_Q_HEAD, part]
                nxt = S.r[R_R_NEXT, r]
                if _l2_serve(buf, K, S, h1, h2, h3, t, part, r):
                    S.part[P_Q_HEAD, part] = nxt
                    S.part[P_Q_N, part] -= 1
                    if S.part[P_Q_N, part] == K[K_L2_IN_CAP] - 1:
                        _l2_took(K, S, part)
                    busy = True
        if SC[S_DISPATCH]:
            SC[S_DISPATCH] = 0
            if K[K_CTA_ROTATING]:
                if _issue_block2core(K, S, P):
                    busy = True
                    SC[S_DISPATCH] = 1  # another CTA may fit next cycle
            else:
                # Round robin over the SMs, one CTA each per turn, until none fits: every CTA that
                # fits starts this cycle (as in the interleaver's waves).
                started = True
                while started:
                    started = False
                    for sm in range(n_sm):
                        if _dispatch(K, S, P, sm):
                            busy = True
                            started = True
            for sm in range(n_sm):
                _release_stalled(K, S, sm)  # a CTA left an SM and none came in its place
        issued_any = False
        for sm in range(n_sm):
            if M[M_IDLE_FROM, sm] >= 0:
                continue  # idle until a CTA starts on it: its cycles are settled later (_settle)
            if M[M_QUIET_FROM, sm] >= 0:
                if t < M[M_QUIET_UNTIL, sm] and not _prompted(S, sm):
                    continue  # still quiet: its cycles are settled later (_settle)
                _rouse(K, S, sm)
            if M[M_SM_WARPS, sm] == 0 and M[M_MQ_N, sm] == 0 and M[M_LD_SLOT, sm] < 0 \
                    and M[M_LQ_N, sm] == 0:
                # An idle SM: its schedulers have no warp, and nothing but a CTA's start gives it
                # work. Its cycles from this one on are settled in bulk (not under self_check,
                # which counts them here).
                if K[K_SELF_CHECK]:
                    _idle_cycles(K, S, np.int64(1))
                else:
                    M[M_IDLE_FROM, sm] = t
                continue
            worked = False  # for loop_sm_cycles_idle
            if M[M_MQ_N, sm] > 0 and _inject(K, S, t, sm):
                busy = True
                worked = True
            # GPGPU-Sim's order: the lookups at the head of the l1_latency queue, then the LD/ST
            # unit's new requests into it.
            if M[M_LQ_N, sm] > 0 and _lookups(buf, K, S, h1, h2, h3, t, sm, P):
                busy = True
                worked = True
            if M[M_LD_SLOT, sm] >= 0 and P.space[M[M_LD_ROW, sm]] != GLOBAL:
                _bank_access(K, S, P, sm, t)
                busy = True
                worked = True
            elif M[M_LD_SLOT, sm] >= 0:
                row = M[M_LD_ROW, sm]
                end = P.req_ptr[row + 1]
                for _ in range(K[K_L1_PORTS]):
                    i = M[M_LD_NEXT, sm]
                    if i >= end:
                        break
                    if not _l1_send(buf, K, S, h1, h2, h3, t, sm, M[M_LD_SLOT, sm], row, i, P):
                        break
                    M[M_LD_NEXT, sm] = i + 1
                    M[M_LD_FAIL, sm] = 0
                    M[M_LD_ASKED, sm] = -1
                    busy = True
                    worked = True
                if M[M_LD_NEXT, sm] >= end:
                    _ldst_unit_free(K, S, P, sm)
            if M[M_SM_ELIG_DIRTY, sm] or M[M_CTL_LIMIT, sm] != M[M_SM_LIMIT_SEEN, sm]:
                M[M_SM_LIMIT_SEEN, sm] = M[M_CTL_LIMIT, sm]
                _eligibility(K, S.w, M, sm)
                M[M_WAKE, sm] = WAKE_ALL
            if M[M_CTL_CHANGED, sm]:
                # A policy hook blocked or unblocked one of the SM's warps (SchedulerControl.changed).
                M[M_CTL_CHANGED, sm] = 0
                M[M_WAKE, sm] = WAKE_ALL
                _count_blocked(K, S, sm)
            _sm_cycles(S, sm, np.int64(1))
            C[C_LOOP_SM_CYCLES] += 1
            C[C_SLOT_CYCLES] += K[K_SLOTS]
            # A scheduler that found no warp to issue sleeps until something that can make a warp
            # ready happens in its SM (a load returns, a barrier opens, the LD/ST unit frees, a CTA
            # starts or retires, a policy blocks or unblocks a warp): until then it stalls for the
            # same reason, unscanned.
            # The first scheduler: 0, or rotating every cycle (issue_order; GPGPU-Sim 4's Issue_Prio).
            first = t % n_sched if K[K_ISSUE_ROTATING] else 0
            for i_s in range(n_sched):
                s = first + i_s
                if s >= n_sched:
                    s -= n_sched
                k = sm * n_sched + s
                C[C_ISSUE_CYCLES] += 1
                # Read per scheduler: an earlier scheduler's issue this cycle may wake a later one
                # (the last warp to reach a barrier releases the others).
                wake = (M[M_WAKE, sm] >> s) & 1
                M[M_WAKE, sm] &= ~(np.int64(1) << s)
                if S.sched_sleep[k] > 0 and not wake:
                    if K[K_SELF_CHECK]:
                        _check_asleep(K, S, P, sm, s, S.sched_sleep[k])
                    C[C_STALL_NONE - 1 + S.sched_sleep[k]] += 1
                    continue
                # gto's greedy choice, checked here: most cycles' pick, without a call.
                w = S.sched_last[k]
                if _greedy_why(K, S.w, M, P.op, P.space, sm, w) != OK:
                    w = _pick(K, S, P, sm, s)
                if w >= 0:
                    S.sched_sleep[k] = 0
                    S.sched_last[k] = w
                    _issue(K, S, P, sm, w, t)
                    issued_any = True
                    worked = True
                else:
                    S.sched_sleep[k] = -w
                    C[C_STALL_NONE - 1 - w] += 1
            # Each scheduler cleared its own bit; WAKE_ALL's bits above them wake no one and would
            # keep the SM from going quiet (_prompted).
            M[M_WAKE, sm] &= (np.int64(1) << n_sched) - 1
            if M[M_IC_WANT, sm]:
                _icache_requests(buf, K, S, t, sm)
            # The warps able to issue at the end of the cycle's issue count for the cycle.
            _window_cycles(S, sm, t, np.int64(1))
            if not worked:
                C[C_LOOP_SM_IDLE] += 1
            _quiet(K, S, P, sm, t)
        if issued_any:
            busy = True
        if t >= SC[S_SERIES_NEXT]:
            _series(K, S, t)
        if SC[S_RETIRED] == K[K_N_CTAS] and SC[S_INFLIGHT] == 0 and S.ev_meta[0] == 0:
            SC[S_CYCLE] = t + 1
            SC[S_STATUS] = FINISHED
            _settle_all(K, S, t + 1)
            return
        if SC[S_STATUS] == DEADLOCK:
            _settle_all(K, S, t + 1)
            return
        if busy:
            t += 1
            continue
        # Nothing happened: nothing will until the next event or a free injection port.
        nxt = event_top_time(S.ev_node, S.ev_bucket, S.ev_ovf, S.ev_meta)
        for sm in range(n_sm):
            if M[M_MQ_N, sm] > 0 and _inject_time(K, S, sm) < nxt:
                nxt = max(_inject_time(K, S, sm), t + 1)
            # A pipeline head not yet due is looked up when it is; one that failed this cycle waits
            # for an event or an injection, like the LD/ST unit.
            if M[M_LQ_N, sm] > 0 and t < _lq_ready(K, S, sm) < nxt:
                nxt = _lq_ready(K, S, sm)
        if nxt >= NEVER and _unblock(K, S):
            nxt = t + 1  # only policy-blocked warps could go on: they are released
        if nxt >= NEVER:
            SC[S_STATUS] = DEADLOCK
            SC[S_CYCLE] = t
            _settle_all(K, S, t + 1)
            _blame(K, S)
            return
        nxt = min(nxt, stop)
        skip = nxt - t - 1
        if skip > 0:
            # Idle cycles: every scheduler stalls for the reason it gave this cycle (a quiet SM's
            # are settled later).
            for sm in range(n_sm):
                if M[M_QUIET_FROM, sm] >= 0 or M[M_IDLE_FROM, sm] >= 0:
                    continue
                _retries(S, sm, skip)
                _sm_cycles(S, sm, skip)
                _window_cycles(S, sm, t + 1, skip)
                C[C_SLOT_CYCLES] += skip * K[K_SLOTS]
                for s in range(n_sched):
                    # Nothing issued this cycle: every scheduler of an SM with warps is asleep, on
                    # the reason a scan would give now (the self-check scans).
                    k = sm * n_sched + s
                    why = S.sched_sleep[k] if M[M_SM_WARPS, sm] > 0 else np.int64(WHY_NONE)
                    if K[K_SELF_CHECK]:
                        _check_asleep(K, S, P, sm, s, why)
                    C[C_ISSUE_CYCLES] += skip
                    C[C_STALL_NONE - 1 + why] += skip
            while SC[S_SERIES_NEXT] < nxt:
                _series(K, S, SC[S_SERIES_NEXT])
        t = nxt
    SC[S_CYCLE] = t
    _settle_all(K, S, t)


def _check_asleep(K, S, P, sm, s, why):
    """Self-check: a scheduler left asleep must find no warp to issue, for the reason ``why`` it slept on."""
    w = _pick(K, S, P, sm, s)
    if w >= 0 or -w != why:
        S.c[C_SELF_CHECK_FAILS] += 1


def _prompted(S, sm):
    """Something asks ``sm``'s schedulers to look again: a wake-up, a new warp limit, a policy's block."""
    return S.sm[M_WAKE, sm] != 0 or S.sm[M_SM_ELIG_DIRTY, sm] \
        or S.sm[M_CTL_LIMIT, sm] != S.sm[M_SM_LIMIT_SEEN, sm] or S.sm[M_CTL_CHANGED, sm] != 0 \
        or S.sm[M_IC_WANT, sm] != 0


def _quiet(K, S, P, sm, t):
    """After ``sm``'s cycle ``t``: it is quiet from ``t + 1`` if nothing can happen to it unprompted.

    Quiet: all its schedulers asleep, no wake-up pending, its warp limit
    settled, its miss queue and lookup pipeline empty or waiting for a later
    injection or lookup cycle (``quiet_until``), and its LD/ST unit idle or held.
    Held: the unit (or the pipeline's head, which then holds the unit behind a
    full pipeline) failed its reservation on the SM's own MSHRs, merges or miss
    queue. Its retries fail the same way until a fill frees an MSHR or an entry
    (an event for the SM) or the miss queue injects (``quiet_until``); they are
    counted when the SM is settled (:func:`_retries`). A failure on the GPU's
    shared pools of waiters or requests keeps the SM awake: another SM's fill
    ends it. Only an event for the SM (a load's data, a fill), a CTA starting, a
    wake-up or the injection cycle rouses it.
    """
    if K[K_SELF_CHECK] or S.sm[M_SM_WARPS, sm] == 0 or _prompted(S, sm):
        return
    n_sched = K[K_N_SCHED]
    for k in range(sm * n_sched, (sm + 1) * n_sched):
        if S.sched_sleep[k] <= 0:
            return
    # The pools only shrink in an SM's turn: with room now, a failure this cycle was the SM's own.
    own = S.wt_meta[0] > 0 and S.rq_meta[0] > 0
    if S.sm[M_LD_SLOT, sm] >= 0:
        if P.space[S.sm[M_LD_ROW, sm]] != GLOBAL:
            return  # a shared row's bank accesses go on every cycle
        behind_full_pipeline = K[K_L1_LOOKUP] > 0 and S.sm[M_LQ_N, sm] >= K[K_LQ_SIZE]
        if not (own and (S.sm[M_LD_FAIL, sm] > 0 or behind_full_pipeline)):
            return
    until = NEVER
    if S.sm[M_MQ_N, sm] > 0:
        until = _inject_time(K, S, sm)
        if until <= t + 1:
            if not (K[K_L2_IN_CAP] and _l2_refuses(K, S, sm)):
                return
            # Its head's sub-partition refuses it (l2_input_queue): the L2 rouses it when it takes
            # a request from that full queue (_l2_took).
            until = NEVER
    if S.sm[M_LQ_N, sm] > 0:
        if S.sm[M_LQ_FAIL, sm] > 0:
            if not own:
                return
        else:
            until = min(until, _lq_ready(K, S, sm))
            if until <= t + 1:
                return
    S.sm[M_QUIET_FROM, sm] = t + 1
    S.sm[M_QUIET_UNTIL, sm] = until


def _series(K, S, t):
    if t < S.sc[S_SERIES_NEXT]:
        return
    n = S.sc[S_SERIES_N]
    if n < S.series.shape[0]:
        S.series[n, 0] = t
        S.series[n, 1] = S.c[C_INST]
        resident = 0
        for sm in range(K[K_N_SM]):
            resident += S.sm[M_SM_WARPS, sm]
        S.series[n, 2] = resident
        S.series[n, 3] = S.c[C_L1_ACC]
        S.series[n, 4] = S.c[C_L1_HITS]
        active = 0
        vta = 0
        for sm in range(K[K_N_SM]):
            # Eligibility as the schedulers will see it, without settling it here (the loop wakes
            # an SM whose eligibility is dirty).
            dirty = S.sm[M_SM_ELIG_DIRTY, sm]
            limit = _limit(K, S.sm, sm)
            for w in range(K[K_SLOTS]):
                g = sm * K[K_SLOTS] + w
                elig = _eligible(K, S.w, sm, g, limit) if dirty else S.w[W_W_ELIG, g]
                if elig and S.w[W_CTL_BLOCKED, g] == UNBLOCKED:
                    active += 1
            vta += S.sm[M_CTL_VTA_HITS, sm]
        S.series[n, 5] = active
        S.series[n, 6] = vta
        S.sc[S_SERIES_N] = n + 1
    S.sc[S_SERIES_NEXT] = t + K[K_PERIOD]


def _unblock(K, S):
    """Clear every policy block (``ctl_blocked``) and wake the SMs; True if some warp was blocked."""
    any_blocked = False
    for g in range(S.w.shape[1]):
        if S.w[W_CTL_BLOCKED, g]:
            S.w[W_CTL_BLOCKED, g] = 0
            S.w[W_W_STALL_T, g] = 0
            any_blocked = True
    if any_blocked:
        S.c[C_POLICY_RELEASES_GPU] += 1
        for sm in range(K[K_N_SM]):
            # A quiet SM's cycles so far had its blocked warps: count them before the count changes.
            _settle(K, S, sm, S.sc[S_CYCLE] + 1)
            S.sm[M_WAKE, sm] = WAKE_ALL
            S.sm[M_CTL_NBLOCKED, sm] = 0
    return any_blocked


def _blame(K, S):
    """Name the resource a deadlocked kernel waits on (``layout.DEADLOCKS``)."""
    for g in range(S.w.shape[1]):
        if S.w[W_W_ACTIVE, g] and S.w[W_W_BAR, g]:
            S.sc[S_BLOCKED_KIND] = 1
            S.sc[S_BLOCKED_WHERE] = g // K[K_SLOTS]
            return
    for sm in range(K[K_N_SM]):
        if S.sm[M_LD_SLOT, sm] >= 0 or S.sm[M_LQ_N, sm] > 0:
            S.sc[S_BLOCKED_KIND] = 2 if S.sm[M_L1_META, sm] == 0 else 3
            S.sc[S_BLOCKED_WHERE] = sm
            return
    for part in range(K[K_N_PART]):
        if S.part[P_Q_N, part] > 0:
            S.sc[S_BLOCKED_KIND] = 4
            S.sc[S_BLOCKED_WHERE] = part
            return
    S.sc[S_BLOCKED_KIND] = 5


def _step(buf_arr, K, S, P, h1, h2, h3, budget):
    # The state and the kernel's arrays go by reference (golden.cache.by_ref): by value, every call
    # below would copy some 250 words.
    _loop(_ptr(buf_arr), frozen(K), by_ref(S), by_ref(P), _engine_hooks(h1), _engine_hooks(h2),
          _engine_hooks(h3), budget)


def _bound_step(buf_arr, K, S, P, h1, h2, h3, budget):
    _loop(_ptr(buf_arr), frozen(K), by_ref(S), by_ref(P), level_refs(h1), level_refs(h2), level_refs(h3),
          budget)


_FUNCTIONS = (_popcount, _mask_bytes, _bytes_of, _segment_bytes, _l2_sectors, _l2_bytes, _sector_loads,
              _flits, _event,
              _pool_take, _pool_give, _new_request, _latency, _free_request, _request_access, _window_end,
              _window_load,
              _window_cycles,
              _set_ready, _sm_cycles, _count_blocked, _idle_cycles, _settle, _retries, _rouse, _settle_all,
              _check_asleep,
              _prompted, _quiet, _partition, _gather_bits, _dram_place, _dram_access, _dram, _list_append,
              _list_remove, _bank_free, _dram_group, _dram_arrive,
              _dram_window_end, _dram_unlink, _dram_dequeue, _dram_free, _dram_pick, _dc_core, _dram_tick,
              _dram_cycle, _dram_column, _dram_row, _dram_walk_pick, _dram_walk_wake, _dram_schedule,
              _part_append,
              _depart, _response_flits,
              _store_done, _respond_to_sm,
              _port_arrive, _port_serve, _next_from_input, _input_takes, _below_l2,
              _write_below_l2, _l2_install, _l2_new_line, _chunk_offset, _store_sectors,
              _l2_write_bytes, _read_unreadable,
              _clear_way, _all_reserved, _take_way, _reserve, _fill_reserved, _mshr_key, _mshr_line_entry,
              _stamp_found, _found, _sector_pending, _ldq_move, _ldq_free_entry, _ldq_dispatch,
              _l2_output_full, _l2_serve, _l2_fill, _waiter,
              _load_done, _result_back, _pending, _restop, _log, _release, _fetch_next, _icache_set,
              _icache_mshr,
              _icache_requests,
              _icache_fill,
              _l1_fill, _l1_access, _l1_send, _lookups,
              _chunks, _lq_ready, _hit_payload, _hit_data, _l1_lookup, _smem_block, _smem_event,
              _smem_install,
              _smem_lookup, _queue_held, _input_of, _buffer_full, _queue_full, _enqueue, _head_ready,
              _inject_time, _l2_refuses, _l2_took, _inject,
              _retire_if_done,
              _retire, _release_stalled, _finish_issue, _release_barrier, _issue_block2core, _dispatch, _why,
              _limit, _eligible,
              _eligibility, _pick, _greedy_why, _oldest_ready, _two_level, _mark_active, _blocks_possible,
              _ldst_start, _ldst_unit_free, _bank_access, _ldst_take, _ldst_next, _issue, _handle, _series,
              _unblock, _blame, _loop)


def _globals(hooked: bool) -> dict:
    """The globals a family's copies see before its own members are added: the engine family's
    (``hooked``: the in-memory one's dispatchers), this module's constants and the helpers."""
    names = dict(engine.family_globals(hooked))
    names.update({k: v for k, v in globals().items() if k.isupper() or k.startswith(("K_", "C_", "S_"))})
    names.update(Access=Access, at_level=at_level, np=np, NEVER=NEVER, event_advance=event_advance,
                 event_due=event_due, event_pop=event_pop, event_push_near=event_push_near,
                 event_push_far=event_push_far,
                 event_top_time=event_top_time, map_del=map_del, map_find=map_find, map_put=map_put,
                 level_refs=level_refs, by_ref=by_ref, frozen=frozen, trailing_zeros=trailing_zeros)
    return names


def _copy(fn, family: str, where: dict, name: str | None = None):
    """``fn`` with globals ``where``, named ``family.name``.

    Every copy gets a qualified name of its own: numba names a disk-cache entry after the
    function's file, qualified name and line, so copies under one name would share (and
    overwrite) each other's entries.
    """
    f = pytypes.FunctionType(fn.__code__, where, fn.__name__, fn.__defaults__, fn.__closure__)
    f.__qualname__ = f"{family}.{name or fn.__name__}"
    return f


def _family_names() -> set[str]:
    """Names whose compiled object differs between families: the engine's phases and ``_access``,
    the hook dispatchers (replaced by :func:`~golden.cache.bound_hooks.bind`), what hands the loop
    its hooks."""
    a, b = engine.family_globals(False), engine.family_globals(True)
    return ({k for k in a.keys() | b.keys() if a.get(k) is not b.get(k)}
            | {f"_{spec.name}" for spec in HOOK_SPECS} | {"_engine_hooks", "level_refs", "_no_level"})


def shared_functions() -> tuple[str, ...]:
    """The model's functions that reach no family name, directly or through the functions they call.

    They are compiled once, into the ``timing_shared`` copies every family calls; only the others
    (the L1 and L2 paths, ``_handle``, ``_loop``: those that call the engine's phases or the hooks)
    are compiled per family. Found from each function's global names (``co_names``, which also
    holds attribute names: a false match only keeps a function per family).
    """
    own = _family_names()
    refs = {fn.__name__: set(fn.__code__.co_names) for fn in _FUNCTIONS}
    per_family = {n for n, r in refs.items() if r & own}
    grown = True
    while grown:
        more = {n for n, r in refs.items() if r & per_family} - per_family
        grown = bool(more)
        per_family |= more
    return tuple(n for n in refs if n not in per_family)


# The compiled shared functions of each build: "" for the generic one, a specialisation's digest.
_SHARED: dict[str, dict[str, object]] = {}


def _shared(opts: dict, special: Specialisation | None) -> dict:
    """The ``timing_shared`` copies of :func:`shared_functions` for one build, compiled (disk-cached)
    once a process."""
    digest = "" if special is None else special.digest
    if digest not in _SHARED:
        shared = shared_functions()
        where = _globals(False)
        family = "timing_shared" + (f"_{digest}" if digest else "")
        for fn in _FUNCTIONS:
            if fn.__name__ in shared:
                where[fn.__name__] = nb.njit(inline=_inline(fn), **opts)(_build(fn, family, where, special))
        _SHARED[digest] = {n: where[n] for n in shared}
    return _SHARED[digest]


def _build(fn, family: str, where: dict, special: Specialisation | None, name: str | None = None):
    """``fn`` for ``family``: a copy (:func:`_copy`), or rebuilt with ``special``'s constants when it
    is one of the loop's functions (the engine's read no configuration word)."""
    if special is not None and fn in _FUNCTIONS:
        return special.function(fn, f"{family}.{name or fn.__name__}", where)
    return _copy(fn, family, where, name)


def _inline(fn) -> str:
    # The per-warp issue check runs for every warp slot every cycle: inlined; so are the issue and
    # the quiet check, each called once or twice an SM-cycle from the loop alone (a call's
    # arguments and saved registers cost about as much as their common paths).
    return "always" if fn in (_pool_take, _pool_give, _why, _popcount, _mask_bytes, _bytes_of, _l2_bytes,
                              _flits, _issue, _quiet, _l1_lookup, _greedy_why, _oldest_ready, _mark_active,
                              _blocks_possible) else "never"


def _compile(family: str, hooks: list | None, special: Specialisation | None = None):
    """The model compiled against one engine family (module docstring of ``golden.cache.engine``).

    ``family`` names the copy; ``hooks`` is None for the baseline (disk-cached), the policy's
    hooks to bind as globals (disk-cached per set of hook functions, :mod:`golden.cache.bound_hooks`),
    or ``[]`` for the in-memory hooked family that takes hooks as arguments. Every family of a
    build calls the same compiled :func:`shared_functions`. ``special``: the generic build (None)
    or one with a configuration's constants folded in (:mod:`golden.gpu.specialise`).
    """
    in_memory = hooks == []
    names = _globals(hooks is not None)
    if hooks:
        names.update(bind(hooks, engine.MAX_LEVELS))
    if special is not None:
        names["_params"] = special.params()
    # The in-memory family takes its hooks as first-class function arguments, which have no
    # stable cache key (as in the engine). No reference counting: the loop only indexes arrays
    # the caller owns for the whole call (as the engine's loops do). The inner functions are only
    # called from compiled code: no Python or C entry wrappers (their argument unboxing is a sixth
    # of a family's compile time).
    inner = {"nogil": True, "_nrt": False, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}
    opts = dict(inner, cache=not in_memory)
    names.update(_shared(dict(inner, cache=True), special))

    def copy(fn, name=None, where=names):
        return _build(fn, family, where, special, name)

    for fn in engine.PHASES:
        names[fn.__name__] = nb.njit(inline="always", **opts)(copy(fn))
    names["_access"] = nb.njit(**opts)(copy(engine.ACCESS)) if in_memory else _access_chain(names, copy, opts)
    shared = shared_functions()
    for fn in _FUNCTIONS:
        if fn.__name__ not in shared:
            names[fn.__name__] = nb.njit(inline=_inline(fn), **opts)(copy(fn))
    # The entry keeps reference counting: it borrows the policies' state.
    entry = _bound_step if hooks else _step
    return nb.njit(nogil=True, cache=not in_memory)(copy(entry, "_step"))


def _access_chain(names: dict, copy, opts: dict):
    """``_access`` for the disk-cached family, as a chain of copies without recursion.

    numba compiles a recursive call as a reference that a fresh process
    resolves only if the callee was compiled there too; code loaded from the
    disk cache then called address 0. A request passes at most
    ``MAX_LEVELS`` levels, so copy ``k`` calls copy ``k + 1`` for the next
    level, and the last copy's next level is :func:`_no_level`, which no
    request reaches (the last level has no next level).
    """
    below = nb.njit(**opts)(copy(_no_level, "_no_level"))
    for k in reversed(range(engine.MAX_LEVELS)):
        where = dict(names, _access=below)
        below = nb.njit(**opts)(copy(engine.ACCESS, f"_access_{k}", where))
    return below


def _no_level(buf, p, h1, h2, h3, L, a, flags):
    return np.int64(MEMORY), np.int64(0)


_STEPS: dict[str, object] = {}


def step_function(hooks: list, k: np.ndarray | None = None,
                  header: np.ndarray | None = None) -> tuple[object, list]:
    """The compiled ``step(buf, K, S, P, h1, h2, h3, budget)`` for a hierarchy's ``hooks``.

    ``hooks`` has one ``LevelHooks`` or None (baseline) per level. With the
    model's configuration vector ``k`` and its engine's level ``header``, the
    build the process runs (:func:`golden.gpu.specialise.compile_mode`): the
    generic one, or one with their constants folded in, which then serves only
    that configuration; without them, the generic one. Returns the function and
    what to pass it as ``h1, h2, h3``: the hooks themselves for the in-memory
    family, each level's ``(state,)`` when the hooks are bound as globals
    (:mod:`golden.cache.bound_hooks`).
    """
    hooks = list(hooks) + [None] * (engine.MAX_LEVELS - len(hooks))
    if all(h is None for h in hooks):
        key, family, bound, args = "baseline", "timing", None, hooks
    elif (digest := hook_key(hooks)) is not None:
        key, family, bound, args = digest, f"timing_{digest}", hooks, level_states(hooks)
    else:
        key, family, bound, args = "in-memory", "timing_hooked", [], hooks
    special = None if k is None else specialisation(k, header, _CONFIG_NAMES)
    if special is not None:
        key, family = f"{key}_{special.digest}", f"{family}_{special.digest}"
    if key not in _STEPS:
        _STEPS[key] = _compile(family, bound, special)
    return _STEPS[key], args
