"""The results store: a directory with one JSON file per finished sweep point.

Layout::

    STORE/store.json             {"format": "gpucache-sweep-store", "version": 1}
    STORE/points/<key>.json      a finished point: key, params, metrics, task, seconds, versions
    STORE/failed/<key>.json      the last failure of a point: key, params, error, traceback

Every file is written atomically (:func:`golden.files.atomic_write`: a
temporary file renamed over the final name), by the process that runs the
sweep, as each point finishes; a worker never writes to the store, so a
worker killed mid-point cannot leave anything behind, and a sweep killed
at any moment leaves only whole files. A point is done when its
``points/`` file exists and reads back with its own key; any other file
there (a stray, a file damaged by hand) is ignored, counted, and its point
runs again. A failure file never counts as done: a rerun tries the point
again and removes the file when it succeeds.

A point's file is read and checked when the point is first asked for
(:meth:`ResultsStore.done`, :meth:`~ResultsStore.find`), not when the store is
opened: a ciao18 comparison reads each of its 170 stored runs once
(:meth:`~ResultsStore.find`) instead of twice, while its workers wait.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from golden.errors import InputError
from golden.files import atomic_write
from golden.gc_paused import gc_paused

__all__ = ["ResultsStore", "STORE_FORMAT"]

#: The store's marker file content.
STORE_FORMAT = {"format": "gpucache-sweep-store", "version": 1}


def _json_default(value):
    """A numpy array or scalar of a record as JSON's list or number (a comparison holds its runs'
    time series as arrays, ``golden.experiments.ciao18_runs``)."""
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    raise TypeError(f"not JSON: {type(value).__name__}")


def _write_json(path: Path, data: dict) -> None:
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as f:
            # Key order kept (the table's columns). Compact and in one string: json.dump and an
            # indent take the pure-Python encoder, 4 s for a 70 MB record (ciao18/corr's series at
            # scale 1) against 0.8 s here, in the process that files the runs of every worker.
            with gc_paused():  # a held series becomes lists here (golden.gc_paused)
                text = json.dumps(data, allow_nan=True, default=_json_default)
            f.write(text)
            f.write("\n")

    atomic_write(path, write)


def _load(f: Path) -> dict | None:
    """The point record in file ``f``, or None if it is damaged (not UTF-8, not JSON, not a point record)."""
    try:
        with gc_paused():
            record = json.loads(f.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict) or record.get("key") != f.stem or \
            not all(isinstance(record.get(k), dict) for k in ("metrics", "params")):
        return None
    return record


class ResultsStore:
    """A sweep's results directory (see the module docstring).

    Parameters
    ----------
    path : path-like
        The directory: created when missing; an existing one must be a store or empty.

    Raises
    ------
    InputError
        ``--store PATH: ...`` when it is not a directory, cannot be read or written, is a
        non-empty directory that is not a store, or holds a store of another format.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._names: set[str] = set()  # the keys of the point files, checked or not
        self._done: set[str] = set()  # the keys of the point files checked and valid
        self._damaged: set[str] = set()  # the keys of the point files checked and damaged
        where = f"--store {os.fspath(path)}"
        marker = self.path / "store.json"
        try:
            if self.path.exists() and not self.path.is_dir():
                raise InputError(f"{where}: not a directory")
            self.path.mkdir(parents=True, exist_ok=True)
            if marker.exists():
                try:
                    found = json.loads(marker.read_text(encoding="utf-8"))
                except (ValueError, UnicodeDecodeError):
                    found = None
                if found != STORE_FORMAT:
                    raise InputError(f"{where}: store.json is not a gpucache sweep store of version "
                                     f"{STORE_FORMAT['version']}")
            elif any(self.path.iterdir()):
                raise InputError(f"{where}: a non-empty directory that is not a sweep store (no store.json)")
            else:
                _write_json(marker, STORE_FORMAT)
            for sub in ("points", "failed"):
                (self.path / sub).mkdir(exist_ok=True)
            self._read()
            if not os.access(self.path / "points", os.W_OK | os.X_OK):
                raise InputError(f"{where}: cannot write to it")
        except OSError as e:
            raise InputError(f"{where}: cannot use it ({e.strerror or e})") from None

    def _read(self) -> None:
        self._names = {f.stem for f in (self.path / "points").glob("*.json")}

    @property
    def damaged(self) -> list[str]:
        """The names of the point files that do not read back as their point's record, in order.

        Checks every file not checked yet.
        """
        for key in sorted(self._names - self._done - self._damaged):
            self.find(key)
        return sorted(f"{key}.json" for key in self._damaged)

    def done(self, key: str) -> bool:
        """Whether the point ``key`` has a result in the store (its file is read and checked once)."""
        return key in self._done or self.find(key) is not None

    def find(self, key: str) -> dict | None:
        """The record of point ``key``, read from its file; None if the point is not done.

        The store keeps no record in memory: a ciao18 comparison's 315 records at the paper's
        sizes are 830 MB of JSON, several GB as Python objects, in the process whose workers need
        the machine's memory (session 60: a worker killed for want of it).
        """
        if key not in self._names or key in self._damaged:
            return None
        try:
            record = _load(self.path / "points" / f"{key}.json")
        except FileNotFoundError:  # removed since the store was opened: not done, not damaged
            self._names.discard(key)
            self._done.discard(key)
            return None
        if record is None:
            self._done.discard(key)
            self._damaged.add(key)
        else:
            self._done.add(key)
        return record

    def get(self, key: str) -> dict:
        """The record of a finished point, read from its file (``KeyError`` if it has none)."""
        record = self.find(key)
        if record is None:
            raise KeyError(key)
        return record

    def put(self, record: dict) -> None:
        """File a finished point's record (with ``key``, ``params``, ``metrics``) atomically."""
        key = record["key"]
        _write_json(self.path / "points" / f"{key}.json", record)
        self._names.add(key)
        self._done.add(key)
        self._damaged.discard(key)
        (self.path / "failed" / f"{key}.json").unlink(missing_ok=True)

    def fail(self, record: dict) -> None:
        """File a point's failure (with ``key``, ``params``, ``error``) atomically."""
        _write_json(self.path / "failed" / f"{record['key']}.json", record)
