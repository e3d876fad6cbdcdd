"""gpucache's timing model beside Accel-Sim on the same workloads and the same machine (issue 9).

Each built-in workload is exported as an Accel-Sim trace (``gpucache trace
export``, dependences ``next-memory`` on both sides) and run on both
simulators. A ``trace:DIR`` entry of ``--workloads`` is an Accel-Sim trace
directory run from its own files on both: gpucache imports it with its
registers (``--dependences auto``; ``benchmarks/unrolled_trace.py`` writes one
whose registers matter). Accel-Sim is not part of gpucache: build it with
``../shared/peers/accelsim/build.sh`` and give its build directory with
``--accelsim``; give the bare git copy of ``gpgpu-sim_distribution`` with
``--gpgpusim-git`` (the configs are read from it, never copied into gpucache).
The runs made with it, the targets and every experiment on a gap are in
``docs/validation.md``.

**Matching machines.** Accel-Sim's HEAD ``tested-cfgs`` are newer machines than
the presets (HEAD ``SM6_TITANX`` has 28 SMs of 64 warps and a 96 KB L1). The
script writes a ``gpgpusim.config`` into the run directory derived from the
file the preset was taken from, with the option names the HEAD simulator
accepts:

=========  ===============================================  =====================================
preset     source file (gpgpu-sim_distribution)             ``trace.config`` (opcode latencies)
=========  ===============================================  =====================================
``kim20``  ``537b342a:configs/tested-cfgs/SM6_TITANX``       Accel-Sim's ``SM6_TITANX``
           (GPGPU-Sim v4.0, April 2019)
``ciao18`` ``24f29469:configs/GTX480`` (version 3.2.2)       Accel-Sim's ``SM6_TITANX`` (no
                                                            Fermi one exists; INT ops 4 cycles,
                                                            1 per cycle, as 3.2.2's ADD/MAD)
=========  ===============================================  =====================================

Renamed options (HEAD name on the right): ``gmem_skip_L1D`` ->
``gpgpu_gmem_skip_L1D``, ``l1_latency`` -> ``gpgpu_l1_latency``,
``smem_latency`` -> ``gpgpu_smem_latency``, ``rop_latency`` ->
``gpgpu_l2_rop_latency``, ``perf_sim_memcpy`` -> ``gpgpu_perf_sim_memcpy``,
``memory_partition_indexing`` -> ``gpgpu_memory_partition_indexing``.
Old registrations HEAD splits in two: ``gpgpu_shmem_size`` also set
``gpgpu_shmem_sizeDefault`` (HEAD resets the shared memory to the latter at
each launch, default 16 KB), so both are written. 3.2.2's cache strings have
no sector flag and no set-index field (``32:128:4,L:L:m:N,A:32:8,8``): they
get ``N:`` and an index letter; 3.2.2's 7-field ``gpgpu_pipeline_widths``
becomes HEAD's 11 fields with no DP/INT units (``2,0,0,1,1,2,0,0,1,1,2``,
what HEAD's ``SM2_GTX480`` writes). Changed values: ``gpgpu_gmem_skip_L1D 0``
on both (the L1 caches global loads, as in the papers), power model off,
``gpgpu_coalesce_arch 20`` for the GTX 480 (Fermi coalescing: one 128-byte
request per line; 3.2.2 had only that), and the ciao18 L1 and L2 set index
``X`` (HEAD's bitwise XOR: set ^ next tag bits, which is gpucache's ``xor``
on one slice; ciao18 adds XOR hashing to the baseline, 3.2.2 had none).
:func:`machine_differences` reads the written file back and prints every
field that still differs from the preset before the table, including
``ldst_queue`` (``ID_OC_MEM`` + memory operand collector units +
``OC_EX_MEM``) and ``ldst_dispatch`` (GPGPU-Sim dispatches the units round
robin; the presets keep issue order, so every run reports it). HEAD
GPGPU-Sim rotates its schedulers' issue order every cycle whatever the
config, where 3.2.2 (the ciao18 preset's source) did not: the gpucache side
runs with ``issue_order = "rotating"`` and says so.

**Differences that remain** (documented in ``docs/validation.md``, "The same
machine on both sides"): Accel-Sim's cores have operand collectors, register
banks, an instruction buffer and fetch, execution-unit pipelines and
dual issue (``gpgpu_max_insn_issue_per_warp 2`` on Pascal) that gpucache
does not model; its interconnect is a booksim iSLIP crossbar with 40-byte
flits, gpucache's a latency and per-cycle bandwidth (the L2's
sub-partitions and set index are the same on both sides: ``slices``);
its DRAM is a GDDR5 model with bank groups and command timing,
gpucache's a row-buffer latency per bank (both FR-FCFS over the same queue
size, with the config's address decoder); its kernels start after a launch
latency and its L1 is flushed between kernels (``gpgpu_flush_l1_cache 1``);
the export appends an ``EXIT`` to each warp whose tail is empty.

**Counting.** Accel-Sim's ``L1D_total_cache_*`` totals leave out loads
merged into a pending miss and count every store (per sector) as a miss, so
the table compares global loads only, read from its per-outcome breakdown:
hits over load requests (``HIT + HIT_RESERVED + MISS + SECTOR_MISS``, its
``TOTAL_ACCESS``: ``MSHR_HIT`` counts again accesses already counted as a
miss or ``HIT_RESERVED``), merges and sector misses counted as
requests that do not hit, the same rule as gpucache's ``timing.l1`` counters
without the stores (``caches.l1`` ``write_hits`` + ``write_misses``). On the
sectored kim20 L1 Accel-Sim's coalescer (``gpgpu_coalesce_arch`` 61) sends one
request per 32-byte sector, and so does gpucache's kim20 preset (``coalescing = "sector"``,
since session 73; one per line with a sector mask under ``"line"``). L2:
global reads and writes on both sides (Accel-Sim's ``L2_total_cache_*`` also
count instruction fetches, which gpucache does not model, and count a request
merged into a pending line, ``HIT_RESERVED``, as a hit; the table takes its
``HIT`` over its global accesses, merges not hitting, as gpucache counts).
On a sectored cache (kim20's L1 and L2) the table counts
both sides per 32-byte sector: gpucache's ``timing.l1.sectors`` and
``timing.l2.sectors`` count each line request's sectors and those present
(``docs/timing.md``), and its per-request rates are printed below the table.
On the GTX 480 (Fermi coalescing, no sectors) both count line requests.
Reservation failures: gpucache's MSHR,
merge and miss-queue kinds summed, beside ``L1D_total_cache_reservation_fails``.
IPC is warp instructions per cycle of the whole GPU on both sides. DRAM row
hits: Accel-Sim's ``1 - n_act / n_req`` summed over its channels (its
``Row_Buffer_Locality``), gpucache's ``timing.dram.row_hit_rate``.
gpucache's timing loop is compiled (numba) on an untimed warm-up run first.

**Options for experiments.** ``--dram-commands`` runs gpucache's DRAM command
by command (``dram_model = "commands"``) with the config's GDDR timings
(:func:`dram_command_settings`). With ``--policy kim20-l1-off`` and
``gmem_skip_L1D`` 1 on a Fermi or Kepler coalescer, gpucache's requests are
HEAD's 32-byte segments (:func:`skip_l1_settings`). The run prints every
setting it changed.

**Latencies.** Below the table, each workload's four latencies on both sides
(gpucache's ``timing.latency``, Accel-Sim's tables and averages, :data:`LATENCY_TABLES`): a
data request's round trip from the LD/ST unit to its response at the SM, a DRAM request's
wait in the scheduler's window, a request's way to its sub-partition and a response's way
back; their means and the log2 bins that hold their 50th, 90th and 99th percentiles.

HEAD also takes a packet into a sub-partition only while its icnt-to-L2 queue has room for 4
sector requests (3.2.2: while it is not full): the gpucache side runs with
``l2_input_room = 4`` and says so when the preset's differs (ciao18's).
Where gpucache keeps one queue at each sub-partition's crossbar input (``icnt_input_queues =
"single"``), the responses a sub-partition holds before its L2 stalls are compared too
(``l2_response_queue``, ``icnt_response_buffer``: :func:`response_fields`).

**Targets** (issue 9): L1 and L2 hit rates within 5 points, cycles within 25%,
and the same ordering of the workloads by IPC; each row and the whole run
print PASS or FAIL.

Run: ``python benchmarks/compare_accelsim.py --accelsim /tmp/accelsim --config kim20
--workloads rdgc/bicg rdgc/atax --scale 0.05``. For a run that varies one factor,
``--accelsim-set OPTION=VALUE`` writes an option over the derived config and
``--gpucache-set FIELD=VALUE`` changes a field of the preset (``l1.index=mod``).
``--policy NAME`` runs gpucache with a cache-management policy; the one Accel-Sim
has too is the L1 off for global accesses: ``--policy kim20-l1-off --accelsim-set
gmem_skip_L1D=1`` (kim20's Figs. 3 and 4 baseline; a run that sets only one side
says so). With the L1 off neither side has an L1 load hit rate (``nan``), and that
column passes.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from golden.configs.presets import preset
from golden.configs.schema import GPUConfig
from golden.errors import InputError
from golden.gpu.run import simulate_timed
from golden.policies.base import policy_for
from golden.trace.accelsim import read_accelsim
from golden.trace.accelsim_export import write_accelsim
from golden.trace.model import Workload
from golden.workloads import registry

GPGPUSIM_GIT = Path("/work/.mirror/accel-sim+gpgpu-sim_distribution/repo")


@dataclass(frozen=True)
class Source:
    """Where a preset's GPGPU-Sim config comes from and what changes to run it on HEAD."""

    commit: str
    directory: str
    #: option -> value written over (or added to) the source file.
    values: tuple[tuple[str, str], ...]
    #: set-index letter given to 3.x cache strings that have none, per cache option.
    index: tuple[tuple[str, str], ...] = ()


SOURCES = {
    "kim20": Source("537b342a", "configs/tested-cfgs/SM6_TITANX", (
        ("gpgpu_gmem_skip_L1D", "0"), ("gpgpu_shmem_sizeDefault", "49152"),
        ("power_simulation_enabled", "0"))),
    "ciao18": Source("24f29469", "configs/GTX480", (
        ("gpgpu_gmem_skip_L1D", "0"), ("gpgpu_shmem_sizeDefault", "49152"),
        ("power_simulation_enabled", "0"), ("gpgpu_pipeline_widths", "2,0,0,1,1,2,0,0,1,1,2"),
        ("gpgpu_num_dp_units", "0"), ("gpgpu_coalesce_arch", "20")),
        index=(("gpgpu_cache:dl1", "X"), ("gpgpu_cache:dl2", "X"))),
}
#: 2019 / 3.2.2 option name -> HEAD option name.
RENAMES = {"gmem_skip_L1D": "gpgpu_gmem_skip_L1D", "l1_latency": "gpgpu_l1_latency",
           "smem_latency": "gpgpu_smem_latency", "rop_latency": "gpgpu_l2_rop_latency",
           "perf_sim_memcpy": "gpgpu_perf_sim_memcpy",
           "memory_partition_indexing": "gpgpu_memory_partition_indexing"}
#: Options HEAD does not accept and that have no effect on a trace-driven run.
DROPPED = ("gpuwattch_xml_file",)
#: Accel-Sim statistics read from its output (the last value printed: totals over all kernels).
STATS = ("L1D_total_cache_accesses", "L1D_total_cache_misses", "L1D_total_cache_reservation_fails",
         "L2_total_cache_accesses", "L2_total_cache_misses", "gpu_tot_sim_cycle", "gpgpu_n_tot_w_icount",
         "gpgpu_n_shmem_bkconflict")
#: Outcomes of an L1 global load (and an L2 global access) in Accel-Sim's breakdown. Each access is
#: counted once in HIT, HIT_RESERVED, MISS or SECTOR_MISS (GPGPU-Sim's TOTAL_ACCESS); MSHR_HIT
#: counts again those of them merged into a pending miss (cache_stats::print_stats: "already
#: included").
LOAD_OUTCOMES = ("HIT", "HIT_RESERVED", "MISS", "SECTOR_MISS", "MSHR_HIT", "RESERVATION_FAIL")
#: gpucache's latencies (``timing.latency``) -> Accel-Sim's mean and log2 table of the same thing
#: (``memory_stats_t``: a data request's round trip from its mem_fetch's creation to its response at
#: the cluster; a DRAM request's wait in the scheduler until a bank takes it; a request's way from
#: its creation to its sub-partition, ``memlatstat_icnt2mem_pop``; and a response's from leaving its
#: sub-partition to the cluster, ``memlatstat_read_done``). Accel-Sim's ``avg_icnt2mem_latency``
#: divides the sum over every request that reaches a sub-partition, instruction fetches included,
#: by the number of data responses; its table counts them all.
LATENCY_TABLES = {"round_trip": ("averagemflatency", "mf_lat_table"),
                  "dram_wait": ("avg_mrq_latency", "mrq_lat_table"),
                  "to_memory": ("avg_icnt2mem_latency", "icnt2mem_lat_table"),
                  "to_sm": ("avg_icnt2sh_latency", "icnt2sh_lat_table")}
#: Targets of issue 9.
HIT_POINTS, CYCLE_RATIO = 5.0, 0.25
#: Fields HEAD GPGPU-Sim sets whatever the config, where 3.2.2 (the ciao18 preset's source) differs:
#: it rotates the first scheduler every cycle (shader_core_ctx::issue), starts its turn of the
#: clusters for CTAs at cluster 0 (m_last_cluster_issue = n_clusters - 1; 3.2.2 began at cluster 1),
#: and a sub-partition takes a packet from the crossbar only while its icnt-to-L2 queue has room for
#: a line's 4 sector requests (full(SECTOR_CHUNCK_SIZE); 3.2.2 while it is not full).
#: The gpucache side of a run takes the peer's values.
PEER_FIELDS = {"issue_order": "rotating", "cta_first_cluster": 0, "l2_input_room": 4}
#: gpucache's policy that sends every global load past the L1 (GPGPU-Sim's ``gpgpu_gmem_skip_L1D 1``).
L1_OFF = "kim20-l1-off"
#: Prefix of a ``--workloads`` entry that names an Accel-Sim trace directory.
TRACE = "trace:"


def _option(text: str, name: str) -> str | None:
    found = re.findall(rf"^-{re.escape(name)}\s+(\S+)", text, re.M)
    return found[-1] if found else None


def _set_option(text: str, name: str, value: str) -> str:
    line = f"-{name} {value}"
    if _option(text, name) is None:
        return f"{text.rstrip()}\n{line}\n"
    return re.sub(rf"^-{re.escape(name)}\s+\S+.*$", line.replace("\\", r"\\"), text, flags=re.M)


def _modern_cache(spec: str, index: str) -> str:
    """A 3.x cache string (no sector flag, no set-index field) in HEAD's format."""
    if spec[0] in "NS" and spec[1] == ":":
        return spec
    geometry, policy, *rest = spec.split(",")
    return ",".join([f"N:{geometry}", f"{policy}:{index}", *rest])


def derive_files(config: str, git_dir: Path) -> dict[str, str]:
    """The files (name -> text) that run preset ``config``'s machine on HEAD Accel-Sim.

    ``gpgpusim.config`` derived from the preset's source file and the
    interconnect file it names, from the same commit.
    """
    src = SOURCES[config]
    text = _git_show(git_dir, src.commit, f"{src.directory}/gpgpusim.config")
    for old, new in RENAMES.items():
        text = re.sub(rf"^-{old}(\s)", rf"-{new}\1", text, flags=re.M)
    for name in DROPPED:
        text = re.sub(rf"^-{name}\s.*$", "", text, flags=re.M)
    letters = dict(src.index)
    for name in re.findall(r"^-(gpgpu_(?:tex_|const_)?cache:\w+)\s", text, re.M):
        spec = _option(text, name)
        if spec != "0" and not spec.isdigit():
            text = _set_option(text, name, _modern_cache(spec, "L"))
    for name, letter in letters.items():
        spec = _option(text, name)
        text = _set_option(text, name, _modern_cache(spec, letter) if spec[0] not in "NS" else
                           re.sub(r"^([NS]:[^,]+,[^,:]+:[^,:]+:[^,:]+:[^,:]+:)\w", rf"\g<1>{letter}", spec))
    for name, value in src.values:
        text = _set_option(text, name, value)
    icnt = _option(text, "inter_config_file")
    return {"gpgpusim.config": text, icnt: _git_show(git_dir, src.commit, f"{src.directory}/{icnt}")}


def _git_show(git_dir: Path, commit: str, path: str) -> str:
    p = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"compare_accelsim: gpgpusim-git: cannot read {commit}:{path} from {git_dir}: "
                 f"{p.stderr.strip()}")
    return p.stdout


def machine_differences(text: str, gpu: GPUConfig, streaming_mshrs: bool = True,
                        icnt: str | None = None) -> list[str]:
    """Fields of the derived Accel-Sim config that differ from the preset, one line each.

    ``streaming_mshrs``: whether the simulator that runs the config replaces a streaming L1's MSHR
    field (:func:`streaming_mshrs_of`). ``icnt``: the text of its interconnect file
    (``-inter_config_file``), whose flit size and router speed-up are compared too.
    """
    n_sm = int(_option(text, "gpgpu_n_clusters")) * int(_option(text, "gpgpu_n_cores_per_cluster"))
    threads, _ = _option(text, "gpgpu_shader_core_pipeline").split(":")
    subs = int(_option(text, "gpgpu_n_mem")) * int(_option(text, "gpgpu_n_sub_partition_per_mchannel"))
    l1, l2 = (_cache_fields(f"gpgpu_cache:{c}", _option(text, f"gpgpu_cache:{c}"), streaming_mshrs)
              for c in ("dl1", "dl2"))
    # HEAD's 11 pipeline widths: ID_OC_MEM is the 5th, OC_EX_MEM the 10th.
    widths = [int(w) for w in _option(text, "gpgpu_pipeline_widths").split(",")]
    sched = _option(text, "gpgpu_dram_scheduler")
    queue = _option(text, "gpgpu_frfcfs_dram_sched_queue_size")
    segments = skip_segments(text)
    theirs = {
        "n_sm": n_sm, "max_threads_per_sm": int(threads),
        "max_ctas_per_sm": int(_option(text, "gpgpu_shader_cta")),
        "max_regs_per_sm": int(_option(text, "gpgpu_shader_registers")),
        "schedulers_per_sm": int(_option(text, "gpgpu_num_sched_per_core")),
        "scheduler": _option(text, "gpgpu_scheduler"),
        # Memory instructions between issue and the LD/ST unit: ID_OC_MEM, the memory operand
        # collector units (HEAD's default 2) and OC_EX_MEM.
        "ldst_queue": widths[4] + int(_option(text, "gpgpu_operand_collector_num_units_mem") or 2)
        + widths[9],
        # GPGPU-Sim's dispatch_unit_t::find_ready, whatever the config.
        "ldst_dispatch": "round-robin",
        **PEER_FIELDS,
        # gpgpu_sim::issue_block2core, whatever the config.
        "cta_issue": "rotating",
        "sms_per_cluster": int(_option(text, "gpgpu_n_cores_per_cluster")),
        # memory_coalescing_arch_reduce_and_send sizes every write so.
        "write_packet": "segment",
        # memory_coalescing_arch: from gpgpu_coalesce_arch 40 on every transaction is a 32-byte sector,
        # and on Fermi and Kepler too with the L1 skipped (skip_segments).
        "coalescing": "sector" if int(_option(text, "gpgpu_coalesce_arch") or 13) >= 40
        or segments else "line",
        "shared_mem_bytes": int(_option(text, "gpgpu_shmem_size")),
        # The shared-memory pipeline's stages (HEAD's default 3, 3.2.2's fixed pipeline).
        "smem_latency": int(_option(text, "gpgpu_smem_latency") or 3),
        # Shared instructions' bank conflicts in the LD/ST unit (the options' defaults: 16, 1, 2).
        "smem_unit": "ldst",
        "shared_mem_banks": int(_option(text, "gpgpu_shmem_num_banks") or 16),
        "smem_broadcast": "one" if (_option(text, "gpgpu_shmem_limited_broadcast") or "1") == "1" else "all",
        "smem_warp_parts": int(_option(text, "gpgpu_shmem_warp_parts") or 2),
        "l2_partitions": subs,
        "l1.size": l1["size"], "l1.assoc": l1["assoc"], "l1.line_size": l1["line"],
        "l1.mshrs": l1["mshrs"], "l1.mshr_merges": l1["merges"], "l1.miss_queue": l1["mq"],
        "l1.allocate": l1["allocate"], "l1.index": l1["index"],
        "l1.sector_size": 32 if segments and not l1["sector"] else l1["sector"],
        "l1.write": l1["write"], "l2.write": l2["write"], "l2.write_allocate": l2["write_allocate"],
        "l1.hit_latency": int(_option(text, "gpgpu_l1_latency") or 1),
        # GPGPU-Sim 4.0's l1_latency queue is in front of the tag lookup: gpucache's lookup
        # pipeline. The HEAD simulator that runs has it whatever the config (default 1 cycle);
        # GPGPU-Sim 3.x, the ciao18 preset's source, had none.
        "l1.lookup_latency": int(_option(text, "gpgpu_l1_latency") or 1), "l1.miss_latency": 0,
        "l2.size": l2["size"] * subs, "l2.assoc": l2["assoc"], "l2.line_size": l2["line"],
        # One set-index slice per sub-partition (GPGPU-Sim indexes each sub-partition's cache).
        "l2.index": l2["index"], "l2.index_slices": subs,
        "l2.slice_map": slice_map_of(text),
        "l2.hit_latency": int(_option(text, "gpgpu_l2_rop_latency")),
        # The ROP delay queue holds a request from its arrival to the L2's lookup: all of the
        # L2's latency is in front of the lookup (memory_sub_partition::push, cache_cycle).
        "l2.lookup_latency": int(_option(text, "gpgpu_l2_rop_latency")),
        "l2.mshrs": l2["mshrs"], "l2.mshr_merges": l2["merges"], "l2.miss_queue": l2["mq"],
        "l2.sector_size": l2["sector"],
        # A sector cache keys its MSHRs per sector (cache_config::mshr_addr, m_atom_sz).
        "l1.mshr_key": "sector" if l1["sector"] else "line",
        "l2.mshr_key": "sector" if l2["sector"] else "line",
        # GPGPU-Sim's DRAM_CTRL: 0 FIFO, 1 FR-FCFS; a queue size of 0 is unlimited, as dram_queue 0.
        # Its FIFO (dram_t::scheduler_fifo) gives the queue's head to its bank once that bank is
        # idle and holds every later request behind it: gpucache's FR-FCFS with a window of one,
        # not its fcfs, which times each access as it arrives (docs/validation.md, session 79).
        "dram_scheduler": "frfcfs" if sched in ("0", "1") else sched,
        "dram_queue": 1 if sched == "0" else int(queue) if queue else None,
        "dram_address_map": _option(text, "gpgpu_mem_addr_mapping"),
        # The icnt-to-L2 queue, the first of -gpgpu_dram_partition_queues (default 8:8:8:8).
        "l2_input_queue": int((_option(text, "gpgpu_dram_partition_queues") or "8").split(":")[0]),
        # Bytes a channel moves per DRAM cycle: bus width x chips x words per command cycle.
        "dram_bus_bytes": int(_option(text, "gpgpu_dram_buswidth") or 4)
        * int(_option(text, "gpgpu_n_mem_per_ctrlr") or 1)
        * int(_option(text, "dram_data_command_freq_ratio") or 2),
    }
    if icnt is not None:
        theirs.update(icnt_fields(icnt))
        if gpu.icnt_input_queues == "single":
            # gpucache bounds a sub-partition's responses only in its one queue at the input.
            theirs.update(response_fields(text, icnt))
    ours = {key: _field(gpu, key) for key in theirs}
    return [f"{key}: gpucache {ours[key]!r}, Accel-Sim {theirs[key]!r}"
            for key in theirs if ours[key] != theirs[key] and None not in (ours[key], theirs[key])]


def dram_command_settings(text: str) -> list[str]:
    """gpucache settings (``FIELD=VALUE``, in an order each can be applied in) that run config
    ``text``'s DRAM with the command model (``dram_model = "commands"``, ``docs/timing.md``, "DRAM"):
    its ``-gpgpu_dram_timing_opt`` in DRAM cycles, with GPGPU-Sim's derived tRTW and tWTR
    (``gpu-sim.h``), its atom (burst length x bus width x chips per channel) and bank groups.

    Raises
    ------
    InputError
        If the timing string is missing or lacks a timing the model needs.
    """
    found = re.findall(r'^-gpgpu_dram_timing_opt\s+"([^"]*)"', text, re.M)
    if not found:
        raise InputError("gpgpu_dram_timing_opt: not in the config (needed by --dram-commands)")
    timing = dict(item.split("=", 1) for item in re.sub(r"\s+", "", found[-1]).split(":") if "=" in item)
    need = ("CCD", "RRD", "RCD", "RAS", "RP", "RC", "CL", "WL", "CDLR", "WR", "nbkgrp", "CCDL", "RTPL")
    missing = [k for k in need if not timing.get(k, "").isdigit()]
    if missing:
        raise InputError(f"gpgpu_dram_timing_opt: no whole-number {', '.join(missing)} in {found[-1]!r}")
    t = {k: int(timing[k]) for k in need}
    burst = int(_option(text, "gpgpu_dram_burst_length") or 4)
    ratio = int(_option(text, "dram_data_command_freq_ratio") or 2)
    atom = burst * int(_option(text, "gpgpu_dram_buswidth") or 4) * int(
        _option(text, "gpgpu_n_mem_per_ctrlr") or 1)
    groups = "low" if _option(text, "dram_bnkgrp_indexing_policy") == "1" else "high"
    fields = {"cl": "CL", "rcd": "RCD", "rp": "RP", "ras": "RAS", "rrd": "RRD", "rc": "RC", "wl": "WL",
              "wr": "WR", "rtpl": "RTPL", "ccd": "CCD", "ccdl": "CCDL"}
    return [f"dram_atom_bytes={atom}", "dram_model=commands", f"dram_bank_groups={t['nbkgrp']}",
            f"dram_bank_group_index={groups}",
            *(f"dram_t_{ours}={t[theirs]}" for ours, theirs in fields.items()),
            f"dram_t_rtw={t['CL'] + burst // ratio + 2 - t['WL']}",
            f"dram_t_wtr={t['WL'] + burst // ratio + t['CDLR']}"]


def skip_segments(text: str) -> bool:
    """Whether config ``text`` cuts global accesses into 32-byte segments because they skip the L1.

    HEAD's coalescer (``memory_coalescing_arch``) on Fermi and Kepler (``gpgpu_coalesce_arch`` 20
    to 38) sizes every global transaction by 32-byte segments when ``gpgpu_gmem_skip_L1D`` is 1
    (by 128-byte lines when the L1 caches them). gpucache moves the same bytes with 32-byte
    sectors on its L1 (which, with every load sent past it, changes nothing else) and a request
    per sector (:func:`skip_l1_settings`; ``docs/validation.md``, session 77).
    """
    arch = int(_option(text, "gpgpu_coalesce_arch") or 13)
    return _option(text, "gpgpu_gmem_skip_L1D") == "1" and 20 <= arch < 39


def skip_l1_settings(text: str, gpu: GPUConfig, policy: str | None) -> list[str]:
    """gpucache settings (``FIELD=VALUE``) that size its requests as Accel-Sim's when both sides
    send loads past an L1 without sectors on a Fermi or Kepler coalescer (:func:`skip_segments`)."""
    if policy != L1_OFF or not skip_segments(text) or gpu.l1.sector_size:
        return []
    return ["l1.sector_size=32", "coalescing=sector"]


def l1_skip_difference(text: str, policy: str | None) -> str | None:
    """A line saying that global loads skip the L1 on one side only, or None when both sides agree.

    Accel-Sim sends every global access past the L1D with ``gpgpu_gmem_skip_L1D 1`` (config
    ``text``); gpucache does under the policy :data:`L1_OFF` (``policy``; None: the baseline).
    """
    skip = _option(text, "gpgpu_gmem_skip_L1D") == "1"
    past = policy == L1_OFF
    if skip == past:
        return None
    return (f"global loads: gpucache {'past the L1' if past else 'cached'} (policy {policy or 'baseline'}), "
            f"Accel-Sim {'past the L1' if skip else 'cached'} (gpgpu_gmem_skip_L1D {int(skip)})")


def icnt_fields(icnt: str) -> dict[str, int | str]:
    """``icnt_flit_bytes``, ``icnt_packet_gap`` and ``icnt_response_order`` of an intersim file.

    intersim sizes packets with the file's ``flit_size`` (``InterconnectInterface::Push``), not
    with ``-icnt_flit_size``; a router whose ``internal_speedup`` is under 2 idles one cycle after
    each packet at an output (measured, ``docs/validation.md``, "One idle cycle per packet"). The
    response order follows the same split: ``"round-robin"`` (intersim's iSLIP output arbiter,
    measured to match Accel-Sim on the GTX 480's router) under 2, ``"fifo"`` from 2 on (the
    TITAN X Pascal's router, whose Accel-Sim runs the round robin moved away from; why was not
    measured), ``docs/validation.md``, "The crossbar's round robin".
    """
    fast = _icnt_value(icnt, "internal_speedup", 1.0) >= 2
    return {"icnt_flit_bytes": int(_icnt_value(icnt, "flit_size", 32)), "icnt_packet_gap": 0 if fast else 1,
            "icnt_response_order": "fifo" if fast else "round-robin"}


def _icnt_value(icnt: str, name: str, default: float) -> float:
    found = re.findall(rf"^\s*{name}\s*=\s*([0-9.]+)\s*;", icnt, re.M)
    return float(found[-1]) if found else default


def response_fields(text: str, icnt: str) -> dict[str, int]:
    """``l2_response_queue`` and ``icnt_response_buffer`` of a config: where a sub-partition's
    responses wait before its L2 stops looking up.

    Its L2-to-icnt queue (the last of ``-gpgpu_dram_partition_queues``, default 8), which the L2
    fills only while it is not full (``l2cache.cc``, ``output_full``), and the flits its crossbar
    input holds: the interface's input queue (``input_buffer_size``; intersim2 takes 9 when it is
    0 or unset, and pushes a packet only while it fits, ``HasBuffer``) ahead of its router's input
    buffer (``vc_buf_size``, booksim's default 8).
    """
    queues = (_option(text, "gpgpu_dram_partition_queues") or "8:8:8:8").split(":")
    buffered = int(_icnt_value(icnt, "input_buffer_size", 0)) or 9
    return {"l2_response_queue": int(queues[-1]),
            "icnt_response_buffer": buffered + int(_icnt_value(icnt, "vc_buf_size", 8))}


def icache_fields(text: str, line_size: int) -> dict[str, int]:
    """gpucache's instruction cache for a derived config: the size, ways and MSHRs of its
    ``gpgpu_cache:il1``, or none (``icache_bytes`` 0) under ``gpgpu_perfect_inst_const_cache 1``.

    Raises
    ------
    InputError
        If the string cannot be read, or its line is not ``line_size`` (gpucache's instruction
        lines are the L1's).
    """
    if _option(text, "gpgpu_perfect_inst_const_cache") == "1":
        return {"icache_bytes": 0}
    il1 = _cache_fields("gpgpu_cache:il1", _option(text, "gpgpu_cache:il1"), streaming_mshrs=False)
    if il1["line"] != line_size:
        raise InputError(f"gpgpu_cache:il1: its {il1['line']}-byte lines are not the L1's {line_size} "
                         "bytes, which gpucache's instruction cache uses")
    return {"icache_bytes": il1["size"], "icache_assoc": il1["assoc"], "icache_mshrs": il1["mshrs"]}


def slice_map_of(text: str) -> str | None:
    """gpucache's ``slice_map`` for a config's address decoder (``-gpgpu_mem_addr_mapping``).

    With the channel at bit 8 (``dramid@8``) and 2 sub-partitions per channel, the sub-partition
    is the lowest bank bit of the mask: below bit 8 (the TITAN X Pascal's ``...RBBBCCCC.BCCSSSSS``)
    the lines go to ``line mod N`` relabelled, ``"mod"``; at bit 8 of the address left once a
    channel count that is not a power of two is divided out (the GTX 480's
    ``...BBBCCCCB.CCSSSSSS``), ``"gtx480"``. Any other decoder is returned as its option text;
    None when the config names none.
    """
    option = _option(text, "gpgpu_mem_addr_mapping")
    if option is None:
        return None
    start, _, mask = option.partition(";")
    low_bank = mask.replace(".", "")[::-1].find("B")
    n_mem = int(_option(text, "gpgpu_n_mem"))
    if start == "dramid@8" and _option(text, "gpgpu_n_sub_partition_per_mchannel") == "2":
        if low_bank == 7:
            return "mod"
        if low_bank == 8 and n_mem & (n_mem - 1):
            return "gtx480"
    return option


def with_fields(gpu: GPUConfig, settings: list[str]) -> GPUConfig:
    """``gpu`` with ``key=value`` settings applied (``l1.index=mod``; integers parsed), for one-factor runs.

    Raises
    ------
    SystemExit
        With a one-line message naming the setting, if it is malformed or invalid.
    """
    for item in settings:
        key, sep, text = item.partition("=")
        value = int(text) if text.lstrip("-").isdigit() else text
        level, _, name = key.rpartition(".")
        try:
            owner = getattr(gpu, level) if level else gpu
            if not sep or owner is None or not hasattr(owner, name):
                raise ValueError("not a field of the preset")
            changed = owner.replace(**{name: value})
            gpu = gpu.replace(**{level: changed}) if level else changed
        except (ValueError, TypeError) as e:
            sys.exit(f"compare_accelsim: --gpucache-set {item}: {e}")
    return gpu


def _field(gpu: GPUConfig, key: str):
    obj = gpu
    for part in key.split("."):
        obj = getattr(obj, part, None)
    return obj


_INDEX = {"L": "mod", "X": "xor", "H": "fermi-hash", "P": "ipoly"}
_ALLOC = {"m": "on-miss", "f": "on-fill", "s": "on-fill"}
#: GPGPU-Sim's write-allocate letters the timing model has (N and F have no counterpart).
_WRITE_ALLOCATE = {"L": "lazy", "W": "fetch"}
#: GPGPU-Sim's write policy letters. "L" is LOCAL_WB_GLOBAL_WT, whose global store hit evicts the
#: line (data_cache::wr_hit_global_we_local_wb); the built-in workloads' stores are all global.
_WRITE = {"R": "read-only", "B": "write-back", "T": "write-through", "E": "write-evict", "L": "write-evict"}


def streaming_mshrs_of(build: Path) -> bool | None:
    """Whether the Accel-Sim build's GPGPU-Sim gives a streaming L1 its own MSHRs (None: unknown).

    GPGPU-Sim at 537b342a (the kim20 preset's source) sets a streaming cache's MSHRs to
    sets x ways x 4 (x 4 sectored) entries of ``MAX_WARP_PER_SM`` merges in
    ``cache_config::init``; later versions (HEAD 667834cf, which the Accel-Sim recipe builds)
    only switch it to allocate-on-fill and keep the string's ``A:256:8``.
    """
    header = build / "accel-sim-framework/gpu-simulator/gpgpu-sim/src/gpgpu-sim/gpu-cache.h"
    if not header.is_file():
        return None
    return "m_mshr_max_merge = MAX_WARP_PER_SM" in header.read_text(errors="replace")


def _cache_fields(option: str, spec: str | None, streaming_mshrs: bool = True) -> dict:
    """The gpucache fields of GPGPU-Sim cache string ``spec`` (of ``option``); InputError if malformed."""
    try:
        return _read_cache(spec, streaming_mshrs)
    except (AttributeError, ValueError, IndexError, KeyError):
        raise InputError(f"{option}: cannot read {spec!r} (HEAD's form: "
                         "kind:sets:line:assoc,policy,mshr:entries:merges,queue...)") from None


def _read_cache(spec: str, streaming_mshrs: bool) -> dict:
    kind, sets, line, assoc = spec.split(",")[0].split(":")
    policy = spec.split(",")[1].split(":")
    mshr = spec.split(",")[2].split(":")
    mshrs, merges = int(mshr[1]), int(mshr[2])
    if policy[2] == "s" and streaming_mshrs:
        # A streaming cache's MSHRs are not the string's: cache_config::init (gpu-cache.h) sets
        # sets x ways x MAX_DEFAULT_CACHE_SIZE_MULTIBLIER (4) x SECTOR_CHUNCK_SIZE (4, sectored)
        # entries of MAX_WARP_PER_SM (64) merges.
        mshrs, merges = int(sets) * int(assoc) * 4 * (4 if kind == "S" else 1), 64
    return {"size": int(sets) * int(line) * int(assoc), "assoc": int(assoc), "line": int(line),
            "sector": 32 if kind == "S" else 0, "allocate": _ALLOC[policy[2]], "index": _INDEX[policy[4]],
            "write": _WRITE[policy[1]], "write_allocate": _WRITE_ALLOCATE.get(policy[3], policy[3]),
            "mshrs": mshrs, "merges": merges, "mq": int(spec.split(",")[3].split(":")[0])}


def run_accelsim(build: Path, trace_dir: Path, files: dict[str, str],
                 log: Path | None = None) -> tuple[dict[str, float], float]:
    """Run Accel-Sim on an exported trace with the config ``files``; its statistics and wall seconds.

    Its whole output is also written to ``log`` when given.
    """
    framework = build / "accel-sim-framework"
    sim = framework / "gpu-simulator" / "bin" / "release" / "accel-sim.out"
    if not sim.is_file():
        sys.exit(f"compare_accelsim: accelsim: no {sim}: build Accel-Sim first "
                 "(../shared/peers/accelsim/build.sh)")
    with tempfile.TemporaryDirectory(prefix="accelsim-run-") as run:
        # The config names its interconnect file relative to the working directory.
        for fname, text in files.items():
            (Path(run) / fname).write_text(text)
        trace_cfg = framework / "gpu-simulator" / "configs" / "tested-cfgs" / "SM6_TITANX" / "trace.config"
        (Path(run) / "trace.config").write_bytes(trace_cfg.read_bytes())
        # The simulator is Accel-Sim's own libcudart: another CUDA on the library path would be loaded.
        libs = sorted((framework / "gpu-simulator" / "gpgpu-sim" / "lib").glob("*/*/release/libcudart.so*"))
        env = dict(os.environ, LD_LIBRARY_PATH=":".join(sorted({str(lib.parent) for lib in libs})))
        cmd = [str(sim), "-trace", str(trace_dir / "kernelslist.g"), "-config", "gpgpusim.config",
               "-config", "trace.config"]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=run, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
    if log is not None:
        log.write_text(p.stdout + p.stderr)
    if p.returncode != 0 or "gpu_tot_sim_cycle" not in p.stdout:
        sys.exit(f"compare_accelsim: Accel-Sim failed ({p.returncode}): {p.stdout[-600:]}{p.stderr[-400:]}")
    stats = accelsim_stats(p.stdout)
    stats["dram_row_hits"] = accelsim_row_hits(p.stdout)
    stats["latency"] = accelsim_latencies(p.stdout)
    return stats, seconds


def accelsim_stats(text: str) -> dict[str, float]:
    """The statistics the table reads from Accel-Sim's output ``text`` (the last printed of each).

    :data:`STATS`, and per outcome the L1 counts of global loads (``load_HIT``, ...) and the L2
    counts of global reads and writes (``l2_HIT``, ...): totals over all kernels.
    """
    stats = {}
    for name in STATS:
        found = re.findall(rf"^\s*{name}\s*=\s*([0-9.]+)", text, re.M)
        stats[name] = float(found[-1]) if found else float("nan")
    for prefix, table, kinds in (("load", "Total_core_cache_stats_breakdown", ("R",)),
                                 ("l2", "L2_cache_stats_breakdown", ("R", "W"))):
        for outcome in LOAD_OUTCOMES:
            stats[f"{prefix}_{outcome}"] = 0.0
            for kind in kinds:
                found = re.findall(rf"{table}\[GLOBAL_ACC_{kind}\]\[{outcome}\] = (\d+)", text)
                stats[f"{prefix}_{outcome}"] += float(found[-1]) if found else 0.0
    return stats


def accelsim_row_hits(text: str) -> float:
    """Accel-Sim's DRAM row-buffer hit rate (%) from its output: ``1 - n_act / n_req`` over its
    channels' last reports (``-gpgpu_n_mem`` of them; their counts run from the simulation's start)."""
    channels = re.findall(r"^-gpgpu_n_mem\s+(\d+)", text, re.M)
    found = re.findall(r"\bn_act=(\d+) .*?\bn_req=(\d+)", text)
    if not channels or not found:
        return float("nan")
    found = found[-int(channels[-1]):]
    acts, reqs = sum(int(a) for a, _ in found), sum(int(r) for _, r in found)
    return _pct(reqs - acts, reqs)


def accelsim_latencies(text: str) -> dict[str, dict]:
    """Accel-Sim's latencies from its output ``text``, as gpucache's ``timing.latency`` gives them.

    Per name of :data:`LATENCY_TABLES`: ``count`` (the table's sum), ``mean`` (its printed
    average, a whole number of cycles; nan if not printed) and ``log2_bins`` (the last table
    printed, over the whole run, trailing empty bins left out).
    """
    out = {}
    for name, (mean, table) in LATENCY_TABLES.items():
        means = re.findall(rf"^{mean}\s*=\s*(\d+)", text, re.M)
        tables = re.findall(rf"^{table}:([\d \t]*)$", text, re.M)
        bins = [int(v) for v in tables[-1].split()] if tables else []
        while bins and not bins[-1]:
            bins.pop()
        out[name] = {"count": sum(bins), "mean": float(means[-1]) if means else float("nan"),
                     "log2_bins": bins}
    return out


def log2_percentile(bins: list[int], q: float) -> int | None:
    """The upper end (cycles) of the log2 bin that holds quantile ``q`` of a histogram (None if empty)."""
    total = sum(bins)
    if not total:
        return None
    seen = 0
    for i, n in enumerate(bins):
        seen += n
        if seen >= q * total:
            return 2 ** (i + 1) - 1
    return 2 ** len(bins) - 1


def accelsim_rates(c: dict[str, float]) -> tuple[float, float, float]:
    """Accel-Sim's global load requests, L1 load hit rate and L2 hit rate (%) from :func:`accelsim_stats`.

    Each access once (``HIT + HIT_RESERVED + MISS + SECTOR_MISS``, GPGPU-Sim's ``TOTAL_ACCESS``:
    ``MSHR_HIT`` counts merged accesses a second time); hits are ``HIT`` (a merge into a pending
    line, ``HIT_RESERVED``, does not hit, as gpucache counts); the L2 over global reads and writes.
    """
    def total(prefix: str) -> float:
        return sum(c[f"{prefix}_{o}"] for o in ("HIT", "HIT_RESERVED", "MISS", "SECTOR_MISS"))

    loads = total("load")
    return loads, _pct(c["load_HIT"], loads), _pct(c["l2_HIT"], total("l2"))


def _pct(hits: float, accesses: float) -> float:
    return 100.0 * hits / accesses if accesses else float("nan")


def workload_of(name: str, scale: float) -> Workload:
    """A built-in workload, or ``trace:DIR``: an Accel-Sim trace directory, imported with its registers."""
    return read_accelsim(name[len(TRACE):]) if name.startswith(TRACE) else registry.build(name, scale)


def compare(name: str, scale: float, gpu: GPUConfig, build: Path, files: dict[str, str],
            log: Path | None = None, dependences: str = "auto", policy: str | None = None) -> dict:
    """Both simulators on workload ``name``: one row of the table (plain values).

    A built-in workload is exported with the ``next-memory`` rule written as registers (the
    emulators' rule); a ``trace:DIR`` runs from its own files on both sides, so Accel-Sim reads its
    registers and gpucache's ``auto`` rule takes them too. ``dependences`` is gpucache's rule and
    ``policy`` its cache-management policy (None: the baseline).
    """
    wl = workload_of(name, scale)
    if name.startswith(TRACE):
        theirs, their_s = run_accelsim(build, Path(name[len(TRACE):]), files, log)
    else:
        with tempfile.TemporaryDirectory(prefix="accelsim-trace-") as tdir:
            write_accelsim(wl, tdir, dependences="next-memory")
            theirs, their_s = run_accelsim(build, Path(tdir), files, log)
    t0 = time.perf_counter()
    ours = simulate_timed(wl, gpu, policy_for(policy, gpu), dependences=dependences)
    our_s = time.perf_counter() - t0
    t, c = ours["timing"], theirs
    our_insts, their_insts = ours["totals"]["instructions"], c["gpgpu_n_tot_w_icount"]
    # Global loads only, merges and sector misses counted as requests that do not hit.
    stores = ours["caches"]["l1"]["write_hits"] + ours["caches"]["l1"]["write_misses"]
    our_loads = t["l1"]["accesses"] - stores
    our_load_hits = t["l1"]["hits"] - ours["caches"]["l1"]["write_hits"]
    their_loads, their_l1, their_l2 = accelsim_rates(c)
    # Per sector on a sectored cache, as Accel-Sim counts (one request per sector); per line request
    # otherwise, where gpucache's per-sector counts are its per-request ones.
    l1s, l2s = t["l1"]["sectors"], t["l2"]["sectors"]
    if gpu.l1.sector_size:
        our_loads, our_load_hits = l1s["loads"], l1s["load_hits"]
    row = {
        "workload": name if len(name) <= 15 else "..." + name[-12:],
        "dependences": ours["timing"]["dependences"],
        "l1": (_pct(our_load_hits, our_loads), their_l1),
        "l1_accesses": (our_loads, their_loads),
        # Accel-Sim's own L2 total also has instruction fetches and counts HIT_RESERVED as a hit.
        "l2": (_pct(l2s["hits"], l2s["accesses"]), their_l2),
        "per_request": (_pct(t["l1"]["hits"] - ours["caches"]["l1"]["write_hits"],
                             t["l1"]["accesses"] - stores), 100.0 * t["l2"]["hit_rate"]),
        "resfail": (sum(t["l1"]["reservation_fails"].values()), c["L1D_total_cache_reservation_fails"]),
        "bank_conflicts": (t["shared"]["bank_conflicts"], c["gpgpu_n_shmem_bkconflict"]),
        "row_hits": (100.0 * t["dram"]["row_hit_rate"], c.get("dram_row_hits", float("nan"))),
        "cycles": (t["cycles"], c["gpu_tot_sim_cycle"]),
        "ipc": (t["ipc"], their_insts / c["gpu_tot_sim_cycle"]),
        "insts": (our_insts, their_insts),
        "seconds": (our_s, their_s),
        "rate": (our_insts / our_s, their_insts / their_s),
        "latency": {name: (t["latency"][name], c["latency"][name]) for name in LATENCY_TABLES},
    }
    row["pass"] = (_within(*row["l1"], HIT_POINTS) and _within(*row["l2"], HIT_POINTS)
                   and _within(*row["cycles"], CYCLE_RATIO * row["cycles"][1]))
    return row


def _within(ours: float, theirs: float, tolerance: float) -> bool:
    """``ours`` within ``tolerance`` of ``theirs``; a rate neither side has (no L1 loads: nan) passes."""
    if math.isnan(ours) and math.isnan(theirs):
        return True
    return abs(ours - theirs) <= tolerance


def _order(rows: list[dict], side: int) -> list[str]:
    return [r["workload"] for r in sorted(rows, key=lambda r: -r["ipc"][side])]


def print_header() -> None:
    """Print the table's two header lines."""
    head = (f"{'workload':<14} {'L1 load hit':>13} {'L1 load reqs':>17} {'L2 hit':>13} {'L1 resfail':>15} "
            f"{'DRAM row hit':>13} {'shmem conflicts':>17} "
            f"{'cycles':>17} {'IPC (warp)':>11} {'warp insts':>17} {'wall s':>11} {'warp inst/s':>15} "
            f"{'speed':>6}  target")
    print(head)
    pairs = (("ours   A-S", 13), ("ours     A-S", 17), ("ours   A-S", 13), ("ours    A-S", 15),
             ("ours   A-S", 13), ("ours      A-S", 17),
             ("ours      A-S", 17), ("ours  A-S", 11), ("ours      A-S", 17), ("ours  A-S", 11),
             ("ours    A-S", 15))
    print(f"{'':<14} " + " ".join(f"{label:>{width}}" for label, width in pairs))
    print("-" * len(head))


def print_row(r: dict) -> None:
    """Print one workload's row of the table."""
    (l1o, l1t), (l1ao, l1at), (l2o, l2t) = r["l1"], r["l1_accesses"], r["l2"]
    (fo, ft), (co, ct), (io, it), (no, nt) = r["resfail"], r["cycles"], r["ipc"], r["insts"]
    (so, st), (ro, rt), (do, dt) = r["seconds"], r["rate"], r["row_hits"]
    bo, bt = r["bank_conflicts"]
    print(f"{r['workload']:<14} {l1o:5.1f}% {l1t:5.1f}% {l1ao:>8,} {l1at:>8,.0f} {l2o:5.1f}% {l2t:5.1f}% "
          f"{fo:>7,} {ft:>7,.0f} {do:5.1f}% {dt:5.1f}% {bo:>8,} {bt:>8,.0f} {co:>8,} {ct:>8,.0f} "
          f"{io:5.2f} {it:5.2f} "
          f"{no:>8,} {nt:>8,.0f} "
          f"{so:5.1f} {st:5.1f} {ro:>7,.0f} {rt:>7,.0f} {ro / rt:5.1f}x  "
          f"{'PASS' if r['pass'] else 'FAIL'}", flush=True)


def print_latencies(rows: list[dict]) -> None:
    """Print each workload's latencies on both sides: mean, and the 50th, 90th and 99th percentiles
    as the upper ends of their log2 bins (GPGPU-Sim keeps only the bins)."""
    print("latencies (cycles): mean, then the 50th/90th/99th percentiles' log2 bins (upper ends); "
          "ours | A-S")
    for r in rows:
        parts = []
        for name, (ours, theirs) in r["latency"].items():
            sides = []
            for side in (ours, theirs):
                ps = "/".join(str(log2_percentile(side["log2_bins"], q)) for q in (0.5, 0.9, 0.99))
                sides.append(f"{side['mean']:.1f} {ps} (n={side['count']:,})")
            parts.append(f"{name.replace('_', ' ')} {sides[0]} | {sides[1]}")
        print(f"  {r['workload']:<14} " + ";  ".join(parts))


def print_targets(rows: list[dict]) -> bool:
    """Print the IPC ordering and the overall verdict; True when every target is met."""
    same = _order(rows, 0) == _order(rows, 1)
    print(f"IPC order ours: {' > '.join(_order(rows, 0))}")
    print(f"IPC order A-S:  {' > '.join(_order(rows, 1))}  {'PASS' if same else 'FAIL'}")
    ok = same and all(r["pass"] for r in rows)
    print(f"targets (L1/L2 hit within {HIT_POINTS:.0f} points, cycles within {CYCLE_RATIO:.0%}, IPC order): "
          f"{'PASS' if ok else 'FAIL'}")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--accelsim", type=Path, required=True, help="Accel-Sim build directory")
    ap.add_argument("--gpgpusim-git", type=Path, default=GPGPUSIM_GIT,
                    help="bare git copy of accel-sim/gpgpu-sim_distribution (source of the configs)")
    ap.add_argument("--config", choices=sorted(SOURCES), default="kim20")
    ap.add_argument("--workloads", nargs="+", default=["rdgc/bicg", "rdgc/atax", "rdgc/mvt"],
                    help="built-in workloads, or trace:DIR for an Accel-Sim trace directory (kernelslist.g)")
    ap.add_argument("--dependences", default="auto",
                    help="gpucache's dependence rule (default auto: a trace's registers, else next-memory)")
    ap.add_argument("--scale", type=float, default=0.05)
    ap.add_argument("--warm-up-scale", type=float, default=0.01,
                    help="scale of the untimed first run that compiles gpucache's timing loop")
    ap.add_argument("--write-config", type=Path, help="also write the derived gpgpusim.config here")
    ap.add_argument("--logs", type=Path, help="directory for Accel-Sim's whole output, one file per workload")
    ap.add_argument("--accelsim-set", action="append", default=[], metavar="OPTION=VALUE",
                    help="write this option over the derived gpgpusim.config (a one-factor experiment)")
    ap.add_argument("--gpucache-set", action="append", default=[], metavar="FIELD=VALUE",
                    help="change this field of the preset (l1.index=mod, l1.allocate=on-fill, ...)")
    ap.add_argument("--dram-commands", action="store_true",
                    help="run gpucache's DRAM command by command with the config's GDDR timings "
                    "(dram_model=commands; docs/timing.md, DRAM)")
    ap.add_argument("--policy", help="gpucache's cache-management policy (default: the baseline); "
                    f"{L1_OFF} sends every load past the L1, as --accelsim-set gmem_skip_L1D=1 does")
    args = ap.parse_args()
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)
    gpu = preset(args.config)
    files = derive_files(args.config, args.gpgpusim_git)
    for item in args.accelsim_set:
        name, sep, value = item.partition("=")
        if not sep or not name:
            sys.exit(f"compare_accelsim: --accelsim-set {item}: must be OPTION=VALUE")
        # A 2019 / 3.2.2 name sets HEAD's option; one the config lacks is appended, and said so
        # (GPGPU-Sim does not reject an option it does not know).
        name = name.lstrip("-")
        name = RENAMES.get(name, name)
        if _option(files["gpgpusim.config"], name) is None:
            print(f"  --accelsim-set {item}: -{name} is not in the derived config: appended")
        files["gpgpusim.config"] = _set_option(files["gpgpusim.config"], name, value)
    # Not differences of the machine: the simulator that runs its config does so. And the
    # instruction cache that fetches the exported code layout on Accel-Sim (the presets have
    # none: docs/timing.md, "Instruction fetch").
    try:
        peer = {**PEER_FIELDS, **icache_fields(files["gpgpusim.config"], gpu.l1.line_size)}
    except InputError as e:
        sys.exit(f"compare_accelsim: {e}")
    args.gpucache_set[:0] = [f"{name}={value}" for name, value in peer.items() if getattr(gpu, name) != value]
    args.gpucache_set[:0] = skip_l1_settings(files["gpgpusim.config"], gpu, args.policy)
    if args.dram_commands:
        try:
            args.gpucache_set[:0] = dram_command_settings(files["gpgpusim.config"])
        except InputError as e:
            sys.exit(f"compare_accelsim: --dram-commands: {e}")
    gpu = with_fields(gpu, args.gpucache_set)
    if args.write_config:
        args.write_config.write_text(files["gpgpusim.config"])
    src = SOURCES[args.config]
    print(f"gpucache {args.config} (timing model) beside Accel-Sim with {src.commit}:{src.directory}, "
          f"scale {args.scale}")
    for side, items in (("gpucache", args.gpucache_set), ("Accel-Sim", args.accelsim_set)):
        for item in items:
            print(f"  changed for this run: {side} {item}")
    streaming = streaming_mshrs_of(args.accelsim)
    if streaming is None:
        print("  the build's gpu-cache.h was not found: a streaming L1's MSHRs taken as 537b342a sets them")
    icnt_text = files[_option(files["gpgpusim.config"], "inter_config_file")]
    try:
        differences = machine_differences(files["gpgpusim.config"], gpu, streaming is not False, icnt_text)
    except InputError as e:
        sys.exit(f"compare_accelsim: --accelsim-set: {e}")
    if (line := l1_skip_difference(files["gpgpusim.config"], args.policy)) is not None:
        differences.append(line)
    for line in differences:
        print(f"  config differs: {line}")
    # The timing loop is compiled once per process (numba, not cached on disk): compile it on a
    # small run first so that the timed runs measure simulation only.
    # The warm-up's policy is the first one built: an unknown name stops the script here. Each
    # workload then gets its own (a policy keeps state across a run).
    try:
        warm_policy = policy_for(args.policy, gpu)
    except InputError as e:
        sys.exit(f"compare_accelsim: --policy {args.policy}: {e}")
    t0 = time.perf_counter()
    simulate_timed(workload_of(args.workloads[0], args.warm_up_scale), gpu, warm_policy,
                   dependences=args.dependences)
    print(f"  gpucache warm-up (compilation) on {args.workloads[0]} at scale {args.warm_up_scale}: "
          f"{time.perf_counter() - t0:.1f} s, not counted below")
    print_header()
    rows = []
    for name in args.workloads:
        stem = name.replace("/", "-").replace(":", "-")
        log = args.logs / f"{args.config}-{stem}.log" if args.logs else None
        rows.append(compare(name, args.scale, gpu, args.accelsim, files, log, args.dependences, args.policy))
        print_row(rows[-1])
    print_targets(rows)
    print_latencies(rows)
    if gpu.l1.sector_size or gpu.l2.sector_size:
        per = (f"{r['workload']} L1 load hit {r['per_request'][0]:.1f}%, L2 hit {r['per_request'][1]:.1f}%"
               for r in rows)
        print("gpucache per line request (the hit rates above are per sector on both sides): "
              + "; ".join(per))
    return 0


if __name__ == "__main__":
    sys.exit(main())
