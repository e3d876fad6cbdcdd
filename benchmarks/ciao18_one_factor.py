"""CIAO-T/P/C with one policy parameter changed, beside a comparison's own runs.

One factor: every ciao18 benchmark's CIAO-T, CIAO-P and CIAO-C run again with the policy
parameters given by ``--set`` (for example ``examine=all``: every resident warp at each epoch's
end, where the preset's reading is ``"front"``; ``vta_ways=16``: 16 VTA tags per warp instead of
8; ``high_cutoff=0.005``; ``irs_counts=epoch``: Eq. 1's counts over the last high epoch;
``docs/policies/ciao18.md``), on the sweep engine's Dask cluster, and
printed as IPC over GTO beside the same schedulers' ratios in a ``gpucache compare --suite ciao18
--json`` file of the same scale (its GTO runs are the baseline; the code must be the same, or the
ratios mix two models). The runs use that file's machine (its ``config``: the preset, or a
machine changed as in ``docs/policies/ciao18.md``'s "Set conflicts at the paper's sizes"),
with any field of it changed by ``--machine`` (a config file's dotted name, as ``gpucache
sweep --set`` names it: ``smem_cache_index=xor``, ``l1.index=prime``); ``--schedulers`` runs
only some of the three (CIAO-T never uses the shared-memory cache). Geometric means per class
and over all benchmarks, with Fig. 8's.

Usage::

    python benchmarks/ciao18_one_factor.py docs/results/ciao18_scale1.json --scale 1 --workers 2 \\
        [--set examine=all ...] [--machine FIELD=VALUE ...] [--schedulers ciao-p ciao-c] \\
        [--workloads ciao18/syrk ...] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from distributed import as_completed

from golden.configs.loader import config_from_dict
from golden.configs.schema import GPUConfig
from golden.errors import InputError
from golden.experiments.ciao18 import CLASSES, PAPER_FIG8, Run, class_means, over_gto
from golden.experiments.ciao18_runs import make_task
from golden.experiments.sweep.engine import dask_client
from golden.experiments.sweep.fields import apply, parse_set, parse_value
from golden.policies import get_policy

SCHEDULERS = ("ciao-t", "ciao-p", "ciao-c")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("compare_json", help="a gpucache compare --suite ciao18 --json file (GTO: the base)")
    ap.add_argument("--scale", type=float, required=True, help="the input scale of that comparison")
    ap.add_argument("--set", dest="params", action="append", default=[], metavar="NAME=VALUE",
                    help="a CIAO parameter and its value (repeatable)")
    ap.add_argument("--machine", action="append", default=[], metavar="FIELD=VALUE",
                    help="a field of the comparison's machine and its value (repeatable)")
    ap.add_argument("--schedulers", nargs="+", choices=SCHEDULERS, default=list(SCHEDULERS),
                    help="which CIAO schedulers to run (default: all three)")
    ap.add_argument("--workloads", nargs="+", metavar="NAME", help="only these benchmarks of the comparison")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", metavar="OUT", help="also write the runs as JSON")
    args = ap.parse_args()
    if not args.params and not args.machine:
        print("--set or --machine: give at least one factor to change", file=sys.stderr)
        return 2
    schedulers = tuple(s for s in SCHEDULERS if s in args.schedulers)
    try:
        params = _parse(args.params)
        for s in schedulers:
            get_policy(s, **params)  # a bad name or value stops here, not in a worker
    except (ValueError, TypeError) as e:
        print(f"--set: {e}", file=sys.stderr)
        return 2
    base = json.load(open(args.compare_json))
    try:
        gpu = base_machine(base, args.compare_json, args.machine)
    except InputError as e:
        print(e, file=sys.stderr)
        return 2
    if base.get("scale") != args.scale:
        print(f"{args.compare_json}: scale {base.get('scale')}, not {args.scale}", file=sys.stderr)
        return 2
    rows = {r["workload"]: r for r in base["rows"]}
    if args.workloads:
        missing = sorted(set(args.workloads) - set(rows))
        if missing:
            print(f"--workloads: {', '.join(missing)} not in {args.compare_json}", file=sys.stderr)
            return 2
        rows = {n: rows[n] for n in args.workloads}
    label = ", ".join([f"{k}={v!r}" for k, v in params.items()] + args.machine)
    # The longest first (the comparison's own CPU times), so that the two workers end together; a
    # benchmark's runs in a row, so that a worker loads its trace once (make_task keeps the last).
    names = sorted(rows, key=lambda n: -rows[n]["time"]["cpu_seconds"])
    runs = {(n, s): Run(n, s, params=tuple(sorted(params.items()))) for n in names for s in schedulers}
    t0 = time.perf_counter()
    done: dict = {}
    with dask_client(None, args.workers) as client:
        futures = {client.submit(make_task, run, args.scale, gpu, pure=False): key
                   for key, run in runs.items()}
        for f in as_completed(list(futures)):
            done[futures[f]] = f.result()
    wall = time.perf_counter() - t0
    cpu = sum(d["cpu_seconds"] for d in done.values())
    print(f"ciao18 at scale {args.scale:g} on {gpu.name}: IPC over GTO, {args.compare_json}'s runs and "
          f"{label} "
          f"[{wall:.1f} s wall, {cpu:.1f} s CPU, {args.workers} workers]")
    print(" | ".join(["benchmark", "class"]
                     + [f"{s} {w}" for s in schedulers for w in ("compare", label)]))
    other = [dict(r, norm={s: over_gto(done[n, s]["result"], r["runs"]["gto"]) for s in schedulers})
             for n, r in sorted(rows.items())]
    for r, o in zip((rows[n] for n in sorted(rows)), other, strict=True):
        cells = ["-" if v is None else f"{v:.3f}" for s in schedulers for v in (r["norm"][s], o["norm"][s])]
        print(" | ".join([r["workload"].split("/")[-1], r["class"] or "-", *cells]))
    means = class_means(list(rows.values()), schedulers), class_means(other, schedulers)
    for cls in (*CLASSES, "all"):
        if means[0][cls]["n"]:
            print(" | ".join([f"geomean {cls}", f"n={means[0][cls]['n']}"]
                             + [f"{m[cls][s]:.3f}" for s in schedulers for m in means]))
    print(" | ".join(["ciao18 Fig. 8", "all"] + [f"{PAPER_FIG8[s]:.2f}" for s in schedulers for _ in (0, 1)]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"scale": args.scale, "params": params, "machine": args.machine,
                       "compare": args.compare_json,
                       "seconds": wall, "cpu_seconds": cpu,
                       "runs": [dict(d["result"], workload=n, series=None, cpu_seconds=d["cpu_seconds"])
                                for (n, _), d in done.items()]}, fh, indent=1)
    return 0


def base_machine(base: dict, origin: str, changes: list[str] = ()) -> GPUConfig:
    """The machine of comparison JSON ``base`` (its ``config``: the one its GTO runs ran on), with
    ``changes`` (``"FIELD=VALUE"``, config files' dotted names) applied.

    Raises
    ------
    InputError
        If ``base`` has no ``config``, a change is malformed or names no field, or the result is
        not a valid machine (the message names ``origin``).
    """
    if not isinstance(base.get("config"), dict):
        raise InputError(f"{origin}: config: missing (a gpucache compare --json file names its machine "
                         "there)")
    values = {}
    for text in changes:
        field = parse_set(text)
        if len(field.values) != 1:
            raise InputError(f"--machine: {field.name}: one value, not {len(field.values)}")
        values[field.path] = field.values[0]
    return config_from_dict(apply(base["config"], values), origin=f"{origin}: config", fmt="json")


def _parse(items: list[str]) -> dict:
    """``{"name": value}`` from ``NAME=VALUE`` strings (values read as the sweep's ``--set`` reads them)."""
    out: dict = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise ValueError(f"{item!r} is not NAME=VALUE")
        out[name] = parse_value(text)
    return out

if __name__ == "__main__":
    sys.exit(main())
