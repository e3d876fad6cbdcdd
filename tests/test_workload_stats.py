"""golden.workloads.stats on small hand-built kernels with hand-computed counts."""

from __future__ import annotations

import re

import numpy as np
import pytest

from golden.trace.analysis import thread_access_counts
from golden.trace.builder import KernelBuilder
from golden.trace.model import Space, Workload
from golden.workloads import registry
from golden.workloads.stats import (
    STAT_KEYS,
    _eval_formula,
    format_stats_table,
    paper_figure,
    workload_stats,
)

BASE, BASE2, BASE3 = 0x1000_0000, 0x2000_0000, 0x3000_0000


def kernel_a():
    """2 CTAs x 64 threads (4 warps).

    Per warp: global load, 3 compute, global store, shared load, barrier; warp 0
    of each CTA (tx < 8 active) one more global load; 2 trailing compute.
    Rows 4 + 4 + 4 + 4 + 2 = 18, compute 4 x 3 + 4 x 2 = 20: 38 instructions,
    10 of them global. Lines of 64 B: the load and the store each cover 512
    bytes (8 lines), the last load re-reads the first line: 16 blocks.
    """
    kb = KernelBuilder("ka", grid=(2,), block=(64,))
    kb.load(0x100, BASE + kb.gtid * 4)
    kb.compute(3)
    kb.store(0x108, BASE2 + kb.gtid * 4)
    kb.load(0x110, kb.tx * 4, space=Space.SHARED)
    kb.barrier()
    kb.load(0x118, BASE + kb.tx * 4, active=kb.tx < 8)
    kb.compute(2)
    return kb.build()


def kernel_b():
    """1 warp, one gather at PC 0x100 (the value ka uses too) touching 32 lines: 1 instruction."""
    kb = KernelBuilder("kb", grid=(1,), block=(32,))
    kb.load(0x100, BASE3 + ((kb.tx * 7) % 32) * 64)
    return kb.build()


def test_single_kernel_counts():
    k = kernel_a()
    st = workload_stats(Workload("test/a", [k]))
    assert st == {
        "workload": "test/a",
        "kernels": 1,
        "ctas": 2,
        "warps": 4,
        "instructions": 38,
        "mem_instructions": 10,
        "shared_instructions": 4,
        "mi": pytest.approx(1000 * 10 / 38),
        "load_pcs": 2,  # 0x100 and 0x118: the store and the shared load do not count
        "blocks": 16,
        "footprint_bytes": 16 * 64,
        "L": 3,  # threads with tx < 8: two loads and a store
        "line_size": 64,
    }
    assert tuple(st) == STAT_KEYS
    big = workload_stats(Workload("test/a", [k]), line_size=128)
    assert (big["blocks"], big["footprint_bytes"]) == (8, 8 * 128)


def test_repeated_and_distinct_kernels():
    a, b = kernel_a(), kernel_b()
    assert len(b.lane_addrs) == 1  # the gather is stored with explicit lane addresses
    st = workload_stats(Workload("test/aab", [a, a, b]))
    assert (st["kernels"], st["ctas"], st["warps"]) == (3, 5, 9)
    assert (st["instructions"], st["mem_instructions"], st["shared_instructions"]) == (77, 21, 8)
    assert st["mi"] == pytest.approx(1000 * 21 / 77)
    # (ka, 0x100), (ka, 0x118), (kb, 0x100): same PC value, different kernel.
    assert st["load_pcs"] == 3
    assert st["blocks"] == 16 + 32  # the second launch of ka touches nothing new
    assert st["L"] == 3


def test_lines_far_apart():
    """Lines 2^34 apart are too far for the bitmap and are counted by sorting instead."""
    kb = KernelBuilder("kc", grid=(1,), block=(32,))
    far = np.where(kb.tx < 16, BASE, BASE + (1 << 40)) + (kb.tx % 16) * 4
    kb.load(0x100, far)
    c = kb.build()
    assert workload_stats(Workload("test/c", [c]))["blocks"] == 2
    # With ka first (a bitmap over its lines) the far line joins; BASE's line is shared.
    assert workload_stats(Workload("test/ac", [kernel_a(), c]))["blocks"] == 17


def test_empty_and_bad_line_size():
    kb = KernelBuilder("kd", grid=(1,), block=(32,))
    kb.compute(5)
    st = workload_stats(Workload("test/d", [kb.build()]))
    assert (st["instructions"], st["mem_instructions"], st["mi"], st["blocks"], st["L"]) == (
        5, 0, 0.0, 0, 0)
    with pytest.raises(ValueError, match="Line size must be a power of 2"):
        workload_stats(Workload("test/a", [kernel_a()]), line_size=48)


def test_l_matches_thread_access_counts_on_a_workload():
    wl = registry.get("rdgc/srad").build(1 / 64, 0)
    st = workload_stats(wl)
    assert st["L"] == max(int(thread_access_counts(k).max()) for k in wl.kernels) == 12
    assert st["mem_instructions"] == sum(int(k.memory_mask().sum()) for k in wl.kernels)


@pytest.mark.parametrize("text, value", [
    ("3N", 3 * 256), ("12N", 12 * 256), ("1 + 3N", 1 + 3 * 256), ("(3N + 2)N + 1", 197121),
    ("(3N + 2)N", 197120), ("8N + 2", 2050), ("7N^2", 7 * 256 ** 2), ("5N + 1", 1281),
    ("6, 4, 6", None), ("N / 2", None), ("x", None),
])
def test_rdgc_formulas(text, value):
    assert _eval_formula(text, 256) == value


def test_paper_figure():
    assert paper_figure({"L": "7N^2", "N": 128}, "L") == "7N^2 = 114,688"
    assert paper_figure({"L": "6, 4, 6", "N": 2048}, "L") == "6, 4, 6"
    assert paper_figure({"L": 8384}, "L") == "8,384"
    assert paper_figure({"mi": 395.6}, "mi") == "395.6"
    assert paper_figure({}, "mi") == "-"


def _cells(line: str) -> list[str]:
    return re.split(r" {2,}", line.strip())


def test_table_with_paper_column():
    row = workload_stats(Workload("test/aab", [kernel_a(), kernel_a(), kernel_b()]))
    row["paper"] = {"L": "3N", "N": 4}
    lines = format_stats_table([row], "rdgc").split("\n")
    assert len(lines) == 3
    assert len({len(x) for x in lines}) == 1  # aligned: every line ends at the last column
    assert _cells(lines[0]) == [
        "workload", "kernels", "CTAs", "warps", "warp insts", "global mem insts",
        "shared insts", "MI", "load PCs", "64 B blocks", "footprint MiB (blocks x 64 B)", "L",
        "paper L"]
    assert set(lines[1]) == {"-", " "}
    assert _cells(lines[2]) == ["test/aab", "3", "5", "9", "77", "21", "8", "272.7", "3", "48",
                                "0.00", "3", "3N = 12"]


def test_table_paper_from_registry_and_keys():
    row = workload_stats(registry.get("rdgc/bp").build(1 / 1024, 0))
    rdgc = format_stats_table([row], "rdgc").split("\n")
    assert _cells(rdgc[0])[-2:] == ["L", "paper L"]
    assert _cells(rdgc[2])[-2:] == ["16", "16"]  # ours, RDGC Table 4's
    mi = format_stats_table([dict(row, paper={"mi": 89.7})], "tian15").split("\n")
    header = _cells(mi[0])
    assert header[header.index("MI") + 1] == "paper MI"
    assert _cells(mi[2])[header.index("paper MI")] == "89.7"
    bare = format_stats_table([row], None).split("\n")
    assert not any(h.startswith("paper") for h in _cells(bare[0]))
    pcs = format_stats_table([row], "load_pcs").split("\n")
    h = _cells(pcs[0])
    assert h[h.index("load PCs") + 1] == "paper load PCs" and _cells(pcs[2])[h.index("paper load PCs")] == "-"
