"""Errors that describe a user's mistake rather than a defect in gpucache."""

__all__ = ["InputError", "SimulationError"]


class InputError(ValueError):
    """Bad user input: a file, a field or a name.

    The message is one line that names the file (and line, where there is
    one), the field and what is wrong. The command line prints it alone and
    exits with status 2; no traceback is shown for these.
    """


class SimulationError(RuntimeError):
    """A run that cannot finish (a deadlock): the message is one line naming where and why.

    The command line prints it alone and exits with status 4: the input is valid, the machine it
    describes cannot run the workload.
    """
