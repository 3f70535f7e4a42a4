"""The house rules of docs/architecture.md, read from the source: imports run downhill; test
packages import only themselves and tests.helpers, and every test folder is a package.

Every import counts, including one inside a function: a lazy import keeps start-up fast, it
does not make an upward edge legal.
"""

from __future__ import annotations

import ast
import subprocess
from collections import defaultdict
from pathlib import Path

import networkx as nx
import pytest

REPO = Path(__file__).resolve().parents[2]

# Each top-level package and the project packages it may import (docs/architecture.md).
ALLOWED: dict[str, set[str]] = {
    "common": set(),
    "contracts": {"common"},
    "planner": {"common"},
    "base_models": {"common"},
    "envs": {"contracts", "planner", "common"},
    "serving": {"base_models", "common"},
    "training": {"base_models", "common"},
    "agent_runtime": {"contracts", "envs", "serving", "common"},
    "catalogbrowse": {"contracts", "envs", "planner", "serving", "base_models", "common"},
    "odobot": {"agent_runtime", "contracts", "envs", "serving", "base_models", "common"},
    "data_export": {"agent_runtime", "catalogbrowse", "odobot", "contracts", "envs", "planner",
                    "common"},
    "evals": {"agent_runtime", "catalogbrowse", "odobot", "contracts", "envs", "planner",
              "serving", "base_models", "data_export", "common"},
    "pathwise": {"agent_runtime", "catalogbrowse", "odobot", "contracts", "envs", "planner",
                 "serving", "base_models", "training", "data_export", "evals", "common"},
}  # fmt: skip
# Finer rules inside an allowed edge: (importer prefix, forbidden import prefix).
FORBIDDEN = [
    ("odobot", "agent_runtime.top"),
    ("odobot", "agent_runtime.middle"),
]
RUNTIME_MAX_LINES = 9000


def _tracked(*patterns: str) -> list[str]:
    """Files git would commit (tracked or new, not ignored) that exist in the work tree."""
    cmd = ["git", "ls-files", "--cached", "--others", "--exclude-standard", *patterns]
    out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True).stdout
    return [f for f in dict.fromkeys(out.split()) if (REPO / f).is_file()]


def _modules() -> dict[str, Path]:
    mods = {}
    for f in _tracked("*.py"):
        if f.split("/")[0] in ALLOWED:
            mods[f[:-3].replace("/", ".").removesuffix(".__init__")] = REPO / f
    return mods


def _imports(path: Path, module: str) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    mods = _modules()
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    for m, path in mods.items():
        for name in _imports(path, m):
            while name and name not in mods:
                name = name.rpartition(".")[0]
            if name and name != m and not m.startswith(name + "."):
                g.add_edge(m, name)
    return g


def test_no_import_circles(graph: nx.DiGraph) -> None:
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, f"import circles: {cycles}"


def test_no_circles_between_subpackages(graph: nx.DiGraph) -> None:
    mods = _modules()

    def package(m: str) -> str:
        return m if mods[m].name == "__init__.py" else m.rpartition(".")[0]

    pg = nx.DiGraph()
    for a, b in graph.edges:
        pa, pb = package(a), package(b)
        if pa and pb and not pa.startswith(pb) and not pb.startswith(pa):
            pg.add_edge(pa, pb)
    cycles = [sorted(c) for c in nx.strongly_connected_components(pg) if len(c) > 1]
    assert not cycles, f"circles between packages: {cycles}"


def test_imports_run_downhill(graph: nx.DiGraph) -> None:
    bad = defaultdict(set)
    for a, b in graph.edges:
        pa, pb = a.split(".")[0], b.split(".")[0]
        if pa != pb and pb not in ALLOWED[pa]:
            bad[f"{pa} -> {pb}"].add(f"{a} -> {b}")
        for importer, target in FORBIDDEN:
            if (a == importer or a.startswith(importer + ".")) and (
                b == target or b.startswith(target + ".")
            ):
                bad[f"{importer} -> {target}"].add(f"{a} -> {b}")
    assert not bad, "upward or forbidden imports:\n" + "\n".join(
        f"{k}: {sorted(v)[:5]}" for k, v in sorted(bad.items())
    )


def test_environments_import_only_contracts_of_the_agent(graph: nx.DiGraph) -> None:
    agent_side = ("agent_runtime", "catalogbrowse", "odobot", "data_export", "evals", "pathwise")
    leaks = [(a, b) for a, b in graph.edges if a.startswith("envs") and b.startswith(agent_side)]
    assert not leaks


def test_agent_runtime_is_one_paper() -> None:
    files = _tracked("agent_runtime/*.py")
    lines = sum(len((REPO / f).read_text(encoding="utf-8").splitlines()) for f in files)
    assert lines < RUNTIME_MAX_LINES, f"agent_runtime/ has {lines} lines of Python"


# The test tree mirrors the packages; a test package imports only itself and tests.helpers.
def _test_package(f: str) -> str:
    """tests/a/b/test_x.py -> tests.a.b (the package the file belongs to)."""
    return f.rpartition("/")[0].replace("/", ".")


def test_test_packages_import_only_themselves_and_helpers() -> None:
    bad = []
    for f in _tracked("tests/*.py"):
        own = _test_package(f)
        module = f[:-3].replace("/", ".")
        for name in sorted(_imports(REPO / f, module)):
            if name == "tests" or not name.startswith("tests."):
                continue
            if name == "tests.helpers" or name.startswith("tests.helpers."):
                continue
            if own != "tests" and (name == own or name.startswith(own + ".")):
                continue
            bad.append(f"{f}: {name}")
    assert not bad, "test packages importing other test packages:\n" + "\n".join(bad)


def test_every_test_folder_is_a_package() -> None:
    """Same-named test files in two folders must not collide, and no folder may be put on
    sys.path so that its modules are imported by bare name."""
    folders = {f.rpartition("/")[0] for f in _tracked("tests/*.py")}
    missing = sorted(d for d in folders if not (REPO / d / "__init__.py").is_file())
    assert not missing, f"test folders without __init__.py: {missing}"
