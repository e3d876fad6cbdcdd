"""tian15's L2 ``bypassBit`` store: one bit per L2 line.

Ports (the RTL ``rtl.bypass.BypassBits`` has the same)::

    in   req_valid              an L1 miss request reaches the L2
    in   req_set, req_way       the L2 line that serves it
    in   req_bypass             the L1 predicted bypass (tian15 Listing 1, SendMemReq)
    in   fill_valid             the L2 (re)fills a line, for any reason
    in   fill_set, fill_way     the line filled
    out  resp_bit               bypassBit returned with the data

Behaviour, from tian15 Listing 1 and Section 3.1: the request reads the
line's bit and clears it (``L2Block[address].bypassBit = false``); when the
L1 predicted bypass and the bit was 0, the L1 does bypass, and the L2
records it (``bypassBit = 1``). A line the L2 fills has no history, so a
fill clears its bit. Per cycle::

    resp_bit = req_valid ? bits[req_set][req_way] : 0
    if req_valid:  bits[req_set][req_way] <= req_bypass & ~resp_bit
    if fill_valid: bits[fill_set][fill_way] <= 0      (wins over the request's write)

The L2 fills a line before it serves the request that missed on it, so
a request for a line just filled reads 0.

A bypass predicted while the bit was 1 is the misprediction the bit
corrects: the L1 installs the block and the bit is left cleared. The bit
does not record which compute unit set it (tian15: "the misprediction
correction does not distinguish if the bypassBit ... is from a different
compute unit").

Latency: ``resp_bit`` is combinational (same cycle as the request); the
update takes effect at the clock edge. Reset clears every bit.
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
    """Cycle-level model of the L2 bypassBit store.

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
        self.inputs = {"req_valid": 1, "req_set": sb, "req_way": wb, "req_bypass": 1,
                       "fill_valid": 1, "fill_set": sb, "fill_way": wb}
        self.outputs = {"resp_bit": 1}
        self.reset()

    def reset(self) -> None:
        self.bits = np.zeros((self.sets, self.ways), dtype=np.uint8)

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of recorded events: one cycle each, a request or a fill."""
        tx = transactions
        fill = tx["fill"].astype(bool)
        req = ~fill
        log = np.zeros(len(tx), self.cycle_log_dtype)
        for name, value in (("req_valid", req), ("req_set", np.where(req, tx["set"], 0)),
                            ("req_way", np.where(req, tx["way"], 0)),
                            ("req_bypass", req & (tx["bypass"] != 0)),
                            ("fill_valid", fill), ("fill_set", np.where(fill, tx["set"], 0)),
                            ("fill_way", np.where(fill, tx["way"], 0)),
                            ("exp_resp_bit", np.where(req, tx["resp"], 0)), ("ctx_access", tx["access"])):
            log[name] = value
        return log

    def step(self, *, req_valid: int = 0, req_set: int = 0, req_way: int = 0, req_bypass: int = 0,
             fill_valid: int = 0, fill_set: int = 0, fill_way: int = 0) -> dict[str, int]:
        resp = 0
        if req_valid:
            resp = int(bypass_bit_request(self.bits, req_set, req_way, bool(req_bypass)))
        if fill_valid:
            self.bits[fill_set, fill_way] = 0
        return {"resp_bit": resp}
