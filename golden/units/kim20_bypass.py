"""kim20's per-SM two-level bypassing unit: MRMU + WOMU + BDU (SRAM-free).

Ports (the RTL ``rtl.bypass.kim20.TwoLevelBypass`` has the same)::

    in   start          the SM got its first CTA after a kernel launch (the window starts this cycle)
    in   ready          warps able to issue this cycle (to the WOMU)
    in   loads          loads that passed the L1 lookup this cycle (to the MRMU)
    in   misses         of which count as misses
    out  sampling       the window runs: the LD/ST unit uses the L1
    out  bypass         B mode: loads bypass the L1

The monitors count while the window runs (``start`` or ``sampling``), restarting at ``start``; the
BDU decides at the window's last cycle from the monitors' counts including that cycle
(:mod:`golden.units.bdu`). Latencies are the submodules'.

Whole-workload logs: the timing model logs, per SM, every load's L1 lookup and the monitor events
(``golden.gpu.core``: the first CTA, the warps able to issue); the ``kim20`` recorders turn SM
``log_sm``'s into :data:`TRANSACTION_DTYPE` rows, and :meth:`TwoLevelBypass.cycle_log` lays them
out one row per cycle of every sampling window (plus the cycle after it, which shows the mode).
"""

from __future__ import annotations

import numpy as np

from golden.units.base import UnitModel
from golden.units.bdu import Bdu, BduParams
from golden.units.mrmu import Mrmu
from golden.units.womu import Womu

__all__ = ["TwoLevelBypass", "TRANSACTION_DTYPE", "EV_READY", "EV_LOAD", "EV_START", "EV_DECISION",
           "monitor_transactions"]

#: One monitor event of the logged SM: at ``cycle``, ``kind`` EV_READY (``value`` = warps able to
#: issue from this cycle on), EV_LOAD (a load's lookup; ``value`` 1 if it counts as a miss) or
#: EV_START (the first CTA of a kernel); EV_DECISION: the golden policy's mode (``value``, 1 B) for
#: the window that started at ``cycle``, which :meth:`TwoLevelBypass.cycle_log` checks the unit gives.
TRANSACTION_DTYPE = np.dtype([("cycle", "<i8"), ("kind", "u1"), ("value", "<i8")])
EV_READY, EV_LOAD, EV_START, EV_DECISION = 0, 1, 2, 3

# Outcomes of the timing model's per-access log (golden.gpu.core): hit, miss, merge, sector miss,
# then the SM events.
_HIT, _MISS, _MERGE, _SECTOR_MISS, _READY, _FIRST_CTA = 1, 2, 3, 4, 5, 6
_LOAD = 1


def monitor_transactions(events: np.ndarray, sm: int, *, merged_misses: bool = False,
                         decisions: np.ndarray | None = None) -> np.ndarray:
    """SM ``sm``'s monitor events from the timing model's event log, as :data:`TRANSACTION_DTYPE` rows.

    Parameters
    ----------
    events : numpy.ndarray
        ``TimingModel.event_log()`` rows: (cycle, sm, line, op, outcome).
    sm : int
        The SM whose unit is logged.
    merged_misses : bool
        MSHR merges count as misses (the policy's choice).
    decisions : numpy.ndarray, optional
        The policy's decisions (``golden.policies.kim20.DECISION_DTYPE``) for the SM, added as
        EV_DECISION rows.
    """
    ev = events[events[:, 1] == sm]
    out = ev[:, 4]
    load = (ev[:, 3] == _LOAD) & (out >= _HIT) & (out <= _SECTOR_MISS)
    keep = load | (out == _READY) | (out == _FIRST_CTA)
    ev, out, load = ev[keep], out[keep], load[keep]
    n_dec = 0 if decisions is None else len(decisions)
    tx = np.zeros(len(ev) + n_dec, TRANSACTION_DTYPE)
    tx["cycle"][:len(ev)] = ev[:, 0]
    tx["kind"][:len(ev)] = np.where(load, EV_LOAD, np.where(out == _READY, EV_READY, EV_START))
    miss = (out == _MISS) | (out == _SECTOR_MISS) | ((out == _MERGE) & merged_misses)
    tx["value"][:len(ev)] = np.where(load, miss, np.where(out == _READY, ev[:, 2], 0))
    if n_dec:
        tx["cycle"][len(ev):] = decisions["first_cta"]
        tx["kind"][len(ev):] = EV_DECISION
        tx["value"][len(ev):] = decisions["mode"]
    return tx


class TwoLevelBypass(UnitModel):
    """Cycle-level model of the per-SM unit.

    Parameters
    ----------
    params : BduParams
        Window, warps and thresholds.
    ports : int
        Load lookups per cycle at most (the L1's ports: the width of ``loads`` and ``misses``).
    """

    def __init__(self, params: BduParams, *, ports: int = 1) -> None:
        if not isinstance(ports, int) or ports < 1:
            raise ValueError(f"ports: must be a positive integer, not {ports!r}")
        self.p = params
        self.ports = ports
        self.mrmu = Mrmu(count_width=ports.bit_length())
        self.womu = Womu(window=params.window, warps=params.warps)
        self.bdu = Bdu(params)
        self.inputs = {"start": 1, "ready": self.womu.inputs["ready"], "loads": self.mrmu.inputs["loads"],
                       "misses": self.mrmu.inputs["misses"]}
        self.outputs = dict(self.bdu.outputs)
        self.reset()

    def reset(self) -> None:
        self.mrmu.reset()
        self.womu.reset()
        self.bdu.reset()

    def step(self, *, start: int = 0, ready: int = 0, loads: int = 0, misses: int = 0) -> dict[str, int]:
        en = int(bool(start or self.bdu.sampling))
        acc, miss = self.mrmu.next_counts(start, en, loads, misses)
        occ = self.womu.next_total(start, en, ready)
        self.mrmu.step(clear=start, en=en, loads=loads, misses=misses)
        self.womu.step(clear=start, en=en, ready=ready)
        return self.bdu.step(start=start, accesses=acc, miss_count=miss, occupancy=occ)

    @property
    def cycle_log_dtype(self) -> np.dtype:
        """Ports, then ``ctx_cycle`` (the timing model's cycle of the row)."""
        return np.dtype(self.log_dtype.descr + [("ctx_cycle", "<i8")])

    def window_cycles(self, transactions: np.ndarray) -> np.ndarray:
        """The cycles the log covers: every window, and the cycle after it (a restart cuts it short)."""
        starts = np.unique(transactions["cycle"][transactions["kind"] == EV_START])
        parts = []
        for i, s in enumerate(starts):
            end = s + self.p.window + 1
            if i + 1 < len(starts):
                end = min(end, starts[i + 1])
            parts.append(np.arange(s, end, dtype=np.int64))
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """One row per cycle of :meth:`window_cycles`, the outputs from stepping this model.

        Parameters
        ----------
        transactions : numpy.ndarray
            :data:`TRANSACTION_DTYPE` rows in the order the timing model logged them.
        """
        tx = transactions
        cycles = self.window_cycles(tx)
        log = np.zeros(len(cycles), self.cycle_log_dtype)
        if not len(cycles):
            return log
        log["ctx_cycle"] = cycles
        # ready: the last EV_READY value logged at or before each cycle (0 before the first).
        rd = tx[tx["kind"] == EV_READY]
        pos = np.searchsorted(rd["cycle"], cycles, side="right") - 1
        log["ready"] = np.where(pos >= 0, rd["value"][np.maximum(pos, 0)], 0)
        loads = tx[tx["kind"] == EV_LOAD]
        idx = np.searchsorted(cycles, loads["cycle"])
        inside = (idx < len(cycles)) & (cycles[np.minimum(idx, len(cycles) - 1)] == loads["cycle"])
        np.add.at(log["loads"], idx[inside], 1)
        np.add.at(log["misses"], idx[inside], loads["value"][inside].astype(log["misses"].dtype))
        st = np.searchsorted(cycles, np.unique(tx["cycle"][tx["kind"] == EV_START]))
        log["start"][st] = 1
        if int(log["loads"].max()) >= 1 << self.inputs["loads"]:
            raise ValueError(f"ports: more than {self.ports} load lookups in a cycle "
                             f"({int(log['loads'].max())}); the unit needs more ports")
        self.reset()
        names = list(self.inputs)
        cols = [log[n].tolist() for n in names]
        sampling, bypass = log["exp_sampling"], log["exp_bypass"]
        for i in range(len(log)):
            out = self.step(**{n: c[i] for n, c in zip(names, cols, strict=True)})
            sampling[i] = out["sampling"]
            bypass[i] = out["bypass"]
        self._check_decisions(tx[tx["kind"] == EV_DECISION], log)
        return log

    def _check_decisions(self, decisions: np.ndarray, log: np.ndarray) -> None:
        """The golden policy's modes are the unit's: the row after each decided window shows it."""
        for start, mode in zip(decisions["cycle"].tolist(), decisions["value"].tolist(), strict=True):
            row = np.searchsorted(log["ctx_cycle"], start + self.p.window)
            if row >= len(log) or log["ctx_cycle"][row] != start + self.p.window:
                raise ValueError(f"the policy decided the window of cycle {start}, which the log does not "
                                 "close")
            if int(log["exp_bypass"][row]) != mode:
                raise ValueError(f"the policy's mode {mode} for the window of cycle {start} is not the unit "
                                 f"model's {int(log['exp_bypass'][row])}")
