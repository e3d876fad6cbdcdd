"""ciao18's pair list and the per-warp V (active) and I (isolated) flags, as Algorithm 1 updates them.

ciao18 Sections IV-A and IV-C: 64 entries of two 6-bit WID fields (12
bits), indexed by the WID of the warp that was isolated or stalled; field
0 names the interfered warp that made CIAO redirect the warp's requests
to shared memory, field 1 the one that made CIAO stall it. Each warp has
a V flag (1 active, 0 stalled) and an I flag (1 isolated). A warp is
active (V=1, I=0), isolated (V=1, I=1) or stalled (V=0).

The unit carries out Algorithm 1's state changes; the decisions that need
IRS (``rtl.ciao.IrsUnit``) and the warp list are the scheduler's:

* **read** (op 0): show warp ``wid``'s flags and fields.
* **trigger** (op 1, Algorithm 1 lines 22-27: IRS of warp ``src`` over
  the high cut-off, ``wid`` = *j* its most interfering warp, *j* != ``src``):
  if I[*j*] = 1, stall *j*: V[*j*] = 0, field 1 = ``src`` (action 2); else
  isolate *j*: I[*j*] = 1, field 0 = ``src`` (action 1).
* **release** (op 2, lines 4-17: the warp at the front of the list at
  the end of a low cut-off epoch, whose pair's IRS is no longer over the
  low cut-off or whose pair has finished): if V = 0, reactivate it: V = 1,
  field 1 cleared (action 3); else if I = 1, send its requests back to
  L1D: I = 0, field 0 cleared (action 4); else nothing (action 0).

* **stall** (op 3, lines 26-27 alone: a machine without the
  shared-memory path, i.e. CIAO-T, or a kernel that leaves no shared
  memory for the cache, where CIAO-P and CIAO-C act as CIAO-T): stall
  ``wid`` whatever I is: V = 0, field 1 = ``src`` (action 2).

A cleared field holds all ones (Algorithm 1's -1); a field is meaningful
only while its flag says so (field 0 while I = 1, field 1 while V = 0),
so the value 63 is never ambiguous. After reset every warp is active, not
isolated, both fields cleared.

Ports (``rtl.ciao.PairList`` has the same)::

    in   s1_cmd__valid, __op [2], __wid [6], __src [6]
    out  s2_cmd__valid, __act [3], __v, __i, __f0 [6], __f1 [6]

Protocol (latency 1, one command per cycle, never stalls): a command
taken in cycle *t* decides from the flags during *t*; the flags and the
field are written at the edge ending *t*, and in *t* + 1 the unit shows
the action and warp ``wid``'s flags and fields after the command.

Whole-workload logs: the ciao18 policies (``log_sm``) record SM
``log_sm``'s commands with the action and the flags and fields after
them (:data:`TRANSACTION_DTYPE`), including the releases that bring the
unit in line with flags the warp scheduler cleared itself (a new warp in
a slot starts active and not isolated; the timing model clears every
stall when only stalled warps could issue); :meth:`PairList.cycle_log`
gives each its own cycle.
"""

from __future__ import annotations

import numpy as np

from golden.units.base import UnitModel, one_per_cycle
from golden.units.ciao_common import WID_BITS, check_input, check_int

__all__ = ["PairList", "PL_ENTRIES", "OP_READ", "OP_TRIGGER", "OP_RELEASE", "OP_STALL", "TRANSACTION_DTYPE",
           "ACT_NONE", "ACT_ISOLATE", "ACT_STALL", "ACT_REACTIVATE", "ACT_UNISOLATE", "CLEARED"]

#: ciao18 Section V-F: 64 entries of 6 + 6 bits.
PL_ENTRIES = 64
#: Commands.
OP_READ, OP_TRIGGER, OP_RELEASE, OP_STALL = 0, 1, 2, 3
#: Actions shown in ``s2_cmd__act``.
ACT_NONE, ACT_ISOLATE, ACT_STALL, ACT_REACTIVATE, ACT_UNISOLATE = range(5)
#: A cleared field (Algorithm 1's -1 in 6 bits).
CLEARED = (1 << WID_BITS) - 1
#: One command as the golden policy records it, with the action and warp ``wid``'s flags and fields
#: after it (the unit's outputs in the next cycle), and the access's position in the stream.
TRANSACTION_DTYPE = np.dtype([("op", "u1"), ("wid", "u1"), ("src", "u1"), ("act", "u1"), ("v", "u1"),
                              ("i", "u1"), ("f0", "u1"), ("f1", "u1"), ("access", "<i8")])


class PairList(UnitModel):
    """Cycle-level model of the pair list and the V/I flags (ports and protocol in the module docstring).

    Parameters
    ----------
    entries : int
        Entries and flag pairs, one per warp (64).

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, entries: int = PL_ENTRIES) -> None:
        self.entries = check_int("entries", entries, 1, 1 << WID_BITS)
        self.inputs = {"s1_cmd__valid": 1, "s1_cmd__op": 2, "s1_cmd__wid": WID_BITS, "s1_cmd__src": WID_BITS}
        self.outputs = {"s2_cmd__valid": 1, "s2_cmd__act": 3, "s2_cmd__v": 1, "s2_cmd__i": 1,
                        "s2_cmd__f0": WID_BITS, "s2_cmd__f1": WID_BITS}
        self.reset()

    def reset(self) -> None:
        self.v = [1] * self.entries
        self.i = [0] * self.entries
        self.f = [[CLEARED, CLEARED] for _ in range(self.entries)]
        self.s2 = None  # (wid, action) of the command in stage 2

    def step(self, *, s1_cmd__valid: int = 0, s1_cmd__op: int = 0, s1_cmd__wid: int = 0,
             s1_cmd__src: int = 0) -> dict[str, int]:
        out = dict.fromkeys(self.outputs, 0)
        if self.s2 is not None:
            w, act = self.s2
            out.update(s2_cmd__valid=1, s2_cmd__act=act, s2_cmd__v=self.v[w], s2_cmd__i=self.i[w],
                       s2_cmd__f0=self.f[w][0], s2_cmd__f1=self.f[w][1])
        self.s2 = None
        if s1_cmd__valid:
            w = check_input("s1_cmd__wid", s1_cmd__wid, self.entries)
            act = ACT_NONE
            if s1_cmd__op in (OP_TRIGGER, OP_STALL):
                if self.i[w] or s1_cmd__op == OP_STALL:
                    self.v[w], self.f[w][1], act = 0, s1_cmd__src, ACT_STALL
                else:
                    self.i[w], self.f[w][0], act = 1, s1_cmd__src, ACT_ISOLATE
            elif s1_cmd__op == OP_RELEASE:
                if not self.v[w]:
                    self.v[w], self.f[w][1], act = 1, CLEARED, ACT_REACTIVATE
                elif self.i[w]:
                    self.i[w], self.f[w][0], act = 0, CLEARED, ACT_UNISOLATE
            self.s2 = (w, act)
        return out

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of recorded commands (:data:`TRANSACTION_DTYPE`): one cycle each, then an idle one.

        Command *k* is driven in row *k*; its recorded action, flags and
        fields are the expected outputs of row *k* + 1.
        """
        every = np.ones(len(transactions), bool)
        ins = {"s1_cmd__valid": None, **{f"s1_cmd__{f}": f for f in ("op", "wid", "src")}}
        outs = {"exp_s2_cmd__valid": None, **{f"exp_s2_cmd__{f}": f for f in ("act", "v", "i", "f0", "f1")}}
        return one_per_cycle(self, transactions, [(every, ins)], [(every, outs)])
