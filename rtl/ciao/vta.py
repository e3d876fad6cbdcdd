"""ciao18's victim tag array: one row of FIFO-replaced victim tags per warp, with the evicting WID."""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Module, Mux, Signal
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import exact_log2

from rtl.ciao.common import WID_BITS, require

__all__ = ["Vta", "vta_entry"]


def vta_entry(line_bits: int) -> data.StructLayout:
    """One victim tag in the SRAM: the evicted line and the WID of the warp that evicted it (its valid bit
    is a register)."""
    return data.StructLayout({"line": line_bits, "wid": WID_BITS})


class Vta(wiring.Component):
    """ciao18's VTA (Section II-C, Table I: 48 sets of 8 tags, FIFO); golden model ``golden.units.ciao_vta``.

    One SRAM ``entries`` of ``warps`` rows, a row holding ``ways`` entries of
    :func:`vta_entry` (written per entry), with one synchronous read port
    transparent for its write port; the entries' valid bits (``ways`` per
    warp) and a ``log2(ways)``-bit FIFO pointer per warp are registers.

    * **insertion** (cycle *t*): writes ``{line, wid}`` into the entry the
      set's pointer names at the edge ending *t*, sets its valid bit and
      advances the pointer.
    * **probe s1** (*t*): the set's row is read at the edge (it sees that
      edge's insertion).
    * **probe s2** (*t* + 1): the valid bits of the set (registers, as
      written at the edge ending *t*) and the row give the lowest valid way
      with the line: the hit, way and evicting WID are shown, and the
      entry's valid bit is cleared at the edge ending *t* + 1 unless that
      edge's insertion sets it (the insertion wins).

    Latency 1 cycle, one insertion and one probe per cycle, never stalls.

    Parameters
    ----------
    warps : int
        Sets (48), at most 64.
    ways : int
        Tags per set (8), a power of 2.
    line_bits : int
        Width of a line address (41: 48-bit addresses, 128-byte lines).

    A ``kernel_start`` in *t* clears every valid bit and FIFO pointer at
    the edge ending *t* (over that edge's insertion and invalidation).

    Members
    -------
    kernel_start : In
        A kernel starts: every entry invalid, every pointer 0.
    s1_ins : In
        ``valid``, ``set`` (WID of the warp that brought the evicted line), ``line``, ``wid`` (evicting warp).
    s1_probe : In
        ``valid``, ``set`` (the missing warp), ``line``.
    s2_probe : Out
        ``valid``, ``hit``, ``way``, ``wid`` of the previous cycle's probe (0 without a hit).

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, warps: int = 48, ways: int = 8, line_bits: int = 41) -> None:
        self._warps = require("warps", warps, 1, 1 << WID_BITS)
        self._ways = require("ways", ways, 1, 64, pow2=True)
        self._line_bits = require("line_bits", line_bits, 1, 64)
        wb = max(1, exact_log2(ways))
        super().__init__({
            "kernel_start": In(1),
            "s1_ins": In(wiring.Signature({"valid": Out(1), "set": Out(WID_BITS), "line": Out(line_bits),
                                           "wid": Out(WID_BITS)})),
            "s1_probe": In(wiring.Signature({"valid": Out(1), "set": Out(WID_BITS), "line": Out(line_bits)})),
            "s2_probe": Out(wiring.Signature({"valid": Out(1), "hit": Out(1), "way": Out(wb),
                                              "wid": Out(WID_BITS)})),
        })

    @property
    def row(self) -> data.ArrayLayout:
        """Layout of a row of the SRAM: ``ways`` victim tags."""
        return data.ArrayLayout(vta_entry(self._line_bits), self._ways)

    def elaborate(self, platform):
        m = Module()
        ways, wb = self._ways, max(1, exact_log2(self._ways))
        m.submodules.entries = entries = memory.Memory(shape=self.row, depth=self._warps, init=[])
        wr = entries.write_port(granularity=1)
        rd = entries.read_port(transparent_for=(wr,))
        ptr = Array(Signal(wb, name=f"ptr{i}") for i in range(self._warps))
        valid = Array(Signal(ways, name=f"valid{i}") for i in range(self._warps))

        # Insertion: the FIFO pointer's entry.
        ins = self.s1_ins
        ins_way = Signal(wb)
        m.d.comb += ins_way.eq(ptr[ins.set])
        entry = Signal(vta_entry(self._line_bits))
        m.d.comb += [entry.line.eq(ins.line), entry.wid.eq(ins.wid), wr.addr.eq(ins.set)]
        for w in range(ways):
            m.d.comb += wr.data[w].eq(entry)
        m.d.comb += wr.en.eq(ins.valid << ins_way)
        with m.If(ins.valid):
            m.d.sync += ptr[ins.set].eq(ins_way + 1)

        # Probe s1: read the set's row.
        p = self.s1_probe
        s2_valid, s2_set, s2_line = Signal(), Signal(WID_BITS), Signal(self._line_bits)
        m.d.comb += [rd.addr.eq(p.set), rd.en.eq(p.valid)]
        m.d.sync += [s2_valid.eq(p.valid), s2_set.eq(p.set), s2_line.eq(p.line)]

        # Probe s2: compare, show, invalidate.
        row_valid = Signal(ways)
        m.d.comb += row_valid.eq(valid[s2_set])
        match = Cat(*(row_valid[w] & (rd.data[w].line == s2_line) for w in range(ways)))
        way = Signal(wb)
        for w in reversed(range(ways)):
            with m.If(match[w]):
                m.d.comb += way.eq(w)
        hit = s2_valid & match.any()
        for k in range(self._warps):
            clear = Mux(hit & (s2_set == k), 1 << way, 0)
            put = Mux(ins.valid & (ins.set == k), 1 << ins_way, 0)
            m.d.sync += valid[k].eq((valid[k] & ~clear) | put)
        with m.If(self.kernel_start):
            for k in range(self._warps):
                m.d.sync += [valid[k].eq(0), ptr[k].eq(0)]
        r = self.s2_probe
        m.d.comb += [r.valid.eq(s2_valid), r.hit.eq(hit), r.way.eq(way & hit.replicate(wb)),
                     r.wid.eq(rd.data[way].wid & hit.replicate(WID_BITS))]
        return m
