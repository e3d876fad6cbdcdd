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

With ``index = "xor"`` (our option, not the paper's: ``GPUConfig.smem_cache_index``)
G:R is first XORed with address bits [23:15] (``G ^= address[15]``,
``R ^= address[23:16]``); the tag word keeps the address as it is.

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

Whole-workload logs: the CIAO-P and CIAO-C policies (``log_sm``) record,
for SM ``log_sm``, each kernel's cache size (``blocks`` of the timing
model's shared-memory cache) and every event of that cache the timing
model reports (the ``on_smem`` hook, :mod:`golden.cache.hooks`): each
redirected load is a request (a hit in the cache, a migration of its line
from the L1D, a merge into a pending MSHR entry, or a miss that writes its
shared-memory address into the MSHR entry the timing model took), with the
warp's slot as WID and the block the timing model used; each fill of such
an entry is a fill of that entry (:data:`TRANSACTION_DTYPE`).
:meth:`SmemTranslate.cycle_log` writes the configuration
(:func:`cache_layout`: the cache at the top of the SM's shared memory) and
gives every transaction its own cycle, in the order of the run. It refuses
a log in which a translated data address is not the block the timing model
used, or in which the timing model's MSHR entries do not pair up: the
*k*-th fill of an entry must follow its *k*-th allocation and come before
the next, for the same line, and a merge must fall between an allocation of
its entry and that allocation's fill, for the same line.
"""

from __future__ import annotations

import numpy as np

from golden.configs.schema import SMEM_CACHE_INDEXES
from golden.units.base import UnitModel, transaction_log
from golden.units.ciao_common import WID_BITS, check_input, check_int

__all__ = ["SmemTranslate", "translate", "cache_rows", "cache_layout", "TRANSACTION_DTYPE", "TX_CONFIG",
           "TX_REQUEST", "TX_FILL", "SMEM_ADDR_BITS", "GLOBAL_ADDR_BITS", "MSHR_ENTRIES",
           "TAG_WORD_BITS"]

#: ciao18 Fig. 7c: 32-bit global addresses, F3 B4 G1 R8 = a 16-bit shared-memory byte address (64 KB).
GLOBAL_ADDR_BITS, SMEM_ADDR_BITS = 32, 16
F_BITS, B_BITS, G_BITS, R_BITS = 3, 4, 1, 8
BLOCK_BITS = F_BITS + B_BITS  # 128-byte blocks
#: A stored tag: address bits [31:7] (25) and the WID (ciao18: "31 bits (= 25 + 6 bits)").
TAG_WORD_BITS = GLOBAL_ADDR_BITS - BLOCK_BITS + WID_BITS
#: MSHR entries of the L1D (GTX480), each with the 16-bit field: 64 B.
MSHR_ENTRIES = 32

#: Transaction kinds: a kernel's cache configuration, a redirected load, the fill of an MSHR entry.
TX_CONFIG, TX_REQUEST, TX_FILL = 0, 1, 2
#: One transaction as the golden policy records it: the kind, the line (128-byte blocks), the
#: warp's slot (WID), whether the load took an MSHR entry (a miss), the entry (of an allocation, a
#: merge or a fill; -1 otherwise), the block of the timing model's cache it used, the cache's blocks
#: (configuration), and the access's position in the stream.
TRANSACTION_DTYPE = np.dtype([("kind", "u1"), ("line", "<i8"), ("wid", "u1"), ("alloc", "u1"),
                              ("mshr", "<i8"), ("block", "<i8"), ("blocks", "<i8"), ("access", "<i8")])


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


def cache_layout(blocks: int, smem_bytes: int) -> tuple[int, int, int]:
    """``(mask, data_off, tag_off)`` of ``blocks`` blocks at the top of ``smem_bytes`` of shared memory.

    The tag rows (``ceil(rows / 32)``) are the last rows of the SM's shared
    memory and the ``rows = blocks / 2`` data rows lie just below them (our
    choice; ciao18 reserves the unused space through the SMMT and does not
    say where). No cache (0 blocks): all zero.
    """
    rows = blocks // 2
    if rows == 0:
        return 0, 0, 0
    tag_off = smem_bytes // (1 << (BLOCK_BITS + G_BITS)) - -(-rows // 32)
    return rows - 1, (tag_off - rows) & 0xFF, tag_off & 0xFF


def translate(addr: int, wid: int, mask: int, data_off: int, tag_off: int,
              index: str = "mod") -> tuple[int, int, int]:
    """``(data address, tag address, tag word)`` of a global address (formulas in the module docstring).

    ``index``: ``"mod"`` (Fig. 7c) or ``"xor"`` (G:R XOR address bits [23:15]).
    Integers or numpy arrays of them.
    """
    fb = addr & ((1 << BLOCK_BITS) - 1)
    block = addr >> BLOCK_BITS
    if index == "xor":
        block = block ^ (block >> (G_BITS + R_BITS - 1))
    g = block & 1
    rm = (block >> G_BITS) & 0xFF & mask
    data = ((data_off + rm) & 0xFF) << 8 | g << 7 | fb
    tag = ((tag_off + (rm >> 5)) & 0xFF) << 8 | (1 - g) << 7 | ((rm >> 1) & 0xF) << 3 | (rm & 1) << 2
    return data, tag, wid << (GLOBAL_ADDR_BITS - BLOCK_BITS) | addr >> BLOCK_BITS


class SmemTranslate(UnitModel):
    """Cycle-level model of the translation unit with the MSHR field (ports, protocol: module docstring).

    Parameters
    ----------
    mshr_entries : int
        MSHR entries of the L1D (32), a power of 2.
    smem_bytes : int
        Shared memory of the SM (48 KB, up to 64 KB), where :meth:`cycle_log` places the cache.
    index : str
        ``"mod"``: the block the paper's Fig. 7c gives (default); ``"xor"``: G:R XORed with
        address bits [23:15] first (``GPUConfig.smem_cache_index``).

    Raises
    ------
    ValueError
        For an unusable parameter.
    """

    def __init__(self, *, mshr_entries: int = MSHR_ENTRIES, smem_bytes: int = 48 * 1024,
                 index: str = "mod") -> None:
        check_int("mshr_entries", mshr_entries, 1, 1024)
        if index not in SMEM_CACHE_INDEXES:
            raise ValueError(f"index: must be one of {', '.join(SMEM_CACHE_INDEXES)}, not {index!r}")
        self.index = index
        if mshr_entries & (mshr_entries - 1):
            raise ValueError(f"mshr_entries: must be a power of 2, not {mshr_entries}")
        self.mshr_entries = mshr_entries
        self.smem_bytes = check_int("smem_bytes", smem_bytes, 0, 1 << SMEM_ADDR_BITS)
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
            self.req = translate(s1_req__addr, wid, *self.cfg, self.index)
            if s1_req__alloc:
                self.mshr[check_input("s1_req__mshr", s1_req__mshr, self.mshr_entries)] = self.req[0]
        if s1_fill__valid:
            self.fill = self.mshr[check_input("s1_fill__mshr", s1_fill__mshr, self.mshr_entries)]
        if cfg__valid:
            self.cfg = (cfg__mask, cfg__data_off, cfg__tag_off)
        return out

    def cycle_log(self, transactions: np.ndarray) -> np.ndarray:
        """Cycle log of recorded transactions (:data:`TRANSACTION_DTYPE`; module docstring).

        Raises
        ------
        ValueError
            If a request's data address is not in the block the timing model used, or the MSHR
            entries' allocations, merges and fills do not pair up.
        """
        tx = transactions
        n = len(tx)
        log = transaction_log(self, tx)
        cfg = tx["kind"] == TX_CONFIG
        layout = np.array([cache_layout(int(b), self.smem_bytes) for b in tx["blocks"][cfg]],
                          np.int64).reshape(-1, 3)
        log["cfg__valid"][:n] = cfg
        for j, port in enumerate(("cfg__mask", "cfg__data_off", "cfg__tag_off")):
            log[port][:n][cfg] = layout[:, j]
        # The configuration each request is translated with (the last one before it).
        last = np.maximum.accumulate(np.where(cfg, np.arange(n), -1))
        k = np.flatnonzero(tx["kind"] == TX_REQUEST)
        c = np.cumsum(cfg) - 1  # index into ``layout`` of the last configuration
        if (last[k] < 0).any():
            raise ValueError(f"transaction {int(k[last[k] < 0][0])}: a request before any configuration")
        mask, data_off, tag_off = (layout[c[k], j] for j in range(3))
        addr = tx["line"][k] << BLOCK_BITS
        wide = np.flatnonzero(addr >> GLOBAL_ADDR_BITS)
        if wide.size:
            j = k[wide[0]]
            raise ValueError(f"transaction {int(j)}: line {int(tx['line'][j])} needs more than the unit's "
                             f"{GLOBAL_ADDR_BITS} address bits")
        data, tag_addr, tag = translate(addr, tx["wid"][k].astype(np.int64), mask, data_off, tag_off,
                                        self.index)
        block = (((data >> 8) - data_off) & 0xFF) << 1 | (data >> BLOCK_BITS) & 1
        bad = np.flatnonzero(block != tx["block"][k])
        if bad.size:
            j = k[bad[0]]
            raise ValueError(f"transaction {int(j)}: line {int(tx['line'][j])} translates to block "
                             f"{int(block[bad[0]])}, the timing model used {int(tx['block'][j])}")
        log["s1_req__valid"][k] = 1
        log["s1_req__addr"][k] = addr
        log["s1_req__wid"][k] = tx["wid"][k]
        log["exp_s2_req__valid"][k + 1] = 1
        log["exp_s2_req__data_addr"][k + 1] = data
        log["exp_s2_req__tag_addr"][k + 1] = tag_addr
        log["exp_s2_req__tag"][k + 1] = tag
        alloc = tx["alloc"][k] != 0
        ka = k[alloc]
        log["s1_req__alloc"][ka] = 1
        log["s1_req__mshr"][ka] = tx["mshr"][ka]
        kf = np.flatnonzero(tx["kind"] == TX_FILL)
        log["s1_fill__valid"][kf] = 1
        log["s1_fill__mshr"][kf] = tx["mshr"][kf]
        log["exp_s2_fill__valid"][kf + 1] = 1
        log["exp_s2_fill__addr"][kf + 1] = self._filled(tx, ka, data[alloc], kf, k[~alloc])
        return log

    def _filled(self, tx: np.ndarray, ka: np.ndarray, data: np.ndarray, kf: np.ndarray,
                kr: np.ndarray) -> np.ndarray:
        """The address each fill (rows ``kf``) reads: its entry's allocation's (rows ``ka``, ``data``).

        Checks that the entries pair up (module docstring); ``kr``: the other requests (merges among them).
        """
        out = np.zeros(len(kf), np.int64)
        entries = tx["mshr"]
        bad = np.flatnonzero((entries[kf] < 0) | (entries[kf] >= self.mshr_entries))
        if bad.size:
            raise ValueError(f"transaction {int(kf[bad[0]])}: MSHR entry {int(entries[kf[bad[0]]])} of "
                             f"{self.mshr_entries}")
        merges = kr[entries[kr] >= 0]
        for e in np.unique(np.concatenate([entries[ka], entries[kf]])):
            a, f = ka[entries[ka] == e], kf[entries[kf] == e]
            pos = np.searchsorted(a, f) - 1  # each fill's last allocation of the entry
            if len(f) > len(a) or (pos != np.arange(len(f))).any():
                j = int(f[np.flatnonzero(pos != np.arange(len(f)))[0]]) if len(f) <= len(a) else int(f[-1])
                raise ValueError(f"transaction {j}: fill of MSHR entry {int(e)} does not follow one "
                                 "allocation of it")
            wrong = np.flatnonzero(tx["line"][f] != tx["line"][a[:len(f)]])
            if wrong.size:
                j = int(f[wrong[0]])
                raise ValueError(f"transaction {j}: MSHR entry {int(e)} fills line {int(tx['line'][j])}, "
                                 f"allocated for line {int(tx['line'][a[wrong[0]]])}")
            out[np.searchsorted(kf, f)] = data[np.searchsorted(ka, a[:len(f)])]
            self._check_merges(tx, e, a, f, merges[entries[merges] == e])
        return out

    @staticmethod
    def _check_merges(tx: np.ndarray, e: int, a: np.ndarray, f: np.ndarray, m: np.ndarray) -> None:
        """Each merge into entry ``e`` (rows ``m``) lies between an allocation and its fill, same line."""
        if not m.size:
            return
        pos = np.searchsorted(a, m) - 1
        ends = np.concatenate([f, np.full(len(a) - len(f), np.iinfo(np.int64).max)])
        ok = (pos >= 0) & (m < ends[np.maximum(pos, 0)])
        ok &= tx["line"][m] == tx["line"][a[np.maximum(pos, 0)]]
        if not ok.all():
            j = int(m[np.flatnonzero(~ok)[0]])
            raise ValueError(f"transaction {j}: a merge into MSHR entry {int(e)} that no allocation of "
                             f"line {int(tx['line'][j])} holds")
