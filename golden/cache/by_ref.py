"""Named tuples of arrays passed to compiled functions by reference, and frozen vectors.

numba passes a tuple by value: every array in it is a struct of five to nine
words, so a call that takes the timing model's state (about 30 arrays) and
kernel arrays copies some 250 words onto the stack. The model's loop calls
such functions for every request and most cycles, and a profile of a
memory-bound run found 72% of the loop's own samples on those pushes. A
policy's hooks whose state is a large tuple (ciao18's) use it the same way.
:func:`by_ref` puts the tuple in the caller's frame and passes a pointer to
it; attribute access (``S.c``, ``P.op``) loads the field through the pointer,
so the functions' code is unchanged. The pointer is valid while the caller's
frame lives: the entry function makes it and calls the loop, which returns
before the entry does.

The tuple behind the pointer never changes once it is stored, and each load
of a field says so (LLVM's ``!invariant.load``). numba gives LLVM no type-based
alias information, so without it every store into any array (an ``int64``
element) might have changed the tuple's array descriptors, and each ``S.r``
after a store loaded the descriptor again: a chain of two loads per element
access. With it LLVM keeps a descriptor in registers across stores and hoists
it out of loops. The pointer leaves :func:`stored` through an empty ``asm``
statement that clobbers memory, so no invariant load can be scheduled before
the store that fills the slot.

:func:`frozen` gives the same promise for the data of a one-dimensional array
that compiled code only reads (the timing model's configuration vector ``K``).

Measured (2026-11-29, session 43; ``docs/timing.md``, "Speed"): GTO's
simulation of ``ciao18/pvc`` at 0.25 takes 14% less on average over six
alternating rounds; at scale 1 no gain shows. Every result is equal.
"""

from __future__ import annotations

import operator

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.datamodel import models
from numba.core.extending import intrinsic, lower_builtin, lower_getattr_generic, register_model
from numba.core.imputils import impl_ret_borrowed
from numba.core.typing.templates import (
    AbstractTemplate,
    AttributeTemplate,
    infer_getattr,
    infer_global,
    signature,
)
from numba.np.arrayobj import make_array

__all__ = ["Frozen", "TupleRef", "array_data", "by_ref", "frozen", "stored"]


def array_data(context, builder, arr, value):
    """Codegen: the data pointer of ``value``, an array of numba type ``arr``."""
    return make_array(arr)(context, builder, value=value).data


def _invariant(builder, load):
    """Mark ``load`` as reading memory that does not change while the compiled code runs."""
    load.set_metadata("invariant.load", builder.module.add_metadata([]))
    return load


class TupleRef(types.Type):
    """Pointer to a named tuple of type ``tuple_type`` in a caller's frame."""

    def __init__(self, tuple_type: types.BaseNamedTuple) -> None:
        self.tuple_type = tuple_type
        super().__init__(name=f"TupleRef({tuple_type})")

    @property
    def key(self):
        return self.tuple_type


@register_model(TupleRef)
class _TupleRefModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.PointerType(dmm.lookup(fe_type.tuple_type).get_value_type()))


@infer_getattr
class _TupleRefAttributes(AttributeTemplate):
    key = TupleRef

    def generic_resolve(self, typ, attr):
        fields = typ.tuple_type.fields
        return typ.tuple_type.types[fields.index(attr)] if attr in fields else None


@lower_getattr_generic(TupleRef)
def _tuple_ref_getattr(context, builder, typ, val, attr):
    i = typ.tuple_type.fields.index(attr)
    # The slot is written once, before its pointer is handed out (stored), and never again.
    value = _invariant(builder, builder.load(cgutils.gep_inbounds(builder, val, 0, i)))
    return impl_ret_borrowed(context, builder, typ.tuple_type.types[i], value)


def stored(context, builder, value):
    """Codegen: ``value`` copied into a slot of the current function's frame; the slot's pointer."""
    slot = cgutils.alloca_once(builder, value.type)
    builder.store(value, slot)
    # Loads through the pointer are marked invariant, and a backend may move an invariant load
    # above any store: the pointer comes out of an asm statement ordered after the store (it
    # clobbers memory), so every load through it depends on the store's being done.
    fence = ir.FunctionType(slot.type, [slot.type])
    return builder.asm(fence, "", "=r,0,~{memory}", [slot], side_effect=True)


@intrinsic
def by_ref(typingctx, tup):
    """A :class:`TupleRef` to a copy of named tuple ``tup`` in the calling function's frame.

    A :class:`TupleRef` is returned as it is: a function may take its state either way (the
    timing loop passes policies their state by reference, :func:`golden.cache.bound_hooks.level_refs`).
    """
    if isinstance(tup, TupleRef):
        return tup(tup), lambda context, builder, sig, args: args[0]
    if not isinstance(tup, types.BaseNamedTuple):
        return None

    def codegen(context, builder, sig, args):
        return stored(context, builder, args[0])

    return TupleRef(tup)(tup), codegen


class Frozen(types.Type):
    """Pointer to a one-dimensional array's ``dtype`` elements that no compiled code writes."""

    def __init__(self, dtype: types.Type) -> None:
        self.dtype = dtype
        super().__init__(name=f"Frozen({dtype})")


@register_model(Frozen)
class _FrozenModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.PointerType(dmm.lookup(fe_type.dtype).get_value_type()))


@infer_global(operator.getitem)
class _FrozenGetItem(AbstractTemplate):
    def generic(self, args, kws):
        if len(args) == 2 and isinstance(args[0], Frozen) and isinstance(args[1], types.Integer):
            return signature(args[0].dtype, args[0], types.intp)
        return None


@lower_builtin(operator.getitem, Frozen, types.intp)
def _frozen_getitem(context, builder, sig, args):
    ptr, index = args
    return _invariant(builder, builder.load(builder.gep(ptr, [index], inbounds=True)))


@intrinsic
def frozen(typingctx, arr):
    """A :class:`Frozen` view of contiguous one-dimensional ``arr``, for data constant during a call.

    Element reads say the memory does not change (``!invariant.load``), so LLVM
    keeps a value read once in a register across later stores (numba tells it
    nothing about which arrays may alias). The caller keeps ``arr`` alive and
    unwritten while the compiled code that got the view runs; an index is not
    wrapped around when negative, nor checked.
    """
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"):
        return None

    def codegen(context, builder, sig, args):
        return array_data(context, builder, arr, args[0])

    return Frozen(arr.dtype)(arr), codegen
