"""What a fault kind is (``FaultKind``) and what it gets to act with (``Context``).

A kind is one module of this package defining ``KIND = FaultKind(...)``: its name, family
and one-line summary; ``make``, the constructor scenarios call (its signature and docstring
are the kind's parameters); and ``start``, which applies one ``FaultSpec`` to the brokers its
role resolved to and returns the heal: a call that undoes exactly that and returns what the
fault's record should add (e.g. the requests a protocol fault hit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from harness.cluster.kafka import KafkaCluster
    from harness.cluster.proxy import ToxiproxyAPI
    from harness.faults.specs import FaultSpec

# Undoes one injected fault; returns fields for its record (or None).
Heal = Callable[[], dict[str, Any] | None]

# Families: what explore draws from and what the report groups by.
LINK, PROCESS, OPERATION, PROTOCOL = "link", "process", "operation", "protocol"


class AppHandle(Protocol):
    """What faults need from a workload process (``harness.workloads.process.AppProcess``)."""

    def start(self) -> None: ...

    def signal(self, signum: int) -> None: ...

    def restart(self) -> None: ...

    def sent(self) -> int: ...

    def ledgers(self) -> list[Path]: ...


class Context(Protocol):
    """What a kind acts on: one cluster, its Toxiproxy, the side's apps (``harness.faults.inject.Faults``)."""

    cluster: KafkaCluster
    apps: dict[str, AppHandle]

    @property
    def proxies(self) -> ToxiproxyAPI: ...

    def proxy_names(self, spec: FaultSpec, brokers: list[int]) -> list[str]:
        """The proxies of ``brokers`` on the spec's listeners (the own-link listener resolved)."""

    def toxic_name(self, kind: str, stream: str) -> str:
        """A toxic name of this side's own, so its sweep removes only what it added."""

    def disabled(self, proxies: list[str]) -> None:
        """Note proxies a fault disabled, so the final sweep enables them again."""


@dataclass(frozen=True)
class FaultKind:
    name: str
    family: str
    summary: str
    make: Callable[..., FaultSpec]
    start: Callable[[Context, FaultSpec, list[int]], Heal]
    on_links: bool = False  # acts on proxies: the spec's listeners and direction apply
    per_connection: bool = False  # takes a toxicity (Toxiproxy draws it per connection)
    instant: bool = False  # an operation: done once, nothing to heal, an instant on the timeline
