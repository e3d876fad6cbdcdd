"""The results store reads a point's file when the point is first asked for, once, and checks it then."""

from __future__ import annotations

import gc
import json

import numpy as np

import golden.experiments.sweep.store as store_module
from golden.experiments.sweep.store import ResultsStore
from golden.gc_paused import gc_paused


def _record(key: str, n: int = 3) -> dict:
    return {"key": key, "params": {"i": n}, "metrics": {"series": {"rows": np.arange(n * 2).reshape(n, 2)}}}


def _counting_loads(monkeypatch) -> list:
    """Count the store's file reads."""
    reads: list = []
    real = store_module._load

    def load(f):
        reads.append(f.stem)
        return real(f)

    monkeypatch.setattr(store_module, "_load", load)
    return reads


def test_a_stored_record_is_read_once_when_asked_for_and_damage_is_found_then(tmp_path, monkeypatch):
    first = ResultsStore(tmp_path / "s")
    for key in ("aaa", "bbb", "ccc"):
        first.put(_record(key))
    (tmp_path / "s" / "points" / "bbb.json").write_text('{"key": "bbb", "params"')  # truncated
    (tmp_path / "s" / "points" / "ddd.json").write_text(json.dumps({"key": "ddd"}))  # JSON, not a record
    reads = _counting_loads(monkeypatch)
    store = ResultsStore(tmp_path / "s")
    assert reads == []  # nothing read at open
    got = store.find("aaa")
    assert got["metrics"]["series"]["rows"] == [[0, 1], [2, 3], [4, 5]] and reads == ["aaa"]
    assert store.done("aaa") and reads == ["aaa"]  # checked already: not read again
    assert store.find("bbb") is None and not store.done("bbb") and reads == ["aaa", "bbb"]
    assert store.find("zzz") is None and not store.done("zzz") and reads == ["aaa", "bbb"]  # no file
    # The damaged list checks the files not checked yet, and names each damaged one.
    assert store.damaged == ["bbb.json", "ddd.json"] and sorted(reads) == ["aaa", "bbb", "ccc", "ddd"]
    store.put(_record("bbb"))  # filed again: done, no longer damaged
    assert store.done("bbb") and store.damaged == ["ddd.json"]


def test_a_file_removed_after_open_is_not_done_and_not_damaged(tmp_path):
    store = ResultsStore(tmp_path / "s")
    store.put(_record("aaa"))
    reopened = ResultsStore(tmp_path / "s")
    (tmp_path / "s" / "points" / "aaa.json").unlink()
    assert reopened.find("aaa") is None and not reopened.done("aaa") and reopened.damaged == []


def test_gc_paused_restores_the_collector_as_it_found_it():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves its caller's pause on
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # paused by the caller before: stays paused
    finally:
        gc.enable()
