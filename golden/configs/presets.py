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
        # choice: allocate on fill. tian15 Section 6: "On a cache miss, both the tag and data
        # arrays will be accessed again to fill the selected cache block"; "On a cache miss
        # predicted to bypass, the data is sent directly to the compute unit without accessing
        # the cache structure again": a bypassed miss takes no way (docs/configs.md).
        allocate="on-fill",
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
    # per CU (2560 threads); a CTA holds at least one wavefront, so at most 40 CTAs; GCN's LDS
    # is 64 KB in 32 banks and its vector registers 4 SIMDs x 64 KB = 65536 32-bit registers.
    warp_size=64,
    schedulers_per_sm=4,
    max_threads_per_sm=2560,
    max_warps_per_sm=40,
    max_ctas_per_sm=40,
    max_regs_per_sm=65536,
    shared_mem_bytes=64 * KB,
    shared_mem_banks=32,
    # choice: GCN's LDS instructions go to the LDS, not to the vector memory unit that serves the
    # global ones, and the model has one unit: they take none (no bank conflicts, docs/configs.md).
    smem_unit="none",
)

# kim20 Table 1: System configuration
#   SIMT Core/Width   56 cores/32 threads
#   L1 Data Cache     Sector cache 24 kB, 48-way, 128 B line, Allocation-on-fill,
#                     MSHR entry: 16, Miss queue entry: 32, Hit latency: 82 cycles
#   Scheduler         GTO warp scheduling, RR CTA scheduling
#   Clock             1417 (Core) : 1417 (Interconnection) : 1417 (L2) : 2500 (DRAM) (MHz)
# kim20 runs "GPGPU-Sim v4.0 [...] default configuration": the 2019 configs/tested-cfgs/SM6_TITANX/
# gpgpusim.config (gpgpu-sim_distribution 537b342a, April 2019), whose clocks and 56 cores are
# exactly Table 1's. Every figure below is that file's:
#   -gpgpu_n_clusters 28 -gpgpu_n_cores_per_cluster 2          56 SMs
#   -gpgpu_shader_core_pipeline 1024:32 -gpgpu_shader_cta 16   32 warps, 16 CTAs per SM
#   -gpgpu_shader_registers 32768 -gpgpu_shmem_size 49152      registers and shared memory per SM
#   -gpgpu_num_sched_per_core 2 -gpgpu_scheduler gto
#   -gpgpu_cache:dl1 S:4:128:48,L:L:s:N:L,A:256:8,16:0,32       sectored 4 sets x 48 ways x 128 B;
#       LRU, local write-back/global write-through, streaming allocate-on-fill, no write-allocate,
#       linear index; MSHR table of 256 entries x 8 merges; miss queue 16
#   -l1_latency 82 -smem_latency 24                          L1D hit; shared-memory pipeline stages
#   -gpgpu_n_mem 12 -gpgpu_n_sub_partition_per_mchannel 2      24 L2 sub-partitions
#   -gpgpu_cache:dl2 S:64:128:16,L:B:m:L:L,A:256:64,16:0,32     64 sets x 16 ways x 128 B per
#       sub-partition (3 MB), LRU, write-back, allocate on miss, lazy fetch-on-read, linear
#       index; 256 MSHRs x 64 merges per sub-partition
#   -gpgpu_pipeline_widths 2,1,0,2,1,2,1,0,2,1,5 -gpgpu_operand_collector_num_units_mem 8
#       ID_OC_MEM 1 + 8 memory collector units + OC_EX_MEM 1: ldst_queue 10; 4.0 rotates the
#       schedulers' issue order every cycle (shader_core_ctx::issue's Issue_Prio)
#   -rop_latency 120 -dram_latency 100 -icnt_flit_size 40
#   -gpgpu_dram_buswidth 4 -gpgpu_dram_burst_length 8 -dram_data_command_freq_ratio 4
#   -gpgpu_dram_timing_opt "nbk=16:CCD=2:RRD=8:RCD=16:RAS=37:RP=16:RC=52:CL=16:..."
# Table 1's "MSHR entry: 16, Miss queue entry: 32" misreads the L1D string: in GPGPU-Sim's
# cache string "A:256:8,16:0,32" the MSHR table has 256 entries of 8 merges and the miss queue 16
# entries (32 is the data port width in bytes). docs/configs.md has the field-by-field reading.
_KIM20 = GPUConfig(
    name="kim20",
    source="kim20 Table 1 = GPGPU-Sim v4.0 (2019) configs/tested-cfgs/SM6_TITANX",
    n_sm=56,
    l1=CacheConfig(
        size=24 * KB, assoc=48, line_size=128, sector_size=32, allocate="on-fill",
        # The string's "A:256:8" is overridden for the streaming allocation "s": GPGPU-Sim's
        # cache_config::init (537b342a, gpu-cache.h) sets nset x assoc x
        # MAX_DEFAULT_CACHE_SIZE_MULTIBLIER (4) x SECTOR_CHUNCK_SIZE (4) = 3,072 MSHR entries of
        # MAX_WARP_PER_SM = 64 merges (docs/configs.md).
        mshrs=3072, mshr_merges=64, miss_queue=16, hit_latency=82,
        # GPGPU-Sim 4.0's l1_latency queue is in front of the tag lookup: every access waits it
        # before the lookup, misses included (docs/configs.md, docs/timing.md "Lookup pipeline").
        lookup_latency=82,
        # "L:L:s:N:L": write policy "L", a global store hit evicts the line (as the ciao18 L1).
        replacement="lru", write="write-evict", index="mod",
    ),
    l2=CacheConfig(
        size=3 * MB, assoc=16, line_size=128, sector_size=32, replacement="lru",
        write="write-back", allocate="on-miss", hit_latency=120,
        # "-rop_latency 120" is GPGPU-Sim's ROP delay queue, which holds every request between
        # its arrival at the sub-partition and the L2's lookup: all of the hit latency is in front
        # of the lookup (as ciao18's preset since session 70). "S:" makes the L2 a sector cache,
        # whose MSHRs GPGPU-Sim keeps per 32-byte sector (mshr_addr, m_atom_sz): each sector fills
        # on its own. The two together since 2026-12-07 (docs/validation.md, "Per-sector L2 MSHRs
        # and the ROP queue"); the queue alone had cost bicg's and mvt's L2 targets.
        lookup_latency=120, mshr_key="sector",
        mshrs=256, mshr_merges=64, miss_queue=16,
        # gpucache's L2 is one set array whose 24 slices of 64 sets are the sub-partitions
        # (partition = slice). GPGPU-Sim's "dramid@8" mapping with 12 channels of 2
        # sub-partitions sends line L to sub-partition 2 * ((L >> 1) mod 12) + (L & 1), a
        # relabelling of L mod 24, and its linear set index ("L") takes the partition address
        # L // 24 mod 64: index "mod" in 24 slices is exactly that (docs/configs.md).
        index="mod", slices=24,
    ),
    l2_partitions=24,
    scheduler="gto",
    cta_scheduler="round-robin",
    core_clock_mhz=1417.0,
    icnt_clock_mhz=1417.0,
    l2_clock_mhz=1417.0,
    dram_clock_mhz=2500.0,
    max_threads_per_sm=1024,
    max_warps_per_sm=32,
    max_ctas_per_sm=16,
    max_regs_per_sm=32768,
    schedulers_per_sm=2,
    issue_order="rotating",
    # gpgpu_sim::issue_block2core: one CTA per cluster of 2 SMs and cycle, the clusters' turn kept
    # from kernel to kernel; 4.0 starts it at cluster 0 (m_last_cluster_issue = n_clusters - 1).
    cta_issue="rotating",
    sms_per_cluster=2,
    # The coalescer's write sizes (memory_coalescing_arch_reduce_and_send); the sectored L1 sends a
    # store's sectors, so this changes nothing here.
    write_packet="segment",
    # "-gpgpu_coalesce_arch 61": from 40 (Maxwell) on GPGPU-Sim's coalescer makes every transaction
    # a 32-byte sector (memory_coalescing_arch, sector_segment_size): a request, LD/ST cycle, lookup
    # and packet per sector (Accel-Sim's 53,732 L2 sector accesses on kim20 hotspot at 0.25 came in
    # 54,012 packets, its stores 40 bytes each).
    coalescing="sector",
    # config_fermi_islip.icnt: num_vcs = 1, and the 2 SMs of a cluster are one crossbar node: each
    # cluster's requests wait in one queue whose head holds the rest (measured on Accel-Sim: 141
    # cycles from injection to the sub-partition on hotspot at 0.25; docs/validation.md, "The
    # requests' crossbar: one queue per cluster").
    icnt_request_queues="single",
    # config_fermi_islip.icnt: the interface's input queue (input_buffer_size = 256 flits,
    # InterconnectInterface::HasBuffer) and the router's input buffer (vc_buf_size = 64, one VC)
    # take requests off the L1's miss queue: 320 of this preset's one-flit requests. Accel-Sim's
    # miss queue never waited on hotspot (82 or 83 cycles from creation to injection, every packet).
    icnt_input_buffer=320,
    # "-gpgpu_dram_partition_queues 32:32:32:32": a sub-partition takes a request from the crossbar
    # while its icnt-to-L2 queue has room for a line's 4 sector requests (gpu-sim.cc,
    # full(SECTOR_CHUNCK_SIZE); docs/validation.md, "The L2's input queue").
    l2_input_queue=32, l2_input_room=4,
    # GPGPU-Sim dispatches the 8 collector units round robin (dispatch_unit_t::find_ready,
    # ldst_dispatch "round-robin"); the preset keeps issue order: beside Accel-Sim on bicg, atax and
    # mvt at 0.25, over four settings a cycle apart on both sides, round robin left atax's and
    # mvt's mean L2 gap at 11.4 and 11.3 points against issue order's 6.1 and 7.3
    # (docs/validation.md, "GPGPU-Sim's collector units, round robin").
    ldst_queue=10,
    shared_mem_bytes=48 * KB,
    shared_mem_banks=32,
    # "-smem_latency 24": a shared load's result 24 cycles after its issue.
    smem_latency=24,
    # "-gpgpu_shmem_num_banks 32 -gpgpu_shmem_limited_broadcast 0 -gpgpu_shmem_warp_parts 1": a
    # shared instruction takes the LD/ST unit a cycle per access of its busiest bank (distinct
    # words; smem_unit "ldst", the default).
    smem_broadcast="all",
    smem_warp_parts=1,
    icnt_flit_bytes=40,
    # GPGPU-Sim's L1D hands one request a cycle to the writeback (as the ciao18 preset).
    l1_response_rate=1,
    # GPGPU-Sim acknowledges every store (per sector on this sectored L2) and a warp exits when
    # its stores are acknowledged (docs/validation.md, "Store acknowledgements").
    store_acks="l2",
    dram_channels=12,
    dram_banks=16,
    dram_t_cl=16, dram_t_rcd=16, dram_t_rp=16, dram_t_ras=37,
    # "-gpgpu_n_mem_per_ctrlr 1 -gpgpu_dram_buswidth 4 -dram_data_command_freq_ratio 4": 4-byte bus,
    # quad data rate per command clock.
    dram_bus_bytes=16,
    dram_latency=100,
    # "-gpgpu_dram_scheduler 1 -gpgpu_frfcfs_dram_sched_queue_size 64" and the config's decoder.
    dram_scheduler="frfcfs", dram_queue=64,
    dram_address_map="dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS",
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
# configs/GTX480/gpgpusim.config), so the L2 is XOR-indexed per 64-set slice: slices = 12
# (the default for 768 sets would be 3 slices of 256). See docs/configs.md and docs/cache.md.
_CIAO18 = GPUConfig(
    name="ciao18",
    source="ciao18 Table I and Section V.A (GTX 480-like GPU in GPGPU-Sim 3.2.2)",
    n_sm=15,
    max_threads_per_sm=1536,
    max_warps_per_sm=1536 // 32,
    l1=CacheConfig(
        # Table I's "local write-back, global write-through" is GPGPU-Sim's write policy "L"
        # (LOCAL_WB_GLOBAL_WT), whose global store hit evicts the line
        # (data_cache::wr_hit_global_we_local_wb, 3.2.2 and HEAD): write-evict (docs/configs.md).
        size=16 * KB, assoc=4, line_size=128, write="write-evict", replacement="lru",
        index="xor", hit_latency=1,
        # GPGPU-Sim 3.2.2 configs/GTX480: "-gpgpu_cache:dl1 32:128:4,L:L:m:N,A:32:8,8":
        # 32 MSHRs of 8 merges, a miss queue of 8, allocate on miss.
        allocate="on-miss", mshrs=32, mshr_merges=8, miss_queue=8,
    ),
    shared_mem_bytes=48 * KB,
    shared_mem_banks=32,
    # GPGPU-Sim 3.2.2's LD/ST unit moves a shared load into the third of its fixed 3 pipeline
    # stages (ldst_unit::cycle, m_pipeline_reg[2]): its result 3 cycles on.
    smem_latency=3,
    # GTX480's "-gpgpu_shmem_num_banks 32 -gpgpu_shmem_limited_broadcast 0
    # -gpgpu_shmem_warp_parts 1", as kim20's.
    smem_broadcast="all",
    smem_warp_parts=1,
    l2=CacheConfig(
        # choice: 6 GDDR5 channels x 2 sub-partitions of 64 KB (GPGPU-Sim's GTX 480 layout).
        size=768 * KB, assoc=8, line_size=128, write="write-back", allocate="on-miss",
        replacement="lru", index="xor", slices=12, banks=2,
        # GPGPU-Sim's GTX 480 address decoder ("dramid@8", mask ...BBBCCCCB.CCSSSSSS, 6 channels):
        # the sub-partition bit lies above the channel, so a line's slice is not line mod 12
        # (docs/configs.md; fitted exactly to an Accel-Sim run's L2 log).
        slice_map="gtx480",
        # GTX480 "-gpgpu_cache:dl2 64:128:8,L:B:m:W,A:32:4,4:0,32": 32 MSHRs of 4 merges per
        # sub-partition; "-gpgpu_l2_rop_latency 120"; "W": a store miss is written to DRAM and
        # its line read and allocated (data_cache::wr_miss_wa, 3.2.2).
        mshrs=32, mshr_merges=4, miss_queue=4, hit_latency=120, write_allocate="fetch",
        # The 120 cycles are GPGPU-Sim's ROP delay queue, in front of the lookup (3.2.2's
        # memory_sub_partition::push): a request is looked up when it leaves it. Since
        # 2026-12-06 (session 70): with the crossbar's inputs idling as measured, the queue
        # brings 14 of the 18 rdgc workloads within Accel-Sim's targets, against 13 without
        # (docs/validation.md, "The crossbar's inputs idle too"). kim20 keeps 0 (its comment).
        lookup_latency=120,
    ),
    # 6 GDDR5 channels x 2 sub-partitions: 12 L2 sub-partitions, one per XOR slice.
    l2_partitions=12,
    # GTX480's config_fermi_islip.icnt: 32-byte flits (the default icnt_flit_bytes) and a router
    # with "internal_speedup = 1.0", whose outputs and inputs idle a cycle after each packet:
    # measured on Accel-Sim, an SM takes one 5-flit response every 6 cycles, every 5 with
    # internal_speedup 2.0 (docs/validation.md, "One idle cycle per packet"), and sends one
    # 2-flit store every 3 cycles, a sub-partition one 5-flit response every 6 or more
    # ("The crossbar's inputs idle too").
    icnt_packet_gap=1,
    # The same router's output arbiter picks the next packet among the sub-partitions in turn
    # (intersim2's iSLIP): an SM's lines come back out of the order it asked for them. Measured on
    # Accel-Sim, with it the round trips and the warps' turns at the LD/ST unit match
    # (docs/validation.md, "The crossbar's round robin"). kim20 keeps "fifo": with the round robin its
    # 0.25 runs moved away from Accel-Sim's (the same section; why was not measured).
    icnt_response_order="round-robin",
    # The same router's inputs hold one queue each (booksim, one virtual channel): a response
    # waiting for a busy SM output holds every one behind it (session 51's option). Since
    # 2026-12-06 (session 70), with the inputs' idle cycle and the L2's lookup queue: 15 of the 18
    # rdgc workloads within Accel-Sim's targets, cfd's cycles from -31.2% to -10.1% and hotspot's
    # L2 from 62.7% to 66.8% (67.1%) (docs/validation.md, "The crossbar's inputs idle too").
    icnt_input_queues="single",
    # GPGPU-Sim's L1D hands one request a cycle back to the LD/ST unit's writeback
    # (mshr_table::next_access), so loads merged on one MSHR complete on successive cycles;
    # measured effect on Accel-Sim's turn order: docs/validation.md, "One response a cycle".
    l1_response_rate=1,
    # GPGPU-Sim acknowledges every store and a warp exits when its stores are acknowledged
    # (docs/validation.md, "Store acknowledgements").
    store_acks="l2",
    dram_channels=6,
    dram_banks=16,
    # Table I: tCL=12, tRCD=12, tRAS=28; GTX480's "RP=12"; clocks 700 (core) : 924 (DRAM).
    dram_t_cl=12, dram_t_rcd=12, dram_t_rp=12, dram_t_ras=28,
    # GTX480's "-gpgpu_n_mem_per_ctrlr 2 -gpgpu_dram_buswidth 4 -dram_data_command_freq_ratio 4"
    # (GDDR5 moves 4 words a command cycle): 2 chips x 4 bytes x 4 = 32 bytes a DRAM cycle, the
    # GTX 480's 177 GB/s over 6 channels at 924 MHz. Until 2026-12-06 (session 72): 16, read as
    # double data rate (docs/validation.md, "The DRAM's clock and the GTX 480's bus").
    dram_bus_bytes=32,
    dram_latency=100,
    # 3.2.2's default "-gpgpu_dram_partition_queues 8:8:8:8" (the GTX480 config sets none): a
    # sub-partition takes a request from the crossbar while its icnt-to-L2 queue is not full
    # (gpu-sim.cc, m_memory_sub_partition[i]->full(); docs/validation.md, "The L2's input queue").
    l2_input_queue=8,
    # A sub-partition's responses: its L2-to-icnt queue (the last 8 of the same option), which the
    # L2 fills only while it is not full (l2cache.cc's output_full), and the crossbar's input, which
    # takes a response while its flits fit (gpu-sim.cc's icnt_has_buffer): config_fermi_islip.icnt
    # sets no input_buffer_size (intersim2's 9 flits) ahead of its router's "vc_buf_size = 8"
    # (docs/validation.md, "The L2's response queue").
    l2_response_queue=8, icnt_response_buffer=17,
    # GTX480 "-gpgpu_dram_scheduler 1 -gpgpu_frfcfs_dram_sched_queue_size 16" and its decoder.
    dram_scheduler="frfcfs", dram_queue=16,
    dram_address_map="dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS",
    core_clock_mhz=700.0,
    icnt_clock_mhz=700.0,
    l2_clock_mhz=700.0,
    dram_clock_mhz=924.0,
    max_regs_per_sm=32768,
    scheduler="gto",
    # choice: Fermi limits as in GPGPU-Sim's GTX 480 config: 8 CTAs and 2 schedulers per SM.
    max_ctas_per_sm=8,
    schedulers_per_sm=2,
    # GPGPU-Sim 3.2.2 configs/GTX480: "-gpgpu_pipeline_widths 2,1,1,2,1,1,2" (ID_OC_MEM 1,
    # OC_EX_MEM 1) and the default 2 memory operand collector units: 4 memory instructions wait
    # for the LD/ST unit; 3.2.2 lets scheduler 0 issue first every cycle (issue_order "fixed").
    # 3.2.2 dispatches the two units round robin (dispatch_unit_t::find_ready); the preset keeps
    # issue order, as kim20's does (docs/validation.md, "GPGPU-Sim's collector units, round robin").
    ldst_queue=4,
    # 3.2.2's gpgpu_sim::issue_block2core ("-gpgpu_n_clusters 15 -gpgpu_n_cores_per_cluster 1"): one
    # CTA per SM and cycle, the SMs' turn kept from kernel to kernel, begun at SM 1
    # (m_last_cluster_issue = 0 in gpgpu_sim's constructor).
    cta_issue="rotating",
    cta_first_cluster=1,
    # 3.2.2's coalescer sizes a store's request by the 32-byte chunks it writes (32, 64 or 128
    # bytes: memory_coalescing_arch_13_reduce_and_send), not by the line.
    write_packet="segment",
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
