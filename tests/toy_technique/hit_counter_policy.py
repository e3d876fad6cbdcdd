"""The toy policy: counts each SM's L1 hits and records the logged SM's requests."""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.policies.base import BASELINE_HOOKS, Policy, make_hooks, register_policy
from golden.policies.recording import Recorder, new_row
from tests.toy_technique.hit_counter_model import TRANSACTION_DTYPE

State = namedtuple("State", ["log_sm", "hits", "tx", "tx_count"])


@nb.njit
def _record(ps, a, hit):
    if hit:
        ps.hits[a.c] += 1
    if a.c == ps.log_sm:
        r = new_row(ps.tx, ps.tx_count)
        if r >= 0:
            ps.tx[r].hit = hit
            ps.tx[r].access = a.t


@nb.njit
def _on_hit(ps, a):
    _record(ps, a, 1)


@nb.njit
def _on_miss(ps, a):
    _record(ps, a, 0)
    return 0


@register_policy
class HitCounter(Policy):
    name = "toy-hit-counter"
    recorders = ("l1",)

    def __init__(self, width: int = 16, log_sm: int | None = None, log_capacity: int = 1 << 20) -> None:
        self.width, self.log_sm, self.log_capacity = width, -1 if log_sm is None else log_sm, log_capacity
        self.state = None
        self._recorder = None

    def level_hooks(self, level, cfg, n_caches):
        if level != "l1":
            return BASELINE_HOOKS
        self._recorder = Recorder(TRANSACTION_DTYPE, self.log_capacity if self.log_sm >= 0 else 0)
        rec = self._recorder
        self.state = State(self.log_sm, np.zeros(n_caches, np.int64), rec.log, rec.count)
        return make_hooks(self.state, on_hit=_on_hit, on_miss=_on_miss)

    def stats(self):
        return {"hits": 0 if self.state is None else int(self.state.hits.sum())}

    def reset(self):
        if self.state is not None:
            self.state.hits.fill(0)

    def storage_bits(self, gpu):
        return {"l1.hit_counter": self.width}

    def units(self):
        return ("toy_hit_counter",)

    def take_transactions(self):
        return {} if self._recorder is None else {"l1": self._recorder.take()}
