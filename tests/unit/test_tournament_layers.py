"""The tournaments' modules import each other one way: reads never import writes, no circles.

Read from the source (AST), so an import inside a function counts as much as one at the top.
The one circle allowed is the documented one (see ``tournaments/services/__init__.py``): a
service enqueues a task, so a module may import ``tournaments.tasks`` inside a function while
the tasks import the services at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "tournaments"
#: The service-enqueues-task edge: ``tournaments.tasks`` imported inside a function.
LAZY_TASKS = "tournaments.tasks"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(package: str = PACKAGE) -> dict[str, Path]:
    """Every module of the package (its migrations left out), by dotted name."""
    return {
        _module_name(path): path
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
    }


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str, path: Path, known: set[str]) -> list[tuple[str, bool]]:
    """``(imported module, inside a function)`` for each import of the file (absolute names)."""
    found: list[tuple[str, bool]] = []
    is_package = path.name == "__init__.py"

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue  # for the type checker only: never runs
            if isinstance(child, ast.Import):
                found.extend((alias.name, lazy) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = module.split(".")
                    anchor = anchor[: len(anchor) - child.level + (1 if is_package else 0)]
                    base = ".".join([*anchor, *([base] if base else [])])
                # ``from a import b``: the module ``a.b`` when there is one, else ``a``.
                found.extend(
                    (f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base, lazy)
                    for alias in child.names
                )
            inner = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            visit(child, inner)

    visit(ast.parse(path.read_text()), False)
    return found


def import_graph(package: str = PACKAGE) -> dict[str, dict[str, bool]]:
    """For each module of the package, the package's modules it imports: name -> only lazily."""
    modules = _modules(package)
    graph: dict[str, dict[str, bool]] = {}
    for name, path in modules.items():
        edges: dict[str, bool] = {}
        for target, lazy in _imports(name, path, set(modules)):
            if target not in modules or target == name:
                continue
            edges[target] = edges.get(target, True) and lazy
        graph[name] = edges
    return graph


def _allowed(source: str, target: str, lazy: bool) -> bool:
    """The documented circle's edge: a function that enqueues a task imports the tasks."""
    return lazy and target == LAZY_TASKS


def cycles(graph: dict[str, dict[str, bool]]) -> list[list[str]]:
    """The import circles of ``graph`` (the allowed edge left out), one path each."""
    edges = {
        source: sorted(t for t, lazy in targets.items() if not _allowed(source, t, lazy))
        for source, targets in graph.items()
    }
    found: list[list[str]] = []
    seen: set[frozenset[str]] = set()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        path.append(node)
        for target in edges.get(node, []):
            if state.get(target) == 1:
                circle = [*path[path.index(target) :], target]
                if frozenset(circle) not in seen:
                    seen.add(frozenset(circle))
                    found.append(circle)
            elif state.get(target) is None:
                walk(target)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            walk(node)
    return found


def test_no_selector_imports_a_service():
    graph = import_graph()
    selectors = [name for name in graph if name.split(".")[-1] == "selectors"]
    assert selectors, "the tournaments' selectors were not found"
    wrong = {
        selector: sorted(t for t in graph[selector] if t.startswith(f"{PACKAGE}.services"))
        for selector in selectors
    }
    assert not any(wrong.values()), f"a selector imports a service: {wrong}"


def test_no_import_circle_among_the_tournaments_modules_but_the_documented_one():
    graph = import_graph()
    assert "tournaments.services.registration" in graph  # the graph reads the package
    found = cycles(graph)
    assert not found, "import circles: " + "; ".join(" -> ".join(c) for c in found)


def test_the_documented_circle_is_the_lazy_task_import_and_is_seen():
    """The checker sees circles at all: with the allowed edge counted, webhooks and tasks
    form one; and the edge stays lazy (an import of the tasks at the top would be a circle)."""
    graph = import_graph()
    assert graph["tournaments.webhooks"].get(LAZY_TASKS) is True
    counted = {s: {t: False for t in targets} for s, targets in graph.items()}
    assert any({"tournaments.webhooks", LAZY_TASKS} <= set(c) for c in cycles(counted))


def test_the_services_package_still_offers_every_name_it_did():
    """Other code and tests call ``services.<name>``: the package re-exports each one."""
    from tournaments import services

    for name in services.__all__:
        assert hasattr(services, name), name
    assert services.bracket_of.__module__ == "tournaments.selectors"
