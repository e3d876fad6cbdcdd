"""RTL of the toy hit counter."""

from __future__ import annotations

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


class HitCounter(wiring.Component):
    """Counts valid hits; ``count`` is the register (the hits before this cycle). Latency 1."""

    def __init__(self, *, width: int = 16) -> None:
        if not 1 <= width <= 32:
            raise ValueError(f"Width must be 1 to 32 bits, not {width}")
        self._width = width
        super().__init__({"s1_valid": In(1), "s1_hit": In(1), "count": Out(width)})

    def elaborate(self, platform):
        m = Module()
        count = Signal(self._width)
        m.d.comb += self.count.eq(count)
        with m.If(self.s1_valid & self.s1_hit):
            m.d.sync += count.eq(count + 1)
        return m
