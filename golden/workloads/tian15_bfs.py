"""tian15 bfs: Rodinia 3.x OpenCL bfs, kernels ``BFS_1`` and ``BFS_2`` per level.

Follows ``opencl/bfs/Kernels.cl`` and the host loop of ``opencl/bfs/bfs.cpp``
of Rodinia (the OpenCL twins of CUDA ``Kernel`` and ``Kernel2`` in
``cuda/bfs/kernel.cu`` / ``kernel2.cu``): one work-item per node, work-groups
of ``MAX_THREADS_PER_BLOCK = 256``, the global size rounded up to a multiple of
256 (``_clInvokeKernel``). Each level launches ``BFS_1`` (frontier nodes visit
their edges and mark unvisited neighbours in ``g_updating_graph_mask``) and
``BFS_2`` (marked nodes join the frontier and set ``*g_over``); the host
repeats while ``g_over`` was set, so the last pair of launches finds nothing.

The graph follows Rodinia's ``data/bfs/inputGen/graphgen.cpp`` (the generator
of ``graph1MW_6.txt``): node ``i`` draws ``2 + rand() % 3`` edges to uniformly
random nodes and each edge is stored in both directions, appended to the two
nodes' adjacency lists in generation order (so the average degree is 6, and
loops and multiple edges occur). The search starts at node 0 (``bfs.cpp``
overrides the file's source with 0).

tian15 Table 2: bfs, 1M nodes, MI 202.7.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from golden.trace.builder import KernelBuilder
from golden.trace.model import KernelTrace, Op, Workload
from golden.workloads._common import DeviceMemory, PCs, register_workload, scaled

__all__ = ["build", "rodinia_graph", "bfs_levels", "NODES", "WORK_GROUP"]

#: Nodes at scale 1.0 (tian15 Table 2: 1M; Rodinia graph1MW_6 has 1,000,000).
NODES = 1_000_000
#: ``MAX_THREADS_PER_BLOCK`` of Rodinia's OpenCL bfs.cpp.
WORK_GROUP = 256
#: graphgen.cpp: ``MIN_EDGES`` and ``MAX_INIT_EDGES`` drawn per node.
MIN_EDGES, MAX_INIT_EDGES = 2, 4
#: graphgen.cpp ``MIN_NODES``.
MIN_NODES = 20

# Compute instructions: the operators the source writes between memory instructions
# (docs/workloads/tian15_a.md, "compute-count rule").
_GUARD = 2 + 1 + 1  # tid = get_global_id(0); tid < no_of_nodes; branch of the short-circuit &&
_TEST = 2  # test of the loaded flag, branch
_COND = 2  # no_of_edges + starting; compare-and-branch
_INC = 1  # i++
_COST = 1  # g_cost[tid] + 1


@nb.njit(cache=True, nogil=True)
def _adjacency(n, src, dst):
    """CSR adjacency of graphgen's edges: edge k appends dst to src's list, then src to dst's."""
    deg = np.zeros(n, np.int64)
    for k in range(src.size):
        deg[src[k]] += 1
        deg[dst[k]] += 1
    start = np.zeros(n + 1, np.int64)
    for v in range(n):
        start[v + 1] = start[v] + deg[v]
    fill = start[:-1].copy()
    edges = np.empty(start[n], np.int32)
    for k in range(src.size):
        a, b = src[k], dst[k]
        edges[fill[a]] = b
        fill[a] += 1
        edges[fill[b]] = a
        fill[b] += 1
    return start, edges


def rodinia_graph(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A graph with the semantics of Rodinia's ``graphgen.cpp``.

    Parameters
    ----------
    n : int
        Number of nodes (at least 20, graphgen's ``MIN_NODES``).
    seed : int
        Seed of ``numpy.random.default_rng`` (graphgen seeds from the clock).

    Returns
    -------
    start, edges : numpy.ndarray
        ``int64[n + 1]`` offsets of each node's list in ``edges`` (``int32[2 * m]``),
        i.e. ``g_graph_nodes[i] = {start[i], start[i + 1] - start[i]}``.
    """
    if n < MIN_NODES:
        raise ValueError(f"n: must be at least {MIN_NODES} nodes (graphgen MIN_NODES), not {n}")
    rng = np.random.default_rng(seed)
    per_node = rng.integers(MIN_EDGES, MAX_INIT_EDGES + 1, size=n)
    src = np.repeat(np.arange(n, dtype=np.int32), per_node)
    dst = rng.integers(0, n, size=src.size, dtype=np.int32)
    return _adjacency(n, src, dst)


@nb.njit(cache=True, nogil=True)
def bfs_levels(start: np.ndarray, edges: np.ndarray, source: int) -> np.ndarray:
    """Breadth-first level of every node from ``source`` (-1 where unreachable).

    A node's level is the index of the ``BFS_1`` launch whose frontier holds it.

    Parameters
    ----------
    start, edges : numpy.ndarray
        Adjacency in the form :func:`rodinia_graph` returns.
    source : int
        Node the search starts from.

    Returns
    -------
    numpy.ndarray
        ``int64[n]`` levels.
    """
    n = start.size - 1
    level = np.full(n, -1, np.int64)
    queue = np.empty(n, np.int64)
    level[source] = 0
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        v = queue[head]
        head += 1
        for e in range(start[v], start[v + 1]):
            u = edges[e]
            if level[u] < 0:
                level[u] = level[v] + 1
                queue[tail] = u
                tail += 1
    return level


def build(scale: float = 1.0, seed: int = 0) -> Workload:
    """Trace of a whole Rodinia BFS from node 0 on a graphgen graph.

    Parameters
    ----------
    scale : float
        Nodes ``= 1,000,000 * scale`` (at least 20); the degree distribution is unchanged.
    seed : int
        Seed of the graph generator.

    Returns
    -------
    Workload
        ``BFS_1``, ``BFS_2`` for every level, until a ``BFS_2`` finds no new node.
    """
    n = scaled(NODES, scale, minimum=MIN_NODES)
    start, edges = rodinia_graph(n, seed)
    level = bfs_levels(start, edges, 0)
    mem = DeviceMemory()
    arr = {
        "nodes": mem.alloc("g_graph_nodes", 8 * n),  # struct Node {int starting; int no_of_edges;}
        "edges": mem.alloc("g_graph_edges", 4 * edges.size),
        "mask": mem.alloc("g_graph_mask", 4 * n),
        "updating": mem.alloc("g_updating_graph_mask", 4 * n),
        "visited": mem.alloc("g_graph_visited", 4 * n),
        "cost": mem.alloc("g_cost", 4 * n),
        "over": mem.alloc("g_over", 4),
    }
    pcs1, pcs2 = PCs(), PCs()
    deg = np.diff(start)
    kernels = []
    for lv in range(int(level.max()) + 1):
        frontier = np.flatnonzero(level == lv)
        kernels.append(_bfs_1(n, start, edges, deg, level, lv, frontier, arr, pcs1))
        kernels.append(_bfs_2(n, level, lv, arr, pcs2))
    return Workload(
        name="tian15/bfs",
        kernels=kernels,
        params={"nodes": n, "edges": int(edges.size), "levels": int(level.max()) + 1,
                "reached": int((level >= 0).sum()), "source": 0, "arrays": dict(mem.arrays)},
        source=_SOURCE,
    )


def _grid(n: int) -> tuple[int]:
    return (-(-n // WORK_GROUP),)


def _guard(kb: KernelBuilder, n: int, pc: int, flags: int) -> np.ndarray:
    """``if (tid < no_of_nodes && flags[tid])``; returns the threads past the test."""
    live = kb.gtid < n
    kb.compute(_GUARD)
    kb.load(pc, flags + 4 * kb.gtid, active=live)
    kb.compute(_TEST, active=live)
    return live


def _bfs_1(n, start, edges, deg, level, lv, frontier, arr, pcs) -> KernelTrace:
    kb = KernelBuilder("BFS_1", grid=_grid(n), block=(WORK_GROUP,))
    _guard(kb, n, pcs("ld_mask"), arr["mask"])
    if frontier.size == 0:
        return kb.build()
    # A level touches its frontier, often a small part of a million threads: the
    # statements below give addresses for the frontier's threads only (threads=).
    f = frontier.astype(np.int64)
    node = arr["nodes"] + 8 * f
    # g_graph_mask[tid] = false; i = g_graph_nodes[tid].starting
    kb.sequence([Op.STORE, Op.LOAD], [pcs("st_mask"), pcs("ld_starting")],
                np.stack([arr["mask"] + 4 * f, node]), threads=f)
    ops = [Op.LOAD] * 5 + [Op.STORE] * 2
    pc = [pcs(s) for s in ("ld_no_of_edges", "ld_starting_cond", "ld_edges", "ld_visited",
                           "ld_cost_tid", "st_cost_id", "st_updating_id")]
    # The tests after a load are compute of the warps that made it, whether or not
    # they go on to the next statement (the loop exit, the visited test).
    after = [0, _COND, 0, _TEST, _COST, 0, 0]
    f_deg = deg[f]
    for j in range(int(f_deg.max()) + 1):
        # The loop condition re-reads both fields of g_graph_nodes[tid] on every test:
        # the stores through g_cost / g_updating_graph_mask (int*) may alias them.
        t = f[f_deg >= j]
        body = deg[t] > j
        e = start[t] + j
        nbr = edges[np.where(body, e, 0)].astype(np.int64)
        fresh = body & ((level[nbr] > lv) | (level[nbr] < 0))  # !g_graph_visited[id]
        addrs = np.stack([
            arr["nodes"] + 8 * t + 4, arr["nodes"] + 8 * t, arr["edges"] + 4 * e,
            arr["visited"] + 4 * nbr, arr["cost"] + 4 * t, arr["cost"] + 4 * nbr,
            arr["updating"] + 4 * nbr,
        ])
        cond = np.ones(t.size, bool)
        active = np.stack([cond, cond, body, body, fresh, fresh, fresh])
        gaps = [_INC if j else 0] + [0] * 6
        kb.sequence(ops, pc, addrs, active=active, gaps=gaps, after=after, threads=t)
    return kb.build()


def _bfs_2(n, level, lv, arr, pcs) -> KernelTrace:
    kb = KernelBuilder("BFS_2", grid=_grid(n), block=(WORK_GROUP,))
    live = _guard(kb, n, pcs("ld_updating"), arr["updating"])
    tid = kb.gtid
    hit = live & (np.where(live, level[np.minimum(tid, n - 1)], -1) == lv + 1)
    if not hit.any():
        return kb.build()
    addrs = np.stack([arr["mask"] + 4 * tid, arr["visited"] + 4 * tid,
                      np.full(tid.size, arr["over"]), arr["updating"] + 4 * tid])
    pc = [pcs("st_mask"), pcs("st_visited"), pcs("st_over"), pcs("st_updating")]
    for i in range(4):
        kb.store(pc[i], addrs[i], active=hit)
    return kb.build()


_SOURCE = "Rodinia 3.x opencl/bfs/Kernels.cl (BFS_1, BFS_2) with the host loop of bfs.cpp"

register_workload("tian15", "bfs", build, source=_SOURCE, mi=202.7, size="1M nodes",
                  description=("level-synchronous breadth-first search of a 1M-node "
                               "graphgen graph (avg degree 6)"))
