"""tian15's L2 ``bypassBit`` store: one bit per L2 line, read-and-clear / set."""

from __future__ import annotations

from amaranth.hdl import Module, Mux
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

__all__ = ["BypassBits"]


class BypassBits(wiring.Component):
    """One ``bypassBit`` per L2 line (tian15 Section 3.1, Listing 1).

    The golden model is ``golden.units.bypass_bits.BypassBits``. Per request
    (``req_valid``)::

        resp_bit = req_hit ? bits[set][way] : 0
        bits[set][way] <= req_bypass & ~resp_bit

    ``resp_bit`` is combinational (same cycle); the update lands at the
    clock edge. The store is a memory of ``sets * ways`` one-bit words,
    addressed ``set * ways + way``; ``rst`` does not clear it (it starts at 0).

    Parameters
    ----------
    sets : int
        L2 sets, a power of 2.
    ways : int
        L2 ways.

    Members
    -------
    req_valid, req_set, req_way, req_hit, req_bypass : In
        An L1 miss request at the L2 line (set, way); ``req_hit`` is 0 when the
        L2 has just filled the line; ``req_bypass`` is the L1's prediction.
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
        super().__init__({
            "req_valid": In(1),
            "req_set": In(max(1, ceil_log2(sets))),
            "req_way": In(max(1, ceil_log2(ways))),
            "req_hit": In(1),
            "req_bypass": In(1),
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
        addr = self.req_set * self._ways + self.req_way
        resp = Mux(self.req_valid & self.req_hit, rd.data, 0)
        m.d.comb += [
            rd.addr.eq(addr),
            wr.addr.eq(addr),
            self.resp_bit.eq(resp),
            wr.data.eq(self.req_bypass & ~resp),
            wr.en.eq(self.req_valid),
        ]
        return m
