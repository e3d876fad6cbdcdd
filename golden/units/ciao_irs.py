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

**Thread instructions.** ``lanes`` is what one warp instruction adds to
the count: 1 counts warp instructions, 32 thread instructions, as
GPGPU-Sim and the paper count them (the ciao18 policies' default,
``instructions="thread"``; the timing model's warps are full, so each issued
warp instruction is 32 threads). The ``inst`` input then carries up to
``issue_width * lanes`` a cycle (the active lanes of the cycle's issues).

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
    in   inst [w]                     instructions counted this cycle (0 to issue_width * lanes;
                                      w = bits of that: 2 for warp instructions, 7 for threads)
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

Whole-workload logs: the ciao18 policies (``log_sm``) record SM
``log_sm``'s kernel starts, VTA hits, cut-off tests (with the result the
policy used) and the epochs they acted on, each with the SM's instruction
count since the kernel started and its active warps
(:data:`TRANSACTION_DTYPE`). :meth:`IrsUnit.cycle_log` feeds the
instructions between two transactions at ``issue_width * lanes`` a cycle, then
the transaction in a cycle of its own; it refuses a log in which the
policy acts on an epoch the unit's sampler has not ended.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from golden.units.base import UnitModel
from golden.units.ciao_common import WID_BITS, check_input, check_int

__all__ = ["IrsUnit", "cutoff_fraction", "over_cutoff", "over_pq", "irs", "IRS_WARPS", "IRS_COUNTER_BITS",
           "HIGH_CUTOFF", "LOW_CUTOFF", "HIGH_EPOCH", "LOW_EPOCH", "check_irs_params", "inst_bits",
           "TRANSACTION_DTYPE", "TX_KERNEL", "TX_HIT", "TX_QUERY", "TX_EPOCH"]

#: ciao18 Sections IV-A and V-F.
IRS_WARPS, IRS_COUNTER_BITS = 48, 32
HIGH_CUTOFF, LOW_CUTOFF, HIGH_EPOCH, LOW_EPOCH = 0.01, 0.005, 5000, 100
#: Largest denominator of a cut-off's fraction.
MAX_DENOMINATOR = 1 << 16

#: Transaction kinds: a kernel start, a VTA hit, a cut-off test, an epoch end the policy acted on.
TX_KERNEL, TX_HIT, TX_QUERY, TX_EPOCH = 0, 1, 2, 3
#: One transaction as the golden policy records it: the kind, the warp, ``inst`` (the SM's warp
#: instructions since the kernel started), ``active`` warps, a test's results, which epochs
#: (``low``, ``high``) an epoch transaction acted on, and the access's position in the stream.
TRANSACTION_DTYPE = np.dtype([("kind", "u1"), ("wid", "u1"), ("inst", "<i8"), ("active", "u1"),
                              ("over_high", "u1"), ("over_low", "u1"), ("low", "u1"), ("high", "u1"),
                              ("access", "<i8")])


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
                     high_epoch: object, low_epoch: object, issue_width: object,
                     lanes: object = 1) -> tuple[Fraction, Fraction]:
    """Raise ValueError naming the first unusable parameter; return the cut-offs as fractions.

    An epoch must be at least the most instructions a cycle counts (``issue_width * lanes``), so
    that a sampler ends at most one epoch a cycle.
    """
    check_int("warps", warps, 1, 1 << WID_BITS)
    check_int("counter_bits", counter_bits, 1, 32)
    check_int("issue_width", issue_width, 1, 3)
    check_int("lanes", lanes, 1, 64)
    hi, lo = cutoff_fraction("high_cutoff", high_cutoff), cutoff_fraction("low_cutoff", low_cutoff)
    for name, v in (("high_epoch", high_epoch), ("low_epoch", low_epoch)):
        if isinstance(v, int) and not isinstance(v, bool) and v <= 0:
            raise ValueError(f"{name}: must be positive, not {v}")
        check_int(name, v, issue_width * lanes, 1 << 24)
    return hi, lo


def inst_bits(issue_width: int, lanes: int) -> int:
    """Width of the ``inst`` input: enough for ``issue_width * lanes`` instructions a cycle."""
    return (issue_width * lanes).bit_length()


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
        Instructions per epoch (5,000, 100), at least ``issue_width * lanes``.
    issue_width : int
        Most warp instructions issued per cycle (2: GTX480's two warp schedulers per SM).
    lanes : int
        What one warp instruction adds to the count: 1 (warp instructions) or 32 (thread
        instructions, the ciao18 policies' default), up to 64.

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, warps: int = IRS_WARPS, counter_bits: int = IRS_COUNTER_BITS,
                 high_cutoff: float = HIGH_CUTOFF, low_cutoff: float = LOW_CUTOFF,
                 high_epoch: int = HIGH_EPOCH, low_epoch: int = LOW_EPOCH, issue_width: int = 2,
                 lanes: int = 1) -> None:
        self.hi, self.lo = check_irs_params(warps, counter_bits, high_cutoff, low_cutoff, high_epoch,
                                            low_epoch, issue_width, lanes)
        self.warps, self.counter_bits, self.issue_width, self.lanes = warps, counter_bits, issue_width, lanes
        self.high_epoch, self.low_epoch = high_epoch, low_epoch
        self.inputs = {"kernel_start": 1, "inst": inst_bits(issue_width, lanes), "hit__valid": 1,
                       "hit__wid": WID_BITS,
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
        check_input("inst", inst, self.issue_width * self.lanes + 1)
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

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of recorded transactions (:data:`TRANSACTION_DTYPE`; module docstring).

        Before transaction *k*, rows with ``inst`` = ``issue_width * lanes`` (the
        last with the rest) bring the unit's instruction count to the
        transaction's; a kernel start, hit or test then takes a row of its
        own (``active`` is held from the last test), and a test's recorded
        results are the expected outputs of the next row. The epoch outputs
        follow from the instructions fed.

        Raises
        ------
        ValueError
            If the instruction count goes back within a kernel, or the policy
            acted on a low / high epoch that the unit's sampler did not end
            since the last one it acted on.
        """
        tx = transactions
        self._check_epochs(tx)
        tx = tx[tx["kind"] != TX_EPOCH]
        kind = tx["kind"]
        inst = tx["inst"].astype(np.int64)
        kernel = kind == TX_KERNEL
        prev = np.concatenate(([0], inst[:-1]))
        prev[np.flatnonzero(kernel[:-1]) + 1] = 0
        delta = np.where(kernel, 0, inst - prev)
        if (delta < 0).any():
            k = int(np.flatnonzero(delta < 0)[0])
            raise ValueError(f"transaction {k}: the instruction count goes back from {prev[k]} to {inst[k]}")
        w = self.issue_width * self.lanes
        fill = -(-delta // w)  # instruction rows before each transaction
        per = fill + 1
        start = np.cumsum(per) - per  # first row of each transaction's block
        r = start + fill  # the transaction's own row
        n_rows = int(per.sum()) + 1
        log = np.zeros(n_rows, self.cycle_log_dtype)
        # Instruction rows: ``w`` each, the block's last one the rest.
        owner = np.repeat(np.arange(len(tx)), fill)
        irow = np.arange(len(owner)) + np.repeat(start - (np.cumsum(fill) - fill), fill)
        left = delta[owner] - (irow - start[owner]) * w
        log["inst"][irow] = np.minimum(left, w)
        log["kernel_start"][r] = kernel
        hit = kind == TX_HIT
        log["hit__valid"][r] = hit
        log["hit__wid"][r] = np.where(hit, tx["wid"], 0)
        q = kind == TX_QUERY
        log["s1_q__valid"][r] = q
        log["s1_q__wid"][r] = np.where(q, tx["wid"], 0)
        # ``active`` is held from one test to the next (the unit reads it only with a test).
        held = np.full(n_rows, -1, np.int64)
        held[r[q]] = np.arange(int(q.sum()))
        held = np.maximum.accumulate(held)
        log["active"] = np.where(held >= 0, tx["active"][q][np.maximum(held, 0)], 0) if q.any() else 0
        log["exp_s2_q__valid"][r[q] + 1] = 1
        log["exp_s2_q__over_high"][r[q] + 1] = tx["over_high"][q]
        log["exp_s2_q__over_low"][r[q] + 1] = tx["over_low"][q]
        # Epoch outputs: the sampler crosses a multiple of the epoch at a row's edge.
        fed = log["inst"].astype(np.int64)
        ks_row = log["kernel_start"] != 0
        cum = np.cumsum(fed)
        base = np.maximum.accumulate(np.where(ks_row, np.arange(n_rows), -1))
        after = cum - np.where(base >= 0, cum[np.maximum(base, 0)], 0)
        for port, length in (("exp_epoch_low", self.low_epoch), ("exp_epoch_high", self.high_epoch)):
            crossed = (after // length > (after - fed) // length) & ~ks_row
            log[port][1:] = crossed[:-1]
        if len(tx):
            log["ctx_access"][:-1] = np.repeat(tx["access"], per)
            log["ctx_access"][-1] = tx["access"][-1]
        return log

    def _check_epochs(self, tx: np.ndarray) -> None:
        """Every epoch the policy acted on ended in the unit's sampler since the last one it acted on."""
        kernel = np.cumsum(tx["kind"] == TX_KERNEL)
        ep = np.flatnonzero(tx["kind"] == TX_EPOCH)
        for flag, length in (("low", self.low_epoch), ("high", self.high_epoch)):
            acted = ep[tx[flag][ep] != 0]
            n = tx["inst"][acted].astype(np.int64)
            prev = np.concatenate(([0], n[:-1]))
            prev[np.concatenate(([True], kernel[acted][1:] != kernel[acted][:-1]))] = 0
            bad = np.flatnonzero(n // length <= prev // length)
            if bad.size:
                k = int(acted[bad[0]])
                raise ValueError(f"transaction {k}: the policy acted on a {flag} epoch at "
                                 f"{int(n[bad[0]])} instructions, but the unit's {length}-instruction "
                                 f"sampler ended none since {int(prev[bad[0]])}")
