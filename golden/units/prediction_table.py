"""tian15's prediction table: saturating counters indexed by hashed PC.

Ports (the RTL ``rtl.predictor.PredictionTable`` has the same)::

    in   lookup_idx  [index bits]   entry to read
    in   inc_en, inc_idx            increment an entry (victim's hashed PC, tian15 Listing 1)
    in   dec_en, dec_idx            decrement an entry (hit block's hashed PC)
    out  lookup_count [width]       counter value of lookup_idx
    out  lookup_bypass              lookup_count >= threshold (predict zero reuse)

Latency: the lookup is combinational (0 cycles) and shows the state before
this cycle's updates; increments and decrements take effect at the clock
edge, so a lookup in the next cycle sees them. Counters saturate at 0 and
``2**width - 1``. An increment and a decrement of the same entry in the same
cycle cancel (the entry keeps its value); of different entries, both apply.
Reset value of every counter: ``init`` (0 by default).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from golden.units.base import UnitModel

__all__ = ["PredictionTable", "table_update", "check_table_params"]


def check_table_params(entries: int, width: int, threshold: int) -> None:
    """Raise ValueError for an unusable table geometry or threshold."""
    if entries < 2 or entries & (entries - 1):
        raise ValueError(f"Entries must be a power of 2 of at least 2, not {entries}")
    if not 1 <= width <= 8:
        raise ValueError(f"Counter width must be 1 to 8 bits, not {width}")
    if not 0 <= threshold <= (1 << width):
        raise ValueError(f"Threshold must be 0 to {1 << width}, not {threshold}")


@nb.njit(cache=True, inline="always")
def table_update(counters, inc_en, inc_idx, dec_en, dec_idx, maxval):
    """Apply one cycle's increment and decrement (see the module docstring)."""
    if inc_en and dec_en and inc_idx == dec_idx:
        return
    if inc_en and counters[inc_idx] < maxval:
        counters[inc_idx] += 1
    if dec_en and counters[dec_idx] > 0:
        counters[dec_idx] -= 1


class PredictionTable(UnitModel):
    """Cycle-level model of the prediction table.

    Parameters
    ----------
    entries : int
        Number of counters (power of 2; tian15: 128).
    width : int
        Counter width in bits (tian15: 4).
    threshold : int
        A counter at or above it predicts zero reuse; ``2**width`` never predicts.
    init : int
        Reset value of the counters.

    Raises
    ------
    ValueError
        For a non-power-of-2 size, a width outside 1..8 or a threshold outside 0..2**width.
    """

    def __init__(self, *, entries: int = 128, width: int = 4, threshold: int = 8, init: int = 0) -> None:
        check_table_params(entries, width, threshold)
        if not 0 <= init < (1 << width):
            raise ValueError(f"Initial counter value must be 0 to {(1 << width) - 1}, not {init}")
        self.entries, self.width, self.threshold, self.init = entries, width, threshold, init
        bits = entries.bit_length() - 1
        self.inputs = {"lookup_idx": bits, "inc_en": 1, "inc_idx": bits, "dec_en": 1, "dec_idx": bits}
        self.outputs = {"lookup_count": width, "lookup_bypass": 1}
        self.reset()

    def reset(self) -> None:
        self.counters = np.full(self.entries, self.init, dtype=np.uint8)

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of the table seen from the L1 unit's requests: one cycle per request.

        ``transactions`` are the L1 unit's (``golden.units.l1_tag_unit.TRANSACTION_DTYPE``;
        the fields used are ``hidx``, ``count``, ``inc_*``, ``dec_*`` and ``access``): the
        embedded table is read and updated in the cycle the L1 unit takes a request.
        """
        tx = transactions
        log = np.zeros(len(tx), self.cycle_log_dtype)
        for name, value in (("lookup_idx", tx["hidx"]), ("inc_en", tx["inc_en"]), ("inc_idx", tx["inc_idx"]),
                            ("dec_en", tx["dec_en"]), ("dec_idx", tx["dec_idx"]),
                            ("exp_lookup_count", tx["count"]),
                            ("exp_lookup_bypass", tx["count"] >= self.threshold),
                            ("ctx_access", tx["access"])):
            log[name] = value
        return log

    def step(self, *, lookup_idx: int = 0, inc_en: int = 0, inc_idx: int = 0,
             dec_en: int = 0, dec_idx: int = 0) -> dict[str, int]:
        count = int(self.counters[lookup_idx])
        table_update(self.counters, bool(inc_en), inc_idx, bool(dec_en), dec_idx, (1 << self.width) - 1)
        return {"lookup_count": count, "lookup_bypass": int(count >= self.threshold)}
