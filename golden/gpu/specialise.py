"""The timing loop compiled for one configuration: its constants folded into the code.

The generic build of :mod:`golden.gpu.core` reads every configuration word
(``K[K_L1_LAT]``, the scheduler kind, the number of SMs, ...) and every cache
level's header (sets, ways, index function, array offsets) from memory, so one
compiled copy serves every machine. The specialised build compiles the same
source with those values written in as constants, for LLVM to fold (branches
a configuration never takes, loops over schedulers and ways of known length,
divisions by a constant; which of these it does was not read from the compiled
code, only the instructions executed were counted). Both builds run the same
source and give the same bits (``tests/test_specialise.py``); the specialised
one executes about a fifth fewer instructions (``docs/timing.md``, "The loop
compiled per configuration") and costs a compilation of its own per
configuration and policy family, kept in numba's disk cache.

Which build runs is the process's choice, ``GPUCACHE_COMPILE`` (``specialised``,
the default, or ``generic``): an environment variable, so that the sweep
engine's worker processes, which inherit the environment, run the build their
parent chose. The test suite runs the generic build (``tests/conftest.py``),
which compiles once for all the suite's machines.

Folded in: every word of the configuration vector
(:data:`golden.gpu.layout.CONFIG`) except those :func:`golden.gpu.state.start_kernel`
sets per kernel and the warp limit (Best-SWL's profile runs ten limits on one
machine: one compilation serves them all); and the header of each cache level
(:mod:`golden.cache.engine`), a function of the levels' configurations alone.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import re
import textwrap
import types as pytypes

import numba as nb
import numpy as np

from golden.cache import engine
from golden.errors import InputError
from golden.gpu import layout

__all__ = ["COMPILE_MODES", "COMPILE_VARIABLE", "DYNAMIC", "Specialisation", "compile_mode", "specialisation"]

#: The environment variable that chooses the build.
COMPILE_VARIABLE = "GPUCACHE_COMPILE"
#: Its values: the default first.
COMPILE_MODES = ("specialised", "generic")

#: Configuration words read from memory in both builds: set per kernel, or varied between the runs
#: of one sweep on one machine (the warp limit).
DYNAMIC = frozenset({"kernel", "wpc", "tpc", "smem_per_cta", "regs_per_cta", "n_ctas", "warp_limit"})

# A configuration read: ``K[K_NAME]`` (the loop's only way of reading the vector; a read through
# another name would stay a memory read, which is still correct).
_READ = re.compile(r"\bK\[(K_[A-Z0-9_]+)\]")


with open(__file__, encoding="utf-8") as _fh:
    _OWN_SOURCE = _fh.read()


def compile_mode() -> str:
    """The build this process runs: ``GPUCACHE_COMPILE`` (default ``specialised``).

    Raises
    ------
    InputError
        If the variable holds anything else (the message names it).
    """
    mode = os.environ.get(COMPILE_VARIABLE, "specialised")
    if mode not in COMPILE_MODES:
        raise InputError(f"{COMPILE_VARIABLE}: must be one of {', '.join(COMPILE_MODES)}, not {mode!r}")
    return mode


class Specialisation:
    """The constants one specialised build folds in.

    Parameters
    ----------
    k : numpy.ndarray
        The model's configuration vector (:func:`golden.gpu.state.config_vector`).
    header : numpy.ndarray
        The engine buffer's level headers (its first ``MAX_LEVELS * NP`` words).
    names : dict
        The loop's name of each configuration word (``K_L1_LAT``) and its index in ``k``.

    Members
    -------
    words : dict
        ``K_NAME -> value`` of the folded configuration words.
    rows : tuple of tuple of int
        Each level's header.
    digest : str
        12 hex digits naming the build (its family and disk-cache entries).
    """

    def __init__(self, k: np.ndarray, header: np.ndarray, names: dict[str, int]) -> None:
        self.words = {name: int(k[i]) for name, i in sorted(names.items()) if layout.CONFIG[i] not in DYNAMIC}
        np_ = engine.NP
        self.rows = tuple(tuple(int(v) for v in header[j * np_:(j + 1) * np_])
                          for j in range(engine.MAX_LEVELS))
        # This module's source too: numba's cache keeps a compiled function while its file (core.py)
        # and bytecode are unchanged, and a folded constant is not in the bytecode, so a change to
        # how the build is made must change the names it is cached under.
        text = repr((sorted(self.words.items()), self.rows, _OWN_SOURCE))
        self.digest = hashlib.sha256(text.encode()).hexdigest()[:12]

    def source(self, fn) -> str:
        """``fn``'s source with its folded configuration reads as constants, on its own lines."""
        def fold(m: re.Match) -> str:
            value = self.words.get(m.group(1))
            return m.group(0) if value is None else f"np.int64({value})"

        text = _READ.sub(fold, textwrap.dedent(inspect.getsource(fn)))
        # Blank lines before it keep its line numbers (numba's messages, the disk cache's names).
        return "\n" * (fn.__code__.co_firstlineno - 1) + text

    def function(self, fn, qualname: str, where: dict) -> pytypes.FunctionType:
        """``fn`` rebuilt from :meth:`source` with globals ``where`` and qualified name ``qualname``."""
        local: dict = {}
        exec(compile(self.source(fn), fn.__code__.co_filename, "exec"), where, local)  # noqa: S102 (our source)
        out = local[fn.__name__]
        out.__qualname__ = qualname
        return out

    def params(self):
        """A compiled stand-in for :func:`golden.cache.engine._params` returning the constant headers.

        Inlined where it is called with a constant offset, it leaves only the constants.
        """
        h0, h1, h2 = self.rows
        np_ = engine.NP

        def _params(ptr, offset):
            if offset == 0:
                return h0
            if offset == np_:
                return h1
            return h2

        return nb.njit(inline="always")(_params)


def specialisation(k: np.ndarray, header: np.ndarray, names: dict[str, int]) -> Specialisation | None:
    """The :class:`Specialisation` for ``k`` and ``header``, or None when the process runs generic code."""
    if compile_mode() == "generic":
        return None
    return Specialisation(k, header, names)
