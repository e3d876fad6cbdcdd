"""Plain-text tables and JSON result files for the command line."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import re
import secrets
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import numpy as np

from golden.files import atomic_write, check_output_dir, check_output_file

__all__ = ["format_table", "format_count", "format_rate", "format_size", "plural", "jsonable",
           "write_json", "json_text", "finish_compare", "version", "check_outputs"]


def version() -> str:
    """Version of the installed gpucache package (``"unknown"`` when run from a bare tree)."""
    try:
        return metadata.version("gpucache")
    except metadata.PackageNotFoundError:
        return "unknown"


def format_count(n: int) -> str:
    """An integer with thousands separators (``1,234,567``)."""
    return f"{int(n):,}"


def plural(n: int, word: str) -> str:
    """``"1 kernel"``, ``"3 kernels"``."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def format_size(n: int) -> str:
    """A byte count in the largest binary unit that divides it (``4 MB``, ``768 KB``, ``48 B``)."""
    for unit, size in (("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def format_rate(r: float | None) -> str:
    """A ratio as a percentage with two decimals, ``-`` when undefined."""
    return "-" if r is None or r != r else f"{100 * r:.2f}%"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]],
                 title: str | None = None) -> str:
    """An aligned text table: numeric columns right-aligned, others left-aligned.

    Parameters
    ----------
    headers : sequence of str
        Column titles.
    rows : sequence of sequences
        Cells; integers are printed with :func:`format_count`, other values with ``str``.
    title : str, optional
        A line printed above the table.

    Returns
    -------
    str
        The table, without a trailing newline.
    """
    cells = [[_cell(v) for v in row] for row in rows]
    # A column is numeric when every cell that is not a placeholder ("", "-") is a number.
    filled = [[row[i] for row in rows if row[i] not in ("", "-")] for i in range(len(headers))]
    right = [bool(col) and all(_numeric(v) for v in col) for col in filled]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(vals: Sequence[str]) -> str:
        out = [v.rjust(w) if r else v.ljust(w) for v, w, r in zip(vals, widths, right, strict=True)]
        return "  ".join(out).rstrip()

    lines = [title] if title else []
    lines += [line(headers), "  ".join("-" * w for w in widths)]
    lines += [line(r) for r in cells]
    return "\n".join(lines)


def _cell(v: Any) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, Integral):
        return format_count(v)
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _numeric(v: Any) -> bool:
    if isinstance(v, Real) and not isinstance(v, bool):
        return True
    # Pre-formatted numbers ("93.41%", "1,024") align like numbers.
    return isinstance(v, str) and v.replace(",", "").replace(".", "").rstrip("%").isdigit()


def jsonable(obj: Any, leaf: Callable[[Any], Any] | None = None) -> Any:
    """``obj`` with numpy values, tuples and dataclasses turned into JSON types.

    ``leaf``, if given, is asked first at every value: what it returns, unless None, stands for
    the value (:func:`json_text` takes long lists of numbers so).
    """
    if leaf is not None and (out := leaf(obj)) is not None:
        return out
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return jsonable(dataclasses.asdict(obj), leaf)
    if isinstance(obj, dict):
        return {str(k): jsonable(v, leaf) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v, leaf) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist(), leaf)
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and obj != obj:
        return None  # NaN is not JSON
    return obj


#: A list (or array) of more items than this whose first item is a number, or a list of numbers,
#: is written on one line by json's C encoder: a comparison's time series (about 10^8 numbers at
#: ciao18's paper sizes) took 62 s through :func:`jsonable` and the indenting encoder, which is
#: Python code, and 3 s so (session 62).
BULK_ITEMS = 64


def _number(v: Any) -> bool:
    return isinstance(v, int | float | np.number) and not isinstance(v, bool)


def _bulk(obj: Any) -> bool:
    """Whether ``obj`` is a long list of numbers or of lists of numbers (checked on its first item)."""
    if not isinstance(obj, list | tuple | np.ndarray) or len(obj) <= BULK_ITEMS:
        return False
    first = obj[0]
    if isinstance(first, list | tuple | np.ndarray):
        return len(first) == 0 or _number(first[0])
    return _number(first)


def _bulk_default(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(type(v).__name__)


def json_text(obj: Any) -> str:
    """``obj`` as JSON indented by two (:func:`jsonable`'s values), long lists of numbers on one line.

    Each long list of numbers is encoded compact by json's C encoder and held out of the indented
    text as a placeholder string; one that the C encoder refuses (a NaN, which :func:`jsonable`
    writes as null, or an object it does not know) goes through :func:`jsonable` item by item.
    """
    # A placeholder no string of the data holds: it carries a random word.
    tag = f"gpucache-bulk-{secrets.token_hex(8)}-"
    chunks: list[str] = []

    def bulk(v: Any) -> str | None:
        if not _bulk(v):
            return None
        try:
            chunks.append(json.dumps(v.tolist() if isinstance(v, np.ndarray) else v, allow_nan=False,
                                     separators=(",", ":"), default=_bulk_default))
        except (TypeError, ValueError):
            return None
        return f"{tag}{len(chunks) - 1}"

    text = json.dumps(jsonable(obj, bulk), indent=2)
    if not chunks:
        return text + "\n"
    return re.sub(f'"{tag}(\\d+)"', lambda m: chunks[int(m.group(1))], text) + "\n"


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Write ``obj`` as indented JSON to ``path`` atomically (a failed write leaves no file); long
    lists of numbers go on one line (:func:`json_text`)."""
    text = json_text(obj)

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)

    atomic_write(path, write)


def finish_compare(args: argparse.Namespace, sources: Sequence[str], payload: dict,
                   plot_module: str | None = None,
                   plot_args: Sequence[Any] = (), plot_function: str = "plot_all") -> None:
    """The common tail of ``gpucache compare``'s suites: paper sources, charts, JSON.

    Parameters
    ----------
    args : argparse.Namespace
        The command line (``plot``: a directory or None; ``json``: a file or None).
    sources : sequence of str
        Where each of the paper's numbers comes from; one ``  paper: ...`` line each.
    payload : dict
        What ``--json`` writes.
    plot_module : str, optional
        Module of the suite's charts, imported only when ``--plot`` is given (matplotlib is slow
        to load); None: the suite has no charts.
    plot_args : sequence
        Arguments of the chart function before the output directory.
    plot_function : str
        The chart function's name in ``plot_module``; it returns the paths it wrote.
    """
    for source in sources:
        print(f"  paper: {source}")
    if args.plot and plot_module is not None:
        plot = getattr(importlib.import_module(plot_module), plot_function)
        for path in plot(*plot_args, args.plot):
            print(f"wrote {path}")
    if args.json:
        write_json(args.json, payload)


def where_ran(args: argparse.Namespace) -> str:
    """Where a compare's workloads ran, for its header: a ``--scheduler`` cluster, workers or one process."""
    if args.scheduler:
        return f"cluster {args.scheduler}"
    return f"{args.workers} local workers" if args.workers > 1 else "1 process"


def timed_task(fn: Callable[..., dict], *call) -> dict:
    """``fn(*call)``'s row with the task's own wall and CPU seconds in ``row["time"]``.

    Taken in the process that runs the task: with workers, the parent's CPU time leaves them out.
    """
    t0, c0 = time.perf_counter(), time.process_time()
    row = fn(*call)
    row["time"] = {"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0}
    return row


def run_compare_tasks(fn: Callable[..., dict], calls: Sequence[tuple], names: Sequence[str],
                      args: argparse.Namespace) -> tuple[list[dict], dict[str, str]]:
    """``fn(*call)`` per workload (:func:`timed_task`): in this process, or one task each on the sweep
    engine's Dask cluster.

    ``args.workers > 1`` starts a local cluster of that many worker processes, ``args.scheduler``
    uses an existing one (:func:`golden.experiments.sweep.engine.map_tasks`). A workload whose run
    deadlocks (:class:`~golden.gpu.model.DeadlockError`) is reported on a line of its own and left
    out; any other exception is raised.

    Returns
    -------
    rows : list of dict
        The results of the workloads that ran, in the order of ``calls``.
    failed : dict
        Each deadlocked workload's name and message.

    Raises
    ------
    InputError
        If no workload ran to the end.
    """
    from cli.progress import progress
    from golden.errors import InputError
    from golden.gpu.model import DeadlockError

    with progress(len(calls), "workloads", "wl", args.progress) as bar:
        if args.workers > 1 or args.scheduler:
            from golden.experiments.sweep.engine import map_tasks

            results = map_tasks(timed_task, [(fn, *call) for call in calls], scheduler=args.scheduler,
                                workers=args.workers, on_done=lambda i: bar.update(1))
        else:
            results = []
            for call in calls:
                try:
                    results.append(timed_task(fn, *call))
                except DeadlockError as e:
                    results.append(e)
                bar.update(1)
    rows, failed = [], {}
    for name, res in zip(names, results, strict=True):
        if isinstance(res, DeadlockError):  # one workload's deadlock is reported, the others still run
            failed[name] = str(res)
            print(f"{name}: not compared: {res}")
        elif isinstance(res, BaseException):
            raise res
        else:
            rows.append(res)
    if not rows:
        raise InputError("no workload of the comparison ran to the end")
    return rows, failed


#: Output arguments of each command: (command, argument name) -> "file" or "dir". A command
#: with actions is named with its action ("trace export").
OUTPUTS = {
    ("run", "json"): "file",
    ("compare", "json"): "file",
    ("compare", "plot"): "dir",
    ("compare", "store"): "dir",
    ("trace convert", "out"): "file",
    ("trace export", "out"): "dir",
    ("synth", "out"): "dir",
    ("cosim", "build_dir"): "dir",
    ("sweep", "store"): "dir",
    ("sweep", "csv"): "file",
    ("sweep", "parquet"): "file",
    ("sweep", "plot"): "dir",
}


def _inputs(args: argparse.Namespace) -> list[str]:
    """Files the command reads: an output must not be one of them."""
    out = []
    for v in (getattr(args, "config", None), getattr(args, "trace", None)):
        out += v if isinstance(v, list) else [v] if v else []  # sweep: a list of traces
    src = getattr(args, "source", None)
    if src:  # trace convert: the kernel list and every file it names
        listing = Path(src) / "kernelslist.g" if Path(src).is_dir() else Path(src)
        out.append(str(listing))
        try:
            with open(listing, encoding="utf-8", errors="replace") as f:
                entries = (line.strip() for line in f)
                out += [str(listing.parent / e) for e in entries if e.startswith("kernel")]
        except (OSError, ValueError):
            pass  # the reader reports an unreadable list, with its line
    return out


def check_outputs(args: argparse.Namespace) -> None:
    """Check every output path of the parsed command line before any work starts.

    See :mod:`golden.files` for what is accepted and refused.

    Raises
    ------
    golden.errors.InputError
        For the first output that cannot be written, naming its option.
    """
    given = " ".join(str(v) for v in (getattr(args, "command", None), getattr(args, "action", None)) if v)
    for (command, name), kind in OUTPUTS.items():
        value = getattr(args, name, None)
        if given != command or value is None:
            continue
        positional = {"trace convert": "OUT.npz", "trace export": "OUT_DIR"}
        option = positional.get(command, "--" + name.replace("_", "-"))
        if kind == "file":
            check_output_file(value, option, _inputs(args))
        else:
            check_output_dir(value, option)
