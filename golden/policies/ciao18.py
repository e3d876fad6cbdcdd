"""ciao18's warp schedulers on the timing model: CIAO-T and CCWS, both fed by a per-warp VTA.

Both policies keep, per SM, a victim tag array indexed by warp slot (the
set is the WID of the warp that brought the evicted line into the L1D; an
entry holds the line and the WID of the warp whose request evicted it),
fed by the L1's ``on_fill`` (who brought a line in) and ``on_evict`` (the
evicting access's warp), probed on every L1 load miss (``on_miss``). The
VTA follows ``golden.units.ciao_vta.Vta``: pure FIFO insertion, the
lowest valid matching way hits and is invalidated. They act on the warp
schedulers through ``SchedulerControl.blocked`` (``attach_scheduler``);
without the timing model (``--timing none``) they do nothing.

**CIAO-T** (ciao18 Section IV, Algorithm 1, throttling only): a VTA hit of
warp *i* counts in *i*'s VTA-hit counter and updates *i*'s interference
list entry with the evicting warp (``golden.units.ciao_interference.update_entry``,
the unit model's own function compiled with numba), the warp itself included
unless ``self_interference="ignore"``. IRS_i follows Eq. 1,
tested without a division (``golden.units.ciao_irs.over_pq``); its
instructions, and the epochs', are thread instructions by default
(``instructions``); its counts run from the kernel's start
(``irs_counts``) and its ``N_active-warp`` counts the warps not stalled
(``active_warps``). At the end of a low cut-off epoch (every
``low_epoch`` instructions of the SM) the warp at the front of the
SM's warp list is examined (``examine="front"``,
Algorithm 1 as written: the list is the resident warps in slot order and
the examined warp goes to its back; ``examine="all"``: every resident
warp; ``examine="issuing"``: the warp whose L1 access ends the epoch):
stalled, it is reactivated when its pair-list warp *k* no longer has
IRS_k over the low cut-off, or has finished; at the end of a high
cut-off epoch the examined warp *i*, if active with IRS_i over the high
cut-off, stalls its interfering warp *j* (*j* != *i*, *j* resident and
active) and records *i* in *j*'s pair-list entry.
``docs/policies/ciao18.md`` lists every choice. Its statistics (``stats()``)
count what Algorithm 1 did and why it did no more: epochs crossed and acted
on, cut-off tests and why a test over the cut-off acted on nobody, checks of
stalled and redirected warps kept or released because the pair warp left.

**CCWS** (Rogers et al., MICRO 2012, checked against its public code,
``tgrogers/ccws-2012``): per-warp lost-locality scores starting at
``base_score``; the VTA has 2 sets x 8 ways per warp (set: the line's low
bit), a victim already in its set is not inserted again, a VTA hit
leaves the entry valid and a store's L1 lookup invalidates its line in
every warp's VTA. A VTA hit of warp *i* adds
``LLDS = VTA hits / instructions of the SM * k_vc * cut-off`` (truncated,
may be 0; cut-off = ``resident warps * base_score``) to *i*'s score; every
score change floors the score at the base or else caps it at
``VTA hits / instructions * k_wsc * cut-off``. Scores over the base decay
by one point per cycle (counted at the SM's next L1 access, from the
accesses' issue cycles). Warps are stacked by score (highest first,
then slot) until the sum reaches the cut-off, the warp reaching it
included; the warps after it may not issue.

**Recording** (CIAO-T, CIAO-P, CIAO-C with ``log_sm`` = N): the hooks
record SM N's transactions of ciao18's five units in each unit module's
``TRANSACTION_DTYPE`` (``golden.policies.recording``): ``"vta"``
(insertions, probes with what they found, kernel starts), ``"interference"``
(updates, the lookups of a trigger, kernel starts), ``"pair_list"`` (the
triggers, stalls and releases with the flags and fields after them, and the
releases that follow flags the timing model cleared itself: a new warp in
a slot, the deadlock breaker), ``"irs"`` (kernel starts, VTA hits, every
cut-off test with its result, the epochs acted on, each with the SM's
instruction count) and ``"smem"`` (each kernel's cache size, the redirected
loads the hooks see). ``catalog/ciao18.py`` runs the workload on the timing
model and lays the logs out with the unit models' ``cycle_log``.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.cache.by_ref import by_ref
from golden.cache.hooks import SMEM_ALLOC, SMEM_FILL
from golden.configs.schema import CacheConfig, GPUConfig
from golden.gpu.bits import trailing_zeros
from golden.policies.base import BASELINE_HOOKS, LevelHooks, Policy, make_hooks, register_policy
from golden.policies.recording import Recorder, new_row
from golden.policies.warp_block import BLOCK_LOADS, UNBLOCKED, set_blocked
from golden.trace.model import WARP_SIZE
from golden.units import ciao_interference, ciao_irs, ciao_pair_list, ciao_smem, ciao_vta
from golden.units.ciao_interference import IL_COUNTER_BITS, update_entry
from golden.units.ciao_irs import (
    HIGH_CUTOFF,
    HIGH_EPOCH,
    IRS_WARPS,
    LOW_CUTOFF,
    LOW_EPOCH,
    check_irs_params,
    over_pq,
)
from golden.units.ciao_smem import MSHR_ENTRIES, SMEM_ADDR_BITS
from golden.units.ciao_vta import VTA_LINE_BITS, VTA_WAYS, check_vta_params

__all__ = ["CiaoT", "CiaoP", "CiaoC", "CCWS", "SchedState", "CCWS_DEFAULTS", "MODE_CIAO_T", "MODE_CCWS",
           "MODE_CIAO_P", "MODE_CIAO_C"]

LOAD, STORE, ATOMIC = 1, 2, 3
MODE_CIAO_T, MODE_CCWS, MODE_CIAO_P, MODE_CIAO_C = 0, 1, 2, 3
#: CCWS's public configuration (Rogers et al. MICRO'12, as issue 14 gives it).
CCWS_DEFAULTS = {"vta_ways": 16, "base_score": 100, "k_vc": 8, "k_wsc": 8}
#: CCWS's VTA sets per warp (the public code's 16 tags as 2 sets x 8 ways, indexed by the line's low bit).
CCWS_VTA_SETS = 2

# p[]: parameters.
(P_W, P_WAYS, P_LINES, P_ASSOC, P_MODE, P_HI_P, P_HI_Q, P_LO_P, P_LO_Q, P_HI_E, P_LO_E, P_BASE,
 P_KVC, P_IL_TOP, P_LOG_SM, P_VSETS, P_KWSC, P_EXAMINE, P_INST_WEIGHT, P_IRS_WINDOW,
 P_ACTIVE, P_SELF) = range(22)
N_PARAMS = P_SELF + 1
#: Which warps an epoch's end examines (CIAO's ``examine``; p[P_EXAMINE]).
EXAMINE = {"front": 0, "all": 1, "issuing": 2}
EXAMINE_FRONT = EXAMINE["front"]
EXAMINE_ALL = EXAMINE["all"]
#: What CIAO's instruction counts count (``instructions``; p[P_INST_WEIGHT], the count one warp
#: instruction adds): warp instructions, or thread instructions as GPGPU-Sim counts them (a warp
#: instruction adds its threads; the timing model's warps are full, so 32).
INSTRUCTIONS = {"warp": 1, "thread": WARP_SIZE}
#: Over which instructions Eq. 1's counts run (``irs_counts``; p[P_IRS_WINDOW]): from the kernel's
#: start (Section V-F: the VTA-hit counters reset at each kernel), or from the end of the last high
#: cut-off epoch (an experiment: IRS "in a given epoch"; docs/policies/ciao18.md).
IRS_COUNTS = {"kernel": 0, "epoch": 1}
IRS_PER_EPOCH = IRS_COUNTS["epoch"]
#: Which warps Eq. 1's ``N_active-warp`` counts (``active_warps``; p[P_ACTIVE]): the SM's resident
#: warps, stalled ones included (the reading before session 44), or those not stalled (Algorithm 1
#: calls a warp with V = 1 active; the default).
ACTIVE_WARPS = {"resident": 0, "unstalled": 1}
ACTIVE_UNSTALLED = ACTIVE_WARPS["unstalled"]
#: What a VTA hit on a line the warp itself evicted does to its interference entry
#: (``self_interference``; p[P_SELF]): it counts as interference by the warp itself, as the unit's
#: update rule takes any WID (the default), or it is left out (an experiment: Section III-A's
#: interference is by another warp; docs/policies/ciao18.md). Either way it counts in IRS.
SELF_INTERFERENCE = {"count": 0, "ignore": 1}
# st[]: statistics. After the first ten, what Algorithm 1 found at each step (``docs/policies/ciao18.md``,
# "Statistics"): epochs crossed and acted on (several crossed between two L1 accesses are acted on once),
# the examined warps' cut-off tests and why a test over the cut-off acted on nobody, and the low-epoch
# checks of stalled and redirected warps (kept, or released because the pair warp left); the releases
# because IRS_k fell under the low cut-off are the rest of ``reactivations`` / ``redirects_back``.
(S_INSERTS, S_PROBES, S_VTA_HITS, S_STALLS, S_REACTIVATIONS, S_THROTTLE_UPDATES, S_KERNELS, S_REDIRECTS,
 S_RETURNS, S_NO_SMEM, S_LOW_CROSSED, S_HIGH_CROSSED, S_LOW_ACTED, S_HIGH_ACTED, S_TESTS, S_TESTS_SKIPPED,
 S_OVER, S_NO_INTERFERER, S_INTERFERER_GONE, S_INTERFERER_STALLED, S_STALL_CHECKS, S_STALLS_KEPT,
 S_REACTIVATIONS_PAIR_LEFT, S_REDIRECT_CHECKS, S_REDIRECTS_KEPT, S_RETURNS_PAIR_LEFT,
 S_VTA_HITS_SELF) = range(27)
STAT_NAMES = ("vta_insertions", "vta_probes", "vta_hits", "stalls", "reactivations", "throttle_updates",
              "kernel_starts", "redirects", "redirects_back", "sm_kernels_without_smem_cache",
              "low_epochs", "high_epochs", "low_epochs_acted", "high_epochs_acted",
              "high_tests", "high_tests_skipped_stalled", "high_tests_over", "over_no_interferer",
              "over_interferer_gone", "over_interferer_stalled",
              "stall_checks", "stall_checks_kept", "reactivations_pair_left",
              "redirect_checks", "redirect_checks_kept", "redirects_back_pair_left", "vta_hits_self")

#: Entries per SM of :func:`_slot`'s memo of the slots it found, by warp id (a power of two).
SLOT_MEMO = 64

SchedState = namedtuple("SchedState", [
    # SchedulerControl views
    "blocked", "warp", "resident", "inst", "wpc", "redirect", "smem_lines", "changed", "winst", "vta_hits",
    "owner",  # per L1 line (SM, set, way): the slot that brought it in, -1 unknown
    "vline", "vwid", "vvalid", "vptr",  # the VTA: (SM, slot, way) entries, a FIFO pointer per (slot, set)
    "hits", "ilw", "ilc", "f0", "f0gw", "f1", "f1gw", "score",  # per (SM, slot)
    "cgw",  # per (SM, slot): CCWS, the warp whose counts the slot holds (a new warp starts them again)
    "order",  # per (SM, slot): CCWS's stack of the SM's warps by score (scratch)
    "kern", "inst0", "nlow", "nhigh", "last",  # per SM (last: CCWS's last decay cycle)
    "hbase", "ibase",  # per (SM, slot) and per SM: VTA hits and N at the IRS window's start (irs_counts)
    "nact",  # per SM: N_active-warp at the start of the SM's last epoch (active_warps)
    "front",  # per SM: the slot CIAO examined last (examine="front": the next resident one is the front)
    "mslot",  # per (SM, warp id mod SLOT_MEMO): the slot :func:`_slot` found that warp in last
    "p", "st",
    # SM p[P_LOG_SM]'s transactions of the five units (golden.policies.recording), and their counters.
    "tx_vta", "n_vta", "tx_il", "n_il", "tx_pl", "n_pl", "tx_irs", "n_irs", "tx_smem", "n_smem"])
SchedState.__doc__ = "State of the L1 level of CIAO-T and CCWS (see the module docstring)."

_over = nb.njit(cache=True, nogil=True)(over_pq)
_il_update = nb.njit(cache=True, nogil=True)(update_entry)

#: Recorder names and the unit modules whose TRANSACTION_DTYPE they hold.
RECORDERS = {"vta": ciao_vta, "interference": ciao_interference, "pair_list": ciao_pair_list,
             "irs": ciao_irs, "smem": ciao_smem}


@nb.njit(cache=True, nogil=True)
def _sm_inst(ps, sm):
    """``N`` of Eq. 1 and the epochs' count: ``sm``'s instructions since its kernel started, in the unit
    ``instructions`` names (each warp instruction adds p[P_INST_WEIGHT])."""
    return (ps.inst[sm] - ps.inst0[sm]) * ps.p[P_INST_WEIGHT]


@nb.njit(cache=True, nogil=True)
def _irs_over(ps, sm, g, n, active, p, q):
    """Eq. 1's ``IRS > p / q`` for slot ``g`` of ``sm`` at the SM's count ``n``, over the IRS window:
    the counts since the kernel's start, or since the last high cut-off epoch (``irs_counts``)."""
    return _over(ps.hits[g] - ps.hbase[g], n - ps.ibase[sm], active, p, q)


@nb.njit(cache=True, nogil=True)
def _active(ps, sm):
    """Eq. 1's ``N_active-warp`` of ``sm`` now: resident warps, or those not stalled (``active_warps``)."""
    if ps.p[P_ACTIVE] != ACTIVE_UNSTALLED:
        return ps.resident[sm]
    W = ps.p[P_W]
    n = np.int64(0)
    for g in range(np.uint64(sm * W), np.uint64(sm * W + W)):  # vectorised (_ccws_ratio_points)
        n += (ps.warp[g] >= 0) & (ps.blocked[g] == 0)
    return n


@nb.njit(cache=True, nogil=True)
def _new_window(ps, sm, n):
    """A high cut-off epoch of ``sm`` ended: with ``irs_counts="epoch"`` Eq. 1 counts afresh from here."""
    if ps.p[P_IRS_WINDOW] != IRS_PER_EPOCH:
        return
    W = ps.p[P_W]
    for s in range(W):
        ps.hbase[sm * W + s] = ps.hits[sm * W + s]
    ps.ibase[sm] = n


@nb.njit(cache=True, nogil=True)
def _logs(ps, sm):
    """Whether ``sm``'s transactions are recorded."""
    return sm == ps.p[P_LOG_SM]


@nb.njit(cache=True, nogil=True)
def _rec_vta(ps, kind, s, line, wid, hit, way, t):
    r = new_row(ps.tx_vta, ps.n_vta)
    if r >= 0:
        row = ps.tx_vta[r]
        row.kind, row.set, row.line, row.wid, row.hit, row.way, row.access = kind, s, line, wid, hit, way, t


@nb.njit(cache=True, nogil=True)
def _rec_il(ps, kind, wid, by, count, t):
    r = new_row(ps.tx_il, ps.n_il)
    if r >= 0:
        row = ps.tx_il[r]
        row.kind, row.wid, row.by, row.count, row.access = kind, wid, by, count, t


@nb.njit(cache=True, nogil=True)
def _rec_irs(ps, sm, kind, wid, low, high, t):
    """An IRS transaction; a test (``TX_QUERY``) records both cut-offs' results for warp ``wid``."""
    r = new_row(ps.tx_irs, ps.n_irs)
    if r >= 0:
        p = ps.p
        n = _sm_inst(ps, sm)
        # A test's N_active-warp is its epoch's (the unit reads it only with a test).
        active = ps.nact[sm] if kind == ciao_irs.TX_QUERY else ps.resident[sm]
        row = ps.tx_irs[r]
        row.kind, row.wid, row.inst, row.active, row.access = kind, wid, n, active, t
        row.low, row.high = low, high
        if kind == ciao_irs.TX_QUERY:
            g = sm * p[P_W] + wid
            row.over_high = 1 if _irs_over(ps, sm, g, n, active, p[P_HI_P], p[P_HI_Q]) else 0
            row.over_low = 1 if _irs_over(ps, sm, g, n, active, p[P_LO_P], p[P_LO_Q]) else 0


@nb.njit(cache=True, nogil=True)
def _field(f):
    return ciao_pair_list.CLEARED if f < 0 else f


@nb.njit(cache=True, nogil=True)
def _rec_pl(ps, op, g, wid, src, act, t):
    """A pair-list command on slot ``wid`` (global ``g``) with the flags and fields after it."""
    r = new_row(ps.tx_pl, ps.n_pl)
    if r >= 0:
        row = ps.tx_pl[r]
        row.op, row.wid, row.src, row.act, row.access = op, wid, src, act, t
        # The unit's V and I: a field is set while its flag is.
        row.v, row.i = (1 if ps.f1[g] < 0 else 0), (1 if ps.f0[g] >= 0 else 0)
        row.f0, row.f1 = _field(ps.f0[g]), _field(ps.f1[g])


@nb.njit(cache=True, nogil=True)
def _rec_smem(ps, sm, kind, line, wid, alloc, mshr, block, t):
    r = new_row(ps.tx_smem, ps.n_smem)
    if r >= 0:
        row = ps.tx_smem[r]
        row.kind, row.line, row.wid, row.alloc, row.blocks, row.access = (kind, line, wid, alloc,
                                                                          ps.smem_lines[sm], t)
        row.mshr, row.block = mshr, block


@nb.njit(cache=True, nogil=True)
def _slot(ps, sm, cta, warp):
    """The slot (within ``sm``) of warp ``warp`` of CTA ``cta``; -1 if it is not resident.

    Every L1 hook asks it. A warp's id is in at most one slot of the SM (the SM runs one kernel's
    warps at a time), so the slot this warp was found in last, asked first, is the answer whenever
    it still holds the warp; only a miss scans the slots.
    """
    W = ps.p[P_W]
    gw = cta * ps.wpc[sm] + warp
    base = sm * W
    memo = sm * SLOT_MEMO + (gw & (SLOT_MEMO - 1))
    last = ps.mslot[memo]
    if ps.warp[base + last] == gw:
        return last
    for s in range(W):
        if ps.warp[base + s] == gw:
            ps.mslot[memo] = s
            return np.int64(s)
    return np.int64(-1)


@nb.njit(cache=True, nogil=True)
def _new_kernel(ps, sm, kernel, t):
    """A kernel's first access on ``sm``: every per-kernel counter and list starts again.

    The pair-list fields stay: they mean something only while their flag is
    set, and the timing model clears the flags of each warp it starts, which
    :func:`_sync_flags` then tells the pair list.
    """
    W = ps.p[P_W]
    for s in range(W):
        g = sm * W + s
        ps.hits[g] = 0
        ps.hbase[g] = 0
        ps.ilw[g] = s
        ps.ilc[g] = 0
        ps.score[g] = ps.p[P_BASE]
        ps.cgw[g] = ps.warp[g]
        for v in range(ps.p[P_VSETS]):
            ps.vptr[g * ps.p[P_VSETS] + v] = 0
        for w in range(ps.p[P_WAYS]):
            ps.vvalid[g * ps.p[P_WAYS] + w] = 0
    ps.kern[sm] = kernel
    ps.inst0[sm] = ps.inst[sm]
    ps.ibase[sm] = 0
    ps.nlow[sm] = ps.p[P_LO_E]
    ps.nhigh[sm] = ps.p[P_HI_E]
    ps.front[sm] = -1  # the warp list starts at slot 0
    ps.st[S_KERNELS] += 1
    if ps.p[P_MODE] >= MODE_CIAO_P and ps.smem_lines[sm] == 0:
        ps.st[S_NO_SMEM] += 1  # no room for the shared-memory cache: CIAO-P and CIAO-C act as CIAO-T
    if _logs(ps, sm):
        _rec_vta(ps, ciao_vta.TX_KERNEL, 0, 0, 0, 0, 0, t)
        _rec_il(ps, ciao_interference.TX_KERNEL, 0, 0, 0, t)
        _rec_irs(ps, sm, ciao_irs.TX_KERNEL, 0, 0, 0, t)
        _rec_smem(ps, sm, ciao_smem.TX_CONFIG, 0, 0, 0, -1, 0, t)


@nb.njit(cache=True, nogil=True)
def _pair_runs(ps, base, k, kgw):
    """The pair-list field ``k`` names a warp (global ``kgw``) still in its slot: it "needs executing"."""
    return k >= 0 and ps.warp[base + k] == kgw


@nb.njit(cache=True, nogil=True)
def _still_interfered(ps, sm, base, k, n, active, t):
    """Algorithm 1's pair-list check of a warp ``k`` that still runs (:func:`_pair_runs`): IRS_k
    over the low cut-off."""
    p = ps.p
    if _logs(ps, sm):
        _rec_irs(ps, sm, ciao_irs.TX_QUERY, k, 0, 0, t)
    return _irs_over(ps, sm, base + k, n, active, p[P_LO_P], p[P_LO_Q])


@nb.njit(cache=True, nogil=True)
def _sync_flags(ps, sm, base, t):
    """Clear the pair-list fields of flags the timing model cleared (recorded as releases).

    A warp that starts in a slot starts active and not isolated, and the
    deadlock breaker reactivates every stalled warp; the pair list hears of
    it, before CIAO looks at the slot again, as Algorithm 1's release.
    """
    for s in range(ps.p[P_W]):
        g = base + s
        if ps.warp[g] < 0:
            continue
        if ps.f1[g] >= 0 and not ps.blocked[g]:
            ps.f1[g] = -1
            ps.f1gw[g] = -1
            if _logs(ps, sm):
                _rec_pl(ps, ciao_pair_list.OP_RELEASE, g, s, 0, ciao_pair_list.ACT_REACTIVATE, t)
        if ps.f1[g] < 0 and ps.f0[g] >= 0 and not ps.redirect[g]:
            ps.f0[g] = -1
            ps.f0gw[g] = -1
            if _logs(ps, sm):
                _rec_pl(ps, ciao_pair_list.OP_RELEASE, g, s, 0, ciao_pair_list.ACT_UNISOLATE, t)


@nb.njit(cache=True, nogil=True)
def _isolate(ps, sm, base, s, gj, t):
    """Algorithm 1, lines 21-27: warp ``s`` (IRS over the high cut-off) acts on its interferer ``gj``.

    CIAO-T stalls it; CIAO-P redirects it to the shared-memory cache (once);
    CIAO-C redirects it, or stalls it when it is already redirected. Without a
    shared-memory cache on the SM, CIAO-P and CIAO-C stall as CIAO-T does.
    The pair list hears a trigger (op 1) where it decides as Algorithm 1 does,
    a stall (op 3) where CIAO-T's rule applies.
    """
    mode = ps.p[P_MODE]
    smem = ps.smem_lines[sm] > 0
    if mode != MODE_CIAO_T and smem and not ps.redirect[gj]:
        ps.redirect[gj] = 1
        ps.f0[gj] = s
        ps.f0gw[gj] = ps.warp[base + s]
        ps.st[S_REDIRECTS] += 1
        if _logs(ps, sm):
            _rec_pl(ps, ciao_pair_list.OP_TRIGGER, gj, gj - base, s, ciao_pair_list.ACT_ISOLATE, t)
        return
    if mode == MODE_CIAO_P and smem:
        return  # already redirected: CIAO-P has nothing more to do
    set_blocked(ps.blocked, ps.changed, sm, gj, 1)
    ps.f1[gj] = s
    ps.f1gw[gj] = ps.warp[base + s]
    ps.st[S_STALLS] += 1
    if _logs(ps, sm):
        op = ciao_pair_list.OP_TRIGGER if mode == MODE_CIAO_C and smem else ciao_pair_list.OP_STALL
        _rec_pl(ps, op, gj, gj - base, s, ciao_pair_list.ACT_STALL, t)


@nb.njit(cache=True, nogil=True)
def _release(ps, flag, f, fgw, stat, checks, action, sm, base, g, s, n, active, t, log):
    """Algorithm 1's release of warp ``g`` (``flag`` cleared, its interferer ``f``/``fgw``
    forgotten, ``stat`` counted, ``action`` logged), unless that interferer still interferes.
    ``checks``, ``checks + 1`` and ``checks + 2`` count the checks, those that keep ``g``, and the
    releases because the interferer's warp left its slot."""
    ps.st[checks] += 1
    runs = _pair_runs(ps, base, f[g], fgw[g])
    if runs and _still_interfered(ps, sm, base, f[g], n, active, t):
        ps.st[checks + 1] += 1
        return  # warp k still suffers: g stays stalled or redirected
    if not runs:
        ps.st[checks + 2] += 1
    set_blocked(flag, ps.changed, sm, g, 0)  # flag: blocked or redirect (an extra wake-up is harmless)
    f[g] = -1
    fgw[g] = -1
    ps.st[stat] += 1
    if log:
        _rec_pl(ps, ciao_pair_list.OP_RELEASE, g, s, 0, action, t)


@nb.njit(cache=True, nogil=True)
def _front(ps, sm, base, W):
    """The warp at the front of ``sm``'s warp list: the first resident slot after the one examined
    last (which went to the back); -1 if none is resident."""
    for k in range(1, W + 1):
        s = (ps.front[sm] + k) % W
        if ps.warp[base + s] >= 0:
            ps.front[sm] = s
            return s
    return -1


@nb.njit(cache=True, nogil=True)
def _epochs(ps, sm, t, slot):
    """Algorithm 1 at the end of low / high cut-off epochs of ``sm`` (release first, then trigger).

    The warps examined: the front of the warp list (``examine="front"``), every resident warp
    (``"all"``), or the warp in ``slot``, whose L1 access ends the epoch (``"issuing"``).
    """
    p = ps.p
    W = p[P_W]
    n = _sm_inst(ps, sm)
    low = n >= ps.nlow[sm]
    high = n >= ps.nhigh[sm]
    if not low and not high:
        return
    # The boundaries are multiples of the epochs: count those crossed since the last acted on.
    if low:
        ps.st[S_LOW_CROSSED] += n // p[P_LO_E] - ps.nlow[sm] // p[P_LO_E] + 1
        ps.st[S_LOW_ACTED] += 1
        ps.nlow[sm] = (n // p[P_LO_E] + 1) * p[P_LO_E]
    if high:
        ps.st[S_HIGH_CROSSED] += n // p[P_HI_E] - ps.nhigh[sm] // p[P_HI_E] + 1
        ps.st[S_HIGH_ACTED] += 1
        ps.nhigh[sm] = (n // p[P_HI_E] + 1) * p[P_HI_E]
    active = _active(ps, sm)  # Algorithm 1, line 3: once, before the epoch's releases
    ps.nact[sm] = active
    base = sm * W
    log = _logs(ps, sm)
    if log:
        _rec_irs(ps, sm, ciao_irs.TX_EPOCH, 0, 1 if low else 0, 1 if high else 0, t)
    _sync_flags(ps, sm, base, t)
    only = -1
    if p[P_EXAMINE] != EXAMINE_ALL:
        only = _front(ps, sm, base, W) if p[P_EXAMINE] == EXAMINE_FRONT else slot
        if only < 0:
            if high:
                _new_window(ps, sm, n)
            return
    # The warps examined: slots first..end-1 (one slot, or all W; a 48-slot scan for one costs more
    # than the rest of an epoch, which ends every few warp instructions of an SM).
    first, end = (only, only + 1) if only >= 0 else (0, W)
    if low:
        for s in range(first, end):
            g = base + s
            if ps.warp[g] < 0:
                continue
            if ps.blocked[g]:  # lines 4-10: a stalled warp is reactivated
                _release(ps, ps.blocked, ps.f1, ps.f1gw, S_REACTIVATIONS, S_STALL_CHECKS,
                         ciao_pair_list.ACT_REACTIVATE,
                         sm, base, g, s, n, active, t, log)
            elif ps.redirect[g]:  # lines 11-17: a redirected warp goes back to the L1D
                _release(ps, ps.redirect, ps.f0, ps.f0gw, S_RETURNS, S_REDIRECT_CHECKS,
                         ciao_pair_list.ACT_UNISOLATE,
                         sm, base, g, s, n, active, t, log)
    if high:
        for s in range(first, end):
            g = base + s
            if ps.warp[g] < 0:
                continue
            if ps.blocked[g]:
                ps.st[S_TESTS_SKIPPED] += 1  # a stalled warp is not tested (Algorithm 1, line 18)
                continue
            ps.st[S_TESTS] += 1
            if log:
                _rec_irs(ps, sm, ciao_irs.TX_QUERY, s, 0, 0, t)
            if not _irs_over(ps, sm, g, n, active, p[P_HI_P], p[P_HI_Q]):
                continue
            ps.st[S_OVER] += 1
            j = ps.ilw[g]
            if log:
                _rec_il(ps, ciao_interference.TX_LOOKUP, s, j, ps.ilc[g], t)
            gj = base + j
            if j == s:
                ps.st[S_NO_INTERFERER] += 1
            elif ps.warp[gj] < 0:
                ps.st[S_INTERFERER_GONE] += 1
            elif ps.blocked[gj]:
                ps.st[S_INTERFERER_STALLED] += 1
            else:
                _isolate(ps, sm, base, s, gj, t)
        _new_window(ps, sm, n)


@nb.njit(cache=True, nogil=True)
def _ccws_throttle(ps, sm):
    """CCWS's cut-off: stack the resident warps by score; those after the one reaching it may not issue.

    The stack's order is by score, highest first, then by slot; a warp is
    blocked when the scores stacked before it reach the cut-off. As the
    public code (shader.cc, ``point_system_scheduler_unit::order_warps``), a
    warp past the cut-off may not issue a global load; compute and stores go on.

    It runs at almost every L1 access (each decay), so it does not sort the
    whole stack when it need not: a score is over the base ``b`` (positive,
    ``CCWS``'s check), at it, or 0
    (a new warp's) unless a cap under the base (:func:`_ccws_add`) made one
    of another value. Then the warps over the base come first, sorted (they
    are few); the warps at the base follow in slot order, the ``k``-th of them
    (from 0) with ``k * b`` more above it; the warps at 0 come last, all with
    the same scores above them. With another value, all are sorted. The slots
    go by masks (at most 64 warps an SM, ``attach_scheduler``).
    """
    W = ps.p[P_W]
    base = sm * W
    b = ps.p[P_BASE]
    cutoff = _ccws_cutoff(ps, sm)
    resident = np.int64(0)  # the masks of the resident slots, those over the base, the others
    up = np.int64(0)
    other = np.int64(0)
    at = np.int64(0)  # warps at the base
    for i in range(W):  # without a branch (_ccws_ratio_points)
        g = np.uint64(base + i)
        score = ps.score[g]
        here = np.int64(ps.warp[g] >= 0)
        resident |= here << i
        up |= (here & (score > b)) << i
        other |= (here & (score < b) & (score != 0)) << i
        at += here & (score == b)
    ps.st[S_THROTTLE_UPDATES] += 1
    if other:
        up = resident  # stack them all
    above = np.int64(0)
    n = _ccws_sort(ps, sm, up)
    for i in range(n):
        g = base + ps.order[base + i]
        set_blocked(ps.blocked, ps.changed, sm, g, BLOCK_LOADS if above >= cutoff else UNBLOCKED)
        above += ps.score[g]
    rest = resident & ~up
    if rest == 0:
        return
    # The k-th warp at the base has above + k * b above it: the first `free` of them are under the
    # cut-off. Those at 0 have above + at * b.
    free = max(np.int64(0), -(-(cutoff - above) // b))
    zero = BLOCK_LOADS if above + at * b >= cutoff else UNBLOCKED
    k = np.int64(0)
    while rest:
        g = base + trailing_zeros(rest)
        rest &= rest - 1
        if ps.score[g] == b:
            set_blocked(ps.blocked, ps.changed, sm, g, BLOCK_LOADS if k >= free else UNBLOCKED)
            k += 1
        else:
            set_blocked(ps.blocked, ps.changed, sm, g, zero)


@nb.njit(cache=True, nogil=True)
def _ccws_sort(ps, sm, slots):
    """Stack ``sm``'s warps in the mask ``slots`` by score, highest first, then by slot, in
    ``order[sm * W:]`` (by insertion: slots come in order, so ties stay); returns how many."""
    base = sm * ps.p[P_W]
    order = ps.order  # indexed, not sliced: numba counts a slice's references
    n = 0
    while slots:
        s = trailing_zeros(slots)
        slots &= slots - 1
        score = ps.score[base + s]
        i = n
        while i > 0 and ps.score[base + order[base + i - 1]] < score:
            order[base + i] = order[base + i - 1]
            i -= 1
        order[base + i] = s
        n += 1
    return n


@nb.njit(cache=True, nogil=True)
def _ccws_cutoff(ps, sm):
    """CCWS's cut-off: ``resident * base_score``, at least 1."""
    return max(np.int64(1), ps.resident[sm] * ps.p[P_BASE])


@nb.njit(cache=True, nogil=True)
def _ccws_ratio_points(ps, sm, k):
    """``VTA hits / instructions * k * cut-off`` over ``sm``'s resident warps, truncated (may be 0).

    As the public code: each resident warp's VTA hits and issued instructions
    since it started (``SchedulerControl.winst``); a warp that exits takes its
    counts out of both sums.
    """
    W = ps.p[P_W]
    total = np.int64(0)
    inst = np.int64(0)
    for g in range(np.uint64(sm * W), np.uint64(sm * W + W)):
        # Without a branch, so that the loop is vectorised: ~(warp >> 63) is all ones for a
        # resident warp (warp >= 0), zero for a free slot (-1). The index is unsigned: numba
        # checks a signed one for a negative value at every access, which keeps a loop scalar.
        resident = ~(ps.warp[g] >> 63)
        total += ps.hits[g] & resident
        inst += ps.winst[g] & resident
    return total * k * _ccws_cutoff(ps, sm) // max(np.int64(1), inst)


@nb.njit(cache=True, nogil=True)
def _ccws_new_warps(ps, sm):
    """A warp that took a slot since the SM's last access starts with no VTA hits and a score of 0.

    The public code sets an exiting warp's score to 0; its successor keeps it
    until its next change, which floors it at the base (:func:`_ccws_add`).
    """
    W = ps.p[P_W]
    base = sm * W
    # Whether any slot holds a new warp, without a branch (vectorised, see _ccws_ratio_points): it
    # runs at every L1 access, and a new warp is rare.
    new = np.int64(0)
    for g in range(np.uint64(base), np.uint64(base + W)):
        new |= (ps.warp[g] ^ ps.cgw[g]) & ~(ps.warp[g] >> 63)
    if new == 0:
        return
    for s in range(W):
        g = base + s
        if ps.warp[g] >= 0 and ps.warp[g] != ps.cgw[g]:
            ps.cgw[g] = ps.warp[g]
            ps.hits[g] = 0
            ps.score[g] = 0


@nb.njit(cache=True, nogil=True)
def _ccws_add(ps, g, points, cap):
    """The public code's ``increment_score``: add; floor at the base, else ``cap`` (its ``k_wsc`` ratio
    points, :func:`_ccws_ratio_points`, which the caller computes once for all its warps)."""
    ps.score[g] = _ccws_sum(ps.score[g], points, ps.p[P_BASE], cap)


@nb.njit(cache=True, nogil=True)
def _ccws_sum(score, points, base, cap):
    """:func:`_ccws_add`'s new score: ``score + points``, at least ``base``, else at most ``cap``."""
    total = score + points
    return base if total <= base else min(total, cap)


@nb.njit(cache=True, nogil=True)
def _ccws_decay(ps, sm, cycle):
    """Scores over the base lose one point per cycle since the last look (the L1 accesses' issue cycles)."""
    d = cycle - ps.last[sm]
    if d <= 0:
        return
    ps.last[sm] = cycle
    W = ps.p[P_W]
    b = ps.p[P_BASE]
    top = b
    for g in range(np.uint64(sm * W), np.uint64(sm * W + W)):  # vectorised: any score over the base?
        top = max(top, ps.score[g])
    if top <= b:
        return
    cap = _ccws_ratio_points(ps, sm, ps.p[P_KWSC])  # the SM's, the same for every warp
    for g in range(np.uint64(sm * W), np.uint64(sm * W + W)):
        # _ccws_add(g, -d, cap) for each score over the base, without a branch (vectorised).
        score = ps.score[g]
        ps.score[g] = _ccws_sum(score, -d, b, cap) if score > b else score
    _ccws_throttle(ps, sm)


@nb.njit(cache=True, nogil=True)
def _enter(ps, a):
    """Start of every L1 hook: the kernel's start, the epochs or the decay; returns the warp's slot."""
    if ps.p[P_W] == 0:
        return np.int64(-1)
    sm = a.c
    if ps.kern[sm] != a.kernel:
        _new_kernel(ps, sm, a.kernel, a.t)
        ps.last[sm] = a.cycle
    if ps.p[P_MODE] == MODE_CCWS:
        _ccws_new_warps(ps, sm)
        _ccws_decay(ps, sm, a.cycle)
        if a.op == STORE:
            _ccws_store(ps, sm, a.line)
        return _slot(ps, sm, a.cta, a.warp)
    s = _slot(ps, sm, a.cta, a.warp)
    _epochs(ps, sm, a.t, s)
    return s


@nb.njit(cache=True, nogil=True)
def _ccws_store(ps, sm, line):
    """CCWS: a store's L1 lookup invalidates its line in every warp's VTA of the SM (the public code)."""
    for slot in range(ps.p[P_W]):
        first, ways, _ = _vta_set(ps, sm, slot, line)
        for w in range(ways):
            if ps.vline[first + w] == line:
                ps.vvalid[first + w] = 0


@nb.njit(cache=True, nogil=True)
def sched_on_hit(state, a):
    """An L1 hit, or a hit in the shared-memory cache (``a.set = -1``): epochs, decay, CCWS's store rule."""
    ps = by_ref(state)  # the functions below take the state's ~40 arrays by pointer
    _enter(ps, a)


@nb.njit(cache=True, nogil=True)
def sched_on_smem(state, a, event, entry, now):
    """The shared-memory cache's events, for the translation unit's log (they change no state).

    Every redirected load is translated (a hit, a migration from the L1D, a merge into a pending
    entry, a miss that writes its shared-memory address into MSHR entry ``entry``); a fill reads
    the entry's address back. A redirected load comes after the policy's first hook of its kernel
    on the SM (the redirection is the policy's decision in that kernel), so the kernel's
    configuration record comes first; the unit's log layout checks each translation against the
    block the timing model used.
    """
    ps = by_ref(state)
    sm = a.c
    if ps.p[P_W] == 0 or not _logs(ps, sm):
        return
    if event == SMEM_FILL:
        _rec_smem(ps, sm, ciao_smem.TX_FILL, a.line, 0, 0, entry, a.way, a.t)
    else:
        s = _slot(ps, sm, a.cta, a.warp)
        _rec_smem(ps, sm, ciao_smem.TX_REQUEST, a.line, max(s, 0), 1 if event == SMEM_ALLOC else 0,
                  entry, a.way, a.t)


@nb.njit(cache=True, nogil=True)
def sched_on_fill(state, a):
    """Remember which warp slot brought the line in (the VTA set of its later eviction)."""
    ps = by_ref(state)  # the functions below take the state's ~40 arrays by pointer
    s = _enter(ps, a)
    if ps.p[P_W] > 0:
        ps.owner[a.c * ps.p[P_LINES] + a.set * ps.p[P_ASSOC] + a.way] = s


@nb.njit(cache=True, nogil=True)
def _vta_set(ps, sm, slot, line):
    """Slot ``slot``'s VTA set for ``line``: its first entry, its ways, its FIFO pointer's index."""
    sets = ps.p[P_VSETS]
    ways = ps.p[P_WAYS] // sets
    vs = (sm * ps.p[P_W] + slot) * sets + (line & (sets - 1))
    return vs * ways, ways, vs


@nb.njit(cache=True, nogil=True)
def sched_on_evict(state, a, way, line, dirty):
    """An L1 line leaves: into its owner's VTA set, with the evicting warp's slot (FIFO).

    A block leaving the shared-memory cache comes with ``a.set = -1`` and its
    owner's slot as ``way`` (the timing model keeps the WID in the block's tag).
    Only a load's replacement is a victim: a store hit that a write-evict L1
    invalidates is not (GPGPU-Sim's ``wr_hit_we`` sets the line invalid and
    passes no evicted block on, so neither CIAO's nor CCWS's VTA sees it).
    """
    ps = by_ref(state)  # the functions below take the state's ~40 arrays by pointer
    if ps.p[P_W] == 0 or a.op == STORE or a.op == ATOMIC:
        return
    sm = a.c
    o = way if a.set < 0 else ps.owner[sm * ps.p[P_LINES] + a.set * ps.p[P_ASSOC] + way]
    wid = _slot(ps, sm, a.cta, a.warp)
    if o < 0 or wid < 0:
        return
    first, ways, vs = _vta_set(ps, sm, o, line)
    if ps.p[P_MODE] == MODE_CCWS:
        for w in range(ways):
            if ps.vvalid[first + w] and ps.vline[first + w] == line:
                return  # already there: the public code's access on a FIFO set changes nothing
    e = first + ps.vptr[vs]
    ps.vvalid[e] = 1
    ps.vline[e] = line
    ps.vwid[e] = wid
    ps.vptr[vs] = (ps.vptr[vs] + 1) % ways
    ps.st[S_INSERTS] += 1
    if _logs(ps, sm):
        _rec_vta(ps, ciao_vta.TX_INSERT, o, line, wid, 0, 0, a.t)


@nb.njit(cache=True, nogil=True)
def sched_on_miss(state, a):
    """An L1 load miss probes the warp's VTA set; a hit feeds IRS and the interference list, or CCWS."""
    ps = by_ref(state)  # the functions below take the state's ~40 arrays by pointer
    s = _enter(ps, a)
    if s < 0 or a.op != LOAD:
        return np.int64(0)
    sm = a.c
    W = ps.p[P_W]
    first, ways, _ = _vta_set(ps, sm, s, a.line)
    g = sm * W + s
    ps.st[S_PROBES] += 1
    log = _logs(ps, sm)
    by = np.int64(-1)
    hit_way = np.int64(0)
    for w in range(ways):
        e = first + w
        if ps.vvalid[e] and ps.vline[e] == a.line:
            if ps.p[P_MODE] != MODE_CCWS:
                ps.vvalid[e] = 0  # the unit's rule; CCWS's entry stays valid (the public code only probes)
            by = ps.vwid[e]
            hit_way = w
            break
    if log:
        _rec_vta(ps, ciao_vta.TX_PROBE, s, a.line, max(by, 0), 1 if by >= 0 else 0, hit_way, a.t)
    if by < 0:
        return np.int64(0)
    ps.st[S_VTA_HITS] += 1
    ps.vta_hits[sm] += 1  # the timing model's time series
    if log:
        _rec_irs(ps, sm, ciao_irs.TX_HIT, s, 0, 0, a.t)
    ps.hits[g] += 1
    if by == s:
        ps.st[S_VTA_HITS_SELF] += 1
    if ps.p[P_MODE] != MODE_CCWS:
        if by == s and ps.p[P_SELF]:
            return np.int64(0)  # self_interference="ignore": the entry is not updated
        ps.ilw[g], ps.ilc[g] = _il_update(ps.ilw[g], ps.ilc[g], by, ps.p[P_IL_TOP])
        if log:
            _rec_il(ps, ciao_interference.TX_UPDATE, s, by, 0, a.t)
        return np.int64(0)
    _ccws_add(ps, g, _ccws_ratio_points(ps, sm, ps.p[P_KVC]), _ccws_ratio_points(ps, sm, ps.p[P_KWSC]))
    _ccws_throttle(ps, sm)
    return np.int64(0)


def _check_positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name}: must be a positive integer, not {value!r}")
    return value


class _VtaScheduler(Policy):
    """What CIAO-T and CCWS share: the VTA, the control arrays, the statistics."""

    mode = MODE_CIAO_T
    vta_sets = 1

    def __init__(self, vta_ways: int, log_sm: int | None = None, log_capacity: int = 1 << 20) -> None:
        check_vta_params(1, vta_ways, VTA_LINE_BITS)
        self.vta_ways = vta_ways
        self.log_sm = -1 if log_sm is None else int(log_sm)
        self.log_capacity = int(log_capacity)
        self._recorders: dict[str, Recorder] = {}
        self._state: SchedState | None = None
        self._n = 0
        self._cfg: CacheConfig | None = None

    def _params(self) -> np.ndarray:
        raise NotImplementedError

    def _build(self, ctl=None) -> LevelHooks:
        n, cfg = self._n, self._cfg
        W = 0 if ctl is None else len(ctl.blocked) // n
        if ctl is None:
            views = {"blocked": np.zeros(0, np.int64), "warp": np.zeros(0, np.int64),
                     "resident": np.zeros(n, np.int64), "inst": np.zeros(n, np.int64),
                     "wpc": np.zeros(n, np.int64), "redirect": np.zeros(0, np.int64),
                     "smem_lines": np.zeros(n, np.int64), "changed": np.zeros(n, np.int64),
                     "winst": np.zeros(0, np.int64), "vta_hits": np.zeros(n, np.int64)}
        else:
            views = {name: getattr(ctl, name) for name in SchedState._fields[:10]}
        lines = cfg.size // cfg.line_size
        p = self._params()
        p[[P_W, P_WAYS, P_LINES, P_ASSOC, P_MODE, P_VSETS]] = (W, self.vta_ways, lines, cfg.assoc, self.mode,
                                                               self.vta_sets)
        p[P_IL_TOP] = (1 << IL_COUNTER_BITS) - 1
        p[P_LOG_SM] = self.log_sm
        per_slot = n * W
        cap = self.log_capacity if self.log_sm >= 0 and W > 0 else 0
        self._recorders = {name: Recorder(unit.TRANSACTION_DTYPE, cap) for name, unit in RECORDERS.items()}
        logs = {}
        for field, name in zip(SchedState._fields[-10::2], RECORDERS, strict=True):
            logs[field] = self._recorders[name].log
            logs["n" + field[2:]] = self._recorders[name].count
        self._state = SchedState(
            **views, owner=np.full(n * lines, -1, np.int64),
            vline=np.zeros(per_slot * self.vta_ways, np.int64),
            vwid=np.zeros(per_slot * self.vta_ways, np.int64),
            vvalid=np.zeros(per_slot * self.vta_ways, np.int64),
            vptr=np.zeros(per_slot * self.vta_sets, np.int64),
            hits=np.zeros(per_slot, np.int64), ilw=np.zeros(per_slot, np.int64),
            ilc=np.zeros(per_slot, np.int64),
            f0=np.full(per_slot, -1, np.int64), f0gw=np.full(per_slot, -1, np.int64),
            f1=np.full(per_slot, -1, np.int64), f1gw=np.full(per_slot, -1, np.int64),
            score=np.zeros(per_slot, np.int64), cgw=np.full(per_slot, -1, np.int64),
            order=np.zeros(per_slot, np.int64),
            kern=np.full(n, -1, np.int64), inst0=np.zeros(n, np.int64),
            hbase=np.zeros(per_slot, np.int64), ibase=np.zeros(n, np.int64), nact=np.zeros(n, np.int64),
            nlow=np.zeros(n, np.int64), nhigh=np.zeros(n, np.int64), last=np.zeros(n, np.int64),
            front=np.full(n, -1, np.int64), mslot=np.zeros(n * SLOT_MEMO, np.int64), p=p,
            st=np.zeros(len(STAT_NAMES), np.int64), **logs)
        return make_hooks(self._state, on_hit=sched_on_hit, on_miss=sched_on_miss, on_fill=sched_on_fill,
                          on_evict=sched_on_evict, on_smem=sched_on_smem)

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        if level != "l1":
            return BASELINE_HOOKS
        self._n, self._cfg = n_caches, cfg
        return self._build()

    def attach_scheduler(self, ctl) -> dict[str, LevelHooks]:
        """Rebuild the L1 hooks on the timing model's scheduler control arrays."""
        if len(ctl.blocked) // self._n > IRS_WARPS + 16:
            raise ValueError(f"max_warps_per_sm: {self.name} indexes warps by a 6-bit WID (at most 64 "
                             f"warps per SM), not {len(ctl.blocked) // self._n}")
        return {"l1": self._build(ctl)}

    def take_transactions(self) -> dict[str, np.ndarray]:
        """SM ``log_sm``'s transactions of each unit since the last call (names: :data:`RECORDERS`).

        Raises
        ------
        RuntimeError
            If a log overflowed its capacity (take them more often).
        """
        return {name: rec.take() for name, rec in self._recorders.items()}

    def stats(self) -> dict[str, int | float]:
        st = self._state.st if self._state is not None else np.zeros(len(STAT_NAMES), np.int64)
        return {name: int(v) for name, v in zip(STAT_NAMES, st, strict=True)}

    def reset(self) -> None:
        if self._state is not None:
            self._state.st[:] = 0
            self._state.kern[:] = -1

    def storage_bits(self, gpu: GPUConfig) -> dict[str, int]:
        w = gpu.max_warps_per_sm
        ptr = max(1, (self.vta_ways // self.vta_sets - 1).bit_length())
        return {"l1.vta": w * self.vta_ways * (VTA_LINE_BITS + 6 + 1) + w * self.vta_sets * ptr}


@register_policy
class CiaoT(_VtaScheduler):
    """ciao18's CIAO-T: interference detection and Algorithm 1's throttling (module docstring).

    Parameters
    ----------
    high_cutoff, low_cutoff : float
        IRS cut-offs (0.01, 0.005), in (0, 1].
    high_epoch, low_epoch : int
        Instructions of an SM per high / low cut-off epoch (5,000, 100), positive.
    examine : str
        Which warps an epoch's end examines: ``"front"`` (default; Algorithm 1: the warp at the
        front of the warp list, which then goes to its back), ``"all"`` (every resident warp) or
        ``"issuing"`` (the warp whose L1 access ends the epoch: line 1's ``getWarpToBeScheduled()``
        read as the warp the scheduler issued, an experiment).
    instructions : str
        What the epochs and Eq. 1's ``N_executed-inst`` count: ``"thread"`` (default: each warp
        instruction counts its 32 threads, as GPGPU-Sim and the paper count instructions;
        ``docs/policies/ciao18.md``) or ``"warp"`` (warp instructions).
    irs_counts : str
        Over which instructions Eq. 1's VTA hits and ``N_executed-inst`` count: ``"kernel"``
        (default: from the kernel's start, the counters resetting only there, Section V-F) or
        ``"epoch"`` (from the end of the last high cut-off epoch: an experiment, not recordable,
        since the IRS unit counts per kernel).
    active_warps : str
        Which warps Eq. 1's ``N_active-warp`` counts, at each epoch's end before its releases:
        ``"unstalled"`` (default: the resident warps not stalled, Algorithm 1's "active", V = 1)
        or ``"resident"`` (stalled ones included).
    self_interference : str
        A VTA hit on a line the warp itself evicted: ``"count"`` (default: it updates the warp's
        interference entry with its own WID, as any other hit) or ``"ignore"`` (the entry is left
        as it is: an experiment). It counts in IRS either way.
    vta_ways : int
        VTA tags per warp (8).
    log_sm : int, optional
        SM whose units' transactions the hooks record (module docstring); None records nothing.
    log_capacity : int
        Rows each transaction log holds between two :meth:`take_transactions`.

    Raises
    ------
    ValueError
        For a cut-off or epoch that is zero, negative or unusable (the message names the field).
    """

    name = "ciao-t"
    mode = MODE_CIAO_T
    recorders = tuple(RECORDERS)

    def __init__(self, *, high_cutoff: float = HIGH_CUTOFF, low_cutoff: float = LOW_CUTOFF,
                 high_epoch: int = HIGH_EPOCH, low_epoch: int = LOW_EPOCH, examine: str = "front",
                 instructions: str = "thread", irs_counts: str = "kernel", active_warps: str = "unstalled",
                 self_interference: str = "count", vta_ways: int = VTA_WAYS, log_sm: int | None = None,
                 log_capacity: int = 1 << 20) -> None:
        self.hi, self.lo = check_irs_params(IRS_WARPS, 32, high_cutoff, low_cutoff, high_epoch, low_epoch, 1)
        for name, value, options in (("examine", examine, EXAMINE),
                                     ("instructions", instructions, INSTRUCTIONS),
                                     ("irs_counts", irs_counts, IRS_COUNTS),
                                     ("active_warps", active_warps, ACTIVE_WARPS),
                                     ("self_interference", self_interference, SELF_INTERFERENCE)):
            if value not in options:
                raise ValueError(f"{name}: {value!r} is not one of {', '.join(map(repr, options))}")
        if irs_counts != "kernel" and log_sm is not None:
            raise ValueError(f"irs_counts: {irs_counts!r} cannot be recorded (log_sm): the IRS unit's "
                             "counters run over the kernel")
        self.examine = examine
        self.instructions = instructions
        self.irs_counts = irs_counts
        self.active_warps = active_warps
        self.self_interference = self_interference
        self.high_cutoff, self.low_cutoff = high_cutoff, low_cutoff
        self.high_epoch, self.low_epoch = high_epoch, low_epoch
        super().__init__(vta_ways, log_sm, log_capacity)

    def _params(self) -> np.ndarray:
        p = np.zeros(N_PARAMS, np.int64)
        p[[P_HI_P, P_HI_Q, P_LO_P, P_LO_Q]] = (self.hi.numerator, self.hi.denominator, self.lo.numerator,
                                               self.lo.denominator)
        p[[P_HI_E, P_LO_E]] = (self.high_epoch, self.low_epoch)
        p[P_EXAMINE] = EXAMINE[self.examine]
        p[P_INST_WEIGHT] = INSTRUCTIONS[self.instructions]
        p[P_IRS_WINDOW] = IRS_COUNTS[self.irs_counts]
        p[P_ACTIVE] = ACTIVE_WARPS[self.active_warps]
        p[P_SELF] = SELF_INTERFERENCE[self.self_interference]
        return p

    def storage_bits(self, gpu: GPUConfig) -> dict[str, int]:
        w = gpu.max_warps_per_sm
        return {**super().storage_bits(gpu), "l1.interference_list": 64 * 8, "l1.pair_list": 64 * 12 + 2 * w,
                "l1.irs": (w * 32 + 32) * (2 if self.irs_counts == "epoch" else 1)}  # + the window's bases

    def units(self) -> tuple[str, ...]:
        return ("ciao_vta", "ciao_interference", "ciao_pair_list", "ciao_irs")


@register_policy
class CiaoP(CiaoT):
    """ciao18's CIAO-P: interfering warps' loads redirected to the shared-memory cache (no throttling).

    The detection and epochs of :class:`CiaoT` (same parameters); at a high
    cut-off epoch the interferer is redirected instead of stalled, and sent
    back to the L1D at a low cut-off epoch when its pair-list warp no longer
    suffers. On a kernel that leaves no shared memory for the cache it stalls
    as CIAO-T (counted in ``sm_kernels_without_smem_cache``).
    """

    name = "ciao-p"
    mode = MODE_CIAO_P

    def storage_bits(self, gpu: GPUConfig) -> dict[str, int]:
        # The MSHR entries' shared-memory address field (ciao18: 64 B per SM); tags live in shared memory.
        return {**super().storage_bits(gpu), "l1.mshr_smem_address": MSHR_ENTRIES * SMEM_ADDR_BITS}

    def units(self) -> tuple[str, ...]:
        return (*super().units(), "ciao_smem")


@register_policy
class CiaoC(CiaoP):
    """ciao18's CIAO-C: Algorithm 1 whole (redirect first, stall an interferer already redirected).

    Parameters as :class:`CiaoT`; without a shared-memory cache it acts as CIAO-T.
    """

    name = "ciao-c"
    mode = MODE_CIAO_C


@register_policy
class CCWS(_VtaScheduler):
    """Cache-conscious wavefront scheduling (Rogers et al. MICRO'12) on a per-warp VTA (module docstring).

    Parameters
    ----------
    vta_ways : int
        Victim tags per warp (16).
    base_score : int
        Every warp's lost-locality score at rest (100).
    k_vc : int
        K_throttle of the lost-locality-detected score (8).
    k_wsc : int
        Factor of a score's cap, ``VTA hits / instructions * k_wsc * cut-off`` (8).

    Raises
    ------
    ValueError
        For a parameter that is zero, negative or unusable (the message names the field).
    """

    name = "ccws"
    mode = MODE_CCWS
    vta_sets = CCWS_VTA_SETS

    def __init__(self, *, vta_ways: int = CCWS_DEFAULTS["vta_ways"],
                 base_score: int = CCWS_DEFAULTS["base_score"], k_vc: int = CCWS_DEFAULTS["k_vc"],
                 k_wsc: int = CCWS_DEFAULTS["k_wsc"]) -> None:
        self.base_score = _check_positive_int("base_score", base_score)
        self.k_vc = _check_positive_int("k_vc", k_vc)
        self.k_wsc = _check_positive_int("k_wsc", k_wsc)
        super().__init__(vta_ways)
        if vta_ways < self.vta_sets:
            raise ValueError(f"vta_ways: CCWS's VTA has {self.vta_sets} sets per warp, needs at least "
                             f"{self.vta_sets} ways, not {vta_ways}")

    def _params(self) -> np.ndarray:
        p = np.zeros(N_PARAMS, np.int64)
        p[[P_BASE, P_KVC, P_KWSC]] = (self.base_score, self.k_vc, self.k_wsc)
        return p
