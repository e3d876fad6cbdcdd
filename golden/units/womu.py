"""kim20's warp-occupancy monitor unit (WOMU): the warps able to issue, summed over the window.

Ports (the RTL ``rtl.bypass.kim20.Womu`` has the same)::

    in   clear          the sampling window starts this cycle: the sum restarts from this cycle's count
    in   en             the window runs this cycle (accumulate)
    in   ready          warps able to issue this cycle (valid instruction-buffer entries, 0 .. warps)
    out  total          the sum of ``ready`` over the window's cycles so far

kim20 Section 3: the WOMU "counts the number of active warps by looking up the instruction buffer
[...] checked every cycle", and Fig. 1 gives the *average* occupancy per benchmark. gpucache's
choice: the WOMU averages per cycle over the sampling window by summing the count every cycle
into a ``ceil(log2(window * warps + 1))``-bit accumulator (18 bits for 5,000 cycles of 32 warps);
the BDU compares the sum with ``threshold_W * warps * window``, so no divider is needed. The
paper's "5 bits for storing warp occupancy" holds one count (0 .. 31), not an average over a
window; ``docs/policies/kim20.md`` sets the extra 13 bits beside the paper's 31.

Latency: the count of cycle *t* shows in ``total`` from cycle *t* + 1. The sum saturates (it
cannot overflow within a window). Reset clears it.
"""

from __future__ import annotations

from golden.units.base import UnitModel
from golden.units.mrmu import sat_add

__all__ = ["Womu", "sum_bits"]


def sum_bits(window: int, warps: int) -> int:
    """Width of the WOMU's accumulator: the sum of ``warps`` over ``window`` cycles fits."""
    return max(1, (window * warps).bit_length())


class Womu(UnitModel):
    """Cycle-level model of the WOMU.

    Parameters
    ----------
    window : int
        Sampling window in cycles (kim20: 5,000).
    warps : int
        Warp slots per SM (kim20's Pascal: 32).

    Raises
    ------
    ValueError
        If ``window`` or ``warps`` is not positive.
    """

    def __init__(self, *, window: int = 5000, warps: int = 32) -> None:
        for name, v in (("window", window), ("warps", warps)):
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}: must be a positive integer, not {v!r}")
        self.window, self.warps = window, warps
        self.bits = sum_bits(window, warps)
        self.inputs = {"clear": 1, "en": 1, "ready": warps.bit_length()}
        self.outputs = {"total": self.bits}
        self.reset()

    def reset(self) -> None:
        self.total = 0

    def next_total(self, clear: int, en: int, ready: int) -> int:
        """The sum after this cycle's clock edge."""
        if clear:
            return sat_add(0, ready, self.bits)
        return sat_add(self.total, ready, self.bits) if en else self.total

    def step(self, *, clear: int = 0, en: int = 0, ready: int = 0) -> dict[str, int]:
        out = {"total": self.total}
        self.total = self.next_total(clear, en, ready)
        return out
