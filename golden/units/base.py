"""Cycle-level reference models of the RTL units, and their transaction logs.

A unit model has the same ports as its RTL component (names, widths), the
same latency and the same state. :meth:`UnitModel.step` is one clock cycle:
it takes the values of the input ports during the cycle, returns the values
of the output ports during the cycle (from the state before the clock edge,
as combinational logic would show them), then applies the clock edge.

A *transaction log* is a numpy structured array with one row per cycle:
every input port, then every expected output port (prefixed ``exp_``), then
``ctx_access`` (the position in the workload's access stream the row came
from). Whole-workload logs come in two steps: the golden policy's compiled
hooks record the unit's *transactions* (one row per request or response, in
the unit module's ``TRANSACTION_DTYPE``: what the golden model decided), and
:meth:`UnitModel.cycle_log` lays them out cycle by cycle with the unit's
latency and protocol. The replayers in ``tb/`` drive the inputs into the RTL
and compare every output every cycle.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

__all__ = ["UnitModel", "log_dtype", "port_dtype", "CONTEXT_FIELDS", "transaction_log", "put_columns",
           "one_per_cycle"]

#: Context columns of a cycle log (not ports): where in the workload each row came from.
CONTEXT_FIELDS = [("ctx_access", "<i8")]


def port_dtype(width: int) -> str:
    """Smallest unsigned numpy type holding a ``width``-bit port."""
    for bits, name in ((8, "u1"), (16, "<u2"), (32, "<u4"), (64, "<u8")):
        if width <= bits:
            return name
    raise ValueError(f"Port width must be at most 64 bits, not {width}")


def log_dtype(inputs: dict[str, int], outputs: dict[str, int]) -> np.dtype:
    """Transaction-log row: the inputs, then ``exp_<name>`` for each output."""
    fields = [(name, port_dtype(w)) for name, w in inputs.items()]
    fields += [(f"exp_{name}", port_dtype(w)) for name, w in outputs.items()]
    return np.dtype(fields)


def transaction_log(model: UnitModel, transactions: np.ndarray, extra: int = 0) -> np.ndarray:
    """An empty cycle log for one row per transaction, then ``extra`` + 1 more, with ``ctx_access``.

    Row *k* < ``len(transactions)`` gets transaction *k*'s ``access``; the rows
    after it the last transaction's (the last row answers the last transaction,
    so logs of consecutive slices concatenate).
    """
    n = len(transactions)
    log = np.zeros(n + extra + 1, model.cycle_log_dtype)
    if n:
        log["ctx_access"][:n] = transactions["access"]
        log["ctx_access"][n:] = transactions["access"][-1]
    return log


def put_columns(log: np.ndarray, transactions: np.ndarray, when: np.ndarray, ports: dict[str, str | None],
                shift: int = 0) -> None:
    """Write transaction *k*'s columns into row *k* + ``shift`` of ``log`` where ``when[k]`` (0 elsewhere).

    ``ports`` maps a log column to a transaction column, or to None for
    ``when`` itself (a valid bit).
    """
    rows = slice(shift, shift + len(transactions))
    for port, col in ports.items():
        log[port][rows] = when if col is None else np.where(when, transactions[col], 0)


def one_per_cycle(model: UnitModel, transactions: np.ndarray, inputs: list[tuple[np.ndarray, dict]],
                  outputs: list[tuple[np.ndarray, dict]]) -> np.ndarray:
    """The cycle log of a latency-1 unit that takes one transaction a cycle, then an idle row.

    Transaction *k* drives row *k*: each ``(when, ports)`` of ``inputs`` is
    written by :func:`put_columns`; each of ``outputs`` is the expected output
    of row *k* + 1.
    """
    log = transaction_log(model, transactions)
    for when, ports in inputs:
        put_columns(log, transactions, when, ports)
    for when, ports in outputs:
        put_columns(log, transactions, when, ports, 1)
    return log


class UnitModel(ABC):
    """Base of the cycle-level unit models.

    Subclasses set :attr:`inputs` and :attr:`outputs` (port name -> width in
    bits, in the RTL's port order) in ``__init__`` and implement
    :meth:`reset` and :meth:`step`.
    """

    inputs: dict[str, int]
    outputs: dict[str, int]

    @abstractmethod
    def reset(self) -> None:
        """Return to the state after reset."""

    @abstractmethod
    def step(self, **inputs: int) -> dict[str, int]:
        """One clock cycle: outputs during the cycle, then the clock edge."""

    @property
    def log_dtype(self) -> np.dtype:
        """dtype of this unit's transaction-log rows (ports only)."""
        return log_dtype(self.inputs, self.outputs)

    @property
    def cycle_log_dtype(self) -> np.dtype:
        """dtype of :meth:`cycle_log` rows: the ports, then :data:`CONTEXT_FIELDS`."""
        return np.dtype(self.log_dtype.descr + CONTEXT_FIELDS)

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """The cycle-by-cycle log of a recorded transaction stream.

        Parameters
        ----------
        transactions : numpy.ndarray
            Rows of the transaction dtype of the unit's module, in order.

        Returns
        -------
        numpy.ndarray
            Rows of :attr:`cycle_log_dtype`, one per cycle.
        """
        raise NotImplementedError(f"{type(self).__name__} has no transaction recording")

    def run(self, stimulus: np.ndarray) -> np.ndarray:
        """Step through ``stimulus`` (rows with the input columns); return the full log.

        Slow (Python per cycle): for unit tests and short slices. Whole
        workloads get their logs from the compiled policy code.
        """
        log = np.zeros(len(stimulus), dtype=self.log_dtype)
        for name in self.inputs:
            log[name] = stimulus[name]
        for i in range(len(stimulus)):
            out = self.step(**{name: int(stimulus[name][i]) for name in self.inputs})
            for name, value in out.items():
                log[f"exp_{name}"][i] = value
        return log
