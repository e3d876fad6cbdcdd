"""Bypass decision hardware: tian15's L2 bypassBit store; kim20's MRMU, WOMU and BDU."""

from rtl.bypass.bypass_bits import BypassBits
from rtl.bypass.kim20 import Bdu, Mrmu, TwoLevelBypass, Womu

__all__ = ["BypassBits", "Mrmu", "Womu", "Bdu", "TwoLevelBypass"]
