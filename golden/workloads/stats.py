"""Statistics of a workload's trace, set beside the paper's figures (``gpucache workloads --stats``).

:func:`workload_stats` counts, over all kernels of a workload: launches,
CTAs, warps, warp instructions (memory, barrier and compute), global and
shared memory instructions, distinct global-load PCs (tian15 Figure 4),
distinct cache blocks touched and their bytes (tian15 Figure 3), memory
intensity (tian15 Table 2's MI: global memory warp instructions per 1000
warp instructions) and the largest number of global accesses of one thread
in one launch (RDGC Table 4's L). :func:`format_stats_table` prints rows of
these as an aligned table with the paper's figure beside ours.

A suite whose paper gives other figures adds them with a function in
:data:`SUITE_STATS` (``ciao18``: :func:`ciao18_stats`, APKI and F_smem of
ciao18 Table II); their columns appear only in rows that have them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

import numpy as np

from golden.trace.analysis import thread_access_counts
from golden.trace.coalesce import check_line_size, coalesce
from golden.trace.model import Op, Space, Workload

__all__ = ["STAT_KEYS", "PAPER_FIGURE", "SUITE_STATS", "GTX480", "workload_stats",
           "format_stats_table", "paper_figure", "apki", "ctas_per_sm", "f_smem", "ciao18_stats",
           "thread_instructions", "FIG1_SUITE", "format_fig1_table"]

#: Keys of :func:`workload_stats`'s dictionary, in table order.
STAT_KEYS = ("workload", "kernels", "ctas", "warps", "instructions", "mem_instructions",
             "shared_instructions", "mi", "load_pcs", "blocks", "footprint_bytes", "L",
             "line_size")

#: The figure each suite's paper gives per workload: tian15 Table 2 (MI), RDGC Table 4 (L),
#: ciao18 Table II (APKI, F_smem, N_warp, barriers, input size).
PAPER_FIGURE = {"tian15": "mi", "rdgc": "L",
                "ciao18": ("apki", "f_smem", "n_warp", "barriers", "size")}

#: Global memory instructions coalesced per call (bounds the request arrays' memory).
_CHUNK = 4_000_000
#: Widest line range counted with a bitmap (one byte per line); wider ranges are sorted.
_BITMAP_LINES = 1 << 28


def workload_stats(wl: Workload, line_size: int = 64) -> dict:
    """Counts over every kernel of ``wl``.

    Parameters
    ----------
    wl : Workload
        The workload.
    line_size : int
        Block size in bytes for ``blocks`` and ``footprint_bytes`` (tian15 uses 64).

    Returns
    -------
    dict
        ``workload`` (name); ``kernels`` (launches); ``ctas``; ``warps``;
        ``instructions`` (warp instructions: memory, barrier and compute);
        ``mem_instructions`` (global loads, stores and atomics);
        ``shared_instructions``; ``mi`` (``1000 * mem_instructions /
        instructions``); ``load_pcs`` (distinct ``(kernel name, PC)`` of global
        loads: launches of one kernel share its code, distinct kernels do
        not); ``blocks`` (distinct ``line_size``-byte blocks touched by global
        accesses); ``footprint_bytes`` (``blocks * line_size``: the bytes of
        the blocks touched, not the bytes accessed); ``L`` (most global memory
        instructions one thread executes in one launch, from
        :func:`golden.trace.analysis.thread_access_counts`); ``line_size``.

    Raises
    ------
    ValueError
        If ``line_size`` is not a power of two of at least 4 bytes.
    """
    check_line_size(line_size)
    # A workload may list one KernelTrace object several times (repeated launches).
    unique = list({id(k): k for k in wl.kernels}.values())
    mem_of, shared_of, pcs, most = {}, {}, set(), 0
    for k in unique:
        glob = k.memory_mask(Space.GLOBAL)
        mem_of[id(k)] = int(glob.sum())
        shared_of[id(k)] = int(k.memory_mask(Space.SHARED).sum())
        loads = glob & (k.insts["op"] == Op.LOAD)
        pcs |= {(k.name, int(pc)) for pc in np.unique(k.insts["pc"][loads])}
        if glob.any():
            most = max(most, int(thread_access_counts(k).max()))
    mem = sum(mem_of[id(k)] for k in wl.kernels)
    shared = sum(shared_of[id(k)] for k in wl.kernels)
    instructions = wl.n_instructions
    blocks = _distinct_lines(unique, line_size)
    return {
        "workload": wl.name,
        "kernels": len(wl.kernels),
        "ctas": sum(k.n_ctas for k in wl.kernels),
        "warps": sum(k.n_warps for k in wl.kernels),
        "instructions": instructions,
        "mem_instructions": mem,
        "shared_instructions": shared,
        "mi": 1000.0 * mem / instructions if instructions else 0.0,
        "load_pcs": len(pcs),
        "blocks": blocks,
        "footprint_bytes": blocks * line_size,
        "L": most,
        "line_size": line_size,
    }


def _distinct_lines(kernels, line_size: int) -> int:
    """Distinct lines the kernels' global accesses touch (a bitmap over their line range)."""
    seen: np.ndarray | None = None  # one byte per line from `lo`
    lo = 0
    sorted_sets = []  # fallback for line ranges too wide for a bitmap
    for k in kernels:
        rows = np.flatnonzero(k.memory_mask(Space.GLOBAL))
        for start in range(0, len(rows), _CHUNK):
            _, lines, _ = coalesce(k, line_size, rows=rows[start:start + _CHUNK])
            if not len(lines):
                continue
            lines = lines.astype(np.int64)
            first, last = int(lines.min()), int(lines.max())
            if seen is None:
                new_lo, new_hi = first, last
            else:
                new_lo, new_hi = min(lo, first), max(lo + len(seen) - 1, last)
            if new_hi - new_lo + 1 > _BITMAP_LINES:
                sorted_sets.append(np.unique(lines))
                continue
            if seen is None or new_lo < lo or new_hi >= lo + len(seen):
                grown = np.zeros(new_hi - new_lo + 1, dtype=np.uint8)
                if seen is not None:
                    grown[lo - new_lo:lo - new_lo + len(seen)] = seen
                seen, lo = grown, new_lo
            seen[lines - lo] = 1
    if not sorted_sets:
        return 0 if seen is None else int(np.count_nonzero(seen))
    if seen is not None:
        sorted_sets.append(np.flatnonzero(seen) + lo)
    return int(np.unique(np.concatenate(sorted_sets)).size)


# -- the table ----------------------------------------------------------------------

_COLUMNS = (  # (key, header)
    ("workload", "workload"),
    ("kernels", "kernels"),
    ("ctas", "CTAs"),
    ("warps", "warps"),
    ("instructions", "warp insts"),
    ("mem_instructions", "global mem insts"),
    ("shared_instructions", "shared insts"),
    ("mi", "MI"),
    ("load_pcs", "load PCs"),
    ("blocks", "{line} B blocks"),
    ("footprint_bytes", "footprint MiB (blocks x {line} B)"),
    ("L", "L"),
    # Suite figures (SUITE_STATS): shown only when some row has them.
    ("apki", "APKI"),
    ("f_smem", "F_smem"),
    ("f_smem_kernel", "F_smem kernel"),
    ("barriers", "barriers"),
    ("input_bytes", "input MiB"),
)
_OPTIONAL = {"apki", "f_smem", "f_smem_kernel", "barriers", "input_bytes"}
_PAPER_HEADER = {"mi": "paper MI", "L": "paper L", "load_pcs": "paper load PCs",
                 "blocks": "paper blocks", "apki": "paper APKI", "f_smem": "paper F_smem",
                 "n_warp": "paper N_warp", "barriers": "paper bar.", "size": "paper input"}


def paper_figure(paper: dict, key: str) -> str:
    """The paper's figure ``key`` as printed: a formula in N is shown with its value.

    RDGC Table 4 gives L as formulas of the size N (``"3N"``, ``"(3N + 2)N + 1"``,
    ``"7N^2"``); with ``paper["N"]`` set they print as ``3N = 1152``.
    """
    value = paper.get(key)
    if value is None:
        return "-"
    if isinstance(value, str) and "N" in value and isinstance(paper.get("N"), int):
        number = _eval_formula(value, paper["N"])
        return value if number is None else f"{value} = {number:,}"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _eval_formula(text: str, n: int) -> int | None:
    """Value of an integer formula in N (``+ - *``, ``^`` powers, implicit products), or None."""
    expr = text.replace("^", "**").replace(" ", "")
    expr = re.sub(r"(?<=[\dN)])(?=[N(])", "*", expr)  # 3N -> 3*N, )N -> )*N, N( -> N*(
    try:
        return _evaluate(ast.parse(expr, mode="eval").body, n)
    except (SyntaxError, ValueError):
        return None


_BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.Pow: lambda a, b: a ** b}


def _evaluate(node: ast.AST, n: int) -> int:
    """Integer value of a parsed formula; ValueError for anything but integers, N and + - * **."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name) and node.id == "N":
        return n
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, n)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_evaluate(node.left, n), _evaluate(node.right, n))
    raise ValueError(f"not a formula in N: {ast.dump(node)}")


def format_stats_table(rows: list[dict], paper_key: str | tuple[str, ...] | None) -> str:
    """An aligned text table of :func:`workload_stats` rows with the paper's figure beside ours.

    Parameters
    ----------
    rows : list of dict
        :func:`workload_stats` results. The paper's figures come from a row's
        ``"paper"`` entry when it has one, else from the registered
        :class:`~golden.workloads.registry.WorkloadSpec` of its ``"workload"``.
    paper_key : str or None
        The paper figure to show: a key of ``WorkloadSpec.paper`` (``"mi"``,
        ``"L"``) or a suite name, which stands for its paper's figures
        (:data:`PAPER_FIGURE`: one key or a tuple of keys, each shown after our
        column of the same key, or at the end); None shows no paper column.

    Returns
    -------
    str
        The table, without a trailing newline.
    """
    key = PAPER_FIGURE.get(paper_key, paper_key) if paper_key is not None else None
    keys = () if key is None else (key,) if isinstance(key, str) else tuple(key)
    line = rows[0].get("line_size", 64) if rows else 64
    columns = [(k, h.format(line=line)) for k, h in _COLUMNS
               if k not in _OPTIONAL or any(k in row for row in rows)]
    for pk in keys:
        after = next((i for i, (k, _) in enumerate(columns) if k == pk), len(columns) - 1)
        columns.insert(after + 1, (f"paper:{pk}", _PAPER_HEADER.get(pk, f"paper {pk}")))
    cells = [[_cell(row, k) for k, _ in columns] for row in rows]
    headers = [h for _, h in columns]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    right = [k != "workload" for k, _ in columns]

    def fmt(values: Sequence[str]) -> str:
        out = [v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, widths, right,
                                                                  strict=True)]
        return "  ".join(out).rstrip()

    lines = [fmt(headers), "  ".join("-" * w for w in widths)] + [fmt(c) for c in cells]
    return "\n".join(lines)


def _cell(row: dict, key: str) -> str:
    if key.startswith("paper:"):
        paper = row.get("paper")
        if paper is None:
            paper = _registered_paper(row.get("workload", ""))
        pk = key.removeprefix("paper:")
        if pk == "f_smem" and isinstance(paper.get(pk), float):
            return f"{100 * paper[pk]:.0f}%"
        if pk == "barriers" and isinstance(paper.get(pk), bool):
            return "Y" if paper[pk] else "N"
        return paper_figure(paper, pk)
    value = row.get(key)
    if value is None:
        return "-"
    if key in ("mi", "apki"):
        return f"{value:.1f}"
    if key == "f_smem":
        return f"{100 * value:.1f}%"
    if key == "barriers":
        return "Y" if value else "N"
    if key == "input_bytes":
        return f"{value / 2**20:.2f}"
    if key == "footprint_bytes":
        return f"{value / 2**20:.2f}"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    return str(value)


def _registered_paper(name: str) -> dict:
    from golden.workloads import registry  # the registry imports every emulator: only when needed

    try:
        return registry.get(name).paper
    except (ValueError, KeyError):
        return {}


# -- kim20 Fig. 1 -------------------------------------------------------------------

#: The suite whose paper gives Fig. 1's L1 miss rates and warp occupancies (``paper`` keys
#: ``l1_miss`` and ``occupancy``, in %).
FIG1_SUITE = "kim20"


def format_fig1_table(rows: list[dict], config: str) -> str:
    """kim20 Fig. 1 (L1D miss rate, warp occupancy) beside the functional and timing models.

    Fig. 1 was measured on GPGPU-Sim's timing model. The functional (untimed,
    fixed-order interleaved) model's L1 miss rate on ``config`` is always shown;
    the timing model's L1 miss rate and warp occupancy when the rows carry them
    (``gpucache workloads --stats --timing cycle``), ``-`` otherwise.

    Parameters
    ----------
    rows : list of dict
        ``workload`` (``suite/name``), ``l1_accesses`` and ``l1_miss`` (a fraction, or
        None when not measured); optionally ``timed_l1_miss`` and ``occupancy``
        (fractions) or ``timed_error`` (a deadlocked run). The paper's figures come
        from the registry.
    config : str
        Name of the machine configuration the models ran.

    Returns
    -------
    str
        The table, without a trailing newline.
    """
    headers = ["workload", "paper L1 miss % (Fig. 1)",
               f"L1 miss % (functional, untimed, {config})", "L1 miss % (timing model)",
               "L1 accesses (functional)", "paper warp occupancy % (Fig. 1)",
               "warp occupancy % (timing model)"]

    def pct(v) -> str:
        return "-" if v is None else f"{100 * v:.1f}"

    cells = []
    for row in rows:
        paper = _registered_paper(row["workload"])
        timed_miss, occ = ((pct(row.get("timed_l1_miss")), pct(row.get("occupancy")))
                           if "timed_error" not in row else ("deadlock", "deadlock"))
        cells.append([row["workload"], paper_figure(paper, "l1_miss"), pct(row.get("l1_miss")),
                      timed_miss, f"{int(row.get('l1_accesses', 0)):,}",
                      paper_figure(paper, "occupancy"), occ])
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(headers)]

    def fmt(values: Sequence[str]) -> str:
        out = [v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths,
                                                                                   strict=True))]
        return "  ".join(out).rstrip()

    return "\n".join([fmt(headers), "  ".join("-" * w for w in widths)] + [fmt(c) for c in cells])

# -- ciao18 Table II: APKI and F_smem -----------------------------------------------

#: Per-SM limits of ciao18's GPU (Table I: GTX 480, 1536 threads and 48 KB shared memory
#: per SM; 32768 registers and 8 CTAs per SM are GPGPU-Sim's GTX 480 configuration).
GTX480 = {"threads": 1536, "ctas": 8, "registers": 32768, "shared_bytes": 48 * 1024}


def thread_instructions(wl: Workload) -> int:
    """Thread instructions of ``wl``: every warp instruction times the threads that execute it.

    A stored row counts the active lanes of its mask; the compute instructions
    of its ``gap`` run in the warps that execute the row (the builders' rule),
    so they count the same lanes; a warp's ``tail`` counts all its threads.
    This is GPGPU-Sim's instruction count (``gpu_sim_insn``) for straight-line
    and masked code; lanes that leave a loop early are counted until their
    warp's next stored row.
    """
    total = 0
    for k in wl.kernels:
        lanes = np.bitwise_count(k.insts["mask"]).astype(np.int64)
        total += int((lanes * (1 + k.insts["gap"].astype(np.int64))).sum())
        threads = np.minimum(k.threads_per_cta - 32 * np.arange(k.warps_per_cta), 32)
        total += int((k.tail.reshape(k.n_ctas, k.warps_per_cta) * threads).sum())
    return total


def apki(wl: Workload, line_size: int = 128) -> float:
    """L1D accesses per 1000 thread instructions (ciao18 Table II's APKI).

    An access is one ``line_size``-byte line request of a global load, store or
    atomic after coalescing (:func:`golden.trace.coalesce.coalesce`; ciao18's L1D
    and L2 have 128 B lines), which is what GPGPU-Sim's L1D counts; texture,
    constant and shared-memory instructions do not reach L1D. Instructions are
    :func:`thread_instructions`.
    """
    requests = 0
    for k in wl.kernels:
        rows = np.flatnonzero(k.memory_mask(Space.GLOBAL))
        for start in range(0, len(rows), _CHUNK):
            requests += len(coalesce(k, line_size, rows=rows[start:start + _CHUNK])[0])
    insts = thread_instructions(wl)
    return 1000.0 * requests / insts if insts else 0.0


def ctas_per_sm(kernel, limits: dict | None = None) -> int:
    """CTAs of ``kernel`` one SM holds at once under ``limits`` (default :data:`GTX480`).

    The least of the CTA limit, the thread limit, the register file (each
    CTA's warps allocate ``32 * regs_per_thread`` registers per warp, as in
    GPGPU-Sim) and shared memory; a limit the kernel does not use (0 registers
    or shared bytes) does not bind.
    """
    lim = GTX480 if limits is None else limits
    threads = 32 * kernel.warps_per_cta  # GPGPU-Sim pads CTAs to whole warps
    n = min(lim["ctas"], lim["threads"] // threads)
    if kernel.regs_per_thread:
        n = min(n, lim["registers"] // (threads * kernel.regs_per_thread))
    if kernel.shared_bytes:
        n = min(n, lim["shared_bytes"] // kernel.shared_bytes)
    return n


def f_smem(wl: Workload, limits: dict | None = None) -> tuple[float, str]:
    """Fraction of an SM's shared memory in use at full residency (ciao18 Table II's F_smem).

    For each kernel, ``ctas_per_sm * shared_bytes / limits["shared_bytes"]``;
    the workload's figure is the largest over its kernels, returned with that
    kernel's name ("" when no kernel uses shared memory).
    """
    lim = GTX480 if limits is None else limits
    best, name = 0.0, ""
    for k in {id(k): k for k in wl.kernels}.values():
        frac = ctas_per_sm(k, lim) * k.shared_bytes / lim["shared_bytes"]
        if frac > best:
            best, name = frac, k.name
    return best, name


def ciao18_stats(wl: Workload) -> dict:
    """ciao18 Table II's figures for ``wl``: ``apki``, ``f_smem`` (with ``f_smem_kernel``),
    ``barriers`` (whether any kernel has a ``__syncthreads``) and ``input_bytes`` (the
    device arrays the program allocates, from ``wl.params``)."""
    frac, kernel = f_smem(wl)
    return {"apki": apki(wl), "f_smem": frac, "f_smem_kernel": kernel or "-",
            "barriers": any(bool((k.insts["op"] == Op.BARRIER).any()) for k in wl.kernels),
            "input_bytes": wl.params.get("input_bytes")}


#: Extra figures per suite, added to :func:`workload_stats`'s row by ``gpucache workloads --stats``.
SUITE_STATS = {"ciao18": ciao18_stats}
