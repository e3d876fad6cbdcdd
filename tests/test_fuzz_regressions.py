"""Every crash the fuzzers found, as a regression test with its minimal input.

Inputs are built here, minimised by hand from the fuzzer's crash file, and
named by the target that found them (``tests/fuzz/targets.py``). Crash files
saved verbatim under ``tests/data/fuzz/<target>/`` are replayed too.
"""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from golden.errors import InputError
from tests.fuzz import targets

DATA = Path(__file__).resolve().parent / "data" / "fuzz"


def zip_with_extract_version(version: int) -> bytes:
    """A one-member zip whose central directory asks for a newer zip version than Python reads."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("meta.npy", b"")
    data = bytearray(buf.getvalue())
    cd = data.rfind(b"PK\x01\x02")
    data[cd + 6] = version  # 'version needed to extract', low byte
    return bytes(data)


def npy_unicode(codepoints: list[int]) -> bytes:
    """A 0-d '<U' .npy member holding these code points, valid or not."""
    head = f"{{'descr': '<U{len(codepoints)}', 'fortran_order': False, 'shape': (), }}"
    head = head.ljust(117) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode("latin-1")
            + b"".join(struct.pack("<I", c) for c in codepoints))


CASES = {
    # zipfile.ZipFile raised NotImplementedError("zip file version 21.1") from the loader.
    "npz-zip-version": ("npz", zip_with_extract_version(211)),
    # np.zeros(n_ctas) with a 60-digit grid: ValueError "Maximum allowed dimension exceeded".
    "accelsim-grid-60-digits": ("accelsim", b"-grid dim = (" + b"3" * 59 + b"1,1,1)\n-block dim = (33,1,1)\n"
                                            b"-accelsim tracer version = 5\n"),
    # A code point above U+10FFFF in a string of 'meta': numpy built an invalid str, and json's
    # scanner raised SystemError on it.
    "npz-members-meta-codepoint": ("npz-members", targets.SEPARATOR + b"meta.npy\n"
                                   + npy_unicode([*map(ord, '{"a": "'), 0x110000, *map(ord, '"}')])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_crash_input_is_an_input_error(name):
    target, data = CASES[name]
    with pytest.raises(InputError):
        targets.TARGETS[target](data)


def saved_crashes() -> list[tuple[str, Path]]:
    return [(d.name, f) for d in sorted(DATA.iterdir()) if d.is_dir() for f in sorted(d.iterdir())] \
        if DATA.is_dir() else []


@pytest.mark.parametrize("target, path", saved_crashes(), ids=lambda v: getattr(v, "name", v))
def test_saved_crash_file(target, path):
    targets.run_target(target, path.read_bytes())  # success or InputError; anything else fails
