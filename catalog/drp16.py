"""drp16's unit: the working-set-sample (WSS) cache.

The ``drp16-wss`` policy (``golden/policies/drp16_wss.py``) feeds the WSS
cache with the LLC's accesses under any inner policy and records its
transactions (recorder ``"wss"``); on a GPU hierarchy it samples the GPU's
L2 (``gpu_level``).
"""

from __future__ import annotations

from catalog.registry import UnitSpec, register_unit
from golden.cache.replacement import seed_states
from golden.policies.drp16_wss import WssRecording
from golden.units.wss import ENTRY_BITS
from golden.units.wss import Wss as WssModel
from rtl.wss import Wss

__all__ = ["rtl_params"]


def rtl_params(p: WssRecording) -> dict:
    """The RTL's parameters for the policy's WSS cache (the seed becomes the xorshift64 register's reset)."""
    params = dict(p.wss_params)
    params["rng_init"] = int(seed_states(params.pop("seed"), 1)[0])
    return params


register_unit(UnitSpec(
    name="wss", paper="drp16", policy="drp16-wss", recorder="wss",
    rtl=lambda gpu, p: Wss(**rtl_params(p)),
    model=lambda gpu, p: WssModel(**p.wss_params),
    overhead_bits=2048 * ENTRY_BITS,
    overhead_source="drp16 Sec. 5.6: 2K entries x 86 bits, 'about 22 KB' (of 124 KB in all)",
    overhead_memories=("entries",),
    description="working-set-sample cache: 128 x 16 page entries, 8 tracked blocks each, "
                "WR/RR/WA counters, MAX_REUSE, epochs (Section 5.1)"))
