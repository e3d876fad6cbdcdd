"""Signatures described by keyword parameters: equality and repr come from the parameters."""

from __future__ import annotations

from amaranth.lib import wiring

__all__ = ["ParamSignature"]


class ParamSignature(wiring.Signature):
    """A ``wiring.Signature`` whose members follow from keyword parameters.

    Two signatures are equal when they are of the same class with the same
    parameters (``memory.ReadPort.Signature``'s rule); ``repr`` names the
    class and its parameters. Subclasses validate their parameters, expose
    them as read-only properties and call ``super().__init__(members, **params)``.

    Parameters
    ----------
    members : dict
        The signature's members.
    **params
        The parameters the members were derived from.
    """

    def __init__(self, members: dict, **params) -> None:
        self._params = dict(params)
        super().__init__(members)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._params == other._params

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"{type(self).__name__}({args})"
