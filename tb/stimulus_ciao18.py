"""Seeded random stimulus for ciao18's units (``golden/units/ciao_*.py``), for :func:`tb.stimulus.record`.

Each function returns ``gen(unit) -> inputs`` for one cycle. The values are
drawn from small pools (a few warps, a few lines) so that the rules the
units implement are reached often: VTA hits and FIFO wrap-around, counter
saturation and WID replacement, every pair-list action, epoch ends and
cut-off tests on both sides, configuration changes between requests.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["vta_inputs", "interference_inputs", "pair_list_inputs", "irs_inputs", "smem_inputs"]


def _pick(rng: np.random.Generator, n: int) -> int:
    return int(rng.integers(0, n))


def vta_inputs(rng: np.random.Generator, *, sets: int, lines: int, p_ins: float = 0.5,
               p_probe: float = 0.6, p_kernel: float = 0.01) -> Callable:
    """Evictions and probes over the first ``sets`` sets and ``lines`` line addresses, rare kernel starts."""
    def gen(unit) -> dict[str, int]:
        out = {"kernel_start": int(rng.random() < p_kernel)}
        if rng.random() < p_ins:
            out.update(s1_ins__valid=1, s1_ins__set=_pick(rng, sets), s1_ins__line=_pick(rng, lines),
                       s1_ins__wid=_pick(rng, 64))
        if rng.random() < p_probe:
            out.update(s1_probe__valid=1, s1_probe__set=_pick(rng, sets), s1_probe__line=_pick(rng, lines))
        return out
    return gen


def interference_inputs(rng: np.random.Generator, *, warps: int, p_upd: float = 0.7,
                        p_look: float = 0.5, p_kernel: float = 0.01) -> Callable:
    """Updates and lookups among the first ``warps`` warps (interferers too: ``by == wid`` occurs), rare
    kernel starts."""
    def gen(unit) -> dict[str, int]:
        out = {"kernel_start": int(rng.random() < p_kernel)}
        if rng.random() < p_upd:
            out.update(s1_upd__valid=1, s1_upd__wid=_pick(rng, warps), s1_upd__by=_pick(rng, warps))
        if rng.random() < p_look:
            out.update(s1_look__valid=1, s1_look__wid=_pick(rng, warps))
        return out
    return gen


def pair_list_inputs(rng: np.random.Generator, *, warps: int, p_cmd: float = 0.8) -> Callable:
    """Commands (every op: read, trigger, release, stall) on the first ``warps`` warps, any source WID."""
    def gen(unit) -> dict[str, int]:
        if rng.random() >= p_cmd:
            return {}
        return {"s1_cmd__valid": 1, "s1_cmd__op": int(rng.choice(4, p=[0.1, 0.4, 0.4, 0.1])),
                "s1_cmd__wid": _pick(rng, warps), "s1_cmd__src": _pick(rng, 64)}
    return gen


def irs_inputs(rng: np.random.Generator, *, warps: int, p_hit: float = 0.3,
               p_query: float = 0.5, p_kernel: float = 0.003, max_active: int = 64) -> Callable:
    """Instructions (0 to the unit's ``issue_width * lanes`` a cycle), VTA hits of the first ``warps``
    warps, queries, an occasional kernel start."""
    def gen(unit) -> dict[str, int]:
        out = {"inst": _pick(rng, unit.issue_width * unit.lanes + 1), "active": _pick(rng, max_active + 1),
               "kernel_start": int(rng.random() < p_kernel)}
        if rng.random() < p_hit:
            out.update(hit__valid=1, hit__wid=_pick(rng, warps))
        if rng.random() < p_query:
            out.update(s1_q__valid=1, s1_q__wid=_pick(rng, warps))
        return out
    return gen


def smem_inputs(rng: np.random.Generator, *, mshr_entries: int, p_cfg: float = 0.02, p_req: float = 0.7,
                p_alloc: float = 0.4, p_fill: float = 0.5) -> Callable:
    """Requests over the whole 32-bit space, MSHR allocations and fills, rare reconfigurations
    (masks ``2^k - 1`` mostly, any byte sometimes)."""
    def gen(unit) -> dict[str, int]:
        out = {}
        if rng.random() < p_cfg:
            mask = (1 << _pick(rng, 9)) - 1 if rng.random() < 0.8 else _pick(rng, 256)
            out.update(cfg__valid=1, cfg__mask=mask, cfg__data_off=_pick(rng, 256),
                       cfg__tag_off=_pick(rng, 256))
        if rng.random() < p_req:
            out.update(s1_req__valid=1, s1_req__addr=_pick(rng, 1 << 32), s1_req__wid=_pick(rng, 64),
                       s1_req__alloc=int(rng.random() < p_alloc), s1_req__mshr=_pick(rng, mshr_entries))
        if rng.random() < p_fill:
            out.update(s1_fill__valid=1, s1_fill__mshr=_pick(rng, mshr_entries))
        return out
    return gen
