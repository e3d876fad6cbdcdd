"""tian15's L2 ``bypassBit`` store: one bit per L2 line.

Ports (the RTL ``rtl.bypass.BypassBits`` has the same; nested signatures
flattened as in the generated Verilog, ``a__b``)::

    in   s1_req__valid                  an L1 miss request reaches the L2
    in   s1_req__set, s1_req__way       the L2 line that serves it
    in   s1_req__bypass                 the L1 predicted bypass (tian15 Listing 1, SendMemReq)
    in   s1_fill__valid                 the L2 (re)fills a line, for any reason
    in   s1_fill__set, s1_fill__way     the line filled
    out  s2_resp__valid                 the previous cycle's request is answered
    out  s2_resp__bit                   its bypassBit, returned with the data

Behaviour, from tian15 Listing 1 and Section 3.1: the request reads the
line's bit and clears it (``L2Block[address].bypassBit = false``); when the
L1 predicted bypass and the bit was 0, the L1 does bypass, and the L2
records it (``bypassBit = 1``). A line the L2 fills has no history, so a
fill clears its bit. A request and a fill presented in cycle *t* (stage
s1) act in cycle *t* + 1 (stage s2)::

    s2_resp.valid = req.valid;  s2_resp.bit = req.valid ? bits[req.set][req.way] : 0
    if req.valid:  bits[req.set][req.way] <= req.bypass & ~s2_resp.bit
    if fill.valid: bits[fill.set][fill.way] <= 0      (wins over the request's write)

where ``bits`` includes every write of the earlier cycles (the RTL's read
port is transparent), so the response sequence is the one of a store
answering each request in its own cycle, one cycle later.

The L2 fills a line before it serves the request that missed on it, so
a request for a line just filled reads 0.

A bypass predicted while the bit was 1 is the misprediction the bit
corrects: the L1 installs the block and the bit is left cleared. The bit
does not record which compute unit set it (tian15: "the misprediction
correction does not distinguish if the bypassBit ... is from a different
compute unit").

Latency: 1 cycle; one request and one fill per cycle. Reset clears every
bit.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from golden.units.base import UnitModel

__all__ = ["BypassBits", "bypass_bit_request", "TRANSACTION_DTYPE"]

#: One event at the store, as the golden policy records it (``pc-bypass``, recorder ``"l2"``):
#: an L1 fill request (``fill`` 0: the line's set and way, the L1's prediction, the bit
#: returned) or an L2 fill (``fill`` 1: the line's set and way).
TRANSACTION_DTYPE = np.dtype([("fill", "u1"), ("set", "<i4"), ("way", "<i4"), ("bypass", "u1"),
                              ("resp", "u1"), ("access", "<i8")])


@nb.njit(cache=True, inline="always")
def bypass_bit_request(bits, s, w, predicted_bypass):
    """One request to the store (see the module docstring); returns ``resp_bit``."""
    resp = bits[s, w]
    bits[s, w] = 1 if (predicted_bypass and not resp) else 0
    return resp


class BypassBits(UnitModel):
    """Cycle-level model of the two-stage L2 bypassBit store.

    State: the bits, and the stage-2 registers (the request and the fill
    presented in the previous cycle).

    Parameters
    ----------
    sets, ways : int
        Geometry of the L2 (tian15: 256 sets of 16 ways, 0.5 KB of bits).

    Raises
    ------
    ValueError
        If ``sets`` is not a power of 2 or ``ways`` is not positive.
    """

    def __init__(self, *, sets: int, ways: int) -> None:
        if sets < 1 or sets & (sets - 1):
            raise ValueError(f"Sets must be a positive power of 2, not {sets}")
        if ways < 1:
            raise ValueError(f"Ways must be positive, not {ways}")
        self.sets, self.ways = sets, ways
        sb, wb = max(1, (sets - 1).bit_length()), max(1, (ways - 1).bit_length())
        self.inputs = {"s1_req__valid": 1, "s1_req__set": sb, "s1_req__way": wb, "s1_req__bypass": 1,
                       "s1_fill__valid": 1, "s1_fill__set": sb, "s1_fill__way": wb}
        self.outputs = {"s2_resp__valid": 1, "s2_resp__bit": 1}
        self.reset()

    def reset(self) -> None:
        self.bits = np.zeros((self.sets, self.ways), dtype=np.uint8)
        self.s2_req = (0, 0, 0, 0)  # valid, set, way, bypass
        self.s2_fill = (0, 0, 0)  # valid, set, way

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of recorded events (:data:`TRANSACTION_DTYPE`), laid out by :func:`bits_cycle_log`."""
        tx = transactions
        fill = tx["fill"].astype(np.uint8)
        req = 1 - fill
        return bits_cycle_log(self, req, tx["set"] * req, tx["way"] * req, tx["bypass"] * req,
                              tx["resp"] * req, fill, tx["set"] * fill, tx["way"] * fill, tx["access"])

    def step(self, *, s1_req__valid: int = 0, s1_req__set: int = 0, s1_req__way: int = 0,
             s1_req__bypass: int = 0, s1_fill__valid: int = 0, s1_fill__set: int = 0,
             s1_fill__way: int = 0) -> dict[str, int]:
        valid, s, w, bypass = self.s2_req
        resp = int(bypass_bit_request(self.bits, s, w, bool(bypass))) if valid else 0
        fill_valid, fs, fw = self.s2_fill
        if fill_valid:
            self.bits[fs, fw] = 0
        self.s2_req = (s1_req__valid, s1_req__set, s1_req__way, s1_req__bypass)
        self.s2_fill = (s1_fill__valid, s1_fill__set, s1_fill__way)
        return {"s2_resp__valid": int(valid), "s2_resp__bit": resp}


def bits_cycle_log(model: BypassBits, req_valid: np.ndarray, req_set: np.ndarray, req_way: np.ndarray,
                   req_bypass: np.ndarray, resp_bit: np.ndarray, fill_valid: np.ndarray,
                   fill_set: np.ndarray, fill_way: np.ndarray, ctx: np.ndarray) -> np.ndarray:
    """Cycle log of the store, one L2 event (a request, a fill, or both) per cycle.

    Event *k* is presented in row *k*; a request's bit (``resp_bit[k]``, the
    bit it read, as the one-event-at-a-time store of tian15 answers) shows
    in row *k* + 1. One idle row at the end answers the last event, so logs
    of consecutive chunks concatenate into a valid log.

    Returns rows of ``model.log_dtype`` plus ``ctx_access``.
    """
    n = len(req_valid)
    log = np.zeros(n + 1, dtype=np.dtype(model.log_dtype.descr + [("ctx_access", "<i8")]))
    for col, values in (("s1_req__valid", req_valid), ("s1_req__set", req_set), ("s1_req__way", req_way),
                        ("s1_req__bypass", req_bypass), ("s1_fill__valid", fill_valid),
                        ("s1_fill__set", fill_set), ("s1_fill__way", fill_way)):
        log[col][:n] = values
    log["exp_s2_resp__valid"][1:] = req_valid
    log["exp_s2_resp__bit"][1:] = np.where(np.asarray(req_valid) != 0, resp_bit, 0)
    if n:
        log["ctx_access"][:n] = ctx
        log["ctx_access"][n] = ctx[-1]
    return log
