"""``gpucache``: the command line.

Subcommands (one module each, this file only dispatches)::

    gpucache workloads [--stats] [--suite S] [--scale F]      cli/workloads.py
    gpucache run --workload NAME | --trace FILE [...]         cli/run.py
    gpucache trace convert SRC OUT.npz | trace info FILE      cli/trace.py
    gpucache configs [show PRESET|FILE]                       here
    gpucache compare --suite tian15 [--plot DIR] [--json P]   cli/compare.py
    gpucache cosim --unit U --workload W [--sim S] [...]      cli/cosim.py
    gpucache synth --unit U|all [--config C] [--out DIR]      cli/synth.py
    gpucache rd --workload W [--l1 on|off] [--sweep F=V,..]   cli/rd.py
    gpucache sweep --workload W --set F=V,.. --store DIR      cli/sweep.py

A user's mistake (an :class:`~golden.errors.InputError`, or a bad argument)
prints one line ``gpucache: error: <message>`` on stderr and exits with
status 2; a run that cannot finish (a :class:`~golden.errors.SimulationError`:
a deadlock) prints its one line the same way and exits with status 4.
Anything else is a defect in gpucache and keeps its traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from golden.errors import InputError, SimulationError

__all__ = ["main", "build_parser", "EXIT_USAGE", "EXIT_SIMULATION"]

#: Exit status of a user's mistake.
EXIT_USAGE = 2
#: Exit status of a run that cannot finish (a deadlock).
EXIT_SIMULATION = 4


class _UsageError(Exception):
    """A bad command line, reported like an InputError."""


class _Parser(argparse.ArgumentParser):
    # argparse prints the whole usage before its error; gpucache's rule is one line.
    def error(self, message: str) -> None:  # noqa: D102 - argparse hook
        raise _UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand; each sets ``func(args) -> int``."""
    # Imported here, inside main's handlers: the first import loads numba (a second or
    # more), and a Ctrl-C during it must print one line, not a traceback.
    from cli import compare as compare_cmd
    from cli import cosim as cosim_cmd
    from cli import rd as rd_cmd
    from cli import run as run_cmd
    from cli import sweep as sweep_cmd
    from cli import synth as synth_cmd
    from cli import trace as trace_cmd
    from cli import workloads as workloads_cmd
    from cli.output import version
    from golden.gpu.specialise import COMPILE_MODES, COMPILE_VARIABLE

    parser = _Parser(
        prog="gpucache",
        description="GPU cache-management techniques: golden model, workloads, traces, configs.",
    )
    parser.add_argument("--version", action="version", version=f"gpucache {version()}")
    parser.add_argument("--compile", choices=COMPILE_MODES, default=None,
                        help="the timing model's build: compiled for each configuration (faster, one "
                             "compilation per configuration and policy) or one generic build for all "
                             f"(default: ${COMPILE_VARIABLE}, else specialised; docs/timing.md)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    workloads_cmd.add_parser(sub)
    run_cmd.add_parser(sub)
    trace_cmd.add_parser(sub)
    _add_configs_parser(sub)
    compare_cmd.add_parser(sub)
    cosim_cmd.add_parser(sub)
    synth_cmd.add_parser(sub)
    rd_cmd.add_parser(sub)
    sweep_cmd.add_parser(sub)
    return parser


def _add_configs_parser(sub) -> None:
    p = sub.add_parser("configs", help="list the machine presets, or print one config as TOML",
                       description="List the machine presets (the papers' GPUs), or print a "
                                   "preset or config file in full as TOML, ready to copy and edit.")
    csub = p.add_subparsers(dest="action", metavar="ACTION")
    show = csub.add_parser("show", help="print a preset or config file as TOML")
    show.add_argument("config", metavar="PRESET|FILE")
    p.set_defaults(func=_configs)


def _configs(args: argparse.Namespace) -> int:
    from cli.output import format_size, format_table
    from golden.configs import PRESETS, dump_toml, load_config

    if args.action == "show":
        sys.stdout.write(dump_toml(load_config(args.config)))
        return 0
    rows = []
    for g in PRESETS.values():
        levels = ", ".join(f"{n.upper()} {format_size(c.size)} {c.assoc}-way {c.line_size} B"
                           for n, c in g.levels)
        rows.append((g.name, g.n_sm, g.scheduler, levels, g.source))
    print(format_table(("preset", "SMs", "scheduler", "caches", "source"), rows))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).
    """
    try:
        from cli.output import check_outputs

        args = build_parser().parse_args(argv)
        check_outputs(args)  # every output path, before any work starts
        if args.compile is not None:
            from golden.gpu.specialise import COMPILE_VARIABLE

            # The environment, not an argument: the sweep engine's workers inherit it.
            os.environ[COMPILE_VARIABLE] = args.compile
        return int(args.func(args) or 0)
    except (InputError, _UsageError) as e:
        message = " ".join(str(e).split())  # the rule is one line, whatever the message holds
        print(f"gpucache: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except SimulationError as e:  # a deadlock: the machine cannot run the workload
        print(f"gpucache: error: {' '.join(str(e).split())}", file=sys.stderr)
        return EXIT_SIMULATION
    except SystemExit as e:  # --help and --version
        return e.code if isinstance(e.code, int) else 0
    except KeyboardInterrupt:
        print("gpucache: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into `head`: not an error. Point stdout at devnull so the
        # interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
