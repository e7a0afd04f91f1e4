"""The layers hold: import-linter's contracts, and what import-linter cannot see.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``, described in
docs/architecture.md): the pure libraries import no Django and nothing of ours, accounts
imports no other app, games neither tournaments nor ladders, no selector imports a service,
no circle inside any package, and each app in its layers. ``make lint`` runs ``lint-imports``;
so does :func:`test_lint_imports_keeps_every_contract`, so ``make test`` fails on a broken one.

import-linter reads every import, at the top of a module or inside a function, and cannot tell
them apart. This module checks what depends on the difference:

- no import sits inside a function (a way around a circle, a smell to fix) but the documented
  exceptions: ``[tool.imports-inside-functions]`` in ``pyproject.toml`` names each module
  that may have one, with the reason; a module not named there, or named with no such import
  left, fails;
- the imports at the top of the modules form no circle;
- the pure libraries import nothing outside the standard library (the formats: and networkx).

``python tests/unit/test_layers.py`` lists the imports inside functions with their count.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The packages of the service: import-linter's root packages.
PACKAGES = (
    "accounts",
    "bots",
    "common",
    "config",
    "games",
    "ladders",
    "ratings",
    "tournaments",
    "web",
)
#: The modules that may import inside a function, each with its reason (pyproject.toml).
FUNCTION_LEVEL_EXCEPTIONS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())[
    "tool"
]["imports-inside-functions"]
#: The pure libraries and the third-party packages each may import besides the standard library.
PURE_LIBRARIES = {
    "games/engine": set(),
    "games/clocks.py": set(),
    "games/matchmaking.py": set(),
    "ratings": set(),
    "tournaments/formats": {"networkx"},
}

FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _sources(*packages: str) -> Iterator[Path]:
    """Every Python file of the packages (a module path works too), migrations left out."""
    for package in packages:
        path = ROOT / package
        files = [path] if path.suffix == ".py" else sorted(path.rglob("*.py"))
        yield from (f for f in files if "migrations" not in f.parts)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_in(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Each import statement of the tree, and whether it sits inside a function body."""

    def visit(node: ast.AST, inside: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, inside
            yield from visit(child, inside or isinstance(child, FUNCTION))

    return visit(tree, False)


def function_level_imports() -> list[str]:
    """``file:line: statement`` for every import inside a function of the service's packages."""
    found = []
    for path in _sources(*PACKAGES):
        for node, inside in imports_in(ast.parse(path.read_text(), str(path))):
            if inside:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    return found


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The absolute names an import statement names: ``from a import b`` gives ``a`` and
    ``a.b`` (the caller keeps whichever is a module of ours)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = module.split(".")
        anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
        base = ".".join([*anchor, *([base] if base else [])])
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def module_level_graph() -> dict[str, set[str]]:
    """For each module of ours, the modules of ours it imports at its top (outside functions).

    ``from a import b`` counts as an import of the module ``a.b`` when there is one, else of
    ``a``. A module's import of a package it is in is left out: Python has started that package
    before the module (``games.engine.bots`` imports its strategies at its end, and they take
    ``register`` from it).
    """
    paths = {_module_name(path): path for path in _sources(*PACKAGES)}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        edges = set()
        for node, inside in imports_in(ast.parse(path.read_text(), str(path))):
            if inside:
                continue
            names = _imported(node, module, path.name == "__init__.py")
            if isinstance(node, ast.ImportFrom):
                submodules = [name for name in names[1:] if name in paths]
                names = submodules if len(submodules) == len(names) - 1 else [names[0], *submodules]
            edges |= {
                name
                for name in names
                if name in paths and name != module and not module.startswith(f"{name}.")
            }
        graph[module] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One path for each circle found by a depth-first walk of the graph."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                found.append([*path[path.index(target) :], target])
            elif target not in state:
                walk(target)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node)
    return found


def test_lint_imports_keeps_every_contract():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    assert lint_imports.exists(), "import-linter is missing: make venv (pip install -e '.[dev]')"

    run = subprocess.run(
        [str(lint_imports), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert run.returncode == 0, (
        "lint-imports: a contract of pyproject.toml is broken, or an ignored import is gone "
        f"(delete its entry)\n{run.stdout}\n{run.stderr}"
    )
    assert " 0 broken" in run.stdout


def test_no_import_inside_a_function_but_the_documented_exceptions():
    found = function_level_imports()
    modules = {_module_name(ROOT / line.split(":")[0]) for line in found}

    undocumented = [
        line
        for line in found
        if _module_name(ROOT / line.split(":")[0]) not in FUNCTION_LEVEL_EXCEPTIONS
    ]
    assert not undocumented, (
        "imports inside functions: import at the top of the module, or break the circle the "
        "import works around (or, with a reason, list the module in pyproject.toml's "
        "[tool.imports-inside-functions])\n" + "\n".join(undocumented)
    )
    stale = set(FUNCTION_LEVEL_EXCEPTIONS) - modules
    assert not stale, f"listed as exceptions but importing at the top only now: {sorted(stale)}"
    assert all(reason.strip() for reason in FUNCTION_LEVEL_EXCEPTIONS.values())


def test_the_count_sees_imports_in_every_kind_of_function_and_nothing_else():
    source = """
import os
from math import pi
class A:
    import json
    def method(self):
        import re
def f():
    def inner():
        from . import sibling
    return lambda: __import__("x")
async def g():
    import asyncio
if os:
    import sys
"""
    inside = [ast.unparse(node) for node, lazy in imports_in(ast.parse(source)) if lazy]

    assert inside == ["import re", "from . import sibling", "import asyncio"]


def test_the_imports_at_the_top_of_the_modules_form_no_circle():
    graph = module_level_graph()
    assert "games.services" in graph["games.tasks"]  # the graph reads the modules

    found = circles(graph)

    assert not found, "circles of imports at the top of modules: " + "; ".join(
        " -> ".join(circle) for circle in found
    )


def test_the_circle_check_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_the_pure_libraries_import_only_the_standard_library():
    """import-linter forbids Django and the service's packages by name; this is the whole rule:
    nothing third-party at all but what each library names (the contracts check ours)."""
    allowed_everywhere = set(sys.stdlib_module_names) | set(PACKAGES)
    wrong = {}
    for library, extra in PURE_LIBRARIES.items():
        for path in _sources(library):
            for node, _ in imports_in(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.ImportFrom) and node.level:
                    continue  # relative: inside the library
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                tops = {name.split(".")[0] for name in names or [node.module or ""]}
                if tops - allowed_everywhere - extra:
                    wrong[f"{path.relative_to(ROOT)}:{node.lineno}"] = ast.unparse(node)

    assert not wrong, f"a pure library imports a third-party package: {wrong}"


if __name__ == "__main__":
    listed = function_level_imports()
    print("\n".join(listed))
    print(f"{len(listed)} imports inside functions; the modules allowed some:")
    print("\n".join(f"  {module}: {why}" for module, why in FUNCTION_LEVEL_EXCEPTIONS.items()))
