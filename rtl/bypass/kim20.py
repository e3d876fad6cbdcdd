"""kim20's per-SM two-level bypassing unit: MRMU, WOMU and BDU (counters and comparators, no SRAM).

The golden models are ``golden.units.mrmu``, ``golden.units.womu``, ``golden.units.bdu`` and
``golden.units.kim20_bypass`` (ports, latencies and rules are documented there). Thresholds are
constants of the hardware: the BDU compares ``misses << 8`` with ``q * accesses`` (a constant
multiplier: shifts and adds) and the WOMU's sum with a constant, so there is no divider.
"""

from __future__ import annotations

from amaranth.hdl import Const, Module, Mux, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["Mrmu", "Womu", "Bdu", "TwoLevelBypass", "sat_add"]

FRAC_BITS = 8
COUNTER_BITS = 13


def sat_add(value: Value, inc: Value) -> Value:
    """``value + inc`` held at the all-ones maximum of ``value``'s width."""
    value = Value.cast(value)
    total = value + inc
    top = (1 << len(value)) - 1
    return Mux(total > top, top, total)[:len(value)]


def _positive(**values: int) -> None:
    for name, v in values.items():
        if not isinstance(v, int) or v < 1:
            raise ValueError(f"{name}: must be a positive integer, not {v!r}")


class Mrmu(wiring.Component):
    """Miss-rate monitor: access and miss counters (13-bit, saturating).

    ``next_accesses``/``next_misses`` are the counts after this cycle's edge (for the BDU).

    Parameters
    ----------
    count_width : int
        Width of ``loads``/``misses`` (lookups per cycle).
    bits : int
        Counter width.
    """

    def __init__(self, *, count_width: int = 2, bits: int = COUNTER_BITS) -> None:
        _positive(count_width=count_width, bits=bits)
        self.bits = bits
        super().__init__({"clear": In(1), "en": In(1), "loads": In(count_width), "misses": In(count_width),
                          "accesses": Out(bits), "miss_count": Out(bits),
                          "next_accesses": Out(bits), "next_misses": Out(bits)})

    def elaborate(self, platform) -> Module:
        m = Module()
        acc = Signal(self.bits)
        miss = Signal(self.bits)
        zero = Const(0, self.bits)
        m.d.comb += [
            self.next_accesses.eq(Mux(self.clear, sat_add(zero, self.loads),
                                      Mux(self.en, sat_add(acc, self.loads), acc))),
            self.next_misses.eq(Mux(self.clear, sat_add(zero, self.misses),
                                    Mux(self.en, sat_add(miss, self.misses), miss))),
            self.accesses.eq(acc),
            self.miss_count.eq(miss),
        ]
        m.d.sync += [acc.eq(self.next_accesses), miss.eq(self.next_misses)]
        return m


class Womu(wiring.Component):
    """Warp-occupancy monitor: the warps able to issue, summed over the window.

    Parameters
    ----------
    window : int
        Sampling window in cycles.
    warps : int
        Warp slots per SM.
    """

    def __init__(self, *, window: int = 5000, warps: int = 32) -> None:
        _positive(window=window, warps=warps)
        self.bits = max(1, (window * warps).bit_length())
        super().__init__({"clear": In(1), "en": In(1), "ready": In(warps.bit_length()),
                          "total": Out(self.bits), "next_total": Out(self.bits)})

    def elaborate(self, platform) -> Module:
        m = Module()
        total = Signal(self.bits)
        m.d.comb += [
            self.next_total.eq(Mux(self.clear, sat_add(Const(0, self.bits), self.ready),
                                   Mux(self.en, sat_add(total, self.ready), total))),
            self.total.eq(total),
        ]
        m.d.sync += total.eq(self.next_total)
        return m


class Bdu(wiring.Component):
    """Bypass decision unit: the window timer, the sampling flag and the C/B mode.

    Parameters
    ----------
    window, warps : int
        Sampling window (cycles) and warp slots per SM.
    q_l, q_h, q_w : int
        threshold_L, threshold_H, threshold_W in 1/256.
    min_accesses : int
        Fewer accesses in the window -> B mode.
    """

    def __init__(self, *, window: int = 5000, warps: int = 32, q_l: int = 93, q_h: int = 215, q_w: int = 166,
                 min_accesses: int = 32) -> None:
        _positive(window=window, warps=warps)
        for name, q in (("q_l", q_l), ("q_h", q_h), ("q_w", q_w)):
            if not isinstance(q, int) or not 0 <= q <= 1 << FRAC_BITS:
                raise ValueError(f"{name}: must be an integer in [0, {1 << FRAC_BITS}], not {q!r}")
        self.window, self.q_l, self.q_h, self.min_accesses = window, q_l, q_h, min_accesses
        self.occ_limit = q_w * warps * window
        self.timer_bits = max(1, (window - 1).bit_length())
        occ_bits = max(1, (window * warps).bit_length())
        super().__init__({"start": In(1), "accesses": In(COUNTER_BITS), "miss_count": In(COUNTER_BITS),
                          "occupancy": In(occ_bits), "sampling": Out(1), "bypass": Out(1)})

    def elaborate(self, platform) -> Module:
        m = Module()
        sampling = Signal()
        mode_b = Signal()
        left = Signal(self.timer_bits)
        next_left = Signal(self.timer_bits)
        scaled = self.miss_count << FRAC_BITS
        few = self.accesses < self.min_accesses
        low = scaled < self.accesses * self.q_l
        high = scaled > self.accesses * self.q_h
        idle = (self.occupancy << FRAC_BITS) < self.occ_limit
        decision = Signal()
        m.d.comb += [
            decision.eq(few | (~low & (high | idle))),
            next_left.eq(Mux(self.start, self.window - 1, left - 1)),
            self.sampling.eq(sampling),
            self.bypass.eq(mode_b & ~sampling),
        ]
        with m.If(self.start | sampling):
            m.d.sync += [left.eq(next_left), sampling.eq(1)]
            with m.If(next_left == 0):
                m.d.sync += [sampling.eq(0), mode_b.eq(decision)]
        return m


class TwoLevelBypass(wiring.Component):
    """The per-SM unit: MRMU and WOMU counting while the window runs, the BDU deciding at its end.

    Parameters
    ----------
    window, warps, q_l, q_h, q_w, min_accesses : int
        As :class:`Bdu`.
    ports : int
        Load lookups per cycle at most.
    """

    def __init__(self, *, window: int = 5000, warps: int = 32, q_l: int = 93, q_h: int = 215, q_w: int = 166,
                 min_accesses: int = 32, ports: int = 1) -> None:
        _positive(ports=ports)
        self.mrmu = Mrmu(count_width=ports.bit_length())
        self.womu = Womu(window=window, warps=warps)
        self.bdu = Bdu(window=window, warps=warps, q_l=q_l, q_h=q_h, q_w=q_w, min_accesses=min_accesses)
        super().__init__({"start": In(1), "ready": In(warps.bit_length()), "loads": In(ports.bit_length()),
                          "misses": In(ports.bit_length()), "sampling": Out(1), "bypass": Out(1)})

    def elaborate(self, platform) -> Module:
        m = Module()
        m.submodules.mrmu = mrmu = self.mrmu
        m.submodules.womu = womu = self.womu
        m.submodules.bdu = bdu = self.bdu
        en = self.start | bdu.sampling
        m.d.comb += [
            mrmu.clear.eq(self.start), mrmu.en.eq(en), mrmu.loads.eq(self.loads), mrmu.misses.eq(self.misses),
            womu.clear.eq(self.start), womu.en.eq(en), womu.ready.eq(self.ready),
            bdu.start.eq(self.start), bdu.accesses.eq(mrmu.next_accesses),
            bdu.miss_count.eq(mrmu.next_misses),
            bdu.occupancy.eq(womu.next_total),
            self.sampling.eq(bdu.sampling), self.bypass.eq(bdu.bypass),
        ]
        return m
