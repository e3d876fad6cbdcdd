"""ciao18's interference list: the most recently and frequently interfering warp per warp.

ciao18 Sections III-A and IV-A: 64 entries indexed by the interfered
warp's WID, each a 6-bit WID of an interfering warp and a 2-bit saturating
counter (8 bits). An update (a VTA hit of warp *i* whose entry names the
evicting warp *j*) changes entry *i* = (``wid``, ``count``):

* ``wid == j``: ``count`` is incremented, saturating at 3 (``11``);
* ``wid != j`` and ``count > 0``: ``count`` is decremented;
* ``wid != j`` and ``count == 0``: ``wid`` becomes *j*, ``count`` stays 0.

The last rule is our reading of "the interfering WID in the list entry is
replaced with the most recent interfering WID only when its saturation
counter is decreased to 00" and of the first insertion ("the interfering
WID is stored in the list entry ... and the counter in the list entry is
set to 00"): a counter at 00 is replaced by the next different warp, and
the decrement that reaches 00 does not replace (Fig. 4c's example holds
either way). Entry *i* starts as (*i*, 0): "no interfering warp" is the
warp itself, which is what Algorithm 1's test ``j != i`` reads. An update
with *j* = *i* (a warp evicting its own line) follows the same rules.

Ports (``rtl.ciao.InterferenceList`` has the same)::

    in   kernel_start                          a kernel starts: every entry back to (i, 0)
    in   s1_upd__valid, __wid [6], __by [6]    warp ``wid`` lost a line to warp ``by``
    in   s1_look__valid, __wid [6]             read warp ``wid``'s entry
    out  s2_look__valid, __by [6], __count [2] the previous cycle's lookup

Protocol (latency 1, one update and one lookup per cycle, never stalls):
an update taken in cycle *t* reads its entry at the edge ending *t* and
writes it at the edge ending *t* + 1; a read sees every write of the edge
it is read at (transparent), so back-to-back updates of one entry chain
without a stall. A lookup in *t* shows in *t* + 1 the entry after every
update taken up to *t* - 1 (not the one taken in *t*). ``kernel_start`` in
*t* puts every entry back to (*i*, 0) at the edge ending *t*, over that
edge's write (an update in stage 2 is lost); reads at that edge see the
cleared entries. The RTL keeps a valid bit per entry (a register; an
invalid entry reads as (*i*, 0)), since an SRAM cannot be cleared in a
cycle. The golden policies start the list again when a kernel starts on
the SM (``docs/policies/ciao18.md``).

Whole-workload logs: the ciao18 policies (``log_sm``) record SM
``log_sm``'s updates, lookups (with the entry they read) and kernel
starts as :data:`TRANSACTION_DTYPE` rows; :meth:`InterferenceList.cycle_log`
gives each its own cycle.
"""

from __future__ import annotations

import numpy as np

from golden.units.base import UnitModel, one_per_cycle
from golden.units.ciao_common import WID_BITS, check_input, check_int

__all__ = ["InterferenceList", "update_entry", "IL_ENTRIES", "IL_COUNTER_BITS", "TRANSACTION_DTYPE",
           "TX_UPDATE", "TX_LOOKUP", "TX_KERNEL"]

#: ciao18 Section V-F: 64 entries of 6 + 2 bits.
IL_ENTRIES, IL_COUNTER_BITS = 64, 2

#: Transaction kinds: an update (a VTA hit), a lookup (Algorithm 1 line 21), a kernel start.
TX_UPDATE, TX_LOOKUP, TX_KERNEL = 0, 1, 2
#: One transaction as the golden policy records it: the kind, the warp (entry), for an update the
#: interfering warp and for a lookup the entry read (``by``, ``count``), the access's position.
TRANSACTION_DTYPE = np.dtype([("kind", "u1"), ("wid", "u1"), ("by", "u1"), ("count", "u1"),
                              ("access", "<i8")])


def update_entry(wid: int, count: int, by: int, top: int = (1 << IL_COUNTER_BITS) - 1) -> tuple[int, int]:
    """Entry ``(wid, count)`` after warp ``by`` interferes (rules in the module docstring)."""
    if wid == by:
        return wid, min(count + 1, top)
    if count == 0:
        return by, 0
    return wid, count - 1


class InterferenceList(UnitModel):
    """Cycle-level model of the interference list (ports and protocol in the module docstring).

    Parameters
    ----------
    entries : int
        Entries, one per warp (64).
    counter_bits : int
        Width of the saturating counter (2).

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, entries: int = IL_ENTRIES, counter_bits: int = IL_COUNTER_BITS) -> None:
        self.entries = check_int("entries", entries, 1, 1 << WID_BITS)
        self.counter_bits = check_int("counter_bits", counter_bits, 1, 8)
        self.inputs = {"kernel_start": 1, "s1_upd__valid": 1, "s1_upd__wid": WID_BITS, "s1_upd__by": WID_BITS,
                       "s1_look__valid": 1, "s1_look__wid": WID_BITS}
        self.outputs = {"s2_look__valid": 1, "s2_look__by": WID_BITS, "s2_look__count": counter_bits}
        self.reset()

    def reset(self) -> None:
        self.wid = list(range(self.entries))
        self.count = [0] * self.entries
        self.upd = None  # (wid, by) of the update in stage 2
        self.look = None  # the entry read for the lookup in stage 2

    def step(self, *, kernel_start: int = 0, s1_upd__valid: int = 0, s1_upd__wid: int = 0,
             s1_upd__by: int = 0, s1_look__valid: int = 0, s1_look__wid: int = 0) -> dict[str, int]:
        if s1_upd__valid:
            check_input("s1_upd__wid", s1_upd__wid, self.entries)
        if s1_look__valid:
            check_input("s1_look__wid", s1_look__wid, self.entries)
        out = dict.fromkeys(self.outputs, 0)
        if self.look is not None:
            out.update(s2_look__valid=1, s2_look__by=self.look[0], s2_look__count=self.look[1])
        # The clock edge: the update in stage 2 is written, then both reads see it.
        if self.upd is not None:
            i, by = self.upd
            top = (1 << self.counter_bits) - 1
            self.wid[i], self.count[i] = update_entry(self.wid[i], self.count[i], by, top)
        if kernel_start:
            self.wid = list(range(self.entries))
            self.count = [0] * self.entries
        self.upd = (s1_upd__wid, s1_upd__by) if s1_upd__valid else None
        self.look = (self.wid[s1_look__wid], self.count[s1_look__wid]) if s1_look__valid else None
        return out

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of recorded transactions (:data:`TRANSACTION_DTYPE`): one cycle each, then an idle one.

        A lookup's recorded entry is the expected output of the next row.
        An update in row *k* is written at the edge ending *k* + 1 and a
        lookup in row *k* + 1 reads at that edge (transparent), so the rows
        keep the order in which the policy changed and read the list.
        """
        kind = transactions["kind"]
        look = kind == TX_LOOKUP
        return one_per_cycle(self, transactions, [
            (kind == TX_KERNEL, {"kernel_start": None}),
            (kind == TX_UPDATE, {"s1_upd__valid": None, "s1_upd__wid": "wid", "s1_upd__by": "by"}),
            (look, {"s1_look__valid": None, "s1_look__wid": "wid"})], [
            (look, {"exp_s2_look__valid": None, "exp_s2_look__by": "by", "exp_s2_look__count": "count"})])
