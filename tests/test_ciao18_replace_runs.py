"""benchmarks/ciao18_replace_runs.py: one-factor runs put into a comparison's JSON, ratios and means again."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from golden.experiments.ciao18 import SCHEDULERS, class_means
from tests.benchmark_module import BENCHMARKS, load_benchmark

_PATH = BENCHMARKS / "ciao18_replace_runs.py"
mod = load_benchmark("ciao18_replace_runs")


def _run(s: str, ipc: float) -> dict:
    return {"scheduler": s, "warp_limit": 0, "ipc": ipc, "cycles": 100, "l1_hit_rate": 0.5}


def _compare() -> dict:
    rows = []
    for name, cls, gto in (("ciao18/atax", "LWS", 2.0), ("ciao18/sm", "SWS", 4.0)):
        runs = {s: _run(s, gto) for s in SCHEDULERS}
        rows.append({"workload": name, "class": cls, "runs": runs,
                     "norm": {s: 1.0 for s in SCHEDULERS[1:]}})
    return {"scale": 1.0, "rows": rows, "class_means": class_means(rows)}


def _one_factor(*runs: tuple[str, str, float], params: dict | None = None) -> dict:
    return {"scale": 1.0, "params": params or {"active_warps": "unstalled"},
            "runs": [dict(_run(s, ipc), workload=w, series=None, cpu_seconds=1.5) for w, s, ipc in runs]}


def test_replaced_runs_give_new_ratios_and_class_means():
    out, moved = mod.replace_runs(_compare(), "c.json", [
        ("a.json", _one_factor(("ciao18/atax", "ciao-t", 3.0), ("ciao18/sm", "ciao-c", 2.0))),
        ("b.json", _one_factor(("ciao18/atax", "ciao-t", 3.0), ("ciao18/sm", "ciao-t", 4.0)))])
    atax, sm = out["rows"]
    assert atax["runs"]["ciao-t"] == _run("ciao-t", 3.0)  # the one-factor fields are dropped
    assert atax["norm"]["ciao-t"] == 1.5 and sm["norm"]["ciao-c"] == 0.5 and sm["norm"]["ciao-t"] == 1.0
    assert atax["norm"]["ciao-c"] == 1.0  # not given: kept
    assert out["class_means"]["all"]["ciao-t"] == pytest.approx(1.5 ** 0.5)
    assert out["class_means"]["SWS"]["ciao-c"] == 0.5
    assert out["replaced"] == {"params": {"active_warps": "unstalled"}, "files": ["a.json", "b.json"],
                               "runs": 3, "cpu_seconds": 6.0, "changed": 2}
    assert sorted(m[:2] for m in moved) == [("ciao18/atax", "ciao-t"), ("ciao18/sm", "ciao-c"),
                                            ("ciao18/sm", "ciao-t")]
    assert _compare()["rows"][0]["norm"]["ciao-t"] == 1.0  # the input is not changed


@pytest.mark.parametrize("files, message", [
    ([("a.json", dict(_one_factor(), scale=0.25))], "a.json: field 'scale' is 0.25, c.json's is 1.0"),
    ([("a.json", _one_factor()), ("b.json", _one_factor(params={"examine": "all"}))],
     "b.json: field 'params' is {'examine': 'all'}, the first file's is {'active_warps': 'unstalled'}"),
    ([("a.json", _one_factor(("ciao18/nw", "ciao-t", 1.0)))],
     "a.json: runs[0].workload 'ciao18/nw' is not in"),
    ([("a.json", _one_factor(("ciao18/sm", "gto", 1.0)))],
     "a.json: runs[0].scheduler 'gto' cannot be replaced"),
    ([("a.json", _one_factor(("ciao18/sm", "ciao-t", 1.0), ("ciao18/sm", "ciao-t", 2.0)))],
     "a.json: runs[1] (ciao18/sm, ciao-t) differs from an earlier file's"),
    ([("a.json", {"scale": 1.0, "params": {}, "runs": [{"workload": "ciao18/sm", "scheduler": "ciao-t"}]})],
     "a.json: runs[0] has fields ['scheduler'], c.json's runs have"),
    ([("a.json", {"scale": 1.0, "params": {}})], "a.json: field 'runs' missing or not a list"),
])
def test_a_file_that_cannot_be_merged_is_named(files, message):
    with pytest.raises(mod.BadInput, match="^" + re.escape(message)):
        mod.replace_runs(_compare(), "c.json", files)


def test_the_command_writes_the_json_or_says_why_not_in_one_line(tmp_path):
    c, r, out = tmp_path / "c.json", tmp_path / "r.json", tmp_path / "out.json"
    c.write_text(json.dumps(_compare()))
    r.write_text(json.dumps(_one_factor(("ciao18/atax", "ciao-c", 4.0))))
    ok = subprocess.run([sys.executable, str(_PATH), str(c), str(r), "--out", str(out)],
                        capture_output=True, text=True, cwd=_PATH.parents[1])
    assert ok.returncode == 0, ok.stderr
    assert "1 runs replaced (1 of them changed)" in ok.stdout
    assert "atax       ciao-c   1.000 -> 2.000" in ok.stdout
    assert json.loads(out.read_text())["rows"][0]["norm"]["ciao-c"] == 2.0
    r.write_text("{not json")
    out.unlink()
    bad = subprocess.run([sys.executable, str(_PATH), str(c), str(r), "--out", str(out)],
                         capture_output=True, text=True, cwd=_PATH.parents[1])
    assert bad.returncode == 2
    assert bad.stderr == f"{r}: line 1: not JSON (Expecting property name enclosed in double quotes)\n"
    assert not out.exists()
