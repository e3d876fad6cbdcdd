"""Output files: checked before any work starts, written atomically; JSON inputs read with one-line errors.

Every file gpucache writes goes through :func:`atomic_write`: the content is
written to a temporary file in the same directory and renamed over the
final name, so a failed or interrupted write never leaves a half-written
file. The command line checks each output path with :func:`check_output_file`
or :func:`check_output_dir` while it parses its arguments, so that a path
that cannot be written is refused in one line before a long run, not after.

What the checks accept (``docs/cli.md`` says the same for users):

* a file that does not exist yet, in a writable directory, or below missing
  directories whose nearest existing ancestor is a writable directory (they
  are created when the file is written: ``--json results/run.json`` in a
  fresh checkout);
* an existing regular file, which is replaced;
* a symbolic link to either of those: the link is **followed**, so the file it
  points to is replaced (atomically, in the target's directory) and the link
  stays a link;
* for a directory output, an existing writable directory, or a path whose
  nearest existing ancestor is a writable directory (the missing levels are
  created).

Refused: a directory given as a file (and a file given as a directory), a
parent (or ancestor) that is a file, an unwritable directory, and
special files (FIFOs, character and block devices, sockets), which cannot be
replaced by a rename and are not written through. An output that is the same
file as one of the command's inputs is refused as well.

A result file read back (a comparison's JSON, a one-factor run's) goes through
:func:`read_json_object` and :func:`json_field`, which name the file, the line or
the field in a one-line :class:`~golden.errors.InputError`.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from golden.errors import InputError

__all__ = ["atomic_write", "check_output_file", "check_output_dir", "read_json_object", "json_field"]


def atomic_write(path: str | os.PathLike, write: Callable[[str], object]) -> None:
    """Call ``write(tmp_path)`` and rename the result to ``path``; remove it on failure.

    A symbolic link at ``path`` is followed: the file it points to is
    replaced and the link kept. Missing parent directories are created.

    Parameters
    ----------
    path : path-like
        Final file name.
    write : callable
        Writes the complete file to the temporary path it is given.

    Raises
    ------
    OSError
        When the directory cannot be created or written, or ``write`` fails so.
    """
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual permissions
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


def _writable_dir(d: Path, option: str, shown: str) -> None:
    """Raise unless a file can be created in the directory ``d``."""
    # os.access says yes to root on a read-only mount; creating a file is the true test.
    try:
        fd, probe = tempfile.mkstemp(dir=d, prefix=".gpucache-probe.")
    except OSError as e:
        raise InputError(f"{option} {shown}: cannot write in {d} ({e.strerror})") from None
    os.close(fd)
    os.unlink(probe)


def check_output_file(path: str | os.PathLike, option: str = "output",
                      inputs: Iterable[str | os.PathLike] = ()) -> Path:
    """Check that ``path`` can be written as a file; returns the file that will be written.

    Parameters
    ----------
    path : path-like
        The output file a user gave.
    option : str
        The option or argument that named it (``"--json"``), for messages.
    inputs : iterable of path-like
        Files the command reads; the output must not be one of them.

    Returns
    -------
    pathlib.Path
        The file that :func:`atomic_write` will replace (a symlink resolved).

    Raises
    ------
    InputError
        See the module docstring for what is refused.
    """
    shown = os.fspath(path)
    if not shown:
        raise InputError(f"{option}: the file name is empty")
    if shown.endswith(os.sep) or os.path.basename(shown) in (".", ".."):
        raise InputError(f"{option} {shown}: names a directory, not a file")
    target = Path(os.path.realpath(shown))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:  # e.g. a parent that is a file: ENOTDIR
        mode = None
        if e.errno != errno.ENOTDIR:  # a parent that is a file is reported below
            raise InputError(f"{option} {shown}: cannot use this path ({e.strerror})") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise InputError(f"{option} {shown}: is {_kind(mode)}, not a file gpucache can replace")
    _writable_dir(_nearest_existing(target.parent, option, shown), option, shown)
    for inp in inputs:
        if os.path.realpath(inp) == os.fspath(target):
            raise InputError(f"{option} {shown}: is also an input of this command; "
                             f"writing it would overwrite the input")
    return target


def _nearest_existing(p: Path, option: str, shown: str) -> Path:
    """``p`` or its nearest existing ancestor, which must be a directory (missing levels are made later)."""
    existing = p
    try:
        while not existing.exists() and existing.parent != existing:
            existing = existing.parent
        is_dir = existing.is_dir()
    except OSError as e:  # a directory on the way that may not be searched (EACCES)
        raise InputError(f"{option} {shown}: cannot use this path ({e.strerror})") from None
    if not is_dir:
        raise InputError(f"{option} {shown}: {existing} is a file, so no directory can be made below it"
                         if existing != p else f"{option} {shown}: {p} is not a directory")
    return existing


def check_output_dir(path: str | os.PathLike, option: str = "output") -> Path:
    """Check that ``path`` is, or can be created as, a writable directory.

    Parameters
    ----------
    path : path-like
        The output directory a user gave.
    option : str
        The option that named it (``"--out"``), for messages.

    Returns
    -------
    pathlib.Path
        ``path`` (not created here: a refused run leaves nothing behind).

    Raises
    ------
    InputError
        If ``path`` exists and is not a directory, or its nearest existing
        ancestor is not a writable directory.
    """
    shown = os.fspath(path)
    if not shown:
        raise InputError(f"{option}: the directory name is empty")
    p = Path(os.path.realpath(shown))
    try:
        mode = os.stat(p).st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None  # missing: made when written; below a file: reported next
    except OSError as e:
        raise InputError(f"{option} {shown}: cannot use this path ({e.strerror})") from None
    if mode is not None and not stat.S_ISDIR(mode):
        raise InputError(f"{option} {shown}: is {_kind(mode)}, not a directory")
    _writable_dir(_nearest_existing(p, option, shown), option, shown)
    return Path(shown)


def read_json_object(path: str | os.PathLike) -> dict:
    """The JSON object in file ``path``.

    Raises
    ------
    InputError
        When the file cannot be read, is not JSON (with the line), or holds no JSON object.
    """
    try:
        with open(path) as fh:
            data = json.load(fh)
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: line {e.lineno}: not JSON ({e.msg})") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not JSON text ({e.reason})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: not a JSON object")
    return data


def json_field(data: dict, name: str, kind: type | tuple[type, ...], path: str | os.PathLike):
    """``data[name]``, checked to be of ``kind``; ``InputError`` names ``path`` and the field otherwise."""
    if not isinstance(data.get(name), kind):
        kinds = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise InputError(f"{path}: field {name!r} missing or not a {kinds}")
    return data[name]
