"""kim20 BT (Rodinia b+tree): the host's tree and queries, closed-form kernel counts, a run.

Counts are worked by hand from ``cuda/b+tree/main.c`` and the two kernels
(golden/workloads/kim20_bt.py's docstring; docs/workloads/kim20.md, "BT").
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from cli.main import main
from golden.trace.coalesce import coalesce
from golden.trace.model import Op
from golden.workloads import registry
from golden.workloads._bptree import (
    INT_MAX,
    INT_MIN,
    build_tree,
    cut,
    glibc_rand,
    query_keys,
    transform_to_cuda,
)
from golden.workloads._common import DeviceMemory, PCs
from golden.workloads.kim20_bt import (
    MIL_TXT_SHA256,
    ORDER,
    SIZE,
    bt_launches,
    find_k,
    find_range_k,
    knode_bytes,
    mil_keys,
    range_queries,
    walk,
)


@pytest.fixture(autouse=True)
def trace_cache(tmp_path_factory, monkeypatch):
    """Built workloads go to a temporary trace cache, not the user's."""
    monkeypatch.setenv("GPUCACHE_CACHE", str(tmp_path_factory.getbasetemp() / "kim20-cache"))


@pytest.fixture(scope="module")
def mil():
    """The run script's tree: mil.txt's keys 0 .. 999999 inserted in order, order 256."""
    return transform_to_cuda(build_tree(np.arange(1_000_000), ORDER))


def _nodes(layout):
    """Every knode's keys (without the guards) and children/records, in knode order."""
    out = []
    for k in range(layout.n_knodes):
        n = int(layout.num_keys[k])
        out.append((bool(layout.is_leaf[k]), layout.keys[k, 1:n - 1].tolist(),
                    layout.indices[k, :n].tolist()))
    return out


# -- the host: glibc rand, insertion, transform_to_cuda -----------------------------------


def test_glibc_rand_and_query_keys():
    # glibc's first rand() values after srand(1) (and with no srand call, and srand(0)).
    first = [1804289383, 846930886, 1681692777, 1714636915]
    assert glibc_rand(4, 0).tolist() == first and glibc_rand(4, 1).tolist() == first
    assert glibc_rand(2, 2).tolist() != first[:2]
    assert glibc_rand(3, 2**32 + 5).tolist() == glibc_rand(3, 5).tolist()  # unsigned int seed
    # (rand()/(float)RAND_MAX)*size: 1804289383 / 2^31 = 0.8401877 -> 840187.
    assert query_keys(np.array(first), 1_000_000).tolist() == [840187, 394382, 783099, 798440]
    # j: end = start + rSize; when end >= size the range moves back to end at size - 1.
    start, end = range_queries(np.array([1804289383, 2147483000]), 1_000_000, 6000)
    assert start.tolist() == [840187, 994000] and end.tolist() == [846187, 999999]


def test_mil_keys_are_the_file():
    # mil.txt: its count on the first line, then one key a line; the LFS pointer's hash.
    text = f"{SIZE}\n" + "\n".join(map(str, mil_keys(SIZE).tolist())) + "\n"
    assert len(text) == 6_888_898
    assert hashlib.sha256(text.encode()).hexdigest() == MIL_TXT_SHA256


def test_cut():
    assert [cut(n) for n in (3, 4, 5, 255, 256)] == [2, 2, 3, 128, 128]


def test_hand_worked_order_4():
    # Order 4 (at most 3 keys a node), keys 1 .. 10 in order:
    #   1 2 3       one leaf [1 2 3]
    #   4           leaf split, cut(3) = 2: [1 2] [3 4], root [3]
    #   5, 6        [3 4 5] then split: [3 4] [5 6], root [3 5]
    #   7, 8        [5 6 7] then split: [5 6] [7 8], root [3 5 7] (full)
    #   9, 10       [7 8 9] then split: [7 8] [9 10]; 9 goes up into the full root:
    #               keys 3 5 7 9, cut(4) = 2: old [3], k_prime 5 up, new [7 9]
    # Tree: [5] -> A [3] (leaves [1 2], [3 4]), B [7 9] (leaves [5 6], [7 8], [9 10]).
    # knodes breadth-first: 0 root, 1 A, 2 B, 3 .. 7 the leaves; internal indices are
    # the children's knode numbers, leaf indices the record numbers (records in leaf
    # order), and indices[num_keys - 1] the next knode's number.
    layout = transform_to_cuda(build_tree(np.arange(1, 11), 4))
    assert _nodes(layout) == [
        (False, [5], [1, 2, 1]),
        (False, [3], [3, 4, 2]),
        (False, [7, 9], [5, 6, 7, 3]),
        (True, [1, 2], [0, 0, 1, 4]),
        (True, [3, 4], [0, 2, 3, 5]),
        (True, [5, 6], [0, 4, 5, 6]),
        (True, [7, 8], [0, 6, 7, 7]),
        (True, [9, 10], [0, 8, 9, 8]),
    ]
    assert layout.height == 2 and layout.records.tolist() == list(range(1, 11))
    # The guards: keys[0] = INT_MIN, keys[num_keys-1 .. order-1] = INT_MAX.
    assert layout.keys[2].tolist() == [INT_MIN, 7, 9, INT_MAX, INT_MAX]
    assert layout.keys[0, :4].tolist() == [INT_MIN, 5, INT_MAX, INT_MAX]


def test_hand_worked_duplicates_and_descending_order():
    # Descending 6 .. 1 at order 4, with a duplicate 5 (ignored by insert()):
    #   6 5 4      leaf [4 5 6];  5 again: ignored
    #   3          split of 3 4 5 6: [3 4] [5 6], root [5]
    #   2          [2 3 4]
    #   1          split of 1 2 3 4: [1 2] [3 4], 3 into root: [3 5]
    layout = transform_to_cuda(build_tree(np.array([6, 5, 4, 5, 3, 2, 1]), 4))
    assert _nodes(layout) == [
        (False, [3, 5], [1, 2, 3, 1]),
        (True, [1, 2], [0, 0, 1, 2]),
        (True, [3, 4], [0, 2, 3, 3]),
        (True, [5, 6], [0, 4, 5, 4]),
    ]


def _check_invariants(layout, values):
    order = layout.order
    n = layout.n_knodes
    nk = layout.num_keys - 2
    leaf = layout.is_leaf
    # Breadth-first: the leaves are the last knodes, internal children are numbered
    # consecutively in queue order, and indices[num_keys-1] is the next knode.
    first_leaf = int(np.argmax(leaf))
    assert leaf[first_leaf:].all() and not leaf[:first_leaf].any()
    expect_child = 1
    depth = np.zeros(n, dtype=np.int64)
    for k in range(n):
        m = int(nk[k])
        assert layout.indices[k, m + 1] == k + 1
        row = layout.keys[k, :m + 2].astype(np.int64)
        assert row[0] == INT_MIN and row[-1] == INT_MAX and np.all(np.diff(row) > 0)
        assert np.all(layout.keys[k, m + 1:order] == INT_MAX)
        assert 1 <= m <= order - 1
        if not leaf[k]:
            kids = layout.indices[k, :m + 1]
            assert kids.tolist() == list(range(expect_child, expect_child + m + 1))
            expect_child += m + 1
            depth[kids] = depth[k] + 1
            for i, child in enumerate(kids):  # child i holds keys in [keys[i], keys[i+1])
                lo, hi = row[i], row[i + 1]
                ck = layout.keys[child, 1:layout.num_keys[child] - 1]
                assert np.all(ck >= lo) and np.all(ck < hi)
    assert expect_child == n
    # Every leaf at the same depth, the tree's height.
    assert np.all(depth[leaf] == layout.height)
    # Key counts: no deletions, so a node has at least what a split leaves it
    # (leaves: cut(order-1) or order - cut(order-1); internal: cut(order) - 1 or
    # order - cut(order)); the root at least 1.
    lo_leaf = min(cut(order - 1), order - cut(order - 1))
    lo_node = min(cut(order) - 1, order - cut(order))
    if n > 1:
        assert nk[first_leaf:].min() >= lo_leaf
        assert nk[1:first_leaf].min(initial=order) >= lo_node
    # The leaves, in knode order, hold every distinct key once, sorted; records likewise.
    keys = np.concatenate([layout.keys[k, 1:nk[k] + 1] for k in range(first_leaf, n)])
    assert keys.tolist() == sorted(set(int(v) for v in values))
    assert layout.records.tolist() == keys.tolist()


@pytest.mark.parametrize("order, n", [(3, 200), (4, 500), (5, 3000), (8, 5000), (256, 100_000)])
def test_tree_invariants_random_order(order, n):
    values = np.random.default_rng(order).integers(0, 2 * n, size=n)  # with duplicates
    _check_invariants(transform_to_cuda(build_tree(values, order)), values)


def test_mil_tree_shape(mil):
    # Ascending keys at order 256: a full leaf (255 keys) splits at cut(255) = 128, and
    # later keys go right, so every leaf but the last keeps 128 keys: 10^6 = 7811 * 128
    # + 192 gives 7812 leaves. A full internal node (256 children) splits its 257 into
    # 128 and 129, so 60 internal nodes of 128 children and a last one of 7812 - 60 *
    # 128 = 132, under a root of 61 children: 1 + 61 + 7812 = 7874 knodes, height 2.
    assert mil.n_knodes == 7874 and mil.height == 2
    nk = mil.num_keys - 2
    assert nk[0] == 60
    assert nk[1:61].tolist() == [127] * 60 and nk[61] == 131
    assert nk[62:-1].tolist() == [128] * 7811 and nk[-1] == 192
    assert knode_bytes(ORDER) == 2068 and mil.n_knodes * 2068 == 16_283_432
    _check_invariants(mil, np.arange(1_000_000))


# -- kernels: closed-form counts per query, coalescing ---------------------------------------


class _PerPC:
    """``counts[label]``: (warp instructions, active lanes) of a kernel's instruction ``label``."""

    def __init__(self, kernel, pcs: PCs) -> None:
        self.kernel, self.pcs = kernel, pcs

    def __getitem__(self, label: str) -> tuple[int, int]:
        k = self.kernel
        rows = np.flatnonzero(k.memory_mask() & (k.insts["pc"] == self.pcs(f"{k.name}:{label}")))
        return len(rows), int(sum(bin(int(m)).count("1") for m in k.insts["mask"][rows]))

    def total(self) -> int:
        """Memory instructions of the kernel."""
        return int(self.kernel.memory_mask().sum())


def _levels(k):
    """Matching threads of key k in the mil tree: root, internal node, leaf (hand-worked).

    Root separators are 16384 i (first key of internal node i), internal node i's
    are 16384 i + 128 j, leaf keys follow keys[0] = INT_MIN.
    """
    return k // 16384, (k // 128) % 128, k % 128 + 1


@pytest.mark.parametrize("key", [0, 127, 128, 40_000, 500_123, 983_039])
def test_find_k_counts_per_query(mil, key):
    pcs = PCs()
    kernel = find_k(mil, np.array([key]), mem=DeviceMemory(), pcs=pcs)
    m0, m1, t = _levels(key)
    nodes, match = walk(mil, np.array([key]))
    assert nodes[:, 0].tolist() == [0, 1 + key // 16384, 62 + key // 128]
    assert match[:, 0].tolist() == [m0, m1, t]
    c = _PerPC(kernel, pcs)
    levels = 2
    # Per level: currKnodeD (one address), keys[thid], keysD[bid]: 8 warps, 256 lanes each;
    # keys[thid+1] by threads 0 .. m (the && short circuit); offsetD, indices, store
    # offsetD by the one thread in range; thread 0's copy to currKnodeD.
    for label in ("ld_Knode", "ld_key", "ld_query"):
        assert c[label] == (8 * levels, 256 * levels)
    assert c["ld_key_next"] == ((m0 // 32 + 1) + (m1 // 32 + 1), (m0 + 1) + (m1 + 1))
    for label in ("ld_offset", "ld_index", "st_offset", "ld_offset_next", "st_currKnode"):
        assert c[label] == (levels, levels)
    # The leaf: three full loads, then the key's thread reads indices, the record, stores.
    for label in ("ld_leafKnode", "ld_leafkey", "ld_leafquery"):
        assert c[label] == (8, 256)
    for label in ("ld_leafindex", "ld_record", "st_ans"):
        assert c[label] == (1, 1)
    # In all: 29 + (m // 32 + 1) per level, 27 at the leaf.
    assert c.total() == 2 * 29 + (m0 // 32 + 1) + (m1 // 32 + 1) + 27
    # The record read is recordsD[key] (records are numbered in key order).
    rec = np.flatnonzero(kernel.insts["pc"] == pcs("findK:ld_record"))
    _, lines, _ = coalesce(kernel, 4, rows=rec)
    assert lines.tolist() == [(0x1000_0000 + 4 * key) // 4]


def test_find_range_k_counts_per_query(mil):
    start, end = np.array([840_187]), np.array([846_187])
    pcs = PCs()
    kernel = find_range_k(mil, start, end, mem=DeviceMemory(), pcs=pcs)
    s0, s1, st = _levels(840_187)
    e0, e1, et = _levels(846_187)
    c = _PerPC(kernel, pcs)
    for tag in ("curr", "last"):
        for label in (f"ld_{tag}Knode", f"ld_{tag}key", f"ld_{tag}query"):
            assert c[label] == (16, 512)
        for label in (f"ld_{tag}index", f"st_{tag}offset"):
            assert c[label] == (2, 2)
        for label in (f"ld_leaf{tag}Knode", f"ld_leaf{tag}key", f"ld_leaf{tag}query"):
            assert c[label] == (8, 256)
        assert c[f"ld_leaf{tag}index"] == (1, 1)
    assert c["ld_currkey_next"] == (s0 // 32 + 1 + s1 // 32 + 1, s0 + 1 + s1 + 1)
    assert c["ld_lastkey_next"] == (e0 // 32 + 1 + e1 // 32 + 1, e0 + 1 + e1 + 1)
    for label in ("ld_offset_next", "st_currKnode", "ld_offset_2_next", "st_lastKnode"):
        assert c[label] == (2, 2)
    assert c["st_recstart"] == c["ld_recstart"] == c["st_reclen"] == (1, 1)
    assert c["ld_offset"] == (0, 0)  # findRangeK reads indices through currKnodeD's value
    # The leaves of 840187 and 846187: 62 + key // 128; the two threads holding the keys.
    nodes, match = walk(mil, np.concatenate([start, end]))
    assert nodes[-1].tolist() == [62 + 840_187 // 128, 62 + 846_187 // 128]
    assert match[-1].tolist() == [st, et]


def test_key_reads_coalesce_and_broadcast(mil):
    pcs = PCs()
    kernel = find_k(mil, np.array([500_123]), mem=DeviceMemory(), pcs=pcs)
    knodes = 0x1000_0000 + 4_000_000  # recordsD (4 MB, 256-aligned) first
    # Level 0 reads the root's keys: lane t of warp w at knodes + 1032 + 4 (32 w + t).
    # Rows are warp by warp (each warp's level 0 then level 1): every other one is level 0.
    rows = np.flatnonzero(kernel.insts["pc"] == pcs("findK:ld_key"))[0::2]
    assert len(rows) == 8
    _, lines, _ = coalesce(kernel, 4, rows=rows)
    assert lines.tolist() == [(knodes + 1032) // 4 + i for i in range(256)]
    # 128 B lines: knodes + 1032 is 8 bytes past a line, so each warp's 128 B spans two.
    _, lines128, _ = coalesce(kernel, 128, rows=rows)
    assert len(lines128) == 16 and len(np.unique(lines128)) == 9
    # currKnodeD[bid]: one 8-byte address for all 32 lanes: one line per warp.
    rows = np.flatnonzero(kernel.insts["pc"] == pcs("findK:ld_Knode"))[0::2]
    _, lines, _ = coalesce(kernel, 128, rows=rows)
    assert len(lines) == 8 and len(np.unique(lines)) == 1
    assert kernel.insts["op"][rows[0]] == Op.LOAD


# -- the workload ---------------------------------------------------------------------------


def test_launches_and_parameters():
    kernels, params = bt_launches(20_000, 40, 24, 24, seed=0)
    assert [k.name for k in kernels] == ["findRangeK", "findK"]
    assert [k.grid[0] for k in kernels] == [24, 40]
    assert all(k.block[0] == 256 and k.shared_bytes == 0 for k in kernels)
    assert [k.regs_per_thread for k in kernels] == [24, 18]
    # 20000 ascending keys: 156 leaves of 128 keys (the last 160), all under the root.
    assert params["height"] == 1 and params["knodes"] == 157 and params["range_size"] == 24
    assert params["arrays_findK"]["recordsD"] == 80_000
    with pytest.raises(ValueError, match="search range size"):
        bt_launches(1000, 4, 4, 2000)
    with pytest.raises(ValueError, match="65535"):
        bt_launches(1000, 70_000, 4, 4)


def test_same_seed_same_bytes():
    a = registry.build("kim20/bt", 0.01, 3, use_cache=False)
    b = registry.build("kim20/bt", 0.01, 3, use_cache=False)
    c = registry.build("kim20/bt", 0.01, 4, use_cache=False)
    for x, y in zip(a.kernels, b.kernels, strict=True):
        assert x.insts.tobytes() == y.insts.tobytes()
        assert x.lane_addrs.tobytes() == y.lane_addrs.tobytes()
    assert a.kernels[1].insts.tobytes() != c.kernels[1].insts.tobytes()


def test_small_run(tmp_path, capsys):
    out = tmp_path / "r.json"
    status = main(["run", "--workload", "kim20/bt", "--config", "kim20", "--scale", "0.02",
                   "--json", str(out), "--no-progress"])
    text, err = capsys.readouterr()
    assert status == 0, err
    assert "L1:" in text and out.exists()
