"""XOR-folding PC hash (the golden default, ``golden/units/pc_hash.py``)."""

from __future__ import annotations

from amaranth.hdl import Const, Value

__all__ = ["PC_WIDTH", "pc_hash"]

#: Width of the PC input, in bits.
PC_WIDTH = 32


def pc_hash(pc: Value, *, bits: int, shift: int) -> Value:
    """XOR-fold ``pc[shift:32]`` into ``bits`` bits: one level of XOR gates.

    Parameters
    ----------
    pc : Value
        The 32-bit byte PC.
    bits : int
        Width of the hash.
    shift : int
        Low PC bits dropped first (instruction alignment).

    Raises
    ------
    ValueError
        If ``bits`` is not 1..32 or ``shift`` is not 0..31.
    """
    if not 1 <= bits <= PC_WIDTH:
        raise ValueError(f"Hash width must be 1 to {PC_WIDTH} bits, not {bits}")
    if not 0 <= shift < PC_WIDTH:
        raise ValueError(f"PC shift must be 0 to {PC_WIDTH - 1}, not {shift}")
    v = Value.cast(pc)[shift:PC_WIDTH]
    h = Const(0, bits)
    for i in range(0, len(v), bits):
        h = h ^ v[i:i + bits]
    return h[:bits]
