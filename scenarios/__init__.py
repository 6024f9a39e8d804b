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
from harness.scenario import Scenario
from harness.settings import Settings


def all_scenarios() -> dict[str, Scenario]:
    modules = [importlib.import_module(f"scenarios.{m.name}") for m in pkgutil.iter_modules(__path__)]
    modules += [_load(path) for folder in Settings().scenario_dirs for path in sorted(folder.glob("*.py"))]
    found: dict[str, Scenario] = {}
    for module in modules:
        scenario = getattr(module, "SCENARIO", None)
        if isinstance(scenario, Scenario):
            if scenario.id in found:
                raise HarnessError(f"two scenarios are named {scenario.id}, one in {module.__file__}: rename one")
            found[scenario.id] = scenario
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
