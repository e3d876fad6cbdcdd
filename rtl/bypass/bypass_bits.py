"""tian15's L2 ``bypassBit`` store: one bit per L2 line, read-and-clear / set."""

from __future__ import annotations

from amaranth.hdl import Module, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from rtl.common.signature import ParamSignature
from rtl.common.stage import register_bundle

__all__ = ["BypassBits", "BitRequest", "LineFill", "BitResponse"]


def _check_geometry(sets: object, ways: object) -> None:
    if not isinstance(sets, int) or sets < 1 or sets & (sets - 1):
        raise ValueError(f"Sets must be a positive power of 2, not {sets}")
    if not isinstance(ways, int) or ways < 1:
        raise ValueError(f"Ways must be positive, not {ways}")


class _LineSignature(ParamSignature):
    """An L2 line (set, way) with a valid bit, from the requester's side; ``extra`` members added."""

    def __init__(self, sets: int, ways: int, extra: dict) -> None:
        _check_geometry(sets, ways)
        self._sets, self._ways = sets, ways
        super().__init__({"valid": Out(1), "set": Out(max(1, ceil_log2(sets))),
                          "way": Out(max(1, ceil_log2(ways))), **extra}, sets=sets, ways=ways)

    @property
    def sets(self) -> int:
        return self._sets

    @property
    def ways(self) -> int:
        return self._ways


class BitRequest(_LineSignature):
    """An L1 fill request served by L2 line (set, way), with the L1's prediction.

    Parameters
    ----------
    sets, ways : int
        L2 geometry.

    Members
    -------
    valid, set, way : Out
        The request and its line.
    bypass : Out(1)
        The L1 predicted bypass (tian15 Listing 1, SendMemReq).
    """

    def __init__(self, *, sets: int, ways: int) -> None:
        super().__init__(sets, ways, {"bypass": Out(1)})


class LineFill(_LineSignature):
    """The L2 (re)fills line (set, way): its bit is cleared.

    Parameters
    ----------
    sets, ways : int
        L2 geometry.

    Members
    -------
    valid, set, way : Out
        The fill and its line.
    """

    def __init__(self, *, sets: int, ways: int) -> None:
        super().__init__(sets, ways, {})


class BitResponse(ParamSignature):
    """The bypassBit returned with the data, from the store's side.

    Members
    -------
    valid : Out(1)
        The previous cycle's request is answered.
    bit : Out(1)
        Its line's bypassBit (0 when not ``valid``).
    """

    def __init__(self) -> None:
        super().__init__({"valid": Out(1), "bit": Out(1)})


class BypassBits(wiring.Component):
    """One ``bypassBit`` per L2 line (tian15 Section 3.1, Listing 1), two stages.

    The golden model is ``golden.units.bypass_bits.BypassBits``. The store is
    an SRAM of ``sets * ways`` one-bit words, addressed ``set * ways + way``,
    with one synchronous read port and two write ports.

    * **s1** (cycle *t*): ``s1_req`` addresses the SRAM (read at the edge);
      ``s1_fill`` is registered.
    * **s2** (cycle *t* + 1): ``s2_resp.bit`` is the line's bit; at the edge
      ending the cycle the request writes ``bypass & ~bit`` (read-and-clear,
      then set for a bypass that stands) and the fill writes 0, the fill
      winning on the same line.

    Latency 1 cycle; throughput one request and one fill per cycle, no stall.
    Hazard: a request to the line that the request or fill of the previous
    cycle writes; the read port is transparent for both write ports, so it
    reads the value written at that edge (no stall, no forwarding mux).
    A request and a fill of one line in the same cycle: the request reads
    the bit before the fill, and the fill's clear wins. ``rst`` does not
    clear the store (it starts at 0).

    Parameters
    ----------
    sets : int
        L2 sets, a power of 2.
    ways : int
        L2 ways.

    Members
    -------
    s1_req : In(BitRequest)
        An L1 miss request served by the L2 line (set, way) and the L1's prediction.
    s1_fill : In(LineFill)
        The L2 fills the line (set, way).
    s2_resp : Out(BitResponse)
        The bypassBit of the previous cycle's request.

    Raises
    ------
    ValueError
        If ``sets`` is not a power of 2 or ``ways`` is not positive.
    """

    def __init__(self, *, sets: int, ways: int) -> None:
        _check_geometry(sets, ways)
        self._sets, self._ways = sets, ways
        super().__init__({
            "s1_req": In(BitRequest(sets=sets, ways=ways)),
            "s1_fill": In(LineFill(sets=sets, ways=ways)),
            "s2_resp": Out(BitResponse()),
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
        wr = bits.write_port()
        clr = bits.write_port()
        rd = bits.read_port(transparent_for=(wr, clr))

        aw = ceil_log2(self.storage_bits)
        s2_req = register_bundle(m, BitRequest(sets=self._sets, ways=self._ways), self.s1_req, name="s2_req")
        s2_fill = register_bundle(m, LineFill(sets=self._sets, ways=self._ways), self.s1_fill,
                                  name="s2_fill")
        addr = Signal(max(1, aw))
        m.d.comb += [
            rd.addr.eq(self.s1_req.set * self._ways + self.s1_req.way),
            rd.en.eq(self.s1_req.valid),
            addr.eq(s2_req.set * self._ways + s2_req.way),
        ]
        fill_addr = s2_fill.set * self._ways + s2_fill.way
        bit = rd.data & s2_req.valid
        m.d.comb += [
            self.s2_resp.valid.eq(s2_req.valid),
            self.s2_resp.bit.eq(bit),
            wr.addr.eq(addr),
            wr.data.eq(s2_req.bypass & ~bit),
            # The fill's clear wins: the request's write is dropped on the same line.
            wr.en.eq(s2_req.valid & ~(s2_fill.valid & (fill_addr == addr))),
            clr.addr.eq(fill_addr),
            clr.data.eq(0),
            clr.en.eq(s2_fill.valid),
        ]
        return m
