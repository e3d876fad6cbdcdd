"""Machine configuration: caches and GPU, as frozen, validated dataclasses.

Every field is documented with its unit. Validation raises ``ValueError``
with the field name ("l1.assoc: ..."); the loader adds file and line.

A config is validated as a whole: every value has a range (:data:`CACHE_LIMITS`,
:data:`GPU_LIMITS`, chosen far above any GPU built so far and below what
would overflow the model's 64-bit arithmetic or exhaust memory), and the
combinations the cache engine refuses (tree pseudo-LRU beyond 64 ways, a lower
level with smaller lines than the level above, more tracked lines than
:data:`MAX_TRACKED_LINES`) are refused here, so a config that validates runs.
``docs/configs.md`` lists the limits.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from golden.configs.dram_address import parse_dram_address_map

__all__ = [
    "INDEX_FUNCTIONS",
    "REPLACEMENTS",
    "WRITE_POLICIES",
    "WRITE_ALLOCATES",
    "SLICE_MAPS",
    "ALLOCATE_POLICIES",
    "SCHEDULERS",
    "STALLED_RELEASES",
    "ISSUE_ORDERS",
    "LDST_DISPATCHES",
    "CTA_ISSUES",
    "WRITE_PACKETS",
    "ICNT_RESPONSE_ORDERS",
    "ICNT_REQUEST_QUEUES",
    "COALESCINGS",
    "STORE_ACKS",
    "DRAM_SCHEDULERS",
    "SMEM_CACHE_INDEXES",
    "SMEM_UNITS",
    "SMEM_BROADCASTS",
    "DRAM_BANK_GROUP_INDEXES",
    "CACHE_LIMITS",
    "GPU_LIMITS",
    "MAX_TRACKED_LINES",
    "MAX_PLRU_WAYS",
    "CacheConfig",
    "GPUConfig",
]

#: Set-index functions: modulo, XOR-folded (GPGPU-Sim ``X``), prime modulo, shifted modulo (RDGC SMOD n).
INDEX_FUNCTIONS = ("mod", "xor", "prime", "smod", "fermi")
#: Replacement policies.
REPLACEMENTS = ("lru", "plru", "fifo", "random", "lfu")
#: Write policies: write-through without write-allocate, write-evict, write-back with write-allocate.
WRITE_POLICIES = ("write-through", "write-evict", "write-back")
#: When a missing line gets its way: at the miss (victim chosen then) or when the data returns.
ALLOCATE_POLICIES = ("on-miss", "on-fill")
#: How a write-back cache allocates a store miss (CacheConfig.write_allocate).
WRITE_ALLOCATES = ("lazy", "fetch")
#: What an MSHR entry of a level is kept for (timing model): a line, or one sector of a sectored line.
MSHR_KEYS = ("line", "sector")
#: How lines are spread over a sliced cache's slices (``golden.cache.indexing``).
SLICE_MAPS = ("mod", "gtx480")
#: Warp schedulers: loose round robin, greedy-then-oldest, oldest-first, and GPGPU-Sim's
#: two-level active scheduler (timing model only).
SCHEDULERS = ("lrr", "gto", "oldest", "two-level")
#: Which policy-stalled warps an SM reactivates when all its warps with instructions left are
#: stalled (timing model, ``docs/timing.md``, "Policy blocks"): all of them at once, or only the
#: one stalled last (ciao18's "in the reverse order").
STALLED_RELEASES = ("all", "last")
#: Orders in which an SM's schedulers issue within a cycle (GPUConfig.issue_order).
ISSUE_ORDERS = ("fixed", "rotating")
#: The order in which an SM's LD/ST unit takes the memory instructions waiting for it
#: (GPUConfig.ldst_dispatch): the order they issued in, or GPGPU-Sim's memory operand collector
#: units dispatched round robin (``dispatch_unit_t::find_ready``).
LDST_DISPATCHES = ("issue-order", "round-robin")
#: How the timing model starts CTAs on SMs (GPUConfig.cta_issue): every CTA that fits in the
#: cycle, SM 0 first each time, or GPGPU-Sim's issue_block2core (one CTA per cluster and cycle,
#: from the cluster after the last that took one, that turn kept across kernels).
CTA_ISSUES = ("fill", "rotating")
#: How many bytes of data a store's line request carries to the L2 on an L1 without sectors
#: (GPUConfig.write_packet): the whole line, or GPGPU-Sim's coalesced segment.
WRITE_PACKETS = ("line", "segment")
#: How an SM's crossbar output takes the responses waiting for it (GPUConfig.icnt_response_order):
#: in the order the L2 sub-partitions sent them, or the sub-partitions in turn.
ICNT_RESPONSE_ORDERS = ("fifo", "round-robin")
#: How the responses a sub-partition sends wait at the crossbar (GPUConfig.icnt_input_queues):
#: each for its own SM's output, or all in one queue at the sub-partition's input.
ICNT_INPUT_QUEUES = ("per-output", "single")
#: How the requests SMs send wait at the crossbar (GPUConfig.icnt_request_queues): each at its
#: sub-partition's output as soon as it leaves its SM, or in one queue per cluster's input.
ICNT_REQUEST_QUEUES = ("per-output", "single")
#: What the coalescer makes a request of (GPUConfig.coalescing): each L1 line a warp touches, or
#: each 32-byte sector (GPGPU-Sim's ``gpgpu_coalesce_arch`` 40 and above, on a sectored L1).
COALESCINGS = ("line", "sector")
#: Whether the L2 acknowledges stores and a warp waits for the acknowledgements before it exits
#: (GPUConfig.store_acks): no, or each store its L2 acknowledgement (GPGPU-Sim's ``WRITE_ACK``).
STORE_ACKS = ("none", "l2")
#: How a DRAM channel orders its queued requests (GPUConfig.dram_scheduler): in arrival order, or
#: first-ready first-come-first-served (row hits first, GPGPU-Sim's ``-gpgpu_dram_scheduler 1``).
DRAM_SCHEDULERS = ("fcfs", "frfcfs")
#: How the timing model times a DRAM channel's requests (GPUConfig.dram_model): each as a whole
#: when its bank takes it, or command by command, DRAM cycle by DRAM cycle (GPGPU-Sim's dram_t).
DRAM_MODELS = ("requests", "commands")
#: Which block of ciao18's shared-memory cache a line takes (GPUConfig.smem_cache_index): the
#: address's own G:R bits [15:7] (Fig. 7c), or those XORed with address bits [23:15].
SMEM_CACHE_INDEXES = ("mod", "xor")
#: What a shared-memory instruction takes in the timing model (GPUConfig.smem_unit): the SM's
#: LD/ST unit for a cycle per bank access (GPGPU-Sim's ``ldst_unit::shared_cycle``), or no unit.
SMEM_UNITS = ("ldst", "none")
#: Which lanes reading one word a shared-memory bank serves in one access
#: (GPUConfig.smem_broadcast): those of every word (``gpgpu_shmem_limited_broadcast 0``) or of one
#: word a warp part (``1``).
SMEM_BROADCASTS = ("all", "one")
#: Which bits of a DRAM bank's number give its bank group (GPUConfig.dram_bank_group_index): the
#: high ones (GPGPU-Sim's ``dram_bnkgrp_indexing_policy 0``) or the low ones (``1``).
DRAM_BANK_GROUP_INDEXES = ("high", "low")


#: Inclusive (low, high) of each integer field of a cache level.
CACHE_LIMITS = {
    "size": (1, 1 << 32), "assoc": (1, 1 << 16), "line_size": (4, 1 << 16), "sector_size": (0, 1 << 16),
    "smod_shift": (0, 32), "slices": (0, 1 << 24), "tag_latency": (0, 1 << 20),
    "data_latency": (0, 1 << 20), "hit_latency": (0, 1 << 20), "miss_latency": (0, 1 << 20),
    "lookup_latency": (0, 1 << 20),
    "banks": (1, 1024), "ports": (1, 1024),
    "mshrs": (0, 1 << 20), "mshr_merges": (0, 1 << 20), "miss_queue": (0, 1 << 20),
    "seed": (0, (1 << 63) - 1),
}
#: Inclusive (low, high) of each integer field of a GPU.
GPU_LIMITS = {
    "n_sm": (1, 1024), "warp_size": (1, 1024), "max_threads_per_sm": (1, 1 << 16),
    "max_ctas_per_sm": (1, 1024), "max_warps_per_sm": (1, 2048), "schedulers_per_sm": (1, 64),
    "mem_latency": (0, 1 << 20), "shared_mem_bytes": (0, 1 << 32), "shared_mem_banks": (1, 1024),
    "l2_partitions": (1, 1024), "max_regs_per_sm": (1, 1 << 24), "warp_limit": (0, 2048),
    "two_level_active": (1, 2048), "icnt_latency": (0, 1 << 16), "icnt_flit_bytes": (1, 1 << 12),
    "icnt_packet_gap": (0, 64), "l1_response_rate": (0, 1024),
    "dram_channels": (0, 1024), "dram_banks": (1, 1024), "dram_row_bytes": (1, 1 << 20),
    "dram_t_cl": (0, 1 << 12), "dram_t_rcd": (0, 1 << 12), "dram_t_rp": (0, 1 << 12),
    "dram_t_ras": (0, 1 << 12), "dram_bus_bytes": (0, 1 << 12), "dram_latency": (0, 1 << 16),
    "dram_t_ccd": (0, 1 << 12), "dram_t_ccdl": (0, 1 << 12), "dram_t_wtr": (0, 1 << 12),
    "dram_t_rtw": (0, 1 << 12), "dram_atom_bytes": (0, 1 << 12), "dram_bank_groups": (1, 1024),
    "dram_t_rrd": (0, 1 << 12), "dram_t_rc": (0, 1 << 12), "dram_t_wl": (0, 1 << 12),
    "dram_t_wr": (0, 1 << 12), "dram_t_rtpl": (0, 1 << 12),
    "ldst_queue": (0, 1024), "icnt_input_buffer": (0, 4096), "dram_queue": (0, 1 << 16),
    "l2_input_queue": (0, 4096), "l2_input_room": (1, 64), "l2_response_queue": (0, 4096),
    "icnt_response_buffer": (0, 1 << 16),
    "sms_per_cluster": (1, 1024),
    "cta_first_cluster": (0, 1023), "icache_bytes": (0, 1 << 24), "icache_assoc": (1, 64),
    "smem_latency": (0, 1 << 12), "smem_warp_parts": (1, 64),
    "icache_mshrs": (1, 64),
}
#: Highest clock frequency a config may give, in MHz.
MAX_CLOCK_MHZ = 1e6
#: Lines of every cache level together (L1 counted once per SM): bounds the model's memory
#: (about 32 bytes of engine state per line).
MAX_TRACKED_LINES = 1 << 23
#: Ways of a tree pseudo-LRU set: the engine keeps a set's tree in one 64-bit word.
MAX_PLRU_WAYS = 64


def _pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


def _check_ints(obj, limits: dict) -> None:
    for name, (lo, hi) in limits.items():
        v = getattr(obj, name)
        if not isinstance(v, int) or isinstance(v, bool) or v < lo:
            kind = "a positive integer" if lo == 1 else "a non-negative integer"
            raise ValueError(f"{name}: must be {kind}, not {v!r}")
        if v > hi:
            raise ValueError(f"{name}: must be at most {hi:,}, not {v:,}")


def _check_text(obj, names: tuple[str, ...]) -> None:
    for name in names:
        v = getattr(obj, name)
        if not isinstance(v, str):
            raise ValueError(f"{name}: must be a string, not {v!r}")
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{name}: must be valid Unicode text (it holds a lone surrogate)") from None


@dataclass(frozen=True)
class CacheConfig:
    """One cache level.

    Parameters
    ----------
    size : int
        Capacity in bytes (data array).
    assoc : int
        Ways per set.
    line_size : int
        Line size in bytes, a power of two.
    sector_size : int
        Sector size in bytes (0: no sectors).
    index : str
        Set-index function, one of :data:`INDEX_FUNCTIONS`.
    smod_shift : int
        For ``index = "smod"``: how many bits the index field is shifted up (RDGC's n).
    slices : int
        For ``index = "mod"``, ``"xor"`` or ``"fermi"``: how many equal slices the sets form
        (GPGPU-Sim's L2 sub-partitions): ``line mod slices`` picks the slice, which indexes its
        own line number ``line // slices`` linearly (``mod``) or hashed (``xor``, ``fermi``). 0
        means one slice for ``mod`` and ``fermi`` (for ``mod`` the set count must then be a
        power of two; ``fermi`` needs 32 or 64 sets per slice) and, for ``xor``,
        ``sets / 2**k`` for the largest power of two ``2**k`` dividing ``sets``. See
        :attr:`index_slices`. Ignored by the other index functions, as ``smod_shift`` is.
    slice_map : str
        How lines are spread over the slices, one of :data:`SLICE_MAPS`: ``"mod"`` (``line mod
        slices``) or ``"gtx480"`` (GPGPU-Sim's GTX 480 address decoder: ``slices / 2`` channels
        of 2 sub-partitions, the sub-partition bit above the channel; 128-byte lines, an even
        slice count). See ``golden.cache.indexing``.
    replacement : str
        One of :data:`REPLACEMENTS`.
    write : str
        One of :data:`WRITE_POLICIES`.
    allocate : str
        One of :data:`ALLOCATE_POLICIES`.
    write_allocate : str
        Timing model, write-back L2: how a store that misses the line is allocated, one of
        :data:`WRITE_ALLOCATES`. ``"lazy"`` (GPGPU-Sim's ``L``, lazy fetch-on-read): the
        written sectors become the line's and nothing is read. ``"fetch"`` (GPGPU-Sim's
        ``W``, ``data_cache::wr_miss_wa``): the store is also written to DRAM, and the line
        is read and allocated as for a load miss (an MSHR, a read from DRAM, a clean fill).
    tag_latency, data_latency : int
        Cycles for a tag lookup and a data-array access.
    hit_latency : int
        Cycles from request to data on a hit (0: tag + data latency).
    lookup_latency : int
        Timing model, first level: cycles from a request's leaving the LD/ST unit to its tag
        lookup, a pipeline that is part of the hit latency (at most ``hit_latency``; a hit's
        data comes ``hit_latency - lookup_latency`` cycles after the lookup, a miss leaves
        for the next level after it). GPGPU-Sim 4.0 passes every L1D access through an
        ``l1_latency``-stage queue in front of the lookup (kim20's preset: 82); a load a
        policy sends past the L1 before the lookup (``on_lookup``) skips it. 0 (default):
        the lookup is at once. At the L2 (timing model): cycles from a request's arrival at
        its sub-partition to its lookup, also part of the hit latency; a hit answers and a
        miss goes below ``hit_latency - lookup_latency`` cycles after the lookup, so the
        latencies stay those of ``hit_latency`` and only the moment the line is looked up
        (hit, merge or miss, an MSHR taken) moves. GPGPU-Sim's ROP delay queue
        (``rop_latency``) is such a pipeline (the ciao18 preset: 120; ``docs/timing.md``).
    miss_latency : int
        Timing model, first level: cycles from a request's lookup to its leaving for the next
        level (a miss, a store, an atomic); a load a policy sends past the L1 (``on_lookup``)
        does not wait. 0 (default): a miss leaves at once. (kim20's preset had 82 here
        until 2026-11-24's lookup pipeline, its way of modelling GPGPU-Sim's queue:
        docs/timing.md, "Lookup pipeline".)
    banks, ports : int
        Banks, and ports per bank.
    mshrs : int
        Miss status holding registers (0: unlimited).
    mshr_merges : int
        Requests one MSHR can merge (0: unlimited).
    mshr_key : str
        Timing model (L1 and L2): what one MSHR entry is kept for, one of :data:`MSHR_KEYS`. ``"line"``
        (default): an entry per line; a request for sectors the entry is not fetching reads them
        too, and the line fills (its waiters answered) when all its reads are back. ``"sector"``
        (needs ``sector_size``): an entry per sector, as GPGPU-Sim's sector caches key their MSHRs
        (``cache_config::mshr_addr`` masks the address to ``m_atom_sz``, the 32-byte sector): each
        sector fills and answers its own waiters when its read is back, and ``mshrs`` and
        ``mshr_merges`` count sectors. A request for several sectors takes one entry, named by the
        first sector it lacks, as GPGPU-Sim names it by its address (``docs/timing.md``, "L2
        sectors").
    miss_queue : int
        Entries of the miss queue (0: unlimited).
    seed : int
        Seed of the random replacement policy.
    """

    size: int
    assoc: int
    line_size: int
    sector_size: int = 0
    index: str = "mod"
    smod_shift: int = 0
    slices: int = 0
    slice_map: str = "mod"
    replacement: str = "lru"
    write: str = "write-back"
    allocate: str = "on-miss"
    write_allocate: str = "lazy"
    tag_latency: int = 1
    data_latency: int = 1
    hit_latency: int = 0
    miss_latency: int = 0
    lookup_latency: int = 0
    banks: int = 1
    ports: int = 1
    mshrs: int = 0
    mshr_merges: int = 0
    mshr_key: str = "line"
    miss_queue: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        _check_ints(self, CACHE_LIMITS)
        if not _pow2(self.line_size) or self.line_size < 4:
            raise ValueError(f"line_size: must be a power of 2 of at least 4 bytes, not {self.line_size}")
        if self.sector_size and (not _pow2(self.sector_size) or self.sector_size > self.line_size
                                 or self.line_size // self.sector_size > 8):
            raise ValueError(f"sector_size: must be a power of 2 giving 1 to 8 sectors per line, "
                             f"not {self.sector_size}")
        if self.size % (self.assoc * self.line_size):
            raise ValueError(f"size: {self.size} bytes is not a whole number of sets of "
                             f"{self.assoc} x {self.line_size}-byte lines")
        for name, allowed in (("index", INDEX_FUNCTIONS), ("replacement", REPLACEMENTS),
                              ("write", WRITE_POLICIES), ("allocate", ALLOCATE_POLICIES),
                              ("write_allocate", WRITE_ALLOCATES), ("slice_map", SLICE_MAPS),
                              ("mshr_key", MSHR_KEYS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}: must be one of {', '.join(allowed)}, not {getattr(self, name)!r}")
        if self.mshr_key == "sector" and not self.sector_size:
            raise ValueError("mshr_key: 'sector' needs a sectored cache (sector_size), not sector_size 0")
        if self.write_allocate == "fetch" and self.write != "write-back":
            raise ValueError(f"write_allocate: 'fetch' allocates store misses of a write-back cache, "
                             f"not of a {self.write} one")
        if self.index == "smod" or (self.index == "mod" and not self.slices):
            if not _pow2(self.sets):
                raise ValueError(f"index: {self.index!r} needs a power-of-2 number of sets, not {self.sets}")
        if self.index in ("mod", "xor", "fermi"):
            self._check_slices()
        if self.slice_map == "gtx480":
            if self.index not in ("mod", "xor", "fermi") or self.index_slices < 2 or self.index_slices % 2:
                raise ValueError(f"slice_map: 'gtx480' spreads lines over an even number of slices (2 per "
                                 f"channel) of a 'mod', 'xor' or 'fermi' index, not {self.index_slices} of "
                                 f"{self.index!r}")
            if self.line_size != 128:
                raise ValueError(f"slice_map: 'gtx480' decodes 128-byte lines, not {self.line_size}-byte")
        if self.replacement == "plru" and not _pow2(self.assoc):
            raise ValueError(f"replacement: tree pseudo-LRU needs power-of-2 ways, not {self.assoc}")
        if self.replacement == "plru" and self.assoc > MAX_PLRU_WAYS:
            raise ValueError(f"replacement: tree pseudo-LRU supports at most {MAX_PLRU_WAYS} ways, "
                             f"not {self.assoc}")
        if self.lines > MAX_TRACKED_LINES:
            raise ValueError(f"size: {self.size:,} bytes is {self.lines:,} lines; gpucache models at most "
                             f"{MAX_TRACKED_LINES:,}")

    @property
    def sets(self) -> int:
        """Number of sets."""
        return self.size // (self.assoc * self.line_size)

    @property
    def index_slices(self) -> int:
        """Equal slices the set-index function splits the sets into.

        For ``index = "mod"`` or ``"fermi"``: ``slices``, or 1 when that is 0. For
        ``index = "xor"``: ``slices``, or when that is 0 ``sets / 2**k`` for the
        largest power of two ``2**k`` dividing ``sets`` (768 sets: 3 slices of
        256). 1 for the other index functions.
        """
        if self.index in ("mod", "fermi"):
            return self.slices or 1
        if self.index != "xor":
            return 1
        sets = self.sets
        return self.slices or sets // (sets & -sets)

    def _check_slices(self) -> None:
        sets, slices = self.sets, self.slices
        if not slices:
            if self.index == "xor" and sets > 1 and sets % 2:
                raise ValueError(f"index: 'xor' needs 1 or an even number of sets (at least 2 per "
                                 f"power-of-2 slice), not {sets}")
        elif sets % slices or not _pow2(sets // slices):
            raise ValueError(f"slices: must divide the {sets} sets into power-of-2 slices, not {slices}")
        if self.index == "fermi" and sets // (slices or 1) not in (32, 64):
            raise ValueError(f"index: 'fermi' (GPGPU-Sim's FERMI_HASH_SET_FUNCTION) hashes 32 or 64 sets "
                             f"per slice, not {sets // (slices or 1)}")
        if not slices:
            return
        # One set per XOR slice leaves no index bits to hash: that is plain mod indexing.
        if self.index == "xor" and sets // slices == 1 and sets > 1:
            raise ValueError(f"slices: must leave at least 2 of the {sets} sets per slice, not {slices}")

    @property
    def lines(self) -> int:
        """Number of lines."""
        return self.size // self.line_size

    @property
    def latency(self) -> int:
        """Hit latency in cycles."""
        return self.hit_latency or self.tag_latency + self.data_latency

    def replace(self, **changes) -> CacheConfig:
        """A copy with the given fields changed (validated)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class GPUConfig:
    """A GPU: SMs, warp scheduling and the cache hierarchy.

    Parameters
    ----------
    name : str
        Preset or file name.
    source : str
        Where the figures come from (``"tian15 Table 1"``).
    n_sm : int
        Streaming multiprocessors (compute units), each with a private L1.
    l1, l2 : CacheConfig
        Private per-SM L1 data cache and shared L2.
    l3 : CacheConfig or None
        Optional memory-side L3.
    warp_size : int
        Threads per warp.
    max_threads_per_sm, max_ctas_per_sm, max_warps_per_sm : int
        Residency limits per SM (RDGC's MAXCW is ``max_warps_per_sm``, MAXCB ``max_ctas_per_sm``).
    schedulers_per_sm : int
        Warp schedulers per SM (instructions issued per SM per cycle).
    scheduler : str
        Warp scheduling policy, one of :data:`SCHEDULERS`.
    cta_scheduler : str
        CTA-to-SM mapping of the interleaver (``"round-robin"``).
    cta_issue : str
        How the timing model starts a kernel's CTAs on the SMs (:data:`CTA_ISSUES`):
        ``"fill"``, every CTA that fits starts in the cycle, the SMs visited round robin from
        SM 0 each time; or ``"rotating"``, GPGPU-Sim's ``gpgpu_sim::issue_block2core``: each
        cycle every cluster of ``sms_per_cluster`` SMs may start one CTA, on its SMs in turn
        from the one after its last, the clusters visited from the one after the last cluster
        that started a CTA; that turn is kept from one kernel to the next, so a kernel's CTA 0
        does not land where the previous kernel's did (``docs/timing.md``, "CTAs").
    sms_per_cluster : int
        SMs per cluster (GPGPU-Sim's ``gpgpu_n_cores_per_cluster``; SM ``c * sms_per_cluster +
        i`` is core ``i`` of cluster ``c``). Only ``cta_issue = "rotating"`` reads it; it must
        divide ``n_sm``.
    cta_first_cluster : int
        With ``cta_issue = "rotating"``, the cluster the first kernel's first CTA starts on:
        GPGPU-Sim 3.2.2 begins its turn at cluster 1 (``m_last_cluster_issue = 0``), 4.0 and
        later at cluster 0.
    mem_latency : int
        In the interleaver's latency abstraction: after a global load or
        atomic issued at cycle ``t`` the warp cannot issue until
        ``t + 1 + mem_latency``.
    shared_mem_bytes, shared_mem_banks : int
        Scratchpad per SM and its banks of 4-byte words (``gpgpu_shmem_num_banks``).
    smem_latency : int
        Timing model: cycles from a shared-memory load's issue to its result (when it meets a
        free LD/ST unit and no bank conflict: each cycle it waits for the unit or for a bank
        adds one, ``smem_unit``), which the warp's dependences wait for as they wait for a
        global load's (GPGPU-Sim's
        ``gpgpu_smem_latency``, the stages of the LD/ST unit's shared-memory pipeline: 3 in
        3.2.2, whose pipeline is fixed, and by default in 4.x; 24 in the TITAN X Pascal
        config). 0: a shared load's result is there at once.
    smem_unit : str
        Timing model: what a shared-memory instruction takes, :data:`SMEM_UNITS`. ``"ldst"``:
        the SM's LD/ST unit, one cycle per bank access (its bank conflicts; GPGPU-Sim's
        ``ldst_unit::shared_cycle``), in turn with the global instructions; a shared load's
        result comes ``smem_latency - 1`` cycles after its last access. ``"none"``: no unit and
        no bank conflicts, the result ``smem_latency`` cycles after issue (the model before
        2026-12-06's session 72; the tian15 preset's, whose GCN LDS is not the vector memory unit).
    smem_warp_parts, smem_broadcast : int, str
        With ``smem_unit = "ldst"``, how a shared instruction's lanes meet the
        ``shared_mem_banks`` banks of 4-byte words (``golden.gpu.program``): the warp is cut
        into ``smem_warp_parts`` parts of at most 32 lanes that take turns
        (``gpgpu_shmem_warp_parts``), and a bank serves the lanes reading one word at once for
        ``"all"`` words or for ``"one"`` word a part (``gpgpu_shmem_limited_broadcast``,
        :data:`SMEM_BROADCASTS`).
    l2_partitions : int
        Memory partitions the L2 is split into (the timing model's L2 sub-partitions,
        each with its own request queue, MSHRs and port).
    max_regs_per_sm : int
        Registers per SM (limits resident CTAs in the timing model).
    warp_limit : int
        Static warp limiting (``swl:N``): only the ``N`` oldest resident warps of an SM
        may issue; 0 for no limit (timing model).
    two_level_active : int
        Warps in the active set of the ``two-level`` scheduler (GPGPU-Sim's ``two_level_active``).
    stalled_release : str
        When every warp of an SM with instructions left is stalled by a policy, reactivate
        ``"all"`` of them at once, or only the one stalled ``"last"`` (the next at the next
        warp exit that leaves the SM so again): :data:`STALLED_RELEASES`.
    issue_order : str
        The order of an SM's schedulers within a cycle, which decides who gets a resource
        both want (the LD/ST unit's queue): ``"fixed"`` (scheduler 0 first every cycle, as
        GPGPU-Sim 3.x) or ``"rotating"`` (the first scheduler rotates every cycle, as
        GPGPU-Sim 4.x and Accel-Sim: ``shader_core_ctx::issue``'s ``Issue_Prio``).
    ldst_queue : int
        Global memory instructions an SM holds between issue and its LD/ST unit (timing
        model): a warp may issue one while the unit is busy as long as fewer than this many
        wait, and the unit takes them in the order ``ldst_dispatch`` gives. GPGPU-Sim's pipeline register
        ``ID_OC_MEM``, memory operand collectors and ``OC_EX_MEM`` (``docs/timing.md``);
        0: a memory instruction issues only into a free unit.
    ldst_dispatch : str
        The order in which the LD/ST unit takes the instructions of ``ldst_queue``:
        ``"issue-order"`` (first issued, first taken) or ``"round-robin"`` (GPGPU-Sim's: the
        queue is ``ID_OC_MEM``, ``ldst_queue - 2`` collector units and ``OC_EX_MEM``; an
        instruction takes the lowest free unit, and the units are dispatched to ``OC_EX_MEM``
        in turn from the one after the last dispatched, so a warp that issued later can go
        first): :data:`LDST_DISPATCHES`.
    icnt_latency : int
        Cycles a packet takes between an SM and an L2 partition, each way.
    write_packet : str
        The data a store's line request carries to the L2 when the L1 has no sectors
        (:data:`WRITE_PACKETS`; timing model): ``"line"``, the whole line; or ``"segment"``,
        as GPGPU-Sim's coalescer sizes it (``memory_coalescing_arch_reduce_and_send``): the
        32-byte chunks the warp's threads write in each 128-byte segment of the line, reduced
        to the aligned 32- or 64-byte part that holds them all, else the 128 bytes. With
        sectors a store carries its sectors either way. It sets the packet's flits, and so the
        crossbar's time for it, and the bytes a write sent on to DRAM moves.
    icache_bytes, icache_assoc, icache_mshrs : int
        Each SM's instruction cache (timing model; ``docs/timing.md``, "Instruction fetch"):
        its size in bytes, 0 for none (every instruction at hand, the default), its ways
        and its MSHRs (GPGPU-Sim's ``gpgpu_cache:il1``, read-only, LRU, allocate on fill).
        Its lines are ``l1.line_size`` bytes; a miss reads the line from the L2 like a load
        of address ``0xF0000000 + pc`` (GPGPU-Sim's ``PROGRAM_MEM_START``).
    icnt_flit_bytes : int
        Bytes per interconnect flit; every port moves one flit per cycle (a read request
        is its 8-byte header, a write or a response the header and its data, in whole flits:
        GPGPU-Sim's ``mem_fetch::size``).
    icnt_packet_gap : int
        Cycles a crossbar port idles between two packets (timing model): each of its outputs
        (an SM's response port, a sub-partition's request port) and each of its inputs (an
        SM's request port, a sub-partition's response port) moves a packet of ``n`` flits every
        ``n + icnt_packet_gap`` cycles. Measured on Accel-Sim at all four: one idle cycle per
        packet with GPGPU-Sim's ``internal_speedup = 1.0`` (the GTX 480's
        ``config_fermi_islip.icnt``), none with 2.0 (the TITAN X Pascal's) (``docs/timing.md``;
        the inputs since 2026-12-06, ``docs/validation.md``, "The crossbar's inputs idle too").
    icnt_response_order : str
        Which waiting response an SM's crossbar output takes when it is free (timing model):
        ``"fifo"``, in the order the L2 sub-partitions sent them (a packet waits for every one
        sent before it, even one still on its way), or ``"round-robin"``, the sub-partitions with
        a packet waiting in turn from the one after the last served, each sub-partition's in the
        order it sent them (the output arbiter of GPGPU-Sim's iSLIP crossbar). With one
        sub-partition the two are the same. Round robin delivers an SM's lines out of the order
        they were requested, as Accel-Sim does (``docs/validation.md``, "The crossbar's round robin").
    icnt_input_queues : str
        Where a sub-partition's responses wait for their SM's crossbar output (timing model, with
        ``icnt_response_order = "round-robin"``): ``"per-output"`` (default), one queue per SM
        output, so a response whose SM output is free never waits behind one for a busy output;
        or ``"single"``, one first-in-first-out queue at the sub-partition's input, whose head,
        waiting for a busy output, holds every response behind it (head-of-line blocking: the
        booksim crossbar of GPGPU-Sim with one virtual channel, ``num_vcs = 1``). Measured against
        Accel-Sim in ``docs/validation.md``, "Head-of-line blocking at the crossbar's inputs".
    icnt_request_queues : str
        Where the requests SMs send wait for their sub-partition's crossbar output (timing model):
        ``"per-output"`` (default), each leaves its SM's input when the input is free and waits at
        its output, so a request for a free sub-partition never waits behind one for a busy one;
        or ``"single"``, one first-in-first-out queue at each cluster's input (the
        ``sms_per_cluster`` SMs of a cluster share it, as GPGPU-Sim's cluster is one crossbar
        node), whose head holds every request behind it until its output takes it (head-of-line
        blocking, ``num_vcs = 1``). Measured against Accel-Sim in ``docs/validation.md``, "The
        requests' crossbar: one queue per cluster".
    icnt_input_buffer : int
        Requests a cluster's crossbar input holds beyond its SMs' miss queues under
        ``icnt_request_queues = "single"`` (timing model; 0 by default): a request waiting for the
        input leaves its miss-queue slot (``l1.miss_queue``) for this buffer, shared by the
        cluster's SMs, while it has room (GPGPU-Sim's crossbar interface's input queue and its
        router's input buffer: ``input_buffer_size`` + ``vc_buf_size`` flits of its icnt file).
        0: the waiting requests hold their miss-queue slots.
    l2_input_queue, l2_input_room : int
        Timing model: a sub-partition takes a request from the crossbar only while its L2 input
        queue (the requests past ``l2.lookup_latency``'s pipeline that the L2 has not served) has
        room for ``l2_input_room`` more of ``l2_input_queue``; meanwhile an SM whose miss queue's
        head goes to it does not send (the head holds the requests behind it). GPGPU-Sim's
        icnt-to-L2 queue (the first of ``-gpgpu_dram_partition_queues``, 8 by default), which
        GPGPU-Sim 3.x fills while it is not full (room 1) and 4.x while it has room for a line's 4
        sector requests (``SECTOR_CHUNCK_SIZE``); ``docs/timing.md``, "Below the L1". 0 (the
        default): no limit.
    l2_response_queue, icnt_response_buffer : int
        Timing model, with ``icnt_input_queues = "single"``: a sub-partition's responses enter its
        crossbar input, in order, while the flits there and theirs fit in
        ``icnt_response_buffer`` (an empty input takes one whatever its size; a response's
        ``to_sm`` latency starts when it enters, GPGPU-Sim's ``icnt_push``); the others wait in
        its L2-to-icnt queue, and while ``l2_response_queue`` wait there the L2 looks up nothing,
        so responses that cannot leave hold the L2 and, through its input queue
        (``l2_input_queue``), the SMs' requests. A line filled from below still answers its
        waiting requests (GPGPU-Sim keeps them in the MSHR until the queue has room). GPGPU-Sim's
        L2-to-icnt queue (the last of ``-gpgpu_dram_partition_queues``, ``output_full``) and the
        crossbar input's flits (``input_buffer_size``, 9 when unset, and ``vc_buf_size`` of its
        icnt file; ``icnt_has_buffer``): 8 and 17 on the ciao18 preset. 0 (the defaults): no
        limit (``l2_response_queue`` needs ``icnt_response_buffer``).
    coalescing : str
        What a warp's global access is cut into (timing model): ``"line"`` (default), one request
        per L1 line it touches, carrying the mask of the sectors it needs; or ``"sector"``, one
        request per 32-byte sector, as GPGPU-Sim's coalescer does from ``gpgpu_coalesce_arch`` 40
        (Maxwell) on: each takes its own cycle of the LD/ST unit, lookup, miss-queue slot and
        packet. Needs an L1 with 32-byte sectors.
    store_acks : str
        Whether a store is acknowledged (timing model): ``"none"`` (default), a store leaves its
        warp for good once the LD/ST unit has sent it; ``"l2"``, the L2 answers every store
        request with an acknowledgement, a packet of one header flit (one per 32-byte sector
        it writes on a sectored L2, which GPGPU-Sim breaks into sector requests), and a warp
        exits, freeing its slot and its CTA's resources, only when every store it sent has
        been acknowledged (GPGPU-Sim's ``WRITE_ACK`` and ``shd_warp_t::stores_done``). The
        acknowledgement leaves when the store is done at the L2: after the L2's latency on a
        hit, a lazily allocated miss (``write_allocate = "lazy"``) or a line whose fill is on
        its way; under ``write_allocate = "fetch"`` with the line's fill, for a miss and for a
        line on its way (``docs/timing.md``, "Store acknowledgements").
    l1_response_rate : int
        Load requests whose data an SM's L1 hands back per cycle from its arriving responses
        (timing model; 0: no limit). GPGPU-Sim's L1D passes one request a cycle to the LD/ST
        unit's writeback (``mshr_table::next_access``), so the loads merged on one MSHR
        complete on successive cycles, not together (``docs/timing.md``). L1 hits do not
        queue for it.
    smem_cache_index : str
        Which block of the shared-memory cache of ciao18's CIAO-P and CIAO-C a line takes
        (timing model and the translation unit ``rtl.ciao.SmemTranslate``): ``"mod"`` (default),
        the block the paper's translation unit gives (Fig. 7c: the address's group bit G and
        row bits R under the row mask, so the line number modulo the cache's blocks), or
        ``"xor"``, G:R (address bits [15:7]) XORed with address bits [23:15] before the mask
        (the line number XOR itself shifted right by 8), which spreads lines 16 KB apart (a
        warp's 32 matrix rows on ATAX) over 32 blocks of a 256-block cache instead of two:
        not the paper's (``docs/policies/ciao18.md``).
    dram_channels : int
        DRAM channels (0: one per L2 partition); partition ``p`` uses channel
        ``p * dram_channels // l2_partitions``.
    dram_banks, dram_row_bytes : int
        Banks per channel and the bytes of one row (row-buffer size).
    dram_t_cl, dram_t_rcd, dram_t_rp, dram_t_ras : int
        CAS latency, activate-to-read, precharge and activate-to-precharge, in DRAM
        cycles (converted with ``dram_clock_mhz / core_clock_mhz`` when both are given).
    dram_bus_bytes : int
        Bytes a channel transfers per DRAM cycle (0: no bandwidth limit): GPGPU-Sim's
        ``gpgpu_dram_buswidth x gpgpu_n_mem_per_ctrlr x dram_data_command_freq_ratio``.
    dram_atom_bytes : int
        The smallest transfer: an access moves a whole number of them (GPGPU-Sim's
        ``dram_atom_size``, burst length x bus width x chips); 0 for any number of bytes.
    dram_t_ccd, dram_t_ccdl, dram_t_rtw, dram_t_wtr : int
        Timing model: DRAM cycles between a channel's column commands: any two (``tCCD``), two
        in one bank group (``tCCDL``), a read's and a write's (GPGPU-Sim's ``tRTW = CL + BL /
        ratio + 2 - WL``), a write's and a read's (``tWTR = WL + BL / ratio + tCDLR``); 0 for
        no spacing (``docs/timing.md``, "DRAM").
    dram_model : str
        Timing model, ``frfcfs`` only: ``"requests"`` (default) times each request when the
        scheduler gives it to its bank, from the bank's and the bus's times; ``"commands"``
        runs each channel cycle by cycle as GPGPU-Sim's ``dram_t::cycle`` does: the scheduler
        gives one request a DRAM cycle to a bank without one (banks from a rotating priority),
        and the channel issues at most one row command (activate, precharge) and one column
        command (read, write) a DRAM cycle, any bank's that no timing counter holds
        (``docs/timing.md``, "DRAM"). Needs ``dram_atom_bytes``.
    dram_t_rrd, dram_t_rc, dram_t_wl, dram_t_wr, dram_t_rtpl : int
        ``dram_model = "commands"``: DRAM cycles from an activation to the channel's next
        (``tRRD``) and to the bank's next (``tRC``); the write latency (``WL``: a write's data
        follows its command by it, a write may follow an activation after ``tRCD - WL - 1``);
        the write recovery (``tWR``: a bank is precharged no earlier than ``WL + BL / ratio +
        tWR`` after a write, ``BL / ratio`` being the atom's cycles on the bus); and a read's
        to a precharge in its bank group (``tRTPL``; within the bank, ``BL / ratio``).
    dram_bank_groups, dram_bank_group_index : int, str
        Bank groups of a channel, a power of 2 dividing ``dram_banks``, and whether a bank's
        group is the ``"high"`` or ``"low"`` bits of its number (:data:`DRAM_BANK_GROUP_INDEXES`).
    dram_latency : int
        Fixed core cycles added to every DRAM access (controller and PHY pipeline,
        GPGPU-Sim's ``dram_latency``): after the access under ``fcfs``, before the
        request reaches the channel's scheduler under ``frfcfs`` (where GPGPU-Sim has it).
    dram_scheduler : str
        ``"fcfs"``: each channel serves its requests in arrival order, timed as they
        arrive. ``"frfcfs"``: requests wait in the channel's queue; whenever a bank is free
        it takes the oldest request to its open row among the first ``dram_queue``, else the
        oldest to it (GPGPU-Sim's FR-FCFS, ``docs/timing.md``). :data:`DRAM_SCHEDULERS`.
    dram_queue : int
        Requests of a channel the ``frfcfs`` scheduler looks at (GPGPU-Sim's
        ``gpgpu_frfcfs_dram_sched_queue_size``); 0: all of them.
    dram_address_map : str
        GPGPU-Sim's ``-gpgpu_mem_addr_mapping`` (``"dramid@N;MASK"``,
        :mod:`golden.configs.dram_address`): the channel, bank and row of an L2 line from
        its byte address. ``""``: the channel is the L2 partition's, and the bank and row
        come from the line number (``dram_row_bytes`` per row, banks interleaved by row).
    core_clock_mhz, icnt_clock_mhz, l2_clock_mhz, dram_clock_mhz : float
        Clock domains (0 when the source does not give one).
    policy_params : dict
        Per-policy parameters, keyed by policy name (e.g. ``{"ciao": {"vta_ways": 8}}``).
    """

    name: str
    n_sm: int
    l1: CacheConfig
    l2: CacheConfig
    l3: CacheConfig | None = None
    source: str = ""
    warp_size: int = 32
    max_threads_per_sm: int = 1536
    max_ctas_per_sm: int = 8
    max_warps_per_sm: int = 48
    schedulers_per_sm: int = 1
    scheduler: str = "lrr"
    cta_scheduler: str = "round-robin"
    cta_issue: str = "fill"
    sms_per_cluster: int = 1
    cta_first_cluster: int = 0
    write_packet: str = "line"
    icache_bytes: int = 0
    icache_assoc: int = 4
    icache_mshrs: int = 2
    mem_latency: int = 100
    shared_mem_bytes: int = 49152
    shared_mem_banks: int = 32
    smem_latency: int = 0
    smem_unit: str = "ldst"
    smem_warp_parts: int = 1
    smem_broadcast: str = "all"
    l2_partitions: int = 1
    max_regs_per_sm: int = 65536
    warp_limit: int = 0
    two_level_active: int = 6
    stalled_release: str = "all"
    ldst_queue: int = 0
    ldst_dispatch: str = "issue-order"
    issue_order: str = "fixed"
    icnt_latency: int = 8
    icnt_flit_bytes: int = 32
    icnt_packet_gap: int = 0
    icnt_response_order: str = "fifo"
    icnt_input_queues: str = "per-output"
    icnt_request_queues: str = "per-output"
    icnt_input_buffer: int = 0
    l2_input_queue: int = 0
    l2_input_room: int = 1
    l2_response_queue: int = 0
    icnt_response_buffer: int = 0
    coalescing: str = "line"
    store_acks: str = "none"
    l1_response_rate: int = 0
    smem_cache_index: str = "mod"
    dram_channels: int = 0
    dram_banks: int = 16
    dram_row_bytes: int = 2048
    dram_t_cl: int = 12
    dram_t_rcd: int = 12
    dram_t_rp: int = 12
    dram_t_ras: int = 28
    dram_t_ccd: int = 0
    dram_t_ccdl: int = 0
    dram_t_wtr: int = 0
    dram_t_rtw: int = 0
    dram_atom_bytes: int = 0
    dram_bank_groups: int = 1
    dram_model: str = "requests"
    dram_t_rrd: int = 0
    dram_t_rc: int = 0
    dram_t_wl: int = 0
    dram_t_wr: int = 0
    dram_t_rtpl: int = 0
    dram_bank_group_index: str = "high"
    dram_bus_bytes: int = 16
    dram_latency: int = 100
    dram_scheduler: str = "fcfs"
    dram_queue: int = 16
    dram_address_map: str = ""
    core_clock_mhz: float = 0.0
    icnt_clock_mhz: float = 0.0
    l2_clock_mhz: float = 0.0
    dram_clock_mhz: float = 0.0
    policy_params: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_text(self, ("name", "source", "scheduler", "cta_scheduler", "cta_issue", "write_packet",
                           "stalled_release",
                           "issue_order", "ldst_dispatch",
                           "icnt_response_order", "icnt_input_queues", "icnt_request_queues", "coalescing",
                           "store_acks", "dram_scheduler",
                           "dram_address_map",
                           "smem_cache_index", "smem_unit", "smem_broadcast", "dram_bank_group_index"))
        _check_ints(self, GPU_LIMITS)
        if self.warp_size not in (32, 64):
            # Traces hold 32-thread warps; the timing model issues a 64-wide wavefront as two of them.
            raise ValueError(f"warp_size: must be 32 or 64 threads, not {self.warp_size}")
        if self.max_threads_per_sm < self.warp_size:
            raise ValueError(f"max_threads_per_sm: must hold at least one {self.warp_size}-thread warp, "
                             f"not {self.max_threads_per_sm}")
        for name, choices in (("scheduler", SCHEDULERS), ("cta_issue", CTA_ISSUES),
                              ("write_packet", WRITE_PACKETS),
                              ("stalled_release", STALLED_RELEASES),
                              ("issue_order", ISSUE_ORDERS), ("ldst_dispatch", LDST_DISPATCHES),
                              ("icnt_response_order", ICNT_RESPONSE_ORDERS),
                              ("icnt_input_queues", ICNT_INPUT_QUEUES),
                              ("icnt_request_queues", ICNT_REQUEST_QUEUES), ("coalescing", COALESCINGS),
                              ("store_acks", STORE_ACKS),
                              ("dram_scheduler", DRAM_SCHEDULERS), ("dram_model", DRAM_MODELS),
                              ("smem_cache_index", SMEM_CACHE_INDEXES), ("smem_unit", SMEM_UNITS),
                              ("smem_broadcast", SMEM_BROADCASTS),
                              ("dram_bank_group_index", DRAM_BANK_GROUP_INDEXES)):
            if getattr(self, name) not in choices:
                raise ValueError(f"{name}: must be one of {', '.join(choices)}, not {getattr(self, name)!r}")
        if self.icnt_input_queues == "single" and self.icnt_response_order != "round-robin":
            raise ValueError("icnt_input_queues: 'single' needs icnt_response_order 'round-robin' (the SM "
                             "outputs that take turns among the sub-partitions' heads)")
        if self.icnt_response_buffer and self.icnt_input_queues != "single":
            raise ValueError(f"icnt_response_buffer: needs icnt_input_queues 'single' (a sub-partition's "
                             f"responses in one queue), not {self.icnt_input_queues!r}")
        if self.l2_response_queue and not self.icnt_response_buffer:
            raise ValueError("l2_response_queue: needs icnt_response_buffer (with the crossbar's input "
                             "unbounded no response waits outside it)")
        if self.ldst_dispatch == "round-robin" and self.ldst_queue < 3:
            # ID_OC_MEM, at least one collector unit and OC_EX_MEM.
            raise ValueError(f"ldst_dispatch: 'round-robin' needs ldst_queue of at least 3 (ID_OC_MEM, a "
                             f"collector unit and OC_EX_MEM), not {self.ldst_queue}")
        if self.l2_input_queue and self.l2_input_room > self.l2_input_queue:
            raise ValueError(f"l2_input_room: must be at most l2_input_queue ({self.l2_input_queue}), "
                             f"not {self.l2_input_room}")
        if self.coalescing == "sector" and (self.l1.sector_size != 32 or self.warp_size != 32):
            # A 64-wide wavefront's halves are joined line by line (golden.gpu.program).
            raise ValueError(f"coalescing: 'sector' needs 32-thread warps and an L1 with 32-byte sectors, "
                             f"not warp_size {self.warp_size} and l1.sector_size {self.l1.sector_size}")
        address_map = parse_dram_address_map(self.dram_address_map)
        if address_map is not None and 1 << address_map.bank_bits != self.dram_banks:
            raise ValueError(f"dram_address_map: its {address_map.bank_bits} bank bits give "
                             f"{1 << address_map.bank_bits} banks, but dram_banks is {self.dram_banks}")
        if self.smem_unit == "ldst" and (self.warp_size % self.smem_warp_parts
                                         or self.warp_size // self.smem_warp_parts > 32):
            # A part's lanes lie in one 32-thread trace warp: a wavefront's halves are checked apart.
            raise ValueError(f"smem_warp_parts: must cut the {self.warp_size}-thread warp into parts of at "
                             f"most 32 lanes, not {self.smem_warp_parts}")
        if self.dram_bank_groups > 1 and (self.dram_banks % self.dram_bank_groups
                                          or self.dram_bank_groups & (self.dram_bank_groups - 1)
                                          or self.dram_banks & (self.dram_banks - 1)):
            raise ValueError(f"dram_bank_groups: must be a power of 2 dividing the {self.dram_banks} banks "
                             f"(a power of 2), not {self.dram_bank_groups}")
        if self.dram_model == "commands" and self.dram_scheduler != "frfcfs":
            raise ValueError(f"dram_model: 'commands' needs dram_scheduler 'frfcfs', "
                             f"not {self.dram_scheduler!r}")
        if self.dram_model == "commands" and not self.dram_atom_bytes:
            raise ValueError("dram_model: 'commands' needs dram_atom_bytes (the bytes of a column command)")
        if self.n_sm % self.sms_per_cluster:
            raise ValueError(f"sms_per_cluster: must divide n_sm ({self.n_sm}), not {self.sms_per_cluster}")
        if self.icache_bytes and self.icache_bytes % (self.icache_assoc * self.l1.line_size):
            raise ValueError(f"icache_bytes: must be a multiple of icache_assoc x l1.line_size "
                             f"({self.icache_assoc * self.l1.line_size}), not {self.icache_bytes}")
        if self.cta_first_cluster >= self.n_sm // self.sms_per_cluster:
            raise ValueError(f"cta_first_cluster: must be below the {self.n_sm // self.sms_per_cluster} "
                             f"clusters, not {self.cta_first_cluster}")
        if self.write_packet == "segment" and not self.l1.sector_size and (
                self.l1.line_size % 32 or self.l1.line_size > 256):
            raise ValueError(f"write_packet: 'segment' needs L1 lines of whole 32-byte chunks, at most 8 of "
                             f"them, not {self.l1.line_size} bytes")
        if self.cta_scheduler != "round-robin":
            raise ValueError(f"cta_scheduler: only 'round-robin' is supported, not {self.cta_scheduler!r}")
        for name in ("core_clock_mhz", "icnt_clock_mhz", "l2_clock_mhz", "dram_clock_mhz"):
            v = getattr(self, name)
            if (not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v)
                    or not 0 <= v <= MAX_CLOCK_MHZ):
                raise ValueError(f"{name}: must be a number from 0 to {MAX_CLOCK_MHZ:g}, not {v!r}")
        levels = [(n, c) for n, c in (("l1", self.l1), ("l2", self.l2), ("l3", self.l3)) if c is not None]
        for n, c in levels:
            if not isinstance(c, CacheConfig):
                raise ValueError(f"{n}: must be a CacheConfig, not {c!r}")
        for (upper, u), (lower, c) in zip(levels, levels[1:], strict=False):
            if c.line_size < u.line_size:
                # The cache engine fills a line from one line of the level below.
                raise ValueError(f"{lower}.line_size: must be at least {upper}'s {u.line_size} bytes, "
                                 f"not {c.line_size}")
        tracked = self.n_sm * self.l1.lines + sum(c.lines for _, c in levels[1:])
        if tracked > MAX_TRACKED_LINES:
            raise ValueError(f"n_sm: {self.n_sm} L1s and the shared levels hold {tracked:,} lines; gpucache "
                             f"models at most {MAX_TRACKED_LINES:,}")
        _check_policy_params(self.policy_params)

    @property
    def levels(self) -> list[tuple[str, CacheConfig]]:
        """``[("l1", ...), ("l2", ...), ("l3", ...)]`` for the levels present."""
        out = [("l1", self.l1), ("l2", self.l2)]
        if self.l3 is not None:
            out.append(("l3", self.l3))
        return out

    def replace(self, **changes) -> GPUConfig:
        """A copy with the given fields changed (validated)."""
        return dataclasses.replace(self, **changes)


def _check_policy_params(params) -> None:
    """``{policy: {name: scalar}}`` with strings, booleans, 64-bit integers and finite floats."""
    if not isinstance(params, dict):
        raise ValueError(f"policy_params: must be a table of tables, not {params!r}")
    for pol, table in params.items():
        if not isinstance(pol, str) or not isinstance(table, dict):
            raise ValueError(f"policy_params: {pol!r} must name a table of parameters")
        for key, v in table.items():
            ok = (isinstance(key, str) and (
                isinstance(v, bool | str)
                or (isinstance(v, int) and -(1 << 63) <= v < 1 << 63)
                or (isinstance(v, float) and math.isfinite(v))))
            if not ok:
                raise ValueError(f"policy_params: {pol}.{key} must be a string, a boolean, a 64-bit "
                                 f"integer or a finite number, not {v!r}")
            for text in (pol, key, v):
                if isinstance(text, str):
                    try:
                        text.encode("utf-8")
                    except UnicodeEncodeError:
                        raise ValueError(f"policy_params: {pol!r}.{key!r} is not valid Unicode") from None
