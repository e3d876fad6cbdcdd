"""A kernel as the timing model runs it: per hardware warp, instructions with their line requests.

:func:`kernel_program` turns a :class:`~golden.trace.model.KernelTrace`
(32-thread warps, compact lane addresses) into flat arrays the compiled
model indexes directly: every stored row with its coalesced line requests
(``golden.trace.coalesce``, the same rule the interleaver uses).

Wavefronts wider than a trace warp
    A GPU whose ``warp_size`` is 64 (tian15's GCN wavefronts) issues the
    rows of trace warps ``2j`` and ``2j + 1`` of a CTA together: the
    ``k``-th row of both halves form one instruction (its op, space and PC
    those of the lower half when it has a ``k``-th row), whose requests are
    the union of both halves' (lines in first-touch order, lower half first,
    sector masks OR-ed), with the larger of the two compute gaps before it.
    When the halves have different numbers of rows the extra rows issue
    alone; a warp's tail is the larger of the two. A partial last wavefront
    of a CTA has one half.

Shared-memory bank accesses
    With a :class:`SharedBanks` rule each shared-memory row also gets the
    cycles the LD/ST unit spends on it (``Program.smem_cycles``): GPGPU-Sim's
    bank-conflict count (``warp_inst_t::generate_mem_accesses``). A lane's
    4-byte word ``addr // 4`` lies in bank ``word % banks``; the warp is cut
    into parts of ``part`` lanes (``gpgpu_shmem_warp_parts``) that take turns;
    a part takes as many cycles as its busiest bank has accesses: distinct
    words when every bank may broadcast (``broadcast = "all"``), or lanes when
    one word of the part may be broadcast (``"one"``,
    ``gpgpu_shmem_limited_broadcast``: the first repeated word in bank and
    then word order counts once). Only a lane's address counts, not its
    width, as in GPGPU-Sim. A row takes at least one cycle. A wavefront's
    row takes the sum of its halves' (a part never spans two halves).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numba as nb
import numpy as np

from golden.trace.coalesce import _core_args, _count, _write
from golden.trace.model import WARP_SIZE, KernelTrace, Op, Space, lane_addresses

__all__ = ["Program", "SharedBanks", "kernel_program", "keep_programs"]

#: Kernels whose programs are kept (:func:`keep_programs`), each with its programs by
#: ``(warp_size, line_size, sector_size, write_chunks, write_bytes)``; an entry goes with its kernel.
_KEPT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: Bytes of the chunks a store's request is sized by (GPGPU-Sim's coalescer: 32-byte chunks).
CHUNK_BYTES = 32
#: Bytes of a shared-memory bank's word (GPGPU-Sim's ``WORD_SIZE``).
BANK_WORD_BYTES = 4


@dataclass(frozen=True)
class SharedBanks:
    """How shared-memory rows are cut into bank accesses (module docstring).

    Members
    -------
    banks : int
        Banks of 4-byte words (``gpgpu_shmem_num_banks``).
    part : int
        Lanes checked together, at most 32 (``warp_size // gpgpu_shmem_warp_parts``).
    broadcast : str
        ``"all"``: every bank serves any number of lanes reading one word in one access;
        ``"one"``: only the first such word of a part does.
    """

    banks: int
    part: int
    broadcast: str = "all"


def keep_programs(kernels) -> None:
    """Keep the programs :func:`kernel_program` builds for ``kernels`` while the kernels live.

    For a process that runs the same workload several times (a comparison's worker): the programs
    are built once instead of at every run, and returned as built (nothing writes into a
    :class:`Program`). It costs their memory for as long as the kernels are alive (for ciao18's
    PVC at the paper's size, 2.7 GiB, 2.2 GiB of it the requests); other kernels are unaffected.
    """
    for kernel in kernels:
        _KEPT.setdefault(kernel, {})


@dataclass(eq=False)
class Program:
    """One kernel in the timing model's form.

    Members
    -------
    op, space, pc, gap : numpy.ndarray
        Per instruction row: operation and memory space (``uint8``), PC and the
        compute instructions issued before it (``uint32``), as the trace stores them.
    req_ptr : numpy.ndarray
        ``int64[n_rows + 1]``: row ``r``'s line requests are ``req_line[req_ptr[r]:req_ptr[r + 1]]``
        (global loads, stores and atomics only).
    req_line, req_sec : numpy.ndarray
        Line number (L1 line units, ``int64``) and sector mask (``uint8``: a line has at most 8
        sectors, ``CacheConfig``) of each request.
    req_chunks : numpy.ndarray or None
        With ``write_chunks``: per request, the mask of the line's 32-byte chunks its threads
        write (``uint8``; 0 for a load's), from which a write's packet is sized as GPGPU-Sim's
        coalescer sizes it (``GPUConfig.write_packet``); None otherwise.
    req_wbytes : numpy.ndarray or None
        With ``write_bytes``: ``uint32[n_requests, line_size // 32]``, per request and 32-byte
        chunk of its line the bytes its threads write (bit ``b``: byte ``b`` of the chunk; 0 for a
        load's), which a lazily allocating L2 keeps to know a sector written in part
        (``docs/timing.md``, "The L2's byte mask"); None otherwise.
    warp_ptr : numpy.ndarray
        ``int64[n_warps + 1]``: the rows of hardware warp ``g = cta * warps_per_cta + w``.
    tail : numpy.ndarray
        ``int64[n_warps]``: compute instructions after each warp's last row.
    n_ctas, warps_per_cta, threads_per_cta, shared_bytes, regs_per_thread : int
        Launch shape and per-CTA resources.
    use : numpy.ndarray or None
        ``int64`` per row: the trace's consumer distance (``KernelTrace.consumers``),
        or None when the trace carries no registers.
    smem_cycles : numpy.ndarray or None
        With a :class:`SharedBanks` rule: ``uint8`` per row, the LD/ST unit's cycles for a shared-
        memory row (its bank accesses, at least 1; module docstring), 0 for other rows; None
        otherwise.
    """

    op: np.ndarray
    space: np.ndarray
    pc: np.ndarray
    gap: np.ndarray
    req_ptr: np.ndarray
    req_line: np.ndarray
    req_sec: np.ndarray
    warp_ptr: np.ndarray
    tail: np.ndarray
    n_ctas: int
    warps_per_cta: int
    threads_per_cta: int
    shared_bytes: int
    regs_per_thread: int
    use: np.ndarray | None = None
    req_chunks: np.ndarray | None = None
    req_wbytes: np.ndarray | None = None
    smem_cycles: np.ndarray | None = None

    @property
    def n_warps(self) -> int:
        """Hardware warps in the launch."""
        return len(self.tail)


def _coalesced(kernel: KernelTrace, line_size: int, sector_size: int,
               rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The coalesced line requests of ``rows``: ``(row, line, sectors)`` of each, in row order."""
    core = _core_args(kernel, line_size, sector_size)
    n = _count(*core, rows)
    inst = np.empty(n, np.int64)
    line = np.empty(n, np.uint64)
    sec = np.empty(n, np.uint8)
    _write(*core, rows, inst, line, sec)
    return inst, line, sec


def _requests(kernel: KernelTrace, line_size: int, sector_size: int,
              per_sector: bool = False) -> tuple[np.ndarray, ...]:
    """Every row's coalesced requests: ``(req_ptr, line, sectors)``; with ``per_sector`` one per
    sector (:func:`_split_sectors`)."""
    it = kernel.insts
    rows = np.flatnonzero(kernel.memory_mask(Space.GLOBAL)).astype(np.int64)
    inst, line, sec = _coalesced(kernel, line_size, sector_size, rows)
    if per_sector:
        inst, line, sec = _split_sectors(inst, line, sec)
    ptr = np.searchsorted(inst, np.arange(len(it) + 1, dtype=np.int64)).astype(np.int64)
    # Line numbers are below 2**63: the same bits as int64, without a copy. Masks stay one byte.
    return ptr, line.view(np.int64), sec


@nb.njit(cache=True, nogil=True)
def _split_sectors(inst, line, sec):
    """One request per sector of each line request, in sector order (GPGPU-Sim's coalescer from
    ``gpgpu_coalesce_arch`` 40 on: every transaction is a 32-byte sector)."""
    n = 0
    for x in range(len(sec)):
        m = np.int64(sec[x])
        while m:
            m &= m - 1
            n += 1
    inst2 = np.empty(n, inst.dtype)
    line2 = np.empty(n, line.dtype)
    sec2 = np.empty(n, sec.dtype)
    k = 0
    for x in range(len(sec)):
        m = np.int64(sec[x])
        while m:
            low = m & -m
            m ^= low
            inst2[k] = inst[x]
            line2[k] = line[x]
            sec2[k] = low
            k += 1
    return inst2, line2, sec2


def _store_writes(kernel: KernelTrace, line_size: int, ptr: np.ndarray, line: np.ndarray,
                  write_chunks: bool, write_bytes: bool,
                  sec: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """What each global store request of :func:`_requests` (``ptr``, ``line``) writes.

    With requests of one 32-byte sector each (``sec``, their masks, given), a chunk's bytes go on
    the row's request for the chunk's sector rather than its line's first request.

    Returns ``(chunks, wbytes)``: per request the mask of its line's 32-byte chunks written
    (``uint8[n_req]``; one entry unless ``write_chunks``) and each chunk's mask of bytes written
    (``uint32[n_req, line_size // 32]``, bit ``b`` byte ``b`` of the chunk; one row unless
    ``write_bytes``); 0 for loads and atomics. The stores are decoded again with 32-byte lines and
    1-byte sectors, which gives each chunk's bytes, then placed on their requests.
    """
    n_req = int(ptr[-1])
    cpl = max(1, line_size // CHUNK_BYTES)
    chunks = np.zeros(n_req if write_chunks else 1, np.uint8)
    wbytes = np.zeros((n_req if write_bytes else 1, cpl), np.uint32)
    it = kernel.insts
    stores = np.flatnonzero(kernel.memory_mask(Space.GLOBAL) & (it["op"] == Op.STORE)).astype(np.int64)
    if len(stores) == 0 or not (write_chunks or write_bytes):
        return chunks, wbytes
    # The coalescer's decoding with 32-byte "lines" of 1-byte "sectors": a request per chunk touched,
    # its sector mask the chunk's bytes (bit b: byte b).
    core = (it["base"], it["sx"], it["sy"], it["dx"], it["lanes"], it["mask"], it["width"],
            kernel.lane_addrs, CHUNK_BYTES.bit_length() - 1, 0)
    n = _count(*core, stores)
    crow = np.empty(n, np.int64)
    cchunk = np.empty(n, np.uint64)
    cmask = np.empty(n, np.uint32)
    _write(*core, stores, crow, cchunk, cmask)
    _place_writes(crow, cchunk.view(np.int64), cmask, ptr, line,
                  line_size.bit_length() - CHUNK_BYTES.bit_length(), chunks, wbytes,
                  sec if sec is not None else np.zeros(1, np.uint8), sec is not None)
    return chunks, wbytes


@nb.njit(cache=True, nogil=True)
def _place_writes(crow, cchunk, cmask, ptr, line, cshift, chunks, wbytes, sec, by_sector):
    """Put each written chunk (row ``crow``, chunk number ``cchunk``, bytes ``cmask``) on its row's
    request for the chunk's line (``2**cshift`` chunks a line) and, if ``by_sector``, for its
    32-byte sector, chunk ``j`` being sector ``j`` (``sec`` the requests' sector masks): its bit in
    ``chunks``, its bytes in ``wbytes`` (each only if it has an entry per request)."""
    with_chunks = len(chunks) == len(line)
    with_bytes = wbytes.shape[0] == len(line)
    low = (np.int64(1) << cshift) - 1
    for k in range(len(crow)):
        r = crow[k]
        ln = cchunk[k] >> cshift
        j = cchunk[k] & low
        for x in range(ptr[r], ptr[r + 1]):
            if line[x] == ln and (not by_sector or (np.int64(sec[x]) >> j) & 1):
                if with_chunks:
                    chunks[x] |= np.uint8(1 << j)
                if with_bytes:
                    wbytes[x, j] |= cmask[k]
                break


#: Shared-memory rows whose lanes are expanded at once (32 addresses each).
_BANK_CHUNK = 1 << 16


def _bank_cycles(kernel: KernelTrace, rule: SharedBanks) -> np.ndarray:
    """Per row of ``kernel``: the LD/ST unit's cycles for a shared-memory row under ``rule``, 0 for
    other rows (``uint8``; module docstring).

    A row's bank accesses are the same when every lane's address moves by a multiple of
    ``BANK_WORD_BYTES * banks`` bytes (each lane keeps its bank, and equal words stay equal), so
    affine rows with the same strides, lane mask and base modulo that are computed once: rdgc's
    hotspot at 0.25 has 63,072 affine shared rows of 53 kinds, bp 413,696 of 27.
    """
    it = kernel.insts
    out = np.zeros(len(it), np.uint8)
    rows = np.flatnonzero((it["space"] == Space.SHARED) & (it["op"] != Op.BARRIER))
    if not len(rows):
        return out
    sub = it[rows]
    affine = sub["lanes"] < 0
    a = sub[affine]
    # The kind in two words (strides; mask, base modulo, dx, a byte), sorted and cut
    # where it changes (np.unique over rows is ten times slower here).
    strides = (a["sx"].astype(np.int64) << 32) | (a["sy"].astype(np.int64) & 0xFFFFFFFF)
    rest = ((a["mask"].astype(np.int64) << 32)
            | ((a["base"].astype(np.int64) % (BANK_WORD_BYTES * rule.banks)) << 8) | a["dx"].astype(np.int64))
    order = np.lexsort((rest, strides))
    s1, s2 = strides[order], rest[order]
    new = np.ones(len(order), bool)
    new[1:] = (s1[1:] != s1[:-1]) | (s2[1:] != s2[:-1])
    kind = np.empty(len(order), np.int64)
    kind[order] = np.cumsum(new) - 1
    out[rows[affine]] = _rows_cycles(kernel, rows[affine][order[new]], rule)[kind]
    out[rows[~affine]] = _rows_cycles(kernel, rows[~affine], rule)
    return out


def _rows_cycles(kernel: KernelTrace, rows: np.ndarray, rule: SharedBanks) -> np.ndarray:
    """The LD/ST unit's cycles of shared-memory ``rows`` of ``kernel`` under ``rule``, each computed."""
    out = np.zeros(len(rows), np.uint8)
    for lo in range(0, len(rows), _BANK_CHUNK):
        chunk = rows[lo:lo + _BANK_CHUNK]
        out[lo:lo + len(chunk)] = _part_cycles(lane_addresses(kernel, chunk), kernel.insts["mask"][chunk],
                                               rule.banks, rule.part, rule.broadcast == "one")
    return out


@nb.njit(cache=True, nogil=True)
def _part_cycles(addr, mask, banks, part, limited):
    """GPGPU-Sim's bank accesses of each row of lane addresses ``addr`` (``uint64[n, 32]``, lanes
    active in ``mask``), parts of ``part`` lanes taking turns (module docstring)."""
    n = addr.shape[0]
    out = np.empty(n, np.uint8)
    bank = np.empty(WARP_SIZE, np.int64)
    word = np.empty(WARP_SIZE, np.int64)
    for i in range(n):
        total = 0
        for p0 in range(0, WARP_SIZE, part):
            m = 0
            for lane in range(p0, p0 + part):
                if (mask[i] >> lane) & 1:
                    word[m] = np.int64(addr[i, lane] // BANK_WORD_BYTES)
                    bank[m] = word[m] % banks
                    m += 1
            # The broadcast word of a limited part: the first repeated one in (bank, word) order.
            bb = np.int64(-1)
            bw = np.int64(-1)
            if limited:
                for a in range(m):
                    for b in range(a + 1, m):
                        if word[b] == word[a] and (bb < 0 or bank[a] < bb or bank[a] == bb and word[a] < bw):
                            bb = bank[a]
                            bw = word[a]
            most = 0
            for a in range(m):
                first = True
                for b in range(a):
                    if bank[b] == bank[a]:
                        first = False
                        break
                if not first:
                    continue  # the bank was counted at its first lane
                count = 0
                for b in range(a, m):
                    if bank[b] != bank[a]:
                        continue
                    if limited:
                        # Every lane but the broadcast word's repeats.
                        repeat = False
                        if word[b] == bw:
                            for e in range(a, b):
                                if word[e] == bw:
                                    repeat = True
                                    break
                        if not repeat:
                            count += 1
                    else:
                        # Distinct words.
                        seen = False
                        for e in range(a, b):
                            if word[e] == word[b]:
                                seen = True
                                break
                        if not seen:
                            count += 1
                most = max(most, count)
            total += most
        out[i] = max(1, total)
    return out


@nb.njit(cache=True, nogil=True)
def _pair(op, space, pc, gap, use, smem, ptr, line, sec, chunks, wbytes, wptr, tail, n_ctas, wpc32, wpc):
    """Merge trace warps ``2j`` and ``2j + 1`` of every CTA into wavefronts (module docstring).

    A wavefront row's consumer distance is the nearer of its halves' (``use``); its shared-memory
    cycles the sum of theirs (``smem``); the halves' chunk masks (``chunks``, one entry when there
    are none) and chunk byte masks (``wbytes``, one row when there are none) are OR-ed as their
    sector masks.
    """
    with_chunks = len(chunks) == len(sec)
    with_bytes = wbytes.shape[0] == len(sec)
    n_hw = n_ctas * wpc
    n_rows = 0
    n_req = 0
    for c in range(n_ctas):
        for j in range(wpc):
            a = c * wpc32 + 2 * j
            na = wptr[a + 1] - wptr[a]
            nb_ = wptr[a + 2] - wptr[a + 1] if 2 * j + 1 < wpc32 else 0
            n_rows += max(na, nb_)
            n_req += ptr[wptr[a + 1]] - ptr[wptr[a]]
            if 2 * j + 1 < wpc32:
                n_req += ptr[wptr[a + 2]] - ptr[wptr[a + 1]]
    o_op = np.empty(n_rows, np.uint8)
    o_space = np.empty(n_rows, np.uint8)
    o_pc = np.empty(n_rows, np.uint32)
    o_gap = np.empty(n_rows, np.uint32)
    o_use = np.empty(n_rows, np.int64)
    o_smem = np.zeros(n_rows, np.uint8)
    o_ptr = np.empty(n_rows + 1, np.int64)
    o_line = np.empty(n_req, np.int64)
    o_sec = np.empty(n_req, np.uint8)
    o_chunks = np.zeros(n_req if with_chunks else 1, np.uint8)
    o_wbytes = np.zeros((n_req if with_bytes else 1, wbytes.shape[1]), np.uint32)
    o_wptr = np.empty(n_hw + 1, np.int64)
    o_tail = np.empty(n_hw, np.int64)
    r = 0
    q = 0
    for c in range(n_ctas):
        for j in range(wpc):
            h = c * wpc + j
            o_wptr[h] = r
            a = c * wpc32 + 2 * j
            has_b = 2 * j + 1 < wpc32
            ra, ea = wptr[a], wptr[a + 1]
            rb, eb = (wptr[a + 1], wptr[a + 2]) if has_b else (0, 0)
            o_tail[h] = max(tail[a], tail[a + 1]) if has_b else tail[a]
            k = 0
            while ra + k < ea or rb + k < eb:
                ia = ra + k if ra + k < ea else -1
                ib = rb + k if rb + k < eb else -1
                first = ia if ia >= 0 else ib
                o_op[r] = op[first]
                o_space[r] = space[first]
                o_pc[r] = pc[first]
                g = 0
                if ia >= 0:
                    g = gap[ia]
                if ib >= 0 and gap[ib] > g:
                    g = gap[ib]
                o_gap[r] = g
                u = np.int64(-1)
                for i in (ia, ib):
                    if i >= 0 and use[i] > 0 and (u < 0 or use[i] < u):
                        u = use[i]
                o_use[r] = u
                for i in (ia, ib):
                    if i >= 0 and space[i] == space[first]:
                        o_smem[r] += smem[i]
                o_ptr[r] = q
                for i in (ia, ib):
                    if i < 0:
                        continue
                    for x in range(ptr[i], ptr[i + 1]):
                        found = False
                        for y in range(o_ptr[r], q):
                            if o_line[y] == line[x]:
                                o_sec[y] |= sec[x]
                                if with_chunks:
                                    o_chunks[y] |= chunks[x]
                                if with_bytes:
                                    for j in range(wbytes.shape[1]):
                                        o_wbytes[y, j] |= wbytes[x, j]
                                found = True
                                break
                        if not found:
                            o_line[q] = line[x]
                            o_sec[q] = sec[x]
                            if with_chunks:
                                o_chunks[q] = chunks[x]
                            if with_bytes:
                                o_wbytes[q] = wbytes[x]
                            q += 1
                r += 1
                k += 1
    o_ptr[r] = q
    o_wptr[n_hw] = r
    return (o_op, o_space, o_pc, o_gap, o_use, o_smem, o_ptr, o_line[:q], o_sec[:q],
            o_chunks[:q] if with_chunks else o_chunks, o_wbytes[:q] if with_bytes else o_wbytes,
            o_wptr, o_tail)


def kernel_program(kernel: KernelTrace, warp_size: int, line_size: int, sector_size: int,
                   write_chunks: bool = False, write_bytes: bool = False,
                   shared_banks: SharedBanks | None = None, per_sector: bool = False) -> Program:
    """The timing model's form of ``kernel`` on a GPU with ``warp_size``-thread warps.

    Parameters
    ----------
    kernel : KernelTrace
        The launch (32-thread trace warps).
    warp_size : int
        32, or 64 to issue pairs of trace warps as wavefronts (module docstring).
    line_size, sector_size : int
        L1 line and sector size in bytes (sector size 0: no sectors).
    write_chunks : bool
        Also note each store request's 32-byte chunks (``Program.req_chunks``).
    write_bytes : bool
        Also note the bytes each store request writes (``Program.req_wbytes``); ``line_size``
        must then be a multiple of 32.
    shared_banks : SharedBanks, optional
        Also give each shared-memory row its bank accesses (``Program.smem_cycles``).
    per_sector : bool
        One request per sector instead of per line (``coalescing = "sector"``); needs
        ``sector_size`` 32.

    Returns
    -------
    Program
    """
    kept = _KEPT.get(kernel)
    key = (warp_size, line_size, sector_size, write_chunks, write_bytes, shared_banks, per_sector)
    if kept is not None and key in kept:
        return kept[key]
    if write_bytes and line_size % CHUNK_BYTES:
        raise ValueError(f"write_bytes: needs lines of whole {CHUNK_BYTES}-byte chunks, "
                         f"not {line_size} bytes")
    if shared_banks is not None and not (0 < shared_banks.part <= WARP_SIZE and shared_banks.banks > 0):
        raise ValueError(f"shared_banks: needs banks and parts of 1 .. {WARP_SIZE} lanes, not {shared_banks}")
    if per_sector and sector_size != CHUNK_BYTES:
        raise ValueError(f"per_sector: needs {CHUNK_BYTES}-byte sectors, not {sector_size}")
    prog = _build(kernel, warp_size, line_size, sector_size, write_chunks, write_bytes, shared_banks,
                  per_sector)
    if kept is not None:
        kept[key] = prog
    return prog


def _build(kernel: KernelTrace, warp_size: int, line_size: int, sector_size: int,
           write_chunks: bool, write_bytes: bool, shared_banks: SharedBanks | None,
           per_sector: bool) -> Program:
    """:func:`kernel_program` without the kept programs."""
    it = kernel.insts
    ptr, line, sec = _requests(kernel, line_size, sector_size, per_sector)
    chunks, wbytes = _store_writes(kernel, line_size, ptr, line, write_chunks, write_bytes,
                                   sec if per_sector else None)
    # The trace's own widths, contiguous: a PVC-sized program is some 30 M rows and 250 M requests,
    # and int64 copies of these columns and of the sector masks cost a worker 2.3 GiB more.
    op = np.ascontiguousarray(it["op"], np.uint8)
    space = np.ascontiguousarray(it["space"], np.uint8)
    pc = np.ascontiguousarray(it["pc"], np.uint32)
    gap = np.ascontiguousarray(it["gap"], np.uint32)
    use = kernel.consumers if kernel.consumers is not None else np.full(len(it), -1, np.int64)
    smem = _bank_cycles(kernel, shared_banks) if shared_banks is not None else np.zeros(len(it), np.uint8)
    wptr = kernel.warp_ptr.astype(np.int64)
    tail = kernel.tail.astype(np.int64)
    tpc = kernel.threads_per_cta
    wpc32 = kernel.warps_per_cta
    group = warp_size // WARP_SIZE
    if group == 2:
        wpc = -(-tpc // warp_size)
        op, space, pc, gap, use, smem, ptr, line, sec, chunks, wbytes, wptr, tail = _pair(
            op, space, pc, gap, use, smem, ptr, line, sec, chunks, wbytes, wptr, tail, kernel.n_ctas, wpc32,
            wpc)
    else:
        wpc = wpc32
    return Program(op=op, space=space, pc=pc, gap=gap, req_ptr=ptr, req_line=line, req_sec=sec,
                   warp_ptr=wptr, tail=tail, n_ctas=kernel.n_ctas, warps_per_cta=wpc,
                   threads_per_cta=tpc, shared_bytes=int(kernel.shared_bytes),
                   regs_per_thread=int(kernel.regs_per_thread),
                   use=use if kernel.consumers is not None else None,
                   req_chunks=chunks if write_chunks else None,
                   req_wbytes=wbytes if write_bytes else None,
                   smem_cycles=smem if shared_banks is not None else None)
