"""Faults as data (``FaultSpec``): what to do, to which role, on which listeners and in
which direction. The constructors scenarios write them with (``blackhole``, ``kill``, ...)
live with their kinds (``harness.faults.kinds``) and are re-exported by ``harness.faults``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from harness.cluster.kafka import OWN_LINK_LISTENERS
from harness.faults import kinds
from harness.faults.roles import Target

# The listener a scenario names for "the links of the apps that have their own": a fault
# on it hits only those apps. Each side of a pair run at once has its own such listener
# (``Faults(own_links=...)``); a side's faults on OWN_LINKS go to its listener.
OWN_LINKS = OWN_LINK_LISTENERS[0]

Direction = Literal["to_broker", "from_broker", "both"]
Listeners = str | tuple[str, ...]


@dataclass(frozen=True)
class FaultSpec:
    kind: str
    target: Target
    listeners: tuple[str, ...] = ("client",)
    direction: Direction = "both"
    params: dict[str, Any] = field(default_factory=dict)
    # A link toxic's chance of acting on each connection, drawn per connection (Toxiproxy's
    # toxicity): below 1, some connections of one link are hit and others, opened while it
    # holds, are not.
    toxicity: float = 1.0

    def __post_init__(self) -> None:
        kind = kinds.get(self.kind)
        if not 0 < self.toxicity <= 1 or (self.toxicity < 1 and not kind.per_connection):
            raise ValueError(f"{self.kind}: toxicity {self.toxicity} must be in (0, 1], and below 1 only for a toxic")

    def describe(self) -> str:
        where = f" on {'+'.join(self.listeners)} ({self.direction})" if kinds.get(self.kind).on_links else ""
        chance = {"toxicity": self.toxicity} if self.toxicity < 1 else {}
        args = ", ".join(f"{k}={v}" for k, v in {**self.params, **chance}.items())
        return f"{self.kind}{f'({args})' if args else ''} {self.target}{where}"


def on_links(
    kind: str, target: Target, listener: Listeners, direction: Direction, toxicity: float = 1.0, **params: Any
) -> FaultSpec:
    """A spec acting on the target's links on ``listener`` (one or several)."""
    listeners = (listener,) if isinstance(listener, str) else tuple(listener)
    return FaultSpec(kind, target, listeners, direction, params, toxicity)
