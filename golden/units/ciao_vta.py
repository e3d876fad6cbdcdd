"""ciao18's victim tag array (VTA): the cycle-level unit model.

ciao18 Section II-C and Table I: "8 tags per set, 48 sets, and FIFO". A
set belongs to a warp (the set index is the WID of the warp that brought
the evicted line into L1D); an entry holds the evicted line's address and
the WID of the warp whose request evicted it. A later L1D miss of warp
*w* on line *L* that finds *L* in set *w* is a VTA hit: *w* lost the line
to the entry's evicting warp (the interfering warp, which the
interference list and the IRS unit are told about).

Ports (the RTL ``rtl.ciao.Vta`` has the same)::

    in   kernel_start                                       a kernel starts: every entry invalid
    in   s1_ins__valid, __set [6], __line [41], __wid [6]   an L1D eviction
    in   s1_probe__valid, __set [6], __line [41]            an L1D miss of warp ``set``
    out  s2_probe__valid, __hit, __way [3], __wid [6]       the previous cycle's probe

Protocol (latency 1, one insertion and one probe per cycle, never
stalls): in cycle *t* the insertion writes the entry its set's FIFO
pointer names (whatever that entry holds: pure FIFO) and advances the
pointer; the probe reads its set's row at the edge ending *t*, after that
edge's writes (the insertion of *t* and the invalidation below), and in
*t* + 1 shows the lowest valid way whose line matches, with its WID. A
hit **invalidates** the entry at the edge ending *t* + 1 (a lost line is
counted once; our choice, ciao18 does not say), unless that edge's
insertion writes the same entry (the insertion wins). ``hit``, ``way``
and ``wid`` are 0 without a hit. ``kernel_start`` in *t* invalidates
every entry and resets every FIFO pointer at the edge ending *t*, over
that edge's insertion and invalidation (the golden policies clear the VTA
when a kernel starts on the SM, as the IRS unit's counters; the valid bits
and pointers are registers, so the clear is one cycle).

Whole-workload logs: the ciao18 policies (``golden/policies/ciao18.py``,
``log_sm``) record SM ``log_sm``'s insertions, probes (with the hit, way
and evicting WID they found) and kernel starts as :data:`TRANSACTION_DTYPE`
rows; :meth:`Vta.cycle_log` gives each its own cycle.
"""

from __future__ import annotations

import numpy as np

from golden.units.base import UnitModel, one_per_cycle
from golden.units.ciao_common import WID_BITS, check_input, check_int

__all__ = ["Vta", "VTA_WARPS", "VTA_WAYS", "VTA_LINE_BITS", "check_vta_params", "TRANSACTION_DTYPE",
           "TX_INSERT", "TX_PROBE", "TX_KERNEL"]

#: ciao18 Table I: 48 sets (one per warp), 8 tags per set.
VTA_WARPS, VTA_WAYS = 48, 8
#: Line address width: 48-bit byte addresses of 128-byte lines (our choice; ciao18 gives none).
VTA_LINE_BITS = 41

#: Transaction kinds: an insertion (an L1D eviction), a probe (an L1D load miss), a kernel start.
TX_INSERT, TX_PROBE, TX_KERNEL = 0, 1, 2
#: One transaction as the golden policy records it: the kind, the set (the WID of the warp that
#: brought the line in / the missing warp), the line, for an insertion the evicting warp's WID and
#: for a probe what it found (hit, way, the entry's WID), and the access's position in the stream.
TRANSACTION_DTYPE = np.dtype([("kind", "u1"), ("set", "u1"), ("line", "<i8"), ("wid", "u1"), ("hit", "u1"),
                              ("way", "u1"), ("access", "<i8")])


def check_vta_params(warps: object, ways: object, line_bits: object) -> None:
    """Raise ValueError naming the first unusable VTA parameter (``ways`` a power of 2 up to 64)."""
    check_int("warps", warps, 1, 1 << WID_BITS)
    check_int("ways", ways, 1, 64)
    if ways & (ways - 1):
        raise ValueError(f"ways: must be a power of 2, not {ways}")
    check_int("line_bits", line_bits, 1, 64)


class Vta(UnitModel):
    """Cycle-level model of the VTA (ports and protocol in the module docstring).

    Parameters
    ----------
    warps : int
        Sets, one per warp (48).
    ways : int
        Tags per set (8), a power of 2.
    line_bits : int
        Width of a line address (41).

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, warps: int = VTA_WARPS, ways: int = VTA_WAYS,
                 line_bits: int = VTA_LINE_BITS) -> None:
        check_vta_params(warps, ways, line_bits)
        self.warps, self.ways, self.line_bits = warps, ways, line_bits
        wb = max(1, (ways - 1).bit_length())
        self.inputs = {"kernel_start": 1, "s1_ins__valid": 1, "s1_ins__set": WID_BITS,
                       "s1_ins__line": line_bits, "s1_ins__wid": WID_BITS, "s1_probe__valid": 1,
                       "s1_probe__set": WID_BITS, "s1_probe__line": line_bits}
        self.outputs = {"s2_probe__valid": 1, "s2_probe__hit": 1, "s2_probe__way": wb,
                        "s2_probe__wid": WID_BITS}
        self.reset()

    def reset(self) -> None:
        self.valid = np.zeros((self.warps, self.ways), bool)
        self.line = np.zeros((self.warps, self.ways), np.int64)
        self.wid = np.zeros((self.warps, self.ways), np.int64)
        self.ptr = np.zeros(self.warps, np.int64)
        self.s2 = None  # (set, line, row snapshot (valid, line, wid)) of the probe in stage 2
        self.events = {"insertions": 0, "probes": 0, "hits": 0}

    def step(self, *, kernel_start: int = 0, s1_ins__valid: int = 0, s1_ins__set: int = 0,
             s1_ins__line: int = 0, s1_ins__wid: int = 0, s1_probe__valid: int = 0, s1_probe__set: int = 0,
             s1_probe__line: int = 0) -> dict[str, int]:
        if s1_ins__valid:
            check_input("s1_ins__set", s1_ins__set, self.warps)
        if s1_probe__valid:
            check_input("s1_probe__set", s1_probe__set, self.warps)
        out = dict.fromkeys(self.outputs, 0)
        inval = None
        if self.s2 is not None:
            s, line, (valid, lines, wids) = self.s2
            out["s2_probe__valid"] = 1
            match = np.flatnonzero(valid & (lines == line))
            if match.size:
                w = int(match[0])
                out.update(s2_probe__hit=1, s2_probe__way=w, s2_probe__wid=int(wids[w]))
                inval = (s, w)
                self.events["hits"] += 1
        # The clock edge: the invalidation, then the insertion (which wins on the same entry).
        if inval is not None:
            self.valid[inval] = False
        if s1_ins__valid:
            s, w = s1_ins__set, int(self.ptr[s1_ins__set])
            self.valid[s, w], self.line[s, w], self.wid[s, w] = True, s1_ins__line, s1_ins__wid
            self.ptr[s] = (w + 1) % self.ways
            self.events["insertions"] += 1
        if kernel_start:
            self.valid[:] = False
            self.ptr[:] = 0
        self.s2 = None
        if s1_probe__valid:
            s = s1_probe__set
            self.s2 = (s, s1_probe__line, (self.valid[s].copy(), self.line[s].copy(), self.wid[s].copy()))
            self.events["probes"] += 1
        return out

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of recorded transactions (:data:`TRANSACTION_DTYPE`): one cycle each, then an idle one.

        Transaction *k* is driven in row *k*; a probe's recorded outcome is
        the expected output of row *k* + 1 (the last row answers the last
        transaction, so logs of consecutive slices concatenate).
        """
        kind = transactions["kind"]
        prb = kind == TX_PROBE
        return one_per_cycle(self, transactions, [
            (kind == TX_KERNEL, {"kernel_start": None}),
            (kind == TX_INSERT, {"s1_ins__valid": None, "s1_ins__set": "set", "s1_ins__line": "line",
                                 "s1_ins__wid": "wid"}),
            (prb, {"s1_probe__valid": None, "s1_probe__set": "set", "s1_probe__line": "line"})], [
            (prb, {"exp_s2_probe__valid": None}),
            (prb & (transactions["hit"] != 0), {"exp_s2_probe__hit": None, "exp_s2_probe__way": "way",
                                                "exp_s2_probe__wid": "wid"})])
