"""ciao18 II: Mars InvertedIndex, map (find links in HTML) and group (sort URLs) over 28 MB.

Follows ``sample_apps/InvertedIndex/{main.cu, map.cu, compare.cu, global.h}``
of ``wenbinf/Mars`` at f47db01 and the framework in
:mod:`golden.workloads._mars`. The run script (``II_BIN/run.sh``) makes
three files of 1024 copies of ``sample/1.html``, ``2.html`` and ``3.html``
(20,338, 3,747 and 3,854 bytes: 28 MB, ciao18 Table II); ``main.cu`` copies
each to its own device buffer and cuts records of 1024 bytes extended to
the end of the line (the newline becomes ``'\\0'``); ``MAP_GROUP``.

``map_count`` and ``map`` run a state machine over the record's bytes,
one load a byte (``START -'<'-> IN_TAG -'a'-> IN_ATAG -"href"-> FOUND_HREF
-'"'-> START_LINK``); at a link they scan to the closing quote and emit.
``map`` also writes ``'\\0'`` over the quote, stores the link's offset and
``hash_func`` (a byte loop) in the record's key struct (global memory) and
emits that 16-byte struct with the 4-byte ``file_id`` of the value struct.
``compare`` (``__HASH__`` defined) orders by hash, then by the URL's bytes.

Input: the sample pages are not part of gpucache; three pages of those sizes
are generated from ``seed`` (:func:`make_page`): lines of words and tags
with the pages' link counts (39, 16, 0) and URL lengths, then repeated 1024
times as the run script does (docs/workloads/ciao18.md).
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import Op, Space, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._mars import Emitter, GroupPhase, MapPhase, Strings, sequence
from golden.workloads.ciao18_regs import MARS_REGS

__all__ = ["COPIES", "PAGES", "build", "make_page", "records_of", "trips_of"]

#: The sample pages: bytes and links (``<a href="...">``) of 1.html, 2.html, 3.html.
PAGES = ((20_338, 39), (3_747, 16), (3_854, 0))
#: The run script's copies of each page.
COPIES = 1024
#: main.cu's ``blockSize``.
RECORD_BYTES = 1024
#: sizeof(II_KEY_T) = {char*, int, int}; sizeof(II_VAL_T) = 3 ints.
KEY_BYTES, VAL_BYTES = 16, 12
_BUF, _URL_OFF, _URL_HASH = 0, 8, 12
_BLOCK_OFF, _BLOCK_SIZE, _FILE_ID = 0, 4, 8
#: Trip kinds of the state machine: a byte test, an ``href`` test, a link.
PLAIN, HREF, LINK = 0, 1, 2
_GL = Space.GLOBAL
_TAGS = (b"p", b"td", b"tr", b"br", b"b", b"i", b"font", b"div", b"span", b"li", b"img", b"table")

SOURCE = ("Mars (wenbinf/Mars) sample_apps/InvertedIndex/main.cu, map.cu, compare.cu; "
          "MarsLib.cu, MarsScan.cu, MarsSort.cu")


def make_page(size: int, links: int, rng: np.random.Generator) -> bytes:
    """An HTML-like page of ``size`` bytes: lines of about 52 bytes of words and tags,
    ``links`` of them ``<a href="URL">`` (URLs of 23 to 43 bytes, a tenth repeated)."""
    urls: list[bytes] = []
    lines, total = [], 0
    link_lines = set(rng.choice(max(1, size // 52), size=min(links, max(1, size // 52)),
                                replace=False).tolist()) if links else set()
    i = 0
    while total < size:
        parts = []
        if i in link_lines:
            if urls and rng.random() < 0.1:
                url = urls[int(rng.integers(len(urls)))]
            else:
                host = bytes(rng.integers(ord("a"), ord("z") + 1, int(rng.integers(4, 12))).astype(np.uint8))
                path = bytes(rng.integers(ord("a"), ord("z") + 1, int(rng.integers(4, 16))).astype(np.uint8))
                url = b"http://www." + host + b".com/" + path
                urls.append(url)
            parts.append(b'<a href="' + url + b'">')
        while sum(len(p) + 1 for p in parts) < 48:
            if rng.random() < 0.25:
                t = _TAGS[int(rng.integers(len(_TAGS)))]
                parts.append(b"<" + (b"/" if rng.random() < 0.4 else b"") + t + b">")
            else:
                n = int(rng.integers(2, 10))
                parts.append(bytes(rng.integers(ord("a"), ord("z") + 1, n).astype(np.uint8)))
        line = b" ".join(parts) + b"\n"
        lines.append(line)
        total += len(line)
        i += 1
    page = b"".join(lines)[:size]
    return page[:-1] + b"\n"


def records_of(size: int, newline: np.ndarray) -> list[tuple[int, int]]:
    """``(block_offset, block_size)`` of the records of a ``size``-byte buffer (its last
    byte ``'\\0'``) whose newlines are at ``newline`` (ascending)."""
    out, offset = [], 0
    while True:
        p = offset + min(RECORD_BYTES, size - offset)
        k = int(np.searchsorted(newline, p))
        if k < len(newline) and newline[k] < size - 1:
            end = int(newline[k]) + 1
            out.append((offset, end - offset))
            offset = end
        else:
            out.append((offset, size - offset))
            return out


_HREF = b"href\0"


def trips_of(buf: bytes, offset: int, size: int) -> list[tuple[int, int, int]]:
    """The state machine's loop trips over ``buf[offset:offset + size]``: ``(kind, j, n)``,
    ``n`` the ``href`` test's loads or the link's length."""
    START, IN_TAG, IN_ATAG, FOUND, START_LINK = range(5)
    out, state, j = [], START, 0
    while j < size:
        c = buf[offset + j]
        if state == START_LINK:
            n = buf.index(b'"', offset + j) - (offset + j)
            out.append((LINK, j, n))
            j += n
            state = START
        elif state == IN_ATAG and c == ord("h"):
            x = 0
            while x < 5 and _HREF[x] == buf[offset + j + x]:
                x += 1
            out.append((HREF, j, min(x + 1, 5)))
            if x < 5 and _HREF[x] == 0:
                state = FOUND
                j += 3
            else:
                state = START
        else:
            out.append((PLAIN, j, 0))
            if state == START:
                state = IN_TAG if c == ord("<") else START
            elif state == IN_TAG:
                state = IN_ATAG if c == ord("a") else (IN_TAG if c == ord(" ") else START)
            elif state == IN_ATAG:
                state = IN_ATAG if c == ord(" ") else START
            else:  # FOUND_HREF
                state = FOUND if c in b" =" else (START_LINK if c == ord('"') else START)
        j += 1
    return out


class _Trips:
    """Every record's trips as ``[record, trip]`` arrays (kind -1 past the end)."""

    def __init__(self, per_record: list[np.ndarray]) -> None:
        depth = max(len(t) for t in per_record)
        self.kind = np.full((len(per_record), depth), -1, np.int8)
        self.j = np.zeros((len(per_record), depth), np.int64)
        self.n = np.zeros((len(per_record), depth), np.int64)
        for r, t in enumerate(per_record):  # t: int64[trips, 3], shared by alike records
            self.kind[r, :len(t)], self.j[r, :len(t)], self.n[r, :len(t)] = t[:, 0], t[:, 1], t[:, 2]


def _map_fn(phase: MapPhase, trips: _Trips, base: np.ndarray, url_of: dict, hashes: np.ndarray):
    """map_count and map; ``base``: record -> its block's device address."""
    def fn(kb: KernelBuilder, pcs: PCs, prefix: str, tid, live, em: Emitter) -> None:
        def pc(label):
            return pcs(f"{prefix}:{label}")
        rec = np.where(live, tid, 0)
        key, val = phase.key_addr(rec), phase.val_addr(rec)
        sequence(kb, [(Op.LOAD, pc("ld_block_offset"), val + _BLOCK_OFF, 4, _GL, 0),
                      (Op.LOAD, pc("ld_file_buf"), key + _BUF, 8, _GL, 0),
                      (Op.LOAD, pc("ld_block_size"), val + _BLOCK_SIZE, 4, _GL, 1)], live)
        kb.compute(4, active=live)
        buf = base[rec]
        lanes_all = kb.gtid
        for i in range(trips.kind.shape[1]):
            kind = np.where(live, trips.kind[rec, i], -1)
            alive = kind >= 0
            if not alive.any():
                break
            j, n = trips.j[rec, i], trips.n[rec, i]
            kb.compute(3, active=alive)  # j < size, switch
            kb.load(pc("ld_byte"), buf + j, active=alive & (kind != LINK), width=1)
            kb.compute(2, active=alive & (kind != LINK))
            href = np.flatnonzero(kind == HREF)
            if href.size:
                x = np.arange(5)[:, None]
                kb.sequence(Op.LOAD, pc("ld_href"), (buf + j)[href][None, :] + x,
                            active=x < n[href][None, :], widths=1, gaps=3, threads=lanes_all[href])
            link = kind == LINK
            li = np.flatnonzero(link)
            if not li.size:
                continue
            x = np.arange(int(n[li].max()) + 1)[:, None]  # for (; *link_end != '"'; link_end++)
            kb.sequence(Op.LOAD, pc("ld_link"), (buf + j)[li][None, :] + x,
                        active=x <= n[li][None, :], widths=1, gaps=3, threads=lanes_all[li])
            if em.counting:
                em.emit(link)
            else:
                kb.store(pc("st_quote"), buf + j + n, active=link, width=1)
                kb.compute(2, active=link)
                kb.store(pc("st_url_offset"), key + _URL_OFF, active=link)
                x = np.arange(int(n[li].max()))[:, None]  # hash_func(buf + j, len)
                kb.sequence(Op.LOAD, pc("ld_hash_byte"), (buf + j)[li][None, :] + x,
                            active=x < n[li][None, :], widths=1, gaps=4, threads=lanes_all[li])
                kb.store(pc("st_url_hash"), key + _URL_HASH, active=link)
                occ = np.zeros(kb.n_threads, np.int64)
                occ[li] = [url_of[(int(r), int(jj))] for r, jj in zip(rec[li], j[li], strict=True)]
                em.emit(link, key, val + _FILE_ID, key_space=_GL, val_space=_GL, tag=occ)
            kb.compute(3, active=link)  # j += ..., state = START
    return fn


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """InvertedIndex over 3 files of ``1024 * scale`` copies (at least 2) of generated pages."""
    copies = scaled(COPIES, scale, minimum=2)
    rng = np.random.default_rng(seed)
    pages = [make_page(size, links, rng) for size, links in PAGES]
    mem, pcs = DeviceMemory(), PCs()
    files, records, per_record, base = [], [], [], []
    cache: dict[tuple, list] = {}
    url_of: dict[tuple[int, int], int] = {}
    occ_url, occ_addr, urls = [], [], {}
    for f, page in enumerate(pages):
        data = page * copies + b"\0"  # size = st_size + 1, the last byte '\0'
        d = mem.alloc(f"data{f}", len(data))
        files.append(d)
        newline = np.flatnonzero(np.frombuffer(data, np.uint8) == ord("\n"))
        for off, size in records_of(len(data), newline):
            # Records starting at the same place in the page (and of the same size) walk alike.
            key = (f, off % len(page), size, off + size >= len(data))
            if key not in cache:
                t = np.array(trips_of(data, off, size), np.int64).reshape(-1, 3)
                cache[key] = (t, t[t[:, 0] == LINK])
            t, links = cache[key]
            r = len(records)
            for _, j, n in links.tolist():
                u = data[off + j:off + j + n]
                url_of[(r, j)] = len(occ_url)
                occ_url.append(urls.setdefault(u, len(urls)))
                occ_addr.append(d + off + j)
            records.append((f, off, size))
            per_record.append(t)
            base.append(d + off)
    trips = _Trips(per_record)
    table = Strings(sorted(urls, key=urls.get))
    hashes = table.hash(table.length)  # hash_func(url, len): the URL without its quote
    regs = MARS_REGS["ii"]
    phase = MapPhase(mem, pcs, len(records), KEY_BYTES, VAL_BYTES, KEY_BYTES, 4, regs)
    fn = _map_fn(phase, trips, np.array(base, np.int64), url_of, hashes)
    kernels, counts = phase.kernels(fn, fn)
    occ_url, occ_addr = np.array(occ_url, np.int64), np.array(occ_addr, np.int64)
    tag = phase.inter.tag

    def compare(kb: KernelBuilder, pc, on, ra, rb, addr_a, addr_b) -> np.ndarray:
        oa, ob = tag[ra], tag[rb]
        ua, ub = occ_url[oa], occ_url[ob]
        sequence(kb, [(Op.LOAD, pc("cmp_ld_hash_a"), addr_a + _URL_HASH, 4, _GL, 0),
                      (Op.LOAD, pc("cmp_ld_hash_b"), addr_b + _URL_HASH, 4, _GL, 0)], on)
        kb.compute(4, active=on)
        ha, hb = hashes[ua], hashes[ub]
        same = on & (ha == hb)
        sequence(kb, [(Op.LOAD, pc("cmp_ld_buf_a"), addr_a + _BUF, 8, _GL, 0),
                      (Op.LOAD, pc("cmp_ld_off_a"), addr_a + _URL_OFF, 4, _GL, 0),
                      (Op.LOAD, pc("cmp_ld_buf_b"), addr_b + _BUF, 8, _GL, 0),
                      (Op.LOAD, pc("cmp_ld_off_b"), addr_b + _URL_OFF, 4, _GL, 2)], same)
        by_url = table.compare(kb, pc, same, ua, ub, occ_addr[oa], occ_addr[ob])
        return np.where(same, by_url, np.sign(ha.astype(np.int64) - hb))

    more, groups = GroupPhase(mem, pcs, phase.inter, compare, regs).kernels()
    file_bytes = sum(copies * len(p) + 1 for p in pages)
    return Workload(name="ciao18/ii", kernels=kernels + more,
                    params={"copies": copies, "file_bytes": file_bytes, "records": len(records),
                            "links": int(counts.sum()), "urls": len(urls),
                            "groups": len(groups.start), "arrays": mem.sizes(),
                            "input_bytes": file_bytes + len(records) * (KEY_BYTES + VAL_BYTES + 16)},
                    source=SOURCE)


register_workload("ciao18", "ii", build, source=SOURCE, version=1,
                  description="Mars InvertedIndex: 3 x 1024 copies of generated HTML pages (28 MB), "
                              "map and group (sort)",
                  apki=75, size="28MB", N=COPIES, n_warp=4, f_smem=0.0, barriers=True, cls="SWS")
