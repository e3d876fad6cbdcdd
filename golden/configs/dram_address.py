"""GPGPU-Sim's DRAM address mapping (``-gpgpu_mem_addr_mapping``), parsed for the timing model.

A mapping reads ``dramid@N;MASK``: the DRAM channel (GPGPU-Sim's "chip") of
byte address ``a`` is ``(a >> N) mod C`` for ``C`` channels, and the
address left once the channel is divided out,
``rest = ((a >> N) // C << N) | (a mod 2**N)`` (``addrdec_tlx``'s path for
a channel count that need not be a power of two), is split by ``MASK``: one
character per bit, most significant first, dots ignored; ``B`` bits form the
bank, ``R`` bits the row, ``C`` and ``S`` bits the column and the byte in
the burst, ``0`` bits are unused. Bits are gathered in order, lowest first,
as GPGPU-Sim's ``addrdec_packbits`` does. The GTX 480 reads
``dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS``.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["DramAddressMap", "parse_dram_address_map"]

#: Highest bit a mask may use: the model's addresses and masks are signed 64-bit integers.
MAX_MASK_BITS = 62


class DramAddressMap(NamedTuple):
    """A parsed mapping: the channel's lowest bit and the bank and row masks of ``rest``."""

    chip_bit: int
    bank_mask: int
    row_mask: int

    @property
    def bank_bits(self) -> int:
        """Bits of the bank number."""
        return bin(self.bank_mask).count("1")


def parse_dram_address_map(text: str) -> DramAddressMap | None:
    """The mapping ``text`` describes, or None for ``""`` (no mapping: rows from the line number).

    Raises
    ------
    ValueError
        Naming ``dram_address_map`` and what is wrong.
    """
    if text == "":
        return None
    head, sep, mask = text.partition(";")
    if not sep or not head.startswith("dramid@") or not head[7:].isdigit():
        raise ValueError(f"dram_address_map: must read 'dramid@N;MASK' (GPGPU-Sim's "
                         f"-gpgpu_mem_addr_mapping), not {text!r}")
    chip_bit = int(head[7:])
    if chip_bit > 40:
        raise ValueError(f"dram_address_map: the channel bit dramid@{chip_bit} must be at most 40")
    bits = mask.replace(".", "")
    bad = sorted(set(bits) - set("0RBCS"))
    if bad:
        raise ValueError(f"dram_address_map: the mask may hold only 0, R, B, C, S and dots, not {bad[0]!r}")
    if not bits or len(bits) > 64:
        raise ValueError(f"dram_address_map: the mask must give 1 to 64 bits, not {len(bits)}")
    top = max((i for i, ch in enumerate(reversed(bits)) if ch != "0"), default=-1)
    if top >= MAX_MASK_BITS:
        raise ValueError(f"dram_address_map: the mask's bits must lie below bit {MAX_MASK_BITS}, "
                         f"not at {top}")

    def mask_of(ch: str) -> int:
        return sum(1 << i for i, c in enumerate(reversed(bits)) if c == ch)

    parsed = DramAddressMap(chip_bit, mask_of("B"), mask_of("R"))
    if parsed.row_mask == 0:
        raise ValueError("dram_address_map: the mask has no row (R) bits")
    return parsed
