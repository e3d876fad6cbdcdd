"""Closed-loop random stimulus: inputs chosen cycle by cycle while a unit model runs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from golden.units.base import UnitModel
from golden.units.l1_tag_unit import L1TagUnit

__all__ = ["record", "l1_tag_inputs", "wss_inputs"]


def record(model: UnitModel, n: int, next_inputs: Callable[[UnitModel], dict[str, int]]) -> np.ndarray:
    """Run ``model`` for ``n`` cycles with ``next_inputs(model)`` and return the transaction log."""
    log = np.zeros(n, dtype=model.log_dtype)
    cols = {name: log[name] for name in log.dtype.names}
    for i in range(n):
        ins = {name: 0 for name in model.inputs}
        ins.update(next_inputs(model))
        for name, v in ins.items():
            cols[name][i] = v
        for name, v in model.step(**ins).items():
            cols[f"exp_{name}"][i] = v
    return log


def l1_tag_inputs(rng: np.random.Generator, *, lines: int, pcs: int, p_store: float = 0.15,
                  p_idle: float = 0.1, p_l2: float = 0.7, p_bit: float = 0.3) -> Callable:
    """Input generator for :class:`L1TagUnit`: requests over ``lines`` lines from ``pcs`` PCs.

    The requester follows valid/ready: a request stays presented, unchanged,
    until the unit takes it (``unit.taken``); then, with probability
    ``p_idle``, a cycle passes with no request. The L2 port is driven at
    random in every cycle (the unit must ignore it while no miss waits):
    ``l2_resp__valid`` with probability ``p_l2``, ``l2_resp__bit`` with ``p_bit``.
    """
    pending: dict[str, int] = {}

    def gen(unit: L1TagUnit) -> dict[str, int]:
        nonlocal pending
        if unit.taken or not pending:
            pending = {} if rng.random() < p_idle else {
                "s1_req__valid": 1, "s1_req__line": int(rng.integers(0, lines)),
                "s1_req__pc": 0x100 + 8 * int(rng.integers(0, pcs)),
                "s1_req__store": int(rng.random() < p_store)}
        l2 = {"l2_resp__valid": int(rng.random() < p_l2), "l2_resp__bit": int(rng.random() < p_bit)}
        return {**pending, **l2}

    return gen


def wss_inputs(rng: np.random.Generator, *, pages: int, streams: int = 11, p_idle: float = 0.1,
               p_tracked: float = 0.7, p_write: float = 0.3, p_dyntex: float = 0.2) -> Callable:
    """Input generator for :class:`golden.units.wss.Wss`: LLC accesses over ``pages`` 4 KB pages.

    Like :func:`l1_tag_inputs`, an access stays presented, unchanged, until
    the unit takes it; then, with probability ``p_idle``, a cycle passes
    with none. A line is a tracked block (a multiple of 8) with probability
    ``p_tracked``; the stream is the dynamic texture (7) with probability
    ``p_dyntex`` (so its rules are exercised), else uniform over ``streams``;
    the access is a write with probability ``p_write``.
    """
    pending: dict[str, int] = {}

    def gen(unit) -> dict[str, int]:
        nonlocal pending
        if unit.taken or not pending:
            line = int(rng.integers(0, 64 * pages))
            if rng.random() < p_tracked:
                line &= ~7
            stream = 7 if rng.random() < p_dyntex else int(rng.integers(0, streams))
            pending = {} if rng.random() < p_idle else {
                "s1_acc__valid": 1, "s1_acc__line": line, "s1_acc__stream": stream,
                "s1_acc__write": int(rng.random() < p_write)}
        return pending

    return gen
