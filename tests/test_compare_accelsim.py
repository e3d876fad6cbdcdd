"""benchmarks/compare_accelsim.py: the config rewriting and the machine check (no Accel-Sim needed)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from golden.configs.presets import preset

_SPEC = importlib.util.spec_from_file_location(
    "compare_accelsim", Path(__file__).resolve().parents[1] / "benchmarks" / "compare_accelsim.py")
cmp = importlib.util.module_from_spec(_SPEC)
sys.modules["compare_accelsim"] = cmp  # dataclasses look their module up
_SPEC.loader.exec_module(cmp)

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
-gpgpu_cache:dl2 S:64:128:16,L:B:m:L:L,A:256:64,16:0,32
-gpgpu_l2_rop_latency 120
-gpgpu_num_sched_per_core 2
-gpgpu_scheduler gto
"""


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


def test_kim20_matches_its_source_but_for_the_l2_index():
    assert cmp.machine_differences(KIM20_TEXT, preset("kim20")) == [
        "l2.index: gpucache 'xor', Accel-Sim 'mod'"]


@pytest.mark.parametrize(("option", "value", "field"), [
    ("gpgpu_n_clusters", "14", "n_sm"), ("gpgpu_shader_cta", "32", "max_ctas_per_sm"),
    ("gpgpu_cache:dl1", "S:4:128:96,L:L:s:N:L,A:256:8,16:0,32", "l1.size"),
    ("gpgpu_l1_latency", "28", "l1.hit_latency")])
def test_a_changed_machine_is_reported(option, value, field):
    lines = cmp.machine_differences(cmp._set_option(KIM20_TEXT, option, value), preset("kim20"))
    assert any(line.startswith(f"{field}:") for line in lines)
