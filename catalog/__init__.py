"""The unit catalog: every RTL unit bound to its golden model, its log and its paper.

One entry (:class:`~catalog.registry.UnitSpec`) per RTL unit, in one module
per technique (``catalog/tian15.py``, ...). ``tb.cosim``, ``synth``,
``gpucache cosim --unit`` and ``gpucache synth --unit`` read the catalog, so
adding a unit means adding its entry and touches none of them. The catalog
sits beside ``tb/`` and ``synth/``: it is the one place that imports both
``golden`` and ``rtl``.
"""

from catalog.registry import UnitSpec, get_unit, register_unit, unit_names

__all__ = ["UnitSpec", "get_unit", "register_unit", "unit_names"]
