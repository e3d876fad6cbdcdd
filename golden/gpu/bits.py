"""Bit tricks the timing loop needs that numba does not give: the index of a word's lowest set bit."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic

__all__ = ["trailing_zeros"]


@intrinsic
def trailing_zeros(typingctx, x):
    """Index of the lowest set bit of the int64 ``x`` (64 for 0): LLVM's ``cttz``, one instruction.

    The timing loop walks a scheduler's resident warps through a mask of their slots
    (``golden.gpu.core._pick``); without it, finding a bit's index would be a loop.
    """
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen
