"""Python's cyclic garbage collector paused while large acyclic data is built.

Parsing a run's record (JSON) or turning its time series into lists makes
millions of lists; each 700 new containers start a collection, and every so
often a full one walks every object the process holds. In a ciao18
comparison's process at the paper's sizes that came to half of the time it
spent reading, filing and writing its runs' results: 35.6 s of CPU, 19.4 s with
the collector off (the 315 runs of session 62's store, read, filed and turned
back into lists as the comparison does). JSON and lists of numbers hold no
cycles, so nothing the collector could free is made while it is paused; it
runs again, as before, when the block ends.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["gc_paused"]


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector for the ``with`` block (nested blocks and a paused caller are kept)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
