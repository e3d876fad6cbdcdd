"""Short names of the timing loop's compiled functions, from numba's mangled symbols.

Shared by ``profile_timing.py`` (``perf`` samples per function) and
``count_instructions.py`` (callgrind's instructions per function).
"""

from __future__ import annotations


def short_name(symbol: str) -> str:
    """``_loop`` from a mangled name such as ``_ZN6golden5cache6engine6timing5_loopB3v...``.

    The last component of the qualified name; numba's wrappers keep a ``cfunc.`` or
    ``cpython.`` prefix, so that they are not taken for the function they wrap.
    """
    prefix = "cfunc." if symbol.startswith("cfunc.") else ("cpython." if "7cpython" in symbol[:12] else "")
    i = symbol.find("_ZN")
    if i < 0:
        return symbol[:60]
    i += 3
    name = symbol
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        name, i = symbol[j:j + n], j + n
    return prefix + name
