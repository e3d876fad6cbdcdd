"""Bypass decision hardware: tian15's L2 bypassBit store (kim20's units later)."""

from rtl.bypass.bypass_bits import BypassBits

__all__ = ["BypassBits"]
