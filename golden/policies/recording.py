"""Transaction recording from compiled hooks: a bounded log of structured rows.

A policy that owns RTL units records, from its hooks, one row per
transaction of each unit (a request the unit takes, a response it gets) in a
numpy structured array whose dtype the unit model defines; the unit model
turns transactions into its cycle-by-cycle log (``UnitModel.cycle_log``).
The log is bounded: rows past the capacity are counted as dropped, and
:meth:`Recorder.take` refuses to hand out a log that dropped rows.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["COUNT_DTYPE", "Recorder", "new_row"]

#: The recorder's counters: rows written since the last take, rows dropped for lack of room.
COUNT_DTYPE = np.dtype([("rows", "<i8"), ("dropped", "<i8")])


@nb.njit(nogil=True, inline="always")
def new_row(log, count):
    """Index of a fresh row of ``log``, or -1 when it is full (then counted as dropped).

    Rows start zeroed (:class:`Recorder` zeroes the rows it hands out), so a
    hook writes only the fields it knows.

    Parameters
    ----------
    log : numpy.ndarray
        The recorder's structured array.
    count : numpy.ndarray
        Its :data:`COUNT_DTYPE` counters (one element).
    """
    n = count[0]
    if n.rows >= log.size:
        n.dropped += 1
        return -1
    r = n.rows
    n.rows += 1
    return r


class Recorder:
    """A bounded transaction log for compiled hooks.

    Parameters
    ----------
    dtype : numpy.dtype
        Row type (a unit model's transaction dtype).
    capacity : int
        Rows held between two :meth:`take` calls; 0 records nothing.

    Members
    -------
    log : numpy.ndarray
        ``dtype[capacity]``: pass it, with :attr:`count`, into the hooks' state.
    count : numpy.ndarray
        ``COUNT_DTYPE[1]``.
    """

    def __init__(self, dtype: np.dtype, capacity: int) -> None:
        if not isinstance(capacity, int) or capacity < 0:
            raise ValueError(f"capacity: must be a non-negative integer, not {capacity!r}")
        self.log = np.zeros(capacity, dtype)
        self.count = np.zeros(1, COUNT_DTYPE)

    def take(self) -> np.ndarray:
        """The rows recorded since the last call (a copy); the log starts again empty.

        Raises
        ------
        RuntimeError
            If rows were dropped for lack of room (record shorter chunks between calls).
        """
        n = self.count[0]
        if n["dropped"]:
            raise RuntimeError(f"transaction log overflowed by {int(n['dropped'])} rows "
                               f"(capacity {self.log.size}); run shorter chunks")
        rows = int(n["rows"])
        out = self.log[:rows].copy()
        self.log[:rows] = np.zeros(1, self.log.dtype)
        self.count[0] = (0, 0)
        return out
