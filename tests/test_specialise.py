"""The timing loop's specialised build (golden.gpu.specialise) against its generic build.

Each equality test compiles one specialised build (about a minute on the CI machine, cached on
disk after): the suite otherwise runs the generic build (tests/conftest.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from cli.main import main
from golden.configs.presets import preset
from golden.gpu import core, layout
from golden.gpu.run import simulate_timed
from golden.gpu.specialise import COMPILE_VARIABLE, DYNAMIC, Specialisation, compile_mode
from golden.policies.base import policy_for
from golden.workloads import registry


def _run(monkeypatch, mode: str, config: str, workload: str, scale: float, policy: str | None) -> dict:
    monkeypatch.setenv(COMPILE_VARIABLE, mode)
    gpu = preset(config)
    pol = policy_for(policy, gpu)
    if hasattr(pol, "attach_gpu"):
        pol.attach_gpu(gpu)
    r = simulate_timed(registry.build(workload, scale), gpu, pol)
    r["timing"].pop("seconds", None)
    return r


@pytest.mark.parametrize(("config", "workload", "scale", "policy"), [
    ("ciao18", "ciao18/atax", 0.05, "ciao-c"),  # policy hooks bound as globals, shared-memory cache
    ("kim20", "rdgc/2dconv", 0.05, None),  # the baseline family, sectored L1, two schedulers
])
def test_the_specialised_build_gives_the_generic_build_s_bits(monkeypatch, config, workload, scale, policy):
    generic = _run(monkeypatch, "generic", config, workload, scale, policy)
    before = set(core._STEPS)
    special = _run(monkeypatch, "specialised", config, workload, scale, policy)
    assert set(core._STEPS) - before, "no specialised build was compiled"
    assert generic["timing"]["cycles"] > 0
    assert special == generic


def test_a_specialised_build_reads_the_per_kernel_words_and_folds_the_rest():
    k = np.arange(len(layout.CONFIG), dtype=np.int64) + 100
    header = np.arange(3 * core.NP, dtype=np.int64)
    s = Specialisation(k, header, core._CONFIG_NAMES)
    folded = {layout.CONFIG[core._CONFIG_NAMES[n]] for n in s.words}
    assert folded == set(layout.CONFIG) - DYNAMIC
    assert s.words["K_L1_LAT"] == 100 + layout.CONFIG.index("l1_latency")
    text = s.source(core._pick)
    assert "K[K_N_SCHED]" not in text and f"np.int64({s.words['K_N_SCHED']})" in text
    assert "K[K_WARP_LIMIT]" in s.source(core._limit)  # Best-SWL's limits share one build
    assert "K[K_N_CTAS]" in s.source(core._loop)
    # Line numbers are kept: numba's messages and cache entries name the source's lines.
    assert text.index("def _pick") == text.count("\n", 0, text.index("def _pick")) \
        == core._pick.__code__.co_firstlineno - 1
    other = Specialisation(k + (np.arange(len(k)) == layout.CONFIG.index("l2_latency")), header,
                           core._CONFIG_NAMES)
    assert other.digest != s.digest
    assert Specialisation(k, header + 1, core._CONFIG_NAMES).digest != s.digest
    k2 = k.copy()
    k2[layout.CONFIG.index("n_ctas")] += 1
    assert Specialisation(k2, header, core._CONFIG_NAMES).digest == s.digest


def test_the_build_is_chosen_by_the_environment(monkeypatch):
    monkeypatch.delenv(COMPILE_VARIABLE, raising=False)
    assert compile_mode() == "specialised"
    monkeypatch.setenv(COMPILE_VARIABLE, "generic")
    assert compile_mode() == "generic"


def test_a_bad_build_name_is_a_one_line_error(monkeypatch, capsys):
    monkeypatch.setenv(COMPILE_VARIABLE, "fast")
    assert main(["run", "--workload", "ciao18/atax", "--scale", "0.01", "--config", "ciao18",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "GPUCACHE_COMPILE: must be one of specialised, generic, not 'fast'" in err


def test_the_compile_option_sets_the_environment(monkeypatch, capsys):
    monkeypatch.setenv(COMPILE_VARIABLE, "fast")
    assert main(["--compile", "generic", "run", "--workload", "ciao18/atax", "--scale", "0.01",
                 "--config", "ciao18", "--no-progress"]) == 0
    assert compile_mode() == "generic"
