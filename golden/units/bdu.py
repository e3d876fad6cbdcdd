"""kim20's bypass decision unit (BDU): the sampling window's timer and the C/B mode.

Ports (the RTL ``rtl.bypass.kim20.Bdu`` has the same)::

    in   start          the SM got its first CTA after a kernel launch: the window starts this cycle
    in   accesses       the MRMU's access count after this cycle (its next value)
    in   miss_count     the MRMU's miss count after this cycle
    in   occupancy      the WOMU's sum after this cycle
    out  sampling       the window runs (the LD/ST unit uses the L1)
    out  bypass         B mode: loads bypass the L1 (0 while sampling)

The decision (:func:`decide`, kim20 Section 3), taken at the clock edge of the window's last cycle
from the counts including that cycle, without a divider: with thresholds as fractions of
2^:data:`FRAC_BITS` (``q_L``, ``q_H``, ``q_W``),

1. fewer than ``min_accesses`` accesses -> B mode (kim20 Sec. 4, Fig. 3's LUD: "our technique
   bypasses most of requests when few cache accesses occur for sampling period");
2. ``misses * 2^8 < q_L * accesses`` -> C mode;
3. ``misses * 2^8 > q_H * accesses`` -> B mode;
4. otherwise B mode if ``occupancy * 2^8 < q_W * warps * window`` (average warps able to issue
   below ``threshold_W`` of the SM's warps), else C mode.

Miss-rate-only bypassing with a fixed threshold *k* (kim20 Fig. 3) is the same unit with
``q_L = q_H = k`` and ``q_W = 0``: B mode exactly when the miss rate exceeds *k*.

The mode holds until the next ``start`` (the next kernel's first CTA on the SM): sampling does not
repeat within a kernel. ``start`` during a window restarts it. Latency: ``sampling`` shows from the
cycle after ``start`` for ``window`` cycles; ``bypass`` shows the decision from the cycle after the
window's last. Reset: not sampling, C mode.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb

from golden.units.base import UnitModel
from golden.units.mrmu import COUNTER_BITS
from golden.units.womu import sum_bits

__all__ = ["FRAC_BITS", "BduParams", "Bdu", "decide", "quantize"]

#: Thresholds are fractions of 2^FRAC_BITS.
FRAC_BITS = 8

C_MODE, B_MODE = 0, 1


def quantize(fraction: float, name: str) -> int:
    """``fraction`` in [0, 1] as the nearest multiple of 2^-FRAC_BITS (ValueError naming ``name``)."""
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 <= fraction <= 1:
        raise ValueError(f"{name}: must be a number in [0, 1], not {fraction!r}")
    return int(round(fraction * (1 << FRAC_BITS)))


@dataclass(frozen=True)
class BduParams:
    """The BDU's parameters (thresholds quantized, see :func:`quantize`).

    Members
    -------
    window : int
        Sampling window in cycles.
    warps : int
        Warp slots per SM (the occupancy's 100%).
    q_l, q_h, q_w : int
        threshold_L, threshold_H, threshold_W in 1/256.
    min_accesses : int
        Fewer accesses in the window -> B mode.
    """

    window: int
    warps: int
    q_l: int
    q_h: int
    q_w: int
    min_accesses: int

    def __post_init__(self) -> None:
        for name in ("window", "warps"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"{name}: must be a positive integer, not {getattr(self, name)!r}")
        for name in ("q_l", "q_h", "q_w"):
            v = getattr(self, name)
            if not isinstance(v, int) or not 0 <= v <= 1 << FRAC_BITS:
                raise ValueError(f"{name}: must be an integer in [0, {1 << FRAC_BITS}], not {v!r}")
        if self.q_l > self.q_h:
            raise ValueError(f"threshold_l: must not exceed threshold_h ({self.q_l} > {self.q_h} / 256)")
        if not isinstance(self.min_accesses, int) or not 0 <= self.min_accesses < 1 << COUNTER_BITS:
            raise ValueError(f"min_accesses: must be an integer in [0, {(1 << COUNTER_BITS) - 1}], "
                             f"not {self.min_accesses!r}")

    @property
    def occ_limit(self) -> int:
        """``q_W * warps * window``: the right-hand side of rule 4."""
        return self.q_w * self.warps * self.window

    @property
    def timer_bits(self) -> int:
        """Width of the window timer."""
        return max(1, (self.window - 1).bit_length())


@nb.njit(cache=True, nogil=True)
def decide(accesses, misses, occupancy, q_l, q_h, occ_limit, min_accesses):
    """The BDU's rule (module docstring) on saturated counts: 1 for B mode, 0 for C mode."""
    if accesses < min_accesses:
        return 1
    if misses << FRAC_BITS < q_l * accesses:
        return 0
    if misses << FRAC_BITS > q_h * accesses:
        return 1
    return 1 if occupancy << FRAC_BITS < occ_limit else 0


class Bdu(UnitModel):
    """Cycle-level model of the BDU (timer, sampling flag, mode).

    Parameters
    ----------
    params : BduParams
        Window, warps and thresholds.
    """

    def __init__(self, params: BduParams) -> None:
        self.p = params
        self.inputs = {"start": 1, "accesses": COUNTER_BITS, "miss_count": COUNTER_BITS,
                       "occupancy": sum_bits(params.window, params.warps)}
        self.outputs = {"sampling": 1, "bypass": 1}
        self.reset()

    def reset(self) -> None:
        self.sampling = 0
        self.left = 0
        self.mode = C_MODE

    def step(self, *, start: int = 0, accesses: int = 0, miss_count: int = 0,
             occupancy: int = 0) -> dict[str, int]:
        out = {"sampling": self.sampling, "bypass": int(self.mode == B_MODE and not self.sampling)}
        if start or self.sampling:
            left = self.p.window - 1 if start else self.left - 1
            self.sampling, self.left = 1, left
            if left == 0:
                p = self.p
                self.sampling = 0
                self.mode = int(decide(accesses, miss_count, occupancy, p.q_l, p.q_h, p.occ_limit,
                                       p.min_accesses))
        return out
