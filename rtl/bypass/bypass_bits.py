"""tian15's L2 ``bypassBit`` store: one bit per L2 line, read-and-clear / set."""

from __future__ import annotations

from amaranth.hdl import Module, Mux
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

__all__ = ["BypassBits"]


class BypassBits(wiring.Component):
    """One ``bypassBit`` per L2 line (tian15 Section 3.1, Listing 1).

    The golden model is ``golden.units.bypass_bits.BypassBits``. Per cycle::

        resp_bit = req_valid ? bits[req_set][req_way] : 0
        if req_valid:  bits[req_set][req_way] <= req_bypass & ~resp_bit
        if fill_valid: bits[fill_set][fill_way] <= 0      (wins on the same line)

    ``resp_bit`` is combinational (same cycle); updates land at the clock
    edge. The store is a memory of ``sets * ways`` one-bit words, addressed
    ``set * ways + way``, with one read and two write ports; ``rst`` does not
    clear it (it starts at 0).

    Parameters
    ----------
    sets : int
        L2 sets, a power of 2.
    ways : int
        L2 ways.

    Members
    -------
    req_valid, req_set, req_way, req_bypass : In
        An L1 miss request served by the L2 line (set, way); ``req_bypass`` is
        the L1's prediction.
    fill_valid, fill_set, fill_way : In
        The L2 fills the line (set, way): its bit is cleared.
    resp_bit : Out(1)
        The bypassBit returned with the data.

    Raises
    ------
    ValueError
        If ``sets`` is not a power of 2 or ``ways`` is not positive.
    """

    def __init__(self, *, sets: int, ways: int) -> None:
        if not isinstance(sets, int) or sets < 1 or sets & (sets - 1):
            raise ValueError(f"Sets must be a positive power of 2, not {sets}")
        if not isinstance(ways, int) or ways < 1:
            raise ValueError(f"Ways must be positive, not {ways}")
        self._sets, self._ways = sets, ways
        sb, wb = max(1, ceil_log2(sets)), max(1, ceil_log2(ways))
        super().__init__({
            "req_valid": In(1),
            "req_set": In(sb),
            "req_way": In(wb),
            "req_bypass": In(1),
            "fill_valid": In(1),
            "fill_set": In(sb),
            "fill_way": In(wb),
            "resp_bit": Out(1),
        })

    @property
    def sets(self) -> int:
        return self._sets

    @property
    def ways(self) -> int:
        return self._ways

    @property
    def storage_bits(self) -> int:
        """Bits of state: one per L2 line."""
        return self._sets * self._ways

    def elaborate(self, platform):
        m = Module()
        m.submodules.bits = bits = memory.Memory(shape=1, depth=self.storage_bits, init=[])
        rd = bits.read_port(domain="comb")
        wr = bits.write_port()
        clr = bits.write_port()
        addr = self.req_set * self._ways + self.req_way
        fill_addr = self.fill_set * self._ways + self.fill_way
        resp = Mux(self.req_valid, rd.data, 0)
        m.d.comb += [
            rd.addr.eq(addr),
            wr.addr.eq(addr),
            self.resp_bit.eq(resp),
            wr.data.eq(self.req_bypass & ~resp),
            # The fill's clear wins: the request's write is dropped on the same line.
            wr.en.eq(self.req_valid & ~(self.fill_valid & (fill_addr == addr))),
            clr.addr.eq(fill_addr),
            clr.data.eq(0),
            clr.en.eq(self.fill_valid),
        ]
        return m
