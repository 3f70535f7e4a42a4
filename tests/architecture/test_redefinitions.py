"""No name is defined twice by `def` or `class` in one block: the second silently replaces the
first. That is how the embedded server lost its API-key check (two `_refused` methods in a class
inside a function, where ruff's F811 does not look). Alternatives in if/else or try/except
branches are separate blocks, and overloads and property accessors are meant to repeat."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _meant_to_repeat(node: ast.AST) -> bool:
    for dec in getattr(node, "decorator_list", []):
        name = ast.unparse(dec)
        if name.endswith(("overload", ".setter", ".getter", ".deleter", ".register")):
            return True
    return False


def redefinitions(source: str) -> list[tuple[int, str]]:
    """(line, name) of every def/class that replaces an earlier one in the same block."""
    found = []
    for node in ast.walk(ast.parse(source)):
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            seen: set[str] = set()
            for stmt in block:
                if isinstance(stmt, _DEFS) and not _meant_to_repeat(stmt):
                    if stmt.name in seen:
                        found.append((stmt.lineno, stmt.name))
                    seen.add(stmt.name)
    return found


def test_the_old_embedded_handler_is_caught():
    old = """
def _handler(backend, api_key):
    class Handler:
        def _refused(self):
            return api_key is not None
        def _send(self):
            pass
        def _refused(self):
            return False
    return Handler
"""
    assert redefinitions(old) == [(8, "_refused")]
    fine = """
try:
    def f(): pass
except ImportError:
    def f(): pass
class P:
    @property
    def x(self): return 1
    @x.setter
    def x(self, v): pass
"""
    assert redefinitions(fine) == []


def test_no_redefinition_anywhere():
    cmd = ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"]
    files = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True).stdout
    bad = [
        f"{f}:{line}: {name} defined again in the same block"
        for f in files.split()
        if (REPO / f).is_file()
        for line, name in redefinitions((REPO / f).read_text())
    ]
    assert not bad, "\n".join(bad)
