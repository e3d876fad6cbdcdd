"""Import of Accel-Sim traces: ``kernelslist.g`` and ``kernel-*.traceg`` files.

Accel-Sim's NVBit tracer writes one ``kernel-<n>.trace`` per kernel launch;
its ``post-traces-processing`` tool groups the lines by thread block and warp
into ``kernel-<n>.traceg`` and writes ``kernelslist.g``, the list of launches
in order. This module reads those grouped files, of tracer versions 3, 4 and
5, into :class:`~golden.trace.model.KernelTrace` arrays::

    workload = read_accelsim("traces/kernelslist.g")    # or the directory
    kernel = read_kernel_trace("traces/kernel-1.traceg")

A ``.traceg`` file (``.traceg.xz`` is read too) is a header of ``-key = value``
lines, then per thread block::

    #BEGIN_TB
    thread block = x,y,z
    warp = w
    insts = n
    <n instruction lines>
    ...
    #END_TB

and an instruction line is::

    [line_num] PC mask dest_num [Rd...] opcode src_num [Rs...] mem_width [mode addresses] [imm]

``line_num`` is present when the header says ``-enable lineinfo = 1``
(versions 4 and 5), ``imm`` is present in version 5 only. Memory, barrier
and compute instructions become rows, ``gap`` and ``tail`` as described in
``docs/traces.md``, which also gives the sources in Accel-Sim that each rule
follows.

The lines are parsed by a compiled scanner over the raw bytes, a chunk at a
time; rows are converted to the array form a batch at a time, so no Python
object lives per instruction.
"""

from __future__ import annotations

import lzma
import os
import re
from pathlib import Path

import numba as nb
import numpy as np

from golden.errors import InputError

# The affine fit is shared with KernelBuilder; it is private there for now.
from golden.trace.builder import affine_dx2, encode_lanes
from golden.trace.io import MAX_ADDRESS, MAX_KERNELS, MAX_REGS_PER_THREAD, MAX_SHARED_BYTES, check_launch
from golden.trace.model import INST_DTYPE, WARP_SIZE, KernelTrace, Op, Space, Workload

__all__ = ["SUPPORTED_VERSIONS", "read_accelsim", "read_kernel_trace"]

#: Accel-Sim tracer versions (``-accelsim tracer version``) this importer reads.
SUPPORTED_VERSIONS = (3, 4, 5)

#: Size of a generic-address local window above ``-local mem base_addr``
#: (GPGPU-Sim's LOCAL_MEM_SIZE_MAX, abstract_hardware_model.h: 16 kB).
LOCAL_MEM_SIZE_MAX = 1 << 14

_CHUNK = 1 << 22  # bytes read per call
#: Longest line read, in bytes: a v5 line with 32 explicit addresses is under 1 kB. Without a
#: bound, a file with no newline would be rescanned a chunk at a time, in quadratic time.
MAX_LINE = 1 << 16
_MAX_ADDR = np.int64(MAX_ADDRESS)
_BATCH = 1 << 16  # rows converted per batch
_LANE = np.arange(WARP_SIZE, dtype=np.uint32)

# -- opcode table -------------------------------------------------------------

# What an opcode's base name (the text before its first '.') is.
_K_OTHER = 0  # compute
_K_BARRIER = 1  # BAR: a barrier row
_K_MEMORY = 2  # a memory instruction that must carry addresses
_K_OPTIONAL = 3  # constant/texture loads: a row when addresses are traced, else compute
_K_GENERIC = 4  # LD/ST: space resolved from the first active address

# base name: (op, space, kind); the classes of Accel-Sim's trace_driven.cc.
_OPCODES = {
    "LDG": (Op.LOAD, Space.GLOBAL, _K_MEMORY),
    "LDGSTS": (Op.LOAD, Space.GLOBAL, _K_MEMORY),
    "STG": (Op.STORE, Space.GLOBAL, _K_MEMORY),
    "LD": (Op.LOAD, Space.GLOBAL, _K_GENERIC),
    "ST": (Op.STORE, Space.GLOBAL, _K_GENERIC),
    "ATOM": (Op.ATOMIC, Space.GLOBAL, _K_MEMORY),
    "ATOMG": (Op.ATOMIC, Space.GLOBAL, _K_MEMORY),
    "RED": (Op.ATOMIC, Space.GLOBAL, _K_MEMORY),
    "LDS": (Op.LOAD, Space.SHARED, _K_MEMORY),
    "LDSM": (Op.LOAD, Space.SHARED, _K_MEMORY),
    "STS": (Op.STORE, Space.SHARED, _K_MEMORY),
    "ATOMS": (Op.ATOMIC, Space.SHARED, _K_MEMORY),
    "LDL": (Op.LOAD, Space.LOCAL, _K_MEMORY),
    "STL": (Op.STORE, Space.LOCAL, _K_MEMORY),
    "LDC": (Op.LOAD, Space.CONST, _K_OPTIONAL),
    "ULDC": (Op.LOAD, Space.CONST, _K_OPTIONAL),
    "TEX": (Op.LOAD, Space.TEXTURE, _K_OPTIONAL),
    "TEXS": (Op.LOAD, Space.TEXTURE, _K_OPTIONAL),
    "TLD": (Op.LOAD, Space.TEXTURE, _K_OPTIONAL),
    "TLDS": (Op.LOAD, Space.TEXTURE, _K_OPTIONAL),
    "TLD4": (Op.LOAD, Space.TEXTURE, _K_OPTIONAL),
    "TLD4S": (Op.LOAD, Space.TEXTURE, _K_OPTIONAL),
    "TXD": (Op.LOAD, Space.TEXTURE, _K_OPTIONAL),
    "BAR": (Op.BARRIER, Space.NONE, _K_BARRIER),
}
_OP_NAMES = np.array([list(n.encode().ljust(8, b"\0")) for n in _OPCODES], np.uint8)
_OP_LENS = np.array([len(n) for n in _OPCODES], np.int64)
_OP_OP = np.array([int(v[0]) for v in _OPCODES.values()], np.int64)
_OP_SPACE = np.array([int(v[1]) for v in _OPCODES.values()], np.int64)
_OP_KIND = np.array([v[2] for v in _OPCODES.values()], np.int64)
_SP_GLOBAL, _SP_SHARED, _SP_LOCAL = int(Space.GLOBAL), int(Space.SHARED), int(Space.LOCAL)
_OP_BARRIER = int(Op.BARRIER)


def _word(text: str) -> np.ndarray:
    return np.frombuffer(text.encode(), np.uint8).copy()


_KW_BEGIN = _word("#BEGIN_TB")
_KW_END = _word("#END_TB")
_KW_THREAD = _word("thread")
_KW_BLOCK = _word("block")
_KW_CLUSTER = _word("cluster")
_KW_WARP = _word("warp")
_KW_INSTS = _word("insts")

# -- scanner state, results and errors ----------------------------------------

# Indices into the state array the scanner keeps between calls.
(_S_LINE, _S_IN_TB, _S_TB_LINE, _S_CTA, _S_WARP, _S_WARP_LINE, _S_INSTS, _S_INSTS_LINE,
 _S_COUNT, _S_GAP, _S_ERR, _S_ERR_LINE, _S_ERR_START, _S_ERR_END, _S_TOK_START, _S_TOK_END,
 _S_A, _S_B, _S_C, _S_D) = range(20)
_S_SIZE = 20

# Counters of instruction lines that did not become rows.
_C_COMPUTE, _C_MASKED, _C_UNADDRESSED, _C_UNCLASSIFIED = range(4)

# What an instruction line became (_parse_inst's result).
_R_ROW, _R_COMPUTE, _R_MASKED, _R_UNADDRESSED, _R_UNCLASSIFIED = range(5)

# Scanner return status.
_MORE, _FULL, _ERROR = range(3)

# Error codes; _message turns them into text.
(_E_EXTRA, _E_NESTED, _E_END_ALONE, _E_OUTSIDE, _E_BAD_TB, _E_TB_TWICE, _E_TB_GRID, _E_TB_DUP,
 _E_NO_TB, _E_BAD_WARP, _E_WARP_RANGE, _E_WARP_DUP, _E_BAD_INSTS, _E_INSTS_NO_WARP,
 _E_INSTS_TWICE, _E_NO_INSTS, _E_TOO_FEW, _E_TOO_MANY, _E_INST_NO_WARP, _E_INST_NO_INSTS,
 _E_MISSING, _E_NOT_HEX, _E_NOT_DEC, _E_RANGE, _E_NEGATIVE, _E_MODE, _E_ADDR_COUNT,
 _E_STRIDE_GAPS, _E_WIDTH, _E_NO_ADDR, _E_ADDR_RANGE, _E_REG, _E_REG_COUNT) = range(1, 34)

#: Registers a destination or source list may name: Accel-Sim writes at most 1 and 4
#: (``MAX_DST``, ``MAX_SRC`` in trace_parser.h); more than this is taken for a damaged line.
MAX_REG_LIST = 32
#: Register numbers ``R0`` .. ``R255`` (``R255`` is SASS's ``RZ``).
N_REGS = 256
#: Rows whose consumers are found in a later batch than their own, per scanner call: at most one
#: per register of the open warp (a register names one pending row).
_PATCHES = N_REGS

# Fields of an instruction line, for messages.
(_F_LINENUM, _F_PC, _F_MASK, _F_NDST, _F_DST, _F_OPCODE, _F_NSRC, _F_SRC, _F_WIDTH, _F_MODE,
 _F_ADDR, _F_BASE, _F_STRIDE, _F_DELTA, _F_IMM) = range(15)
_FIELDS = ("line number", "PC", "active mask", "destination count", "destination register",
           "opcode", "source count", "source register", "mem_width", "address mode", "address",
           "base address", "stride", "delta", "immediate")

# Slots of the per-line result array.
_I_PC, _I_MASK, _I_OP, _I_SPACE, _I_WIDTH, _I_RESULT, _I_NDST, _I_NSRC = range(8)


# -- compiled scanner -----------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _skip_ws(buf, p, e):
    while p < e and (buf[p] == 32 or buf[p] == 9 or buf[p] == 13):
        p += 1
    return p


@nb.njit(cache=True, nogil=True)
def _token_end(buf, p, e):
    while p < e and buf[p] != 32 and buf[p] != 9 and buf[p] != 13:
        p += 1
    return p


@nb.njit(cache=True, nogil=True)
def _same(buf, a, b, word):
    if b - a != word.size:
        return False
    for i in range(word.size):
        if buf[a + i] != word[i]:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _hex(buf, a, b):
    """(value, ok) of a hexadecimal token, with or without ``0x``; at most 64 bits."""
    if b - a >= 2 and buf[a] == 48 and (buf[a + 1] == 120 or buf[a + 1] == 88):
        a += 2
    if a >= b:
        return np.uint64(0), False
    while a < b - 1 and buf[a] == 48:
        a += 1
    if b - a > 16:
        return np.uint64(0), False
    v = np.uint64(0)
    for i in range(a, b):
        c = np.int64(buf[i])
        if 48 <= c <= 57:
            d = c - 48
        elif 97 <= c <= 102:
            d = c - 87
        elif 65 <= c <= 70:
            d = c - 55
        else:
            return np.uint64(0), False
        v = (v << np.uint64(4)) | np.uint64(d)
    return v, True


@nb.njit(cache=True, nogil=True)
def _dec(buf, a, b):
    """(value, ok) of a signed decimal token of at most 18 digits."""
    neg = False
    if a < b and (buf[a] == 45 or buf[a] == 43):
        neg = buf[a] == 45
        a += 1
    if a >= b or b - a > 18:
        return np.int64(0), False
    v = np.int64(0)
    for i in range(a, b):
        c = np.int64(buf[i])
        if c < 48 or c > 57:
            return np.int64(0), False
        v = v * 10 + (c - 48)
    return (-v if neg else v), True


@nb.njit(cache=True, nogil=True)
def _eq_int(buf, p, e):
    """(value, ok) of ``= <decimal>`` ending the line at ``p``."""
    p = _skip_ws(buf, p, e)
    if p >= e or buf[p] != 61:
        return np.int64(0), False
    a = _skip_ws(buf, p + 1, e)
    b = _token_end(buf, a, e)
    v, ok = _dec(buf, a, b)
    if not ok or _skip_ws(buf, b, e) != e:
        return np.int64(0), False
    return v, True


@nb.njit(cache=True, nogil=True)
def _dims3(buf, p, e, out):
    """Parse ``= x,y,z`` ending the line at ``p`` into ``out``; False when malformed."""
    p = _skip_ws(buf, p, e)
    if p >= e or buf[p] != 61:
        return False
    p += 1
    for k in range(3):
        p = _skip_ws(buf, p, e)
        a = p
        while p < e and 48 <= buf[p] <= 57:
            p += 1
        if p == a or p - a > 9:
            return False
        v = np.int64(0)
        for i in range(a, p):
            v = v * 10 + (np.int64(buf[i]) - 48)
        out[k] = v
        p = _skip_ws(buf, p, e)
        if k < 2:
            if p >= e or buf[p] != 44:
                return False
            p += 1
    return p == e


@nb.njit(cache=True, nogil=True)
def _lookup(buf, a, b):
    """Row of the opcode table for the base name of opcode ``buf[a:b]``, or -1."""
    j = a
    while j < b and buf[j] != 46:
        j += 1
    n = j - a
    for k in range(_OP_LENS.size):
        if _OP_LENS[k] != n:
            continue
        same = True
        for i in range(n):
            if buf[a + i] != _OP_NAMES[k, i]:
                same = False
                break
        if same:
            return k
    return -1


@nb.njit(cache=True, nogil=True)
def _opcode_width(buf, a, b):
    """Bytes per lane from the opcode's modifiers: Accel-Sim's get_datawidth_from_opcode.

    The first '.'-separated token that is a number ``N`` or ``U<N>`` gives
    ``N // 8``; without one the width is 4. Returns -1 for absurd sizes.
    """
    i = a
    while i < b:
        j = i
        while j < b and buf[j] != 46:
            j += 1
        s = i + 1 if j > i and buf[i] == 85 else i
        if j > s:
            digits = True
            for k in range(s, j):
                if buf[k] < 48 or buf[k] > 57:
                    digits = False
                    break
            if digits:
                if j - s > 6:
                    return -1
                v = np.int64(0)
                for k in range(s, j):
                    v = v * 10 + (np.int64(buf[k]) - 48)
                return v // 8
        i = j + 1
    return 4


@nb.njit(cache=True, nogil=True)
def _fail(st, code, ta, tb, a, b, c, d):
    st[_S_ERR] = code
    st[_S_TOK_START] = ta
    st[_S_TOK_END] = tb
    st[_S_A] = a
    st[_S_B] = b
    st[_S_C] = c
    st[_S_D] = d
    return code


@nb.njit(cache=True, nogil=True)
def _field_hex(buf, p, e, st, field):
    """The next token as a hexadecimal number: (value, end, error code)."""
    a = _skip_ws(buf, p, e)
    if a == e:
        return np.uint64(0), p, _fail(st, _E_MISSING, -1, -1, field, 0, 0, 0)
    b = _token_end(buf, a, e)
    v, ok = _hex(buf, a, b)
    if not ok:
        return v, b, _fail(st, _E_NOT_HEX, a, b, field, 0, 0, 0)
    return v, b, 0


@nb.njit(cache=True, nogil=True)
def _field_dec(buf, p, e, st, field):
    """The next token as a decimal integer: (value, end, error code)."""
    a = _skip_ws(buf, p, e)
    if a == e:
        return np.int64(0), p, _fail(st, _E_MISSING, -1, -1, field, 0, 0, 0)
    b = _token_end(buf, a, e)
    v, ok = _dec(buf, a, b)
    if not ok:
        return v, b, _fail(st, _E_NOT_DEC, a, b, field, 0, 0, 0)
    return v, b, 0


@nb.njit(cache=True, nogil=True)
def _reg_list(buf, p, e, st, count_field, item_field, regs):
    """A count and that many ``R<n>`` tokens into ``regs``: (end, count, error code)."""
    a = _skip_ws(buf, p, e)
    count, p, code = _field_dec(buf, p, e, st, count_field)
    if code:
        return p, 0, code
    if count < 0:
        return p, 0, _fail(st, _E_NEGATIVE, a, p, count_field, 0, 0, 0)
    if count > MAX_REG_LIST:
        return p, 0, _fail(st, _E_REG_COUNT, a, p, count_field, 0, 0, 0)
    for i in range(count):
        a = _skip_ws(buf, p, e)
        if a == e:
            return p, 0, _fail(st, _E_MISSING, -1, -1, item_field, 0, 0, 0)
        p = _token_end(buf, a, e)
        v, ok = (np.int64(0), False) if p - a < 2 or buf[a] != 82 else _dec(buf, a + 1, p)
        if not ok or v < 0 or v >= N_REGS or buf[a + 1] == 45 or buf[a + 1] == 43:
            return p, 0, _fail(st, _E_REG, a, p, item_field, 0, 0, 0)
        regs[i] = v
    return p, count, 0


@nb.njit(cache=True, nogil=True)
def _parse_inst(buf, p, e, lineinfo, has_imm, shm_base, loc_base, lanes, info, st, dst, src):
    """Parse one line ``buf[p:e]`` into ``info``, ``lanes``, ``dst`` and ``src``; returns an error or 0.

    ``[line_num] PC mask dest_num [Rd...] opcode src_num [Rs...] mem_width
    [mode addresses] [imm]``, as trace_parser.cc's parse_from_string reads it.
    """
    if lineinfo:
        _, p, code = _field_dec(buf, p, e, st, _F_LINENUM)
        if code:
            return code
    a = _skip_ws(buf, p, e)
    pc, p, code = _field_hex(buf, p, e, st, _F_PC)
    if code:
        return code
    if pc > np.uint64(0xFFFFFFFF):
        return _fail(st, _E_RANGE, a, p, _F_PC, 0, 0, 0)
    a = _skip_ws(buf, p, e)
    mask_u, p, code = _field_hex(buf, p, e, st, _F_MASK)
    if code:
        return code
    if mask_u > np.uint64(0xFFFFFFFF):
        return _fail(st, _E_RANGE, a, p, _F_MASK, 0, 0, 0)
    mask = np.int64(mask_u)
    p, n_dst, code = _reg_list(buf, p, e, st, _F_NDST, _F_DST, dst)
    if code:
        return code
    info[_I_NDST] = n_dst
    op_a = _skip_ws(buf, p, e)
    if op_a == e:
        return _fail(st, _E_MISSING, -1, -1, _F_OPCODE, 0, 0, 0)
    op_b = _token_end(buf, op_a, e)
    p, n_src, code = _reg_list(buf, op_b, e, st, _F_NSRC, _F_SRC, src)
    if code:
        return code
    info[_I_NSRC] = n_src
    a = _skip_ws(buf, p, e)
    mem_width, p, code = _field_dec(buf, p, e, st, _F_WIDTH)
    if code:
        return code
    if mem_width < 0:
        return _fail(st, _E_NEGATIVE, a, p, _F_WIDTH, 0, 0, 0)

    npop = 0
    first = -1
    for lane in range(WARP_SIZE):
        lanes[lane] = 0
        if (mask >> lane) & 1:
            npop += 1
            if first < 0:
                first = lane
    if mem_width > 0:
        a = _skip_ws(buf, p, e)
        mode, p, code = _field_dec(buf, p, e, st, _F_MODE)
        if code:
            return code
        if mode < 0 or mode > 2:
            return _fail(st, _E_MODE, a, p, mode, 0, 0, 0)
        # Count the fields left first, so that a wrong count is reported as
        # such rather than as whatever field it shifts out of place.
        left = 0
        q = _skip_ws(buf, p, e)
        while q < e:
            q = _skip_ws(buf, _token_end(buf, q, e), e)
            left += 1
        need = npop if mode == 0 else 2 if mode == 1 else 1 + max(npop - 1, 0)
        if left != need + has_imm:
            return _fail(st, _E_ADDR_COUNT, -1, -1, mode, mask, left, npop)
        if mode == 0:  # list_all: one address per active lane
            for lane in range(WARP_SIZE):
                if (mask >> lane) & 1:
                    v, p, code = _field_hex(buf, p, e, st, _F_ADDR)
                    if code:
                        return code
                    lanes[lane] = np.int64(v)
        else:
            v, p, code = _field_hex(buf, p, e, st, _F_BASE)
            if code:
                return code
            addr = np.int64(v)
            if mode == 1:  # base_stride: consecutive active lanes
                a = _skip_ws(buf, p, e)
                stride, p, code = _field_dec(buf, p, e, st, _F_STRIDE)
                if code:
                    return code
                if stride < -(1 << 31) or stride >= (1 << 31):
                    return _fail(st, _E_RANGE, a, p, _F_STRIDE, 0, 0, 0)
                if npop:
                    run = mask >> first
                    if run & (run + 1):
                        return _fail(st, _E_STRIDE_GAPS, -1, -1, 0, mask, 0, 0)
                    for k in range(npop):
                        lanes[first + k] = addr + k * stride
            elif npop:  # base_delta: each active lane relative to the previous one
                lanes[first] = addr
                for lane in range(first + 1, WARP_SIZE):
                    if (mask >> lane) & 1:
                        delta, p, code = _field_dec(buf, p, e, st, _F_DELTA)
                        if code:
                            return code
                        addr += delta
                        lanes[lane] = addr
    if has_imm:
        _, p, code = _field_dec(buf, p, e, st, _F_IMM)
        if code:
            return code
    a = _skip_ws(buf, p, e)
    if a != e:
        return _fail(st, _E_EXTRA, a, _token_end(buf, a, e), 0, 0, 0, 0)

    # Classification: trace_driven.cc, parse_from_trace_struct.
    info[_I_PC] = np.int64(pc)
    info[_I_MASK] = mask
    k = _lookup(buf, op_a, op_b)
    kind = _OP_KIND[k] if k >= 0 else _K_OTHER
    if npop == 0:
        info[_I_RESULT] = _R_MASKED
        return 0
    if kind == _K_BARRIER:
        info[_I_OP] = _OP_OP[k]
        info[_I_SPACE] = _OP_SPACE[k]
        info[_I_WIDTH] = 0
        info[_I_RESULT] = _R_ROW
        for lane in range(WARP_SIZE):
            lanes[lane] = 0
        return 0
    if mem_width == 0:
        if kind == _K_MEMORY or kind == _K_GENERIC:
            return _fail(st, _E_NO_ADDR, op_a, op_b, 0, 0, 0, 0)
        info[_I_RESULT] = _R_UNADDRESSED if kind == _K_OPTIONAL else _R_COMPUTE
        return 0
    if kind == _K_OTHER:
        info[_I_RESULT] = _R_UNCLASSIFIED
        return 0
    width = _opcode_width(buf, op_a, op_b)
    if width < 1 or width > 255:
        return _fail(st, _E_WIDTH, op_a, op_b, width, 0, 0, 0)
    space = _OP_SPACE[k]
    if kind == _K_GENERIC:
        # Accel-Sim resolves a generic address by its first active lane, and
        # calls everything shared when either base address is unknown.
        space = _SP_SHARED
        if shm_base != 0 and loc_base != 0:
            first_addr = np.uint64(lanes[first])
            if shm_base <= first_addr < loc_base:
                space = _SP_SHARED
            elif loc_base <= first_addr < loc_base + np.uint64(LOCAL_MEM_SIZE_MAX):
                space = _SP_LOCAL
            else:
                space = _SP_GLOBAL
    for lane in range(WARP_SIZE):
        if (mask >> lane) & 1 and (lanes[lane] < 0 or lanes[lane] > _MAX_ADDR - width):
            return _fail(st, _E_ADDR_RANGE, -1, -1, lane, 0, 0, 0)
    info[_I_OP] = _OP_OP[k]
    info[_I_SPACE] = space
    info[_I_WIDTH] = width
    info[_I_RESULT] = _R_ROW
    return 0


@nb.njit(cache=True, nogil=True)
def _close_warp(st, tail, wpc):
    """End the open warp (if any): check its count, store its tail; returns an error or 0."""
    w = st[_S_WARP]
    if w < 0:
        return 0
    if st[_S_INSTS] < 0:
        st[_S_ERR_LINE] = st[_S_WARP_LINE]
        return _fail(st, _E_NO_INSTS, -1, -1, w, 0, 0, 0)
    if st[_S_COUNT] < st[_S_INSTS]:
        st[_S_ERR_LINE] = st[_S_INSTS_LINE]
        return _fail(st, _E_TOO_FEW, -1, -1, st[_S_INSTS], st[_S_COUNT], 0, 0)
    tail[st[_S_CTA] * wpc + w] = st[_S_GAP]
    st[_S_WARP] = -1
    st[_S_GAP] = 0
    return 0


@nb.njit(cache=True, nogil=True)
def _consumed(reg, pos, row0, reg_row, reg_pos, out_use, patches):
    """Instruction ``pos`` of the open warp reads or writes ``reg``: the row pending on it has its consumer.

    The first consumer of a row counts (a row with several destinations keeps
    the nearest). A row of an earlier batch is patched afterwards (``patches``).
    """
    r = reg_row[reg]
    if r < 0:
        return
    reg_row[reg] = -1
    d = pos - reg_pos[reg]
    if r >= row0:
        if out_use[r - row0] < 0:
            out_use[r - row0] = d
    else:
        k = patches[0, 0]
        patches[0, 0] = k + 1
        patches[k + 1, 0] = r
        patches[k + 1, 1] = d


@nb.njit(cache=True, nogil=True)
def _scan(buf, pos, final, st, counts, gx, gy, gz, wpc, lineinfo, has_imm, shm_base, loc_base,
          cta_seen, warp_seen, tail, out_cta, out_warp, out_pc, out_op, out_space, out_width,
          out_gap, out_mask, out_lanes, out_use, row0, reg_row, reg_pos, patches):
    """Parse the complete lines of ``buf`` from ``pos``; returns (pos, rows written, status).

    Stops before a line without its newline unless ``final``, and when the
    output arrays are full. On an error, ``st`` holds the code and details.

    Dependences (``docs/traces.md``): ``reg_row[R]`` is the row (counted over
    the whole file from 0; ``row0`` rows were written before this call) of
    the open warp's memory instruction whose result register ``R`` still
    waits for, ``reg_pos[R]`` its position in the warp. An instruction that
    reads or writes ``R`` is that row's consumer: ``out_use`` gets the
    distance in instructions (``-1``: none yet), or, for an earlier batch's
    row, ``patches[1 + k] = (row, distance)`` with ``patches[0, 0]`` = k.
    """
    size = buf.size
    cap = out_cta.size
    n = 0
    dims = np.zeros(3, np.int64)
    info = np.zeros(8, np.int64)
    dst = np.zeros(MAX_REG_LIST, np.int64)
    src = np.zeros(MAX_REG_LIST, np.int64)
    while True:
        if pos >= size:
            return pos, n, _MORE
        e = pos
        while e < size and buf[e] != 10:
            e += 1
        if e == size and not final:
            return pos, n, _MORE
        if n == cap:
            return pos, n, _FULL
        nxt = e + 1 if e < size else e
        st[_S_LINE] += 1
        line = st[_S_LINE]
        st[_S_ERR_LINE] = line
        st[_S_ERR_START] = pos
        st[_S_ERR_END] = e
        p = _skip_ws(buf, pos, e)
        if p == e:
            pos = nxt
            continue
        ta = p
        tb = _token_end(buf, p, e)
        code = 0
        if _same(buf, ta, tb, _KW_BEGIN) or _same(buf, ta, tb, _KW_END):
            q = _skip_ws(buf, tb, e)
            if q != e:
                code = _fail(st, _E_EXTRA, q, _token_end(buf, q, e), 0, 0, 0, 0)
            elif buf[ta + 1] == 66:  # #BEGIN_TB
                if st[_S_IN_TB]:
                    code = _fail(st, _E_NESTED, -1, -1, st[_S_TB_LINE], 0, 0, 0)
                else:
                    st[_S_IN_TB] = 1
                    st[_S_TB_LINE] = line
                    st[_S_CTA] = -1
                    st[_S_WARP] = -1
            elif not st[_S_IN_TB]:
                code = _fail(st, _E_END_ALONE, -1, -1, 0, 0, 0, 0)
            else:
                code = _close_warp(st, tail, wpc)
                st[_S_IN_TB] = 0
        elif not st[_S_IN_TB]:
            code = _fail(st, _E_OUTSIDE, -1, -1, 0, 0, 0, 0)
        elif _same(buf, ta, tb, _KW_THREAD):
            a = _skip_ws(buf, tb, e)
            b = _token_end(buf, a, e)
            if not _same(buf, a, b, _KW_BLOCK) or not _dims3(buf, b, e, dims):
                code = _fail(st, _E_BAD_TB, -1, -1, 0, 0, 0, 0)
            elif st[_S_CTA] >= 0:
                code = _fail(st, _E_TB_TWICE, -1, -1, st[_S_TB_LINE], 0, 0, 0)
            elif dims[0] >= gx or dims[1] >= gy or dims[2] >= gz:
                code = _fail(st, _E_TB_GRID, -1, -1, dims[0], dims[1], dims[2], 0)
            else:
                cta = dims[0] + dims[1] * gx + dims[2] * gx * gy
                if cta_seen[cta]:
                    code = _fail(st, _E_TB_DUP, -1, -1, dims[0], dims[1], dims[2], 0)
                else:
                    cta_seen[cta] = True
                    st[_S_CTA] = cta
        elif _same(buf, ta, tb, _KW_CLUSTER):
            pass  # cluster id/cta/rank lines of newer post-processing: not modelled
        elif _same(buf, ta, tb, _KW_WARP):
            w, ok = _eq_int(buf, tb, e)
            if not ok:
                code = _fail(st, _E_BAD_WARP, -1, -1, 0, 0, 0, 0)
            elif st[_S_CTA] < 0:
                code = _fail(st, _E_NO_TB, -1, -1, 0, 0, 0, 0)
            else:
                code = _close_warp(st, tail, wpc)
                if code == 0:
                    st[_S_ERR_LINE] = line
                    if w < 0 or w >= wpc:
                        code = _fail(st, _E_WARP_RANGE, -1, -1, w, 0, 0, 0)
                    elif warp_seen[st[_S_CTA] * wpc + w]:
                        code = _fail(st, _E_WARP_DUP, -1, -1, w, st[_S_CTA], 0, 0)
                    else:
                        warp_seen[st[_S_CTA] * wpc + w] = True
                        reg_row[:] = -1
                        st[_S_WARP] = w
                        st[_S_WARP_LINE] = line
                        st[_S_INSTS] = -1
                        st[_S_COUNT] = 0
                        st[_S_GAP] = 0
        elif _same(buf, ta, tb, _KW_INSTS):
            k, ok = _eq_int(buf, tb, e)
            if not ok or k < 0:
                code = _fail(st, _E_BAD_INSTS, -1, -1, 0, 0, 0, 0)
            elif st[_S_WARP] < 0:
                code = _fail(st, _E_INSTS_NO_WARP, -1, -1, 0, 0, 0, 0)
            elif st[_S_INSTS] >= 0:
                code = _fail(st, _E_INSTS_TWICE, -1, -1, st[_S_WARP], st[_S_INSTS_LINE], 0, 0)
            else:
                st[_S_INSTS] = k
                st[_S_INSTS_LINE] = line
        else:
            w = st[_S_WARP]
            if w < 0:
                code = _fail(st, _E_INST_NO_WARP, -1, -1, 0, 0, 0, 0)
            elif st[_S_INSTS] < 0:
                code = _fail(st, _E_INST_NO_INSTS, -1, -1, w, 0, 0, 0)
            elif st[_S_COUNT] >= st[_S_INSTS]:
                code = _fail(st, _E_TOO_MANY, -1, -1, st[_S_INSTS], st[_S_INSTS_LINE], 0, 0)
            else:
                st[_S_COUNT] += 1
                code = _parse_inst(buf, ta, e, lineinfo, has_imm, shm_base, loc_base,
                                   out_lanes[n], info, st, dst, src)
                if code == 0:
                    result = info[_I_RESULT]
                    at = st[_S_COUNT] - 1
                    for i in range(info[_I_NSRC]):
                        _consumed(src[i], at, row0, reg_row, reg_pos, out_use, patches)
                    for i in range(info[_I_NDST]):
                        _consumed(dst[i], at, row0, reg_row, reg_pos, out_use, patches)
                    pending = result == _R_ROW and info[_I_OP] != _OP_BARRIER
                    for i in range(info[_I_NDST]):
                        reg_row[dst[i]] = row0 + n if pending else -1
                        reg_pos[dst[i]] = at
                    if result == _R_ROW:
                        out_use[n] = -1
                        out_cta[n] = st[_S_CTA]
                        out_warp[n] = w
                        out_pc[n] = info[_I_PC]
                        out_op[n] = info[_I_OP]
                        out_space[n] = info[_I_SPACE]
                        out_width[n] = info[_I_WIDTH]
                        out_gap[n] = st[_S_GAP]
                        out_mask[n] = info[_I_MASK]
                        st[_S_GAP] = 0
                        n += 1
                    else:
                        st[_S_GAP] += 1
                        counts[_C_COMPUTE] += 1
                        if result == _R_MASKED:
                            counts[_C_MASKED] += 1
                        elif result == _R_UNADDRESSED:
                            counts[_C_UNADDRESSED] += 1
                        elif result == _R_UNCLASSIFIED:
                            counts[_C_UNCLASSIFIED] += 1
        if code:
            return pos, n, _ERROR
        pos = nxt


@nb.njit(cache=True, nogil=True)
def _extend_inactive(lanes, masks):
    """Give inactive lanes the 1-D affine extension of a row's first two active lanes, in place.

    ``fit_affine`` reads its base and strides from lanes 0, 1 and ``dx2``,
    which a traced instruction may leave inactive; with this extension any
    row whose active lanes lie on one stride fits the affine form.
    """
    for r in range(lanes.shape[0]):
        m = np.int64(masks[r])
        i = -1
        j = -1
        for lane in range(WARP_SIZE):
            if (m >> lane) & 1:
                if i < 0:
                    i = lane
                else:
                    j = lane
                    break
        if i < 0:
            continue
        s = np.int64(0)
        if j >= 0:
            d = lanes[r, j] - lanes[r, i]
            if d % (j - i):
                continue
            s = d // (j - i)
        for lane in range(WARP_SIZE):
            if not (m >> lane) & 1:
                lanes[r, lane] = lanes[r, i] + (lane - i) * s


# -- Python driver ------------------------------------------------------------------


class _Header:
    """The ``-key = value`` lines of one ``.traceg`` file."""

    def __init__(self) -> None:
        self.name = ""
        self.kernel_id = 0
        self.grid: tuple[int, int, int] | None = None
        self.block: tuple[int, int, int] | None = None
        self.shmem = 0
        self.nregs = 0
        self.version: int | None = None
        self.lineinfo = 0
        self.shmem_base = 0
        self.local_base = 0


_DIMS = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)")


def _header_line(hdr: _Header, text: str, where: str) -> None:
    key, sep, value = text[1:].partition("=")
    key = " ".join(key.split())
    value = value.strip()
    if not sep or not key:
        raise InputError(f"{where}: header line {text!r} is not '-key = value'")
    try:
        if key == "kernel name":
            hdr.name = value
        elif key == "kernel id":
            hdr.kernel_id = _bounded(value, 10, (1 << 63) - 1)
        elif key in ("grid dim", "block dim"):
            m = _DIMS.fullmatch(value)
            dims = tuple(int(v) for v in m.groups()) if m and len(value) <= 64 else (0,)
            if min(dims) < 1:
                raise ValueError(value)
            setattr(hdr, "grid" if key == "grid dim" else "block", dims)
        elif key == "shmem":
            hdr.shmem = _bounded(value, 10, MAX_SHARED_BYTES)
        elif key == "nregs":
            hdr.nregs = _bounded(value, 10, MAX_REGS_PER_THREAD)
        elif key == "accelsim tracer version":
            hdr.version = _bounded(value, 10, 1 << 20)
        elif key == "enable lineinfo":
            hdr.lineinfo = int(value)
            if hdr.lineinfo not in (0, 1):
                raise ValueError(value)
        elif key == "shmem base_addr":
            hdr.shmem_base = _bounded(value, 16, MAX_ADDRESS - 1)
        elif key == "local mem base_addr":
            hdr.local_base = _bounded(value, 16, MAX_ADDRESS - 1)
    except ValueError:
        form = {"shmem": f" 0..{MAX_SHARED_BYTES}", "nregs": f" 0..{MAX_REGS_PER_THREAD}",
                "shmem base_addr": f" 0..{MAX_ADDRESS - 1:#x}",
                "local mem base_addr": f" 0..{MAX_ADDRESS - 1:#x}"}.get(key, " a number")
        if key.endswith(" dim"):
            form = " (x,y,z) of positive integers"
        shown = value if len(value) <= 40 else value[:37] + "..."
        raise InputError(f"{where}: '-{key}' has an invalid value {shown!r}; expected{form}") from None


def _bounded(value: str, base: int, top: int) -> int:
    """``int(value, base)`` if it is in ``0..top``; ValueError otherwise (also for huge digit strings)."""
    if len(value) > 24:
        raise ValueError(value)
    v = int(value, base)
    if not 0 <= v <= top:
        raise ValueError(value)
    return v


def _open(path: Path):
    return lzma.open(path, "rb") if path.name.endswith(".xz") else open(path, "rb")


def _read_header(f, path: Path) -> tuple[_Header, int, bytes, bool]:
    """Header of an open ``.traceg``: (header, lines read, bytes from #BEGIN_TB on, at EOF)."""
    hdr = _Header()
    data, pos, line_no, eof = b"", 0, 0, False
    while True:
        nl = data.find(b"\n", pos)
        if nl < 0 and len(data) - pos > MAX_LINE:
            raise InputError(f"{path}:{line_no + 1}: the line is longer than {MAX_LINE:,} bytes")
        if nl < 0 and not eof:
            more = f.read(_CHUNK)
            eof = not more
            data, pos = data[pos:] + more, 0
            continue
        if nl < 0 and pos >= len(data):
            return hdr, line_no, b"", True
        end = nl if nl >= 0 else len(data)
        raw = data[pos:end].strip()
        if raw.startswith(b"#BEGIN_TB"):
            return hdr, line_no, data[pos:], eof
        line_no += 1
        pos = end + 1
        if not raw or (raw.startswith(b"#") and not raw.startswith(b"#END_TB")):
            continue  # blank lines and '#traces format = ...' comments
        text = raw.decode("utf-8", errors="replace")
        where = f"{path}:{line_no}"
        if text.startswith("-"):
            _header_line(hdr, text, where)
            continue
        hint = ""
        if re.match(r"\d+ \d+ \d+ \d+ [0-9a-fA-F]+ ", text):
            hint = (" (this looks like a raw kernel-*.trace line: run Accel-Sim's "
                    "post-traces-processing to group it into a .traceg file)")
        raise InputError(f"{where}: expected a '-key = value' header line or '#BEGIN_TB', "
                         f"not {text[:60]!r}{hint}")


def _message(st: np.ndarray, buf: np.ndarray, path: Path, hdr: _Header, wpc: int) -> str:
    """The one-line message for the scanner error held in ``st``."""

    def text(a: int, b: int) -> str:
        return bytes(buf[a:b]).decode("utf-8", errors="replace").strip() if a >= 0 else ""

    line = text(st[_S_ERR_START], st[_S_ERR_END])
    line = line if len(line) <= 80 else line[:77] + "..."
    tok = text(st[_S_TOK_START], st[_S_TOK_END])
    a, b, c, d = (int(v) for v in st[[_S_A, _S_B, _S_C, _S_D]])
    field = _FIELDS[a] if 0 <= a < len(_FIELDS) else ""
    gx, gy, gz = hdr.grid

    def tb_of(cta: int) -> str:
        return f"{cta % gx},{cta // gx % gy},{cta // (gx * gy)}"

    def addr_count() -> str:
        need = {0: f"{d} address{'es' if d != 1 else ''}", 1: "a base address and a stride",
                2: f"a base address and {max(d - 1, 0)} delta{'s' if d != 2 else ''}"}[a]
        imm = " and the immediate" if hdr.version >= 5 else ""
        return (f"address mode {a} with mask {b:08x} ({d} active lanes) needs {need}{imm}, "
                f"but {c} field{'s' if c != 1 else ''} follow the mode")

    messages = {
        _E_EXTRA: lambda: f"unexpected field {tok!r} at the end of the line",
        _E_NESTED: lambda: f"#BEGIN_TB before the #END_TB of the thread block opened on line {a}",
        _E_END_ALONE: lambda: "#END_TB without a #BEGIN_TB",
        _E_OUTSIDE: lambda: f"{line!r} is outside a #BEGIN_TB ... #END_TB block",
        _E_BAD_TB: lambda: f"expected 'thread block = <x>,<y>,<z>', not {line!r}",
        _E_TB_TWICE: lambda: f"second 'thread block' line in the block opened on line {a}",
        _E_TB_GRID: lambda: f"thread block {a},{b},{c} is outside the grid ({gx},{gy},{gz})",
        _E_TB_DUP: lambda: f"thread block {a},{b},{c} appears twice",
        _E_NO_TB: lambda: f"{line!r} before the 'thread block = <x>,<y>,<z>' line of its block",
        _E_BAD_WARP: lambda: f"expected 'warp = <n>', not {line!r}",
        _E_WARP_RANGE: lambda: (f"warp {a} is outside 0..{wpc - 1} (blocks of "
                                f"{hdr.block[0] * hdr.block[1] * hdr.block[2]} threads have "
                                f"{wpc} warps)"),
        _E_WARP_DUP: lambda: f"warp {a} of thread block {tb_of(b)} appears twice",
        _E_BAD_INSTS: lambda: f"expected 'insts = <n>', not {line!r}",
        _E_INSTS_NO_WARP: lambda: "'insts' line without a 'warp = <n>' line before it",
        _E_INSTS_TWICE: lambda: f"second 'insts' line for warp {a} (the first is on line {b})",
        _E_NO_INSTS: lambda: f"warp {a} has no 'insts = <n>' line",
        _E_TOO_FEW: lambda: f"'insts = {a}' but {b} instruction line{'s' if b != 1 else ''} follow",
        _E_TOO_MANY: lambda: f"more instruction lines than the 'insts = {a}' on line {b}",
        _E_INST_NO_WARP: lambda: f"instruction line {line!r} before any 'warp = <n>' line",
        _E_INST_NO_INSTS: lambda: f"instruction line before the 'insts = <n>' line of warp {a}",
        _E_MISSING: lambda: f"the line ends before the {field} field",
        _E_NOT_HEX: lambda: f"{field} {tok!r} is not a hexadecimal number",
        _E_NOT_DEC: lambda: f"{field} {tok!r} is not a decimal integer",
        _E_RANGE: lambda: f"{field} {tok!r} does not fit in 32 bits",
        _E_NEGATIVE: lambda: f"{field} {tok!r} is negative",
        _E_MODE: lambda: f"address mode {a} is not 0, 1 or 2",
        _E_ADDR_COUNT: addr_count,
        _E_STRIDE_GAPS: lambda: (f"address mode 1 (base_stride) needs contiguous active lanes, "
                                 f"but mask {b:08x} has gaps"),
        _E_WIDTH: lambda: f"opcode {tok!r} gives an access width of {a} bytes, not 1 to 255",
        _E_NO_ADDR: lambda: f"{tok!r} is a memory instruction but has mem_width 0 (no addresses)",
        _E_REG: lambda: f"{field} {tok!r} is not a register R0..R{N_REGS - 1}",
        _E_REG_COUNT: lambda: f"{field} {tok!r} is more than {MAX_REG_LIST}",
        _E_ADDR_RANGE: lambda: (f"the address of lane {a} is outside 0..{MAX_ADDRESS - 1:#x} (or wraps "
                                f"around 64 bits)"),
    }
    return f"{path}:{int(st[_S_ERR_LINE])}: {messages[int(st[_S_ERR])]()}"


class _Rows:
    """Output arrays of the scanner, and their conversion to INST_DTYPE rows a batch at a time."""

    def __init__(self, dx2: int) -> None:
        self.dx2 = dx2
        self.cta = np.zeros(_BATCH, np.int32)
        self.warp = np.zeros(_BATCH, np.int32)
        self.pc = np.zeros(_BATCH, np.uint32)
        self.op = np.zeros(_BATCH, np.uint8)
        self.space = np.zeros(_BATCH, np.uint8)
        self.width = np.zeros(_BATCH, np.uint8)
        self.gap = np.zeros(_BATCH, np.uint32)
        self.mask = np.zeros(_BATCH, np.uint32)
        self.lanes = np.zeros((_BATCH, WARP_SIZE), np.int64)
        self.use = np.zeros(_BATCH, np.int64)
        self.rows: list[np.ndarray] = []
        self.uses: list[np.ndarray] = []
        self.explicit: list[np.ndarray] = []
        self.n_explicit = 0
        self.n_rows = 0
        # The open warp's registers still waiting for a memory row, and consumers found for
        # rows of earlier batches (``_scan``).
        self.reg_row = np.full(N_REGS, -1, np.int64)
        self.reg_pos = np.zeros(N_REGS, np.int64)
        self.patches = np.zeros((_PATCHES + 1, 2), np.int64)
        self.patched: list[np.ndarray] = []

    def outputs(self) -> tuple:
        self.patches[0, 0] = 0
        return (self.cta, self.warp, self.pc, self.op, self.space, self.width, self.gap,
                self.mask, self.lanes, self.use, self.n_rows, self.reg_row, self.reg_pos, self.patches)

    def consumers(self) -> np.ndarray:
        """Every row's consumer distance (``KernelTrace.consumers``), in scan order."""
        use = np.concatenate(self.uses) if self.uses else np.zeros(0, np.int64)
        for patch in self.patched:
            for r, d in patch:
                if use[r] < 0:  # the first consumer found counts
                    use[r] = d
        return use

    def take(self, n: int) -> None:
        """Convert the first ``n`` scanned rows: affine form where it fits, else explicit lanes."""
        lanes, masks = self.lanes[:n], self.mask[:n]
        _extend_inactive(lanes, masks)
        rows = np.zeros(n, dtype=INST_DTYPE)
        for name in ("cta", "warp", "pc", "op", "space", "width", "gap", "mask"):
            rows[name] = getattr(self, name)[:n]
        explicit = encode_lanes(rows, lanes, masks, self.dx2, self.n_explicit)
        if len(explicit):
            self.explicit.append(explicit)
            self.n_explicit += len(explicit)
        self.rows.append(rows)
        self.uses.append(self.use[:n].copy())
        self.n_rows += n

    def take_patches(self) -> None:
        """Keep the consumers this scanner call found for rows of earlier batches."""
        k = int(self.patches[0, 0])
        if k:
            self.patched.append(self.patches[1:k + 1].copy())


def _import_kernel(path: Path) -> tuple[KernelTrace, dict]:
    """Read one ``.traceg`` file; returns the kernel and counts of what its lines became."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such kernel trace file")
    try:
        with _open(path) as f:
            return _import_open(f, path)
    except (OSError, EOFError, lzma.LZMAError) as e:
        raise InputError(f"{path}: cannot read the trace ({e})") from None


def _import_open(f, path: Path) -> tuple[KernelTrace, dict]:
    hdr, line_no, first, eof = _read_header(f, path)
    for key, value in (("grid dim", hdr.grid), ("block dim", hdr.block),
                       ("accelsim tracer version", hdr.version)):
        if value is None:
            raise InputError(f"{path}: the header has no '-{key}' line")
    if hdr.version not in SUPPORTED_VERSIONS:
        raise InputError(f"{path}: Accel-Sim tracer version {hdr.version} is not supported "
                         f"(versions {SUPPORTED_VERSIONS[0]} to {SUPPORTED_VERSIONS[-1]} are)")
    hdr.grid, hdr.block = check_launch(hdr.grid, hdr.block, f"{path}: header",
                                         ("-grid dim", "-block dim"))
    gx, gy, gz = hdr.grid
    n_ctas = gx * gy * gz
    wpc = -(-(hdr.block[0] * hdr.block[1] * hdr.block[2]) // WARP_SIZE)
    out = _Rows(affine_dx2(hdr.block[0]))
    st = np.zeros(_S_SIZE, np.int64)
    st[_S_LINE] = line_no
    st[_S_CTA] = st[_S_WARP] = -1
    counts = np.zeros(4, np.int64)
    cta_seen = np.zeros(n_ctas, np.bool_)
    warp_seen = np.zeros(n_ctas * wpc, np.bool_)
    tail = np.zeros(n_ctas * wpc, np.uint32)
    buf, pos = np.frombuffer(first, np.uint8).copy(), 0
    while True:
        pos, n, status = _scan(buf, pos, eof, st, counts, gx, gy, gz, wpc, hdr.lineinfo,
                               int(hdr.version >= 5), np.uint64(hdr.shmem_base),
                               np.uint64(hdr.local_base), cta_seen, warp_seen, tail,
                               *out.outputs())
        if status == _ERROR:
            raise InputError(_message(st, buf, path, hdr, wpc))
        out.take_patches()
        if n:
            out.take(n)
        if status == _FULL:
            continue
        if eof:
            break
        if buf.size - pos > MAX_LINE:
            raise InputError(f"{path}:{int(st[_S_LINE]) + 1}: the line is longer than {MAX_LINE:,} bytes")
        more = f.read(_CHUNK)
        eof = not more
        buf, pos = np.concatenate((buf[pos:], np.frombuffer(more, np.uint8))), 0
    if st[_S_IN_TB]:
        raise InputError(f"{path}:{int(st[_S_LINE])}: the file ends inside the thread block "
                         f"opened on line {int(st[_S_TB_LINE])} (no #END_TB)")

    rows = np.concatenate(out.rows) if out.rows else np.zeros(0, INST_DTYPE)
    consumers = out.consumers()
    gid = rows["cta"].astype(np.int64) * wpc + rows["warp"]
    if np.any(np.diff(gid) < 0):  # blocks listed out of order: keep program order per warp
        order = np.argsort(gid, kind="stable")
        rows, consumers = rows[order], consumers[order]
    explicit = (np.concatenate(out.explicit) if out.explicit
                else np.zeros((0, WARP_SIZE), np.uint64))
    kernel = KernelTrace(
        name=hdr.name or path.name.split(".")[0],
        grid=hdr.grid,
        block=hdr.block,
        insts=rows,
        lane_addrs=explicit,
        tail=tail,
        shared_bytes=hdr.shmem,
        regs_per_thread=hdr.nregs,
        consumers=consumers,
    )
    memory = rows["op"] != Op.BARRIER
    stats = {
        "file": path.name,
        "kernel_id": hdr.kernel_id,
        "tracer_version": hdr.version,
        "instructions": kernel.n_instructions,
        "rows": int(rows.size),
        "barrier_rows": int(np.count_nonzero(~memory)),
        **{f"{s.name.lower()}_rows": int(np.count_nonzero(memory & (rows["space"] == s)))
           for s in (Space.GLOBAL, Space.SHARED, Space.LOCAL, Space.CONST, Space.TEXTURE)},
        "compute": int(counts[_C_COMPUTE]),
        "masked_off": int(counts[_C_MASKED]),
        "unaddressed_memory": int(counts[_C_UNADDRESSED]),
        "addressed_other": int(counts[_C_UNCLASSIFIED]),
    }
    return kernel, stats


def read_kernel_trace(path: str | os.PathLike) -> KernelTrace:
    """Read one Accel-Sim ``kernel-*.traceg`` (or ``.traceg.xz``) file.

    Parameters
    ----------
    path : path-like
        The trace file, of tracer version 3, 4 or 5.

    Returns
    -------
    KernelTrace
        Memory and barrier instructions as rows in ``(cta, warp)`` and program
        order; every other instruction counted in ``gap``/``tail``.

    Raises
    ------
    InputError
        For a missing or unreadable file, an unsupported version or any
        malformed line, naming the file and line.
    """
    return _import_kernel(Path(path))[0]


def read_accelsim(path: str | os.PathLike) -> Workload:
    """Read the kernels listed in an Accel-Sim ``kernelslist.g``, in order.

    Parameters
    ----------
    path : path-like
        The ``kernelslist.g`` file, or the directory that holds it. Its
        ``MemcpyHtoD``/``MemcpyDtoH``/``cudaMalloc`` command lines are skipped.

    Returns
    -------
    Workload
        Named after the trace directory (its parent when the directory is
        called ``traces``); ``source`` is the list file and
        ``params["accelsim"]`` holds, per kernel, counts of what its lines
        became (rows per space, compute, masked-off, ...).

    Raises
    ------
    InputError
        For a missing list or listed file, a line of the list that is neither
        a kernel file nor a command, or any error of :func:`read_kernel_trace`.
    """
    path = Path(path)
    listing = path / "kernelslist.g" if path.is_dir() else path
    if not listing.is_file():
        raise InputError(f"{listing}: no such kernel list (expected a kernelslist.g file or "
                         f"the directory that holds one)")
    kernels, stats = [], []
    with open(listing, encoding="utf-8", errors="replace") as f:
        for line_no, line in enumerate(f, start=1):
            entry = line.strip()
            if not entry:
                continue
            if entry.startswith("kernel"):
                if len(kernels) == MAX_KERNELS:
                    raise InputError(f"{listing}:{line_no}: more than {MAX_KERNELS:,} kernels")
                trace = listing.parent / entry
                if not trace.is_file():
                    raise InputError(f"{listing}:{line_no}: kernel trace file {entry!r} does not "
                                     f"exist in {listing.parent}")
                kernel, kstats = _import_kernel(trace)
                kernels.append(kernel)
                stats.append(kstats)
            elif not re.match(r"(Memcpy\w*|cudaMalloc\w*),", entry):
                raise InputError(f"{listing}:{line_no}: {entry[:60]!r} is neither a kernel trace "
                                 f"file (kernel-<n>.traceg) nor a MemcpyHtoD/cudaMalloc command")
    if not kernels:
        raise InputError(f"{listing}: lists no kernel trace files")
    folder = listing.parent.resolve()
    name = folder.parent.name if folder.name == "traces" and folder.parent.name else folder.name
    return Workload(
        name=f"accelsim/{name}",
        kernels=kernels,
        params={"importer": "accelsim", "accelsim": stats},
        source=str(listing),
    )
