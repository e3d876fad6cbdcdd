"""ciao18's shared-memory address translation unit (Fig. 7c) with the MSHR entries' shared-memory field."""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import exact_log2

from rtl.ciao.common import WID_BITS, require

__all__ = ["SmemTranslate"]

#: Global address, shared-memory byte address, stored tag word (25 address bits + WID).
ADDR_BITS, SMEM_BITS, TAG_BITS = 32, 16, 31


class SmemTranslate(wiring.Component):
    """ciao18's translation unit (Section IV-B), golden model ``golden.units.ciao_smem.SmemTranslate``.

    Registers: the 8-bit row mask and the data and tag offset registers
    (configuration port), the request's stage-2 outputs. One SRAM ``mshr_smem``
    of ``mshr_entries`` x 16 bits (the MSHR entries' shared-memory address
    field: 64 B for 32 entries), one synchronous read port transparent for
    the write port.

    A request's address ``{tag16, R8, G1, B4, F3}`` becomes, with
    ``Rm = R & mask``, the data address ``{data_off + Rm, G, B, F}``, the
    tag address ``{tag_off + Rm[7:5], ~G, Rm[4:1], Rm[0], 00}`` (tag and
    data in opposite bank groups) and the tag word ``{wid, addr[31:7]}``:
    two 8-bit adders, an AND and wires. With ``index="xor"`` (not the
    paper's: ``GPUConfig.smem_cache_index``) G:R is first XORed with
    ``addr[23:15]``: 9 XOR gates more. Registered: latency 1. With
    ``alloc`` the data address is written into MSHR entry ``mshr`` at the
    edge; a fill reads its entry at the edge (after that write) and shows
    it in the next cycle.

    Parameters
    ----------
    mshr_entries : int
        L1D MSHR entries (32), a power of 2.
    index : str
        ``"mod"`` (Fig. 7c, default) or ``"xor"``.

    Members
    -------
    cfg : In
        ``valid``, ``mask``, ``data_off``, ``tag_off``: written at the edge.
    s1_req : In
        ``valid``, ``addr``, ``wid``, ``alloc``, ``mshr``.
    s1_fill : In
        ``valid``, ``mshr``.
    s2_req : Out
        ``valid``, ``data_addr``, ``tag_addr``, ``tag`` (0 when not valid).
    s2_fill : Out
        ``valid``, ``addr``.

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, mshr_entries: int = 32, index: str = "mod") -> None:
        self._mshr_entries = require("mshr_entries", mshr_entries, 1, 1024, pow2=True)
        if index not in ("mod", "xor"):
            raise ValueError(f"index: must be 'mod' or 'xor', not {index!r}")
        self._index = index
        mb = max(1, exact_log2(mshr_entries))
        super().__init__({
            "cfg": In(wiring.Signature({"valid": Out(1), "mask": Out(8), "data_off": Out(8),
                                        "tag_off": Out(8)})),
            "s1_req": In(wiring.Signature({"valid": Out(1), "addr": Out(ADDR_BITS), "wid": Out(WID_BITS),
                                           "alloc": Out(1), "mshr": Out(mb)})),
            "s1_fill": In(wiring.Signature({"valid": Out(1), "mshr": Out(mb)})),
            "s2_req": Out(wiring.Signature({"valid": Out(1), "data_addr": Out(SMEM_BITS),
                                            "tag_addr": Out(SMEM_BITS), "tag": Out(TAG_BITS)})),
            "s2_fill": Out(wiring.Signature({"valid": Out(1), "addr": Out(SMEM_BITS)})),
        })

    def elaborate(self, platform):
        m = Module()
        mask, data_off, tag_off = Signal(8), Signal(8), Signal(8)
        with m.If(self.cfg.valid):
            m.d.sync += [mask.eq(self.cfg.mask), data_off.eq(self.cfg.data_off), tag_off.eq(self.cfg.tag_off)]

        q = self.s1_req
        block = q.addr[7:16] ^ q.addr[15:24] if self._index == "xor" else q.addr[7:16]
        fb, g, rm = q.addr[:7], block[0], block[1:] & mask
        data_addr = Cat(fb, g, (data_off + rm)[:8])
        tag_addr = Cat(0, 0, rm[0], rm[1:5], ~g, (tag_off + rm[5:8])[:8])
        r = self.s2_req
        m.d.sync += [r.valid.eq(q.valid), r.data_addr.eq(data_addr & q.valid.replicate(SMEM_BITS)),
                     r.tag_addr.eq(tag_addr & q.valid.replicate(SMEM_BITS)),
                     r.tag.eq(Cat(q.addr[7:], q.wid) & q.valid.replicate(TAG_BITS))]

        m.submodules.mshr_smem = mshr = memory.Memory(shape=SMEM_BITS, depth=self._mshr_entries, init=[])
        wr = mshr.write_port()
        rd = mshr.read_port(transparent_for=(wr,))
        m.d.comb += [wr.addr.eq(q.mshr), wr.data.eq(data_addr), wr.en.eq(q.valid & q.alloc),
                     rd.addr.eq(self.s1_fill.mshr), rd.en.eq(self.s1_fill.valid)]
        fill_valid = Signal()
        m.d.sync += fill_valid.eq(self.s1_fill.valid)
        m.d.comb += [self.s2_fill.valid.eq(fill_valid),
                     self.s2_fill.addr.eq(rd.data & fill_valid.replicate(SMEM_BITS))]
        return m
