"""tian15's units: the prediction table, the L1 tag and metadata unit, the L2 bypassBit store.

All three are implemented by the ``pc-bypass`` policy, whose compiled hooks
record the L1 unit's transactions (recorder ``"l1"``: also the embedded
table's) and the bypassBit store's (``"l2"``).
"""

from __future__ import annotations

from catalog.registry import UnitSpec, register_unit
from golden.configs.schema import GPUConfig
from golden.errors import InputError
from golden.policies.pc_bypass import PCBypass
from golden.units.bypass_bits import BypassBits as BypassBitsModel
from golden.units.l1_tag_unit import L1TagUnit as L1TagUnitModel
from golden.units.prediction_table import PredictionTable as PredictionTableModel
from rtl.bypass import BypassBits
from rtl.predictor import L1TagUnit, PredictionTable

__all__ = ["LINE_BITS"]

#: Width of the L1 unit's line-address port: 48-bit byte addresses of 64 B lines.
LINE_BITS = 42


def _table_params(p: PCBypass) -> dict:
    return dict(entries=p.entries, width=p.counter_width, threshold=p.threshold)


def _l1_params(gpu: GPUConfig, p: PCBypass) -> dict:
    l1 = gpu.l1
    if l1.index != "mod" or l1.replacement not in ("lru", "plru") or l1.write != "write-through":
        raise InputError(f"config {gpu.name}: the tian15 L1 unit needs modulo indexing, LRU or "
                         f"pseudo-LRU and a write-through L1, not {l1.index}/{l1.replacement}/{l1.write}")
    return dict(sets=l1.sets, ways=l1.assoc, line_bits=LINE_BITS, replacement=l1.replacement,
                entries=p.entries, counter_width=p.counter_width, threshold=p.threshold,
                hash_bits=p.hash_bits, pc_shift=p.pc_shift, store_reuse=p.store_reuse)


register_unit(UnitSpec(
    name="prediction_table", paper="tian15", policy="pc-bypass", recorder="l1",
    rtl=lambda gpu, p: PredictionTable(**_table_params(p)),
    model=lambda gpu, p: PredictionTableModel(**_table_params(p)),
    overhead_bits=128 * 4, overhead_source="tian15 Sec. 3.1: 128 x 4-bit counters, 64 B per L1",
    overhead_memories=("table",),
    description="128 x 4-bit saturating counters indexed by hashed PC (one per L1)"))

register_unit(UnitSpec(
    name="l1_tag_unit", paper="tian15", policy="pc-bypass", recorder="l1",
    rtl=lambda gpu, p: L1TagUnit(**_l1_params(gpu, p)),
    model=lambda gpu, p: L1TagUnitModel(**_l1_params(gpu, p)),
    overhead_bits=256 * 7 + 128 * 4,
    overhead_source="tian15 Sec. 4.1: 7-bit hashed PC per tag, 224 B for 256 lines, plus the 64 B table",
    overhead_memories=("hpcs", "table.table"),
    description="one L1's tags, hashed PCs, replacement state and prediction table (Listing 1)"))

register_unit(UnitSpec(
    name="bypass_bits", paper="tian15", policy="pc-bypass", recorder="l2",
    rtl=lambda gpu, p: BypassBits(sets=gpu.l2.sets, ways=gpu.l2.assoc),
    model=lambda gpu, p: BypassBitsModel(sets=gpu.l2.sets, ways=gpu.l2.assoc),
    overhead_bits=4096,
    overhead_source="tian15 Sec. 4.1: one bypassBit per L2 line, 0.5 KB for 256 KB of 64 B lines",
    overhead_memories=("bits",),
    description="one bypassBit per L2 line, read-and-clear on an L1 fill request"))
