"""tian15's prediction table: saturating counters indexed by hashed PC.

Ports (the RTL ``rtl.predictor.PredictionTable`` has the same; nested
signatures flattened as in the generated Verilog, ``a__b``)::

    in   s1_lookup__valid, s1_lookup__idx [index bits]   lookup request
    in   s1_inc__en, s1_inc__idx         increment an entry (victim's hashed PC, tian15 Listing 1)
    in   s1_dec__en, s1_dec__idx         decrement an entry (hit block's hashed PC)
    out  s2_lookup__valid                the previous cycle's lookup is answered
    out  s2_lookup__count [width]        its counter (0 when not valid)
    out  s2_lookup__bypass               count >= threshold (predict zero reuse)

Two stages: requests in cycle *t* (s1); the lookup's counter shows in
cycle *t* + 1 (s2) and updates are written at the edge ending *t* + 1.
A lookup sees **every update requested up to and including its own
cycle** (the RTL forwards the same-cycle update, see its docstring).
Counters saturate at 0 and ``2**width - 1``. An increment and a decrement
of the same entry in the same cycle cancel (the entry keeps its value); of
different entries, both apply. Reset value of every counter: ``init``
(0 by default). Latency 1 cycle, one lookup and two updates per cycle.
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
    """Cycle-level model of the two-stage prediction table.

    State: the counters, and the stage-2 registers (the updates and the
    lookup requested in the previous cycle).

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
        self.inputs = {"s1_lookup__valid": 1, "s1_lookup__idx": bits, "s1_inc__en": 1, "s1_inc__idx": bits,
                       "s1_dec__en": 1, "s1_dec__idx": bits}
        self.outputs = {"s2_lookup__valid": 1, "s2_lookup__count": width, "s2_lookup__bypass": 1}
        self.reset()

    @property
    def maxval(self) -> int:
        """Largest counter value."""
        return (1 << self.width) - 1

    def reset(self) -> None:
        self.counters = np.full(self.entries, self.init, dtype=np.uint8)
        self.s2_update = (0, 0, 0, 0)  # inc_en, inc_idx, dec_en, dec_idx
        self.s2_lookup = (0, 0)  # valid, idx

    def lookup_output(self) -> dict[str, int]:
        """``s2_lookup`` this cycle: the stage-2 lookup's counter after this cycle's writes."""
        valid, idx = self.s2_lookup
        if not valid:
            return {"s2_lookup__valid": 0, "s2_lookup__count": 0, "s2_lookup__bypass": 0}
        inc_en, inc_idx, dec_en, dec_idx = self.s2_update
        count = int(self.counters[idx])
        if not (inc_en and dec_en and inc_idx == dec_idx):
            if inc_en and inc_idx == idx:
                count = min(count + 1, self.maxval)
            elif dec_en and dec_idx == idx:
                count = max(count - 1, 0)
        return {"s2_lookup__valid": 1, "s2_lookup__count": count,
                "s2_lookup__bypass": int(count >= self.threshold)}

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of the table seen from the L1 unit's requests, laid out by :func:`table_cycle_log`.

        ``transactions`` are the L1 unit's (``golden.units.l1_tag_unit.TRANSACTION_DTYPE``; the
        fields used are ``hidx``, ``count``, ``inc_*``, ``dec_*`` and ``access``).
        """
        tx = transactions
        return table_cycle_log(self, tx["hidx"], tx["count"], tx["inc_en"], tx["inc_idx"], tx["dec_en"],
                               tx["dec_idx"], tx["access"])

    def step(self, *, s1_lookup__valid: int = 0, s1_lookup__idx: int = 0, s1_inc__en: int = 0,
             s1_inc__idx: int = 0, s1_dec__en: int = 0, s1_dec__idx: int = 0) -> dict[str, int]:
        out = self.lookup_output()
        inc_en, inc_idx, dec_en, dec_idx = self.s2_update
        table_update(self.counters, bool(inc_en), inc_idx, bool(dec_en), dec_idx, self.maxval)
        self.s2_update = (s1_inc__en, s1_inc__idx, s1_dec__en, s1_dec__idx)
        self.s2_lookup = (s1_lookup__valid, s1_lookup__idx)
        return out


def table_cycle_log(model: PredictionTable, idx: np.ndarray, count: np.ndarray, inc_en: np.ndarray,
                    inc_idx: np.ndarray, dec_en: np.ndarray, dec_idx: np.ndarray,
                    ctx: np.ndarray) -> np.ndarray:
    """Cycle log of the table driven one L1 request per cycle, from per-request arrays.

    Request *k* looks up ``idx[k]`` in row *k* and its updates (``inc_*``,
    ``dec_*``, decided in the L1's s2) enter in row *k* + 1, as the L1 unit
    drives them. Row *k* + 1 shows the count request *k* saw (``count[k]``:
    the counter after every earlier request's update, before its own). One
    more row, with no lookup, carries the last updates and shows the last
    count, so the table is idle and every lookup answered at the end: logs
    of consecutive chunks concatenate into a valid log.

    Returns rows of ``model.log_dtype`` plus ``ctx_access`` (row *k*: the
    access of request *k*; the last row: the last request's).
    """
    n = len(idx)
    log = np.zeros(n + 1, dtype=np.dtype(model.log_dtype.descr + [("ctx_access", "<i8")]))
    log["s1_lookup__valid"][:n] = 1
    log["s1_lookup__idx"][:n] = idx
    log["s1_inc__en"][1:] = inc_en
    log["s1_inc__idx"][1:] = inc_idx
    log["s1_dec__en"][1:] = dec_en
    log["s1_dec__idx"][1:] = dec_idx
    log["exp_s2_lookup__valid"][1:] = 1
    log["exp_s2_lookup__count"][1:] = count
    log["exp_s2_lookup__bypass"][1:] = np.asarray(count) >= model.threshold
    if n:
        log["ctx_access"][:n] = ctx
        log["ctx_access"][n] = ctx[-1]
    return log
