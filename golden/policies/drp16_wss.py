"""drp16's WSS cache fed by the LLC accesses of any policy, recording the unit's transactions.

drp16 Section 5.1: "On every LLC access, the WSS cache is looked up in
parallel", whatever the LLC's policy does with the access. The policy
``drp16-wss`` runs an inner policy (``inner``, any registered policy:
``drp16-baseline`` by default) unchanged and wraps its hooks at the LLC so
that every LLC access (its ``on_hit`` or ``on_miss``, exactly one per access)
also goes through the WSS cache (:func:`golden.units.wss.wss_record`), which
records one transaction row per access for the RTL unit (recorder
``"wss"``, :data:`golden.units.wss.TRANSACTION_DTYPE`).

Where the WSS samples:

* drp16's LLC model (``golden.llc.LLCModel``, level ``"llc"``): every LLC
  access, with its stream.
* A GPU hierarchy (``golden.cache.hierarchy.Hierarchy``): the level named
  ``gpu_level`` (``"l2"``: what reaches a shared last level from the GPU's
  private caches). A GPU trace's accesses are CUDA accesses, the ``shader``
  stream (``docs/llc.md``): an unlabelled access (stream 0) or one with a
  CPU or unknown stream id counts as ``shader``. Line addresses are turned
  into 64-byte block numbers (the first block of a longer line).

Reads are loads; stores, write-backs and atomics are writes. DRP's own
policy calls :func:`~golden.units.wss.wss_record` from its hooks instead of
using this wrapper.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from golden.cache.engine import LOAD
from golden.cache.hooks import HOOK_SPECS
from golden.configs.schema import CacheConfig, GPUConfig
from golden.errors import InputError
from golden.llc.streams import MAX_CORES, N_STREAMS, SHADER
from golden.policies.base import LevelHooks, Policy, get_policy, register_policy
from golden.policies.recording import Recorder
from golden.units.wss import (
    COUNTER_BITS,
    ENTRY_BITS,
    SETS,
    TRANSACTION_DTYPE,
    WAYS,
    WSS_EVENTS,
    check_wss_params,
    new_wss,
    wss_record,
    wss_reset,
)

__all__ = ["WssRecording", "WssFeedState"]

WssFeedState = namedtuple("WssFeedState", ["inner", "ws", "tx", "tx_count", "shift", "gpu"])
WssFeedState.__doc__ = """State of the wrapped level: the inner policy's state, the WSS cache
(:data:`golden.units.wss.WssState`), the transaction log and its counters
(``golden.policies.recording``), ``shift`` (log2 of the level's line size
over 64 bytes) and ``gpu`` (1: a GPU hierarchy's level, streams mapped to
``shader``).
"""


@nb.njit(cache=True, nogil=True)
def wss_feed(ps, a):
    """Feed one access of the wrapped level to the WSS cache (see the module docstring)."""
    st = a.stream
    if ps.gpu and (st < MAX_CORES or st >= N_STREAMS):
        st = SHADER
    wss_record(ps.ws, ps.tx, ps.tx_count, a.line << ps.shift, st, a.op != LOAD, a.t)


_WRAPPERS: dict[tuple, LevelHooks] = {}


def _wrapped(inner: LevelHooks) -> LevelHooks:
    """``inner``'s hook functions wrapped to take a :data:`WssFeedState` and feed the WSS on hits and misses.

    The wrappers are generated from the hook specifications and kept per
    set of inner functions, so the engine (which compiles once per distinct
    hook functions) compiles once per inner policy and process.
    """
    key = tuple(inner[1:])
    if key not in _WRAPPERS:
        names = {"wss_feed": wss_feed}
        fns = []
        for spec, fn in zip(HOOK_SPECS, key, strict=True):
            names[f"inner_{spec.name}"] = fn
            args = ", ".join(("ps", "a") + spec.args)
            call_args = ", ".join(("ps.inner", "a") + spec.args)
            feed = "    wss_feed(ps, a)\n" if spec.name in ("on_hit", "on_miss") else ""
            src = f"def wss_{spec.name}({args}):\n{feed}    return inner_{spec.name}({call_args})\n"
            exec(compile(src, f"<golden.policies.drp16_wss {spec.name}>", "exec"), names)  # noqa: S102
            fns.append(nb.njit(nogil=True)(names[f"wss_{spec.name}"]))
        _WRAPPERS[key] = LevelHooks((), *fns)
    return _WRAPPERS[key]


@register_policy
class WssRecording(Policy):
    """An inner policy, with the WSS cache sampling the LLC's accesses (``--policy drp16-wss``).

    Parameters
    ----------
    inner : str
        Registry name of the LLC's policy (``drp16-baseline``).
    sets, ways, min_entries, epoch, counter_bits : int
        The WSS cache (drp16: 128 x 16, 32 entries, 512K reads; 20-bit counters).
    seed : int
        Seed of the WSS's random replacement.
    gpu_level : str
        On a GPU hierarchy, the level whose accesses the WSS samples (``"l2"``).
    log_sm : int or None
        Record the WSS's transactions when not None (the WSS is shared: the SM is not used).
    log_capacity : int
        Rows the log holds between two :meth:`take_transactions` calls.

    Members
    -------
    ws : WssState or None
        The WSS cache of the latest attachment.

    Raises
    ------
    ValueError
        For an unusable WSS parameter.
    InputError
        For an unknown inner policy or level, or (when attached) a level
        with lines shorter than 64 bytes.
    """

    name = "drp16-wss"
    recorders = ("wss",)

    def __init__(self, inner: str = "drp16-baseline", *, sets: int = SETS, ways: int = WAYS,
                 min_entries: int = 32, epoch: int = 512 * 1024, counter_bits: int = COUNTER_BITS,
                 seed: int = 0, gpu_level: str = "l2", log_sm: int | None = None,
                 log_capacity: int = 1 << 20) -> None:
        check_wss_params(sets, ways, min_entries, epoch, counter_bits)
        if inner == self.name:
            raise InputError(f"{self.name}: inner: cannot wrap itself")
        if gpu_level not in ("l1", "l2", "l3"):
            raise InputError(f"{self.name}: gpu_level: must be l1, l2 or l3, not {gpu_level!r}")
        self.inner = get_policy(inner)
        self.wss_params = dict(sets=sets, ways=ways, min_entries=min_entries, epoch=epoch,
                               counter_bits=counter_bits, seed=seed)
        self.gpu_level = gpu_level
        self.log_capacity = int(log_capacity) if log_sm is not None else 0
        self.ws = None
        self._recorder: Recorder | None = None

    def prepare(self, trace: np.ndarray) -> None:
        """Hand an offline inner policy its LLC trace (``prepare``); nothing for online ones."""
        if hasattr(self.inner, "prepare"):
            self.inner.prepare(trace)

    def level_hooks(self, level: str, cfg: CacheConfig, n_caches: int) -> LevelHooks:
        """The inner policy's hooks; at the LLC (or ``gpu_level``) wrapped to feed a new WSS cache."""
        hooks = self.inner.level_hooks(level, cfg, n_caches)
        if level not in ("llc", self.gpu_level):
            return hooks
        if cfg.line_size < 64:
            raise InputError(f"{self.name}: {level}.line_size: the WSS tracks 64-byte blocks, "
                             f"not {cfg.line_size}-byte lines")
        p = self.wss_params
        self.ws = new_wss(p["seed"], p["min_entries"], p["epoch"], sets=p["sets"], ways=p["ways"],
                          counter_bits=p["counter_bits"])
        self._recorder = rec = Recorder(TRANSACTION_DTYPE, self.log_capacity)
        state = WssFeedState(inner=hooks.state, ws=self.ws, tx=rec.log, tx_count=rec.count,
                             shift=(cfg.line_size // 64).bit_length() - 1, gpu=int(level != "llc"))
        return _wrapped(hooks)._replace(state=state)

    def stats(self) -> dict[str, int | float]:
        """The inner policy's statistics, then the WSS's events (``wss_`` + :data:`WSS_EVENTS`)."""
        out = dict(self.inner.stats())
        ev = self.ws.events if self.ws is not None else np.zeros(len(WSS_EVENTS), np.int64)
        out.update({f"wss_{e}": int(v) for e, v in zip(WSS_EVENTS, ev, strict=True)})
        return out

    def reset(self) -> None:
        """Forget everything: the inner policy's state, the WSS cache and its counters."""
        self.inner.reset()
        if self.ws is not None:
            wss_reset(self.ws, self.wss_params["seed"])

    def storage_bits(self, gpu: GPUConfig) -> dict[str, int]:
        """The inner policy's bits, and the WSS cache's entries and counters at ``gpu_level``."""
        p = self.wss_params
        counters = (3 * N_STREAMS + 3) * p["counter_bits"]  # WR, RR, WA per stream; MAX_REUSE, the pair
        lv = self.gpu_level
        return {**self.inner.storage_bits(gpu), f"{lv}.wss_entries": p["sets"] * p["ways"] * ENTRY_BITS,
                f"{lv}.wss_counters": counters}

    def units(self) -> tuple[str, ...]:
        """The WSS cache unit."""
        return ("wss",)

    def take_transactions(self) -> dict[str, np.ndarray]:
        """The WSS's transactions (``"wss"``) since the last call.

        Raises
        ------
        RuntimeError
            If the log overflowed its capacity (run shorter chunks between calls).
        """
        if self._recorder is None:
            return {"wss": np.zeros(0, TRANSACTION_DTYPE)}
        return {"wss": self._recorder.take()}
