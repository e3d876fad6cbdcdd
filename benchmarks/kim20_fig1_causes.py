"""Experiments behind the kim20 Fig. 1 differences of ``docs/workloads/kim20.md``.

One baseline run of a kim20 workload on the timing model (kim20 preset, no
policy) with the per-access log (``docs/timing.md``: cycle, SM, line, op,
outcome, and the SMs' occupancy-monitor events), and one run of the
functional model (``--timing none``) with per-access outcomes; from them:

``split``
    L1 lookups by outcome (hits, true misses, sector misses, MSHR merges), loads
    and stores apart, and the miss rate under several definitions, beside
    Fig. 1's number.
``kernels``
    The same per kernel, timed beside functional.
``arrays``
    Per kernel, array and op: lookups, timed and functional non-hits, and the
    timed and functional true load misses split into first touches of the
    line on that SM (cold) and misses of a line the SM had loaded before
    (evicted since). Arrays are the workload's ``cudaMalloc`` ranges.
``pcs``
    Per memory instruction (PC): functional lookups and miss rate, per line
    request and per 32-byte sector.
``sectors``
    The timed miss rate per 32-byte sector, estimated: each timed lookup weighs
    the mean sector count of the functional requests with its kernel, op and
    line (exact where they all have the same count; the share is printed), and
    a non-hit counts all its sectors as misses.
``occupancy``
    Warp occupancy under several definitions, from the SMs' monitor events
    (``ready``: warps with a valid instruction-buffer entry) and counters.
``sweep``
    The functional (and, with ``--sweep-timed``, the timed) miss rate at
    each of ``--scales``.
``window``
    The miss-rate definitions of ``split`` over the lookups in kim20's sampling windows only
    (each SM's first 5,000 cycles of each kernel), what the policy's MRMU counts.
``candidate``
    STC only: timed load outcomes on the candidate ``x``'s column of ``coord``
    (the broadcast ``coord[i*num + x]`` loads) and on the other lines.
``launches``
    STC only: functional miss rate with the first ``--launches`` ``pgain``
    launches (the workload holds 4).

One factor can be varied at a time: ``--scheduler`` (both models),
``--l1 FIELD=N`` (an L1 field of the preset, e.g. ``ports=32``, ``mshrs=16``,
``allocate=on-miss``), ``--fixed-latency N`` (the timed run on ideal memory) and
``--dependences`` (the timed run's load-use rule, ``docs/timing.md``); the preset before
2026-11-24 is ``--l1 mshrs=256 --l1 mshr_merges=8 --l1 lookup_latency=0``, and the one before
the pipeline (2026-11-24; the lookup at the request's sending, misses held 82 cycles after it)
``--l1 lookup_latency=0 --l1 miss_latency=82``. The timed run is
saved under ``--save`` (``/tmp/fig1`` by default) and reused by later calls
with the same workload, scale and machine (the file name ends with a digest of
the whole configuration, so a run of an older preset is never reused; it does not cover the
model's code, so after a change to ``golden/gpu`` give a fresh ``--save``). ``docs/workloads/kim20.md``
("What the runs show") quotes the output.

``--lean`` keeps only the monitor rows and outcome counts of the timed run
(``split`` and ``occupancy`` only; the whole suite at scale 1 fits in memory),
``--json FILE`` appends the ``split``, ``window`` and ``occupancy`` figures as one JSON
line, and ``--table FILE`` prints such lines beside Fig. 1 (the occupancy definitions
of :data:`TABLE_OCC`). ``--stc-dim D`` builds STC with ``D`` coordinates per point
instead of the run script's 256 (an input-size experiment, :func:`stc_with_dim`).

Usage::

    python benchmarks/kim20_fig1_causes.py --workload pf --scale 1 [--experiment split ...]
        [--scheduler lrr] [--l1 ports=32] [--fixed-latency 100]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np

from golden.cache.hierarchy import Hierarchy
from golden.configs.presets import preset
from golden.configs.schema import GPUConfig
from golden.driver import drive
from golden.errors import InputError
from golden.gpu.model import TimingModel
from golden.rd.stack import stack_distances
from golden.trace.model import Op, Workload
from golden.workloads import registry

EXPERIMENTS = ("split", "kernels", "arrays", "pcs", "sectors", "occupancy", "sweep", "launches", "candidate",
               "window")
#: Fig. 1 of kim20 (Sec. 2 and 5), in %.
PAPER_MISS = {"cf": 4.6, "pf": 99, "ms": 95, "stc": 73, "lud": 72, "shfl": 68}
PAPER_OCC = {"spmv": 89, "bt": 84, "stc": 93, "lud": 18}
#: Timed per-access log rows: compact copy of the model's (cycle, sm, line, op, outcome) plus kernel.
LOG_DTYPE = np.dtype([("cycle", "<i8"), ("sm", "<i2"), ("line", "<i8"), ("op", "i1"), ("outcome", "i1"),
                      ("kernel", "<i2")])
HIT, MISS, MERGE, SECTOR, READY, FIRST_CTA = 1, 2, 3, 4, 5, 6
#: kim20's sampling window (Sec. 3: 5K cycles).
WINDOW = 5000
LOG_ROWS = 1 << 21


def _pct(a: float, b: float) -> str:
    return f"{100 * a / b:5.1f}%" if b else "    -"


# ----------------------------------------------------------------------------------------- runs

def machine(scheduler: str | None = None, l1: dict | None = None) -> GPUConfig:
    """kim20's preset, with another warp scheduler or L1 fields if given (one factor varied)."""
    gpu = preset("kim20")
    if scheduler is not None:
        gpu = gpu.replace(scheduler=scheduler)
    return gpu.replace(l1=gpu.l1.replace(**l1)) if l1 else gpu


def l1_field(text: str) -> tuple[str, int | str]:
    """``FIELD=N`` of ``--l1`` (an integer field of the L1's ``CacheConfig``, or ``allocate=on-miss``)."""
    name, _, value = text.partition("=")
    if name == "allocate":
        if value not in ("on-miss", "on-fill"):
            raise argparse.ArgumentTypeError(f"--l1 allocate: on-miss or on-fill, not {value!r}")
        return name, value
    if name not in ("ports", "mshrs", "mshr_merges", "miss_queue", "hit_latency", "miss_latency",
                    "lookup_latency", "assoc", "size"):
        raise argparse.ArgumentTypeError(f"--l1: an integer L1 field (ports, mshrs, ...), not {name!r}")
    try:
        return name, int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--l1 {name}: an integer, not {value!r}") from None


def lean_rows(rows: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Add the lookups of model log ``rows`` (cycle, sm, line, op, outcome) to ``counts[op, outcome]``;
    return the monitor rows (``READY``, ``FIRST_CTA``)."""
    acc = rows[rows[:, 4] <= SECTOR]
    np.add.at(counts, (acc[:, 3], acc[:, 4]), 1)
    return rows[(rows[:, 4] == READY) | (rows[:, 4] == FIRST_CTA)]


def timed_run(wl: Workload, save: Path | None, gpu: GPUConfig, fixed_latency: int = -1,
              lean: bool = False, dependences: str = "next-memory") -> dict:
    """The baseline timed run with its log: ``{"log", "kernels": [(name, start, end, counters)]}``.

    With ``lean`` the log keeps only the monitor rows (outcomes 5 and 6) and the lookups are
    kept as counts, ``"counts"``: ``[kernel, op, outcome]`` (enough for ``split`` and
    ``occupancy``, in far less memory).
    """
    if save is not None and save.is_file():
        z = np.load(save, allow_pickle=False)
        run = {"log": z["log"], "kernels": json.loads(str(z["kernels"]))}
        if "counts" in z.files:
            run["counts"] = z["counts"]
        return run
    tm = TimingModel(gpu, Hierarchy(gpu), log_capacity=LOG_ROWS, fixed_latency=fixed_latency,
                     dependences=dependences)
    parts: list[np.ndarray] = []
    kernels = []
    counts = np.zeros((len(wl.kernels), 8, 8), np.int64)
    t0, c0 = time.time(), time.process_time()
    for i, kernel in enumerate(wl.kernels):
        def digest(_done: int, _total: int, i: int = i) -> None:
            if tm.lost:
                raise RuntimeError(f"the per-access log lost {tm.lost} rows")
            for rows in tm.log:
                if lean:
                    rows = lean_rows(rows, counts[i])
                out = np.empty(len(rows), LOG_DTYPE)
                for j, name in enumerate(("cycle", "sm", "line", "op", "outcome")):
                    out[name] = rows[:, j]
                out["kernel"] = i
                parts.append(out)
            tm.log.clear()
        t = tm.run_kernel(kernel, i, digest)
        kernels.append((kernel.name, t.start, t.end, t.counters))
    log = np.concatenate(parts) if parts else np.zeros(0, LOG_DTYPE)
    print(f"timed run: {len(wl.kernels)} kernels, {len(log):,} log rows, {time.time() - t0:.0f} s wall, "
          f"{time.process_time() - c0:.0f} s CPU")
    run = {"log": log, "kernels": kernels}
    if lean:
        run["counts"] = counts
    if save is not None:
        save.parent.mkdir(parents=True, exist_ok=True)
        extra = {"counts": counts} if lean else {}
        np.savez_compressed(save, log=log, kernels=json.dumps(kernels), **extra)
    return run


def functional_run(wl: Workload, gpu: GPUConfig) -> np.ndarray:
    """Every access of the functional model (interleaver order) with ``hit`` (L1 hit) added."""
    parts = []
    fields = ("kernel", "sm", "pc", "op", "sectors", "line")
    dt = np.dtype([(f, "<i8") for f in fields] + [("hit", "?")])

    def keep(c) -> None:
        out = np.empty(len(c.accesses), dt)
        for f in fields:
            out[f] = c.accesses[f]
        out["hit"] = (c.outcomes[0] & 0x7F) == 1 if c.outcomes[0] is not None else False
        parts.append(out)
    drive(wl, gpu, [Hierarchy(gpu)], outcomes=[True], on_chunk=keep)
    return np.concatenate(parts) if parts else np.zeros(0, dt)


def array_ranges(wl: Workload, line_size: int = 128) -> list[tuple[str, int, int]]:
    """``(name, first line, end line)`` of each array, as the modules' ``DeviceMemory`` allocates them.

    Arrays follow one another from 0x1000_0000, 256-byte aligned, in the order of
    ``params["arrays"]``; names with a ``prefix.`` (SHFL's ``image.``) are a second
    allocator's, from 0x2000_0000.
    """
    out = []
    nxt: dict[str, int] = {}
    for name, size in wl.params.get("arrays", {}).items():
        group = name.split(".")[0] if "." in name else ""
        base = nxt.get(group, 0x2000_0000 if group else 0x1000_0000)
        out.append((name, base // line_size, -(-(base + size) // line_size)))
        nxt[group] = base + -(-size // 256) * 256
    return out


def array_of(lines: np.ndarray, ranges: list[tuple[str, int, int]]) -> np.ndarray:
    """Index into ``ranges`` of each line (``len(ranges)`` for none)."""
    idx = np.full(len(lines), len(ranges), np.int64)
    for i, (_, lo, hi) in enumerate(ranges):
        idx[(lines >= lo) & (lines < hi)] = i
    return idx


def first_load_touch(sm: np.ndarray, line: np.ndarray, is_load: np.ndarray) -> np.ndarray:
    """True for each load that is the first load of its line on its SM (in array order)."""
    key = sm.astype(np.int64) << 48 | line.astype(np.int64)
    first = np.zeros(len(key), bool)
    idx = np.flatnonzero(is_load)
    _, pos = np.unique(key[idx], return_index=True)
    first[idx[pos]] = True
    return first


def set_distances(sm: np.ndarray, line: np.ndarray, sets: int) -> np.ndarray:
    """Per access (in array order): distinct lines of the same L1 set on the same SM since its last use.

    The L1 is LRU per set (kim20: 4 sets of 48 ways, set = line mod 4), so a reuse at
    distance >= the associativity misses whatever the timing; -1 for a first use
    (:func:`golden.rd.stack.stack_distances`, one group per SM and set).
    """
    sm, line = sm.astype(np.int64), line.astype(np.int64)
    return stack_distances(sm << 48 | line, sm * sets + line % sets)


# ---------------------------------------------------------------------------------- experiments

def _definitions(hits, misses, sectors, merges, st_hits, st_all) -> list[tuple[str, float, float]]:
    """Miss-rate definitions: (name, misses, lookups) from load outcome counts and store counts."""
    loads = hits + misses + sectors + merges
    return [
        ("ours: non-hits / lookups, stores incl., merges and sector misses are misses",
         loads - hits + st_all - st_hits, loads + st_all),
        ("loads only", loads - hits, loads),
        ("loads only, merges not counted (GPGPU-Sim's MSHR_HIT apart)", misses + sectors, loads - merges),
        ("loads only, merges counted as hits", misses + sectors, loads),
        ("loads only, true misses only (sector misses and merges as hits)", misses, loads),
        ("stores incl. and always misses (write-no-allocate counting)", loads - hits + st_all,
         loads + st_all),
    ]


def split(wl: Workload, run: dict, name: str) -> dict:
    """Lookups by outcome, loads and stores, and miss-rate definitions, timed."""
    c = run_counts(run)
    n = {o: c[o] for o in (HIT, MISS, MERGE, SECTOR)}
    st_all, st_hits = c["st"], c["st_hit"]
    loads = sum(n.values())
    print(f"\n[split] {wl.name}: timed L1 lookups {loads + st_all:,} (loads {loads:,}, "
          f"stores/atomics {st_all:,})")
    for label, o in (("hits", HIT), ("true misses", MISS), ("sector misses", SECTOR), ("MSHR merges", MERGE)):
        print(f"  loads {label:<14} {n[o]:>11,}  {_pct(n[o], loads)} of loads")
    print(f"  store hits           {st_hits:>11,}  {_pct(st_hits, st_all)} of stores")
    print(f"  paper (Fig. 1): {PAPER_MISS.get(name, '-')} %")
    return _print_definitions(c)


def _print_definitions(c: dict) -> dict:
    """Print each miss-rate definition of outcome counts ``c`` (``run_counts``); return them in %."""
    out = {}
    for label, m, d in _definitions(c[HIT], c[MISS], c[SECTOR], c[MERGE], c["st_hit"], c["st"]):
        print(f"  {_pct(m, d)}  {label}")
        out[label.split(":")[0]] = round(100 * m / d, 3) if d else None
    return out


def run_counts(run: dict) -> dict:
    """Timed load outcome counts and store counts of a whole run (from the log, or a lean run's counts)."""
    if "counts" in run:
        c = run["counts"].sum(axis=0)
        out = {o: int(c[Op.LOAD, o]) for o in (HIT, MISS, MERGE, SECTOR)}
        stores = [op for op in range(c.shape[0]) if op != Op.LOAD]
        out["st"] = int(c[stores][:, HIT:SECTOR + 1].sum())
        out["st_hit"] = int(c[stores, HIT].sum())
        return out
    log = run["log"]
    return _outcome_counts(log[log["outcome"] <= SECTOR])


def _outcome_counts(a: np.ndarray) -> dict:
    ld = a["op"] == Op.LOAD
    out = {o: int(np.count_nonzero(ld & (a["outcome"] == o))) for o in (HIT, MISS, MERGE, SECTOR)}
    out["st"] = int(np.count_nonzero(~ld))
    out["st_hit"] = int(np.count_nonzero(~ld & (a["outcome"] == HIT)))
    return out


def kernels(wl: Workload, run: dict, func: np.ndarray) -> None:
    """Per kernel: timed outcomes beside the functional miss rate."""
    log = run["log"]
    acc = log[log["outcome"] <= SECTOR]
    print(f"\n[kernels] {wl.name}: per kernel, timed load outcomes and miss rates; functional miss rate")
    print(f"  {'#':>3} {'kernel':<32} {'lookups':>10} {'ld hit':>9} {'ld miss':>9} {'sector':>8} "
          f"{'merge':>8} {'stores':>8} {'timed':>6} {'func':>6}")
    for k, (kname, *_rest) in enumerate(run["kernels"]):
        a = acc[acc["kernel"] == k]
        c = _outcome_counts(a)
        f = func[func["kernel"] == k]
        print(f"  {k:>3} {kname:<32} {len(a):>10,} {c[HIT]:>9,} {c[MISS]:>9,} {c[SECTOR]:>8,} "
              f"{c[MERGE]:>8,} {c['st']:>8,} {_pct(len(a) - c[HIT] - c['st_hit'], len(a))} "
              f"{_pct(np.count_nonzero(~f['hit']), len(f))}")


def _far(sm, line, is_load, gpu: GPUConfig) -> np.ndarray:
    """True for each load reusing a line at set distance >= the L1's ways (loads only counted)."""
    sets = gpu.l1.size // (gpu.l1.line_size * gpu.l1.assoc)
    far = np.zeros(len(line), bool)
    idx = np.flatnonzero(is_load)
    far[idx] = set_distances(sm[idx], line[idx], sets) >= gpu.l1.assoc
    return far


def arrays(wl: Workload, run: dict, func: np.ndarray, gpu: GPUConfig) -> None:
    """Per kernel, array and op: timed and functional non-hits; true load misses cold or evicted.

    ``far``: loads that reuse their line (on the same SM) after at least as many other
    lines of its set as the L1 has ways: misses of an LRU cache whatever the timing.
    """
    ranges = array_ranges(wl)
    names = [r[0] for r in ranges] + ["(other)"]
    log = run["log"]
    acc = log[log["outcome"] <= SECTOR]
    t_arr, f_arr = array_of(acc["line"], ranges), array_of(func["line"], ranges)
    t_ld, f_ld = acc["op"] == Op.LOAD, func["op"] == Op.LOAD
    t_first = first_load_touch(acc["sm"], acc["line"], t_ld)
    f_first = first_load_touch(func["sm"], func["line"], f_ld)
    t_far = _far(acc["sm"], acc["line"], t_ld, gpu)
    f_far = _far(func["sm"], func["line"], f_ld, gpu)
    print(f"\n[arrays] {wl.name}: per kernel, array, op; timed non-hits by kind; true load misses "
          "as first load of the line on the SM (cold) or of a line loaded there before (evicted); "
          f"far: loads reusing a line after >= {gpu.l1.assoc} other lines of its set")
    print(f"  {'#':>3} {'array':<18} {'op':<5} {'lookups':>9} | {'timed':>6} {'miss':>8} {'cold':>7} "
          f"{'evicted':>8} {'sector':>7} {'merge':>7} {'far':>8} | {'func':>6} {'miss':>8} {'cold':>7} "
          f"{'evicted':>8} {'far':>8}")
    for k in range(len(run["kernels"])):
        for ai, aname in enumerate(names):
            for op in (Op.LOAD, Op.STORE):
                tm = (acc["kernel"] == k) & (t_arr == ai) & (acc["op"] == op)
                fm = (func["kernel"] == k) & (f_arr == ai) & (func["op"] == op)
                nt, nf = int(np.count_nonzero(tm)), int(np.count_nonzero(fm))
                if not nt and not nf:
                    continue
                o = acc["outcome"][tm]
                t_miss, f_miss = o == MISS, ~func["hit"][fm]
                head = (f"  {k:>3} {aname[:18]:<18} {op.name.lower():<5} {nt:>9,} | "
                        f"{_pct(int(np.count_nonzero(o != HIT)), nt):>6} {int(t_miss.sum()):>8,}")
                if op != Op.LOAD:  # stores do not allocate: the rest applies to loads
                    print(f"{head} {'':>7} {'':>8} {'':>7} {'':>7} {'':>8} | "
                          f"{_pct(int(f_miss.sum()), nf):>6} {int(f_miss.sum()):>8,}")
                    continue
                t_cold = int(np.count_nonzero(t_first[tm] & t_miss))
                f_cold = int(np.count_nonzero(f_first[fm] & f_miss))
                print(f"{head} {t_cold:>7,} {int(t_miss.sum()) - t_cold:>8,} "
                      f"{int(np.count_nonzero(o == SECTOR)):>7,} {int(np.count_nonzero(o == MERGE)):>7,} "
                      f"{int(t_far[tm].sum()):>8,} | {_pct(int(f_miss.sum()), nf):>6} "
                      f"{int(f_miss.sum()):>8,} "
                      f"{f_cold:>7,} {int(f_miss.sum()) - f_cold:>8,} {int(f_far[fm].sum()):>8,}")


def pcs(wl: Workload, func: np.ndarray, name: str) -> None:
    """Per memory instruction: functional lookups and miss rate per line request and per sector."""
    print(f"\n[pcs] {wl.name}: functional model per instruction (PC); paper {PAPER_MISS.get(name, '-')} %")
    print(f"  {'#':>3} {'kernel':<28} {'pc':>6} {'op':<5} {'requests':>10} {'miss':>7} "
          f"{'sectors':>10} {'miss/sector':>11}")
    nsec = np.array([bin(i).count("1") for i in range(256)])[func["sectors"]]
    for k in np.unique(func["kernel"]):
        fk = func[func["kernel"] == k]
        sk = nsec[func["kernel"] == k]
        for pc in np.unique(fk["pc"]):
            m = fk["pc"] == pc
            f = fk[m]
            miss = ~f["hit"]
            print(f"  {k:>3} {wl.kernels[k].name[:28]:<28} {pc:>6x} {Op(f['op'][0]).name.lower():<5} "
                  f"{len(f):>10,} {_pct(miss.sum(), len(f))} {int(sk[m].sum()):>10,} "
                  f"{_pct(int(sk[m][miss].sum()), int(sk[m].sum())):>11}")
    ld = func["op"] == Op.LOAD
    miss = ~func["hit"]
    print("  functional totals:")
    for label, m, w in (("per request, stores incl. (ours)", np.ones(len(func), bool), None),
                        ("per request, loads only", ld, None),
                        ("per sector, stores incl.", np.ones(len(func), bool), nsec),
                        ("per sector, loads only", ld, nsec),
                        ("per sector, stores always miss", np.ones(len(func), bool), nsec)):
        wt = np.ones(len(func)) if w is None else w
        mm = miss | ~ld if "always" in label else miss
        print(f"    {_pct(float(wt[m & mm].sum()), float(wt[m].sum()))}  {label}")


_POPCOUNT = np.array([bin(i).count("1") for i in range(256)])


def sector_weights(acc: np.ndarray, func: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per timed lookup: the mean, fewest and most sectors of the functional requests of its line.

    Lookups and requests are matched on kernel, op and line (the two models issue the same
    requests in another order, on other SMs).

    Raises
    ------
    ValueError
        If a timed lookup has no functional request of its kernel, op and line.
    """
    def key(a):
        return (a["kernel"].astype(np.int64) << 56) | (a["op"].astype(np.int64) << 52) | a["line"].astype(
            np.int64)
    uniq, inv = np.unique(key(func), return_inverse=True)
    pop = _POPCOUNT[func["sectors"]].astype(float)
    lo = np.full(len(uniq), 9.0)
    hi = np.zeros(len(uniq))
    np.minimum.at(lo, inv, pop)
    np.maximum.at(hi, inv, pop)
    k = key(acc)
    pos = np.searchsorted(uniq, k)
    if len(uniq) == 0 or not np.array_equal(uniq[np.minimum(pos, len(uniq) - 1)], k):
        raise ValueError("log: a timed lookup has no functional request of its kernel, op and line")
    return (np.bincount(inv, pop) / np.bincount(inv))[pos], lo[pos], hi[pos]


def sectors(wl: Workload, run: dict, func: np.ndarray, name: str) -> None:
    """Timed miss rate per sector, each lookup weighted as the functional requests of its line."""
    log = run["log"]
    acc = log[log["outcome"] <= SECTOR]
    w, lo_w, hi_w = sector_weights(acc, func)
    non = acc["outcome"] != HIT
    ld = acc["op"] == Op.LOAD
    print(f"\n[sectors] {wl.name}: timed miss rate per sector (estimated; {(lo_w == hi_w).mean():.1%} of the "
          f"lookups exact); paper {PAPER_MISS.get(name, '-')} %")
    low = float(lo_w[non].sum()) / float(lo_w[non].sum() + hi_w[~non].sum())
    high = float(hi_w[non].sum()) / float(hi_w[non].sum() + lo_w[~non].sum())
    print(f"  {_pct(float(w[non].sum()), float(w.sum()))}  per sector, stores incl. (bounds from the "
          f"fewest and most sectors of each line's requests: {low:.1%} to {high:.1%})")
    print(f"  {_pct(float(w[non & ld].sum()), float(w[ld].sum()))}  per sector, loads only")
    true = non & (acc["outcome"] != MERGE)
    print(f"  {_pct(float(w[true].sum()), float(w.sum()))}  per sector, stores incl., merges as hits "
          "(GPGPU-Sim's HIT_RESERVED on an allocate-on-miss L1)")
    miss = non & ld & (acc["outcome"] != MERGE)
    print(f"  {_pct(float(w[miss].sum()), float(w[ld & (acc['outcome'] != MERGE)].sum()))}  per sector, "
          "loads only, merges not counted")
    print(f"  {_pct(float(w[miss].sum()), float(w[ld].sum()))}  per sector, loads only, merges as hits")


def in_windows(log: np.ndarray, window: int = WINDOW) -> np.ndarray:
    """True for each log row inside its SM's sampling window of its kernel: ``window`` cycles from
    the SM's first CTA (the ``FIRST_CTA`` rows), as kim20's MRMU samples."""
    first = log[log["outcome"] == FIRST_CTA]
    start = np.full((int(log["kernel"].max(initial=0)) + 1, int(log["sm"].max(initial=0)) + 1), -1, np.int64)
    start[first["kernel"], first["sm"]] = first["cycle"]
    s = start[log["kernel"], log["sm"]]
    return (s >= 0) & (log["cycle"] >= s) & (log["cycle"] < s + window)


def window(wl: Workload, run: dict, name: str) -> dict:
    """Miss-rate definitions over the lookups inside kim20's sampling windows only (the MRMU's view)."""
    log = run["log"]
    acc = log[(log["outcome"] <= SECTOR) & in_windows(log)]
    c = _outcome_counts(acc)
    print(f"\n[window] {wl.name}: lookups in each SM's {WINDOW}-cycle window from its first CTA of each "
          f"kernel: {len(acc):,} of {int(np.count_nonzero(log['outcome'] <= SECTOR)):,}; paper "
          f"{PAPER_MISS.get(name, '-')} %")
    return _print_definitions(c)


def _steps(t: np.ndarray, v: np.ndarray, start: int, end: int) -> tuple[float, float]:
    """Integral of the step function (t, v) over [start, end) and the time it is above 0."""
    if end <= start:
        return 0.0, 0.0
    tt = np.clip(np.concatenate([t, [end]]), start, end)
    dur = np.diff(tt).astype(float)
    return float((dur * v).sum()), float(dur[v > 0].sum())


def _busy_mean(e: np.ndarray, start: int, end: int) -> tuple[float, float]:
    """Integral over [start, end) of (ready warps summed over SMs) / (SMs with a ready warp), and
    the cycles with at least one such SM."""
    order = np.lexsort((e["cycle"], e["sm"]))
    s = e[order]
    v = s["line"].astype(float)
    new_sm = np.concatenate([[True], s["sm"][1:] != s["sm"][:-1]])
    prev = np.where(new_sm, 0.0, np.concatenate([[0.0], v[:-1]]))
    t = s["cycle"]
    by_t = np.argsort(t, kind="stable")
    t, d_total, d_busy = t[by_t], (v - prev)[by_t], ((v > 0).astype(float) - (prev > 0))[by_t]
    total, busy = np.cumsum(d_total), np.cumsum(d_busy)
    tt = np.clip(np.concatenate([t, [end]]), start, end)
    dur = np.diff(tt).astype(float)
    on = busy > 0
    return float((dur[on] * total[on] / busy[on]).sum()), float(dur[on].sum())


def occupancy(wl: Workload, run: dict, name: str, gpu: GPUConfig) -> dict:
    """Warp occupancy under several definitions from one timed run's monitor events (returned, in %)."""
    slots, n_sm = gpu.max_warps_per_sm, gpu.n_sm
    log = run["log"]
    ev = log[log["outcome"] == READY]
    res = dict.fromkeys(("resident", "ready_all", "ready_busy", "busy", "cycles", "full_all", "full_busy",
                         "full_busy_t", "full_cycles", "win_sum", "win_n", "win_cycles",
                         "mean_busy", "mean_busy_t"), 0.0)
    per_kernel = []
    for k, (kname, start, end, c) in enumerate(run["kernels"]):
        e = ev[ev["kernel"] == k]
        # The SM's ready value rises by a CTA's warps when a CTA starts there: the last such rise
        # is the kernel's last dispatch; after it the grid's tail drains.
        last_dispatch = start
        first_cta = {}
        integ, busy, f_integ, f_busy = 0.0, 0.0, 0.0, 0.0
        for sm in range(n_sm):
            s = e[e["sm"] == sm]
            if not len(s):
                continue
            t, v = s["cycle"], s["line"].astype(float)
            rises = np.flatnonzero(np.diff(np.concatenate([[0.0], v])) > 0)
            last_dispatch = max(last_dispatch, int(t[rises[-1]]) if len(rises) else start)
            first_cta[sm] = int(t[rises[0]]) if len(rises) else int(t[0])
            a, b = _steps(t, v, start, end)
            integ += a
            busy += b
        for sm in range(n_sm):
            s = e[e["sm"] == sm]
            if len(s):
                a, b = _steps(s["cycle"], s["line"].astype(float), start, last_dispatch)
                f_integ += a
                f_busy += b
                w0 = first_cta[sm]
                a, _ = _steps(s["cycle"], s["line"].astype(float), w0, min(w0 + WINDOW, end))
                res["win_sum"] += a / (slots * (min(w0 + WINDOW, end) - w0)) if end > w0 else 0
                res["win_n"] += 1
        cyc = end - start
        if len(e):
            a, b = _busy_mean(e, start, end)
            res["mean_busy"] += a
            res["mean_busy_t"] += b
        res["resident"] += c["warp_cycles"]
        res["cycles"] += c["slot_cycles"] / slots / n_sm
        res["ready_all"] += integ
        res["ready_busy"] += integ
        res["busy"] += busy
        res["full_all"] += f_integ
        res["full_cycles"] += last_dispatch - start
        res["full_busy"] += f_integ
        res["full_busy_t"] += f_busy
        per_kernel.append((k, kname, cyc, c["warp_cycles"] / c["slot_cycles"] if c["slot_cycles"] else 0,
                           integ / (slots * n_sm * cyc) if cyc else 0, integ / (slots * busy) if busy else 0,
                           (last_dispatch - start) / cyc if cyc else 0, len(first_cta)))
    out = {"resident": res["resident"] / (res["cycles"] * slots * n_sm),
           "ready_all": res["ready_all"] / (res["cycles"] * slots * n_sm),
           "ready_busy": res["ready_busy"] / (res["busy"] * slots) if res["busy"] else 0.0,
           "mean_busy": res["mean_busy"] / (res["mean_busy_t"] * slots) if res["mean_busy_t"] else 0.0,
           "kernel_mean_busy": float(np.mean([k[5] for k in per_kernel])) if per_kernel else 0.0,
           "before_last_cta": (res["full_all"] / (res["full_cycles"] * slots * n_sm)
                               if res["full_cycles"] else 0.0),
           "before_last_cta_share": res["full_cycles"] / res["cycles"] if res["cycles"] else 0.0,
           "window": res["win_sum"] / max(res["win_n"], 1)}
    out = {k: round(100 * v, 3) for k, v in out.items()}
    print(f"\n[occupancy] {wl.name}: paper (Fig. 1) {PAPER_OCC.get(name, '-')} %")
    print(f"  {res['resident'] / (res['cycles'] * slots * n_sm):6.1%}  ours: resident warps / (56 SMs x 32 "
          "slots), every cycle")
    print(f"  {res['ready_all'] / (res['cycles'] * slots * n_sm):6.1%}  warps able to issue (ready) / "
          "all SMs' slots")
    print(f"  {res['ready_busy'] / (res['busy'] * slots):6.1%}  ready / slots of the SMs that have a "
          "ready warp (idle SMs left out)")
    if res["mean_busy_t"]:
        print(f"  {res['mean_busy'] / (res['mean_busy_t'] * slots):6.1%}  per cycle: mean ready / 32 over "
              "the SMs that have a ready warp, averaged over the cycles in which one has")
    print(f"  {np.mean([k[4] for k in per_kernel]):6.1%}  mean over kernels of each kernel's ready / all "
          "slots (every launch weighs the same)")
    print(f"  {np.mean([k[5] for k in per_kernel]):6.1%}  mean over kernels of each kernel's ready / busy "
          "SMs' slots")
    if res["full_cycles"]:
        print(f"  {res['full_all'] / (res['full_cycles'] * slots * n_sm):6.1%}  ready / all slots, cycles "
              f"before each kernel's last CTA dispatch only ({res['full_cycles'] / res['cycles']:.1%} "
              "of the cycles)")
        if res["full_busy_t"]:
            print(f"  {res['full_busy'] / (res['full_busy_t'] * slots):6.1%}  the same, idle SMs left out")
    print(f"  {res['win_sum'] / max(res['win_n'], 1):6.1%}  kim20's monitor: mean over SMs and kernels of "
          f"ready / 32 in the {WINDOW}-cycle window from the SM's first CTA ({int(res['win_n'])} windows)")
    if len(per_kernel) <= 60:
        print(f"  {'#':>3} {'kernel':<28} {'cycles':>9} {'resident':>8} {'ready':>7} {'ready busy':>10} "
              f"{'before last CTA':>15} {'SMs':>4}")
        for k, kname, cyc, r, ra, rb, full, sms in per_kernel:
            print(f"  {k:>3} {kname[:28]:<28} {cyc:>9,} {r:>8.1%} {ra:>7.1%} {rb:>10.1%} {full:>15.1%} "
                  f"{sms:>4}")
    return out


def sweep(name: str, scales: list[float], timed: bool, gpu: GPUConfig) -> None:
    """Miss rate (ours) at each scale, functional and optionally timed."""
    print(f"\n[sweep] kim20/{name}: miss rate by input scale; paper {PAPER_MISS.get(name, '-')} %")
    for s in scales:
        wl = sized(name, s)
        f = functional_run(wl, gpu)
        line = (f"  scale {s:<6g} params {_brief(wl.params)}: "
                f"functional {_pct(np.count_nonzero(~f['hit']), len(f))}")
        if timed:
            r = timed_run(wl, None, gpu)
            acc = r["log"][r["log"]["outcome"] <= SECTOR]
            c = _outcome_counts(acc)
            line += f", timed {_pct(len(acc) - c[HIT] - c['st_hit'], len(acc))}"
        print(line, flush=True)


def stc_with_dim(scale: float, dim: int) -> Workload:
    """STC with ``dim`` coordinates per point instead of the run script's 256 (an input-size experiment).

    Built by :func:`golden.workloads.kim20_stc.build` with its ``DIM`` replaced for the call (not
    through the registry, whose trace cache would take it for the standard input).
    """
    from golden.workloads import kim20_stc

    if not (isinstance(dim, int) and dim >= 1):
        raise ValueError(f"--stc-dim: a positive integer, not {dim!r}")
    saved = kim20_stc.DIM
    kim20_stc.DIM = dim
    try:
        return kim20_stc.build(scale)
    finally:
        kim20_stc.DIM = saved


def sized(name: str, scale: float) -> Workload:
    """The workload at ``scale``; above 1 (LUD, MS, SPMV) built the way the module builds scale 1.

    LUD: a ``256 * scale`` matrix (``lud_kernels``); MS: ``131072 * scale`` keys (a power of two,
    uniform in ``[0, 65536)`` from seed 0, ``merge_sort_kernels``), towards the SDK sample's 4 M;
    SPMV: ``65536 * scale`` rows (``random_rows``, ``csr_kernel``, seed 0).
    """
    if scale <= 1:
        return registry.build(f"kim20/{name}", scale)
    from golden.workloads import kim20_lud, kim20_ms, kim20_spmv
    from golden.workloads._common import DeviceMemory, PCs
    from golden.workloads._kim20 import with_resources
    from golden.workloads.tian15_spmv import csr_arrays, csr_kernel

    mem = DeviceMemory()
    if name == "lud":
        dim = int(kim20_lud.DIM * scale) // kim20_lud.BS * kim20_lud.BS
        kernels = with_resources(kim20_lud.lud_kernels(dim, mem.alloc("m", dim * dim * 4), PCs()),
                                 kim20_lud.REGS)
        params = {"matrix_dim": dim, "arrays": mem.sizes()}
    elif name == "ms":
        n = 1 << int(np.log2(kim20_ms.N_PAPER * scale))
        keys = np.random.default_rng(0).integers(0, kim20_ms.NUM_VALUES, n)
        kernels, _ = kim20_ms.merge_sort_kernels(keys, mem=mem, pcs=PCs())
        params = {"n": n, "arrays": mem.sizes()}
    elif name == "spmv":
        n = int(kim20_spmv.SIZE * scale) // 256 * 256
        ap, aj = kim20_spmv.random_rows(n, kim20_spmv.MEAN_NNZ, kim20_spmv.NORMAL_STDDEV, 0)
        mem, base = csr_arrays(n, int(ap[-1]))
        kernels = with_resources([csr_kernel(n, ap, aj, base)], kim20_spmv.REGS)
        params = {"n": n, "arrays": mem.sizes()}
    else:
        raise ValueError(f"--scale: above 1 only for lud, ms and spmv, not {name}")
    return Workload(name=f"kim20/{name}", kernels=kernels, params=params)


def _brief(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items() if isinstance(v, int | float))


def launches(scale: float, counts: list[int], gpu: GPUConfig) -> None:
    """STC: functional miss rate with more of the host's ``pgain`` launches."""
    from golden.workloads import kim20_stc

    print(f"\n[launches] kim20/stc at scale {scale:g}: functional miss rate by pgain launches held; "
          f"paper {PAPER_MISS['stc']} %")
    for n in counts:
        wl = kim20_stc.build(scale, launches=n)
        f = functional_run(wl, gpu)
        print(f"  {n:>4} launches (K {wl.params.get('K')}): {_pct(np.count_nonzero(~f['hit']), len(f))}",
              flush=True)


def candidate(wl: Workload, run: dict) -> None:
    """STC: timed load outcomes on the lines of the candidate's column and on the rest."""
    ranges = dict((n, (lo, hi)) for n, lo, hi in array_ranges(wl))
    base = (ranges["coord_d"][0]) * 128
    num, dim = wl.params["num"], wl.params["dim"]
    log = run["log"]
    acc = log[(log["outcome"] <= SECTOR) & (log["op"] == Op.LOAD)]
    print(f"\n[candidate] {wl.name}: timed loads on the candidate's column (coord[i*num + x]) and the rest")
    for k, x in enumerate(wl.params["x"]):
        col = np.unique((base + (np.arange(dim) * num + x) * 4) // 128)
        a = acc[acc["kernel"] == k]
        on = np.isin(a["line"], col)
        for label, m in (("column of x", on), ("other lines", ~on)):
            o = a["outcome"][m]
            share = {c: _pct(np.count_nonzero(o == c), len(o)) for c in (HIT, MISS, MERGE, SECTOR)}
            print(f"  launch {k} (x {x}) {label:<12} {len(o):>9,} loads: hits {share[HIT]}, misses "
                  f"{share[MISS]}, merges {share[MERGE]}, sector misses {share[SECTOR]}")


#: Occupancy definitions of ``occupancy`` printed by ``table``, in its order.
#: resident: resident warps / all SMs' slots (the suite table's); busy-SM: ready / slots of the SMs
#: with a ready warp (GPGPU-Sim's gpu_tot_occupancy); cycle-mean: per cycle, mean ready over those
#: SMs; launch-mean: mean over launches of busy-SM; window: kim20's 5,000-cycle WOMU sample.
TABLE_OCC = (("resident", "resident"), ("ready_busy", "busy-SM"), ("mean_busy", "cycle-mean"),
             ("kernel_mean_busy", "launch-mean"), ("window", "window"))
#: Fig. 1's bound for the bypass-friendly workloads (kim20 Sec. 5: "less than 46%").
PAPER_OCC_BOUND = {"adi": 46, "nw": 46, "lud": 46, "jcb1d": 46, "shfl": 46, "sqn": 46}


def table(path: str) -> None:
    """Print the ``--json`` records of ``path`` (one per workload) beside Fig. 1's numbers."""
    recs = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            recs[(r["workload"], r["scale"])] = r
    print(f"{'workload':<12} {'Fig.1 miss':>10} {'ours':>6} | {'Fig.1 occ':>9} "
          + " ".join(f"{label:>{max(len(label), 6)}}" for _, label in TABLE_OCC))
    for (w, s), r in sorted(recs.items()):
        paper_occ = PAPER_OCC.get(w, f"<{PAPER_OCC_BOUND[w]}" if w in PAPER_OCC_BOUND else "-")
        occ = r.get("occupancy", {})
        cells = " ".join(f"{occ.get(k, float('nan')):>{max(len(label), 6)}.1f}" for k, label in TABLE_OCC)
        print(f"{w.upper() + f' {s:g}':<12} {PAPER_MISS.get(w, '-'):>10} {r['miss']['ours']:>6.1f} | "
              f"{paper_occ:>9} {cells}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", help="kim20 workload name (pf, cf, shfl, stc, ...)")
    ap.add_argument("--stc-dim", type=int, help="STC: coordinates per point (the run script's 256)")
    ap.add_argument("--table", metavar="FILE", help="print the --json records of FILE beside Fig. 1 and stop")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="input scale (above 1 for lud, ms and spmv only, built as scale 1 is)")
    ap.add_argument("--experiment", action="append", choices=EXPERIMENTS,
                    help="experiments to run (default: split, kernels, arrays, occupancy)")
    ap.add_argument("--save", default="/tmp/fig1", help="directory of saved timed runs ('' for none)")
    ap.add_argument("--scheduler", choices=("lrr", "gto", "oldest", "two-level"),
                    help="warp scheduler of both models (default: the preset's, gto)")
    ap.add_argument("--l1", type=l1_field, action="append", default=[], metavar="FIELD=N",
                    help="change one L1 field of the preset (ports, mshrs, miss_queue, ...), both models")
    ap.add_argument("--fixed-latency", type=int, default=-1,
                    help="timed run on ideal memory with this load latency (default: full memory model)")
    ap.add_argument("--dependences", choices=("next-memory", "none", "next-instruction"),
                    default="next-memory",
                    help="timed run: when a warp with loads outstanding waits (docs/timing.md)")
    ap.add_argument("--scales", type=float, nargs="+", default=[0.125, 0.25, 0.5, 1.0])
    ap.add_argument("--sweep-timed", action="store_true", help="sweep: run the timing model too")
    ap.add_argument("--launches", type=int, nargs="+", default=[4, 8, 16])
    ap.add_argument("--lean", action="store_true",
                    help="keep only the monitor rows and outcome counts of the timed run (split, occupancy)")
    ap.add_argument("--json", help="append the split and occupancy figures as one JSON line to this file")
    args = ap.parse_args()
    if args.table:
        table(args.table)
        return 0
    if not args.workload:
        ap.error("--workload: required (unless --table)")
    name = args.workload.split("/")[-1]
    if any(s > 1 for s in [args.scale, *args.scales]) and name not in ("lud", "ms", "spmv"):
        ap.error(f"--scale: above 1 only for lud, ms and spmv, not {name}")
    gpu = machine(args.scheduler, dict(args.l1))
    exps = args.experiment or ["split", "kernels", "arrays", "occupancy"]
    if "sweep" in exps:
        sweep(name, args.scales, args.sweep_timed, gpu)
    if "launches" in exps:
        launches(args.scale, args.launches, gpu)
    rest = [e for e in exps if e not in ("sweep", "launches")]
    if not rest:
        return 0
    if args.stc_dim is not None and name != "stc":
        ap.error("--stc-dim: STC only")
    try:
        wl = sized(name, args.scale) if args.stc_dim is None else stc_with_dim(args.scale, args.stc_dim)
    except (ValueError, InputError) as e:
        ap.error(str(e))
    tag = f"{name}-s{args.scale:g}" + (f"-dim{args.stc_dim}" if args.stc_dim is not None else "") + (
        f"-{args.scheduler}" if args.scheduler else "") + (
        f"-fixed{args.fixed_latency}" if args.fixed_latency >= 0 else "") + (
        f"-dep-{args.dependences}" if args.dependences != "next-memory" else "") + (
        "".join(f"-{k}{v}" for k, v in args.l1)) + f"-{hashlib.sha256(repr(gpu).encode()).hexdigest()[:8]}"
    tag += "-lean" if args.lean else ""
    if args.lean and set(rest) - {"split", "occupancy"}:
        ap.error("--lean: only the split and occupancy experiments")
    save = Path(args.save) / f"{tag}.npz" if args.save else None
    func = functional_run(wl, gpu) if {"kernels", "arrays", "pcs", "sectors"} & set(rest) else None
    timed = {"split", "kernels", "arrays", "occupancy", "candidate", "sectors", "window"}
    c0 = time.process_time()
    run = (timed_run(wl, save, gpu, args.fixed_latency, args.lean, args.dependences)
           if timed & set(rest) else None)
    record: dict = {"workload": name, "scale": args.scale, "tag": tag}
    for e in rest:
        if e == "split":
            record["miss"] = split(wl, run, name)
        elif e == "kernels":
            kernels(wl, run, func)
        elif e == "arrays":
            arrays(wl, run, func, gpu)
        elif e == "pcs":
            pcs(wl, func, name)
        elif e == "sectors":
            sectors(wl, run, func, name)
        elif e == "occupancy":
            record["occupancy"] = occupancy(wl, run, name, gpu)
        elif e == "candidate":
            candidate(wl, run)
        elif e == "window":
            record["window_miss"] = window(wl, run, name)
    if args.json:
        record["cpu_s"] = round(time.process_time() - c0, 1)
        with open(args.json, "a") as f:
            f.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
