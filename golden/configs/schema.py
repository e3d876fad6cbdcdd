"""Machine configuration: caches and GPU, as frozen, validated dataclasses.

Every field is documented with its unit. Validation raises ``ValueError``
with the field name ("l1.assoc: ..."); the loader adds file and line.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

__all__ = [
    "INDEX_FUNCTIONS",
    "REPLACEMENTS",
    "WRITE_POLICIES",
    "ALLOCATE_POLICIES",
    "SCHEDULERS",
    "CacheConfig",
    "GPUConfig",
]

#: Set-index functions: modulo, XOR-folded (GPGPU-Sim ``X``), prime modulo, shifted modulo (RDGC SMOD n).
INDEX_FUNCTIONS = ("mod", "xor", "prime", "smod")
#: Replacement policies.
REPLACEMENTS = ("lru", "plru", "fifo", "random", "lfu")
#: Write policies: write-through without write-allocate, write-evict, write-back with write-allocate.
WRITE_POLICIES = ("write-through", "write-evict", "write-back")
#: When a missing line gets its way: at the miss (victim chosen then) or when the data returns.
ALLOCATE_POLICIES = ("on-miss", "on-fill")
#: Warp schedulers: loose round robin, greedy-then-oldest, oldest-first.
SCHEDULERS = ("lrr", "gto", "oldest")


def _pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


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
    xor_slices : int
        For ``index = "xor"``: how many equal slices the sets form, each XOR-indexed on its
        own (GPGPU-Sim's L2 sub-partitions). 0 chooses ``sets / 2**k`` for the largest power
        of two ``2**k`` dividing ``sets``: 1 for a power-of-2 set count. See
        :attr:`index_slices`. Ignored by the other index functions, as ``smod_shift`` is.
    replacement : str
        One of :data:`REPLACEMENTS`.
    write : str
        One of :data:`WRITE_POLICIES`.
    allocate : str
        One of :data:`ALLOCATE_POLICIES`.
    tag_latency, data_latency : int
        Cycles for a tag lookup and a data-array access.
    hit_latency : int
        Cycles from request to data on a hit (0: tag + data latency).
    banks, ports : int
        Banks, and ports per bank.
    mshrs : int
        Miss status holding registers (0: unlimited).
    mshr_merges : int
        Requests one MSHR can merge (0: unlimited).
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
    xor_slices: int = 0
    replacement: str = "lru"
    write: str = "write-back"
    allocate: str = "on-miss"
    tag_latency: int = 1
    data_latency: int = 1
    hit_latency: int = 0
    banks: int = 1
    ports: int = 1
    mshrs: int = 0
    mshr_merges: int = 0
    miss_queue: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("size", "assoc", "line_size", "banks", "ports"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"{name}: must be a positive integer, not {getattr(self, name)!r}")
        for name in ("sector_size", "smod_shift", "xor_slices", "tag_latency", "data_latency", "hit_latency",
                     "mshrs", "mshr_merges", "miss_queue", "seed"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise ValueError(f"{name}: must be a non-negative integer, not {getattr(self, name)!r}")
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
                              ("write", WRITE_POLICIES), ("allocate", ALLOCATE_POLICIES)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}: must be one of {', '.join(allowed)}, not {getattr(self, name)!r}")
        if self.index in ("mod", "smod") and not _pow2(self.sets):
            raise ValueError(f"index: {self.index!r} needs a power-of-2 number of sets, not {self.sets}")
        if self.index == "xor":
            self._check_xor_slices()
        if self.replacement == "plru" and not _pow2(self.assoc):
            raise ValueError(f"replacement: tree pseudo-LRU needs power-of-2 ways, not {self.assoc}")

    @property
    def sets(self) -> int:
        """Number of sets."""
        return self.size // (self.assoc * self.line_size)

    @property
    def index_slices(self) -> int:
        """Equal slices the set-index function splits the sets into.

        For ``index = "xor"``: ``xor_slices``, or when that is 0 ``sets / 2**k``
        for the largest power of two ``2**k`` dividing ``sets`` (768 sets: 3
        slices of 256). 1 for the other index functions.
        """
        if self.index != "xor":
            return 1
        sets = self.sets
        return self.xor_slices or sets // (sets & -sets)

    def _check_xor_slices(self) -> None:
        sets, slices = self.sets, self.xor_slices
        # One set per slice leaves no index bits to hash: the set would be plain mod indexing.
        if not slices:
            if sets > 1 and sets % 2:
                raise ValueError(f"index: 'xor' needs 1 or an even number of sets (at least 2 per "
                                 f"power-of-2 slice), not {sets}")
            return
        if sets % slices or not _pow2(sets // slices):
            raise ValueError(f"xor_slices: must divide the {sets} sets into power-of-2 slices, not {slices}")
        if sets // slices == 1 and sets > 1:
            raise ValueError(f"xor_slices: must leave at least 2 of the {sets} sets per slice, not {slices}")

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
        CTA-to-SM mapping (``"round-robin"``).
    mem_latency : int
        In the interleaver's latency abstraction: after a global load or
        atomic issued at cycle ``t`` the warp cannot issue until
        ``t + 1 + mem_latency``.
    shared_mem_bytes, shared_mem_banks : int
        Scratchpad per SM and its banks.
    l2_partitions : int
        Memory partitions the L2 is split into.
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
    mem_latency: int = 100
    shared_mem_bytes: int = 49152
    shared_mem_banks: int = 32
    l2_partitions: int = 1
    core_clock_mhz: float = 0.0
    icnt_clock_mhz: float = 0.0
    l2_clock_mhz: float = 0.0
    dram_clock_mhz: float = 0.0
    policy_params: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("n_sm", "warp_size", "max_threads_per_sm", "max_ctas_per_sm",
                     "max_warps_per_sm", "schedulers_per_sm", "l2_partitions"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"{name}: must be a positive integer, not {getattr(self, name)!r}")
        if self.warp_size != 32:
            raise ValueError(f"warp_size: gpucache traces use 32-thread warps, not {self.warp_size}")
        if self.scheduler not in SCHEDULERS:
            raise ValueError(f"scheduler: must be one of {', '.join(SCHEDULERS)}, not {self.scheduler!r}")
        if self.cta_scheduler != "round-robin":
            raise ValueError(f"cta_scheduler: only 'round-robin' is supported, not {self.cta_scheduler!r}")
        if not isinstance(self.mem_latency, int) or self.mem_latency < 0:
            raise ValueError(f"mem_latency: must be a non-negative integer, not {self.mem_latency!r}")

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
