"""The package's layers: imports go only downward, no module imports itself back, pytest stays above the engine.

Layers, lowest first. A module may import modules of its own layer or of a lower one. Imports
under ``if TYPE_CHECKING:`` are annotations only and do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_crmbench"
LAYERS = ["core", "env", "grading", "models", "run", "reference", "release", "results", "plugin", "cli"]
PYTEST_ALLOWED = {"plugin", "cli"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def runtime_imports(path: Path) -> set[str]:
    """Every module imported at run time (module level or inside functions), TYPE_CHECKING blocks excluded."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def internal_imports(name: str) -> set[str]:
    return {imported for imported in runtime_imports(MODULES[name]) if imported in MODULES and imported != name}


def layer_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def test_every_subpackage_is_a_layer() -> None:
    subpackages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert subpackages == set(LAYERS)
    assert {path.name for path in PACKAGE.glob("*.py")} == {"__init__.py"}


@pytest.mark.parametrize("name", sorted(name for name in MODULES if layer_of(name)))
def test_imports_only_go_down(name: str) -> None:
    own = LAYERS.index(layer_of(name) or "")
    upward = sorted(imported for imported in internal_imports(name) if LAYERS.index(layer_of(imported) or "core") > own)
    assert not upward, f"{name} ({LAYERS[own]}) imports higher layers: {upward}"


@pytest.mark.parametrize("name", sorted(name for name in MODULES if layer_of(name) not in PYTEST_ALLOWED))
def test_engine_does_not_import_pytest(name: str) -> None:
    imported = runtime_imports(MODULES[name])
    assert not {"pytest", "_pytest"} & {module.split(".")[0] for module in imported}, f"{name} imports pytest"


def test_no_import_cycles() -> None:
    graph = {name: internal_imports(name) for name in MODULES}
    # A package's __init__ re-exporting its own modules is not a cycle of behaviour; the public
    # API root (pytest_crmbench) only re-exports, so it is left out of the graph.
    graph.pop("pytest_crmbench")
    for edges in graph.values():
        edges.discard("pytest_crmbench")
    cycles = _cycles(graph)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in cycles)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strongconnect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                strongconnect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            strongconnect(node)
    return found


def test_the_checker_sees_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
