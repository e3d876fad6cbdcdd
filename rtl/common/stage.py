"""Pipeline registers for a whole bundle (a ``wiring.Signature``'s members)."""

from __future__ import annotations

from amaranth.hdl import Module
from amaranth.lib import wiring

__all__ = ["register_bundle"]


def register_bundle(m: Module, signature: wiring.Signature, src, *, name: str):
    """Registers (domain ``sync``, reset to each member's ``init``) holding ``src`` one cycle later.

    Parameters
    ----------
    m : Module
        Where the registers are added.
    signature : wiring.Signature
        The bundle's signature, as ``src`` is seen from its initiator (every member ``Out``).
    src : interface
        The bundle in this stage (a port, or an interface of ``signature``).
    name : str
        Name of the register interface (e.g. ``"s2_req"``).

    Returns
    -------
    interface
        ``signature.create()``, driven from ``src`` with a cycle of delay.
    """
    dst = signature.create(path=(name,))
    for (_, _, d), (_, _, s) in zip(signature.flatten(dst), signature.flatten(src), strict=True):
        m.d.sync += d.eq(s)
    return dst
