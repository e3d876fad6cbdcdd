"""Set-index functions: exact sets and hand-worked hit/miss sequences."""

import dataclasses
import re

import numpy as np
import pytest

from golden.cache import Cache, largest_prime_le, set_indices
from golden.cache.reference import RefHierarchy
from golden.cache.stats import ENGINE_COUNTERS
from golden.configs import preset
from golden.configs.schema import CacheConfig


def direct_mapped(sets: int, index: str, smod_shift: int = 0, slices: int = 0) -> CacheConfig:
    """A 1-way cache of ``sets`` 64-byte lines."""
    return CacheConfig(size=64 * sets, assoc=1, line_size=64, index=index, smod_shift=smod_shift,
                       slices=slices)


def gpgpusim_xor(addr: np.ndarray, sets: int, line_size: int) -> np.ndarray:
    """GPGPU-Sim gpu-cache.cc, BITWISE_XORING_FUNCTION, on byte addresses."""
    line_log2, nset_log2 = line_size.bit_length() - 1, sets.bit_length() - 1
    higher_bits = addr >> (line_log2 + nset_log2)
    index = (addr >> line_log2) & (sets - 1)
    return index ^ (higher_bits & (sets - 1))  # bitwise_hash_function in hashing.cc


def gpgpusim_fermi(addr: int, sets: int, line_size: int) -> int:
    """GPGPU-Sim gpu-cache.cc, FERMI_HASH_SET_FUNCTION, on one byte address (transcribed)."""
    line_log2 = line_size.bit_length() - 1
    lower_xor = (addr >> line_log2) & 0x1F  # "Lower xor value is bits 7-11"
    upper_xor = (addr & 0xE000) >> 13  # Bits 13, 14, 15
    upper_xor |= (addr & 0x20000) >> 14  # Bit 17
    upper_xor |= (addr & 0x80000) >> 15  # Bit 19
    set_index = lower_xor ^ upper_xor
    if sets == 64:
        set_index |= (addr & 0x1000) >> 7  # "48KB cache prepends the set_index with bit 12"
    return set_index


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
    rng = np.random.default_rng(3)
    for sets, line_size in ((32, 128), (64, 64), (4, 32)):
        cfg = CacheConfig(size=sets * line_size, assoc=1, line_size=line_size, index="xor")
        addr = rng.integers(0, 1 << 40, 500)
        assert (set_indices(cfg, addr // line_size) == gpgpusim_xor(addr, sets, line_size)).all()


def test_xor_sliced_sets_768_in_12():
    # The ciao18 L2's indexing with slices by line number: 768 sets in 12 slices of 64,
    # slice = line % 12, q = line // 12, set = 64 * slice + ((q & 63) ^ ((q >> 6) & 63)).
    # 0: slice 0, q 0 -> 0.  5: slice 5, q 0 -> 320.  12: slice 0, q 1 -> 1.
    # 768 = 12 * 64: slice 0, q 64 = 0b1_000000 -> 0 ^ 1 = 1.
    # 787 = 12 * 65 + 7: slice 7, q 65 = 0b1_000001 -> 1 ^ 1 = 0, so 7 * 64 = 448.
    # 2366 = 12 * 197 + 2: slice 2, q 197 = 0b11_000101 -> 5 ^ 3 = 6, so 128 + 6 = 134.
    # 49163 = 12 * 4096 + 11: slice 11, q = 2**12 has no bit in the folded fields -> 704.
    lines = [0, 5, 12, 768, 787, 2366, 49163]
    expected = [0, 320, 1, 1, 448, 134, 704]
    assert set_indices(direct_mapped(768, "xor", slices=12), lines).tolist() == expected
    assert set_indices(preset("ciao18").l2.replace(slice_map="mod"), lines).tolist() == expected


def test_xor_default_slices_768():
    # slices = 0: the largest power of 2 dividing 768 is 256, so 3 slices of 256 sets,
    # slice = line % 3, q = line // 3, set = 256 * slice + ((q & 255) ^ ((q >> 8) & 255)).
    # 7: slice 1, q 2 -> 258.  768: slice 0, q 256 = 0b1_00000000 -> 0 ^ 1 = 1.
    # 797 = 3 * 265 + 2: slice 2, q 265 = 0b1_00001001 -> 9 ^ 1 = 8, so 512 + 8 = 520.
    cfg = direct_mapped(768, "xor")
    assert cfg.index_slices == 3
    assert set_indices(cfg, [7, 768, 797]).tolist() == [258, 1, 520]


def test_xor_sliced_power_of_two_sets():
    # 8 sets in 2 slices of 4 (explicit slices): slice = line % 2, q = line // 2,
    # set = 4 * slice + ((q & 3) ^ ((q >> 2) & 3)).
    # 3: slice 1, q 1 -> 5.  8: slice 0, q 4 -> 0 ^ 1 = 1.  13: slice 1, q 6 -> 2 ^ 1 = 3, so 7.
    # Unsliced, 8 -> 0 ^ 1 = 1, 13 = 0b1_101 -> 5 ^ 1 = 4.
    assert set_indices(direct_mapped(8, "xor", slices=2), [3, 8, 13]).tolist() == [5, 1, 7]
    assert set_indices(direct_mapped(8, "xor"), [3, 8, 13]).tolist() == [3, 1, 4]


def test_slices_match_gpgpusim_per_sub_partition():
    """12 GPGPU-Sim caches of 64 sets, lines interleaved over them, each hashing its partition address."""
    line_size, slices, per = 128, 12, 64
    addr = np.random.default_rng(5).integers(0, 1 << 40, 2000)
    line = addr // line_size
    part_addr = (line // slices) * line_size + addr % line_size  # the address without the slice
    expected = (line % slices) * per + gpgpusim_xor(part_addr, per, line_size)
    assert (set_indices(preset("ciao18").l2.replace(slice_map="mod"), line) == expected).all()


def gpgpusim_dramid8_sub_partition(addr, channels: int = 12, per_channel: int = 2, bank_bit: int = 7):
    """GPGPU-Sim's ``addrdec_tlx`` for ``dramid@8`` with a channel count that is not a power of 2.

    chip = (addr >> 8) mod channels, the address above bit 8 divided by the channels; the bank's
    lowest bit, ``bank_bit`` of what is left, picks the sub-partition, and ``partition_address``
    drops the chip and that bit. kim20 (SM6_TITANX, 537b342a, ``...RBBBCCCC.BCCSSSSS``): bit 7,
    12 channels; the GTX 480 (``...BBBCCCCB.CCSSSSSS``): bit 8, 6 channels.
    """
    chip = (addr >> 8) % channels
    rest = ((addr >> 8) // channels << 8) | (addr & 0xFF)
    sub = chip * per_channel + ((rest >> bank_bit) & (per_channel - 1))
    low = (1 << bank_bit) - 1
    part_addr = ((rest >> (bank_bit + 1)) << bank_bit) | (rest & low)  # sub_partition_id_mask packed out
    return sub, part_addr


def test_kim20_l2_matches_gpgpusim_dramid8_linear():
    """24 GPGPU-Sim sub-partitions of 64 sets, each indexing its partition address linearly."""
    addr = np.random.default_rng(6).integers(0, 1 << 40, 4000)
    sub, part_addr = gpgpusim_dramid8_sub_partition(addr)
    expected = sub * 64 + (part_addr >> 7) % 64
    assert (set_indices(preset("kim20").l2, addr // 128) == expected).all()


def test_mod_sliced_sets():
    # 8 sets in 2 slices of 4: slice = line % 2, q = line // 2, set = 4 * slice + q % 4.
    assert set_indices(direct_mapped(8, "mod", slices=2), [3, 8, 13, 22]).tolist() == [5, 0, 6, 3]
    # Lines 24 apart in the kim20 L2 (a 3 KB row stride) stay in one slice and walk its sets
    # linearly; XOR indexing folds the bits above the slice's index into the set.
    lines = np.arange(0, 24 * 128, 24)
    assert set_indices(direct_mapped(1536, "mod", slices=24), lines).tolist() == list(range(64)) * 2
    assert set_indices(direct_mapped(1536, "xor", slices=24), lines).tolist() != list(range(64)) * 2


def test_slices_fill_every_set_evenly():
    # 12 * 64 * 64 consecutive lines give each slice 4096 consecutive q; XOR maps those evenly.
    sets = set_indices(direct_mapped(768, "xor", slices=12), np.arange(12 * 64 * 64))
    assert (np.bincount(sets, minlength=768) == 64).all()


def test_fermi_matches_gpgpusim_fermi_hash_set_function():
    rng = np.random.default_rng(5)
    for sets, line_size in ((32, 128), (64, 128), (32, 64), (64, 32)):
        cfg = CacheConfig(size=sets * line_size, assoc=1, line_size=line_size, index="fermi")
        addr = rng.integers(0, 1 << 40, 500) // line_size * line_size
        want = [gpgpusim_fermi(int(a), sets, line_size) for a in addr]
        assert set_indices(cfg, addr // line_size).tolist() == want


def test_fermi_spreads_two_warps_of_16k_rows_where_xor_does_not():
    """A warp's 32 loads 16 KB apart (ATAX's rows at 4096 floats) on ciao18's 32-set L1.

    ``xor`` puts every warp's 32 lines in the same 8 sets (4 lines a set: one warp fills them);
    ``fermi`` puts one warp in 8 sets and the next 32 rows in 8 others (address bit 19).
    """
    l1 = preset("ciao18").l1
    rows = np.arange(64) * (16384 // l1.line_size)
    xor = set_indices(l1, rows)
    fermi = set_indices(dataclasses.replace(l1, index="fermi"), rows)
    assert len(set(xor[:32].tolist())) == 8 and set(xor[32:].tolist()) == set(xor[:32].tolist())
    assert len(set(fermi[:32].tolist())) == 8 and len(set(fermi.tolist())) == 16


def test_sliced_fermi_matches_reference():
    """ciao18's L2 shape (768 sets, 12 slices of 64) under ``fermi``, on the engine and on reference.py."""
    cfg = dataclasses.replace(preset("ciao18").l2, index="fermi")
    rng = np.random.default_rng(4)
    lines = rng.integers(0, 12 * 64 * 4096, 4000)
    cache = Cache(cfg)
    hits = cache.access(lines)
    ref = RefHierarchy([cfg])
    assert hits.tolist() == [ref.access(0, int(x), 1) == 1 for x in lines]
    assert cache.tags.tolist() == [[-1 if x is None else x for x in ways] for ways in ref.levels[0].lines[0]]


@pytest.mark.parametrize("sets, slices", [(16, 0), (128, 0), (768, 3)])
def test_fermi_needs_32_or_64_sets_per_slice(sets, slices):
    with pytest.raises(ValueError, match=r"index: 'fermi' .* hashes 32 or 64 sets per slice"):
        CacheConfig(size=sets * 128, assoc=1, line_size=128, index="fermi", slices=slices)


# Sets before non-power-of-2 XOR slicing was added: every power-of-2 cache must keep them.
_POW2_LINES = [0, 1, 5, 63, 64, 100, 777, 4097, 12345, 65535, 65536, 99999, 1 << 20, (1 << 33) + 12345,
               (1 << 61) - 1]
_POW2_SETS = {
    ("mod", 2): [0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1],
    ("mod", 32): [0, 1, 5, 31, 0, 4, 9, 1, 25, 31, 0, 31, 0, 25, 31],
    ("mod", 1024): [0, 1, 5, 63, 64, 100, 777, 1, 57, 1023, 0, 671, 0, 57, 1023],
    ("xor", 1): [0] * 15,
    ("xor", 2): [0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0],
    ("xor", 32): [0, 1, 5, 30, 2, 7, 17, 1, 24, 0, 0, 11, 0, 24, 0],
    ("xor", 1024): [0, 1, 5, 63, 64, 100, 777, 5, 53, 960, 64, 766, 0, 53, 0],
    ("prime", 32): [0, 1, 5, 1, 2, 7, 2, 5, 7, 1, 2, 24, 1, 15, 1],
    ("prime", 1024): [0, 1, 5, 63, 64, 100, 777, 13, 93, 191, 192, 962, 9, 309, 436],
    ("smod", 32): [0, 0, 0, 7, 8, 12, 1, 0, 7, 31, 0, 19, 0, 7, 31],
    ("smod", 1024): [0, 0, 0, 7, 8, 12, 97, 512, 519, 1023, 0, 211, 0, 519, 1023],
}


@pytest.mark.parametrize("index, sets", list(_POW2_SETS))
def test_power_of_two_sets_unchanged(index, sets):
    cfg = CacheConfig(size=sets * 128, assoc=1, line_size=128, index=index, smod_shift=3)
    assert cfg.index_slices == 1
    assert set_indices(cfg, _POW2_LINES).tolist() == _POW2_SETS[index, sets]


@pytest.mark.parametrize("name", ["ciao18", "kim20"])
def test_sliced_cache_matches_reference(name):
    """The ciao18 L2 (768 sets, 8 ways, 12 XOR slices) and the kim20 L2 (1536 sets, 16 ways,
    24 linear slices) on the engine and on reference.py."""
    cfg = preset(name).l2
    rng = np.random.default_rng(9)
    lines = rng.integers(0, cfg.index_slices * 64 * 40, 4000) * rng.integers(1, 3, 4000)
    ops = rng.choice(np.array([1, 1, 1, 2], np.uint8), lines.size)
    cache = Cache(cfg)
    hits = cache.access(lines, ops)
    ref = RefHierarchy([cfg])
    assert hits.tolist() == [ref.access(0, int(x), int(op)) == 1 for x, op in zip(lines, ops, strict=True)]
    assert cache.state.counters[0].tolist() == [ref.levels[0].counters[0][k] for k in ENGINE_COUNTERS]
    assert cache.tags.tolist() == [[-1 if x is None else x for x in ways] for ways in ref.levels[0].lines[0]]


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


def test_xor_sliced_sequence():
    # 6 sets = 3 slices of 2: slice = line % 3, q = line // 3, set = 2 * slice + ((q ^ (q >> 1)) & 1).
    # 0 -> set 0, 6 (q 2) -> set 1 (no conflict), 12 (q 4) -> set 0 (evicts 0); 1 -> set 2.
    assert hit_string(direct_mapped(6, "xor"), [0, 6, 0, 12, 0]) == "MMHMM"
    assert hit_string(direct_mapped(6, "xor"), [0, 1, 0]) == "MMH"


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
    with pytest.raises(ValueError, match="index: 'mod' needs a power-of-2 number of sets, not 6"):
        CacheConfig(size=6 * 64, assoc=1, line_size=64, index="mod")
    with pytest.raises(ValueError, match="index: must be one of mod, xor, prime, smod, fermi, not 'hash'"):
        CacheConfig(size=64, assoc=1, line_size=64, index="hash")
    # Prime indexing takes any number of sets.
    six = CacheConfig(size=6 * 64, assoc=1, line_size=64, index="prime")
    assert set_indices(six, [5, 6]).tolist() == [0, 1]


def test_slices_config():
    assert direct_mapped(6, "xor").index_slices == 3  # 3 slices of 2
    assert direct_mapped(1, "xor").index_slices == 1  # one set: fully associative, as before
    assert direct_mapped(1024, "xor", slices=16).index_slices == 16
    assert direct_mapped(1536, "mod", slices=24).index_slices == 24
    assert direct_mapped(8, "mod").index_slices == 1
    assert direct_mapped(8, "mod", slices=8).index_slices == 8  # one set per slice: plain mod
    # Other index functions ignore slices, as they ignore smod_shift.
    assert direct_mapped(8, "prime", slices=3).index_slices == 1
    assert direct_mapped(8, "smod", slices=3).index_slices == 1


@pytest.mark.parametrize("sets, slices, message", [
    (3, 0, "index: 'xor' needs 1 or an even number of sets (at least 2 per power-of-2 slice), not 3"),
    (768, 5, "slices: must divide the 768 sets into power-of-2 slices, not 5"),
    (768, 256, "slices: must divide the 768 sets into power-of-2 slices, not 256"),
    (768, 768, "slices: must leave at least 2 of the 768 sets per slice, not 768"),
    (8, -1, "slices: must be a non-negative integer, not -1"),
])
def test_slices_config_errors(sets, slices, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        direct_mapped(sets, "xor", slices=slices)


@pytest.mark.parametrize("sets, slices, message", [
    (1536, 0, "index: 'mod' needs a power-of-2 number of sets, not 1536"),
    (1536, 5, "slices: must divide the 1536 sets into power-of-2 slices, not 5"),
    (1536, 512, "slices: must divide the 1536 sets into power-of-2 slices, not 512"),
])
def test_mod_slices_config_errors(sets, slices, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        direct_mapped(sets, "mod", slices=slices)


def gtx480_l2(index: str = "xor") -> CacheConfig:
    """The ciao18 (GTX 480) L2 with its address decoder."""
    return dataclasses.replace(preset("ciao18").l2, index=index, slice_map="gtx480")


#: (byte address, L2 bank, set) of 24 lines of Accel-Sim's run of ``rdgc/gesummv`` at scale 0.25
#: on GPGPU-Sim's GTX 480 config (its `data_cache::access` logged `L2_bank_NNN` and the line's
#: cache index; set = index // 8 ways). Taken from the peer, not computed here.
_ACCELSIM_GTX480_L2 = [
    (268665344, 4, 45), (268726784, 4, 5), (269156736, 2, 51), (269648256, 2, 54), (270533120, 4, 0),
    (270602240, 5, 44), (270737536, 5, 7), (271061376, 2, 28), (271884544, 2, 61), (272003200, 5, 51),
    (272417408, 1, 24), (272744704, 2, 54), (272974208, 7, 45), (273068416, 10, 42), (273863040, 2, 24),
    (274788992, 1, 56), (274796544, 0, 51), (275366528, 1, 58), (275411456, 4, 25), (275501696, 1, 17),
    (275735040, 1, 14), (275759232, 8, 62), (276427264, 9, 7), (276439552, 9, 56),
]


def test_gtx480_slice_map_matches_accelsim_log():
    addr = np.array([a for a, _, _ in _ACCELSIM_GTX480_L2])
    expected = [bank * 64 + s for _, bank, s in _ACCELSIM_GTX480_L2]
    assert set_indices(gtx480_l2(), addr // 128).tolist() == expected
    assert set_indices(preset("ciao18").l2, addr // 128).tolist() == expected


@pytest.mark.parametrize("index", ["mod", "xor", "fermi"])
def test_gtx480_slice_map_matches_gpgpusim_decoder(index):
    addr = np.random.default_rng(11).integers(0, 1 << 40, 4000)
    sub, part_addr = gpgpusim_dramid8_sub_partition(addr, channels=6, bank_bit=8)
    if index == "mod":
        within = (part_addr >> 7) % 64
    elif index == "xor":
        within = gpgpusim_xor(part_addr, 64, 128)
    else:
        within = np.array([gpgpusim_fermi(int(a), 64, 128) for a in part_addr])
    assert (set_indices(gtx480_l2(index), addr // 128) == sub * 64 + within).all()


def test_gtx480_slice_map_is_not_line_mod_slices():
    """Lines 0 and 12 share a slice under "mod"; the decoder's sub-partition bit parts them."""
    lines = np.array([0, 12])
    assert (set_indices(preset("ciao18").l2.replace(slice_map="mod"), lines) // 64).tolist() == [0, 0]
    assert (set_indices(gtx480_l2(), lines) // 64).tolist() == [0, 1]


def test_gtx480_slice_map_on_engine_and_reference():
    cfg = gtx480_l2()
    rng = np.random.default_rng(12)
    lines = rng.integers(0, 12 * 64 * 40, 4000)
    ops = rng.choice(np.array([1, 1, 1, 2], np.uint8), lines.size)
    hits = Cache(cfg).access(lines, ops)
    ref = RefHierarchy([cfg])
    assert hits.tolist() == [ref.access(0, int(x), int(op)) == 1 for x, op in zip(lines, ops, strict=True)]


@pytest.mark.parametrize("fields, message", [
    ({"slice_map": "gap"}, "slice_map: must be one of mod, gtx480, not 'gap'"),
    ({"slice_map": "gtx480", "slices": 0, "index": "mod", "size": 64 * 128 * 8},
     "slice_map: 'gtx480' spreads lines over an even number of slices"),
    ({"slice_map": "gtx480", "index": "prime"}, "slice_map: 'gtx480' spreads lines over an even number"),
    ({"slice_map": "gtx480", "line_size": 64, "size": 768 * 8 * 64}, "slice_map: 'gtx480' decodes 128-byte"),
])
def test_gtx480_slice_map_config_errors(fields, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        dataclasses.replace(preset("ciao18").l2, **fields)
