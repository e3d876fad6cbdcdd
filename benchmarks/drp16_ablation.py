"""DRP's write sub-policies one factor at a time: LLC read misses over the Baseline's on drp16 mixes.

Each variant is ``LABEL`` or ``LABEL|key=value|...`` with the keys

* ``subs``: sub-policies, ``+``-joined from ``rm``, ``wm``, ``wh``, ``rh`` (default all four);
* ``force``: duels forced to one side, ``,``-joined ``DUEL:A`` or ``DUEL:B`` (a trailing ``*``
  matches every duel with that prefix, e.g. ``pin*:B``: never pin); the duel's leader sets become
  followers and its PSEL is fixed (A: 0, B: the maximum);
* ``ws``: ``write_streams``, ``cpu``, ``gpu`` or ``+``-joined stream names;
* ``thr``: ``thresholds``, six ``,``-joined divisors (:data:`golden.policies.drp16_drp.THRESHOLDS`);
* ``wss_epoch``, ``zero_reuse_writes``: as the policy's parameters.

Prints, per mix and averaged over the mixes, each variant's read misses over
the Baseline's, with the CPU and GPU parts (as ``compare --suite drp16``).
``docs/results/drp16.md`` quotes its runs.

With the variant ``reuse`` alone it prints instead, per mix and stream, how
the Baseline's LLC writes are re-read: the share of writes whose line's next
LLC access is a read (what the WSS counts as write-to-read reuse, at any
distance), and the shares whose next read comes within one and four LLC
capacities of distinct lines (LRU stack distance) (the same for reads).

With the variant ``cpu-write-hits`` alone it replays the Baseline's recorded
LLC trace (no private caches, as OPT runs) one access at a time under
``drp-rm-rh`` and under ``drp-rm-rh`` plus the write-hit sub-policy on the CPU
streams only, and counts the hits of three kinds of read: CPU reads whose
line's previous LLC access was a CPU write-back, other CPU reads, GPU reads
(slow: a few minutes per mix).

Run: ``PYTHONPATH=. python benchmarks/drp16_ablation.py MIXES VARIANT ...`` where ``MIXES`` is
``S``, ``D`` or ``Q`` (the 18 mixes of 1C1G, 2C1G or 4C1G) or ``,``-joined mix names, e.g.
``python benchmarks/drp16_ablation.py S "all" "rmrh|subs=rm+rh" "nocpu|ws=gpu"`` or
``python benchmarks/drp16_ablation.py S7 reuse``.
"""

from __future__ import annotations

import sys

import numba as nb
import numpy as np

from golden.experiments.drp16 import BASELINE, caches
from golden.llc.mixes import build_mix, get_mix, gpu_stream
from golden.llc.model import LLCModel
from golden.llc.streams import MAX_CORES, STREAM_NAMES
from golden.policies import get_policy
from golden.policies.drp16_drp import DUELS

SUBS = {"rm": "read_miss", "wm": "write_miss", "wh": "write_hit", "rh": "read_hit"}


def variant(spec: str):
    """The policy of a variant ``spec`` and its forced duels: ``(label, policy, force)``."""
    label, *parts = spec.split("|")
    opts = dict(p.split("=", 1) for p in parts)
    kw: dict = {k: int(opts[k]) for k in ("wss_epoch", "zero_reuse_writes") if k in opts}
    if "ws" in opts:
        kw["write_streams"] = {"cpu": STREAM_NAMES[:MAX_CORES], "gpu": STREAM_NAMES[MAX_CORES:]}.get(
            opts["ws"], tuple(opts["ws"].split("+")))
    if "thr" in opts:
        kw["thresholds"] = tuple(int(x) for x in opts["thr"].split(","))
    policy = get_policy("drp16-drp", **kw)
    if "subs" in opts:
        policy.subpolicies = tuple(SUBS[s] for s in opts["subs"].split("+"))
    return label, policy, opts.get("force", "")


def force_duels(policy, force: str) -> None:
    """Fix the duels named in ``force`` (``DUEL:A`` or ``DUEL:B``, ``,``-joined) to one side."""
    r = policy.ext.rrip
    for item in filter(None, force.split(",")):
        duel, side = item.split(":")
        for d, name in enumerate(DUELS):
            if name == duel or (duel.endswith("*") and name.startswith(duel[:-1])):
                r.lead[r.lead // 2 == d] = -1
                r.psel[d] = 0 if side == "A" else r.psel_max


@nb.njit(cache=True)
def next_reuse(lines, ops):
    """Per access: the LRU stack distance of the next access to its line (-1: none) and that access's op."""
    n = lines.size
    tree = np.zeros(n + 1, np.int64)  # Fenwick tree over positions: 1 where a line was last accessed
    last = {}
    dist = np.full(n, -1, np.int64)
    op = np.zeros(n, np.int64)
    for i in range(n):
        x = lines[i]
        if x in last:
            j = last[x]
            d = 0
            k = i
            while k > 0:
                d += tree[k]
                k -= k & -k
            k = j + 1
            while k > 0:
                d -= tree[k]
                k -= k & -k
            dist[j], op[j] = d, ops[i]
            k = j + 1
            while k <= n:
                tree[k] -= 1
                k += k & -k
        last[x] = i
        k = i + 1
        while k <= n:
            tree[k] += 1
            k += k & -k
    return dist, op


def reuse(mixes: list[str], scale: float = 1 / 16) -> None:
    """Print how the Baseline's LLC writes and reads of each stream are re-read (module docstring)."""
    llc, l1, l2 = caches(scale)
    cap = llc.sets * llc.assoc
    for name in mixes:
        mix = get_mix(name)
        trace = build_mix(mix, scale, 0, gpu_stream(mix.gpu, scale, mix.row))
        rec = LLCModel(mix.cores, get_policy(BASELINE), llc=llc, l1=l1, l2=l2).run(trace, record=True)
        dist, op = next_reuse(rec["line"].astype(np.int64), rec["op"].astype(np.int64))
        reread = (op == 1) & (dist >= 0)
        for st in np.unique(rec["stream"]):
            for kind, lab in ((2, "write"), (1, "read")):
                sel = (rec["stream"] == st) & (rec["op"] == kind)
                n = int(sel.sum())
                if n:
                    r = sel & reread
                    print(f"{name} {STREAM_NAMES[st]:8s} {lab:5s} {n:7d}  re-read {r.sum() / n:.3f}  "
                          f"within 1 LLC {(r & (dist < cap)).sum() / n:.3f}  "
                          f"within 4 LLC {(r & (dist < 4 * cap)).sum() / n:.3f}")


def cpu_write_hits(mixes: list[str], scale: float = 1 / 16) -> None:
    """Print the read hits of each kind with and without CPU write-hit promotion (module docstring)."""
    llc, l1, l2 = caches(scale)
    for name in mixes:
        mix = get_mix(name)
        trace = build_mix(mix, scale, 0, gpu_stream(mix.gpu, scale, mix.row))
        rec = LLCModel(mix.cores, get_policy(BASELINE), llc=llc, l1=l1, l2=l2).run(trace, record=True)
        prev = np.full(rec.size, -1, np.int64)
        last: dict[int, int] = {}
        for i, x in enumerate(rec["line"].tolist()):
            prev[i] = last.get(x, -1)
            last[x] = i
        cpu, read = rec["stream"] < MAX_CORES, rec["op"] == 1
        after = np.zeros(rec.size, bool)
        p = prev >= 0
        after[p] = (rec["op"][prev[p]] == 2) & (rec["stream"][prev[p]] < MAX_CORES)
        kinds = {"CPU reads after a CPU write-back": cpu & read & after,
                 "other CPU reads": cpu & read & ~after, "GPU reads": ~cpu & read}
        hits = {}
        for label, spec in (("drp-rm-rh", "drp-rm-rh|subs=rm+rh"),
                            ("+ CPU write hits", "cpu|subs=rm+rh+wh|ws=cpu")):
            policy = variant(spec)[1]
            m = LLCModel(mix.cores, policy, llc=llc, private=False)
            miss = np.zeros(rec.size, bool)
            for i in range(rec.size):
                before = m.stream_counters[:, 1].sum()
                m.run(rec[i:i + 1])
                miss[i] = m.stream_counters[:, 1].sum() > before
            hits[label] = {k: int((sel & ~miss).sum()) for k, sel in kinds.items()}
        for k, sel in kinds.items():
            print(f"{name} {k}: {int(sel.sum())}, hits " +
                  ", ".join(f"{label} {h[k]}" for label, h in hits.items()), flush=True)


def main(mixes: list[str], specs: list[str], scale: float = 1 / 16) -> None:
    """Run the Baseline and every variant of ``specs`` on ``mixes``; print the normalised read misses."""
    llc, l1, l2 = caches(scale)
    norm: dict[str, list[tuple[float, float, float]]] = {}
    for name in mixes:
        mix = get_mix(name)
        trace = build_mix(mix, scale, 0, gpu_stream(mix.gpu, scale, mix.row))
        base = None
        line = [name]
        for spec in [BASELINE] + specs:
            if spec == BASELINE:
                label, policy, force = BASELINE, get_policy(BASELINE), ""
            else:
                label, policy, force = variant(spec)
            m = LLCModel(mix.cores, policy, llc=llc, l1=l1, l2=l2)
            if force:
                force_duels(policy, force)
            m.run(trace)
            s = m.stats()
            base = base or max(s["read_misses"], 1)
            v = (s["read_misses"] / base, s["cpu_read_misses"] / base, s["gpu_read_misses"] / base)
            norm.setdefault(label, []).append(v)
            line.append(f"{label} {v[0]:.3f}")
        print("  ".join(line), flush=True)
    print(f"mean over {len(mixes)} mixes (CPU + GPU parts)")
    for label, vals in norm.items():
        t, c, g = np.mean(vals, axis=0)
        print(f"  {label:24s} {t:.3f} ({c:.3f} + {g:.3f})")


if __name__ == "__main__":
    which = sys.argv[1]
    names = [f"{which}{i}" for i in range(1, 19)] if which in ("S", "D", "Q") else which.split(",")
    if sys.argv[2:] == ["reuse"]:
        reuse(names)
    elif sys.argv[2:] == ["cpu-write-hits"]:
        cpu_write_hits(names)
    else:
        main(names, sys.argv[2:])
