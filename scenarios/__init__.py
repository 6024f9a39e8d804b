"""The scenarios, one module each (``SCENARIO = Scenario(...)``), and the registry that finds
them by id, in the book's order: A1 … A8, B1, B2a, … B10, C1 … C4, D1 ….

Modules without a ``SCENARIO`` hold what several scenarios share (a fault schedule).
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from harness.errors import HarnessError
from harness.scenario import Scenario


def all_scenarios() -> dict[str, Scenario]:
    found: dict[str, Scenario] = {}
    for module in pkgutil.iter_modules(__path__):
        scenario = getattr(importlib.import_module(f"scenarios.{module.name}"), "SCENARIO", None)
        if isinstance(scenario, Scenario):
            found[scenario.id] = scenario
    return dict(sorted(found.items(), key=lambda item: _book_order(item[0])))


def _book_order(scenario_id: str) -> tuple[str, int, str]:
    """A1 … A8, B1, B2a, B2b, … B10: the row number as a number, as the book lists them."""
    match = re.fullmatch(r"([A-Z]+)(\d+)(.*)", scenario_id)
    return (match[1], int(match[2]), match[3]) if match else (scenario_id, 0, "")


def get(scenario_id: str) -> Scenario:
    known = all_scenarios()
    scenario = {sid.upper(): s for sid, s in known.items()}.get(scenario_id.upper())
    if scenario is None:
        raise HarnessError(f"unknown scenario {scenario_id!r}: known are {', '.join(known)} (see `kafka-harness list`)")
    return scenario
