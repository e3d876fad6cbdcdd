"""The sweep's tidy table: one row per finished point, its parameters then its metrics.

The rows are in grid order and hold only what the simulation determines
(no wall times), so the same grid gives the same table byte for byte. The
columns are the union over the rows: :data:`~.grid.PARAM_COLUMNS`, each
swept field, then the metrics in the order of the first row that has each
(a policy's statistics appear only in its rows; other rows leave the cell
empty). CSV always; Parquet when ``pyarrow`` is installed.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence

from golden.files import atomic_write

__all__ = ["table_rows", "table_columns", "write_csv", "write_parquet", "parquet_available"]


def table_rows(records: Sequence[dict]) -> list[dict]:
    """One flat row per store record: ``params`` then ``metrics`` (a clash is a defect)."""
    rows = []
    for r in records:
        clash = set(r["params"]) & set(r["metrics"])
        if clash:
            raise ValueError(f"metric and parameter columns share names: {sorted(clash)}")
        rows.append({**r["params"], **r["metrics"]})
    return rows


def table_columns(rows: Sequence[dict]) -> list[str]:
    """Every column of ``rows``, each where it first appears."""
    return list(dict.fromkeys(c for row in rows for c in row))


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v) if isinstance(v, float) else str(v)


def write_csv(path: str | os.PathLike, rows: Sequence[dict]) -> None:
    """Write the table as CSV (empty cells for missing values), atomically."""
    columns = table_columns(rows)

    def write(tmp: str) -> None:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(columns)
            for row in rows:
                w.writerow([_cell(row.get(c)) for c in columns])

    atomic_write(path, write)


def parquet_available() -> bool:
    """Whether ``pyarrow`` can be imported."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def write_parquet(path: str | os.PathLike, rows: Sequence[dict]) -> None:
    """Write the table as Parquet, atomically; a column of mixed types is written as strings."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = table_columns(rows)
    arrays = {}
    for c in columns:
        values = [row.get(c) for row in rows]
        try:
            arrays[c] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arrays[c] = pa.array([None if v is None else _cell(v) for v in values], type=pa.string())
    table = pa.table(arrays)
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))
