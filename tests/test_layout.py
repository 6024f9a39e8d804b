"""The tree shows its parts: no import loops, one direction between harness and spark_jobs,
every package says what it is for, and docs/layout.md's table lists every module."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("harness", "scenarios", "spark_jobs")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _type_checking_only(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Project modules ``path`` imports, at module level or inside functions; imports only
    for type checkers do not run and do not count."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking_only(node):
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return {m for m in found if m in modules}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, modules) for name, path in modules.items()}


def test_the_import_graph_has_no_loop() -> None:
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    loops: list[list[str]] = []

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                loops.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                walk(nxt, [*path, nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    assert not loops, "\n".join(" -> ".join(loop) for loop in loops)


def test_harness_never_imports_the_spark_jobs() -> None:
    # The jobs use the harness (sessions, the value format, the tables they write); the
    # harness only launches them as processes.
    wrong = {m: sorted(d for d in deps if d.startswith("spark_jobs")) for m, deps in _graph().items()}
    assert not {m: d for m, d in wrong.items() if m.startswith("harness") and d}


def test_every_package_opens_with_a_docstring_of_its_job() -> None:
    for name, path in _modules().items():
        if path.name == "__init__.py" or name.count(".") == 0:
            assert ast.get_docstring(ast.parse(path.read_text())), f"{name} says nothing about its job"


def test_the_layout_table_lists_every_module() -> None:
    table = (ROOT / "docs" / "layout.md").read_text()
    missing = [
        str(path.relative_to(ROOT))
        for name, path in _modules().items()
        if name.startswith("harness") and path.name != "__init__.py" and f"`{path.relative_to(ROOT)}`" not in table
    ]
    assert not missing, f"not in docs/layout.md's table: {missing}"
