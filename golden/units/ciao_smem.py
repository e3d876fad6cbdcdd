"""ciao18's shared-memory address translation unit and the MSHR entries' shared-memory address field.

ciao18 Section IV-B and Fig. 7: unused shared memory serves as a
direct-mapped cache of 128-byte blocks. A 32-bit global address splits,
LSB first, into F (3 bits: byte in an 8-byte bank row), B (4: bank in a
group of 16), G (1: bank group) and R (8: row), and 16 tag bits. A
block's data is striped over the 16 banks of group G; its tag (25 address
bits = the 16 tag bits and the 9-bit block index G:R, which the row mask
may cut, plus the 6-bit WID: 31 bits) sits in the *other* group, so tag
and data are read in parallel. Two tags fit a bank's 8-byte row, so a
group row holds 32 tags, placed by 5 bits of the row index.

Translation (``Rm = R & mask``; rows wrap modulo 256)::

    data address = (data_off + Rm) << 8 | G << 7 | B << 3 | F         the requested byte
    tag address  = (tag_off + (Rm >> 5)) << 8 | (1 - G) << 7 | Rm[4:1] << 3 | Rm[0] << 2
    tag word     = WID << 25 | address[31:7]

The 8-bit row mask (``2^k - 1`` for ``2^k`` rows; other values are
allowed and simply AND) and the data and tag offset registers are
written through the configuration port when CTAs are launched (from the
SMMT's unused space); which values the driver chooses belongs to the
on-chip memory path, not to this unit. Our reading of Fig. 7c: the tag's
5 position bits are Rm[4:0], Rm[0] choosing the 4-byte half of the bank
row ("1 F and 4 B bits") and Rm[4:1] the bank; the remaining row bits
Rm[7:5] add to the tag offset. The unit does not check that data and tag
regions do not overlap.

MSHR field: each of the L1D's 32 MSHR entries gets the 16-bit shared
memory address of a redirected miss (ciao18: "an extra field with each
MSHR entry"): 32 x 16 bits = 64 B, the paper's "64B storage per SM". A
request with ``alloc`` writes its data address into entry ``mshr``; a
fill (the L2's response for an entry) reads it back.

Ports (``rtl.ciao.SmemTranslate`` has the same)::

    in   cfg__valid, __mask [8], __data_off [8], __tag_off [8]
    in   s1_req__valid, __addr [32], __wid [6], __alloc, __mshr [5]
    in   s1_fill__valid, __mshr [5]
    out  s2_req__valid, __data_addr [16], __tag_addr [16], __tag [31]
    out  s2_fill__valid, __addr [16]

Protocol (latency 1, one request, one fill and one configuration write
per cycle): a request in cycle *t* is translated with the registers
during *t* (a configuration write in *t* applies from *t* + 1) and shown
in *t* + 1; its MSHR write lands at the edge ending *t*, and a fill in *t*
reads the entry at that edge, after the write (a fill in the cycle of
its own allocation sees it). After reset the mask, offsets and MSHR
fields are 0.
"""

from __future__ import annotations

from golden.units.base import UnitModel
from golden.units.ciao_common import WID_BITS, check_input, check_int

__all__ = ["SmemTranslate", "translate", "cache_rows", "SMEM_ADDR_BITS", "GLOBAL_ADDR_BITS", "MSHR_ENTRIES",
           "TAG_WORD_BITS"]

#: ciao18 Fig. 7c: 32-bit global addresses, F3 B4 G1 R8 = a 16-bit shared-memory byte address (64 KB).
GLOBAL_ADDR_BITS, SMEM_ADDR_BITS = 32, 16
F_BITS, B_BITS, G_BITS, R_BITS = 3, 4, 1, 8
BLOCK_BITS = F_BITS + B_BITS  # 128-byte blocks
#: A stored tag: address bits [31:7] (25) and the WID (ciao18: "31 bits (= 25 + 6 bits)").
TAG_WORD_BITS = GLOBAL_ADDR_BITS - BLOCK_BITS + WID_BITS
#: MSHR entries of the L1D (GTX480), each with the 16-bit field: 64 B.
MSHR_ENTRIES = 32


def cache_rows(unused_bytes: int) -> int:
    """Rows per bank group of the largest cache that fits ``unused_bytes`` of shared memory (0: none).

    The cache uses ``2^k`` data rows in each of the two bank groups (``2^(k+1)``
    blocks of 128 B, row mask ``2^k - 1``, ``k <= 8``) and, in each group,
    ``ceil(2^k / 32)`` rows of the other group's tags (32 tags a row):
    ``2 * 128 * (2^k + ceil(2^k / 32))`` bytes. 48 KB unused give 128 rows
    (256 blocks, 32 KB of data and 1 KB of tags).
    """
    row_bytes = 1 << (BLOCK_BITS + G_BITS)  # one row across both groups: 256 B
    best = 0
    for k in range(R_BITS + 1):
        rows = 1 << k
        if row_bytes * (rows + -(-rows // 32)) <= unused_bytes:
            best = rows
    return best


def translate(addr: int, wid: int, mask: int, data_off: int, tag_off: int) -> tuple[int, int, int]:
    """``(data address, tag address, tag word)`` of a global address (formulas in the module docstring)."""
    fb = addr & ((1 << BLOCK_BITS) - 1)
    g = (addr >> BLOCK_BITS) & 1
    rm = (addr >> (BLOCK_BITS + G_BITS)) & 0xFF & mask
    data = ((data_off + rm) & 0xFF) << 8 | g << 7 | fb
    tag = ((tag_off + (rm >> 5)) & 0xFF) << 8 | (1 - g) << 7 | ((rm >> 1) & 0xF) << 3 | (rm & 1) << 2
    return data, tag, wid << (GLOBAL_ADDR_BITS - BLOCK_BITS) | addr >> BLOCK_BITS


class SmemTranslate(UnitModel):
    """Cycle-level model of the translation unit with the MSHR field (ports, protocol: module docstring).

    Parameters
    ----------
    mshr_entries : int
        MSHR entries of the L1D (32), a power of 2.

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, mshr_entries: int = MSHR_ENTRIES) -> None:
        check_int("mshr_entries", mshr_entries, 1, 1024)
        if mshr_entries & (mshr_entries - 1):
            raise ValueError(f"mshr_entries: must be a power of 2, not {mshr_entries}")
        self.mshr_entries = mshr_entries
        mb = max(1, (mshr_entries - 1).bit_length())
        self.inputs = {"cfg__valid": 1, "cfg__mask": R_BITS, "cfg__data_off": R_BITS, "cfg__tag_off": R_BITS,
                       "s1_req__valid": 1, "s1_req__addr": GLOBAL_ADDR_BITS, "s1_req__wid": WID_BITS,
                       "s1_req__alloc": 1, "s1_req__mshr": mb, "s1_fill__valid": 1, "s1_fill__mshr": mb}
        self.outputs = {"s2_req__valid": 1, "s2_req__data_addr": SMEM_ADDR_BITS,
                        "s2_req__tag_addr": SMEM_ADDR_BITS, "s2_req__tag": TAG_WORD_BITS, "s2_fill__valid": 1,
                        "s2_fill__addr": SMEM_ADDR_BITS}
        self.reset()

    def reset(self) -> None:
        self.cfg = (0, 0, 0)  # mask, data offset, tag offset
        self.mshr = [0] * self.mshr_entries
        self.req = None  # (data, tag address, tag word) in stage 2
        self.fill = None  # the MSHR field read for the fill in stage 2

    def step(self, *, cfg__valid: int = 0, cfg__mask: int = 0, cfg__data_off: int = 0, cfg__tag_off: int = 0,
             s1_req__valid: int = 0, s1_req__addr: int = 0, s1_req__wid: int = 0, s1_req__alloc: int = 0,
             s1_req__mshr: int = 0, s1_fill__valid: int = 0, s1_fill__mshr: int = 0) -> dict[str, int]:
        out = dict.fromkeys(self.outputs, 0)
        if self.req is not None:
            out.update(s2_req__valid=1, s2_req__data_addr=self.req[0], s2_req__tag_addr=self.req[1],
                       s2_req__tag=self.req[2])
        if self.fill is not None:
            out.update(s2_fill__valid=1, s2_fill__addr=self.fill)
        self.req = self.fill = None
        if s1_req__valid:
            check_input("s1_req__addr", s1_req__addr, 1 << GLOBAL_ADDR_BITS)
            wid = check_input("s1_req__wid", s1_req__wid, 1 << WID_BITS)
            self.req = translate(s1_req__addr, wid, *self.cfg)
            if s1_req__alloc:
                self.mshr[check_input("s1_req__mshr", s1_req__mshr, self.mshr_entries)] = self.req[0]
        if s1_fill__valid:
            self.fill = self.mshr[check_input("s1_fill__mshr", s1_fill__mshr, self.mshr_entries)]
        if cfg__valid:
            self.cfg = (cfg__mask, cfg__data_off, cfg__tag_off)
        return out
