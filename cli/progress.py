"""The progress bar of long commands.

A bar appears only when a run lasts longer than :data:`DELAY` seconds, and
only on a terminal unless the user asks for it (``--progress``); short runs,
pipes and CI logs stay clean. ``--no-progress`` turns it off everywhere.
"""

from __future__ import annotations

import sys

from tqdm import tqdm

__all__ = ["DELAY", "progress"]

#: Seconds before the bar is first drawn.
DELAY = 2.0


def progress(total: int, desc: str, unit: str = "it", enabled: bool | None = None,
             file=None) -> tqdm:
    """A tqdm bar on stderr that appears after :data:`DELAY` seconds.

    Parameters
    ----------
    total : int
        Units of work.
    desc : str
        Label in front of the bar.
    unit : str
        Name of a unit of work.
    enabled : bool or None
        ``True``: show it even when stderr is not a terminal; ``False``: never;
        ``None``: only on a terminal.
    file : file-like, optional
        Where to draw (default ``sys.stderr``).

    Returns
    -------
    tqdm
        Use as a context manager; call ``update(n)``.
    """
    file = sys.stderr if file is None else file
    if enabled is None:
        enabled = hasattr(file, "isatty") and file.isatty()
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=True, delay=DELAY, file=file,
                disable=not enabled, leave=False, dynamic_ncols=True, mininterval=0.5)
