"""The import graph of ``paiju`` and ``services``, read from the source (ast, no
imports run): no import cycle (imports under ``if TYPE_CHECKING:`` and inside
functions count as much as any other) and no module importing another's private
(``_name``) name."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("paiju", "services")

Graph = dict[str, set[str]]


def module_name(path: Path) -> str:
    """``paiju/rules/engine.py`` → ``paiju.rules.engine``; a package's ``__init__``
    is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every module of :data:`PACKAGES` by its dotted name."""
    return {module_name(p): p for top in PACKAGES for p in (ROOT / top).rglob("*.py")}


def imported(node: ast.ImportFrom, package: str) -> str:
    """The module an ``from … import`` names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def edges(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, str | None]]:
    """(module imported, private name taken from it or None) for each import of
    ``name`` that lands in :data:`PACKAGES`."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((a.name, None) for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = imported(node, package)
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    yield f"{base}.{alias.name}", None
                elif base in known:
                    private = alias.name.startswith("_") and not alias.name.startswith("__")
                    yield base, alias.name if private else None


def cycles(graph: Graph) -> list[frozenset[str]]:
    """The strongly connected sets of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.add(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.append(frozenset(members))
    return found


def read_graph() -> tuple[Graph, list[str]]:
    """The import graph and each ``module imports other._name`` found."""
    known = modules()
    graph: Graph = defaultdict(set)
    private: list[str] = []
    for name, path in known.items():
        graph[name]
        for target, private_name in edges(name, path, known):
            if target != name:
                graph[name].add(target)
            if private_name is not None and target != name:
                private.append(f"{name} imports {target}.{private_name}")
    return graph, private


def test_the_cycle_finder_finds_a_cycle_and_only_it() -> None:
    graph: Graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]


def test_no_import_cycle() -> None:
    found = [sorted(c) for c in cycles(read_graph()[0])]
    assert not found, f"import cycles: {found}"


def test_no_module_imports_another_modules_private_name() -> None:
    assert read_graph()[1] == []
