"""ciao18's IRS cut-off unit: VTA-hit counters, instruction counter, epoch samplers, cut-off tests.

ciao18 Eq. 1 (Section IV-A)::

    IRS_i = F_VTA-hits^i / (N_executed-inst / N_active-warp)

with per-warp 32-bit VTA-hit counters (48 registers, reset "at the start
of each kernel", Section V-F), a total instruction counter per SM and two
epoch samplers: a high cut-off epoch of 5,000 instructions and a low
cut-off epoch of 100 (the cut-offs 0.01 and 0.005). Algorithm 1 writes
``VTAHit[k] / InstNo / ActiveWarpNo``, which is ``F / (N * A)``, not Eq. 1's
``F * A / N``; we follow Eq. 1 (the text's "VTA hits per instruction" of a
warp, with the instructions shared among the active warps).

**Cumulative.** The counters count from the start of the kernel (the
paper resets them per kernel and sizes them so they do not overflow); an
epoch only says *when* to test. The unit has no per-epoch copy.

**No divider.** With the cut-off ``c = p / q`` (a fraction with a
denominator up to 2^16: 1/100 and 1/200 for the paper's values),
``IRS_i > c`` is ``F_i * A * q > p * N`` for ``N > 0`` (both sides
integers: one multiplication by the active-warp count, a multiplication
by constants, i.e. shifts and adds, and a comparator). At ``N = 0`` the
test reads ``F_i * A > 0`` (IRS is infinite with hits and no
instructions; 0 without hits). ``A = 0`` never passes.

Ports (``rtl.ciao.IrsUnit`` has the same)::

    in   kernel_start                 clear every counter (a kernel starts)
    in   inst [2]                     warp instructions issued this cycle (0 to issue_width)
    in   hit__valid, hit__wid [6]     a VTA hit of warp ``wid``
    in   active [7]                   N_active-warp (0 to 64)
    in   s1_q__valid, s1_q__wid [6]   test warp ``wid``'s IRS against both cut-offs
    out  epoch_low, epoch_high        a low / high cut-off epoch ended in the previous cycle
    out  s2_q__valid, __over_high, __over_low

Protocol (latency 1, never stalls): a query in cycle *t* tests the
counters as they are during *t* (before *t*'s hit and instructions) with
``active`` of *t*, and shows the result in *t* + 1. At the edge ending *t*
the counters count (saturating at 2^32 - 1) and each sampler adds
``inst``; a sampler reaching its epoch subtracts it and raises its output
for cycle *t* + 1. ``kernel_start`` clears the counters, samplers and
epoch outputs at the edge (over the cycle's own counts).

Which warp is tested at an epoch end (ciao18: the warp at the front of the
warp list, one per epoch) is the scheduler's choice; the unit answers one
query per cycle.
"""

from __future__ import annotations

from fractions import Fraction

from golden.units.base import UnitModel
from golden.units.ciao_common import WID_BITS, check_input, check_int

__all__ = ["IrsUnit", "cutoff_fraction", "over_cutoff", "over_pq", "irs", "IRS_WARPS", "IRS_COUNTER_BITS",
           "HIGH_CUTOFF", "LOW_CUTOFF", "HIGH_EPOCH", "LOW_EPOCH", "check_irs_params"]

#: ciao18 Sections IV-A and V-F.
IRS_WARPS, IRS_COUNTER_BITS = 48, 32
HIGH_CUTOFF, LOW_CUTOFF, HIGH_EPOCH, LOW_EPOCH = 0.01, 0.005, 5000, 100
#: Largest denominator of a cut-off's fraction.
MAX_DENOMINATOR = 1 << 16


def cutoff_fraction(name: str, cutoff: object) -> Fraction:
    """The cut-off as ``p / q`` (``q`` up to 2^16); ValueError naming ``name`` unless it is in (0, 1]."""
    if isinstance(cutoff, bool) or not isinstance(cutoff, int | float | Fraction) or not 0 < cutoff <= 1:
        raise ValueError(f"{name}: must be a number in (0, 1], not {cutoff!r}")
    f = Fraction(cutoff).limit_denominator(MAX_DENOMINATOR)
    if f == 0:
        raise ValueError(f"{name}: {cutoff!r} is below 1/{MAX_DENOMINATOR}")
    return f


def irs(hits: int, inst: int, active: int) -> float:
    """Eq. 1: ``hits / (inst / active)`` (``inf`` with hits and no instructions, 0 without hits)."""
    if hits == 0 or active == 0:
        return 0.0
    return float("inf") if inst == 0 else hits * active / inst


def over_cutoff(hits: int, inst: int, active: int, cutoff: Fraction) -> bool:
    """``IRS > cutoff`` without a division: ``hits * active * q > p * inst``."""
    return over_pq(hits, inst, active, cutoff.numerator, cutoff.denominator)


def over_pq(hits: int, inst: int, active: int, p: int, q: int) -> bool:
    """``IRS > p / q`` without a division (plain integers; the ciao18 policies compile it with numba)."""
    return hits * active * q > p * inst


def check_irs_params(warps: object, counter_bits: object, high_cutoff: object, low_cutoff: object,
                     high_epoch: object, low_epoch: object, issue_width: object) -> tuple[Fraction, Fraction]:
    """Raise ValueError naming the first unusable parameter; return the cut-offs as fractions."""
    check_int("warps", warps, 1, 1 << WID_BITS)
    check_int("counter_bits", counter_bits, 1, 32)
    check_int("issue_width", issue_width, 1, 3)
    hi, lo = cutoff_fraction("high_cutoff", high_cutoff), cutoff_fraction("low_cutoff", low_cutoff)
    for name, v in (("high_epoch", high_epoch), ("low_epoch", low_epoch)):
        if isinstance(v, int) and not isinstance(v, bool) and v <= 0:
            raise ValueError(f"{name}: must be positive, not {v}")
        check_int(name, v, issue_width, 1 << 24)
    return hi, lo


class IrsUnit(UnitModel):
    """Cycle-level model of the IRS cut-off unit (ports and protocol in the module docstring).

    Parameters
    ----------
    warps : int
        VTA-hit counters, one per warp (48).
    counter_bits : int
        Width of the VTA-hit and instruction counters (32).
    high_cutoff, low_cutoff : float
        Cut-offs (0.01, 0.005), in (0, 1].
    high_epoch, low_epoch : int
        Instructions per epoch (5,000, 100), at least ``issue_width``.
    issue_width : int
        Most warp instructions issued per cycle (2: GTX480's two warp schedulers per SM).

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, warps: int = IRS_WARPS, counter_bits: int = IRS_COUNTER_BITS,
                 high_cutoff: float = HIGH_CUTOFF, low_cutoff: float = LOW_CUTOFF,
                 high_epoch: int = HIGH_EPOCH, low_epoch: int = LOW_EPOCH, issue_width: int = 2) -> None:
        self.hi, self.lo = check_irs_params(warps, counter_bits, high_cutoff, low_cutoff, high_epoch,
                                            low_epoch, issue_width)
        self.warps, self.counter_bits, self.issue_width = warps, counter_bits, issue_width
        self.high_epoch, self.low_epoch = high_epoch, low_epoch
        self.inputs = {"kernel_start": 1, "inst": 2, "hit__valid": 1, "hit__wid": WID_BITS,
                       "active": WID_BITS + 1, "s1_q__valid": 1, "s1_q__wid": WID_BITS}
        self.outputs = {"epoch_low": 1, "epoch_high": 1, "s2_q__valid": 1, "s2_q__over_high": 1,
                        "s2_q__over_low": 1}
        self.reset()

    def reset(self) -> None:
        self.hits = [0] * self.warps
        self.inst = 0
        self.samplers = [0, 0]  # low, high
        self.epoch = [0, 0]
        self.q = None  # (over_high, over_low) of the query in stage 2

    def step(self, *, kernel_start: int = 0, inst: int = 0, hit__valid: int = 0, hit__wid: int = 0,
             active: int = 0, s1_q__valid: int = 0, s1_q__wid: int = 0) -> dict[str, int]:
        check_input("inst", inst, self.issue_width + 1)
        check_input("active", active, (1 << WID_BITS) + 1)
        out = dict.fromkeys(self.outputs, 0)
        out["epoch_low"], out["epoch_high"] = self.epoch
        if self.q is not None:
            out.update(s2_q__valid=1, s2_q__over_high=self.q[0], s2_q__over_low=self.q[1])
        self.q = None
        if s1_q__valid:
            h = self.hits[check_input("s1_q__wid", s1_q__wid, self.warps)]
            self.q = tuple(int(over_cutoff(h, self.inst, active, c)) for c in (self.hi, self.lo))
        # The clock edge.
        if kernel_start:
            self.hits = [0] * self.warps
            self.inst, self.samplers, self.epoch = 0, [0, 0], [0, 0]
            return out
        top = (1 << self.counter_bits) - 1
        if hit__valid:
            w = check_input("hit__wid", hit__wid, self.warps)
            self.hits[w] = min(self.hits[w] + 1, top)
        self.inst = min(self.inst + inst, top)
        for k, length in enumerate((self.low_epoch, self.high_epoch)):
            s = self.samplers[k] + inst
            self.epoch[k] = int(s >= length)
            self.samplers[k] = s - length if s >= length else s
        return out
