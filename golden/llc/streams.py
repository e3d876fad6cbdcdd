"""drp16's LLC access streams: one per CPU core and seven GPU streams.

drp16 Section 5.1: "we consider the following stream categories: CPU,
color, depth, static texture (or simply texture), dynamic texture, blitter,
shader, and the rest clubbed into one category. The CPU stream is further
partitioned based on the originating CPU core" (eleven streams for 4C1G,
four bits). The ids are fixed whatever the core count, so a trace, a policy
table and a result file mean the same stream in every configuration:

====  ==================  ====================================================
 id   name                what
====  ==================  ====================================================
0-3   ``cpu0`` - ``cpu3``  misses and writebacks of CPU core *k*'s private L2
 4    ``color``           render-target (pixel colour) reads and writes
 5    ``depth``           depth (Z/HiZ) buffer reads and writes
 6    ``texture``         static texture samples
 7    ``dyntex``          dynamic texture samples (colour/depth/blit data read back)
 8    ``blitter``         blitter (copy) reads and writes
 9    ``shader``          shader instructions and data (every CUDA access)
10    ``other``           vertices, indices and the rest
====  ==================  ====================================================
"""

from __future__ import annotations

import numpy as np

from golden.errors import InputError

__all__ = [
    "MAX_CORES",
    "COLOR",
    "DEPTH",
    "TEXTURE",
    "DYNTEX",
    "BLITTER",
    "SHADER",
    "OTHER",
    "N_STREAMS",
    "STREAM_NAMES",
    "stream_id",
    "is_cpu",
]

#: CPU cores drp16 simulates at most (4C1G).
MAX_CORES = 4
COLOR, DEPTH, TEXTURE, DYNTEX, BLITTER, SHADER, OTHER = range(MAX_CORES, MAX_CORES + 7)
#: Number of stream ids.
N_STREAMS = OTHER + 1
#: Name of each stream id.
STREAM_NAMES = tuple(f"cpu{k}" for k in range(MAX_CORES)) + (
    "color", "depth", "texture", "dyntex", "blitter", "shader", "other")


def stream_id(name: str) -> int:
    """The id of a stream name.

    Raises
    ------
    InputError
        For an unknown name.
    """
    try:
        return STREAM_NAMES.index(name)
    except ValueError:
        raise InputError(f"unknown stream {name!r}; streams are {', '.join(STREAM_NAMES)}") from None


def is_cpu(stream: np.ndarray | int) -> np.ndarray | bool:
    """True for the CPU cores' streams."""
    return stream < MAX_CORES
