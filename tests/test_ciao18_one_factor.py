"""benchmarks/ciao18_one_factor.py: the CIAO runs use the comparison file's own machine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from golden.configs.presets import preset
from golden.errors import InputError
from tests.benchmark_module import load_benchmark

one_factor = load_benchmark("ciao18_one_factor")
RESULTS = Path(__file__).resolve().parent.parent / "docs" / "results"


def test_the_machine_is_the_comparison_files():
    preset_run = json.loads((RESULTS / "ciao18_scale1.json").read_text())
    # The files name the machine they ran on: the preset before session 66's fields (CTAs started
    # from SM 0 in each kernel, writes of whole lines), session 68's (shared loads without
    # latency), session 70's (the L2 looked up on arrival, a queue per SM output at each
    # crossbar input), session 71's (stores not acknowledged), session 81's (an unbounded L2
    # input queue) and session 82's (unbounded response queues), which a file without them
    # gets, and the 16-byte DRAM bus it names (32 since session 72).
    ciao18 = preset("ciao18")
    before = ciao18.replace(cta_issue="fill", cta_first_cluster=0, write_packet="line",
                            smem_latency=0, l2=ciao18.l2.replace(lookup_latency=0),
                            icnt_input_queues="per-output", store_acks="none", dram_bus_bytes=16,
                            l2_input_queue=0, l2_response_queue=0, icnt_response_buffer=0)
    assert one_factor.base_machine(preset_run, "a.json") == before
    # a comparison on another machine (the L1's prime index): the CIAO runs must run on it too,
    # or their IPC is divided by GTO's on a different machine
    prime_run = json.loads((RESULTS / "ciao18_scale1_prime_l1.json").read_text())
    gpu = one_factor.base_machine(prime_run, "b.json")
    assert gpu.l1.index == "prime" and gpu.name == "ciao18-prime-l1"
    assert gpu == before.replace(l1=gpu.l1, name=gpu.name, source=gpu.source)
    assert gpu.l1 == preset("ciao18").l1.replace(index="prime")


def test_a_file_without_a_valid_machine_is_one_line_naming_it():
    with pytest.raises(InputError, match=r"^old\.json: config: missing"):
        one_factor.base_machine({"scale": 1.0, "rows": []}, "old.json")
    with pytest.raises(InputError, match=r"old\.json: config.*n_sm"):
        one_factor.base_machine({"config": {"base": "ciao18", "n_sm": -3}}, "old.json")


def test_machine_changes_apply_to_the_comparisons_machine():
    prime_run = json.loads((RESULTS / "ciao18_scale1_prime_l1.json").read_text())
    gpu = one_factor.base_machine(prime_run, "b.json", ["smem_cache_index=xor", "l1.assoc=8"])
    assert gpu.smem_cache_index == "xor" and gpu.l1.index == "prime" and gpu.l1.assoc == 8
    with pytest.raises(InputError, match=r"b\.json: config.*smem_cache_index: must be one of mod, xor"):
        one_factor.base_machine(prime_run, "b.json", ["smem_cache_index=fold"])
    with pytest.raises(InputError, match=r"--machine: l1\.assoc: one value, not 2"):
        one_factor.base_machine(prime_run, "b.json", ["l1.assoc=4,8"])
