"""Set-index functions: which set a line number maps to.

Every function takes a *line number* (byte address // line size) and a
cache of ``S`` sets (``S`` a power of two except for ``prime``):

``mod``
    ``line mod S``: the low ``log2 S`` bits of the line number.
``xor``
    GPGPU-Sim's ``BITWISE_XORING_FUNCTION`` (``cache_config::hash_function``
    in ``src/gpgpu-sim/gpu-cache.cc``, with ``bitwise_hash_function`` in
    ``hashing.cc``): ``index = line & (S - 1)``, ``higher = line >> log2 S``,
    ``set = index ^ (higher & (S - 1))``. Only the ``log2 S`` tag bits right
    above the index are folded in, exactly as GPGPU-Sim does; higher tag bits
    do not affect the set.
``prime``
    Prime-modulo indexing (RDGC Table 2 "PRI", after its reference [33],
    Kim & Baek 2016): ``set = line mod p`` with ``p`` the largest prime
    ``<= S`` (``p = 1`` for ``S = 1``). Sets ``p .. S-1`` are never indexed:
    they stay empty, so the usable capacity is ``p * assoc`` lines. This is
    the usual prime-modulo organisation (the few leftover sets are given up
    for a conflict-free set mapping).
``smod``
    RDGC Table 2 "SMOD n": index bits ``[i+m+n .. i+n]`` instead of
    ``[i+m .. i]``, i.e. ``set = (line >> n) mod S`` with
    ``n = CacheConfig.smod_shift``.

The scalar :func:`set_index` is compiled and shared by every engine path.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from golden.configs.schema import INDEX_FUNCTIONS, CacheConfig

__all__ = [
    "INDEX_MOD",
    "INDEX_XOR",
    "INDEX_PRIME",
    "INDEX_SMOD",
    "index_kind",
    "largest_prime_le",
    "set_index",
    "set_indices",
]

#: Engine codes of the index functions, in the order of ``INDEX_FUNCTIONS``.
INDEX_MOD, INDEX_XOR, INDEX_PRIME, INDEX_SMOD = range(4)


def index_kind(name: str) -> int:
    """Engine code of an index function name (``"mod"`` -> :data:`INDEX_MOD`)."""
    if name not in INDEX_FUNCTIONS:
        raise ValueError(f"index: must be one of {', '.join(INDEX_FUNCTIONS)}, not {name!r}")
    return INDEX_FUNCTIONS.index(name)


def largest_prime_le(n: int) -> int:
    """Largest prime ``<= n``; 1 when ``n`` is 1.

    Raises
    ------
    ValueError
        If ``n`` is not a positive integer.
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n: must be a positive integer, not {n!r}")
    for p in range(n, 1, -1):
        if all(p % d for d in range(2, int(p**0.5) + 1)):
            return p
    return 1


@nb.njit(cache=True, nogil=True)
def set_index(line, kind, mask, log2_sets, prime, shift):
    """Set of ``line`` (int64) under index function ``kind``.

    ``mask = S - 1`` and ``log2_sets`` serve the power-of-two functions,
    ``prime`` the prime modulo, ``shift`` the SMOD shift.
    """
    if kind == INDEX_MOD:
        return line & mask
    if kind == INDEX_XOR:
        return (line ^ (line >> log2_sets)) & mask
    if kind == INDEX_PRIME:
        return line % prime
    return (line >> shift) & mask


@nb.njit(cache=True, nogil=True)
def _set_indices(lines, kind, mask, log2_sets, prime, shift):
    out = np.empty(lines.size, np.int64)
    for i in range(lines.size):
        out[i] = set_index(lines[i], kind, mask, log2_sets, prime, shift)
    return out


def index_params(cfg: CacheConfig) -> tuple[int, int, int, int, int]:
    """``(kind, mask, log2_sets, prime, shift)`` for :func:`set_index` from a config."""
    sets = cfg.sets
    log2_sets = sets.bit_length() - 1
    return index_kind(cfg.index), sets - 1, log2_sets, largest_prime_le(sets), cfg.smod_shift


def set_indices(cfg: CacheConfig, lines: np.ndarray) -> np.ndarray:
    """Sets of the given line numbers under ``cfg``'s index function.

    Parameters
    ----------
    cfg : CacheConfig
        The cache (its ``sets``, ``index`` and ``smod_shift`` are used).
    lines : array of int
        Line numbers (byte address // ``cfg.line_size``).

    Returns
    -------
    numpy.ndarray
        ``int64`` set of each line.
    """
    lines = np.ascontiguousarray(lines, dtype=np.int64)
    return _set_indices(lines, *index_params(cfg))
