"""Machine presets (every figure against the papers' tables) and the TOML/JSON loader."""

from __future__ import annotations

import dataclasses
import json

import pytest

from golden.configs import (
    PRESETS,
    CacheConfig,
    GPUConfig,
    config_from_dict,
    dump_toml,
    load_config,
    preset,
    preset_names,
)
from golden.errors import InputError

KB = 1024
MB = 1024 * KB


# --- presets ---------------------------------------------------------------------------------

def test_preset_names():
    assert preset_names() == ["tian15", "kim20", "ciao18", "rdgc"]
    assert all(PRESETS[n].name == n for n in preset_names())


def test_tian15_table1():
    g = preset("tian15")
    assert g.n_sm == 8
    assert g.core_clock_mhz == 1000.0
    assert g.scheduler == "oldest"
    assert (g.l1.size, g.l1.assoc, g.l1.line_size) == (16 * KB, 8, 64)
    assert (g.l1.tag_latency, g.l1.data_latency, g.l1.latency) == (1, 4, 5)
    assert (g.l2.size, g.l2.assoc, g.l2.line_size) == (256 * KB, 16, 64)
    assert (g.l2.tag_latency, g.l2.data_latency, g.l2.latency) == (4, 16, 20)
    assert (g.l3.size, g.l3.assoc, g.l3.line_size) == (4 * MB, 16, 64)
    assert (g.l3.tag_latency, g.l3.data_latency, g.l3.latency) == (15, 30, 45)
    assert [c.replacement for _, c in g.levels] == ["plru", "plru", "plru"]
    assert [n for n, _ in g.levels] == ["l1", "l2", "l3"]
    assert (g.l1.sets, g.l2.sets, g.l3.sets) == (32, 256, 4096)
    assert g.schedulers_per_sm == 4  # 4 SIMDs per compute unit
    assert "tian15 Table 1" in g.source


def test_kim20_table1():
    # kim20 Table 1 is GPGPU-Sim v4.0's 2019 SM6_TITANX config; its "MSHR 16, miss queue 32" misreads
    # the L1D string "A:256:8,16:0,32" (256 MSHRs of 8 merges, a miss queue of 16), which GPGPU-Sim
    # itself overrides for the streaming L1: 4 x 48 x 4 x 4 = 3,072 MSHRs of 64 merges.
    g = preset("kim20")
    assert (g.n_sm, g.warp_size) == (56, 32)
    assert (g.max_warps_per_sm, g.max_threads_per_sm, g.max_ctas_per_sm) == (32, 1024, 16)
    assert (g.max_regs_per_sm, g.shared_mem_bytes, g.schedulers_per_sm) == (32768, 48 * KB, 2)
    l1 = g.l1
    assert (l1.size, l1.assoc, l1.line_size, l1.sets) == (24 * KB, 48, 128, 4)
    assert l1.sector_size == 32
    assert l1.allocate == "on-fill"
    assert (l1.mshrs, l1.mshr_merges, l1.miss_queue) == (3072, 64, 16)
    assert (l1.hit_latency, l1.latency, l1.lookup_latency, l1.miss_latency) == (82, 82, 82, 0)
    assert (g.scheduler, g.cta_scheduler) == ("gto", "round-robin")
    assert (g.core_clock_mhz, g.icnt_clock_mhz, g.l2_clock_mhz, g.dram_clock_mhz) == \
        (1417.0, 1417.0, 1417.0, 2500.0)
    # L2: 12 channels x 2 sub-partitions x 64 sets x 16 ways x 128 B = 3 MB.
    l2 = g.l2
    assert (l2.size, l2.assoc, l2.line_size, l2.sector_size) == (3 * MB, 16, 128, 32)
    assert (l2.write, l2.replacement, l2.hit_latency) == ("write-back", "lru", 120)
    assert (g.l2_partitions, l2.sets // g.l2_partitions, l2.index_slices) == (24, 64, 24)
    assert (l2.mshrs, l2.mshr_merges) == (256, 64)
    assert (g.dram_channels, g.dram_banks, g.dram_t_rcd, g.dram_t_ras, g.dram_t_cl) == (12, 16, 16, 37, 16)
    assert g.l3 is None
    assert "SM6_TITANX" in g.source


def test_ciao18_tables():
    g = preset("ciao18")
    assert (g.n_sm, g.max_threads_per_sm, g.max_warps_per_sm) == (15, 1536, 48)
    l1 = g.l1
    assert (l1.size, l1.line_size, l1.assoc, l1.sets) == (16 * KB, 128, 4, 32)
    # Table I's "global write-through" is GPGPU-Sim's policy "L": a global store hit evicts the line.
    assert (l1.write, l1.replacement, l1.latency, l1.index) == ("write-evict", "lru", 1, "xor")
    assert (g.shared_mem_bytes, g.shared_mem_banks) == (48 * KB, 32)
    l2 = g.l2
    assert (l2.size, l2.line_size, l2.assoc) == (768 * KB, 128, 8)
    assert (l2.write, l2.allocate, l2.replacement) == ("write-back", "on-miss", "lru")
    # ciao18 Section V.A: XOR set-index hashing in the L1 and the L2. The L1 is one 32-set slice;
    # the 768-set L2 is XOR-indexed per slice, GPGPU-Sim's 12 sub-partitions of 64 sets.
    assert (l1.index, l1.index_slices) == ("xor", 1)
    assert (l2.sets, l2.index, l2.slices, l2.index_slices) == (768, "xor", 12, 12)
    # GTX 480: 6 channels x 2 sub-partitions; L1D 32 MSHRs x 8 merges, miss queue 8.
    assert (g.l2_partitions, g.dram_channels) == (12, 6) and l2.index_slices == g.l2_partitions
    assert (l1.mshrs, l1.mshr_merges, l1.miss_queue) == (32, 8, 8)
    assert (g.dram_t_cl, g.dram_t_rcd, g.dram_t_ras) == (12, 12, 28)
    assert l2.sets // l2.index_slices == 64
    assert l2.size // l2.index_slices == 64 * KB
    assert g.policy_params == {"ciao": {"vta_ways": 8, "vta_sets": 48, "vta_replacement": "fifo"}}
    assert g.scheduler == "gto"
    assert "ciao18 Table I" in g.source


def test_rdgc_baseline():
    g = preset("rdgc")
    assert g.n_sm == 8
    l1 = g.l1
    assert (l1.size, l1.assoc, l1.line_size) == (32 * KB, 4, 128)
    assert (l1.banks, l1.ports, l1.mshrs, l1.mshr_merges) == (1, 2, 32, 8)
    assert (l1.index, l1.replacement, l1.write) == ("prime", "lru", "write-evict")
    l2 = g.l2
    assert (l2.size, l2.assoc, l2.line_size) == (1024 * KB, 8, 128)
    assert (g.l2_partitions, l2.banks) == (4, 2)
    assert l2.size // (g.l2_partitions * l2.banks) == 128 * KB  # two 128 KB banks per partition
    assert (l2.index, l2.replacement) == ("prime", "lru")
    assert g.cta_scheduler == "round-robin"
    assert "rdgc" in g.source


def test_preset_is_a_copy():
    g = preset("ciao18")
    g.policy_params["ciao"]["vta_ways"] = 99
    assert PRESETS["ciao18"].policy_params["ciao"]["vta_ways"] == 8
    assert preset("ciao18") == PRESETS["ciao18"]


def test_preset_unknown():
    with pytest.raises(InputError, match=r"^unknown preset 'tian16' .*did you mean tian15\?$"):
        preset("tian16")


# --- loader: valid files ---------------------------------------------------------------------

def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


FULL_TOML = """\
name = "small"
n_sm = 2
scheduler = "gto"
core_clock_mhz = 700          # an int for a float field is fine

[l1]
size = 4096
assoc = 4
line_size = 32

[l2]
size = 65536
assoc = 8
line_size = 64
write = "write-back"
"""


def test_load_toml_without_base(tmp_path):
    g = load_config(write(tmp_path, "small.toml", FULL_TOML))
    assert g == GPUConfig(
        name="small", n_sm=2, scheduler="gto", core_clock_mhz=700.0,
        source=str(tmp_path / "small.toml"),
        l1=CacheConfig(size=4096, assoc=4, line_size=32),
        l2=CacheConfig(size=65536, assoc=8, line_size=64, write="write-back"),
    )
    assert isinstance(g.core_clock_mhz, float)


def test_load_json_without_base(tmp_path):
    data = {"n_sm": 2, "scheduler": "gto", "core_clock_mhz": 700,
            "l1": {"size": 4096, "assoc": 4, "line_size": 32},
            "l2": {"size": 65536, "assoc": 8, "line_size": 64, "write": "write-back"}}
    g = load_config(write(tmp_path, "small.json", json.dumps(data, indent=2)))
    assert g.name == "small"  # the file's stem
    assert g == load_config(write(tmp_path, "small.toml", FULL_TOML)).replace(
        source=str(tmp_path / "small.json"))


def test_load_base_override(tmp_path):
    g = load_config(write(tmp_path, "big.toml", 'base = "tian15"\nn_sm = 16\n[l1]\nsize = 32768\n'))
    t = preset("tian15")
    assert g.name == "big"
    assert g.n_sm == 16
    assert g.l1 == t.l1.replace(size=32 * KB)
    assert g.l1.assoc == 8 and g.l1.replacement == "plru"  # kept from the base
    assert (g.l2, g.l3, g.scheduler) == (t.l2, t.l3, t.scheduler)
    assert "based on tian15" in g.source


def test_load_base_remove_l3(tmp_path):
    assert load_config(write(tmp_path, "a.toml", 'base = "tian15"\nl3 = false\n')).l3 is None
    assert load_config(write(tmp_path, "a.json", '{"base": "tian15", "l3": null}')).l3 is None


def test_load_base_add_l3(tmp_path):
    g = load_config(write(tmp_path, "a.toml",
                          'base = "kim20"\n[l3]\nsize = 4194304\nassoc = 16\nline_size = 128\n'))
    assert g.l3 == CacheConfig(size=4 * MB, assoc=16, line_size=128)


def test_load_policy_params_merge(tmp_path):
    g = load_config(write(tmp_path, "c.toml", 'base = "ciao18"\n'
                                              '[policy_params.ciao]\nvta_ways = 16\n'
                                              '[policy_params.drp]\nwss_sets = 64\n'))
    assert g.policy_params == {"ciao": {"vta_ways": 16, "vta_sets": 48, "vta_replacement": "fifo"},
                               "drp": {"wss_sets": 64}}


def test_load_inline_and_dotted_keys(tmp_path):
    g = load_config(write(tmp_path, "d.toml",
                          "n_sm = 4\n"
                          "l1 = { size = 16384, assoc = 4, line_size = 128 }\n"
                          "l2.size = 65536\nl2.assoc = 8\nl2.line_size = 128\n"))
    assert g.l1 == CacheConfig(size=16 * KB, assoc=4, line_size=128)
    assert g.l2 == CacheConfig(size=64 * KB, assoc=8, line_size=128)


@pytest.mark.parametrize("name", list(PRESETS))
def test_dump_toml_round_trip(tmp_path, name):
    g = load_config(write(tmp_path, f"{name}.toml", dump_toml(preset(name))))
    assert g == preset(name)


def test_load_slices(tmp_path):
    # 0 chooses the slices: 768 = 3 x 256 sets (lines spread by line number: the GTX 480's
    # decoder needs 2 slices per channel).
    g = load_config(write(tmp_path, "x.toml", 'base = "ciao18"\n[l2]\nslices = 0\nslice_map = "mod"\n'))
    assert (g.l2.slices, g.l2.index_slices) == (0, 3)
    assert g.l1 == preset("ciao18").l1


def test_load_preset_by_name():
    assert load_config("rdgc") == PRESETS["rdgc"]


def test_config_from_dict():
    g = config_from_dict({"base": "rdgc", "l1": {"ports": 1}})
    assert g.l1.ports == 1 and g.l1.banks == 1 and g.n_sm == 8


# --- loader: every mistake is one line naming file, line and field ---------------------------

@pytest.mark.parametrize("text, message", [
    ('base = "tian15"\nname = "t"\n\n[l1]\nsize = 32768\n\nassoc = 0\n',
     "{f}:7: l1.assoc: must be a positive integer, not 0"),
    ('base = "tian15"\n[l2]\nassoc = "eight"\n',
     "{f}:3: l2.assoc: must be an integer, not 'eight'"),
    ('base = "tian15"\n[l2]\nassoc = true\n',
     "{f}:3: l2.assoc: must be an integer, not True"),
    ('base = "tian15"\ncore_clock_mhz = "fast"\n',
     "{f}:2: core_clock_mhz: must be a number, not 'fast'"),
    ('base = "tian15"\nscheduler = 3\n',
     "{f}:2: scheduler: must be a string, not 3"),
    ('base = "tian15"\n\n[l1]\nasoc = 4\n',
     "{f}:4: l1.asoc: unknown field; did you mean assoc?"),
    ('base = "tian15"\nnsm = 4\n',
     "{f}:2: nsm: unknown field; did you mean n_sm?"),
    ('base = "tian15"\n# comment\nzzz = 4\n',
     "{f}:3: zzz: unknown field (fields: "),
    ('base = "tian17"\n',
     "{f}:1: base: must be one of tian15, kim20, ciao18, rdgc, not 'tian17'"),
    ('scheduler = "gto"\n[l1]\nsize = 4096\nassoc = 4\nline_size = 32\n',
     "{f}: n_sm: missing (give it, or start from a preset"),  # no line holds it
    ('base = "kim20"\n[l3]\nsize = 4194304\nassoc = 16\n',
     "{f}:2: l3.line_size: missing (a new cache level needs size, assoc, line_size)"),
    # A value the schema rejects for a field the file does not set: the table's line.
    ('base = "tian15"\n[l1]\nsize = 24576\nassoc = 6\n',
     "{f}:2: l1.replacement: tree pseudo-LRU needs power-of-2 ways, not 6"),
    ('base = "tian15"\nn_sm = 4\nscheduler = "fifo"\n',
     "{f}:3: scheduler: must be one of lrr, gto, oldest, two-level, not 'fifo'"),
    ('base = "ciao18"\nstalled_release = "first"\n',
     "{f}:2: stalled_release: must be one of all, last, not 'first'"),
    ('base = "tian15"\nl1 = { size = 16384, line_size = 48 }\n',
     "{f}:2: l1.line_size: must be a power of 2 of at least 4 bytes, not 48"),
    ('base = "tian15"\n[l1]\nsize = 1000\n',
     "{f}:3: l1.size: 1000 bytes is not a whole number of sets of 8 x 64-byte lines"),
    ('base = "ciao18"\n[l2]\nslices = 5\n',
     "{f}:3: l2.slices: must divide the 768 sets into power-of-2 slices, not 5"),
    # ciao18's 12 slices do not divide the 1024 sets of a 6-way L2 (slices is inherited).
    ('base = "ciao18"\n[l2]\nassoc = 6\n',
     "{f}:2: l2.slices: must divide the 1024 sets into power-of-2 slices, not 12"),
    ('base = "ciao18"\n[l2]\nslices = -1\n',
     "{f}:3: l2.slices: must be a non-negative integer, not -1"),
    ('base = "tian15"\nl1 = 5\n',
     "{f}:2: l1: must be a table, not 5"),
    ('n_sm = 2\n[policy_params]\nciao = 8\n',
     "{f}:3: policy_params.ciao: must be a table, not 8"),
    ('n_sm = 4\n[l1\n',
     "{f}:2: invalid TOML: Expected ']' at the end of a table declaration (column 4)"),
    ('n_sm = 4\nl1 = [1,\n',
     "{f}:3: invalid TOML: "),
])
def test_toml_errors(tmp_path, text, message):
    f = write(tmp_path, "my.toml", text)
    with pytest.raises(InputError) as e:
        load_config(f)
    msg = str(e.value)
    assert msg.startswith(message.format(f=f)), msg
    assert "\n" not in msg


@pytest.mark.parametrize("text, message", [
    ('{\n  "base": "kim20",\n  "l2": {"size": 1048576,\n         "assok": 4},\n  "n_sm": 2\n}\n',
     "{f}:4: l2.assok: unknown field; did you mean assoc?"),
    ('{\n  "base": "kim20",\n  "l1": {\n    "size": 24576,\n    "assoc": 0\n  }\n}\n',
     "{f}:5: l1.assoc: must be a positive integer, not 0"),
    # The same key name in another table is not taken for this one.
    ('{"base": "tian15",\n "l2": {"assoc": 16},\n "l1": {\n  "assoc": -1}}\n',
     "{f}:4: l1.assoc: must be a positive integer, not -1"),
    ('{\n  "base": "tian15",\n  "n_sm": 4,\n}\n',
     "{f}:4: invalid JSON: Expecting property name enclosed in double quotes (column 1)"),
    ('[1, 2]\n', "{f}:1: the config must be a JSON object, not a list"),
    ('{"base": "tian15", "l1": [16384]}', "{f}:1: l1: must be an object, not a list"),
])
def test_json_errors(tmp_path, text, message):
    f = write(tmp_path, "my.json", text)
    with pytest.raises(InputError) as e:
        load_config(f)
    assert str(e.value) == message.format(f=f)


def test_toml_same_key_in_other_table(tmp_path):
    f = write(tmp_path, "t.toml",
              'base = "tian15"\n[l2]\nassoc = 16\n[l1]\nline_size = 64\nassoc = 0\n')
    with pytest.raises(InputError, match=r":6: l1\.assoc: must be a positive integer, not 0$"):
        load_config(f)


def test_spec_errors(tmp_path):
    with pytest.raises(InputError, match=r"^unknown config 'tian16': neither a preset .* did you "
                                         r"mean tian15\?$"):
        load_config("tian16")
    with pytest.raises(InputError, match=r"^nothere\.toml: no such config file$"):
        load_config("nothere.toml")
    with pytest.raises(InputError, match=r"\.yaml: a config file must end in \.toml or \.json$"):
        load_config(write(tmp_path, "c.yaml", "n_sm: 4\n"))


def test_loader_checks_every_schema_field():
    # The loader's type table comes from the dataclasses: a new schema field needs no loader change.
    from golden.configs import loader

    assert set(loader._CACHE_FIELDS) == {f.name for f in dataclasses.fields(CacheConfig)}
    gpu_fields = {f.name for f in dataclasses.fields(GPUConfig)}
    assert set(loader._GPU_FIELDS) | {"l1", "l2", "l3"} == gpu_fields
