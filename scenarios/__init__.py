"""The scenarios, one module each (``SCENARIO = Scenario(...)``), and the registry that finds
them by id, in the book's order: A1 … A8, B1, B2a, … B10, C1 … C4, D1 ….

Modules without a ``SCENARIO`` hold what several scenarios share (a fault schedule). Your
own scenario modules, in the folders of ``KEH_SCENARIO_DIRS``, are listed beside these.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path
from types import ModuleType

from harness.errors import HarnessError
from harness.scenario import Scenario, Variant, side_workload
from harness.settings import Settings
from harness.verdict.document import FORBIDDEN, ONE_OF, REQUIRED


def all_scenarios() -> dict[str, Scenario]:
    return {sid: scenario for sid, (scenario, _) in _found().items()}


def _found() -> dict[str, tuple[Scenario, ModuleType]]:
    """Every scenario by id, in the book's order, with the module that defines it."""
    modules = [importlib.import_module(f"scenarios.{m.name}") for m in pkgutil.iter_modules(__path__)]
    modules += [_load(path) for folder in Settings().scenario_dirs for path in sorted(folder.glob("*.py"))]
    found: dict[str, tuple[Scenario, ModuleType]] = {}
    for module in modules:
        scenario = getattr(module, "SCENARIO", None)
        if isinstance(scenario, Scenario):
            if scenario.id in found:
                raise HarnessError(f"two scenarios are named {scenario.id}, one in {module.__file__}: rename one")
            found[scenario.id] = (scenario, module)
    return dict(sorted(found.items(), key=lambda item: _book_order(item[0])))


def _load(path: Path) -> ModuleType:
    """One of your scenario modules, by its path."""
    spec = importlib.util.spec_from_file_location(f"your_scenarios.{path.stem}", path)
    if spec is None or spec.loader is None:
        raise HarnessError(f"cannot load scenario module {path}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a mistake in the user's file: one line, which file
        raise HarnessError(f"scenario module {path} failed to load: {type(exc).__name__}: {exc}") from exc
    return module


def _book_order(scenario_id: str) -> tuple[str, int, str]:
    """A1 … A8, B1, B2a, B2b, … B10: the row number as a number, as the book lists them."""
    match = re.fullmatch(r"([A-Z]+)(\d+)(.*)", scenario_id)
    return (match[1], int(match[2]), match[3]) if match else (scenario_id, 0, "")


def from_file(path: Path) -> Scenario:
    """The scenario a module file defines (e.g. one ``kafka-harness shrink`` wrote)."""
    if not path.is_file():
        raise HarnessError(f"no scenario file {path}: give a scenario id (kafka-harness list) or a .py file's path")
    scenario = getattr(_load(path), "SCENARIO", None)
    if not isinstance(scenario, Scenario):
        raise HarnessError(f"{path} defines no SCENARIO = Scenario(...)")
    return scenario


def get(scenario_id: str) -> Scenario:
    """A scenario by its id, or the one a scenario file defines (a path ending in .py)."""
    if scenario_id.endswith(".py"):
        return from_file(Path(scenario_id))
    known = all_scenarios()
    scenario = {sid.upper(): s for sid, s in known.items()}.get(scenario_id.upper())
    if scenario is None:
        raise HarnessError(f"unknown scenario {scenario_id!r}: known are {', '.join(known)} (see `kafka-harness list`)")
    return scenario


def markdown_table() -> str:
    """docs/scenarios.md's table (``kafka-harness list --markdown``): every pair's expected verdict
    and what each side runs on, as its scenario file states them."""
    rows = [
        "| id | title | control must show | guarantee must keep | runs on (control / guarantee) | file |",
        "|---|---|---|---|---|---|",
    ]
    for sid, (s, module) in _found().items():
        research = "research, reported: " if s.research else ""
        control, guarantee = (f"{research}{_expected(v)}" for v in (s.control, s.guarantee))
        runs_on = " / ".join(_runs_on(s, v) for v in (s.control, s.guarantee))
        file = Path(module.__file__ or "").name
        rows.append(f"| {sid} | {s.title} | {control} | {guarantee} | {runs_on} | [{file}](../scenarios/{file}) |")
    return "\n".join(rows)


def _expected(variant: Variant) -> str:
    """A side's expectation as the judge reads it: required findings, one of a set, forbidden
    ones, then its checks."""
    by_rule = {rule: [n for n, r in variant.expect.items() if r == rule] for rule in (REQUIRED, ONE_OF, FORBIDDEN)}
    parts = [", ".join(by_rule[REQUIRED])] if by_rule[REQUIRED] else []
    parts += [f"one of {' / '.join(by_rule[ONE_OF])}"] if by_rule[ONE_OF] else []
    parts += [f"no {', '.join(by_rule[FORBIDDEN])}"] if by_rule[FORBIDDEN] else []
    parts += [f"check: {c.name}" for c in variant.checks]
    return "; ".join(parts) or "findings reported"


def _runs_on(scenario: Scenario, variant: Variant) -> str:
    """The side's Kafka release and client, where the scenario pins them ("default": ``--kafka-version``
    and ``--client`` choose)."""
    workload = side_workload(scenario, variant)
    client = getattr(workload, "client", "")
    pinned = getattr(workload, "client_version", "")
    kafka = f"Kafka {variant.kafka_version}" if variant.kafka_version else "default Kafka"
    return f"{kafka}, {client}=={pinned}" if pinned else f"{kafka}, {client or 'its own client'}"
