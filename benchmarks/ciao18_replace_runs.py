"""A ciao18 comparison's JSON with some schedulers' runs replaced by one-factor runs of the same scale.

When a change of the model moves only some schedulers' runs (session 44's ``active_warps``
moved CIAO-T's and CIAO-C's and nothing else at 0.25), the runs that moved can be made again with
``benchmarks/ciao18_one_factor.py ... --set NAME=VALUE --json RUNS`` (several files, for example
benchmarks split over several invocations) and put into the comparison's JSON in place of the old
ones. The ratios to GTO and the class means are computed again; the JSON records which runs were
replaced, from which files and with which parameters (``replaced``). The runs must come from the
current code, and the parameters given with ``--set`` must be the current defaults, or the JSON
mixes two models: that is the caller's to check (``ciao18_one_factor.py`` prints the parameters).

Usage::

    python benchmarks/ciao18_replace_runs.py docs/results/ciao18_scale1.json RUNS.json [RUNS.json ...] \\
        --out NEW.json
"""

from __future__ import annotations

import argparse
import copy
import json
import sys

from golden.errors import InputError
from golden.experiments.ciao18 import PAPER_FIG8, SCHEDULERS, class_means, over_gto
from golden.files import atomic_write, json_field, read_json_object

#: What a one-factor run carries beyond the comparison's own run records.
EXTRA = ("workload", "series", "cpu_seconds")


#: A file that cannot be merged: the message names the file and the field (the reader's own errors,
#: :func:`~golden.files.read_json_object` and :func:`~golden.files.json_field`, are the same kind).
BadInput = InputError


def replace_runs(compare: dict, compare_path: str, files: list[tuple[str, dict]]) -> tuple[dict, list]:
    """The comparison ``compare`` with the runs of ``files`` (``(path, one-factor JSON)``) in place.

    Returns the new comparison and, per replaced run, ``(workload, scheduler, old norm, new norm,
    whether the run's record changed)``.

    Raises
    ------
    BadInput
        A file of another scale or other parameters, a run of a benchmark or scheduler the
        comparison does not have, or one run given twice with different results.
    """
    scale = json_field(compare, "scale", (int, float), compare_path)
    rows = {r["workload"]: r for r in json_field(compare, "rows", list, compare_path)}
    params = None
    new: dict = {}
    cpu = 0.0
    for path, data in files:
        if json_field(data, "scale", (int, float), path) != scale:
            raise BadInput(f"{path}: field 'scale' is {data['scale']}, {compare_path}'s is {scale}")
        p = json_field(data, "params", dict, path)
        if params is None:
            params = p
        elif p != params:
            raise BadInput(f"{path}: field 'params' is {p}, the first file's is {params}")
        for i, run in enumerate(json_field(data, "runs", list, path)):
            if not isinstance(run, dict):
                raise BadInput(f"{path}: runs[{i}] is not an object")
            name, sched = run.get("workload"), run.get("scheduler")
            if name not in rows:
                raise BadInput(f"{path}: runs[{i}].workload {name!r} is not in {compare_path}")
            if sched not in SCHEDULERS or sched == "gto":
                raise BadInput(f"{path}: runs[{i}].scheduler {sched!r} cannot be replaced")
            rec = {k: v for k, v in run.items() if k not in EXTRA}
            if set(rec) != set(rows[name]["runs"][sched]):
                raise BadInput(f"{path}: runs[{i}] has fields {sorted(rec)}, "
                               f"{compare_path}'s runs have {sorted(rows[name]['runs'][sched])}")
            if (name, sched) in new and new[name, sched] != rec:
                raise BadInput(f"{path}: runs[{i}] ({name}, {sched}) differs from an earlier file's")
            new[name, sched] = rec
            cpu += float(run.get("cpu_seconds") or 0.0)
    out = copy.deepcopy(compare)
    moved = []
    for r in out["rows"]:
        gto = r["runs"]["gto"]
        for s in SCHEDULERS[1:]:
            if (r["workload"], s) in new:
                rec = new[r["workload"], s]
                norm = over_gto(rec, gto)
                moved.append((r["workload"], s, r["norm"][s], norm, rec != r["runs"][s]))
                r["runs"][s], r["norm"][s] = rec, norm
    out["class_means"] = class_means(out["rows"])
    out["replaced"] = {"params": params, "files": [p for p, _ in files], "runs": len(new),
                       "cpu_seconds": cpu, "changed": sum(c for *_, c in moved)}
    return out, moved


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("compare_json", help="a gpucache compare --suite ciao18 --json file")
    ap.add_argument("runs_json", nargs="+", help="ciao18_one_factor.py --json files of the same scale")
    ap.add_argument("--out", required=True, help="where the new comparison JSON goes")
    args = ap.parse_args()
    try:
        compare = read_json_object(args.compare_json)
        runs = [(p, read_json_object(p)) for p in args.runs_json]
        out, moved = replace_runs(compare, args.compare_json, runs)
    except InputError as e:
        print(e, file=sys.stderr)
        return 2
    rep = out["replaced"]
    print(f"{args.compare_json}: {rep['runs']} runs replaced ({rep['changed']} of them changed) with "
          f"{rep['params']} from {len(args.runs_json)} files ({rep['cpu_seconds']:.1f} s CPU)")
    for name, s, a, b, changed in moved:
        if changed:
            print(f"  {name.split('/')[-1]:10s} {s:8s} {a:.3f} -> {b:.3f}")
    before, after = compare["class_means"], out["class_means"]
    scheds = sorted({m[1] for m in moved}, key=SCHEDULERS.index)
    for cls in after:
        if after[cls]["n"]:
            cells = [f"{s} {before[cls][s]:.3f} -> {after[cls][s]:.3f}" for s in scheds]
            print(f"geomean {cls:4s} n={after[cls]['n']:2d}  " + "  ".join(cells))
    print("ciao18 Fig. 8            " + "  ".join(f"{s} {PAPER_FIG8[s]:.2f}" for s in scheds))
    text = json.dumps(out, indent=1) + "\n"  # the indent of the JSON files under docs/results/

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)

    atomic_write(args.out, write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
