"""benchmarks/ciao18_spread.py: ratios and geomeans of several ciao18 comparisons, and their spread."""

from __future__ import annotations

import json
import math

import pytest

from tests.benchmark_module import load_benchmark

spread = load_benchmark("ciao18_spread")
POLICIES = ("ccws", "best-swl", "statpcal", "ciao-t", "ciao-p", "ciao-c")


def _comparison(scale: float, norms: dict[str, tuple[str, float]]) -> dict:
    """A comparison file: per benchmark its class and one ratio for every scheduler."""
    rows = [{"workload": f"ciao18/{name}", "class": cls, "norm": {"gto": 1.0, **{s: v for s in POLICIES}}}
            for name, (cls, v) in norms.items()]
    return {"scale": scale, "rows": rows}


def _write(tmp_path, name: str, d: dict) -> str:
    p = tmp_path / name
    p.write_text(json.dumps(d))
    return str(p)


def test_per_benchmark_spread_and_geomeans(tmp_path):
    a = _write(tmp_path, "a.json", _comparison(0.25, {"atax": ("LWS", 2.0), "syrk": ("SWS", 1.0)}))
    b = _write(tmp_path, "b.json", _comparison(0.25, {"atax": ("LWS", 2.5), "syrk": ("SWS", 1.0)}))
    runs = spread.load([a, b])
    rows = {(r["workload"], r["scheduler"]): r for r in spread.benchmark_spreads(runs)}
    atax = rows[("ciao18/atax", "ciao-c")]
    assert atax["ratios"] == [2.0, 2.5] and atax["mean"] == 2.25
    assert atax["spread"] == pytest.approx(0.25)
    assert rows[("ciao18/syrk", "ccws")]["spread"] == 0.0
    geo = spread.geomean_spreads(runs)
    # over all: sqrt(2 * 1) and sqrt(2.5 * 1)
    assert geo["all"]["ciao-t"]["values"] == pytest.approx([math.sqrt(2.0), math.sqrt(2.5)])
    assert geo["all"]["ciao-t"]["spread"] == pytest.approx(math.sqrt(2.5 / 2.0) - 1)
    assert geo["LWS"]["ccws"]["low"] == 2.0 and geo["LWS"]["ccws"]["high"] == 2.5
    lines = spread.report(runs, ["a", "b"], list(rows.values()), geo, 0.05)
    listed = [ln for ln in lines if ln.startswith("atax") or ln.startswith("syrk")]
    assert len(listed) == 6 and all(ln.startswith("atax") for ln in listed)  # syrk's 0% is left out
    assert any(ln.startswith("Fig. 8") for ln in lines)


def test_the_script_writes_its_json(tmp_path):
    a = _write(tmp_path, "a.json", _comparison(1.0, {"atax": ("LWS", 2.0)}))
    b = _write(tmp_path, "b.json", _comparison(1.0, {"atax": ("LWS", 1.6)}))
    out = tmp_path / "out.json"
    assert spread.main([a, b, "--labels", "119", "121", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["labels"] == ["119", "121"] and d["geomeans"]["all"]["ciao-c"]["spread"] == pytest.approx(0.25)


def test_comparisons_that_do_not_match_are_refused_naming_the_file(tmp_path, capsys):
    a = _write(tmp_path, "a.json", _comparison(0.25, {"atax": ("LWS", 2.0)}))
    b = _write(tmp_path, "b.json", _comparison(1.0, {"atax": ("LWS", 2.0)}))
    c = _write(tmp_path, "c.json", _comparison(0.25, {"bicg": ("LWS", 2.0)}))
    d = _write(tmp_path, "d.json", {"runs": []})
    e = _write(tmp_path, "e.json", {"scale": 0.25, "rows": [{"workload": "ciao18/atax", "class": "LWS"}]})
    for other, message in ((b, "b.json: scale 1.0"), (c, "c.json: other benchmarks"),
                           (d, "d.json: field 'scale' missing"),
                           (e, "e.json: rows[0] is not a benchmark's row")):
        assert spread.main([a, other]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and "\n" not in err
    assert spread.main([a]) == 2
    assert spread.main([a, a, "--labels", "x"]) == 2
