"""PC hash of the tian15 predictor: XOR-folding of the PC into a short index.

tian15 (Section 3.1) indexes its 128-entry table with "a hashed PC" and keeps
"a hashed PC value (7 bits)" per L1 line, without giving the function. The
default here XOR-folds the 32-bit PC, shifted right by ``shift`` bits (the
instruction alignment, which carries no information), in ``bits``-wide
chunks::

    v = (pc >> shift) & 0xFFFF_FFFF
    h = chunk(v, 0) ^ chunk(v, 1) ^ ... ,   chunk(v, i) = (v >> (i * bits)) & (2**bits - 1)

It is one level of XOR gates in hardware (``rtl/common`` builds the same
function) and spreads the tens to hundreds of distinct load PCs of a GPU
kernel (tian15 Figure 4) over the table.
"""

from __future__ import annotations

import numba as nb

__all__ = ["PC_WIDTH", "pc_hash"]

#: Width of the PC input of the hash, in bits.
PC_WIDTH = 32


@nb.njit(cache=True, inline="always")
def pc_hash(pc, bits, shift):
    """XOR-fold of ``(pc >> shift)`` (32 bits) into ``bits`` bits.

    Parameters
    ----------
    pc : int
        Byte PC.
    bits : int
        Width of the hash (7 in tian15).
    shift : int
        Low PC bits dropped first (instruction alignment).
    """
    v = (pc >> shift) & 0xFFFFFFFF
    mask = (1 << bits) - 1
    h = 0
    for i in range(0, PC_WIDTH, bits):
        h ^= (v >> i) & mask
    return h
