"""``gpucache compare --suite kim20``: its bad inputs (fast), and a small run through the CLI (slow)."""

import json

import pytest

from cli.compare_kim20 import parse_vary
from cli.main import main
from golden.errors import InputError


@pytest.mark.parametrize("args, message", [
    (["--timing", "none"], "--timing"),
    (["--configs", "baseline"], "--configs"),
    (["--vary", "threshold_x=1"], "--vary"),
    (["--vary", "window=a,b"], "--vary"),
    (["--workers", "0"], "--workers"),
])
def test_bad_inputs_are_one_line_errors(args, message, capsys):
    assert main(["compare", "--suite", "kim20", "--no-progress", *args]) == 2
    assert message in capsys.readouterr().err


def test_parse_vary():
    assert parse_vary("threshold_w=0.5,0.7") == ("threshold_w", [0.5, 0.7])
    assert parse_vary("window=1000,5000") == ("window", [1000, 5000])
    with pytest.raises(InputError, match="--vary"):
        parse_vary("window")


def test_vary_needs_kim20(capsys):
    assert main(["compare", "--suite", "tian15", "--vary", "window=1", "--no-progress"]) == 2


@pytest.mark.slow
def test_small_compare_through_the_cli(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(["compare", "--suite", "kim20", "--workloads", "pf", "lud", "--scale", "0.05", "--vary",
                 "threshold_w=0.1,0.9", "--json", str(out), "--plot", str(tmp_path / "p"), "--no-progress",
                 "--workers", "2"])
    assert code == 0
    text = capsys.readouterr().out
    assert "Fig. 1" in text and "Figs. 3 and 4" in text and "Fig. 5" in text and "threshold_w=0.9" in text
    r = json.loads(out.read_text())
    assert [row["workload"] for row in r["rows"]] == ["kim20/pf", "kim20/lud"]
    assert set(r["rows"][0]["runs"]) == {"no-bypass", "l1-off", "k0.6", "k0.7", "k0.8", "k0.9", "two-level"}
    assert len(list((tmp_path / "p").glob("*.png"))) == 4
