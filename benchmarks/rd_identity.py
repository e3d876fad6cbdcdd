"""Identity check of the RD analysis across code versions: ``RDResult.to_dict()`` saved, then compared.

A speed change of ``golden/rd`` must leave every counter, bucket and ratio
unchanged. Run ``--save`` with the old code (e.g. a ``git archive`` of it
first on ``PYTHONPATH``) and ``--check`` with the new code on the same
workloads, scale and option sets; ``--check`` prints one line per workload
and option set and exits 1 on any difference.

Option sets (``--options``): ``default`` (the rdgc preset with an 8-size L1
sweep, 3 L2 capacities and 2,048/4,096 buckets), ``per-set``, ``l1-off``,
``fixed4-rand`` (``fixed:4`` latency, ``rand`` mapping) and ``bpart2``
(unlimited merges, 4 L1 MSHRs): the five sets of docs/rd.md's earlier
identity checks.

Usage::

    python benchmarks/rd_identity.py --save FILE [--scale 0.25] [--workloads ...] [--options ...]
    python benchmarks/rd_identity.py --check FILE
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from golden.configs.presets import preset
from golden.rd.model import RDOptions, analyse
from golden.rd.parallel import Latency
from golden.workloads import registry

KB = 1024
#: The option sets, as ``RDOptions`` keyword arguments (the sweeps in blocks of the rdgc preset).
OPTION_SETS = {
    "default": {"l1_sweep": tuple(s * KB // 128 for s in (4, 8, 16, 24, 48, 64, 128)),
                "l2_sweep": (512, 2048, 4096), "l1_buckets": 2048, "l2_buckets": 4096},
    "per-set": {"counting": "per-set"},
    "l1-off": {"l1": False},
    "fixed4-rand": {"latency": Latency("fixed", fixed=4), "mapping": "rand", "seed": 3},
    "bpart2": {"mapping": "bpart2", "l1_merges": 0, "l1_mshrs": 4},
}


def results(names: list[str], scale: float, options: list[str]) -> dict:
    """``{"workload|options": RDResult.to_dict()}`` for every workload and option set."""
    gpu = preset("rdgc")
    out = {}
    for name in names:
        wl = registry.build(name, scale)
        for o in options:
            c0 = time.process_time()
            out[f"{name}|{o}"] = analyse(wl, gpu, RDOptions(**OPTION_SETS[o])).to_dict()
            print(f"{name:<18}{o:<13}{time.process_time() - c0:7.1f} s CPU", file=sys.stderr, flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save", metavar="FILE")
    mode.add_argument("--check", metavar="FILE")
    ap.add_argument("--scale", type=float, default=0.25)
    ap.add_argument("--workloads", nargs="+", default=None)
    ap.add_argument("--options", nargs="+", default=list(OPTION_SETS), choices=list(OPTION_SETS))
    args = ap.parse_args()
    if args.save:
        names = args.workloads or registry.names("rdgc")
        res = results(names, args.scale, args.options)
        with open(args.save, "w") as f:
            json.dump({"scale": args.scale, "names": names, "options": args.options, "results": res}, f)
        return 0
    with open(args.check) as f:
        saved = json.load(f)
    res = results(saved["names"], saved["scale"], saved["options"])
    bad = 0
    for key, old in saved["results"].items():
        # Through JSON both ways: NaN ratios compare equal as the same text.
        same = json.dumps(res[key], sort_keys=True) == json.dumps(old, sort_keys=True)
        bad += not same
        print(f"{key:<32}{'identical' if same else 'DIFFERENT'}")
    print(f"{len(saved['results']) - bad} of {len(saved['results'])} identical (scale {saved['scale']:g})")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
