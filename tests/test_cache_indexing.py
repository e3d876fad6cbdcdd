"""Set-index functions: exact sets and hand-worked hit/miss sequences."""

import numpy as np
import pytest

from golden.cache import Cache, largest_prime_le, set_indices
from golden.configs.schema import CacheConfig


def direct_mapped(sets: int, index: str, smod_shift: int = 0) -> CacheConfig:
    """A 1-way cache of ``sets`` 64-byte lines."""
    return CacheConfig(size=64 * sets, assoc=1, line_size=64, index=index, smod_shift=smod_shift)


def hit_string(cfg: CacheConfig, lines: list[int]) -> str:
    """'H'/'M' per access of a fresh cache."""
    return "".join("H" if h else "M" for h in Cache(cfg).access(lines))


def test_largest_prime_le():
    assert [largest_prime_le(n) for n in (1, 2, 3, 4, 8, 16, 32, 64, 128, 1000)] == \
        [1, 2, 3, 3, 7, 13, 31, 61, 127, 997]


@pytest.mark.parametrize("bad", [0, -3, 2.5])
def test_largest_prime_le_wrong(bad):
    with pytest.raises(ValueError, match="n: must be a positive integer"):
        largest_prime_le(bad)


def test_mod_sets():
    assert set_indices(direct_mapped(4, "mod"), [0, 1, 2, 3, 4, 5, 13]).tolist() == [0, 1, 2, 3, 0, 1, 1]


def test_xor_sets():
    # 4 sets: set = (line & 3) ^ ((line >> 2) & 3).
    # 4 -> 0^1 = 1, 8 -> 0^2 = 2, 5 -> 1^1 = 0, 12 -> 0^3 = 3, 21 (0b10101) -> 1^1 = 0,
    # 64 -> bits above the folded field do not count: 0.
    assert set_indices(direct_mapped(4, "xor"), [0, 4, 8, 5, 12, 21, 64]).tolist() == [0, 1, 2, 0, 3, 0, 0]


def test_xor_matches_gpgpusim_bitwise_xoring_function():
    """GPGPU-Sim gpu-cache.cc, BITWISE_XORING_FUNCTION, on byte addresses."""
    rng = np.random.default_rng(3)
    for sets, line_size in ((32, 128), (64, 64), (4, 32)):
        cfg = CacheConfig(size=sets * line_size, assoc=1, line_size=line_size, index="xor")
        addr = rng.integers(0, 1 << 40, 500)
        line_log2, nset_log2 = line_size.bit_length() - 1, sets.bit_length() - 1
        higher_bits = addr >> (line_log2 + nset_log2)
        index = (addr >> line_log2) & (sets - 1)
        expected = index ^ (higher_bits & (sets - 1))  # bitwise_hash_function in hashing.cc
        assert (set_indices(cfg, addr // line_size) == expected).all()


def test_prime_sets():
    # 8 sets -> p = 7: set = line mod 7.
    assert set_indices(direct_mapped(8, "prime"), [0, 7, 8, 13, 14, 6]).tolist() == [0, 0, 1, 6, 0, 6]


def test_smod_sets():
    # smod_shift 1, 4 sets: set = (line >> 1) & 3.
    assert set_indices(direct_mapped(4, "smod", 1), [0, 1, 2, 3, 8, 9, 6]).tolist() == [0, 0, 1, 1, 0, 0, 3]


def test_mod_sequence():
    # Direct-mapped, 4 sets: 0 and 4 share set 0; 1 has its own set.
    assert hit_string(direct_mapped(4, "mod"), [0, 4, 0, 5, 0]) == "MMMMH"
    assert hit_string(direct_mapped(4, "mod"), [0, 1, 0]) == "MMH"


def test_xor_sequence():
    # xor: 0 -> set 0, 4 -> set 1 (no conflict), 5 -> set 0 (evicts 0).
    assert hit_string(direct_mapped(4, "xor"), [0, 4, 0, 5, 0]) == "MMHMM"


def test_prime_sequence_and_unused_sets():
    cfg = direct_mapped(8, "prime")
    # mod 7: 8 -> set 1 (0 survives), 7 -> set 0 (evicts 0).
    assert hit_string(cfg, [0, 8, 0, 7, 0]) == "MMHMM"
    # With mod indexing 0 and 8 collide instead.
    assert hit_string(direct_mapped(8, "mod"), [0, 8, 0, 7, 0]) == "MMMMH"
    cache = Cache(cfg)
    cache.access(np.arange(1000))
    assert cache.valid[:7].all() and not cache.valid[7].any()  # set 7 is never indexed


def test_smod_sequence():
    cfg = direct_mapped(4, "smod", 2)
    # (line >> 2) & 3: 0..3 all in set 0, 4 in set 1.
    assert hit_string(cfg, [0, 1, 0]) == "MMM"
    assert hit_string(cfg, [0, 4, 0]) == "MMH"
    assert hit_string(direct_mapped(4, "mod"), [0, 4, 0]) == "MMM"


def test_index_config_errors():
    with pytest.raises(ValueError, match="index: 'xor' needs a power-of-2 number of sets, not 6"):
        CacheConfig(size=6 * 64, assoc=1, line_size=64, index="xor")
    with pytest.raises(ValueError, match="index: must be one of mod, xor, prime, smod, not 'hash'"):
        CacheConfig(size=64, assoc=1, line_size=64, index="hash")
    # Prime indexing takes any number of sets.
    six = CacheConfig(size=6 * 64, assoc=1, line_size=64, index="prime")
    assert set_indices(six, [5, 6]).tolist() == [0, 1]
