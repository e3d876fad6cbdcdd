"""Blocking a warp through the timing model's scheduler control (``SchedulerControl``)."""

from __future__ import annotations

import numba as nb

# The values of SchedulerControl.blocked, defined with the timing model's layout.
from golden.gpu.layout import BLOCK_ALL, BLOCK_LOADS, UNBLOCKED

__all__ = ["set_blocked", "UNBLOCKED", "BLOCK_ALL", "BLOCK_LOADS"]


@nb.njit(cache=True, nogil=True)
def set_blocked(blocked, changed, sm, slot, value):
    """Set ``blocked[slot]`` (a warp of SM ``sm``) to ``value``; a change sets ``changed[sm]``.

    ``value`` is :data:`UNBLOCKED`, :data:`BLOCK_ALL` or :data:`BLOCK_LOADS`.

    The timing model wakes an SM's sleeping schedulers only when something can
    make a warp ready (``docs/timing.md``, "Speed"); a policy hook that blocks or
    unblocks a warp says so through ``changed``. ``changed`` may be empty (the
    policy runs without the timing model).
    """
    if blocked[slot] != value:
        blocked[slot] = value
        if changed.size:
            changed[sm] = 1
