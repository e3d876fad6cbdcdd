"""ciao18 PVC: Mars PageViewCount, two MapReduce jobs over a generated web log.

Follows ``sample_apps/PageViewCount/{main.cu, map.cu, compare.cu, reduce.cu,
global.h}`` and ``sample_apps/BIN_TMPL/GenWebLogSrc/main.c`` of
``wenbinf/Mars`` at f47db01, with the framework in :mod:`golden.workloads._mars`.

The log has one entry per line, ``Gen data N count``'s format::

    http://www.abcdefg.com/<rand() % 1024>.html\\t<ip: 4 x rand() % 256>\\t<rand() % 1000>\\n

drawn here from ``seed``. ``main.cu`` makes one record per line (key
``{file_buf, entry_offset, entry_hash}``, value ``{entry_size, phase}``)
and runs ``MapReduce`` twice:

1. ``MAP_REDUCE``, phase 0: ``map`` hashes the whole entry
   (``hash_func``, byte by byte) into the key and emits key and value; the
   group phase sorts by that hash, then the entry's bytes (``compare``), so
   equal entries meet; ``reduce`` sets ``phase = 1`` and emits each distinct
   entry once.
2. ``MAP_GROUP`` on those records, phase 1: ``map`` scans the URL up to the
   tab (writing ``'\\0'`` there and after the IP), hashes the URL and emits
   the key with the IP's offset; the group phase sorts by URL.

ciao18 Table II gives 13 MB of input (the run script's 1,000,000 entries are
about 54 MB): :data:`LINES` entries make the log plus the Mars input records
(40 bytes an entry) that size (docs/workloads/ciao18.md).
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import Op, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._mars import (
    OUTPUT_BUF,
    Emitter,
    GroupPhase,
    Groups,
    MapPhase,
    ReducePhase,
    Strings,
    memory_after,
    sequence,
)
from golden.workloads.ciao18_regs import MARS_REGS

__all__ = ["LINES", "build", "make_log"]

#: Log entries at scale 1: 50.1 bytes an entry on average plus 40 bytes of records is 13 MB.
LINES = 144_300
#: sizeof(PVC_KEY_T) = {char*, int, int}, sizeof(PVC_VAL_T) = {int, int}.
KEY_BYTES, VAL_BYTES = 16, 8
_BUF, _OFF, _HASH = 0, 8, 12
_SIZE, _PHASE = 0, 4
_GL = Space.GLOBAL

SOURCE = ("Mars (wenbinf/Mars) sample_apps/PageViewCount/main.cu, map.cu, compare.cu, reduce.cu, "
          "BIN_TMPL/GenWebLogSrc/main.c; MarsLib.cu, MarsScan.cu, MarsSort.cu")


def make_log(lines: int, seed: int) -> tuple[bytes, np.ndarray, np.ndarray, np.ndarray]:
    """The log text, each entry's start, its URL's length and its IP's length (no tabs)."""
    rng = np.random.default_rng(seed)
    page = rng.integers(0, 1024, lines)
    ip = rng.integers(0, 256, (lines, 4))
    num = rng.integers(0, 1000, lines)
    urls = [f"http://www.abcdefg.com/{p}.html" for p in page]
    ips = [f"{a}.{b}.{c}.{d}" for a, b, c, d in ip]
    entries = [f"{u}\t{i}\t{n}\n" for u, i, n in zip(urls, ips, num, strict=True)]
    size = np.array([len(e) for e in entries], np.int64)
    start = np.concatenate(([0], np.cumsum(size)[:-1]))
    return ("".join(entries).encode(), start, np.array([len(u) for u in urls], np.int64),
            np.array([len(i) for i in ips], np.int64))


def _hash_loop(kb: KernelBuilder, pc, live: np.ndarray, base: np.ndarray, n: np.ndarray) -> None:
    """``hash_func(str, len)``: ``len`` one-byte loads, 4 compute instructions a trip."""
    i = np.arange(int(n[live].max(initial=0)))[:, None]
    kb.sequence(Op.LOAD, pc("ld_hash_byte"), base[None, :] + i, active=(i < n[None, :]) & live,
                widths=1, gaps=4)


def _hash_compare(strings: Strings, hashes: np.ndarray, tag: np.ndarray, where: np.ndarray):
    """compare.cu: ``entry_hash`` first, then the entries' bytes (string ``i`` at ``where[i]``)."""
    def compare(kb: KernelBuilder, pc, on, ra, rb, addr_a, addr_b) -> np.ndarray:
        sa, sb = tag[ra], tag[rb]
        sequence(kb, [(Op.LOAD, pc("cmp_ld_hash_a"), addr_a + _HASH, 4, _GL, 0),
                      (Op.LOAD, pc("cmp_ld_hash_b"), addr_b + _HASH, 4, _GL, 0)], on)
        kb.compute(4, active=on)
        ha, hb = hashes[sa], hashes[sb]
        same = on & (ha == hb)
        sequence(kb, [(Op.LOAD, pc("cmp_ld_buf_a"), addr_a + _BUF, 8, _GL, 0),
                      (Op.LOAD, pc("cmp_ld_off_a"), addr_a + _OFF, 4, _GL, 0),
                      (Op.LOAD, pc("cmp_ld_buf_b"), addr_b + _BUF, 8, _GL, 0),
                      (Op.LOAD, pc("cmp_ld_off_b"), addr_b + _OFF, 4, _GL, 2)], same)
        by_str = strings.compare(kb, pc, same, sa, sb, where[sa], where[sb])
        return np.where(same, by_str, np.sign(ha.astype(np.int64) - hb))
    return compare


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """PageViewCount on ``144,300 * scale`` log entries (at least 64)."""
    lines = scaled(LINES, scale, minimum=64)
    text, start, url_len, ip_len = make_log(lines, seed)
    size = np.diff(np.append(start, len(text)))  # entry_size: the line with its newline
    mem = DeviceMemory()
    d_file = mem.alloc("d_filebuf", len(text) + 1)  # fileSize = ftell + 1
    regs = MARS_REGS["pvc"]
    pcs = PCs()

    # -- job 1: MAP_REDUCE, phase 0 --------------------------------------------------------
    job = memory_after(mem)
    phase = MapPhase(job, pcs, lines, KEY_BYTES, VAL_BYTES, KEY_BYTES, VAL_BYTES, regs)

    def count0(kb, pcs, prefix, tid, live, em: Emitter) -> None:
        kb.load(pcs(f"{prefix}:ld_phase"), phase.val_addr(tid) + _PHASE, active=live)
        kb.compute(2, active=live)
        em.emit(live)

    def map0(kb, pcs, prefix, tid, live, em: Emitter) -> None:
        def pc(label):
            return pcs(f"{prefix}:{label}")
        r = np.where(live, tid, 0)
        key, val = phase.key_addr(r), phase.val_addr(r)
        sequence(kb, [(Op.LOAD, pc("ld_file_buf"), key + _BUF, 8, _GL, 0),
                      (Op.LOAD, pc("ld_entry_offset"), key + _OFF, 4, _GL, 0),
                      (Op.LOAD, pc("ld_phase"), val + _PHASE, 4, _GL, 2),
                      (Op.LOAD, pc("ld_entry_size"), val + _SIZE, 4, _GL, 2)], live)
        _hash_loop(kb, pc, live, d_file + start[r], np.where(live, size[r], 0))
        kb.compute(1, active=live)
        kb.store(pc("st_entry_hash"), key + _HASH, active=live)
        em.emit(live, key, val, key_space=_GL, val_space=_GL, tag=r)

    kernels, _ = phase.kernels(count0, map0)
    # Entries as compare() sees them: the line up to its newline, which main.cu made '\0'.
    entries = Strings([text[s:s + n - 1] for s, n in zip(start, size, strict=True)])
    compare = _hash_compare(entries, entries.hash(size), phase.inter.tag, d_file + start)
    more, groups = GroupPhase(job, pcs, phase.inter, compare, regs).kernels()
    kernels += more

    def count1(kb, pcs, prefix, tid, live, em: Emitter, g: Groups) -> None:
        em.emit(live)  # EMIT_COUNT_FUNC(sizeof(PVC_KEY_T), sizeof(PVC_VAL_T))

    def reduce1(kb, pcs, prefix, tid, live, em: Emitter, g: Groups) -> None:
        t = np.where(live, tid, 0)
        first = g.start[np.minimum(t, len(g.start) - 1)]
        s = g.records
        key, val = s.keys + s.key_off[first], s.vals + s.val_off[first]
        kb.compute(1, active=live)
        kb.store(pcs(f"{prefix}:st_phase"), val + _PHASE, active=live)  # pVal->phase = 1
        em.emit(live, key, val, key_space=_GL, val_space=_GL, tag=s.tag[first])

    more, out = ReducePhase(job, pcs, groups, KEY_BYTES, VAL_BYTES, regs).kernels(count1, reduce1)
    kernels += more

    # -- job 2: MAP_GROUP, phase 1, on the reduce output ---------------------------------------
    job = memory_after(mem)
    line_of = out.tag  # the log line of every record
    phase = MapPhase(job, pcs, len(line_of), KEY_BYTES, VAL_BYTES, KEY_BYTES, 4, regs)

    def count2(kb, pcs, prefix, tid, live, em: Emitter) -> None:
        kb.load(pcs(f"{prefix}:ld_phase"), phase.val_addr(tid) + _PHASE, active=live)
        kb.compute(2, active=live)
        em.emit(live)

    def map2(kb, pcs, prefix, tid, live, em: Emitter) -> None:
        def pc(label):
            return pcs(f"{prefix}:{label}")
        r = np.where(live, tid, 0)
        ln = line_of[r]
        key, val = phase.key_addr(r), phase.val_addr(r)
        entry = d_file + start[ln]
        sequence(kb, [(Op.LOAD, pc("ld_file_buf"), key + _BUF, 8, _GL, 0),
                      (Op.LOAD, pc("ld_entry_offset"), key + _OFF, 4, _GL, 0),
                      (Op.LOAD, pc("ld_phase"), val + _PHASE, 4, _GL, 2)], live)
        kb.compute(3, active=live)
        u = np.where(live, url_len[ln], 0)
        i = np.arange(int(u.max(initial=0)) + 1)[:, None]  # for (; *p != '\t'; p++, url_size++)
        kb.sequence(Op.LOAD, pc("ld_url_byte"), entry[None, :] + i, active=(i <= u[None, :]) & live,
                    widths=1, gaps=3)
        kb.store(pc("st_tab1"), entry + u, active=live, width=1)
        kb.compute(2, active=live)
        v = np.where(live, ip_len[ln], 0)
        i = np.arange(int(v.max(initial=0)) + 2)[:, None]  # for (; *p != '\t'; p++) from the '\0'
        kb.sequence(Op.LOAD, pc("ld_ip_byte"), (entry + u)[None, :] + i,
                    active=(i <= v[None, :] + 1) & live, widths=1, gaps=2)
        kb.store(pc("st_tab2"), entry + u + v + 1, active=live, width=1)
        slot = OUTPUT_BUF * kb.tx
        kb.compute(1, active=live)
        kb.store(pc("st_o_ipoffset"), slot, active=live, space=Space.SHARED)
        _hash_loop(kb, pc, live, entry, u + 1)
        kb.compute(1, active=live)
        kb.store(pc("st_entry_hash"), key + _HASH, active=live)
        em.emit(live, key, slot, val_space=Space.SHARED, key_space=_GL, tag=ln)

    more, _ = phase.kernels(count2, map2)
    kernels += more
    urls = Strings([text[s:s + n] for s, n in zip(start, url_len, strict=True)])
    compare = _hash_compare(urls, urls.hash(), phase.inter.tag, d_file + start)
    more, groups = GroupPhase(job, pcs, phase.inter, compare, regs).kernels()
    kernels += more
    return Workload(name="ciao18/pvc", kernels=kernels,
                    params={"lines": lines, "file_bytes": len(text), "entries_reduced": len(line_of),
                            "urls": len(groups.start), "arrays": mem.sizes(),
                            "input_bytes": len(text) + 1 + lines * (KEY_BYTES + VAL_BYTES + 16)},
                    source=SOURCE)


register_workload("ciao18", "pvc", build, source=SOURCE, version=1,
                  description="Mars PageViewCount: 144,300-entry web log, MAP_REDUCE then MAP_GROUP",
                  apki=64, size="13MB", N=LINES, n_warp=48, f_smem=0.33, barriers=True, cls="SWS")
