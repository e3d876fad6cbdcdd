"""ciao18 SM: Mars StringMatch, the framework's map phase over a 1 MB word list.

Follows ``sample_apps/StringMatch/{main.cu,map.cu,global.h}`` and the
framework in :mod:`golden.workloads._mars` (``wenbinf/Mars`` at f47db01).
The run script (``SM_BIN/run.sh``) concatenates 1024 copies of the 1 KB
``sample.txt`` (ciao18 Table II: 1 MB) and searches for ``org``;
StringMatch is ``MAP_ONLY``: no group or reduce phase.

``main.cu`` cuts the file into records of 1024 bytes extended to the end of
the line, each record a key ``{ptrFile, ptrKeyword}`` and a value
``{keyword_size, linebuf_offset, linebuf_size}`` (16 B each). The file holds
one word per line. ``map_count`` and ``map`` walk the record::

    while (1) {
        for (; *p != '\\n'; ++p, ++cur);          // scan a word, byte by byte
        ++p; wordSize = p - start;
        if (cur >= bufSize) break;
        if (wordSize == keywordSize) {          // strlen("org") + 1
            for (; *s == *k && *k != '\\0'; s++, k++);
            if (*s == '\\n') EMIT(...);          // map: offset and size via shared memory
        }
        start = p;
    }

``cur`` counts the word characters but not the newlines, so each thread
reads on past its record's end by as many characters as the record has
words, into the next record (which its own thread also reads); the emulation
keeps that, and stops the last record's thread at the end of the file.

Input: the sample text is not part of gpucache, so the word list is drawn
from ``seed``: words of 2 to 10 random lowercase letters (uniform), each word
replaced by the keyword with probability :data:`MATCH_RATE`
(docs/workloads/ciao18.md). Warps execute the loops in lock step: the scan
loop of word ``i`` runs as long as the longest ``i``-th word among the
warp's threads, with the others masked (immediate post-dominator
reconvergence, as GPGPU-Sim).
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._mars import OUTPUT_BUF, Emitter, MapPhase
from golden.workloads.ciao18_regs import REGS

__all__ = ["FILE_BYTES", "KEYWORD", "MATCH_RATE", "RECORD_BYTES", "build", "make_text",
           "records_of"]

#: File size at scale 1 (1024 copies of the 1 KB sample; ciao18 Table II: 1 MB).
FILE_BYTES = 1 << 20
#: The run script's keyword.
KEYWORD = b"org"
#: Probability that a word of the generated text is the keyword (our choice).
MATCH_RATE = 1 / 32
#: main.cu's ``blockSize``: a record is 1024 bytes extended to the end of its line.
RECORD_BYTES = 1024

SOURCE = ("Mars (wenbinf/Mars) sample_apps/StringMatch/main.cu, map.cu; MarsLib.cu "
          "(MapperCount, Mapper), MarsScan.cu (prescan, uniformAdd)")


def make_text(size: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A one-word-per-line text of at most ``size`` bytes drawn from ``seed``.

    Returns the text's bytes, and the start and letter count of every word. The
    text ends with the newline of its last whole word.
    """
    rng = np.random.default_rng(seed)
    n = size // 2 + 1  # more words than fit
    length = rng.integers(2, 11, n)
    is_key = rng.random(n) < MATCH_RATE
    length[is_key] = len(KEYWORD)
    end = np.cumsum(length + 1)
    keep = end <= size
    length, is_key = length[keep], is_key[keep]
    start = np.concatenate(([0], np.cumsum(length + 1)[:-1]))
    text = rng.integers(ord("a"), ord("z") + 1, int(start[-1] + length[-1] + 1)).astype(np.uint8)
    text[start + length] = ord("\n")
    for j, c in enumerate(KEYWORD):
        text[start[is_key] + j] = c
    return text, start, length


def records_of(start: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First word and byte size of every record, cut as ``main.cu`` does."""
    file_size = int(start[-1] + length[-1] + 1)
    newline = start + length  # byte offset of each word's newline
    first, sizes = [], []
    offset, w = 0, 0
    while offset < file_size:
        first.append(w)
        if offset + RECORD_BYTES >= file_size:
            sizes.append(file_size - offset)
            break
        # p = offset + 1024, then on to the next newline (inclusive).
        w_end = int(np.searchsorted(newline, offset + RECORD_BYTES))
        end = int(newline[w_end]) + 1
        sizes.append(end - offset)
        offset, w = end, w_end + 1
    return np.array(first, np.int64), np.array(sizes, np.int64)


def _prefix_with_keyword(text: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Leading letters each word shares with the keyword (4 for the keyword itself: its
    newline against the keyword's terminating ``\\0`` ends the compare loop)."""
    kw = np.frombuffer(KEYWORD + b"\n", np.uint8)
    shared = np.zeros(len(start), np.int64)
    still = length == len(KEYWORD)
    for j in range(len(kw)):
        still &= text[np.minimum(start + j, len(text) - 1)] == kw[j]
        shared += still
    return shared


def _string_match(text, start, length, first, sizes, file_base, keyword):
    """The application's map function for :class:`MapPhase` (both passes)."""
    n_words = len(length)
    shared = _prefix_with_keyword(text, start, length)
    is_key = shared == len(KEYWORD) + 1
    # Words each record's thread scans: until its letter count reaches the record size
    # (the word that gets there is scanned, not compared), or the end of the file.
    csum = np.concatenate(([0], np.cumsum(length)))
    stop = np.searchsorted(csum, csum[first] + sizes, side="left")  # csum[stop] >= target
    n_scan = np.minimum(stop, n_words) - first
    last_compared = np.where(stop <= n_words, n_scan - 1, n_scan)  # break word excluded

    def map_fn(kb: KernelBuilder, pcs: PCs, prefix: str, tid, live, em: Emitter) -> None:
        n = kb.n_threads
        rec = np.where(live, tid, 0)
        nr = np.where(live, n_scan[rec], 0)
        comp = np.where(live, last_compared[rec], 0)
        w0 = np.where(live, first[rec], 0)

        def pc(label):
            return pcs(f"{prefix}:{label}")

        kb.load(pc("ld_key"), em.arrays["inputKeys"] + 16 * rec, active=live, width=16)
        kb.load(pc("ld_val"), em.arrays["inputVals"] + 16 * rec, active=live, width=16)
        kb.compute(6, active=live)  # buf, keyword, cur, p, start
        for i in range(int(nr.max(initial=0))):
            alive = i < nr
            w = np.minimum(w0 + i, n_words - 1)
            ln = np.where(alive, length[w], 0)
            base = file_base + start[w]
            for t in range(int(ln.max(initial=0)) + 1):  # letters, then the newline
                on = alive & (t <= ln)
                kb.compute(3, active=on)  # ++p, ++cur; compare and branch of the last trip
                kb.load(pc("ld_char"), base + t, active=on, width=1)
            kb.compute(4, active=alive)  # ++p, wordSize, cur >= bufSize, branch
            cmp = alive & (i < comp) & (ln == len(KEYWORD))
            if not cmp.any():
                continue
            hit = cmp & is_key[w]
            # Condition evaluations of the compare loop: up to the first mismatch, or 4 on a hit.
            evals = np.where(hit, len(KEYWORD) + 1, 1 + shared[w])
            for j in range(len(KEYWORD) + 1):
                on = cmp & (j < evals)
                kb.compute(2, active=on)
                kb.load(pc("ld_s"), base + j, active=on, width=1)
                kb.load(pc("ld_k"), np.full(n, keyword + j), active=on, width=1)
            kb.compute(2, active=cmp)  # *s == '\n' (s already loaded), branch
            if not hit.any():
                continue
            if em.counting:
                em.emit(hit)
            else:
                slot = OUTPUT_BUF * kb.tx  # GET_OUTPUT_BUF(0) of this thread
                kb.compute(2, active=hit)
                kb.store(pc("st_o_offset"), slot, active=hit, space=Space.SHARED)
                kb.store(pc("st_o_size"), slot + 4, active=hit, space=Space.SHARED)
                em.emit(hit, slot, slot + 4)
    return map_fn


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """StringMatch over a ``1 MiB * scale`` generated word list (at least 2 KiB)."""
    size = scaled(FILE_BYTES, scale, minimum=2 * RECORD_BYTES)
    text, start, length = make_text(size, seed)
    first, sizes = records_of(start, length)
    mem = DeviceMemory()
    file_bytes = len(text)
    d_file = mem.alloc("d_filebuf", file_bytes)
    d_keyword = mem.alloc("d_keyword", len(KEYWORD) + 1)
    phase = MapPhase(mem, PCs(), len(first), 16, 16, 4, 4,
                     {"MapperCount": REGS["MapperCount"], "Mapper": REGS["Mapper"]})
    fn = _string_match(text, start, length, first, sizes, d_file, d_keyword)
    kernels, counts = phase.kernels(fn, fn)
    return Workload(name="ciao18/sm", kernels=kernels,
                    params={"file_bytes": file_bytes, "records": len(first),
                            "words": len(length),
                            "emitted": int(counts.sum()), "arrays": mem.sizes(),
                            "input_bytes": file_bytes},
                    source=SOURCE)


register_workload("ciao18", "sm", build, source=SOURCE, version=2,
                  description="Mars StringMatch: map phase over a 1 MB word list, keyword 'org'",
                  apki=140, size="1MB", N=FILE_BYTES, n_warp=48, f_smem=0.01, barriers=True,
                  cls="SWS")
