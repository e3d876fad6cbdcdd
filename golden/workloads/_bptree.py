"""The host side of Rodinia's b+tree: key insertion, the GPU node array, and glibc's ``rand()``.

Follows ``cuda/b+tree/main.c`` of Rodinia 3.1 (read from ``yuhc/gpu-rodinia``):

* :func:`build_tree` inserts keys one by one with the source's rules:
  ``insert`` ignores a key already present (``find``), ``find_leaf`` walks
  down with ``while (i < num_keys && key >= keys[i]) i++``, a leaf holds at
  most ``order - 1`` keys and ``insert_into_leaf_after_splitting`` keeps the
  first ``cut(order - 1)`` of the ``order`` keys in the old leaf (the new
  leaf's first key goes up), ``insert_into_node_after_splitting`` keeps the
  first ``cut(order) - 1`` keys, sends key ``cut(order) - 1`` up
  (``k_prime``) and moves the rest, and ``insert_into_parent`` repeats up to
  a new root. The nodes live in arrays (one row per ``node``) and the whole
  loop is numba-compiled.
* :func:`transform_to_cuda` lays the tree out as the kernels read it: the
  ``knode`` array in breadth-first order, each with ``keys[order + 1]``
  (``INT_MIN``, the node's keys, ``INT_MAX`` up to index ``order - 1``),
  ``indices[order + 1]`` (children's knode numbers in an internal node,
  record numbers in a leaf, and at ``num_keys - 1`` the next knode's number),
  ``num_keys`` (the node's keys + 2), ``is_leaf`` and ``location``; records
  are numbered leaf by leaf in that order.
* :func:`glibc_rand` is glibc's ``rand()`` (the ``TYPE_3`` additive
  feedback generator ``r[i] = r[i-3] + r[i-31]``), which the host calls,
  unseeded, for the query keys; ``srand(0)`` is ``srand(1)`` in glibc, so
  seeds 0 and 1 both give the unseeded program's sequence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

__all__ = ["INT_MIN", "INT_MAX", "KnodeLayout", "Tree", "cut", "build_tree", "transform_to_cuda",
           "glibc_rand", "query_keys"]

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1
#: glibc's RAND_MAX.
RAND_MAX = 2**31 - 1


def cut(length: int) -> int:
    """main.c ``cut``: where a node of ``length`` entries splits (the upper half when odd)."""
    return length // 2 if length % 2 == 0 else length // 2 + 1


@dataclass
class Tree:
    """A B+ tree in ``main.c``'s ``node`` form, one row per node.

    Members
    -------
    order : int
        The tree's order (at most ``order - 1`` keys per node).
    root : int
        Row of the root (-1: empty tree).
    num_keys : numpy.ndarray
        ``int32[n]`` keys in each node.
    is_leaf : numpy.ndarray
        ``bool[n]``.
    keys : numpy.ndarray
        ``int32[n, order]``: the first ``num_keys`` are valid.
    pointers : numpy.ndarray
        ``int64[n, order]``: children's rows (internal nodes, ``num_keys + 1``
        valid) or the records' values (leaves, ``num_keys`` valid; column
        ``order - 1`` is the next leaf's row, -1 for the last).
    parent : numpy.ndarray
        ``int64[n]``, -1 for the root.
    """

    order: int
    root: int
    num_keys: np.ndarray
    is_leaf: np.ndarray
    keys: np.ndarray
    pointers: np.ndarray
    parent: np.ndarray


@nb.njit(cache=True, nogil=True)
def _find_leaf(root, key, nk, leaf, K, P):
    c = root
    while not leaf[c]:
        i = 0
        while i < nk[c]:
            if key >= K[c, i]:
                i += 1
            else:
                break
        c = P[c, i]
    return c


@nb.njit(cache=True, nogil=True)
def _insert_all(values, order, cap):
    """Insert ``values`` (key = value, as main.c's ``insert(root, input, input)``)."""
    nk = np.zeros(cap, dtype=np.int32)
    leaf = np.zeros(cap, dtype=np.bool_)
    parent = np.full(cap, -1, dtype=np.int64)
    K = np.zeros((cap, order), dtype=np.int32)
    P = np.full((cap, order), -1, dtype=np.int64)
    tk = np.empty(order, dtype=np.int32)
    tp = np.empty(order + 1, dtype=np.int64)
    root = -1
    n = 0
    for key in values:
        if root >= 0:
            # insert(): "The current implementation ignores duplicates" (find()).
            lf = _find_leaf(root, key, nk, leaf, K, P)
            dup = False
            for i in range(nk[lf]):
                if K[lf, i] == key:
                    dup = True
                    break
            if dup:
                continue
        if root < 0:  # start_new_tree
            if n >= cap:
                return -1, n, nk, leaf, K, P, parent
            root = n
            n += 1
            leaf[root] = True
            K[root, 0] = key
            P[root, 0] = key
            P[root, order - 1] = -1
            nk[root] = 1
            continue
        lf = _find_leaf(root, key, nk, leaf, K, P)
        if nk[lf] < order - 1:  # insert_into_leaf
            ip = 0
            while ip < nk[lf] and K[lf, ip] < key:
                ip += 1
            for i in range(nk[lf], ip, -1):
                K[lf, i] = K[lf, i - 1]
                P[lf, i] = P[lf, i - 1]
            K[lf, ip] = key
            P[lf, ip] = key
            nk[lf] += 1
            continue
        # insert_into_leaf_after_splitting
        if n >= cap:
            return -1, n, nk, leaf, K, P, parent
        new = n
        n += 1
        leaf[new] = True
        ins = 0
        while K[lf, ins] < key and ins < order - 1:
            ins += 1
        j = 0
        for i in range(nk[lf]):
            if j == ins:
                j += 1
            tk[j] = K[lf, i]
            tp[j] = P[lf, i]
            j += 1
        tk[ins] = key
        tp[ins] = key
        split = (order - 1) // 2 + (order - 1) % 2  # cut(order - 1)
        nk[lf] = split
        for i in range(split):
            K[lf, i] = tk[i]
            P[lf, i] = tp[i]
        for i in range(split, order):
            K[new, i - split] = tk[i]
            P[new, i - split] = tp[i]
        nk[new] = order - split
        P[new, order - 1] = P[lf, order - 1]
        P[lf, order - 1] = new
        for i in range(nk[lf], order - 1):
            P[lf, i] = -1
        for i in range(nk[new], order - 1):
            P[new, i] = -1
        parent[new] = parent[lf]
        left, k, right = lf, K[new, 0], new
        # insert_into_parent, repeated while parents split
        while True:
            p = parent[left]
            if p < 0:  # insert_into_new_root
                if n >= cap:
                    return -1, n, nk, leaf, K, P, parent
                r = n
                n += 1
                K[r, 0] = k
                P[r, 0] = left
                P[r, 1] = right
                nk[r] = 1
                parent[left] = r
                parent[right] = r
                root = r
                break
            li = 0  # get_left_index
            while li <= nk[p] and P[p, li] != left:
                li += 1
            if nk[p] < order - 1:  # insert_into_node
                for i in range(nk[p], li, -1):
                    P[p, i + 1] = P[p, i]
                    K[p, i] = K[p, i - 1]
                P[p, li + 1] = right
                K[p, li] = k
                nk[p] += 1
                break
            # insert_into_node_after_splitting
            j = 0
            for i in range(nk[p] + 1):
                if j == li + 1:
                    j += 1
                tp[j] = P[p, i]
                j += 1
            j = 0
            for i in range(nk[p]):
                if j == li:
                    j += 1
                tk[j] = K[p, i]
                j += 1
            tp[li + 1] = right
            tk[li] = k
            split = order // 2 + order % 2  # cut(order)
            if n >= cap:
                return -1, n, nk, leaf, K, P, parent
            new = n
            n += 1
            nk[p] = split - 1
            for i in range(split - 1):
                P[p, i] = tp[i]
                K[p, i] = tk[i]
            P[p, split - 1] = tp[split - 1]
            k_prime = tk[split - 1]
            j = 0
            for i in range(split, order):
                P[new, j] = tp[i]
                K[new, j] = tk[i]
                j += 1
            P[new, j] = tp[order]
            nk[new] = j
            parent[new] = parent[p]
            for i in range(nk[new] + 1):
                parent[P[new, i]] = new
            left, k, right = p, k_prime, new
    return root, n, nk, leaf, K, P, parent


def build_tree(values: np.ndarray, order: int) -> Tree:
    """Insert ``values`` one by one (each key is its own record's value) as main.c does.

    Parameters
    ----------
    values : numpy.ndarray
        Keys in insertion order (int32 range).
    order : int
        The tree's order, at least 3 (main.c's ``order``).

    Raises
    ------
    ValueError
        If ``order`` is below 3.
    """
    if order < 3:
        raise ValueError(f"order: main.c needs at least 3, not {order}")
    values = np.ascontiguousarray(values, dtype=np.int32)
    # Every node but the root keeps at least cut(order - 1) - 1 >= (order - 2) // 2 keys.
    least = max(1, (order - 2) // 2)
    cap = 2 * (len(values) // least + 2) + 8
    root, n, nk, leaf, K, P, parent = _insert_all(values, order, cap)
    if root < 0 and len(values):
        raise RuntimeError(f"b+tree: more than {cap} nodes")  # the bound above is wrong
    return Tree(order, int(root), nk[:n], leaf[:n], K[:n], P[:n], parent[:n])


@dataclass
class KnodeLayout:
    """The ``knode`` array of ``transform_to_cuda`` and the records it numbers.

    Members
    -------
    keys, indices : numpy.ndarray
        ``int32[n, order + 1]``. Entries main.c leaves unset (``keys[order]``
        of a node with fewer than ``order - 1`` keys; ``indices`` past
        ``num_keys - 1``) hold ``INT_MAX`` and -1; the kernels never read them.
    num_keys : numpy.ndarray
        ``int32[n]``: the node's keys + 2 (the ``INT_MIN`` / ``INT_MAX`` guards).
    is_leaf : numpy.ndarray
        ``bool[n]``.
    records : numpy.ndarray
        ``int32[m]``: ``krecords[i].value``.
    order : int
    height : int
        main.c ``height``: edges from the root to a leaf.
    """

    keys: np.ndarray
    indices: np.ndarray
    num_keys: np.ndarray
    is_leaf: np.ndarray
    records: np.ndarray
    order: int
    height: int

    @property
    def n_knodes(self) -> int:
        """``knodes_elem``: knodes the device array holds."""
        return len(self.num_keys)


@nb.njit(cache=True, nogil=True)
def _bfs(root, order, nk, leaf, K, P, n_nodes, n_records):
    kk = np.full((n_nodes, order + 1), 2**31 - 1, dtype=np.int32)
    ii = np.full((n_nodes, order + 1), -1, dtype=np.int32)
    knum = np.zeros(n_nodes, dtype=np.int32)
    kleaf = np.zeros(n_nodes, dtype=np.bool_)
    records = np.empty(n_records, dtype=np.int32)
    queue = np.empty(n_nodes, dtype=np.int64)
    head, tail = 0, 1
    queue[0] = root
    nodeindex, recordindex, q = 1, 0, 0
    while head < tail:
        nd = queue[head]
        head += 1
        k = q
        q += 1
        kleaf[k] = leaf[nd]
        num = nk[nd] + 2
        knum[k] = num
        kk[k, 0] = -(2**31)
        kk[k, num - 1] = 2**31 - 1
        if not leaf[nd]:
            ii[k, 0] = nodeindex
            nodeindex += 1
            for i in range(1, num - 1):
                kk[k, i] = K[nd, i - 1]
                queue[tail] = P[nd, i - 1]
                tail += 1
                ii[k, i] = nodeindex
                nodeindex += 1
            queue[tail] = P[nd, num - 2]
            tail += 1
        else:
            ii[k, 0] = 0
            for i in range(1, num - 1):
                kk[k, i] = K[nd, i - 1]
                records[recordindex] = P[nd, i - 1]
                ii[k, i] = recordindex
                recordindex += 1
        ii[k, num - 1] = q
    return kk, ii, knum, kleaf, records


def transform_to_cuda(tree: Tree) -> KnodeLayout:
    """main.c ``transform_to_cuda``: the tree's knodes in breadth-first order (module docstring)."""
    if tree.root < 0:
        raise ValueError("b+tree: the tree is empty")
    n_records = int(tree.num_keys[tree.is_leaf].sum())
    kk, ii, knum, kleaf, records = _bfs(tree.root, tree.order, tree.num_keys, tree.is_leaf,
                                        tree.keys, tree.pointers, len(tree.num_keys), n_records)
    height, c = 0, tree.root
    while not tree.is_leaf[c]:  # main.c height(): follow pointers[0]
        c = int(tree.pointers[c, 0])
        height += 1
    return KnodeLayout(kk, ii, knum, kleaf, records, tree.order, height)


def glibc_rand(n: int, seed: int = 1) -> np.ndarray:
    """The first ``n`` values of glibc's ``rand()`` after ``srand(seed)`` (``int64[n]``).

    glibc's default generator (``TYPE_3``, ``__srandom_r``/``__random_r``):
    ``r[0] = seed``, ``r[i] = 16807 r[i-1] mod (2^31 - 1)`` for ``i < 31``
    (Schrage's form on an ``int32_t``, C's truncating division), ``r[i] =
    r[i-31]`` for ``31 <= i < 34``, then ``r[i] = r[i-3] + r[i-31] mod
    2^32``; output ``k`` is ``r[k + 344] >> 1``. ``seed`` is converted like
    C's ``unsigned int`` argument (mod 2^32); ``srand(0)`` acts as
    ``srand(1)``, the state of a program that never calls ``srand``.
    """
    seed %= 2**32
    word = 1 if seed == 0 else (seed - 2**32 if seed >= 2**31 else seed)  # int32_t
    r = [word]
    for _ in range(1, 31):
        hi = int(word / 127773)  # C division truncates toward zero
        lo = word - hi * 127773
        word = 16807 * lo - 2836 * hi
        if word < 0:
            word += 2147483647
        r.append(word)
    r = [v & 0xFFFF_FFFF for v in r]
    r += r[:3]
    for i in range(34, 344 + n):
        r.append((r[i - 31] + r[i - 3]) & 0xFFFF_FFFF)
    return np.array(r[344:], dtype=np.int64) >> 1


def query_keys(rand: np.ndarray, size: int) -> np.ndarray:
    """main.c's ``(rand()/(float)RAND_MAX)*size`` in single precision, truncated to ``int``."""
    f = np.asarray(rand).astype(np.float32) / np.float32(RAND_MAX)
    return (f * np.float32(size)).astype(np.int64)
