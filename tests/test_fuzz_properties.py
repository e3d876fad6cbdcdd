"""Property tests of every loader: a damaged file gives success or an InputError, nothing else.

Random mutations of valid files (bytes flipped, inserted, deleted, duplicated,
numbers replaced by boundary values) and random field values written into
valid structures. An input that loads must also run (a small machine, the
interleaver and the cache hierarchy) and a config must write out and load
back unchanged. Examples are bounded (150, or ``GPUCACHE_FUZZ_EXAMPLES``) and
derandomized (a fixed seed), so each test takes a few seconds;
``tests/fuzz/run_fuzz.py`` runs the same targets for millions of inputs.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from golden.configs.loader import config_from_dict, dump_toml
from golden.errors import InputError
from golden.trace.io import load_workload, save_workload
from tests.fuzz import targets

#: Examples per test: 150 in the normal suite; GPUCACHE_FUZZ_EXAMPLES=5000 for a longer look.
EXAMPLES = int(os.environ.get("GPUCACHE_FUZZ_EXAMPLES", "150"))
#: The deadline catches hangs, not compiles: a config's first use of a policy family the warm-up
#: did not compile (another hierarchy shape) took 21.5 s on the loaded 2-core machine (2026-11-25).
SETTINGS = settings(max_examples=EXAMPLES, deadline=timedelta(seconds=60), derandomize=True,
                    suppress_health_check=list(HealthCheck))

#: Values that sit on the edges of the fields' ranges.
INTERESTING = [0, 1, -1, 2, 3, 31, 32, 33, 48, 64, 127, 128, 255, 256, 1023, 1024, 1025, 65535, 65536,
               2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**57, 2**62, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 10**30]


@pytest.fixture(scope="module", autouse=True)
def warm():
    # Compile the engine, interleaver and scanner once, outside the deadline.
    for name in targets.TARGETS:
        for s in targets.seeds(name):
            assert targets.run_target(name, s)


@st.composite
def mutated(draw, seeds: list[bytes]) -> bytes:
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["flip", "set", "insert", "delete", "dup", "number"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "flip" and data:
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set" and data:
            data[pos] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "delete":
            del data[pos:pos + draw(st.integers(1, 64))]
        elif kind == "dup":
            n = draw(st.integers(1, 256))
            data[pos:pos] = data[pos:pos + n]
        elif kind == "number":
            end = pos
            while end < len(data) and chr(data[end]).isalnum():
                end += 1
            v = draw(st.sampled_from(INTERESTING))
            text = draw(st.sampled_from([str(v), hex(v), f"{v:x}"]))
            data[pos:end] = text.encode()
    return bytes(data)


def check(target: str, data: bytes) -> None:
    # run_target lets anything but an InputError propagate: that is the failure.
    targets.run_target(target, data)


@pytest.mark.parametrize("target", ["npz", "npz-members", "toml", "json", "accelsim"])
def test_mutated_files(target):
    @SETTINGS
    @given(mutated(targets.seeds(target)))
    def prop(data):
        check(target, data)

    prop()


# --- structured: random values in valid files ------------------------------------------------------

_FIELDS = ["cta", "warp", "pc", "op", "space", "width", "dx", "gap", "mask", "base", "sx", "sy", "lanes"]


@SETTINGS
@given(st.data())
def test_npz_random_field_values(tmp_path_factory, data):
    wl = targets.tiny_workload()
    k = wl.kernels[data.draw(st.integers(0, 1))]
    for _ in range(data.draw(st.integers(1, 4))):
        field = data.draw(st.sampled_from(_FIELDS + ["tail", "lane_addrs", "grid", "block"]))
        v = data.draw(st.sampled_from(INTERESTING) | st.integers(-2**64, 2**64))
        if field == "tail":
            k.tail[data.draw(st.integers(0, len(k.tail) - 1))] = v % 2**32
        elif field == "lane_addrs" and len(k.lane_addrs):
            row = data.draw(st.integers(0, len(k.lane_addrs) - 1))
            k.lane_addrs[row, data.draw(st.integers(0, 31))] = v % 2**64
        elif field in ("grid", "block"):
            dims = list(getattr(k, field))
            dims[data.draw(st.integers(0, 2))] = v
            setattr(k, field, tuple(dims))
        elif field in _FIELDS:
            info = np.iinfo(k.insts.dtype[field])
            row = data.draw(st.integers(0, len(k.insts) - 1))
            k.insts[field][row] = (v - info.min) % (info.max - info.min + 1) + info.min  # wrapped to fit
    path = tmp_path_factory.mktemp("npz") / "t.npz"
    try:
        save_workload(path, wl)
    except (OverflowError, ValueError):
        return  # the values do not fit the file format at all: nothing to load
    try:
        loaded = load_workload(path)
    except InputError:
        return
    targets._use_workload(loaded)


_CACHE_VALUES = {
    "size": st.sampled_from([1024, 4096, 16384, 32768, 98304, 1 << 20, 1 << 32, 3, 0, -5]),
    "assoc": st.sampled_from([1, 2, 3, 4, 8, 16, 24, 64, 128, 4096, 0]),
    "line_size": st.sampled_from([4, 32, 48, 64, 128, 256, 1 << 16, 0]),
    "sector_size": st.sampled_from([0, 8, 32, 64, 3]),
    "index": st.sampled_from(["mod", "xor", "prime", "smod", "bad"]),
    "smod_shift": st.integers(-1, 40), "slices": st.integers(-1, 64),
    "replacement": st.sampled_from(["lru", "plru", "fifo", "random", "lfu", 3]),
    "write": st.sampled_from(["write-through", "write-evict", "write-back", None]),
    "allocate": st.sampled_from(["on-miss", "on-fill"]),
    "tag_latency": st.sampled_from(INTERESTING), "mshrs": st.sampled_from(INTERESTING),
    "seed": st.sampled_from(INTERESTING), "banks": st.sampled_from(INTERESTING),
}
_TOP_VALUES = {
    "n_sm": st.sampled_from([1, 2, 15, 1024, 1025, 0, 2**62]), "mem_latency": st.sampled_from(INTERESTING),
    "schedulers_per_sm": st.sampled_from(INTERESTING), "max_ctas_per_sm": st.sampled_from(INTERESTING),
    "max_warps_per_sm": st.sampled_from(INTERESTING), "max_threads_per_sm": st.sampled_from(INTERESTING),
    "scheduler": st.sampled_from(["lrr", "gto", "oldest", "x"]),
    "core_clock_mhz": st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(INTERESTING),
    "name": st.text(max_size=12), "source": st.text(max_size=12),
}
_POLICY_VALUES = st.one_of(st.sampled_from(INTERESTING), st.booleans(), st.text(max_size=6),
                           st.floats(allow_nan=False, allow_infinity=False), st.none(),
                           st.lists(st.integers(), max_size=2))
_POLICY_KEYS = {"pc-bypass": ["entries", "counter_width", "threshold", "hash_bits", "pc_shift", "store_reuse",
                              "correction", "log_sm", "log_capacity", "name"],
                "counter-bypass": ["algorithm", "bypass", "replace", "hash_bits", "pc_shift", "counter_bits"],
                "ciao": ["vta_ways"], "odd key.x": ["a b"]}


@st.composite
def config_dicts(draw) -> dict:
    d: dict = {"base": draw(st.sampled_from(["tian15", "rdgc", "ciao18"]))}
    for key in draw(st.lists(st.sampled_from(sorted(_TOP_VALUES)), max_size=3, unique=True)):
        d[key] = draw(_TOP_VALUES[key])
    for level in draw(st.lists(st.sampled_from(["l1", "l2", "l3"]), max_size=2, unique=True)):
        keys = draw(st.lists(st.sampled_from(sorted(_CACHE_VALUES)), max_size=4, unique=True))
        d[level] = {k: draw(_CACHE_VALUES[k]) for k in keys}
    if draw(st.booleans()):
        pol = draw(st.sampled_from(sorted(_POLICY_KEYS)))
        keys = draw(st.lists(st.sampled_from(_POLICY_KEYS[pol]), max_size=3, unique=True))
        d["policy_params"] = {pol: {k: draw(_POLICY_VALUES) for k in keys}}
    return d


@SETTINGS
@given(config_dicts())
def test_config_random_fields(d):
    try:
        gpu = config_from_dict(d)
    except InputError:
        return
    text = dump_toml(gpu)
    assert targets.run_target("toml", text.encode())  # round trip and a run, every policy it names


@SETTINGS
@given(config_dicts())
def test_config_random_fields_json(d):
    try:
        json.dumps(d, allow_nan=False)
    except ValueError:
        return  # NaN is not JSON
    targets.run_target("json", json.dumps(d).encode())
