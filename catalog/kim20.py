"""kim20's unit: the per-SM two-level bypassing unit (MRMU + WOMU + BDU).

The ``kim20-two-level`` policy (``golden/policies/kim20.py``) decides each SM's mode from the timing
model's monitors; co-simulation runs the workload on the timing model with its per-access log,
turns SM ``log_sm``'s load lookups and monitor events into the unit's transactions
(:func:`golden.units.kim20_bypass.monitor_transactions`, with the policy's decisions, which the
unit model must reproduce) and lays them out one row per cycle of every sampling window.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from catalog.registry import UnitSpec, register_unit
from golden.cache.hierarchy import Hierarchy
from golden.configs.schema import GPUConfig
from golden.gpu.model import TimingModel
from golden.policies.kim20 import Kim20TwoLevel
from golden.trace.model import Workload
from golden.units.kim20_bypass import TwoLevelBypass as TwoLevelBypassModel
from golden.units.kim20_bypass import monitor_transactions
from golden.units.mrmu import COUNTER_BITS
from rtl.bypass import TwoLevelBypass

__all__ = ["record_timed", "rtl_params", "EVENT_LOG_ROWS"]

#: Rows of the timing model's per-access log per slice of cycles (all SMs' L1 lookups and events).
EVENT_LOG_ROWS = 1 << 21


def rtl_params(gpu: GPUConfig, p: Kim20TwoLevel) -> dict:
    """The RTL's parameters: the policy's window and thresholds, the machine's warps and L1 ports."""
    b = p.bdu_params(gpu.max_warps_per_sm)
    return dict(window=b.window, warps=b.warps, q_l=b.q_l, q_h=b.q_h, q_w=b.q_w, min_accesses=b.min_accesses,
                ports=gpu.l1.ports)


def _model(gpu: GPUConfig, p: Kim20TwoLevel) -> TwoLevelBypassModel:
    return TwoLevelBypassModel(p.bdu_params(gpu.max_warps_per_sm), ports=gpu.l1.ports)


def record_timed(workload: Workload, gpu: GPUConfig, policy: Kim20TwoLevel,
                 progress: Callable[[int], None] | None = None) -> tuple[dict[str, np.ndarray], dict]:
    """Run ``workload`` on the timing model with ``policy``; the unit's transactions of SM ``log_sm``.

    Returns
    -------
    transactions : dict
        ``{"kim20": TRANSACTION_DTYPE rows, "bdu": the policy's decisions}``.
    stats : dict
        The hierarchy's counters.
    """
    h = Hierarchy(gpu, policy)
    tm = TimingModel(gpu, h, log_capacity=EVENT_LOG_ROWS)
    decisions = []
    for i, kernel in enumerate(workload.kernels):
        timing = tm.run_kernel(kernel, i)
        decisions.append(policy.take_transactions()["bdu"])
        tm.log = [_only_sm(tm.event_log(), policy.log_sm)]  # keep the logged SM's rows only
        if progress:
            progress(timing.counters["l1_accesses"])
    dec = np.concatenate(decisions)
    tx = monitor_transactions(tm.event_log(), policy.log_sm, merged_misses=policy.merged_misses,
                              decisions=dec)
    return {"kim20": tx, "bdu": dec}, h.stats()


def _only_sm(events: np.ndarray, sm: int) -> np.ndarray:
    return events[events[:, 1] == sm]


register_unit(UnitSpec(
    name="kim20_bypass", paper="kim20", policy="kim20-two-level", recorder="kim20",
    rtl=lambda gpu, p: TwoLevelBypass(**rtl_params(gpu, p)),
    model=_model,
    overhead_bits=2 * COUNTER_BITS + 5,
    overhead_source="kim20 Sec. 3: 2 x 13-bit access and miss counters and 5 bits of warp occupancy per SM",
    overhead_in_flip_flops=True,
    description="per-SM MRMU (2 x 13-bit counters), WOMU (occupancy sum over the window), BDU "
                "(window timer, C/B mode, threshold comparators)",
    record=record_timed))
