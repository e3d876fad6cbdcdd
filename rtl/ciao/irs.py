"""ciao18's IRS cut-off unit: per-warp VTA-hit counters, the instruction counter, epoch samplers and the test
``IRS_k > cut-off`` of Eq. 1 without a divider."""

from __future__ import annotations

from fractions import Fraction

from amaranth.hdl import Array, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from rtl.ciao.common import WID_BITS, require
from rtl.common.saturating import sat_inc

__all__ = ["IrsUnit", "IrsTest"]


def _check_cutoffs(high_cutoff: object, low_cutoff: object) -> tuple[Fraction, Fraction]:
    for name, c in (("high_cutoff", high_cutoff), ("low_cutoff", low_cutoff)):
        if not isinstance(c, Fraction) or not 0 < c <= 1:
            raise ValueError(f"{name}: must be a Fraction in (0, 1], not {c!r}")
    return high_cutoff, low_cutoff


class IrsTest(wiring.Component):
    """Eq. 1 against both cut-offs without a divider: ``IRS = H / (N / A) > p / q`` as ``H * A * q > p * N``.

    Combinational: a ``counter_bits`` x 7-bit multiplier, two constant
    multiplications (shifts and adds) per cut-off and two comparators. The
    part of the IRS unit ciao18 costs at 2,112 gates (``docs/synthesis.md``).

    Parameters
    ----------
    counter_bits : int
        Width of the hit and instruction counts (32).
    high_cutoff, low_cutoff : Fraction
        Cut-offs (1/100, 1/200).

    Members
    -------
    hits, inst, active : In
        ``H``, ``N`` and ``A``.
    over_high, over_low : Out(1)
        ``IRS > high_cutoff``, ``IRS > low_cutoff``.
    """

    def __init__(self, *, counter_bits: int = 32, high_cutoff: Fraction = Fraction(1, 100),
                 low_cutoff: Fraction = Fraction(1, 200)) -> None:
        self._counter_bits = require("counter_bits", counter_bits, 1, 32)
        self._cutoffs = _check_cutoffs(high_cutoff, low_cutoff)
        super().__init__({"hits": In(counter_bits), "inst": In(counter_bits), "active": In(WID_BITS + 1),
                          "over_high": Out(1), "over_low": Out(1)})

    def elaborate(self, platform):
        m = Module()
        ha = Signal(self._counter_bits + WID_BITS + 1)
        m.d.comb += ha.eq(self.hits * self.active)
        over = [ha * c.denominator > self.inst * c.numerator for c in self._cutoffs]
        m.d.comb += [self.over_high.eq(over[0]), self.over_low.eq(over[1])]
        return m


class IrsUnit(wiring.Component):
    """ciao18's IRS unit (Eq. 1, Sections IV-A and V-F), golden model ``golden.units.ciao_irs.IrsUnit``.

    Registers: ``warps`` VTA-hit counters and the instruction counter
    (``counter_bits``, saturating), two epoch samplers (low, high) and the
    epoch flags. Eq. 1's ``IRS_k = H_k / (N / A) > p / q`` is tested as
    ``H_k * A * q > p * N`` (:class:`IrsTest`, submodule ``test``). The
    query's warp selects its counter through a ``warps``:1 mux; the result
    is registered (latency 1). A VTA hit increments its warp's counter
    through one shared incrementer. ``kernel_start`` clears every register.

    Parameters
    ----------
    warps : int
        Counters (48).
    counter_bits : int
        Counter width (32).
    high_cutoff, low_cutoff : Fraction
        Cut-offs ``p / q`` (1/100, 1/200).
    high_epoch, low_epoch : int
        Instructions per epoch (5,000, 100), at least ``issue_width * lanes``.
    issue_width : int
        Most warp instructions per cycle (2).
    lanes : int
        What one warp instruction adds to the count (1: warp instructions; 32: thread
        instructions, the ciao18 policies' default), up to 64.

    Members
    -------
    kernel_start, inst, active : In
        Clear; instructions counted this cycle (up to ``issue_width * lanes``); active warps.
    hit : In
        ``valid``, ``wid``: a VTA hit.
    s1_q : In
        ``valid``, ``wid``: the warp to test.
    epoch_low, epoch_high : Out(1)
        An epoch ended in the previous cycle.
    s2_q : Out
        ``valid``, ``over_high``, ``over_low`` of the previous cycle's query.

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, warps: int = 48, counter_bits: int = 32, high_cutoff: Fraction = Fraction(1, 100),
                 low_cutoff: Fraction = Fraction(1, 200), high_epoch: int = 5000, low_epoch: int = 100,
                 issue_width: int = 2, lanes: int = 1) -> None:
        self._warps = require("warps", warps, 1, 1 << WID_BITS)
        self._counter_bits = require("counter_bits", counter_bits, 1, 32)
        self._issue_width = require("issue_width", issue_width, 1, 3)
        per_cycle = issue_width * require("lanes", lanes, 1, 64)
        self._epochs = (require("low_epoch", low_epoch, per_cycle, 1 << 24),
                        require("high_epoch", high_epoch, per_cycle, 1 << 24))
        self._cutoffs = _check_cutoffs(high_cutoff, low_cutoff)
        super().__init__({
            "kernel_start": In(1), "inst": In(per_cycle.bit_length()),
            "hit": In(wiring.Signature({"valid": Out(1), "wid": Out(WID_BITS)})),
            "active": In(WID_BITS + 1),
            "s1_q": In(wiring.Signature({"valid": Out(1), "wid": Out(WID_BITS)})),
            "epoch_low": Out(1), "epoch_high": Out(1),
            "s2_q": Out(wiring.Signature({"valid": Out(1), "over_high": Out(1), "over_low": Out(1)})),
        })

    def elaborate(self, platform):
        m = Module()
        cb = self._counter_bits
        top = (1 << cb) - 1
        hits = Array(Signal(cb, name=f"hits{k}") for k in range(self._warps))
        inst = Signal(cb)

        # The test, on the registers during the query's cycle.
        m.submodules.test = test = IrsTest(counter_bits=cb, high_cutoff=self._cutoffs[0],
                                           low_cutoff=self._cutoffs[1])
        m.d.comb += [test.hits.eq(hits[self.s1_q.wid]), test.inst.eq(inst), test.active.eq(self.active)]
        r = self.s2_q
        m.d.sync += [r.valid.eq(self.s1_q.valid), r.over_high.eq(self.s1_q.valid & test.over_high),
                     r.over_low.eq(self.s1_q.valid & test.over_low)]

        # Counting.
        with m.If(self.kernel_start):
            m.d.sync += [x.eq(0) for x in hits] + [inst.eq(0), self.epoch_low.eq(0), self.epoch_high.eq(0)]
        with m.Else():
            with m.If(self.hit.valid):
                m.d.sync += hits[self.hit.wid].eq(sat_inc(hits[self.hit.wid]))
            total = inst + self.inst
            m.d.sync += inst.eq(Mux(total > top, top, total))
        for k, (length, flag) in enumerate(zip(self._epochs, (self.epoch_low, self.epoch_high), strict=True)):
            sampler = Signal(ceil_log2(length + 1), name=("sample_low", "sample_high")[k])
            s = sampler + self.inst
            end = s >= length
            with m.If(self.kernel_start):
                m.d.sync += sampler.eq(0)
            with m.Else():
                m.d.sync += [sampler.eq(Mux(end, s - length, s)), flag.eq(end)]
        return m
