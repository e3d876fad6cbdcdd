"""benchmarks/compare_accelsim.py: the config rewriting and the machine check (no Accel-Sim needed)."""

from __future__ import annotations

import dataclasses

import pytest

from golden.configs.presets import preset
from tests.benchmark_module import load_benchmark

cmp = load_benchmark("compare_accelsim")

#: The machine lines of the 2019 SM6_TITANX file, after renaming (what derive_files writes).
KIM20_TEXT = """\
-gpgpu_n_clusters 28
-gpgpu_n_cores_per_cluster 2
-gpgpu_n_mem 12
-gpgpu_n_sub_partition_per_mchannel 2
-gpgpu_shader_registers 32768
-gpgpu_shader_core_pipeline 1024:32
-gpgpu_shader_cta 16
-gpgpu_cache:dl1  S:4:128:48,L:L:s:N:L,A:256:8,16:0,32
-gpgpu_shmem_size 49152
-gpgpu_l1_latency 82
-gpgpu_smem_latency 24
-gpgpu_shmem_num_banks 32
-gpgpu_shmem_limited_broadcast 0
-gpgpu_shmem_warp_parts 1
-gpgpu_cache:dl2 S:64:128:16,L:B:m:L:L,A:256:64,16:0,32
-gpgpu_l2_rop_latency 120
-gpgpu_dram_partition_queues 32:32:32:32
-gpgpu_num_sched_per_core 2
-gpgpu_scheduler gto
-gpgpu_pipeline_widths 2,1,0,2,1,2,1,0,2,1,5
-gpgpu_operand_collector_num_units_mem 8
-gpgpu_dram_scheduler 1
-gpgpu_frfcfs_dram_sched_queue_size 64
-gpgpu_n_mem_per_ctrlr 1
-gpgpu_dram_buswidth 4
-dram_data_command_freq_ratio 4
-gpgpu_coalesce_arch 61
-gpgpu_mem_addr_mapping dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS
"""

#: The GTX 480's decoder (configs/GTX480 of 24f29469): 6 channels, the bank's lowest bit above them.
GTX480_MAPPING = "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS"


def test_old_cache_strings_get_heads_format():
    assert cmp._modern_cache("32:128:4,L:L:m:N,A:32:8,8", "X") == "N:32:128:4,L:L:m:N:X,A:32:8,8"
    assert cmp._modern_cache("64:128:8,L:B:m:W,A:32:4,4:0,32", "L") == "N:64:128:8,L:B:m:W:L,A:32:4,4:0,32"
    new = "S:4:128:48,L:L:s:N:L,A:256:8,16:0,32"
    assert cmp._modern_cache(new, "X") == new


def test_set_option_replaces_or_appends():
    text = cmp._set_option(KIM20_TEXT, "gpgpu_shader_cta", "8")
    assert cmp._option(text, "gpgpu_shader_cta") == "8"
    text = cmp._set_option(text, "gpgpu_gmem_skip_L1D", "0")
    assert cmp._option(text, "gpgpu_gmem_skip_L1D") == "0"


#: The differences the timing model keeps on purpose (test below); the other tests leave them out.
L1_MSHR_KEY = "l1.mshr_key: gpucache 'line', Accel-Sim 'sector'"
#: The presets take the LD/ST unit's queue in issue order (docs/validation.md, "GPGPU-Sim's
#: collector units, round robin").
LDST_DISPATCH = "ldst_dispatch: gpucache 'issue-order', Accel-Sim 'round-robin'"


def differences(*args, **kw) -> list[str]:
    return [d for d in cmp.machine_differences(*args, **kw) if d not in (L1_MSHR_KEY, LDST_DISPATCH)]


def test_kim20_matches_its_source():
    # But for the L1's MSHRs, which GPGPU-Sim keys per sector and the preset per line (a choice:
    # docs/timing.md, "L2 sectors"), and the LD/ST unit's queue, which GPGPU-Sim dispatches round
    # robin and the preset in issue order: reported, not hidden.
    assert cmp.machine_differences(KIM20_TEXT, preset("kim20")) == [LDST_DISPATCH, L1_MSHR_KEY]
    assert cmp.machine_differences(KIM20_TEXT, preset("kim20").replace(ldst_dispatch="round-robin")) == [
        L1_MSHR_KEY]


def test_the_l2s_input_queue_is_compared():
    # The first of -gpgpu_dram_partition_queues; 8 when the config gives none (GPGPU-Sim's default).
    assert differences(KIM20_TEXT, preset("kim20").replace(l2_input_queue=0)) == [
        "l2_input_queue: gpucache 0, Accel-Sim 32"]
    text = KIM20_TEXT.replace("-gpgpu_dram_partition_queues 32:32:32:32\n", "")
    assert differences(text, preset("kim20")) == ["l2_input_queue: gpucache 32, Accel-Sim 8"]


def test_the_l2s_rop_queue_and_sector_mshrs_are_compared():
    # Session 69's preset had the ROP queue's latency after the lookup; a line's MSHRs.
    old = preset("kim20").replace(l2=preset("kim20").l2.replace(lookup_latency=0, mshr_key="line"))
    assert set(cmp.machine_differences(KIM20_TEXT, old)) == {
        L1_MSHR_KEY, LDST_DISPATCH, "l2.lookup_latency: gpucache 0, Accel-Sim 120",
        "l2.mshr_key: gpucache 'line', Accel-Sim 'sector'"}


def test_a_coalescer_before_maxwell_is_reported():
    # Below gpgpu_coalesce_arch 40 GPGPU-Sim coalesces by segment, not sector.
    text = cmp._set_option(KIM20_TEXT, "gpgpu_coalesce_arch", "20")
    assert differences(text, preset("kim20")) == [
        "coalescing: gpucache 'sector', Accel-Sim 'line'"]


def test_an_l2_index_or_slicing_unlike_the_source_is_reported():
    gpu = preset("kim20")
    assert differences(KIM20_TEXT, gpu.replace(l2=gpu.l2.replace(index="xor"))) == [
        "l2.index: gpucache 'xor', Accel-Sim 'mod'"]
    assert differences(KIM20_TEXT, gpu.replace(l2=gpu.l2.replace(slices=12))) == [
        "l2.index_slices: gpucache 12, Accel-Sim 24"]


def test_a_build_without_the_streaming_mshr_override_is_reported(tmp_path):
    # GPGPU-Sim HEAD (667834cf) keeps the string's A:256:8 for a streaming L1; 537b342a's
    # cache_config::init replaced it with 3,072 entries of 64 merges, as the kim20 preset has.
    assert differences(KIM20_TEXT, preset("kim20"), streaming_mshrs=False) == [
        "l1.mshrs: gpucache 3072, Accel-Sim 256", "l1.mshr_merges: gpucache 64, Accel-Sim 8"]
    header = tmp_path / "accel-sim-framework/gpu-simulator/gpgpu-sim/src/gpgpu-sim/gpu-cache.h"
    assert cmp.streaming_mshrs_of(tmp_path) is None
    header.parent.mkdir(parents=True)
    header.write_text("m_is_streaming = true;\n      m_alloc_policy = ON_FILL;\n")
    assert cmp.streaming_mshrs_of(tmp_path) is False
    header.write_text("m_mshr_entries = m_nset * m_assoc * 4;\n m_mshr_max_merge = MAX_WARP_PER_SM;\n")
    assert cmp.streaming_mshrs_of(tmp_path) is True


@pytest.mark.parametrize(("option", "value", "field"), [
    ("gpgpu_n_clusters", "14", "n_sm"), ("gpgpu_shader_cta", "32", "max_ctas_per_sm"),
    ("gpgpu_cache:dl1", "S:4:128:96,L:L:s:N:L,A:256:8,16:0,32", "l1.size"),
    ("gpgpu_l1_latency", "28", "l1.hit_latency"),
    ("gpgpu_operand_collector_num_units_mem", "4", "ldst_queue"),
    ("gpgpu_pipeline_widths", "2,1,0,2,2,2,1,0,2,1,5", "ldst_queue"),
    ("gpgpu_shmem_num_banks", "16", "shared_mem_banks"),
    ("gpgpu_shmem_limited_broadcast", "1", "smem_broadcast"),
    ("gpgpu_shmem_warp_parts", "2", "smem_warp_parts"),
    ("gpgpu_n_mem_per_ctrlr", "2", "dram_bus_bytes")])
def test_a_changed_machine_is_reported(option, value, field):
    lines = differences(cmp._set_option(KIM20_TEXT, option, value), preset("kim20"))
    assert any(line.startswith(f"{field}:") for line in lines)


@pytest.mark.parametrize("value", ["64:128:256,L:B:m:W:X,A:32:4,4:0,32", "N:64:128:8",
                                   "N:64:x:8,L:B:m:W:X,A:32:4,4"])
def test_a_malformed_cache_string_names_the_option(value):
    # A one-factor run's --accelsim-set that drops the kind letter: a one-line error, not a traceback.
    with pytest.raises(cmp.InputError, match="^gpgpu_cache:dl2: cannot read ") as e:
        differences(cmp._set_option(KIM20_TEXT, "gpgpu_cache:dl2", value), preset("kim20"))
    assert "\n" not in str(e.value)


def test_the_peers_issue_order_is_compared():
    # HEAD GPGPU-Sim rotates its schedulers whatever the config: a fixed order is reported.
    lines = differences(KIM20_TEXT, preset("kim20").replace(issue_order="fixed"))
    assert lines == ["issue_order: gpucache 'fixed', Accel-Sim 'rotating'"]


def test_the_address_decoder_gives_the_slice_map():
    assert cmp.slice_map_of(KIM20_TEXT) == "mod"
    six = cmp._set_option(KIM20_TEXT, "gpgpu_n_mem", "6")
    gtx = cmp._set_option(six, "gpgpu_mem_addr_mapping", GTX480_MAPPING)
    assert cmp.slice_map_of(gtx) == "gtx480"
    # 8 channels: a power of two, no "gap" path; the decoder is named as it is.
    odd = cmp._set_option(gtx, "gpgpu_n_mem", "8")
    assert cmp.slice_map_of(odd) == GTX480_MAPPING
    assert cmp.slice_map_of("-gpgpu_n_mem 6\n") is None


def test_a_slice_map_unlike_the_decoder_is_reported():
    gpu = preset("kim20")
    lines = differences(KIM20_TEXT, gpu.replace(l2=gpu.l2.replace(slice_map="gtx480")))
    assert lines == ["l2.slice_map: gpucache 'gtx480', Accel-Sim 'mod'"]


def test_l2_sectors_are_compared():
    text = cmp._set_option(KIM20_TEXT, "gpgpu_cache:dl2", "N:64:128:16,L:B:m:L:L,A:256:64,16:0,32")
    assert "l2.sector_size: gpucache 32, Accel-Sim 0" in differences(text, preset("kim20"))


#: Accel-Sim's statistics of kim20 rdgc/bicg at scale 0.05 (2026-11-24), as it prints them: two
#: kernels, cumulative, plus instruction fetches at the L2.
BICG_LOG = "".join(
    f"\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][{o}] = {n}\n"
    f"\tL2_cache_stats_breakdown[GLOBAL_ACC_R][{o}] = {r}\n"
    f"\tL2_cache_stats_breakdown[GLOBAL_ACC_W][{o}] = {w}\n"
    f"\tL2_cache_stats_breakdown[INST_ACC_R][{o}] = 100\n"
    for scale in (2, 1)
    for o, n, r, w in (("HIT", 34930, 9764, 10660), ("HIT_RESERVED", 0, 0, 0), ("MISS", 12721, 1328, 14),
                       ("SECTOR_MISS", 3751, 3978, 38), ("MSHR_HIT", 1402, 0, 0))
    for n, r, w in [(n // scale, r // scale, w // scale)]) + "gpu_tot_sim_cycle = 182071\n"


def test_accelsim_counts_each_load_once_and_global_l2_hits():
    c = cmp.accelsim_stats(BICG_LOG)
    assert c["gpu_tot_sim_cycle"] == 182071
    loads, l1, l2 = cmp.accelsim_rates(c)
    # MSHR_HIT counts merged loads a second time: the total is GPGPU-Sim's TOTAL_ACCESS.
    assert loads == 34930 + 12721 + 3751 == 51402
    assert l1 == pytest.approx(100 * 34930 / 51402)
    # The L2 over global reads and writes (no instruction fetches), HIT only.
    assert l2 == pytest.approx(100 * (9764 + 10660) / (15070 + 10712))
    merged = cmp.accelsim_rates(dict(c, l2_HIT_RESERVED=1000.0))[2]
    assert merged == pytest.approx(100 * (9764 + 10660) / (15070 + 10712 + 1000))


def test_gpucache_settings_change_one_field_or_stop_naming_it():
    g = cmp.with_fields(preset("ciao18"), ["l1.index=mod", "l1.mshrs=256", "scheduler=lrr"])
    assert (g.l1.index, g.l1.mshrs, g.scheduler) == ("mod", 256, "lrr")
    with pytest.raises(SystemExit, match="--gpucache-set l1.nope=1: not a field"):
        cmp.with_fields(preset("ciao18"), ["l1.nope=1"])
    with pytest.raises(SystemExit, match="--gpucache-set l1.assoc=3"):
        cmp.with_fields(preset("ciao18"), ["l1.assoc=3"])


def test_a_trace_entry_runs_an_accelsim_directory_with_its_registers(tmp_path):
    """``trace:DIR`` imports the directory itself; the unrolled loop's loads are consumed 4 on."""
    unrolled = load_benchmark("unrolled_trace")
    unrolled.write_unrolled(tmp_path, ctas=2, warps=2, iterations=3, unroll=4)
    wl = cmp.workload_of(f"trace:{tmp_path}", 0.5)
    (k,) = wl.kernels
    loads = k.insts["op"] == 1
    # Per trip: 4 loads each read by its FFMA 4 instructions on; the final store reads no load.
    assert loads.sum() == 2 * 2 * 3 * 4 and (k.consumers[loads] == 4).all()
    assert (k.consumers[~loads] == -1).all()
    assert cmp.workload_of("rdgc/bicg", 0.01).kernels[0].consumers is None


def test_the_dram_scheduler_and_decoder_are_compared():
    gpu = preset("kim20")
    fifo = gpu.replace(dram_scheduler="fcfs", dram_queue=16, dram_address_map=GTX480_MAPPING)
    assert differences(KIM20_TEXT, fifo) == [
        "dram_scheduler: gpucache 'fcfs', Accel-Sim 'frfcfs'", "dram_queue: gpucache 16, Accel-Sim 64",
        f"dram_address_map: gpucache {GTX480_MAPPING!r}, Accel-Sim {KIM20_TEXT.split()[-1]!r}"]
    # A config that names no scheduler or queue size is not compared on them; its bus is GPGPU-Sim's
    # default, 4 bytes at double data rate, and so are its partition queues, 8 requests.
    bare = "\n".join(line for line in KIM20_TEXT.splitlines() if "dram_" not in line)
    assert differences(bare, fifo) == [
        f"dram_address_map: gpucache {GTX480_MAPPING!r}, Accel-Sim {KIM20_TEXT.split()[-1]!r}",
        "l2_input_queue: gpucache 32, Accel-Sim 8", "dram_bus_bytes: gpucache 16, Accel-Sim 8"]


def test_gpgpusims_fifo_dram_is_a_window_of_one():
    # dram_t::scheduler_fifo holds every request behind the queue's head until the head's bank is
    # idle: gpucache's FR-FCFS with a window of one, not its fcfs (each access timed on arrival).
    fifo_text = KIM20_TEXT.replace("-gpgpu_dram_scheduler 1", "-gpgpu_dram_scheduler 0")
    gpu = preset("kim20")
    assert differences(fifo_text, gpu.replace(dram_queue=1)) == []
    assert differences(fifo_text, gpu) == ["dram_queue: gpucache 64, Accel-Sim 1"]
    assert differences(fifo_text, gpu.replace(dram_scheduler="fcfs", dram_queue=1)) == [
        "dram_scheduler: gpucache 'fcfs', Accel-Sim 'frfcfs'"]


def test_accelsim_row_hits_sum_the_last_channel_reports():
    report = ("n_cmd=10 n_nop=1 n_act={} n_pre=0 n_ref_event=0 n_req={} n_rd=0 bw_util=0.1\n")
    text = ("-gpgpu_n_mem                            2 # memory modules\n"
            + report.format(5, 10) + report.format(5, 10)  # an earlier kernel's reports
            + report.format(10, 40) + report.format(30, 60))
    assert cmp.accelsim_row_hits(text) == 100.0 * (100 - 40) / 100
    assert cmp.accelsim_row_hits("no reports") != cmp.accelsim_row_hits("no reports")  # nan


def test_accelsim_latencies_read_the_last_tables_as_gpucache_gives_them():
    # Two kernels' reports (each the run so far): the last one counts, its empty tail dropped.
    first = ("averagemflatency = 200 \navg_mrq_latency = 3 \nmrq_lat_table:4 \t0 \t\n"
             "mf_lat_table:0 \t9 \t0 \t\n")
    last = ("averagemflatency = 281 \navg_icnt2mem_latency = 115 \navg_mrq_latency = 12 \n"
            "avg_icnt2sh_latency = 25 \nmrq_lat_table:5 \t1 \t0 \t2 \t0 \t\n"
            "dq_lat_table:0 \t\nmf_lat_table:0 \t0 \t7 \t3 \t0 \t0 \t\n"
            "icnt2mem_lat_table:0 \t0 \t0 \t1 \t\nicnt2sh_lat_table:0 \t0 \t2 \t0 \t\n")
    got = cmp.accelsim_latencies(first + last)
    assert got == {"round_trip": {"count": 10, "mean": 281.0, "log2_bins": [0, 0, 7, 3]},
                   "dram_wait": {"count": 8, "mean": 12.0, "log2_bins": [5, 1, 0, 2]},
                   "to_memory": {"count": 1, "mean": 115.0, "log2_bins": [0, 0, 0, 1]},
                   "to_sm": {"count": 2, "mean": 25.0, "log2_bins": [0, 0, 2]}}
    missing = cmp.accelsim_latencies("no tables")["dram_wait"]
    assert missing["count"] == 0 and missing["log2_bins"] == [] and missing["mean"] != missing["mean"]
    # Percentiles as the upper ends of their bins: 7 of 10 trips in bin 2 (4 to 7 cycles).
    bins = got["round_trip"]["log2_bins"]
    assert [cmp.log2_percentile(bins, q) for q in (0.5, 0.7, 0.71, 1.0)] == [7, 7, 15, 15]
    assert cmp.log2_percentile([], 0.5) is None


#: The interconnect files' lines that matter (configs/GTX480 of 24f29469; 537b342a's SM6_TITANX).
FERMI_ICNT = "flit_size = 32;\nnum_vcs     = 1;\ninput_speedup     = 2;\ninternal_speedup  = 1.0;\n"
PASCAL_ICNT = "flit_size = 40;\nvc_buf_size = 64;\ninput_speedup     = 1;\ninternal_speedup  = 2.0;\n"


def test_interconnect_file_is_compared():
    assert cmp.icnt_fields(FERMI_ICNT) == {"icnt_flit_bytes": 32, "icnt_packet_gap": 1,
                                           "icnt_response_order": "round-robin"}
    assert cmp.icnt_fields(PASCAL_ICNT) == {"icnt_flit_bytes": 40, "icnt_packet_gap": 0,
                                            "icnt_response_order": "fifo"}
    assert differences(KIM20_TEXT, preset("kim20"), icnt=PASCAL_ICNT) == []
    assert differences(KIM20_TEXT, preset("kim20"), icnt=FERMI_ICNT) == [
        "icnt_flit_bytes: gpucache 40, Accel-Sim 32", "icnt_packet_gap: gpucache 0, Accel-Sim 1",
        "icnt_response_order: gpucache 'fifo', Accel-Sim 'round-robin'"]


def test_the_l2s_response_queue_is_compared():
    # The last of -gpgpu_dram_partition_queues (8 when the config gives none), and the flits the
    # crossbar's input holds: the Fermi file sets no input_buffer_size (intersim2's 9) nor
    # vc_buf_size (booksim's 8); the Pascal file's 9 (or its 256) and 64.
    fermi = {"l2_response_queue": 32, "icnt_response_buffer": 17}
    assert cmp.response_fields(KIM20_TEXT, FERMI_ICNT) == fermi
    bare = KIM20_TEXT.replace("-gpgpu_dram_partition_queues 32:32:32:32\n", "")
    assert cmp.response_fields(bare, FERMI_ICNT) == {"l2_response_queue": 8, "icnt_response_buffer": 17}
    assert cmp.response_fields(KIM20_TEXT, PASCAL_ICNT)["icnt_response_buffer"] == 9 + 64
    sized = PASCAL_ICNT + "input_buffer_size = 256;\n"
    assert cmp.response_fields(KIM20_TEXT, sized)["icnt_response_buffer"] == 256 + 64
    # Compared only where gpucache has them: one queue at each sub-partition's input.
    single = preset("kim20").replace(icnt_response_order="round-robin", icnt_input_queues="single")
    order = "icnt_response_order: gpucache 'round-robin', Accel-Sim 'fifo'"
    assert differences(KIM20_TEXT, single, icnt=PASCAL_ICNT) == [
        order, "l2_response_queue: gpucache 0, Accel-Sim 32",
        "icnt_response_buffer: gpucache 0, Accel-Sim 73"]
    bounded = single.replace(l2_response_queue=32, icnt_response_buffer=73)
    assert differences(KIM20_TEXT, bounded, icnt=PASCAL_ICNT) == [order]
    assert differences(KIM20_TEXT, preset("kim20"), icnt=PASCAL_ICNT) == []


@pytest.mark.parametrize(("il1", "fields"), [
    ("N:8:128:4,L:R:f:N:L,S:2:48,4", {"icache_bytes": 4096, "icache_assoc": 4, "icache_mshrs": 2}),
    ("N:4:128:4,L:R:f:N:L,A:2:32,4", {"icache_bytes": 2048, "icache_assoc": 4, "icache_mshrs": 2}),
])
def test_gpucache_takes_the_configs_instruction_cache(il1, fields):
    text = cmp._set_option(KIM20_TEXT, "gpgpu_cache:il1", il1)
    assert cmp.icache_fields(text, 128) == fields
    # A perfect instruction cache (every fetch hits) is none in gpucache.
    perfect = cmp._set_option(text, "gpgpu_perfect_inst_const_cache", "1")
    assert cmp.icache_fields(perfect, 128) == {"icache_bytes": 0}


@pytest.mark.parametrize(("il1", "line", "message"), [
    ("N:8:128", 128, "^gpgpu_cache:il1: cannot read 'N:8:128'"),
    ("N:8:64:4,L:R:f:N:L,S:2:48,4", 128, "^gpgpu_cache:il1: its 64-byte lines are not the L1's 128 bytes"),
])
def test_an_unusable_instruction_cache_names_the_option(il1, line, message):
    with pytest.raises(cmp.InputError, match=message):
        cmp.icache_fields(cmp._set_option(KIM20_TEXT, "gpgpu_cache:il1", il1), line)
    with pytest.raises(cmp.InputError, match="^gpgpu_cache:il1: cannot read None"):
        cmp.icache_fields(KIM20_TEXT, 128)


def test_loads_past_the_l1_on_one_side_only_are_reported():
    # gmem_skip_L1D 1 pairs with kim20-l1-off; the derived config keeps 0 for the baseline.
    skip, cached = "-gpgpu_gmem_skip_L1D 1\n", "-gpgpu_gmem_skip_L1D 0\n"
    assert cmp.l1_skip_difference(skip, cmp.L1_OFF) is None
    assert cmp.l1_skip_difference(cached, None) is None
    assert cmp.l1_skip_difference(cached, "kim20-two-level") is None
    line = cmp.l1_skip_difference(skip, None)
    assert line == ("global loads: gpucache cached (policy baseline), Accel-Sim past the L1 "
                    "(gpgpu_gmem_skip_L1D 1)")
    assert "gpucache past the L1 (policy kim20-l1-off)" in cmp.l1_skip_difference(cached, cmp.L1_OFF)


def test_loads_past_the_l1_take_32_byte_segments_on_fermi_on_both_sides():
    # HEAD cuts a Fermi or Kepler global access into 32-byte segments when the L1 is skipped:
    # gpucache gets 32-byte requests when it skips the L1 too, and the report agrees.
    gtx480 = cmp._set_option(KIM20_TEXT, "gpgpu_coalesce_arch", "20")
    gtx480 = cmp._set_option(gtx480, "gpgpu_cache:dl1", "N:32:128:4,L:L:m:N:H,A:32:8,8")
    skip = cmp._set_option(gtx480, "gpgpu_gmem_skip_L1D", "1")
    kim20 = preset("kim20")
    lines = dataclasses.replace(kim20, coalescing="line", l1=dataclasses.replace(kim20.l1, sector_size=0))
    assert cmp.skip_l1_settings(skip, lines, cmp.L1_OFF) == ["l1.sector_size=32", "coalescing=sector"]
    assert cmp.skip_l1_settings(skip, lines, None) == []  # gpucache caches: its L1 stays as it is
    assert cmp.skip_l1_settings(gtx480, lines, cmp.L1_OFF) == []  # Accel-Sim caches: 128-byte lines
    assert cmp.skip_l1_settings(cmp._set_option(skip, "gpgpu_coalesce_arch", "61"), lines, cmp.L1_OFF) == []
    assert cmp.skip_l1_settings(skip, kim20, cmp.L1_OFF) == []  # sectors already
    segments = cmp.with_fields(lines, cmp.skip_l1_settings(skip, lines, cmp.L1_OFF))
    report = [d for d in differences(skip, segments) if d.startswith(("coalescing", "l1.sector_size"))]
    assert report == []
    assert [d for d in differences(gtx480, segments) if d.startswith(("coalescing", "l1.sector_size"))] == [
        "coalescing: gpucache 'sector', Accel-Sim 'line'", "l1.sector_size: gpucache 32, Accel-Sim 0"]


def test_dram_commands_take_the_configs_gddr_timings():
    # The TITAN X's timing string, over two lines as in its config; tRTW = CL + BL / ratio + 2 - WL
    # = 16 + 2 + 2 - 6, tWTR = WL + BL / ratio + tCDLR = 6 + 2 + 7 (gpu-sim.h); a 32-byte atom.
    text = KIM20_TEXT + ('-gpgpu_dram_burst_length 8\n-dram_bnkgrp_indexing_policy 1\n'
                         '-gpgpu_dram_timing_opt "nbk=16:CCD=2:RRD=8:RCD=16:RAS=37:RP=16:RC=52:\n'
                         '                        CL=16:WL=6:CDLR=7:WR=16:nbkgrp=4:CCDL=4:RTPL=3"\n')
    got = cmp.dram_command_settings(text)
    assert got[:2] == ["dram_atom_bytes=32", "dram_model=commands"]
    assert {"dram_bank_groups=4", "dram_bank_group_index=low", "dram_t_rrd=8", "dram_t_rc=52",
            "dram_t_wl=6", "dram_t_wr=16", "dram_t_rtpl=3", "dram_t_ccdl=4", "dram_t_rtw=14",
            "dram_t_wtr=15", "dram_t_cl=16", "dram_t_ras=37"} <= set(got)
    g = cmp.with_fields(preset("kim20"), got)  # each applies in turn
    assert (g.dram_model, g.dram_t_rtw, g.dram_atom_bytes) == ("commands", 14, 32)
    with pytest.raises(cmp.InputError, match="^gpgpu_dram_timing_opt: not in the config"):
        cmp.dram_command_settings(KIM20_TEXT)
    with pytest.raises(cmp.InputError, match="no whole-number RRD"):
        cmp.dram_command_settings(text.replace("RRD=8", "RRD=x"))


def test_a_rate_neither_side_has_passes_and_one_side_alone_fails():
    nan = float("nan")
    assert cmp._within(nan, nan, 5.0)  # every load past the L1 on both sides
    assert not cmp._within(nan, 40.0, 5.0)
    assert not cmp._within(40.0, nan, 5.0)
    assert cmp._within(44.0, 40.0, 5.0) and not cmp._within(45.5, 40.0, 5.0)
