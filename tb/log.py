"""Transaction logs as the replayers see them: ports, context columns, mismatches.

A log row holds the unit's input ports (named as the RTL ports), the
expected outputs (``exp_<port>``) and optionally *context* columns that are
not ports (``ctx_<name>``, e.g. ``ctx_access`` = position in the workload's
access stream), reported with a mismatch so it can be traced back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from amaranth.lib import wiring

from synth.verilog import flat_ports

__all__ = ["LogLayout", "Mismatch", "layout_of", "unit_layout"]


@dataclass(frozen=True)
class LogLayout:
    """Which columns of a log are inputs, expected outputs and context."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    context: tuple[str, ...]


def layout_of(log: np.ndarray, in_ports: list[str], out_ports: list[str]) -> LogLayout:
    """Check a log against a unit's ports and split its columns.

    Raises
    ------
    ValueError
        If an input port or an expected output has no column, or a column is
        neither a port, an expected output nor a ``ctx_`` column.
    """
    names = set(log.dtype.names or ())
    missing = [p for p in in_ports if p not in names] + [f"exp_{p}" for p in out_ports
                                                          if f"exp_{p}" not in names]
    if missing:
        raise ValueError(f"Log has no column for {', '.join(missing)}")
    known = set(in_ports) | {f"exp_{p}" for p in out_ports}
    extra = [n for n in log.dtype.names if n not in known and not n.startswith("ctx_")]
    if extra:
        raise ValueError(f"Log columns {', '.join(extra)} are not ports of the unit")
    context = tuple(n for n in log.dtype.names if n.startswith("ctx_"))
    return LogLayout(tuple(in_ports), tuple(out_ports), context)


def unit_layout(log: np.ndarray, dut: wiring.Component) -> LogLayout:
    """:func:`layout_of` for the ports of ``dut``, nested members flattened (``synth.verilog.flat_ports``)."""
    ports = flat_ports(dut)
    return layout_of(log, [p.name for p in ports if p.is_input], [p.name for p in ports if not p.is_input])


@dataclass(frozen=True)
class Mismatch:
    """The first row where the RTL and the golden model disagree."""

    cycle: int
    inputs: dict[str, int]
    expected: dict[str, int]
    actual: dict[str, int]
    context: dict[str, int]

    def __str__(self) -> str:
        def fmt(d: dict[str, int]) -> str:
            return " ".join(f"{k}={v}" for k, v in d.items())

        diff = [k for k in self.expected if self.expected[k] != self.actual[k]]
        where = f" ({fmt(self.context)})" if self.context else ""
        return (f"mismatch at cycle {self.cycle}{where} on {', '.join(diff)}: "
                f"inputs [{fmt(self.inputs)}] expected [{fmt(self.expected)}] "
                f"actual [{fmt(self.actual)}]")

    @classmethod
    def at(cls, log: np.ndarray, layout: LogLayout, cycle: int, actual: dict[str, int]) -> Mismatch:
        """Build the report for row ``cycle`` given the RTL's outputs there."""
        row = log[cycle]
        return cls(
            cycle=cycle,
            inputs={p: int(row[p]) for p in layout.inputs},
            expected={p: int(row[f"exp_{p}"]) for p in layout.outputs},
            actual={p: int(actual[p]) for p in layout.outputs},
            context={c[4:]: int(row[c]) for c in layout.context},
        )
