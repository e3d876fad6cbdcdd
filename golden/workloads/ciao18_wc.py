"""ciao18 WC: Mars WordCount, map (split words) and group (sort words) over an 88 KB text.

Follows ``sample_apps/WordCount/{main.cu, map.cu, compare.cu, global.h}`` of
``wenbinf/Mars`` at f47db01 and the framework in :mod:`golden.workloads._mars`.
The run script (``WC_BIN/run.sh``) concatenates 4 copies of the 21,877-byte
``sample`` (ciao18 Table II: 88 KB). ``main.cu`` upper-cases the file and
cuts records of 2048 bytes extended to the end of the word (the byte after
it becomes ``'\\0'``); ``MAP_GROUP``. ``map_count`` and ``map`` walk the
record::

    while (1) {
        for (; *p >= 'A' && *p <= 'Z'; p++, lsize++);        // the word
        *p = '\\0'; ++p; ++lsize; wsize = (int)(p - start);
        *o_val = wsize;                                      // map only (shared memory)
        if (wsize > 6) EMIT(start, o_val, wsize, sizeof(int));
        for (; (lsize < line_size) && (*p < 'A' || *p > 'Z'); p++, lsize++);
        if (lsize >= line_size) break;
        start = p;
    }

so words of 6 letters or more are emitted, each with its terminator, from the
file (global memory). ``compare`` walks two words byte by byte.

Input: ``sample`` is not part of gpucache; one copy is generated from
``seed`` with the sample's word-length and separator-length histograms
(measured, :data:`WORD_LENGTHS`, :data:`SEPARATORS`); a word is new with
probability :data:`NEW_WORD`, otherwise an earlier word of its length
(docs/workloads/ciao18.md). Warps run the loops in lock step.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import Op, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._mars import OUTPUT_BUF, Emitter, GroupPhase, MapPhase, Strings, sequence
from golden.workloads.ciao18_regs import MARS_REGS

__all__ = ["COPIES", "SAMPLE_BYTES", "build", "make_sample", "records_of", "walk"]

#: ``sample``'s size and the run script's copies.
SAMPLE_BYTES, COPIES = 21_877, 4
#: main.cu's ``blockSize``.
RECORD_BYTES = 2048
#: Words of each length 1..14 in ``sample`` (upper-cased, maximal runs of A-Z).
WORD_LENGTHS = (278, 591, 661, 557, 375, 249, 293, 175, 186, 50, 35, 25, 11, 2)
#: Runs of non-letters of each length 1..10 between them.
SEPARATORS = (2591, 384, 185, 74, 62, 57, 28, 24, 25, 13)
#: Probability that a generated word is new (``sample``: 710 distinct of 3,488 words).
NEW_WORD = 0.2
#: sizeof(WC_KEY_T) (a pointer), sizeof(WC_VAL_T) (two ints, __align__(16)).
KEY_BYTES, VAL_BYTES = 8, 16

SOURCE = ("Mars (wenbinf/Mars) sample_apps/WordCount/main.cu, map.cu, compare.cu; "
          "MarsLib.cu, MarsScan.cu, MarsSort.cu")


def make_sample(size: int, seed: int) -> bytes:
    """An upper-case text of ``size`` bytes: words and runs of spaces and newlines."""
    rng = np.random.default_rng(seed)
    wl = np.array(WORD_LENGTHS, float) / sum(WORD_LENGTHS)
    sl = np.array(SEPARATORS, float) / sum(SEPARATORS)
    vocab: dict[int, list[bytes]] = {}
    out = bytearray()
    while len(out) < size:
        n = int(rng.choice(len(wl), p=wl)) + 1
        known = vocab.setdefault(n, [])
        if known and rng.random() >= NEW_WORD:
            word = known[int(rng.integers(len(known)))]
        else:
            word = bytes(rng.integers(ord("A"), ord("Z") + 1, n).astype(np.uint8))
            known.append(word)
        sep = int(rng.choice(len(sl), p=sl)) + 1
        out += word + bytes(np.where(rng.random(sep) < 0.125, ord("\n"), ord(" ")).astype(np.uint8))
    return bytes(out[:size])


def _is_letter(buf: np.ndarray) -> np.ndarray:
    return (buf >= ord("A")) & (buf <= ord("Z"))


def records_of(buf: np.ndarray) -> list[tuple[int, int]]:
    """``(line_offset, line_size)`` of every record, cut as main.cu does (``buf``: the
    file's ``fileSize`` bytes, its last one ``'\\0'``; modified as main.cu does)."""
    size = len(buf)
    letter = _is_letter(buf)
    out, offset = [], 0
    while True:
        p = offset + min(RECORD_BYTES, size - offset)
        while p < size and letter[p]:
            p += 1
        if p < size and buf[p] != 0:
            buf[p] = 0
            out.append((offset, p + 1 - offset))
            offset = p + 1
        else:
            out.append((offset, size - offset))
            return out


def walk(buf: np.ndarray, offset: int, size: int) -> list[tuple[int, int, int]]:
    """The loop trips of one record: ``(start, end, sep_loads)`` per word, ``end`` the
    non-letter that stops it (written ``'\\0'``), ``sep_loads`` the separator loop's loads."""
    letter = _is_letter(buf)
    out, p, stop = [], offset, offset + size
    while True:
        q = p
        while letter[q]:
            q += 1
        r = q + 1
        while r < stop and not letter[r]:
            r += 1
        out.append((p, q, r - (q + 1) + (r < stop)))
        if r >= stop:
            return out
        p = r


def _map(file_base: int, trips: list[list[tuple[int, int, int]]], buf: np.ndarray, ids: dict,
         phase: MapPhase):
    """map_count and map for :class:`MapPhase` (``trips`` per record; ``ids``: word -> tag)."""
    n_rec = len(trips)
    depth = max(len(t) for t in trips)
    start = np.zeros((n_rec, depth), np.int64)
    end = np.zeros((n_rec, depth), np.int64)
    sep = np.zeros((n_rec, depth), np.int64)
    for r, t in enumerate(trips):
        start[r, :len(t)], end[r, :len(t)], sep[r, :len(t)] = zip(*t, strict=True)
    count = np.array([len(t) for t in trips])
    tags = {(s, e): ids[bytes(buf[s:e])] for t in trips for s, e, _ in t if e - s + 1 > 6}

    def fn(kb: KernelBuilder, pcs: PCs, prefix: str, tid, live, em: Emitter) -> None:
        def pc(label):
            return pcs(f"{prefix}:{label}")
        rec = np.where(live, tid, 0)
        sequence(kb, [(Op.LOAD, pc("ld_file"), phase.key_addr(rec), 8, Space.GLOBAL, 0),
                      (Op.LOAD, pc("ld_line_offset"), phase.val_addr(rec), 4, Space.GLOBAL, 0),
                      (Op.LOAD, pc("ld_line_size"), phase.val_addr(rec) + 4, 4, Space.GLOBAL, 0)],
                 live)
        kb.compute(6, active=live)
        slot = OUTPUT_BUF * kb.tx
        for i in range(depth):
            on = live & (i < count[rec])
            s, e, sp = start[rec, i], end[rec, i], sep[rec, i]
            j = np.arange(int((e - s)[on].max(initial=0)) + 1)[:, None]
            kb.sequence(Op.LOAD, pc("ld_letter"), file_base + s[None, :] + j,
                        active=on[None, :] & (j <= (e - s)[None, :]), widths=1, gaps=4)
            kb.store(pc("st_nul"), file_base + e, active=on, width=1)
            kb.compute(3, active=on)  # ++p, ++lsize, wsize
            wsize = e - s + 1
            if not em.counting:
                kb.store(pc("st_o_val"), slot, active=on, space=Space.SHARED)
            hit = on & (wsize > 6)
            kb.compute(1, active=on)
            if hit.any():
                tag = np.array([tags.get((a, b), 0) for a, b in zip(s, e, strict=True)])
                em.emit(hit, file_base + s, slot, key_size=wsize, key_space=Space.GLOBAL, tag=tag)
            j = np.arange(int(sp[on].max(initial=0)))[:, None]
            kb.sequence(Op.LOAD, pc("ld_sep"), file_base + e[None, :] + 1 + j,
                        active=on[None, :] & (j < sp[None, :]), widths=1, gaps=4)
            kb.compute(3, active=on)  # lsize < line_size; the break
    return fn


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """WordCount over 4 copies of a ``21,877 * scale``-byte generated sample (at least 512)."""
    sample = make_sample(scaled(SAMPLE_BYTES, scale, minimum=512), seed)
    text = sample * COPIES
    buf = np.frombuffer(text + b"\0", np.uint8).copy()  # fileSize = ftell + 1
    recs = records_of(buf)
    trips = [walk(buf, o, n) for o, n in recs]
    words = sorted({bytes(buf[s:e]) for t in trips for s, e, _ in t if e - s + 1 > 6})
    ids = {w: i for i, w in enumerate(words)}
    mem, pcs = DeviceMemory(), PCs()
    d_file = mem.alloc("d_filebuf", len(buf))
    regs = MARS_REGS["wc"]
    phase = MapPhase(mem, pcs, len(recs), KEY_BYTES, VAL_BYTES, 0, 4, regs)
    fn = _map(d_file, trips, buf, ids, phase)
    kernels, counts = phase.kernels(fn, fn)
    table = Strings(words)
    tag = phase.inter.tag

    def compare(kb: KernelBuilder, pc, on, ra, rb, addr_a, addr_b) -> np.ndarray:
        return table.compare(kb, pc, on, tag[ra], tag[rb], addr_a, addr_b, b_after_a=True)

    more, groups = GroupPhase(mem, pcs, phase.inter, compare, regs).kernels()
    return Workload(name="ciao18/wc", kernels=kernels + more,
                    params={"file_bytes": len(buf), "records": len(recs),
                            "emitted": int(counts.sum()), "words": len(words),
                            "arrays": mem.sizes(),
                            "input_bytes": len(buf) + len(recs) * (KEY_BYTES + VAL_BYTES + 16)},
                    source=SOURCE)


register_workload("ciao18", "wc", build, source=SOURCE, version=1,
                  description="Mars WordCount: 4 x 21,877-byte generated text, map and group (sort)",
                  apki=19, size="88KB", N=SAMPLE_BYTES, n_warp=48, f_smem=0.01, barriers=True,
                  cls="SWS")
