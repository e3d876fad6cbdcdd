"""The RTL units by name, built from a machine configuration and predictor parameters.

One place builds every unit, so ``gpucache synth`` and ``gpucache cosim``
elaborate exactly the same hardware.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from amaranth.lib import wiring

from golden.configs.schema import GPUConfig
from golden.errors import InputError
from rtl.bypass import BypassBits
from rtl.predictor import L1TagUnit, PredictionTable

__all__ = ["UNIT_NAMES", "PredictorParams", "build_unit", "PAPER_OVERHEAD"]

#: Width of the L1 unit's line-address port: 48-bit byte addresses of 64 B lines.
LINE_BITS = 42

#: Units ``build_unit`` knows, with the paper each comes from.
UNIT_NAMES = {"prediction_table": "tian15", "l1_tag_unit": "tian15", "bypass_bits": "tian15"}

#: Per unit: the storage overhead the paper reports (bits, source) and which of the unit's
#: memories are that overhead (the rest, e.g. the L1's own tags, the baseline already has).
PAPER_OVERHEAD = {
    "prediction_table": (128 * 4, "tian15 Sec. 3.1: 128 x 4-bit counters, 64 B per L1", ("table",)),
    "l1_tag_unit": (256 * 7 + 128 * 4, "tian15 Sec. 4.1: 7-bit hashed PC per tag, 224 B for 256 lines, "
                                       "plus the 64 B table", ("hpcs", "table.table")),
    "bypass_bits": (4096, "tian15 Sec. 4.1: one bypassBit per L2 line, 0.5 KB for 256 KB of 64 B lines",
                    ("bits",)),
}


@dataclass(frozen=True)
class PredictorParams:
    """tian15 predictor parameters shared by the golden policy and the RTL."""

    entries: int = 128
    counter_width: int = 4
    threshold: int = 8
    hash_bits: int = 7
    pc_shift: int = 3
    store_reuse: bool = True

    @classmethod
    def from_policy_params(cls, params: dict) -> PredictorParams:
        """The hardware parameters among a ``pc-bypass`` policy's (others, e.g. ``correction``, ignored)."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in params.items() if k in names})


def build_unit(name: str, gpu: GPUConfig, params: PredictorParams | None = None) -> wiring.Component:
    """Elaborate-ready RTL of unit ``name`` for the caches of ``gpu``.

    Raises
    ------
    InputError
        For an unknown unit, or a configuration the unit cannot implement.
    """
    p = params or PredictorParams()
    if name == "prediction_table":
        return PredictionTable(entries=p.entries, width=p.counter_width, threshold=p.threshold)
    if name == "bypass_bits":
        return BypassBits(sets=gpu.l2.sets, ways=gpu.l2.assoc)
    if name == "l1_tag_unit":
        l1 = gpu.l1
        if l1.index != "mod" or l1.replacement not in ("lru", "plru") or l1.write != "write-through":
            raise InputError(f"config {gpu.name}: the tian15 L1 unit needs modulo indexing, LRU or "
                             f"pseudo-LRU and a write-through L1, not {l1.index}/{l1.replacement}/{l1.write}")
        return L1TagUnit(sets=l1.sets, ways=l1.assoc, line_bits=LINE_BITS, replacement=l1.replacement,
                         entries=p.entries, counter_width=p.counter_width, threshold=p.threshold,
                         hash_bits=p.hash_bits, pc_shift=p.pc_shift, store_reuse=p.store_reuse)
    raise InputError(f"unknown unit {name!r}; units are {', '.join(UNIT_NAMES)}")
