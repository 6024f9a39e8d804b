"""Fault kinds, one module each (``KIND = FaultKind(...)``, ``kinds.base``); the registry here
finds them, so adding a kind is adding a module. A ``FaultSpec`` holds its kind itself; the
registry maps a kind's name back to it for what names kinds in text: schedules in JSON
(``harness.faults.serial``), run records and the command line (``kafka-harness faults``).

Link toxics (Toxiproxy): ``latency``, ``blackhole``, ``reset_peer``, ``bandwidth``,
``slicer``, ``limit_data``; ``cut`` (proxies disabled). Process faults on brokers and apps:
``kill``, ``stop``, ``pause``, ``restart``. Operations: ``elect_preferred``, ``launch``.
Protocol faults aimed at one Kafka API: ``protocol``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache

from harness.faults.kinds.base import FaultKind

# Modules of this package that hold shared machinery, not a kind.
HELPER_MODULES = {"app_window", "base", "link_toxic", "process"}


@cache
def registry() -> dict[str, FaultKind]:
    """Every kind by name, from the modules of this package (imported on first use)."""
    found: dict[str, FaultKind] = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name in HELPER_MODULES:
            continue
        kind = importlib.import_module(f"{__name__}.{module.name}").KIND
        found[kind.name] = kind
    return dict(sorted(found.items()))


def get(name: str) -> FaultKind:
    kind = registry().get(name)
    if kind is None:
        raise ValueError(f"unknown fault {name!r}; one of {', '.join(registry())}")
    return kind


def parameters(kind: FaultKind) -> str:
    """The kind's parameters as its constructor declares them (the target first)."""
    params = inspect.signature(kind.make).parameters.values()
    return ", ".join(p.name if p.default is p.empty else f"{p.name}={p.default!r}" for p in params)


def markdown_table() -> str:
    """docs/faults.md's table of kinds (``kafka-harness faults --markdown``)."""
    rows = ["| kind | family | what it does | constructor |", "|---|---|---|---|"]
    rows += [
        f"| `{k.name}` | {k.family} | {k.summary} | `{k.make.__name__}({parameters(k)})` |" for k in registry().values()
    ]
    return "\n".join(rows)
