"""Conditions a schedule step can wait for before it injects its fault: asked every half
second until they hold."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from harness.faults.kinds import pause as pause_kind
from harness.faults.plan import Topic, named
from harness.faults.roles import App

if TYPE_CHECKING:
    from harness.faults.inject import Faults


@dataclass(frozen=True)
class Isr:
    """The partition's ISR has shrunk to ``at_most`` members (followers cut off have left
    it), or grown back to ``at_least`` (a restarted broker caught up)."""

    topic: str | Topic
    partition: int
    at_most: int | None = None
    at_least: int | None = None

    def holds(self, faults: Faults) -> bool:
        size = len(faults.cluster.isr(named(self.topic), self.partition))
        return (self.at_most is None or size <= self.at_most) and (self.at_least is None or size >= self.at_least)

    def __str__(self) -> str:
        bounds = {"<=": self.at_most, ">=": self.at_least}
        shown = " and ".join(f"{op} {n}" for op, n in bounds.items() if n is not None)
        return f"ISR of {self.topic}-{self.partition} {shown}"


@dataclass(frozen=True)
class AppSent:
    """The app has sent at least ``records`` (over all its incarnations): it is mid-stream,
    with work in hand, rather than still joining its group or starting up. ``acknowledged``:
    the brokers have acknowledged that many, so its requests are flowing to the leaders (a
    client still fetching metadata has sent records that are only in its buffer)."""

    app: str
    records: int
    acknowledged: bool = False

    def holds(self, faults: Faults) -> bool:
        app = faults.apps[self.app]
        return (app.acknowledged() if self.acknowledged else app.sent()) >= self.records

    def __str__(self) -> str:
        return f"{self.app} {'had acknowledged' if self.acknowledged else 'sent'} >= {self.records} records"


@dataclass(frozen=True)
class Committed:
    """The app has asked for its ``commits``-th commit (of a transaction, or of consumer offsets
    outside transactions), over all its incarnations: a fault keyed to its progress in units
    that matter to exactly-once."""

    app: str
    commits: int

    def holds(self, faults: Faults) -> bool:
        return faults.apps[self.app].commits() >= self.commits

    def __str__(self) -> str:
        return f"{self.app} asked for commit {self.commits}"


@dataclass(frozen=True)
class Paused:
    """An earlier step's pause holds the app (SIGSTOP sent, SIGCONT not yet), and has for
    ``for_s`` seconds: what a replacement instance waits for, so it never starts before the
    stall it replaces (or before what the stall lets the brokers do meanwhile, e.g. B2d's
    expiry of the app's transactional.id)."""

    app: str
    for_s: float = 0.0

    def holds(self, faults: Faults) -> bool:
        since = time.time() - self.for_s
        return any(
            i.spec.kind is pause_kind.KIND
            and i.spec.target == App(self.app)
            and i.healed_at is None
            and i.injected_at <= since
            for i in faults.log
        )

    def __str__(self) -> str:
        return f"{self.app} paused" + (f" for {self.for_s:g}s" if self.for_s else "")


class Condition(Protocol):
    """What a step may wait for (``Isr``, ``AppSent``, ``Committed``, ``Paused``, or a workload's own, e.g.
    harness.workloads.pipeline.BatchUncommitted or harness.workloads.spark.BatchInFlight):
    asked every half second until it holds."""

    def holds(self, faults: Faults) -> bool: ...
