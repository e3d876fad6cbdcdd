"""kim20 BT: Rodinia 3.1 b+tree (``findRangeK`` then ``findK``) on the run script's input.

Follows ``cuda/b+tree/main.c``, ``kernel/kernel_gpu_cuda.cu`` (``findK``),
``kernel/kernel_gpu_cuda_2.cu`` (``findRangeK``) and their wrappers in
Rodinia 3.1 (``yuhc/gpu-rodinia``). The run script is ``./b+tree.out file
../../data/b+tree/mil.txt command ../../data/b+tree/command.txt``, built
with ``DEFAULT_ORDER`` 256 (``common.h``; the README's ``RD_WG_SIZE_0=256``;
508 is a commented-out alternative).

Input. ``mil.txt`` is not in the public source copies, but its Git LFS
pointer is (``pranith/rodinia_openmp``: 6888898 bytes, sha256
``1b52b1ca...``), and that is exactly the file ``1000000`` followed by the
keys 0 .. 999999 in ascending order, one a line (the hash matches; the
docs page shows the check). ``command.txt``'s pointer (22 bytes, sha256
``3c078684...``) is exactly ``"j 6000 3000\\nk 10000\\n\\n\\n"``. So the host
inserts 0 .. 999999 in order (:mod:`golden.workloads._bptree`), lays the
tree out as ``knode`` records, then runs ``j`` (``findRangeK``, 6000
queries) and ``k`` (``findK``, 10000 queries). main.c's ``j`` parser scans
for the next space from the space it already stands on, so it reads the
count twice: the range size is **6000**, not the 3000 the file writes.
Query keys are ``(rand()/(float)RAND_MAX)*size`` with glibc's unseeded
``rand()``: ``j`` draws 6000 starts (``end = start + 6000``, shifted back
when ``end >= size``), then ``k`` draws 10000 keys.

Kernels: ``<<<count, order>>>``, one CTA of 256 threads per query, no
shared memory. Per tree level (``height`` = 2 levels, then the leaf)::

    findK:  ld currKnodeD[bid] (8 B, one address); ld knodes[c].keys[thid];
            ld keysD[bid]; threads with keys[thid] <= key: ld keys[thid+1];
            the one thread in range: ld offsetD[bid], ld knodes[c].indices[thid],
            st offsetD[bid]; __syncthreads; thread 0: ld offsetD, st currKnodeD;
            __syncthreads
    leaf:   ld currKnodeD, ld keys[thid], ld keysD; the thread holding the key:
            ld indices[thid], ld recordsD[index], st ansD[bid]

``findRangeK`` walks the ``start`` and the ``end`` path in each level (its
in-range thread reads ``indices`` through the ``currKnodeD`` value it
already loaded), thread 0 copies both offsets, and at the leaves the
``start`` thread stores ``RecstartD``, a barrier, then the ``end`` thread
loads ``RecstartD`` and stores ``ReclenD``. A load the compiler can
forward (the second ``currKnodeD[bid]``, ``keysD[bid]`` and ``indices`` of
a statement) is not repeated; loads after a barrier are.
"""

from __future__ import annotations

import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Workload
from golden.workloads._bptree import KnodeLayout, build_tree, glibc_rand, query_keys, transform_to_cuda
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled
from golden.workloads._kim20 import SUITE, paper_figures, with_resources
from golden.workloads._program import Program

__all__ = ["build", "ORDER", "SIZE", "K_COUNT", "J_COUNT", "REGS", "MIL_TXT_SHA256", "mil_keys",
           "knode_bytes",
           "range_queries", "walk", "find_k", "find_range_k", "bt_launches"]

SOURCE = ("Rodinia 3.1 cuda/b+tree/main.c, kernel/kernel_gpu_cuda.cu (findK), "
          "kernel/kernel_gpu_cuda_2.cu (findRangeK), run")
ORDER = 256  # common.h DEFAULT_ORDER
SIZE = 1_000_000  # mil.txt: 1000000 keys, 0 .. 999999 ascending
K_COUNT = 10_000  # command.txt "k 10000"
J_COUNT = 6_000  # command.txt "j 6000 3000": the parser reads 6000 twice (module docstring)
#: sha256 of data/b+tree/mil.txt (its Git LFS pointer in pranith/rodinia_openmp).
MIL_TXT_SHA256 = "1b52b1caf9e0926afbe070cd96327e2645dade902fe9cfd078938ff6d755a29d"
#: Registers per thread: estimates (docs/workloads/kim20.md, "Registers").
REGS = {"findK": 18, "findRangeK": 24}


def knode_bytes(order: int) -> int:
    """``sizeof(knode)``: ``location``, ``indices``/``keys[order+1]``, ``is_leaf`` (padded), ``num_keys``."""
    return 4 + 2 * 4 * (order + 1) + 4 + 4


def _fields(order: int) -> tuple[int, int]:
    """Byte offsets of ``indices`` and ``keys`` in a knode."""
    return 4, 4 + 4 * (order + 1)


def mil_keys(size: int) -> np.ndarray:
    """The keys of ``mil.txt`` (``size`` = 1000000) in file order: ``0 .. size-1`` ascending.

    The file's Git LFS pointer gives its sha256
    (:data:`MIL_TXT_SHA256`); the file ``"1000000\\n"`` followed by these keys,
    one a line, has that hash (tests).
    """
    return np.arange(size, dtype=np.int32)


def range_queries(rand: np.ndarray, size: int, r_size: int) -> tuple[np.ndarray, np.ndarray]:
    """main.c ``j``: ``start = (rand()/(float)RAND_MAX)*size``, ``end = start + rSize``, clipped.

    When ``end >= size`` the range moves back: ``start -= end - size`` and ``end = size - 1``.
    """
    start = query_keys(rand, size)
    end = start + r_size
    over = end >= size
    start = np.where(over, start - (end - size), start)
    end = np.where(over, size - 1, end)
    return start, end


def walk(layout: KnodeLayout, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The knodes one query's CTA visits and the thread that matches in each.

    Returns
    -------
    nodes : numpy.ndarray
        ``int64[height + 1, q]``: the knode of each level (row 0 the root, the last the leaf).
    match : numpy.ndarray
        ``int64[height + 1, q]``: per level the thread ``t`` with ``keys[t] <= key <
        keys[t+1]`` (internal levels) and, in the leaf row, the thread with ``keys[t] ==
        key`` (-1 when the key is absent).
    """
    keys = np.asarray(keys, dtype=np.int64)
    q = len(keys)
    nodes = np.zeros((layout.height + 1, q), dtype=np.int64)
    match = np.full((layout.height + 1, q), -1, dtype=np.int64)
    order = layout.order
    for lvl in range(layout.height):
        row = layout.keys[nodes[lvl]].astype(np.int64)  # [q, order + 1], non-decreasing
        m = (row <= keys[:, None]).sum(axis=1) - 1
        ok = m < order  # threads are 0 .. order-1
        match[lvl] = np.where(ok, m, -1)
        child = layout.indices[nodes[lvl], np.minimum(m, order)].astype(np.int64)
        moves = ok & (child < layout.n_knodes)  # the source's knodes_elem guard
        nodes[lvl + 1] = np.where(moves, child, nodes[lvl])
    leaf = layout.keys[nodes[-1], :order].astype(np.int64)
    eq = leaf == keys[:, None]
    match[-1] = np.where(eq.any(axis=1), eq.argmax(axis=1), -1)
    return nodes, match


class _Ctx:
    """Per-thread views of one launch: ``bid``, ``thid`` and the tree's rows."""

    def __init__(self, kb: KernelBuilder, layout: KnodeLayout, knodes: int) -> None:
        self.kb, self.layout, self.knodes = kb, layout, knodes
        self.bid, self.thid = kb.bx.astype(np.int64), kb.tx.astype(np.int64)
        self.idx_off, self.key_off = _fields(layout.order)
        self.size = knode_bytes(layout.order)

    def key_addr(self, node: np.ndarray, plus: int = 0) -> np.ndarray:
        return self.knodes + node * self.size + self.key_off + (self.thid + plus) * 4

    def idx_addr(self, node: np.ndarray) -> np.ndarray:
        return self.knodes + node * self.size + self.idx_off + self.thid * 4

    def key(self, node: np.ndarray, plus: int = 0) -> np.ndarray:
        return self.layout.keys[node, self.thid + plus].astype(np.int64)


def _descend(p: Program, c: _Ctx, node: np.ndarray, key: np.ndarray, ptr: int, q: int,
             out: int, tag: str) -> None:
    """One level's search of one path (the ``if`` block of either kernel)."""
    bid, thid = c.bid, c.thid
    p.load(f"ld_{tag}Knode", ptr + bid * 8, width=8)
    p.compute(3)  # knodesD + node * sizeof(knode) + &keys[thid]
    p.load(f"ld_{tag}key", c.key_addr(node))
    p.load(f"ld_{tag}query", q + bid * 4)
    p.compute(1)  # <=
    le = c.key(node) <= key
    p.load(f"ld_{tag}key_next", c.key_addr(node, 1), active=le)
    p.compute(1, active=le)  # >
    hit = le & (c.key(node, 1) > key)
    if tag == "":  # findK reads the node through offsetD[bid] (same value as currKnodeD)
        p.load("ld_offset", out + bid * 8, width=8, active=hit)
    p.compute(3, active=hit)  # &indices[thid]
    p.load(f"ld_{tag}index", c.idx_addr(node), active=hit)
    p.compute(1, active=hit)  # < knodes_elem
    index = c.layout.indices[node, thid].astype(np.int64)
    p.store(f"st_{tag}offset", out + bid * 8, width=8,
            active=hit & (index < c.layout.n_knodes))


def find_k(layout: KnodeLayout, keys: np.ndarray, *, mem: DeviceMemory,
           pcs: PCs) -> KernelTrace:
    """``findK<<<len(keys), order>>>`` after ``kernel_gpu_cuda_wrapper``'s ``cudaMalloc``s."""
    count, order = len(keys), layout.order
    records = mem.alloc("recordsD", layout.records.size * 4)
    knodes = mem.alloc("knodesD", layout.n_knodes * knode_bytes(order))
    curr = mem.alloc("currKnodeD", count * 8)
    offset = mem.alloc("offsetD", count * 8)
    keys_d = mem.alloc("keysD", count * 4)
    ans = mem.alloc("ansD", count * 4)
    nodes, _ = walk(layout, keys)
    kb = KernelBuilder("findK", grid=(count, 1), block=(order,))
    c = _Ctx(kb, layout, knodes)
    p = Program(kb, pcs, "findK")
    bid, thid = c.bid, c.thid
    key = np.asarray(keys, dtype=np.int64)[bid]
    first = thid == 0
    for lvl in range(layout.height):
        p.compute(2)  # loop trip (height is a kernel argument: not unrolled)
        _descend(p, c, nodes[lvl][bid], key, curr, keys_d, offset, "")
        p.barrier()
        p.compute(1)  # thid == 0
        p.load("ld_offset_next", offset + bid * 8, width=8, active=first)
        p.store("st_currKnode", curr + bid * 8, width=8, active=first)
        p.barrier()
    leaf = nodes[-1][bid]
    p.load("ld_leafKnode", curr + bid * 8, width=8)
    p.compute(3)
    p.load("ld_leafkey", c.key_addr(leaf))
    p.load("ld_leafquery", keys_d + bid * 4)
    p.compute(1)  # ==
    eq = c.key(leaf) == key
    p.compute(3, active=eq)
    p.load("ld_leafindex", c.idx_addr(leaf), active=eq)
    rec = np.where(eq, layout.indices[leaf, thid], 0).astype(np.int64)
    p.compute(1, active=eq)
    p.load("ld_record", records + rec * 4, active=eq)
    p.store("st_ans", ans + bid * 4, active=eq)
    return p.build()


def find_range_k(layout: KnodeLayout, start: np.ndarray, end: np.ndarray, *,
                 mem: DeviceMemory, pcs: PCs) -> KernelTrace:
    """``findRangeK<<<len(start), order>>>`` after ``kernel_gpu_cuda_wrapper_2``'s ``cudaMalloc``s."""
    count, order = len(start), layout.order
    knodes = mem.alloc("knodesD", layout.n_knodes * knode_bytes(order))
    curr = mem.alloc("currKnodeD", count * 8)
    offset = mem.alloc("offsetD", count * 8)
    last = mem.alloc("lastKnodeD", count * 8)
    offset2 = mem.alloc("offset_2D", count * 8)
    start_d = mem.alloc("startD", count * 4)
    end_d = mem.alloc("endD", count * 4)
    rec_start = mem.alloc("ansDStart", count * 4)
    rec_len = mem.alloc("ansDLength", count * 4)
    n_start, _ = walk(layout, start)
    n_end, _ = walk(layout, end)
    kb = KernelBuilder("findRangeK", grid=(count, 1), block=(order,))
    c = _Ctx(kb, layout, knodes)
    p = Program(kb, pcs, "findRangeK")
    bid, thid = c.bid, c.thid
    s_key = np.asarray(start, dtype=np.int64)[bid]
    e_key = np.asarray(end, dtype=np.int64)[bid]
    first = thid == 0
    for lvl in range(layout.height):
        p.compute(2)  # loop trip
        _descend(p, c, n_start[lvl][bid], s_key, curr, start_d, offset, "curr")
        _descend(p, c, n_end[lvl][bid], e_key, last, end_d, offset2, "last")
        p.barrier()
        p.compute(1)  # thid == 0
        p.load("ld_offset_next", offset + bid * 8, width=8, active=first)
        p.store("st_currKnode", curr + bid * 8, width=8, active=first)
        p.load("ld_offset_2_next", offset2 + bid * 8, width=8, active=first)
        p.store("st_lastKnode", last + bid * 8, width=8, active=first)
        p.barrier()
    for leaf, key, ptr, q, tag in ((n_start[-1][bid], s_key, curr, start_d, "curr"),
                                   (n_end[-1][bid], e_key, last, end_d, "last")):
        p.load(f"ld_leaf{tag}Knode", ptr + bid * 8, width=8)
        p.compute(3)
        p.load(f"ld_leaf{tag}key", c.key_addr(leaf))
        p.load(f"ld_leaf{tag}query", q + bid * 4)
        p.compute(1)  # ==
        eq = c.key(leaf) == key
        p.compute(3, active=eq)
        p.load(f"ld_leaf{tag}index", c.idx_addr(leaf), active=eq)
        if tag == "curr":
            p.store("st_recstart", rec_start + bid * 4, active=eq)
            p.barrier()
        else:
            p.load("ld_recstart", rec_start + bid * 4, active=eq)
            p.compute(2, active=eq)  # - RecstartD + 1
            p.store("st_reclen", rec_len + bid * 4, active=eq)
    return p.build()


def bt_launches(size: int, k_count: int, j_count: int, r_size: int, *, order: int = ORDER,
                seed: int = 0) -> tuple[list[KernelTrace], dict]:
    """The run's two launches (``j`` then ``k``) on the tree of keys ``0 .. size-1``.

    Parameters
    ----------
    size : int
        Keys in the input file (inserted in ascending order, like mil.txt's).
    k_count, j_count : int
        Queries of the ``k`` and ``j`` commands.
    r_size : int
        ``j``'s range size (``j_count`` on the run script's command line: module docstring).
    order : int
        Tree order and threads per CTA.
    seed : int
        glibc ``srand`` seed of the query keys (0 and 1: the unseeded program).

    Returns
    -------
    (list of KernelTrace, dict)
        The launches and the run's parameters (tree shape, array sizes).

    Raises
    ------
    ValueError
        If ``r_size`` is negative or larger than ``size`` (main.c's check), or ``k_count``
        exceeds 65535 (main.c's check).
    """
    if not 0 <= r_size <= size:
        raise ValueError(f"j: search range size {r_size} is outside [0, {size}] (main.c)")
    if not 1 <= k_count <= 65535:
        raise ValueError(f"k: count must be 1 .. 65535 (main.c), not {k_count}")
    layout = transform_to_cuda(build_tree(mil_keys(size), order))
    rand = glibc_rand(j_count + k_count, seed)
    start, end = range_queries(rand[:j_count], size, r_size)
    keys = query_keys(rand[j_count:], size)
    pcs = PCs()
    # Each wrapper cudaFrees its arrays: the next one's allocations reuse the same range.
    mem_j, mem_k = DeviceMemory(), DeviceMemory()
    kernels = [find_range_k(layout, start, end, mem=mem_j, pcs=pcs),
               find_k(layout, keys, mem=mem_k, pcs=pcs)]
    params = {"order": order, "size": size, "k_count": k_count, "j_count": j_count,
              "range_size": r_size, "height": layout.height, "knodes": layout.n_knodes,
              "arrays_findRangeK": mem_j.sizes(), "arrays_findK": mem_k.sizes()}
    return with_resources(kernels, REGS), params


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """b+tree on ``10^6 * scale`` keys (at least 256), ``6000 * scale`` range, ``10000 * scale`` key queries.

    ``seed`` is glibc's ``srand`` seed of the queries (0: the unseeded program's).
    """
    size = scaled(SIZE, scale, minimum=ORDER)
    j_count = scaled(J_COUNT, scale)
    kernels, params = bt_launches(size, scaled(K_COUNT, scale), j_count, j_count, seed=seed)
    return Workload(name="kim20/bt", kernels=kernels, params=params, source=SOURCE)


register_workload(SUITE, "bt", build, source=SOURCE,
                  size="1M keys (mil.txt), order 256; j 6000 (range 6000), k 10000",
                  description="B+ tree range and key searches, a 256-thread CTA per query",
                  **paper_figures("bt"))
