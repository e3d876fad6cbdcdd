"""A policy for the sweep tests, loaded as a plugin (``GPUCACHE_PLUGINS=tests.sweep_probe``).

It behaves as the baseline (no hooks, so no compilation) and, when its
parameters ask, fails or kills its own worker process when the run ends
(``stats()``, which only a finished simulation calls; validating a config
builds the policy and its hooks but never calls it):

* ``fail = 1``: raises RuntimeError;
* ``die = "always"``: SIGKILLs the process every time;
* ``die = PATH``: SIGKILLs the process the first time (it creates ``PATH``
  first), runs normally once ``PATH`` exists.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from golden.policies.base import Baseline, register_policy


@register_policy
class SweepProbe(Baseline):
    """The baseline, with a failure or a worker death on request."""

    name = "sweep-probe"

    def __init__(self, fail: int = 0, die: str = "") -> None:
        self.fail = fail
        self.die = die

    def stats(self) -> dict[str, int | float]:
        if self.fail:
            raise RuntimeError("sweep-probe: asked to fail")
        if self.die == "always" or (self.die and not Path(self.die).exists()):
            if self.die != "always":
                Path(self.die).touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().stats()
