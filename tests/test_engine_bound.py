"""The functional engine's bound families (golden.cache.engine._family): a policy's hooks bound as
globals, so that an untimed policy run loads its compiled loop from the disk cache."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from golden.cache import engine
from golden.cache.engine import MAX_LEVELS, _family
from golden.cache.hierarchy import Hierarchy, as_access_rows
from golden.configs.loader import load_config
from golden.driver import simulate
from golden.policies import get_policy
from golden.trace.coalesce import ACCESS_DTYPE
from golden.workloads import registry

ROOT = Path(__file__).resolve().parents[1]


def _hooks(h: Hierarchy) -> list:
    return h.engine_hooks() + [None] * (MAX_LEVELS - len(h.engine_hooks()))


def _stream(n: int = 6000, seed: int = 3) -> np.ndarray:
    """Loads and stores over a few hundred lines from 15 SMs and 8 PCs: hits, misses and evictions."""
    rng = np.random.default_rng(seed)
    rows = np.zeros(n, dtype=ACCESS_DTYPE)
    rows["sm"] = rng.integers(0, 15, n)
    rows["line"] = rng.integers(0, 600, n)
    rows["pc"] = rng.integers(0, 8, n) * 8
    rows["op"] = np.where(rng.random(n) < 0.2, engine.STORE, engine.LOAD)
    rows["sectors"] = 0xF
    rows["cycle"] = np.arange(n)
    return rows


def test_a_golden_policy_gets_a_bound_family_that_equals_the_in_memory_one():
    gpu = load_config("ciao18")
    rows = _stream()
    bound_h, hooked_h = Hierarchy(gpu, get_policy("pc-bypass")), Hierarchy(gpu, get_policy("pc-bypass"))
    family, args = _family(_hooks(bound_h))
    assert family is not engine._HOOKED and family is not engine._CACHED
    assert all(a is None or (isinstance(a, tuple) and len(a) == 1) for a in args)  # each level's (state,)
    out_bound = bound_h.run(rows, outcomes=True)
    out_hooked = np.empty(rows.size, np.uint8)
    h = _hooks(hooked_h)
    engine._HOOKED.run(hooked_h.engine.buf, h[0], h[1], h[2], as_access_rows(rows), np.int64(0), out_hooked)
    assert np.array_equal(out_bound, out_hooked)
    assert (out_bound & engine.BYPASSED).any() and (out_bound == 1).any()  # the policy acted; hits
    assert np.array_equal(bound_h.engine.buf, hooked_h.engine.buf)  # every level's tags and counters
    for a, b in zip(bound_h.hooks.values(), hooked_h.hooks.values(), strict=True):
        for x, y in zip(a.state, b.state, strict=True):
            assert np.array_equal(np.asarray(x), np.asarray(y))  # the policy's own state


def test_hooks_that_cannot_be_named_keep_the_in_memory_family_and_baseline_hooks_the_cached_one():
    gpu = load_config("ciao18")
    assert _family(_hooks(Hierarchy(gpu, get_policy("drp16-wss"))))[0] is engine._HOOKED  # made by exec
    family, args = _family(_hooks(Hierarchy(gpu, get_policy("drp16-drp"))))  # GPU levels: baseline hooks
    assert family is engine._CACHED and args == [None] * MAX_LEVELS


_CHILD = """
import hashlib, json, sys
from golden.cache import engine
from golden.configs.loader import load_config
from golden.driver import simulate
from golden.policies import get_policy
from golden.workloads import registry
gpu = load_config("tian15")
r = simulate(registry.build("tian15/matrixmul", 0.1), gpu, get_policy("pc-bypass"))
(family,) = engine._BOUND.values()
digest = hashlib.sha256(json.dumps(r, sort_keys=True, default=str).encode()).hexdigest()
print(json.dumps({"result": digest, "loaded": sum(family.run.stats.cache_hits.values())}))
"""


def test_a_fresh_process_loads_the_bound_family_from_disk_and_gets_the_same_result(tmp_path):
    # Compiled in one process and loaded in the next: a loop whose callee is only referenced, not
    # linked, calls address 0 when loaded (the first level is inlined for that reason).
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=str(ROOT))
    runs = []
    for _ in range(2):
        p = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, cwd=ROOT)
        assert p.returncode == 0, p.stderr[-2000:]
        runs.append(json.loads(p.stdout.strip().splitlines()[-1]))
    assert runs[0]["loaded"] == 0 and runs[1]["loaded"] == 1
    assert runs[0]["result"] == runs[1]["result"]
    here = simulate(registry.build("tian15/matrixmul", 0.1), load_config("tian15"), get_policy("pc-bypass"))
    assert hashlib.sha256(json.dumps(here, sort_keys=True, default=str).encode()).hexdigest() \
        == runs[0]["result"]
    stats = here["policy_stats"]  # the hooks ran: a table lookup per L1 access, the counters trained
    assert stats["table_lookups"] == here["caches"]["l1"]["accesses"] > 0 and stats["table_increments"] > 0
