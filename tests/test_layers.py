"""The layer rule (docs/architecture.md): imports point down only.

golden/ imports neither rtl/, tb/, synth/, catalog/ nor cli/; rtl/ imports only amaranth, rtl/ and
the standard library; catalog/, tb/ and synth/ never import cli/. Checked on the source text of
every module (imports inside functions included), so a violation fails here before it ships.
"""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("golden", "rtl", "tb", "synth", "catalog", "cli")
#: What each package may import from the project (itself included).
ALLOWED = {
    "golden": {"golden"},
    "rtl": {"rtl"},
    "catalog": {"catalog", "golden", "rtl"},
    "tb": {"tb", "golden", "rtl", "catalog", "synth"},
    "synth": {"synth", "golden", "rtl", "catalog"},
    "cli": set(PROJECT),
}


def imports(path: Path) -> list[tuple[int, str]]:
    """Top-level names of every absolute import in a module, with their line numbers."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name.split(".")[0]) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def violations(package: str) -> list[str]:
    bad = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line, name in imports(path):
            if name in PROJECT and name not in ALLOWED[package]:
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {name}")
            elif package == "rtl" and name not in PROJECT and name != "amaranth" \
                    and name not in sys.stdlib_module_names:
                bad.append(f"{path.relative_to(ROOT)}:{line}: rtl imports {name} (only amaranth and rtl)")
    return bad


@pytest.mark.parametrize("package", PROJECT)
def test_imports_point_down(package):
    assert violations(package) == []


def test_the_checker_catches_a_violation(tmp_path, monkeypatch):
    """A golden module importing rtl, and an rtl module importing numpy, are both reported."""
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "x.py").write_text("def f():\n    from rtl.common import pc_hash\n")
    (tmp_path / "rtl").mkdir()
    (tmp_path / "rtl" / "y.py").write_text("import numpy as np\nimport enum\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert violations("golden") == ["golden/x.py:2: imports rtl"]
    assert violations("rtl") == ["rtl/y.py:1: rtl imports numpy (only amaranth and rtl)"]
