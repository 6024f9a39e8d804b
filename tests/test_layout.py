"""The tree shows its parts: the packages stand in layers and import only downwards, no import
loops (between modules or between packages, type hints included), one direction between harness
and spark_jobs, every package says what it is for, docs/layout.md's table lists every module, no
module of the harness is over 600 lines, and only the command line parses arguments."""

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


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Project modules ``path`` imports, at module level, inside functions, or only for type
    checkers (a loop of type hints is a loop of the design too); ``from m import n`` counts as
    ``m.n`` where that is a module, else as ``m``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
    return {m for m in found if m in modules}


def _imports_argparse(path: Path) -> bool:
    return any(
        (isinstance(node, ast.Import) and any(a.name == "argparse" for a in node.names))
        or (isinstance(node, ast.ImportFrom) and node.module == "argparse")
        for node in ast.walk(ast.parse(path.read_text()))
    )


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, modules) for name, path in modules.items()}


# The layers, lowest first: a unit (a package of harness, a top-level module of harness, or
# scenarios / spark_jobs) imports units of its own layer or below, never above. Why each
# stands where it does:
LAYERS: tuple[tuple[str, ...], ...] = (
    # The machine: settings, errors, child processes and Docker; nothing of Kafka.
    ("harness.errors", "harness.settings", "harness.progress", "harness.waits", "harness.versions",
     "harness.cache_folders", "harness.docker_engine", "harness.stopping", "harness.commands", "harness.registry",
     "harness.build_steps"),
    # Formats: what the apps write and read back, Kafka's configuration names.
    ("harness.history", "harness.kafkaconfig"),
    # The JVM tools (Maven, class archives, Spark sessions), used by the cluster's images and the checker.
    ("harness.jvm",),
    # A running cluster; the checker over a history.
    ("harness.cluster", "harness.checker"),
    # Faults on a cluster; judging a check result.
    ("harness.faults", "harness.verdict"),
    # The apps a side runs, with their faults' conditions.
    ("harness.workloads",),
    # A scenario as data, then the scenarios themselves.
    ("harness.scenario",),
    ("scenarios",),
    # What a run leaves to read: it names scenarios' stories.
    ("harness.report",),
    # Running pairs, checking saved runs, fetching the versions a run needs.
    ("harness.runner", "harness.recheck", "harness.provision"),
    # Users' files and apps, on top of running pairs.
    ("harness.configcheck", "harness.userapps", "harness.explore", "harness.campaign"),
    # Entry points: the command line, the pytest plugin, the Spark jobs (programs the harness launches).
    # The plugin's fixtures live beside it (harness.pytest_fixtures), imported when first asked for.
    ("harness.cli", "harness.pytest_plugin", "harness.pytest_fixtures", "spark_jobs"),
)  # fmt: skip


def _unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "harness" and len(parts) > 1 else parts[0]


def _units(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Which units each unit imports (itself left out)."""
    found: dict[str, set[str]] = {}
    for module, deps in graph.items():
        found.setdefault(_unit(module), set()).update(_unit(d) for d in deps if _unit(d) != _unit(module))
    return found


def _climbing(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a module from a layer above its own, and every unit no layer names."""
    layer = {unit: n for n, units in enumerate(LAYERS) for unit in units}
    unplaced = sorted({_unit(m) for m in graph if m != "harness"} - set(layer))
    climbs = [
        f"{m} imports {d}: layer {layer[_unit(d)]} above {layer[_unit(m)]}"
        for m, deps in sorted(graph.items())
        for d in sorted(deps)
        if _unit(m) in layer and _unit(d) in layer and layer[_unit(d)] > layer[_unit(m)]
    ]
    return [f"{u} stands in no layer: add it to LAYERS" for u in unplaced] + climbs


def test_every_import_goes_down_the_layers() -> None:
    assert _climbing(_graph()) == []


def test_an_import_that_climbs_a_layer_is_caught() -> None:
    graph = _graph()
    graph["harness.history.ledger"] = graph["harness.history.ledger"] | {"harness.runner"}
    assert _climbing(graph) == ["harness.history.ledger imports harness.runner: layer 9 above 1"]
    graph["harness.newpart.thing"] = set()
    assert "harness.newpart stands in no layer: add it to LAYERS" in _climbing(graph)


def test_the_packages_import_each_other_without_a_loop() -> None:
    units = _units(_graph())
    assert _loops(units) == []


def test_the_modules_import_each_other_without_a_loop() -> None:
    assert _loops(_graph()) == []


def test_an_import_only_for_type_checkers_counts(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from harness.runner import run_pair\n")
    assert _imports(module, _modules()) == {"harness.runner"}


MAX_LINES = 600


def test_no_module_of_the_harness_is_over_600_lines() -> None:
    # Past this a module does several jobs; split it by job rather than raise the bound.
    long = {
        str(path.relative_to(ROOT)): lines
        for name, path in _modules().items()
        if name.startswith("harness") and (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert not long


def test_only_the_command_line_parses_arguments() -> None:
    # argparse belongs to harness.cli; everything below takes typed values (the Spark jobs are
    # programs of their own and parse their own).
    wrong = [
        name
        for name, path in _modules().items()
        if name.startswith("harness") and not name.startswith("harness.cli") and _imports_argparse(path)
    ]
    assert not wrong


def _loops(graph: dict[str, set[str]]) -> list[str]:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    loops: list[list[str]] = []

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                loops.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                walk(nxt, [*path, nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    return [" -> ".join(loop) for loop in loops]


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
