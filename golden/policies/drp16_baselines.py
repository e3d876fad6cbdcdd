"""drp16's LLC baselines as registered policies (Section 4.1): see :mod:`golden.policies.drp16_rrip`.

Each policy acts on the level named ``"llc"`` (``golden.llc.LLCModel``) and
leaves every other level to the baseline. Registry names:

==========================  ====================================================
``drp16-baseline``          SRRIP with drp16's write-miss rules and depth-write duel
``drp16-nru``               drp16's single-bit NRU
``drp16-drrip``             DRRIP (SRRIP vs BRRIP duel on read misses)
``drp16-tadrrip``           TA-DRRIP: one duel per CPU core and one for the GPU
``drp16-ship-mem``          SHiP-mem: 16 KB regions, 16K x 3-bit counters
``drp16-ship-hybrid``       SHiP-PC (core-hashed PCs) for CPU reads, SHiP-mem for GPU reads
``drp16-baseline-bypass``   the Baseline, and GPU lines whose next use is after every
                            resident line's are not filled (offline: needs ``prepare``)
==========================  ====================================================
"""

from __future__ import annotations

import numpy as np

from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError
from golden.policies import drp16_rrip as rrip
from golden.policies.base import BASELINE_HOOKS, LevelHooks, Policy, make_hooks, register_policy

__all__ = ["RripLLCPolicy", "ExtendedRripPolicy", "check_int", "next_uses"]


def next_uses(lines: np.ndarray) -> np.ndarray:
    """For each access ``t`` of ``lines``, the index of the next access to the same line (``2**62``: none).

    One stable sort (``O(N log N)``), then one pass: consecutive entries of
    the sorted order with the same line are consecutive uses.
    """
    lines = np.asarray(lines, np.int64)
    order = np.argsort(lines, kind="stable")
    nxt = np.full(lines.size, 1 << 62, np.int64)
    same = lines[order[1:]] == lines[order[:-1]]
    nxt[order[:-1][same]] = order[1:][same]
    return nxt


def check_int(policy: str, name: str, v, lo: int, hi: int) -> None:
    """Raise InputError (naming ``policy`` and the parameter) unless ``v`` is an integer in ``[lo, hi]``."""
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise InputError(f"{policy}: {name}: must be an integer from {lo} to {hi}, not {v!r}")


class RripLLCPolicy(Policy):
    """A drp16 LLC policy of the RRIP family (see the module docstring for the names).

    Parameters
    ----------
    region, leaders : int
        Set dueling: ``leaders`` sets per group per ``region`` sets (drp16: 8 per 1K).
    psel_bits : int
        Width of each duel's PSEL counter (10).
    brrip_period : int
        BRRIP inserts at RRPV 2 once every this many insertions, else at 3 (32: epsilon 1/32).
    ship_init : int
        Initial value of the SHiP counters (1).

    Members
    -------
    llc : RripState or None
        The state, after a model asked for the LLC's hooks.
    """

    mode = "srrip"
    oracle = False

    def __init__(self, region: int = 1024, leaders: int = 8, psel_bits: int = 10, brrip_period: int = 32,
                 ship_init: int = 1) -> None:
        check_int(self.name, "region", region, 2, 1 << 20)
        check_int(self.name, "leaders", leaders, 1, region)
        check_int(self.name, "psel_bits", psel_bits, 1, 30)
        check_int(self.name, "brrip_period", brrip_period, 1, 1 << 20)
        check_int(self.name, "ship_init", ship_init, 0, 7)
        self.params = {"region": region, "leaders": leaders, "psel_bits": psel_bits,
                       "brrip_period": brrip_period, "ship_init": ship_init}
        self.llc = None
        self._next_use: np.ndarray | None = None

    def prepare(self, trace: np.ndarray) -> None:
        """Offline policies: the LLC access trace the next run replays (``LLC_TRACE_DTYPE`` rows)."""
        self._next_use = next_uses(trace["line"])

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        """Hooks for the ``"llc"`` level (new state); the baseline's elsewhere.

        Raises
        ------
        InputError
            If the LLC is too small for the dueling groups, or an offline
            policy was not given its trace (:meth:`prepare`).
        """
        if level != "llc":
            return BASELINE_HOOKS
        return make_hooks(self.new_llc_state(cfg), **rrip.hooks())

    def new_llc_state(self, cfg: CacheConfig, duels: int | None = None) -> rrip.RripState:
        """New RRIP state for the LLC ``cfg`` (kept as :attr:`llc`), with ``duels`` duels if given.

        Raises
        ------
        InputError
            If the LLC is too small for the dueling groups, or an offline
            policy was not given its trace (:meth:`prepare`).
        """
        if self.oracle and self._next_use is None:
            raise InputError(f"{self.name}: an offline policy needs the LLC trace first (prepare)")
        nxt = self._next_use if self.oracle else None
        self.llc = rrip.new_state(self.mode, cfg.sets, cfg.assoc, next_use=nxt, duels=duels, **self.params)
        return self.llc

    def stats(self) -> dict[str, int]:
        """Event counts (:data:`~golden.policies.drp16_rrip.EVENTS`), zeros before a run."""
        if self.llc is None:
            return dict.fromkeys(rrip.EVENTS, 0)
        return {e: int(self.llc.events[0][e]) for e in rrip.EVENTS}

    def reset(self) -> None:
        """Forget everything learned: replacement state, PSELs, SHiP counters, events."""
        if self.llc is not None:
            for a in (self.llc.rrpv, self.llc.valid, self.llc.brrip_count, self.llc.sig, self.llc.reused,
                      self.llc.nu, self.llc.events):
                a.fill(0)
            self.llc.psel.fill((self.llc.psel_max + 1) // 2)
            self.llc.table.fill(self.params["ship_init"])

    def storage_bits(self, gpu: GPUConfig) -> dict[str, int]:
        """Nothing on a GPU hierarchy (the policy acts on drp16's LLC only; see :meth:`llc_storage_bits`)."""
        return {}

    def llc_storage_bits(self, cfg: CacheConfig) -> dict[str, int]:
        """Bits the policy keeps for an LLC ``cfg``: RRPV (NRU: 1 bit) per line, SHiP table and signatures."""
        bits = {"llc.rrpv": cfg.lines * (1 if self.mode == "nru" else 2)}
        if self.mode.startswith("ship"):
            bits["llc.ship_table"] = rrip.SHIP_ENTRIES * 3
            bits["llc.ship_line_fields"] = cfg.lines * (14 + 1)
        return bits


class ExtendedRripPolicy(RripLLCPolicy):
    """An RRIP-family LLC policy whose state wraps the :class:`~golden.policies.drp16_rrip.RripState`.

    A subclass keeps its whole state in :attr:`ext` (a named tuple with the
    RRIP state as ``rrip`` and an ``events`` record array), lists the RRIP
    events it reports in :attr:`rrip_events` and its own in :attr:`events`,
    and clears the rest of its state in :meth:`reset_ext`.
    """

    #: The RRIP family's events the policy reports.
    rrip_events: tuple[str, ...] = ()
    #: The policy's own events (fields of ``ext.events``).
    events: tuple[str, ...] = ()
    #: The whole state, after a model asked for the LLC's hooks.
    ext = None

    def stats(self) -> dict[str, int]:
        """:attr:`rrip_events` and :attr:`events` counts, zeros before a run."""
        out = {k: v for k, v in super().stats().items() if k in self.rrip_events}
        ev = None if self.ext is None else self.ext.events[0]
        out.update({e: 0 if ev is None else int(ev[e]) for e in self.events})
        return out

    def reset(self) -> None:
        """Forget everything learned: the RRIP state, the events and (:meth:`reset_ext`) the rest."""
        super().reset()
        if self.ext is not None:
            self.ext.events.fill(0)
            self.reset_ext()

    def reset_ext(self) -> None:
        """Clear the subclass's own state besides its events."""


def _register(name: str, mode: str, oracle: bool = False, doc: str = "") -> type[RripLLCPolicy]:
    cls = type(name.replace("-", "_"), (RripLLCPolicy,), {"name": name, "mode": mode, "oracle": oracle,
                                                           "__doc__": doc})
    return register_policy(cls)


Drp16Baseline = _register("drp16-baseline", "srrip", doc="drp16's Baseline: SRRIP with its write-miss rules.")
Drp16Nru = _register("drp16-nru", "nru", doc="drp16's NRU (Section 4.1).")
Drp16Drrip = _register("drp16-drrip", "drrip", doc="DRRIP on read misses, the Baseline's write rules.")
Drp16TaDrrip = _register("drp16-tadrrip", "tadrrip", doc="TA-DRRIP: CPU cores and the GPU as threads.")
Drp16ShipMem = _register("drp16-ship-mem", "ship-mem", doc="SHiP-mem: 16 KB regions.")
Drp16ShipHybrid = _register("drp16-ship-hybrid", "ship-hybrid",
                            doc="SHiP-PC for CPU reads, SHiP-mem for GPU reads.")
Drp16BaselineBypass = _register("drp16-baseline-bypass", "srrip", oracle=True,
                                doc="The Baseline with the optimal GPU bypass (offline).")
