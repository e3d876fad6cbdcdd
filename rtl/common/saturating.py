"""Saturating counter arithmetic shared by the predictor units."""

from __future__ import annotations

from amaranth.hdl import Mux, Value

__all__ = ["sat_inc", "sat_dec"]


def sat_inc(value: Value) -> Value:
    """``value + 1``, holding at the all-ones maximum of its width."""
    value = Value.cast(value)
    return Mux(value == (1 << len(value)) - 1, value, value + 1)[:len(value)]


def sat_dec(value: Value) -> Value:
    """``value - 1``, holding at 0."""
    value = Value.cast(value)
    return Mux(value == 0, value, value - 1)[:len(value)]
