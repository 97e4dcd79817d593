"""Every module imports, and the packages import each other without a cycle.

The layers go one way: ``values`` (cards, moves) at the bottom, ``rules`` and the wire
(``protocol``) above them, the bot contract (``contract``) above the rules, the game driver
(``driver``) above the contract, then the players, the client library and the server, games
in one process (``local``), the browser (``web``), and the command line (``tools``) on top.
A package that imports one above it — even inside a function, where Python would not
notice — fails here, named with the file and line of each import.  Imports under
``if TYPE_CHECKING:`` do not count.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections import defaultdict
from itertools import pairwise

import pytest
from modules import module_names, top_package

Edges = dict[str, dict[str, list[str]]]  # package -> imported package -> "file:line"


@pytest.mark.parametrize("name", module_names())
def test_every_module_imports(name: str) -> None:
    importlib.import_module(name)


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_modules(name: str) -> list[tuple[str, int]]:
    """(absolute module name, line) of every ``daihinmin`` import in module ``name``."""
    module = importlib.import_module(name)
    tree = ast.parse(inspect.getsource(module))
    package = name if hasattr(module, "__path__") else name.rsplit(".", 1)[0]
    found: list[tuple[str, int]] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if _is_type_checking(node):
            continue
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.append((target, node.lineno))
        stack.extend(ast.iter_child_nodes(node))
    return [(t, line) for t, line in found if t.startswith("daihinmin.")]


def package_edges() -> Edges:
    edges: Edges = defaultdict(lambda: defaultdict(list))
    for name in module_names():
        source = top_package(name)
        for target, line in imported_modules(name):
            if top_package(target) != source:
                edges[source][top_package(target)].append(f"{name}:{line}")
    return edges


def find_cycle(edges: Edges) -> list[str] | None:
    """One cycle of packages (first package repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, {})):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def test_find_cycle_finds_a_cycle_and_only_a_cycle() -> None:
    assert find_cycle({"a": {"b": ["x:1"]}, "b": {"c": ["y:2"]}}) is None
    assert find_cycle({"a": {"b": ["x:1"]}, "b": {"c": ["y:2"]}, "c": {"a": ["z:3"]}}) == [
        "a", "b", "c", "a"]


def test_no_package_imports_a_package_that_imports_it() -> None:
    edges = package_edges()
    assert edges["tools"]["players"], "the graph should see tools importing players"
    cycle = find_cycle(edges)
    if cycle:
        steps = [f"{a} -> {b} ({', '.join(edges[a][b][:3])})"
                 for a, b in pairwise(cycle)]
        pytest.fail("package import cycle: " + "; ".join(steps))


# The layers, bottom to top: a package may import the packages of the layers below its own,
# never one of its own layer or above (that would be an upward import).
LAYERS: list[set[str]] = [
    {"values"},
    {"rules", "protocol"},
    {"contract"},
    {"driver"},
    {"records"},
    {"players", "client"},
    {"launch"},
    {"server", "local"},
    {"watch"},
    {"runs"},
    {"tournament"},
    {"league"},
    {"web"},
    {"bench", "research"},
    {"tools"},
]
ALLOWED: dict[str, set[str]] = {
    package: set().union(*LAYERS[:level])
    for level, layer in enumerate(LAYERS) for package in layer}


def test_packages_import_only_the_layers_below() -> None:
    edges = package_edges()
    assert set(edges) <= set(ALLOWED), f"a package with no layer: {set(edges) - set(ALLOWED)}"
    upward = [f"{a} -> {b} ({', '.join(edges[a][b][:3])})"
              for a in sorted(edges) for b in sorted(edges[a]) if b not in ALLOWED[a]]
    assert not upward, "imports against the layers: " + "; ".join(upward)


def module_edges() -> dict[str, dict[str, list[int]]]:
    """module -> imported module -> lines, for every import at any depth (a late import
    inside a function counts: it hides a cycle, it does not break it).  ``from package import
    name`` is an edge to the module ``package.name`` where that is a module."""
    names = set(module_names())
    edges: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for name in names:
        module = importlib.import_module(name)
        tree = ast.parse(inspect.getsource(module))
        package = name if hasattr(module, "__path__") else name.rsplit(".", 1)[0]
        stack: list[ast.AST] = [tree]
        while stack:
            node = stack.pop()
            if _is_type_checking(node):
                continue
            stack.extend(ast.iter_child_nodes(node))
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    source = f"{base}.{node.module}" if node.module else base
                else:
                    source = node.module or ""
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in names else source
                           for a in node.names]
            else:
                continue
            for target in targets:
                if target in names and target != name:
                    edges[name][target].append(node.lineno)
    return edges


def test_no_module_imports_a_module_that_imports_it() -> None:
    edges = module_edges()
    plain = {a: {b: [str(x) for x in lines] for b, lines in targets.items()}
             for a, targets in edges.items()}
    assert edges["daihinmin.local.terminal"]["daihinmin.local.runner"], "the graph sees modules"
    cycle = find_cycle(plain)
    if cycle:
        steps = [f"{a} -> {b} (line {', '.join(plain[a][b][:3])})" for a, b in pairwise(cycle)]
        pytest.fail("module import cycle: " + "; ".join(steps))
