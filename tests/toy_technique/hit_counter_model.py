"""Golden unit model of the toy hit counter: counts an L1's hits, one request per cycle."""

from __future__ import annotations

import numpy as np

from golden.units.base import UnitModel

#: One L1 request of the logged SM: whether it hit, and its access index.
TRANSACTION_DTYPE = np.dtype([("hit", "u1"), ("access", "<i8")])


class HitCounterModel(UnitModel):
    """``count`` shows the hits counted before this cycle; a valid hit adds one at the edge."""

    def __init__(self, *, width: int = 16) -> None:
        if not 1 <= width <= 32:
            raise ValueError(f"Width must be 1 to 32 bits, not {width}")
        self.width = width
        self.inputs = {"s1_valid": 1, "s1_hit": 1}
        self.outputs = {"count": width}
        self.reset()

    def reset(self) -> None:
        self.count = 0

    def step(self, *, s1_valid: int = 0, s1_hit: int = 0) -> dict[str, int]:
        out = {"count": self.count}
        if s1_valid and s1_hit:
            self.count = (self.count + 1) % (1 << self.width)
        return out

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        hits = transactions["hit"].astype(np.int64)
        log = np.zeros(len(transactions), self.cycle_log_dtype)
        log["s1_valid"] = 1
        log["s1_hit"] = hits
        log["exp_count"] = (np.cumsum(hits) - hits) % (1 << self.width)
        log["ctx_access"] = transactions["access"]
        return log
