"""The parts of a run's plan a schedule names, and binding a schedule to one run.

A schedule is plain data, the same for every run: its roles and conditions name the parts of
the plan (``Leader(INPUT, 0)``, ``TxnCoordinator(TransactionalId("producer-1"))``), not the
fresh names a run gets. Each workload says what its parts are called in one run
(``RunNames``, made where it makes the names: ``harness.workloads``); when the schedule
starts, ``bind`` gives every step the run's names, and each role is resolved to brokers
when its fault fires (``harness.faults.inject``). A literal name (``"__transaction_state"``)
stays as written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Topic:
    """A topic of the run's plan: ``MAIN`` (what the LSO probe watches: the producer's topic, a
    pipeline's or a Streams app's output, a Spark job's input), ``INPUT``, ``OUTPUT``, ``TOTALS``
    (a Streams app's aggregates)."""

    part: str

    def __str__(self) -> str:
        return f"<{self.part}>"


@dataclass(frozen=True)
class TransactionalId:
    """The transactional.id the run gives app ``app`` (by its name in the plan: ``producer-1``)."""

    app: str

    def __str__(self) -> str:
        return f"<transactional.id of {self.app}>"


@dataclass(frozen=True)
class GroupId:
    """The consumer group the run gives app ``app``."""

    app: str

    def __str__(self) -> str:
        return f"<group of {self.app}>"


Part = Topic | TransactionalId | GroupId
TOPIC_PARTS = ("main", "input", "output", "totals")
MAIN, INPUT, OUTPUT, TOTALS = (Topic(p) for p in TOPIC_PARTS)


@dataclass(frozen=True)
class RunNames:
    """What one run of one side calls the parts of its plan."""

    topics: Mapping[str, str]  # topic part -> topic name; "main" always
    transactional_ids: Mapping[str, str] = field(default_factory=dict)  # app name -> its transactional.id
    groups: Mapping[str, str] = field(default_factory=dict)  # app name -> its consumer group

    def __post_init__(self) -> None:
        unknown = set(self.topics) - set(TOPIC_PARTS)
        if "main" not in self.topics or unknown:
            raise ValueError(f"a run's topics are among {', '.join(TOPIC_PARTS)}, main always; not {sorted(unknown)}")

    def name(self, part: Part) -> str:
        """The run's name of ``part``; a ``ValueError`` says which parts this plan has."""
        table: Mapping[str, str]
        key, table, what = (
            (part.part, self.topics, "topic")
            if isinstance(part, Topic)
            else (part.app, self.transactional_ids, "transactional.id")
            if isinstance(part, TransactionalId)
            else (part.app, self.groups, "group")
        )
        if key not in table:
            raise ValueError(f"this run's plan has no {what} {key!r}; it has {', '.join(table) or 'none'}")
        return table[key]


def bind(steps: T, names: RunNames | None) -> T:
    """``steps`` (or any schedule data) for one run: every ``Part`` replaced by the run's name,
    every role and condition made afresh (what a condition remembers while it runs starts
    empty), and objects shared within the schedule still shared (a role that reads its
    step's condition sees the one that ran). ``names`` None: a schedule outside any plan (a
    test's own), whose names are all literal."""
    return _Binder(names).of(steps)


class _Binder:
    def __init__(self, names: RunNames | None) -> None:
        self.names = names
        self.made: dict[int, Any] = {}

    def of(self, value: Any) -> Any:
        if isinstance(value, Topic | TransactionalId | GroupId):
            if self.names is None:
                raise ValueError(f"{value} is a part of a plan, and this schedule runs outside one: name it outright")
            return self.names.name(value)
        if isinstance(value, list | tuple):
            return type(value)(self.of(v) for v in value)
        if isinstance(value, dict):
            return {k: self.of(v) for k, v in value.items()}
        # A class, or an object that is only equal to itself (a fault kind, ``FaultSpec.kind``), is
        # no data to bind: kept as it is, so it stays the one object of its kind.
        if not dataclasses.is_dataclass(value) or isinstance(value, type) or type(value).__eq__ is object.__eq__:
            return value
        if id(value) not in self.made:
            # Fields left out of comparison are what an object remembers while it runs: made new.
            fields = {
                f.name: self.of(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init and f.compare
            }
            self.made[id(value)] = type(value)(**fields)
        return self.made[id(value)]


def named(value: str | Part) -> str:
    """A name a bound schedule holds; a part still unbound is a mistake of the caller's."""
    if not isinstance(value, str):
        raise TypeError(f"{value} is a part of the plan: bind the schedule to a run first (harness.faults.plan.bind)")
    return value
