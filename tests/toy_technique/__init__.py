"""A toy technique kept outside the project's packages, added through ``GPUCACHE_PLUGINS`` only.

It is the proof that adding a technique touches nothing in the engine,
``tb/``, ``synth/`` or ``cli/``: a policy (``hit_counter_policy``), its unit
model (``hit_counter_model``), its RTL (``hit_counter_rtl``) and its catalog
entry (``hit_counter_catalog``), each in its own file.
"""
