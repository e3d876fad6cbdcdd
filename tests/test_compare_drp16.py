"""``gpucache compare --suite drp16``: a small run through the CLI, its bad inputs, the cached driver loop."""

import json

import numba as nb
import numpy as np
import pytest

from cli.main import main
from golden.experiments.drp16 import BASELINE, caches, config_average, drp16_policies
from golden.llc import loops
from golden.llc.mixes import build_mix
from golden.llc.model import LLC_TRACE_DTYPE, LLCModel
from golden.policies import Policy, get_policy, make_hooks


def test_every_registered_drp16_policy_is_compared_baseline_first():
    names = drp16_policies()
    assert names[0] == BASELINE
    assert {"drp16-ship-hybrid", "drp16-opt", "drp16-opt-bypass", "drp16-baseline-bypass", "drp16-helm",
            "drp16-drp", "drp16-drp-rm", "drp16-drp-rm-rh"} <= set(names)
    assert "drp16-wss" not in names  # a wrapper: the Baseline's misses, recording the WSS unit


@pytest.mark.parametrize("name", ["drp16-helm", "drp16-drp", "drp16-drp-rm"])
def test_drp_and_helm_get_the_disk_cached_loop(name):
    m = LLCModel(1, get_policy(name), llc=caches(1 / 16)[0])
    assert loops.cached_loop(m.hooks) is not None


def test_small_compare_through_the_cli(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(["compare", "--suite", "drp16", "--cores", "1", "--mixes", "S18", "--policies",
                 "drp16-baseline", "drp16-ship-hybrid", "drp16-opt", "--json", str(out), "--plot",
                 str(tmp_path / "p"), "--no-progress"])
    assert code == 0
    text = capsys.readouterr().out
    assert "1C1G: LLC read misses / Baseline (SRRIP)" in text and "STAND-INS" in text
    r = json.loads(out.read_text())
    row = r["configs"]["1"]["rows"][0]
    assert row["mix"] == "S18" and row["gpu"] == "reduction" and row["cpu"] == ["libquantum"]
    pol = row["policies"]
    assert pol[BASELINE]["norm"] == 1.0
    # The parts add up, and OPT (offline, on the Baseline's recorded LLC trace) is a lower bound here.
    for p in pol.values():
        assert p["cpu"] + p["gpu"] == p["read_misses"]
        assert abs(p["norm_cpu"] + p["norm_gpu"] - p["norm"]) < 1e-12
    assert pol["drp16-opt"]["read_misses"] <= min(p["read_misses"] for p in pol.values())
    assert pol["drp16-opt"]["llc_accesses"] == pol[BASELINE]["llc_accesses"]
    assert r["paper"]["drp16-opt"][0] == [0.62, 0.66, 0.70]
    assert sorted(x.name for x in (tmp_path / "p").iterdir()) == [
        "fig14_read_misses.png", "fig2_read_misses.png", "mixes_1c1g.png"]
    assert config_average(r["configs"]["1"]["rows"])["drp16-opt"]["norm"] == pol["drp16-opt"]["norm"]


@pytest.mark.parametrize(("args", "message"), [
    (["--mixes", "S19"], "unknown mix 'S19'"),
    (["--cores", "3"], "--cores: drp16's configurations have 1, 2 or 4 CPU cores, not 3"),
    (["--scale", "0.03"], "too few for drp16's dueling groups"),
    (["--policies", "drp16-lru"], "--policies: 'drp16-lru' is not a drp16 policy"),
    (["--timing", "cycle"], "--timing: the drp16 suite runs the LLC model, which has no timing"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    assert main(["compare", "--suite", "drp16", "--no-progress", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_llc_too_small_for_the_dueling_groups_is_an_input_error(capsys):
    llc = caches(1 / 32)[0]  # 512 sets
    with pytest.raises(Exception, match="too few for 1 duel"):
        LLCModel(1, get_policy(BASELINE), llc=llc)


@pytest.mark.slow  # the generic loop compiles in the process (about 30 s CPU)
@pytest.mark.parametrize("name", ["drp16-ship-hybrid", "drp16-helm", "drp16-drp"])
def test_the_cached_loop_equals_the_generic_loop(monkeypatch, name):
    llc, l1, l2 = caches(1 / 16)
    trace = build_mix("D18", 1 / 16)[:60_000]
    stats = []
    for cached in (True, False):
        if not cached:
            monkeypatch.setattr(loops, "cached_loop", lambda hooks: None)
        p = get_policy(name)
        m = LLCModel(2, p, llc=llc, l1=l1, l2=l2)
        rec = m.run(trace, record=True)
        stats.append((m.stats(), rec, p.stats()))
    assert stats[0][0] == stats[1][0] and np.array_equal(stats[0][1], stats[1][1])
    assert stats[0][2] == stats[1][2]


@nb.njit(cache=True)
def _allocating_on_hit(ps, a):
    scratch = np.zeros(2, np.int64)  # needs numba's runtime
    scratch[0] = a.line
    ps[0][0] += scratch[0] > 0


@pytest.mark.slow  # compiles the loop twice
def test_hooks_that_allocate_run_with_reference_counting():
    class Allocating(Policy):
        name = "test-allocating"

        def level_hooks(self, level, cfg, n_caches):
            self.hits = np.zeros(1, np.int64)
            return make_hooks((self.hits,), on_hit=_allocating_on_hit)

    p = Allocating()
    m = LLCModel(0, p, private=False)
    t = np.zeros(4, LLC_TRACE_DTYPE)
    t["stream"], t["op"], t["line"] = 6, 1, [5, 5, 6, 5]
    m.run(t)
    assert p.hits[0] == 2 and m.stats()["read_misses"] == 2
