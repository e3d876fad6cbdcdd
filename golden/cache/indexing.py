"""Set-index functions: which set a line number maps to.

Every function takes a *line number* (byte address // line size) and a
cache of ``S`` sets (``S`` a power of two for ``mod`` and ``smod``):

``mod``
    ``line mod S``: the low ``log2 S`` bits of the line number. With
    ``N = CacheConfig.index_slices > 1`` slices of ``T = S / N`` sets
    (GPGPU-Sim's L2 sub-partitions with linear set indexing): ``slice = line
    mod N`` and ``set = slice * T + (q mod T)`` with ``q = line // N``, the
    line number inside the slice (GPGPU-Sim's ``partition_address``).
``xor``
    GPGPU-Sim's ``BITWISE_XORING_FUNCTION`` (``cache_config::hash_function``
    in ``src/gpgpu-sim/gpu-cache.cc``, with ``bitwise_hash_function`` in
    ``hashing.cc``) on each of ``N = CacheConfig.index_slices`` equal slices
    of ``T = S / N`` sets (``T`` a power of two). With ``N = 1`` (every
    power-of-two ``S`` unless ``slices`` says otherwise):
    ``index = line & (T - 1)``, ``higher = line >> log2 T``,
    ``set = index ^ (higher & (T - 1))``. Only the ``log2 T`` tag bits right
    above the index are folded in, exactly as GPGPU-Sim does; higher tag bits
    do not affect the set. With ``N > 1`` (GPGPU-Sim's L2 sub-partitions,
    e.g. the GTX 480's 12 slices of 64 sets): lines are interleaved over the
    slices, ``slice = line mod N``, and the slice XOR-indexes its own line
    number ``q = line // N`` (the address without the slice, as GPGPU-Sim's
    ``partition_address``): ``set = slice * T + ((q ^ (q >> log2 T)) & (T - 1))``.
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
``fermi``
    GPGPU-Sim's ``FERMI_HASH_SET_FUNCTION`` (``H`` in ``-gpgpu_cache``), the set-index
    hash of Nugteren et al., "A detailed GPU cache model based on reuse distance
    theory", HPCA 2014 (ciao18's reference [26] for its XOR-based set-index hashing),
    for ``T = 32`` or ``64`` sets per slice. On the byte address ``a`` of line
    number ``q`` (``a = q * line_size``): ``lower = q & 31`` (address bits 7-11
    for 128-byte lines), ``upper`` = address bits 13, 14, 15, 17 and 19 as bits 0-4,
    ``set = lower ^ upper``, and with 64 sets address bit 12 is bit 5 of the set
    ("48KB cache prepends the set_index with bit 12"). The upper bits are fixed
    address bits whatever the line size, as in GPGPU-Sim. Slices as ``xor``:
    ``slice = line mod N``, ``q = line // N``.

How lines are spread over the slices (``CacheConfig.slice_map``, for ``mod``,
``xor`` and ``fermi`` with ``N > 1``):

``mod``
    ``slice = line mod N``, ``q = line // N``, as above (GPGPU-Sim's decoder
    when the sub-partition bit lies below the channel bits, e.g. the TITAN X
    Pascal's ``...RBBBCCCC.BCCSSSSS``: a relabelling of ``line mod N``).
``gtx480``
    GPGPU-Sim's GTX 480 decoder (``-gpgpu_mem_addr_mapping dramid@8;
    ...RRRR.BBBCCCCB.CCSSSSSS`` with a channel count that is not a power of
    two: ``addrdec_tlx``'s "gap" path, and ``partition_address``), for
    128-byte lines and ``C = N / 2`` channels of 2 sub-partitions. The channel
    is ``(a >> 8) mod C`` for byte address ``a``; the address left once the
    channel is divided out has the lowest bank bit, which picks the
    sub-partition, at bit 8; the partition address drops that bit. On line
    numbers, with ``h = line >> 1`` and ``g = h // C``: ``slice = 2 * (h mod C)
    + (g & 1)`` and ``q = (line & 1) | ((g >> 1) << 1)``. Fitted to every one of
    the 65,635 L2 lines of an Accel-Sim run of ``rdgc/gesummv`` (its L2 bank and
    set, logged) with no mismatch (``docs/configs.md``).

The scalar :func:`set_index` is compiled and shared by every engine path.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from golden.configs.schema import INDEX_FUNCTIONS, SLICE_MAPS, CacheConfig

__all__ = [
    "INDEX_MOD",
    "INDEX_XOR",
    "INDEX_PRIME",
    "INDEX_SMOD",
    "INDEX_FERMI",
    "index_kind",
    "largest_prime_le",
    "index_params",
    "set_index",
    "set_indices",
    "slice_of",
]

#: Engine codes of the index functions, in the order of ``INDEX_FUNCTIONS``.
INDEX_MOD, INDEX_XOR, INDEX_PRIME, INDEX_SMOD, INDEX_FERMI = range(5)


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
def slice_of(line, slices, slice_map):
    """``(slice, line number inside the slice)`` of ``line`` over ``slices`` slices.

    ``slice_map`` 0 (``"mod"``): ``line mod slices`` and ``line // slices``. 1 (``"gtx480"``):
    GPGPU-Sim's GTX 480 address decoder on 128-byte lines, ``C = slices / 2`` channels of
    2 sub-partitions: with ``h = line >> 1`` and ``g = h // C``, the channel is ``h mod C``,
    the sub-partition bit ``g & 1``, the slice ``2 * channel + (g & 1)``, and the line inside
    it ``(line & 1) | ((g >> 1) << 1)`` (the partition address without the channel and
    sub-partition bits).
    """
    if slice_map == 0:
        q = line // slices
        return line - q * slices, q
    c = slices >> 1
    h = line >> 1
    g = h // c
    return 2 * (h - g * c) + (g & 1), (line & 1) | ((g >> 1) << 1)


@nb.njit(cache=True, nogil=True)
def set_index(line, kind, mask, log2_sets, prime, shift, slices, slice_map):
    """Set of ``line`` (int64) under index function ``kind``.

    ``mask = T - 1`` and ``log2_sets = log2 T`` serve the power-of-two
    functions, with ``T`` the sets of one slice (``S`` except for a sliced
    ``mod`` or ``xor``), ``slices`` the slice count and ``slice_map`` how lines
    are spread over them (:func:`slice_of`), ``prime`` the prime modulo,
    ``shift`` the SMOD shift.
    """
    if kind == INDEX_MOD:
        if slices == 1:
            return line & mask
        sl, q = slice_of(line, slices, slice_map)
        return sl * (mask + 1) + (q & mask)
    if kind == INDEX_XOR:
        if slices == 1:
            return (line ^ (line >> log2_sets)) & mask
        sl, q = slice_of(line, slices, slice_map)
        return sl * (mask + 1) + ((q ^ (q >> log2_sets)) & mask)
    if kind == INDEX_PRIME:
        return line % prime
    if kind == INDEX_FERMI:
        # shift: log2 of the line size (the hash reads fixed byte-address bits).
        sl, q = (np.int64(0), line) if slices == 1 else slice_of(line, slices, slice_map)
        a = q << shift
        h = (q & 31) ^ (((a >> 13) & 7) | (((a >> 17) & 1) << 3) | (((a >> 19) & 1) << 4))
        if mask == 63:
            h |= ((a >> 12) & 1) << 5
        return h if slices == 1 else sl * (mask + 1) + h
    return (line >> shift) & mask


@nb.njit(cache=True, nogil=True)
def _set_indices(lines, kind, mask, log2_sets, prime, shift, slices, slice_map):
    out = np.empty(lines.size, np.int64)
    for i in range(lines.size):
        out[i] = set_index(lines[i], kind, mask, log2_sets, prime, shift, slices, slice_map)
    return out


def index_params(cfg: CacheConfig) -> tuple[int, int, int, int, int, int, int]:
    """``(kind, mask, log2_sets, prime, shift, slices, slice_map)`` for :func:`set_index`.

    ``mask`` and ``log2_sets`` describe one slice of ``cfg.sets // slices`` sets; ``shift`` is
    the SMOD shift, or for ``fermi`` log2 of the line size; ``slice_map`` is the code of
    ``cfg.slice_map`` (its index in :data:`SLICE_MAPS`).
    """
    slices = cfg.index_slices
    slice_sets = cfg.sets // slices
    log2_sets = slice_sets.bit_length() - 1
    shift = cfg.line_size.bit_length() - 1 if cfg.index == "fermi" else cfg.smod_shift
    return (index_kind(cfg.index), slice_sets - 1, log2_sets, largest_prime_le(cfg.sets), shift, slices,
            SLICE_MAPS.index(cfg.slice_map))


def set_indices(cfg: CacheConfig, lines: np.ndarray) -> np.ndarray:
    """Sets of the given line numbers under ``cfg``'s index function.

    Parameters
    ----------
    cfg : CacheConfig
        The cache (its ``sets``, ``index``, ``smod_shift`` and ``index_slices`` are used).
    lines : array of int
        Line numbers (byte address // ``cfg.line_size``).

    Returns
    -------
    numpy.ndarray
        ``int64`` set of each line.
    """
    lines = np.ascontiguousarray(lines, dtype=np.int64)
    return _set_indices(lines, *index_params(cfg))
