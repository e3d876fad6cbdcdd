"""kim20's miss-rate monitor unit (MRMU): two saturating counters, L1 load accesses and misses.

Ports (the RTL ``rtl.bypass.kim20.Mrmu`` has the same)::

    in   clear          the sampling window starts this cycle: the counts restart from this cycle's
    in   en             the window runs this cycle (count)
    in   loads          loads that passed the L1 lookup this cycle (0 .. the L1's ports)
    in   misses         of which missed (``misses <= loads``)
    out  accesses       the access count (13 bits, kim20 Section 3: "2 x 13 bits counters")
    out  miss_count     the miss count (13 bits)

Behaviour: ``clear`` loads the counters with this cycle's counts; otherwise, while ``en``, each adds
its input and holds at 2^13 - 1. Outputs show the counts before the clock edge. Because the inputs
are never negative, a saturating count is ``min(true count, 2^13 - 1)`` (:func:`saturated`): the
golden policy reads the timing model's window totals through that function.

Latency: the counts of cycle *t* show from cycle *t* + 1. Reset clears both counters.
"""

from __future__ import annotations

from golden.units.base import UnitModel

__all__ = ["COUNTER_BITS", "Mrmu", "saturated", "sat_add"]

#: Width of each MRMU counter (kim20 Section 3).
COUNTER_BITS = 13


def saturated(total: int, bits: int) -> int:
    """A saturating ``bits``-bit counter that counted ``total`` in non-negative steps."""
    return min(int(total), (1 << bits) - 1)


def sat_add(value: int, inc: int, bits: int) -> int:
    """``value + inc`` held at the all-ones maximum of ``bits`` bits."""
    return min(value + inc, (1 << bits) - 1)


class Mrmu(UnitModel):
    """Cycle-level model of the MRMU.

    Parameters
    ----------
    count_width : int
        Width of the ``loads``/``misses`` inputs (requests per cycle: the L1's ports).
    bits : int
        Counter width (kim20: 13).

    Raises
    ------
    ValueError
        If a width is not positive.
    """

    def __init__(self, *, count_width: int = 2, bits: int = COUNTER_BITS) -> None:
        for name, v in (("count_width", count_width), ("bits", bits)):
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}: must be a positive integer, not {v!r}")
        self.count_width, self.bits = count_width, bits
        self.inputs = {"clear": 1, "en": 1, "loads": count_width, "misses": count_width}
        self.outputs = {"accesses": bits, "miss_count": bits}
        self.reset()

    def reset(self) -> None:
        self.accesses = 0
        self.miss_count = 0

    def next_counts(self, clear: int, en: int, loads: int, misses: int) -> tuple[int, int]:
        """The counts after this cycle's clock edge."""
        if clear:
            return sat_add(0, loads, self.bits), sat_add(0, misses, self.bits)
        if en:
            return sat_add(self.accesses, loads, self.bits), sat_add(self.miss_count, misses, self.bits)
        return self.accesses, self.miss_count

    def step(self, *, clear: int = 0, en: int = 0, loads: int = 0, misses: int = 0) -> dict[str, int]:
        out = {"accesses": self.accesses, "miss_count": self.miss_count}
        self.accesses, self.miss_count = self.next_counts(clear, en, loads, misses)
        return out
