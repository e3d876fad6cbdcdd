"""Coverage-guided fuzzing of the loaders with atheris (libFuzzer), with a time budget.

    python -m tests.fuzz.run_fuzz npz --seconds 600 [--runs N] [--workdir build/fuzz]

Starts from the valid seeds of :func:`tests.fuzz.targets.seeds`, keeps the
corpus in ``WORKDIR/TARGET/corpus`` (a later run continues from it) and
writes any crashing, hanging (more than ``--hang`` seconds) or memory-hungry
(more than ``--rss-mb``) input to ``WORKDIR/TARGET/`` as ``crash-*``,
``timeout-*`` or ``oom-*``. The last lines of the log say how many inputs
were tried (libFuzzer's ``Done N runs in S second(s)``). Every crash found
becomes a regression test in ``tests/test_fuzz_regressions.py``.

Only plain Python functions are instrumented for coverage (those of the
modules in :data:`INSTRUMENTED`; numba dispatchers are skipped): atheris
rewrites bytecode, which numba-compiled functions must not see. The compiled
Accel-Sim scanner gives feedback only through the Python around it (its
error messages, the header parser, the row conversion).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from pathlib import Path

#: Modules whose coverage guides the fuzzer (none of them holds numba-compiled code).
INSTRUMENTED = ("golden.trace.io", "golden.trace.accelsim", "golden.configs.loader", "golden.configs.schema",
                "golden.files", "tests.fuzz.targets")


def _instrument(atheris) -> None:
    """Replace the functions and methods of :data:`INSTRUMENTED` by instrumented copies, in place."""
    for name in INSTRUMENTED:
        mod = importlib.import_module(name)
        for attr, obj in list(vars(mod).items()):
            if inspect.isfunction(obj) and obj.__module__ == name:
                setattr(mod, attr, atheris.instrument_func(obj))
            elif inspect.isclass(obj) and obj.__module__ == name:
                for m, f in list(vars(obj).items()):
                    if inspect.isfunction(f):
                        setattr(obj, m, atheris.instrument_func(f))


def main() -> None:
    import atheris

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("target")
    p.add_argument("--seconds", type=int, default=60, help="time budget (default 60)")
    p.add_argument("--runs", type=int, default=-1, help="stop after this many inputs (default: no limit)")
    p.add_argument("--hang", type=int, default=5, help="seconds after which an input counts as a hang")
    p.add_argument("--rss-mb", type=int, default=2048, help="memory limit in MB (default 2048)")
    p.add_argument("--workdir", default="build/fuzz", help="corpus and findings (default build/fuzz)")
    args = p.parse_args()

    from tests.fuzz import targets

    _instrument(atheris)

    if args.target not in targets.TARGETS:
        p.error(f"unknown target {args.target!r}; targets: {', '.join(targets.TARGETS)}")
    work = Path(args.workdir) / args.target
    corpus = work / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    seeds = targets.seeds(args.target)
    for i, s in enumerate(seeds):
        (corpus / f"seed-{i}").write_bytes(s)
    target = targets.TARGETS[args.target]
    InputError = targets.InputError

    def one_input(data: bytes) -> None:
        try:
            target(data)
        except InputError:
            pass

    # Warm up: the first run of each compiled function compiles it (seconds), which is not a hang.
    for s in seeds:
        target(s)
    max_len = max(4096, 2 * max(len(s) for s in seeds))
    argv = [sys.argv[0], str(corpus), f"-max_total_time={args.seconds}", f"-timeout={args.hang}",
            f"-rss_limit_mb={args.rss_mb}", f"-max_len={max_len}", f"-artifact_prefix={work}/",
            "-print_final_stats=1"]
    if args.runs >= 0:
        argv.append(f"-runs={args.runs}")
    atheris.Setup(argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
