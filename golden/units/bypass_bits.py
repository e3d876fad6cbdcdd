"""tian15's L2 ``bypassBit`` store: one bit per L2 line.

Ports (the RTL ``rtl.bypass.BypassBits`` has the same)::

    in   req_valid              an L1 miss request reaches the L2
    in   req_set, req_way       the L2 line that serves it
    in   req_hit                1: the line was already in the L2; 0: the L2 just filled it
    in   req_bypass             the L1 predicted bypass (tian15 Listing 1, SendMemReq)
    out  resp_bit               bypassBit returned with the data

Behaviour, from tian15 Listing 1 and Section 3.1: the request reads the
line's bit and clears it (``L2Block[address].bypassBit = false``); when the
L1 predicted bypass and the bit was 0, the L1 does bypass, and the L2
records it (``bypassBit = 1``). So, per request::

    resp_bit = req_hit ? bits[set][way] : 0     (a freshly filled line has no history)
    bits[set][way] <= req_bypass & ~resp_bit

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

__all__ = ["BypassBits", "bypass_bit_request"]


@nb.njit(cache=True, inline="always")
def bypass_bit_request(bits, s, w, hit, predicted_bypass):
    """One request to the store (see the module docstring); returns ``resp_bit``."""
    resp = bits[s, w] if hit else 0
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
        self.inputs = {"req_valid": 1, "req_set": max(1, (sets - 1).bit_length()),
                       "req_way": max(1, (ways - 1).bit_length()), "req_hit": 1, "req_bypass": 1}
        self.outputs = {"resp_bit": 1}
        self.reset()

    def reset(self) -> None:
        self.bits = np.zeros((self.sets, self.ways), dtype=np.uint8)

    def step(self, *, req_valid: int = 0, req_set: int = 0, req_way: int = 0, req_hit: int = 0,
             req_bypass: int = 0) -> dict[str, int]:
        if not req_valid:
            return {"resp_bit": 0}
        return {"resp_bit": int(bypass_bit_request(self.bits, req_set, req_way, bool(req_hit),
                                                   bool(req_bypass)))}
