"""benchmarks/count_instructions.py: cachegrind's totals read, the build run subtracted, the loop's counts."""

from __future__ import annotations

import argparse
import json

import pytest

from tests.benchmark_module import load_benchmark

bench = load_benchmark("count_instructions")

# A cachegrind output file's last lines (the events in cachegrind's order).
HEAD = ("desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: python x.py\n"
        "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n")


def _write(path, counts):
    path.write_text(HEAD + "fl=???\nfn=???\n0 1 2 3\nsummary: " + " ".join(map(str, counts)) + "\n")
    return str(path)


def test_summary_reads_the_totals_in_event_order(tmp_path):
    got = bench.summary(_write(tmp_path / "cg.out", [900, 8, 1, 400, 30, 5, 200, 20, 4]))
    assert got == {"Ir": 900, "I1mr": 8, "ILmr": 1, "Dr": 400, "D1mr": 30, "DLmr": 5, "Dw": 200, "D1mw": 20,
                   "DLmw": 4}


def test_a_file_without_its_summary_is_refused_by_name(tmp_path):
    path = tmp_path / "cut.out"
    path.write_text(HEAD)
    with pytest.raises(SystemExit, match="cut.out: no summary line"):
        bench.summary(str(path))


def test_the_table_is_the_simulated_run_less_the_build_per_event():
    native = {"events": 10, "sm_cycles": 20, "instructions": 5}
    whole = dict(zip(bench.EVENTS, [1900, 60, 3, 0, 130, 7, 0, 50, 2], strict=True))
    build = dict(zip(bench.EVENTS, [900, 10, 1, 0, 30, 1, 0, 20, 1], strict=True))
    rows = bench.table(native, whole, build)
    # instructions 1,000: 100 per event, 50 per SM-cycle, 200 per warp instruction.
    assert rows[1].split() == ["instructions", "1,000", "100.0", "50.0", "200.0"]
    # D1 misses (130 - 30) + (50 - 20) = 130; last level (7 - 1) + (2 - 1) + (3 - 1) = 9; I1 50.
    assert rows[2].split()[2:4] == ["130", "13.0"]
    assert rows[3].split()[2:4] == ["9", "0.9"]
    assert rows[4].split()[1:3] == ["misses", "50"]


CALLGRIND = """version: 1
positions: instr line
events: Ir
fn=(1) foo
0x1000 0 5
0x1004 0 3
calls=2 0x2000 0
0x1008 0 100
0x100c 0 1
fn=(2) bar
0x2000 0 7
0x3000 0 9
"""


def test_per_function_counts_own_instructions_and_calls(tmp_path):
    path = tmp_path / "callgrind.out"
    path.write_text(CALLGRIND)
    got = bench.per_function(str(path), [(0x1000, 16, "foo"), (0x2000, 8, "bar")])
    # foo's own 5 + 3 + 1 (the call's inclusive 100 is bar's), bar's 7 and its 2 calls; 0x3000 is no one's.
    assert got == {"foo": [9, 0], "bar": [7, 2]}
    rows = bench.function_table(got, 1)
    assert len(rows) == 2 and rows[1].split() == ["foo", "9", "56.2%", "0", "-"]


def test_the_child_prints_the_loops_counts_and_its_functions(capsys, tmp_path):
    symbols = tmp_path / "symbols.json"
    # CCWS's family after the baseline's (the warm-up's): both link the same helpers, and a second
    # family's copies must not be taken for the first's.
    args = argparse.Namespace(config="ciao18", workload="ciao18/pvc", scale=0.002, policy="ccws", child="run",
                              symbols=str(symbols))
    bench.child(args)
    got = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert got["events"] > 0 and got["sm_cycles"] >= got["gpu_cycles"] > 0
    assert got["cycles"] >= got["gpu_cycles"] and got["instructions"] > 0 and got["seconds"] > 0
    from golden.gpu import core

    assert len(core._STEPS) >= 2
    written = [tuple(row) for row in json.loads(symbols.read_text())]
    assert written == bench.run_symbols(core)  # every loop loaded: the warm-up's and the one just run
    for family in core._STEPS:
        table = bench.loop_symbols(core, family)
        names = {name for _, _, name in table}
        assert {"_loop", "_l1_send", "_l1_fill", "_pick"} <= names  # _l1_lookup is inlined into _l1_send
        # One object's code: sorted by address, each function before the next, no more than 16 bytes of
        # alignment between them.
        pairs = zip(table, table[1:], strict=False)
        assert all(a + size <= b <= a + size + 16 for (a, size, _), (b, _, _) in pairs)


def test_short_names_keep_the_wrappers_apart():
    short_name = load_benchmark("numba_symbols").short_name
    assert short_name("_ZN6golden5cache6engine6timing5_loopB3v38B62c8tJTIeFIjxE8int64") == "_loop"
    assert short_name("cfunc._ZN6golden5cache6engine6timing5_stepB3v36E") == "cfunc._step"
    assert short_name("_ZN7cpython6golden5cache6engine6timing5_stepB3v36E") == "cpython._step"
    assert short_name("NRT_decref") == "NRT_decref"
