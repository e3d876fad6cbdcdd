"""Small building blocks shared by the units: PC hash, saturating counters."""

from rtl.common.pc_hash import PC_WIDTH, pc_hash
from rtl.common.saturating import sat_dec, sat_inc

__all__ = ["PC_WIDTH", "pc_hash", "sat_dec", "sat_inc"]
