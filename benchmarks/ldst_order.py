"""In what order warps reach the LD/ST unit: gpucache's timing model, and Accel-Sim's from a log.

Measures one kernel of a built-in workload (``docs/validation.md``, "The slots hold as many
instructions on both sides"):

* **queued**: the global memory instructions issued and not yet taken by the SM's LD/ST unit,
  time-weighted over the kernel and its SMs (mean, and the share of time at each count);
* **close**: of the loads at ``--pc``, the share taken with at most ``--others`` other warps'
  loads at that PC taken (on the same SM) since the warp's own previous one: on bicg's
  second kernel a 32-line load can hit only then (4-way sets);
* **lead**: the most minus the least loads at ``--pc`` taken by one warp of an SM, at 9 evenly
  spaced points of the kernel, averaged over points and SMs (how far warps drift apart);
* the kernel's L1 hit rate (hits over global load requests);
* with ``--phases``, where each warp's time goes, by its age rank on the SM (rank 0: the SM's
  lowest warp id, the oldest under GTO): for each memory instruction of the kernel (by PC), the
  mean cycles from its issue to the unit's take (``I->T``), from the take to the load's last line
  back (``T->D``, loads only) and from then (a store: from the take) to the warp's next memory
  issue (``->next``), and the total per ``--pc`` load (one trip of the loop). The oldest warps'
  head start under an age-ordered scheduler is the ``->next`` rows' spread; how much of it the
  other phases take back decides how fast the warps drift apart (``docs/validation.md``,
  "gesummv at 0.25");
* with ``--ahead PC [PC ...]``, what each global memory issue finds in its SM's queue (issued,
  not yet taken): the issues' shares with 0, 1, 2 and 3 or more ahead, and by PC and age rank
  the mean ahead and those of them at the PCs given (``docs/validation.md``, "Where the young
  warps lose").

gpucache's side runs the timing model with its LD/ST log (``TimingModel(log_ldst=True)``) on the
preset (``--config``, ciao18 by default), with the schedulers' order Accel-Sim uses
(``issue_order=rotating``) and ``--set`` changes. Accel-Sim's side reads the output of a run of
``compare_accelsim.py --logs DIR`` made with ``GPUCACHE_IFLOG=1`` in the environment, on a build
patched (outside this repository) to print ``MI cycle sm warp pc`` in
``shader_core_ctx::issue_warp`` and ``MT cycle sm warp pc`` in ``ldst_unit::issue`` for each
global load or store, and ``MD cycle sm warp pc`` where a global load completes (the last
pending register released, in ``ldst_unit::writeback`` and for an L1 hit in
``ldst_unit::L1_latency_queue_cycle``; ``--phases`` needs these), with cycles as
``gpu_tot_sim_cycle + gpu_sim_cycle``; its kernels are cut at the ``gpu_tot_sim_cycle`` lines
it prints.

    python benchmarks/ldst_order.py rdgc/bicg --scale 0.25 --kernel 1 --pc 312 \\
        [--set scheduler=lrr] [--accelsim-log LOGDIR/ciao18-rdgc-bicg.log] [--phases]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from compare_accelsim import PEER_FIELDS, with_fields

from golden.cache.hierarchy import Hierarchy
from golden.configs.presets import preset
from golden.errors import InputError
from golden.gpu.core import LOG_LOAD_DONE, LOG_MEM_ISSUE
from golden.gpu.model import TimingModel
from golden.workloads import registry

#: Columns of an event array: cycle, SM, kind, warp, PC.
CYCLE, SM, KIND, WARP, PC = range(5)
#: Kinds of event: the LD/ST unit takes the instruction, the scheduler issues it, a load completes.
#: In one cycle a take sorts before an issue (``queued``).
TAKE, ISSUED, DONE = 0, 1, 2


def gpucache_events(config: str, name: str, scale: float, kernel: int,
                    settings: list[str]) -> tuple[np.ndarray, float]:
    """Events of ``kernel`` on gpucache's timing model, and the kernel's L1 load hit rate (%)."""
    try:
        base = preset(config)
    except InputError as e:
        sys.exit(f"ldst_order: --config: {e}")
    gpu = with_fields(base.replace(**PEER_FIELDS), settings)
    wl = registry.build(name, scale)
    if not 0 <= kernel < len(wl.kernels):
        sys.exit(f"ldst_order: --kernel {kernel}: {name} has kernels 0..{len(wl.kernels) - 1}")
    # The log keeps each slice's rows (golden.gpu.model.SLICE cycles): every access and LD/ST event
    # of the slice, far fewer than this on the presets' SMs.
    model = TimingModel(gpu, Hierarchy(gpu), dependences="next-memory", log_capacity=8_000_000,
                        log_ldst=True)
    for i, k in enumerate(wl.kernels[:kernel + 1]):
        timing = model.run_kernel(k, i, None)
        if i < kernel:
            model.log.clear()
    log = model.ldst_log()
    pcs = model.program(wl.kernels[kernel]).pc
    kind = np.where(log[:, 4] == LOG_MEM_ISSUE, ISSUED, np.where(log[:, 4] == LOG_LOAD_DONE, DONE, TAKE))
    events = np.stack([log[:, 0], log[:, 1], kind, log[:, 2], pcs[log[:, 3]]], axis=1)
    c = timing.counters
    return events, 100.0 * c["l1_sector_load_hits"] / max(1, c["l1_sector_loads"])


def accelsim_events(path: Path, kernel: int) -> tuple[np.ndarray, float]:
    """Events of ``kernel`` in an Accel-Sim log (module docstring), and its L1 load hit rate (%)."""
    text = path.read_text(errors="replace")
    ends = [int(x) for x in re.findall(r"^gpu_tot_sim_cycle = (\d+)", text, re.M)]
    stat = r"Total_core_cache_stats_breakdown\[GLOBAL_ACC_R\]\[{}\] = (\d+)"
    hits = [int(x) for x in re.findall(stat.format("HIT"), text)]
    total = [int(x) for x in re.findall(stat.format("TOTAL_ACCESS"), text)]
    if kernel >= len(ends) or len(hits) != len(ends) or len(total) != len(ends):
        sys.exit(f"ldst_order: {path}: no statistics for kernel {kernel} ({len(ends)} kernels ended)")
    lo, hi = (ends[kernel - 1] if kernel else -1), ends[kernel]
    kinds = {"I": ISSUED, "T": TAKE, "D": DONE}
    rows = [(int(m[2]), int(m[3]), kinds[m[1]], int(m[4]), int(m[5]))
            for m in re.finditer(r"^M([ITD]) (\d+) (\d+) (\d+) (\d+)$", text, re.M)]
    events = np.array([r for r in rows if lo < r[0] <= hi], dtype=np.int64).reshape(-1, 5)
    if not len(events):
        sys.exit(f"ldst_order: {path}: no MI/MT lines in kernel {kernel} "
                 "(a build with the log, run with GPUCACHE_IFLOG=1?)")
    before = (hits[kernel - 1], total[kernel - 1]) if kernel else (0, 0)
    return events, 100.0 * (hits[kernel] - before[0]) / max(1, total[kernel] - before[1])


def issues_and_takes(events: np.ndarray) -> np.ndarray:
    """The events without the loads' completions."""
    return events[events[:, KIND] != DONE]


def phases(events: np.ndarray, pc: int) -> tuple[dict, np.ndarray, list[int]]:
    """Mean cycles of each phase of each memory instruction, by PC and the warp's age rank on its SM.

    Returns ``({(pc, phase): [mean per rank]}, total cycles per trip of the loop per rank, the PCs
    in program order)``; ``phase`` is ``"I->T"``, ``"T->D"`` or ``"->next"`` (module docstring).
    A warp's instructions are matched in order: its n-th issue, n-th take and, for the PCs that
    complete (loads), the n-th completion at that PC.
    """
    events = events[np.lexsort((events[:, KIND], events[:, CYCLE]))]
    loads = set(events[events[:, KIND] == DONE, PC].tolist())
    sums: dict[tuple[int, str, int], list[int]] = defaultdict(list)
    life: dict[int, list[float]] = defaultdict(list)
    for sm in np.unique(events[:, SM]):
        e = events[events[:, SM] == sm]
        for rank, w in enumerate(np.unique(e[:, WARP])):
            x = e[e[:, WARP] == w]
            iss, tak = x[x[:, KIND] == ISSUED], x[x[:, KIND] == TAKE]
            n = min(len(iss), len(tak))
            done = {p: x[(x[:, KIND] == DONE) & (x[:, PC] == p), CYCLE] for p in loads}
            used = dict.fromkeys(loads, 0)  # completions at each PC matched so far
            for i in range(n):
                p = int(iss[i, PC])
                ready = tak[i, CYCLE]
                sums[(p, "I->T", rank)].append(tak[i, CYCLE] - iss[i, CYCLE])
                if p in loads and used[p] < len(done[p]):
                    ready = done[p][used[p]]
                    used[p] += 1
                    sums[(p, "T->D", rank)].append(ready - tak[i, CYCLE])
                if i + 1 < len(iss):
                    sums[(p, "->next", rank)].append(iss[i + 1, CYCLE] - ready)
            trips = int(np.sum(tak[:, PC] == pc))
            if trips and n > 1:
                life[rank].append((iss[n - 1, CYCLE] - iss[0, CYCLE]) / trips)
    ranks = sorted(life)
    order = [int(p) for p in dict.fromkeys(events[events[:, KIND] == ISSUED, PC].tolist())]
    table = {}
    for p in order:
        for ph in ("I->T", "T->D", "->next"):
            if any(sums[(p, ph, r)] for r in ranks):
                table[(p, ph)] = [float(np.mean(sums[(p, ph, r)])) if sums[(p, ph, r)] else 0.0
                                  for r in ranks]
    return table, np.array([np.mean(life[r]) for r in ranks]), order


def report_phases(side: str, events: np.ndarray, pc: int) -> None:
    """Print ``phases``: one row per (PC, phase), one column per age rank, and the spread."""
    table, total, order = phases(events, pc)
    n = len(total)
    q = max(1, n // 4)
    print(f"{side}: mean cycles by age rank on the SM (0 = oldest); spread = youngest {q} minus oldest {q}")
    print(f"  {'PC':>5} {'phase':<7}" + "".join(f"{r:>7}" for r in range(n)) + f"{'spread':>9}")
    for (p, ph), v in table.items():
        print(f"  {p:>5} {ph:<7}" + "".join(f"{x:>7.0f}" for x in v) + f"{sum(v[-q:]) - sum(v[:q]):>9.0f}")
    print(f"  {'trip':>5} {'total':<7}" + "".join(f"{x:>7.0f}" for x in total)
          + f"{sum(total[-q:]) - sum(total[:q]):>9.0f}  (cycles per --pc load, first issue to last)")


def ahead(events: np.ndarray, pcs: list[int], top: int = 3) -> tuple[np.ndarray, dict]:
    """What each global memory issue finds in its SM's queue: instructions issued and not yet taken.

    Returns the share of issues with 0..``top`` instructions ahead (the last: ``top`` or more) and
    ``{(pc, rank): (mean ahead, mean ahead at pcs)}`` by the issuing warp's age rank on its SM. A
    take is matched to its warp's oldest queued issue; a take that comes before its issue in the
    same cycle (an instruction issued to a free unit, never queued) to the warp's next issue,
    which then found nothing ahead.
    """
    events = issues_and_takes(events)
    events = events[np.lexsort((events[:, KIND], events[:, CYCLE]))]
    hist = np.zeros(top + 1)
    found: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    wanted = set(pcs)
    for sm in np.unique(events[:, SM]):
        e = events[events[:, SM] == sm]
        rank = {int(w): r for r, w in enumerate(np.unique(e[:, WARP]))}
        queue: list[tuple[int, int]] = []  # (warp, pc), in the order issued
        early: dict[int, int] = defaultdict(int)  # takes seen before their issue
        for _, _, kind, w, pc in e.tolist():
            if kind == TAKE:
                i = next((i for i, q in enumerate(queue) if q[0] == w), -1)
                if i >= 0:
                    del queue[i]
                else:
                    early[w] += 1
                continue
            if early[w]:
                early[w] -= 1  # taken in the cycle of its issue: nothing was ahead of it
                seen = (0, 0)
            else:
                seen = (len(queue), sum(q[1] in wanted for q in queue))
                queue.append((w, pc))
            hist[min(seen[0], top)] += 1
            found[(pc, rank[w])].append(seen)
    table = {k: (float(np.mean([a for a, _ in v])), float(np.mean([b for _, b in v])))
             for k, v in found.items()}
    return hist / max(1.0, hist.sum()), table


def report_ahead(side: str, events: np.ndarray, pcs: list[int]) -> None:
    """Print ``ahead``: the issues' shares by instructions ahead, then by PC and age rank the mean
    instructions ahead and those of them at ``pcs``."""
    share, table = ahead(events, pcs)
    print(f"{side}: at each global memory issue, the SM's instructions issued and not yet taken (ahead)")
    print("  issues with 0, 1, 2, 3+ ahead: " + "  ".join(f"{100 * x:.1f}%" for x in share))
    ranks = sorted({r for _, r in table})
    print(f"  mean ahead / of them at PCs {' '.join(map(str, pcs))}, by age rank on the SM (0 = oldest)")
    print(f"  {'PC':>5}" + "".join(f"{r:>12}" for r in ranks))
    for p in sorted({p for p, _ in table}):
        cells = []
        for r in ranks:
            c = table.get((p, r))
            cells.append(f"{c[0]:>7.2f}/{c[1]:.2f}" if c else f"{'-':>12}")
        print(f"  {p:>5}" + "".join(cells))


def queued(events: np.ndarray, top: int = 8) -> np.ndarray:
    """Share of SM-cycles with 0..``top`` instructions issued and not yet taken (the last: ``top`` or more).
    """
    share = np.zeros(top + 1)
    # In one cycle a take comes before an issue: an instruction issued to a free unit is never queued.
    events = events[np.lexsort((events[:, KIND], events[:, CYCLE]))]
    t0, t1 = events[0, CYCLE], events[-1, CYCLE] + 1
    for sm in np.unique(events[:, SM]):
        e = events[events[:, SM] == sm]
        count = np.cumsum(np.where(e[:, KIND] == ISSUED, 1, -1))
        until = np.append(e[1:, CYCLE], t1)
        share[0] += e[0, CYCLE] - t0
        np.add.at(share, np.clip(count, 0, top), until - e[:, CYCLE])
    return share / share.sum()


def close_and_lead(events: np.ndarray, pc: int, others: int) -> tuple[float, float, int]:
    """(close %, lead, loads): see the module docstring."""
    takes = events[(events[:, KIND] == TAKE) & (events[:, PC] == pc)]
    if not len(takes):
        seen = sorted(set(events[:, PC].tolist()))[:12]
        sys.exit(f"ldst_order: no loads at --pc {pc} in the kernel (PCs seen: {seen})")
    near = n = 0
    leads = []
    for sm in np.unique(takes[:, SM]):
        seq = takes[takes[:, SM] == sm]
        last: dict[int, int] = {}
        for i, w in enumerate(seq[:, WARP]):
            if w in last:
                n += 1
                near += len(set(seq[last[w] + 1:i, WARP].tolist())) <= others
            last[w] = i
        per_warp = defaultdict(list)
        for c, w in seq[:, [CYCLE, WARP]]:
            per_warp[w].append(c)
        t0, t1 = seq[0, CYCLE], seq[-1, CYCLE]
        for q in np.linspace(0.1, 0.9, 9):
            done = [np.searchsorted(np.array(v), t0 + q * (t1 - t0)) for v in per_warp.values()]
            leads.append(max(done) - min(done))
    return 100.0 * near / max(1, n), float(np.mean(leads)), len(takes)


def report(side: str, events: np.ndarray, hit: float, pc: int, others: int) -> None:
    events = issues_and_takes(events)
    share = queued(events)
    mean = float((share * np.arange(len(share))).sum())
    near, lead, loads = close_and_lead(events, pc, others)
    counts = " ".join(f"{i}:{100 * s:.1f}%" for i, s in enumerate(share) if s >= 0.0005)
    print(f"{side:<10} {hit:>9.1f}% {mean:>7.2f}  {near:>9.1f}% {lead:>7.0f} {loads:>9,}  {counts}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workload", help="built-in workload, e.g. rdgc/bicg")
    ap.add_argument("--config", default="ciao18", help="machine preset (default ciao18)")
    ap.add_argument("--scale", type=float, default=0.25)
    ap.add_argument("--kernel", type=int, default=1, help="kernel index (0 = first)")
    ap.add_argument("--pc", type=int, default=312, help="PC of the loads whose order is measured")
    ap.add_argument("--others", type=int, default=3, help="other warps' loads allowed in between for 'close'")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="change a field of the preset (scheduler=lrr, ldst_queue=5, ...)")
    ap.add_argument("--accelsim-log", type=Path, help="compare_accelsim.py --logs output of a patched build")
    ap.add_argument("--phases", action="store_true",
                    help="also print each memory instruction's phases by warp age rank (module docstring)")
    ap.add_argument("--ahead", type=int, nargs="+", metavar="PC",
                    help="also print what each issue finds queued ahead of it, counting the PCs given apart")
    args = ap.parse_args()
    print(f"{args.workload} at scale {args.scale}, kernel {args.kernel}, loads at PC {args.pc}; "
          f"{args.config} preset, issue_order={PEER_FIELDS['issue_order']}"
          + "".join(f", {s}" for s in args.set))
    print(f"{'side':<10} {'L1 hit':>10} {'queued':>7}  {'close':>10} {'lead':>7} {'loads':>9}  "
          "time at each queued count")
    if args.accelsim_log and not args.accelsim_log.is_file():
        sys.exit(f"ldst_order: --accelsim-log {args.accelsim_log}: no such file")
    sides = [("gpucache", *gpucache_events(args.config, args.workload, args.scale, args.kernel, args.set))]
    if args.accelsim_log:
        sides.append(("Accel-Sim", *accelsim_events(args.accelsim_log, args.kernel)))
    for side, events, hit in sides:
        report(side, events, hit, args.pc, args.others)
    if args.phases:
        for side, events, _ in sides:
            if not np.any(events[:, KIND] == DONE):
                sys.exit(f"ldst_order: --phases: no load completions in {side}'s events "
                         "(MD lines in the log?)")
            report_phases(side, events, args.pc)
    if args.ahead:
        for side, events, _ in sides:
            report_ahead(side, events, args.ahead)
    return 0


if __name__ == "__main__":
    sys.exit(main())
