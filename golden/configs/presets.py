"""Named machine presets: the GPUs of the papers' evaluation tables.

Each preset is a :class:`~golden.configs.schema.GPUConfig` whose figures
come from the table quoted beside it. Figures a paper does not give are
marked ``# choice:`` with the reason; docs/configs.md lists them all.

=========  ===========================================================
name       machine
=========  ===========================================================
tian15     AMD GCN-like APU GPU, gem5 (tian15 Table 1)
kim20      GTX 1080-like Pascal, GPGPU-Sim v4.0 (kim20 Table 1)
ciao18     GTX 480-like Fermi, GPGPU-Sim 3.2.2 (ciao18 Tables I-II)
rdgc       RDGC's design-space baseline (rdgc Sections 4.4.2 and 5.3)
=========  ===========================================================
"""

from __future__ import annotations

import copy
import difflib

from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError

__all__ = ["PRESETS", "preset", "preset_names"]

KB = 1024
MB = 1024 * KB

# tian15 Table 1: System Configuration
#   GPU Clock                   1GHz
#   Compute Units               8
#   Compute Unit SIMD Width     64 scalar units by 4 SIMDs
#   GPU L1-I/D Cache            8-way 16KB, 64B, 1 cycle of tag access, 4 cycles of data access
#   GPU Shared L2 Cache         16-way 256KB, 64B, 4 cycles of tag access, 16 cycles of data access
#   L3 Memory-side Cache        16-way 4MB, 15 cycles of tag access, 30 cycles of data access
# tian15 Section 4.1: "The warp scheduling policy is oldest-first [...] All caches use a
# default Pseudo-LRU replacement policy."
_TIAN15 = GPUConfig(
    name="tian15",
    source="tian15 Table 1 and Section 4.1 (AMD GCN-like GPU in gem5)",
    n_sm=8,
    l1=CacheConfig(
        size=16 * KB, assoc=8, line_size=64, replacement="plru", tag_latency=1, data_latency=4,
        # choice: GCN's vector L1 is write-through (tian15 cites the GCN whitepaper [3]).
        write="write-through",
    ),
    l2=CacheConfig(
        size=256 * KB, assoc=16, line_size=64, replacement="plru", tag_latency=4, data_latency=16,
        write="write-back",
    ),
    l3=CacheConfig(
        # choice: Table 1 gives no L3 line size; 64 B like the L1 and L2.
        size=4 * MB, assoc=16, line_size=64, replacement="plru", tag_latency=15, data_latency=30,
        write="write-back",
    ),
    scheduler="oldest",
    core_clock_mhz=1000.0,
    # choice: one scheduler per SIMD (4 SIMDs per CU); GCN's 40 wavefronts of 64 work-items
    # per CU give 2560 threads = 80 of gpucache's 32-thread warps; a CTA holds at least one
    # wavefront, so at most 40 CTAs; GCN's LDS is 64 KB in 32 banks.
    schedulers_per_sm=4,
    max_threads_per_sm=2560,
    max_warps_per_sm=80,
    max_ctas_per_sm=40,
    shared_mem_bytes=64 * KB,
    shared_mem_banks=32,
)

# kim20 Table 1: System configuration
#   SIMT Core/Width   56 cores/32 threads
#   L1 Data Cache     Sector cache 24 kB, 48-way, 128 B line, Allocation-on-fill,
#                     MSHR entry: 16, Miss queue entry: 32, Hit latency: 82 cycles
#   Scheduler         GTO warp scheduling, RR CTA scheduling
#   Clock             1417 (Core) : 1417 (Interconnection) : 1417 (L2) : 2500 (DRAM) (MHz)
# The table gives no L2; kim20 runs "GPGPU-Sim v4.0 [...] default configuration based on the
# NVIDIA GTX 1080". The L2 and the SM limits below are GPGPU-Sim v4.0's Pascal config
# (configs/tested-cfgs/SM6_TITANX, whose clocks are exactly Table 1's), sized to the GTX 1080.
_KIM20 = GPUConfig(
    name="kim20",
    source="kim20 Table 1; L2 and SM limits from GPGPU-Sim v4.0 SM6_TITANX sized to a GTX 1080",
    n_sm=56,
    l1=CacheConfig(
        size=24 * KB, assoc=48, line_size=128,
        sector_size=32,  # choice: GPGPU-Sim's sectors are 32 B
        allocate="on-fill", mshrs=16, miss_queue=32, hit_latency=82,
        # choice: GPGPU-Sim's Pascal L1D "L:L:s:N:L": LRU, global write-through without
        # write-allocate, linear set index, 8 merges per MSHR ("A:256:8").
        replacement="lru", write="write-through", index="mod", mshr_merges=8,
    ),
    l2=CacheConfig(
        # choice: SM6_TITANX "S:64:128:16,L:B:m:L:P": 128 KB 16-way sectored slices, LRU,
        # write-back, allocate on miss; 8 memory channels x 2 sub-partitions give the GTX 1080's
        # 2 MB. Its IPOLY set hash is an XOR hash: modelled as "xor". Latency: gpgpu_l2_rop_latency.
        size=2 * MB, assoc=16, line_size=128, sector_size=32, replacement="lru",
        write="write-back", allocate="on-miss", index="xor", hit_latency=120, banks=2,
    ),
    l2_partitions=8,
    scheduler="gto",
    cta_scheduler="round-robin",
    core_clock_mhz=1417.0,
    icnt_clock_mhz=1417.0,
    l2_clock_mhz=1417.0,
    dram_clock_mhz=2500.0,
    # choice: SM6_TITANX "2048:32" pipeline (64 warps), 32 CTAs, 4 schedulers, 96 KB shared.
    max_threads_per_sm=2048,
    max_warps_per_sm=64,
    max_ctas_per_sm=32,
    schedulers_per_sm=4,
    shared_mem_bytes=96 * KB,
    shared_mem_banks=32,
)

# ciao18 Table I: GPGPU-Sim configuration.
#   # of SMs/threads    15, max 1536 per SM
#   L1D cache           16KB w/ 128B lines, 4 ways, write no-allocate, local write-back,
#                       global write-through, 1-cycle latency and LRU
#   Shared memory       48KB, 1-cycle latency and 32 banks
#   L2 cache            768KB w/ 128B lines, 8 ways, write allocation, write-back and LRU
#   DRAM                GDDR5 w/ 16 banks, tCL=12, tRCD=12, and tRAS=28
#   Victim tag array    8 tags per set, 48 sets, and FIFO
# ciao18 Section V.A: "we enhance the baseline L1D and L2 caches with a XOR-based set index
# hashing technique [26]"; the baseline scheduler is GTO (Table II's Best-SWL and CIAO run on GTO).
# choice: GPGPU-Sim's GTX 480 L2 is 12 slices of 64 sets ("64 sets, each 128 bytes 8-way for each
# memory sub partition", -gpgpu_n_mem 6, -gpgpu_n_sub_partition_per_mchannel 2 in its
# configs/GTX480/gpgpusim.config), so the L2 is XOR-indexed per 64-set slice: xor_slices = 12
# (the default for 768 sets would be 3 slices of 256). See docs/configs.md and docs/cache.md.
_CIAO18 = GPUConfig(
    name="ciao18",
    source="ciao18 Table I and Section V.A (GTX 480-like GPU in GPGPU-Sim 3.2.2)",
    n_sm=15,
    max_threads_per_sm=1536,
    max_warps_per_sm=1536 // 32,
    l1=CacheConfig(
        size=16 * KB, assoc=4, line_size=128, write="write-through", replacement="lru",
        index="xor", hit_latency=1,
    ),
    shared_mem_bytes=48 * KB,
    shared_mem_banks=32,
    l2=CacheConfig(
        # choice: 6 GDDR5 channels x 2 sub-partitions of 64 KB (GPGPU-Sim's GTX 480 layout).
        size=768 * KB, assoc=8, line_size=128, write="write-back", allocate="on-miss",
        replacement="lru", index="xor", xor_slices=12, banks=2,
    ),
    l2_partitions=6,
    scheduler="gto",
    # choice: Fermi limits as in GPGPU-Sim's GTX 480 config: 8 CTAs and 2 schedulers per SM.
    max_ctas_per_sm=8,
    schedulers_per_sm=2,
    policy_params={"ciao": {"vta_ways": 8, "vta_sets": 48, "vta_replacement": "fifo"}},
)

# rdgc Section 5.3: "The baseline GPU parameters applied for the simulations include 8SMs, 32KB
# L1 4-way set-associative in the form of a double-ported cache bank, 1024KB L2 8-way
# set-associative with four partitions and two 128KB banks per partition, PRI mapping for L1
# and L2, LRU replacement for L1 and L2, 128B cache block size, and RR thread block to SM
# mapping policy."
# rdgc Section 4.4.2: "the default configuration of L1 caches were a double-ported single-bank
# caches with a set of 32 MSHRs and the maximum number of eight merges per entry."
# rdgc Section 3.1: "L1 caches bypass all the global write memory accesses (a write hit
# imposes an eviction)".  Parameter names follow rdgc Table 2.
_RDGC = GPUConfig(
    name="rdgc",
    source="rdgc Sections 3.1, 4.4.2 and 5.3 (design-space baseline), parameters of Table 2",
    n_sm=8,
    l1=CacheConfig(
        size=32 * KB, assoc=4, line_size=128, banks=1, ports=2, mshrs=32, mshr_merges=8,
        index="prime", replacement="lru", write="write-evict",
    ),
    l2=CacheConfig(
        # choice: the L2 write policy is not given; write-back as in every GPU L2 of the papers.
        size=1024 * KB, assoc=8, line_size=128, banks=2, index="prime", replacement="lru",
        write="write-back",
    ),
    l2_partitions=4,
    # choice: rdgc's physical model walks the in-flight warps in index order, one group per
    # scheduler (Algorithm 2): loose round robin. MAXCW, MAXCB and n_scheduler of the baseline are
    # not given: Maxwell's (the GPU rdgc validates against): 64 warps, 32 CTAs, 4 schedulers.
    scheduler="lrr",
    cta_scheduler="round-robin",
    max_threads_per_sm=2048,
    max_warps_per_sm=64,
    max_ctas_per_sm=32,
    schedulers_per_sm=4,
)

#: Every preset by name. Use :func:`preset` for a copy that is safe to modify.
PRESETS: dict[str, GPUConfig] = {g.name: g for g in (_TIAN15, _KIM20, _CIAO18, _RDGC)}


def preset_names() -> list[str]:
    """Names of the presets, in the order of the papers' table above."""
    return list(PRESETS)


def preset(name: str) -> GPUConfig:
    """The preset ``name``, as a copy (its ``policy_params`` may be changed freely).

    Raises
    ------
    InputError
        If there is no such preset; the message suggests close names.
    """
    if name not in PRESETS:
        close = difflib.get_close_matches(name, PRESETS, 2)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise InputError(f"unknown preset {name!r} (presets: {', '.join(PRESETS)}){hint}")
    return copy.deepcopy(PRESETS[name])
