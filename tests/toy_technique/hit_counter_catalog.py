"""Catalog entry of the toy hit counter (importing it also registers the toy policy)."""

from catalog.registry import UnitSpec, register_unit
from tests.toy_technique import hit_counter_policy  # noqa: F401 - registers the policy
from tests.toy_technique.hit_counter_model import HitCounterModel
from tests.toy_technique.hit_counter_rtl import HitCounter

register_unit(UnitSpec(
    name="toy_hit_counter", paper="toy", policy="toy-hit-counter", recorder="l1",
    rtl=lambda gpu, p: HitCounter(width=p.width),
    model=lambda gpu, p: HitCounterModel(width=p.width),
    overhead_bits=16, overhead_source="toy: one 16-bit counter per L1", overhead_memories=(),
    description="counts an L1's hits"))
