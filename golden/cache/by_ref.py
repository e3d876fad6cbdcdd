"""Named tuples of arrays passed to compiled functions by reference.

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
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.datamodel import models
from numba.core.extending import intrinsic, lower_getattr_generic, register_model
from numba.core.imputils import impl_ret_borrowed
from numba.core.typing.templates import AttributeTemplate, infer_getattr

__all__ = ["TupleRef", "by_ref", "stored"]


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
    value = builder.load(cgutils.gep_inbounds(builder, val, 0, i))
    return impl_ret_borrowed(context, builder, typ.tuple_type.types[i], value)


def stored(context, builder, value):
    """Codegen: ``value`` copied into a slot of the current function's frame; the slot's pointer."""
    slot = cgutils.alloca_once(builder, value.type)
    builder.store(value, slot)
    return slot


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
