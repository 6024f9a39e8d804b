"""What a fault is: its kind (``FaultKind``), one fault as data (``FaultSpec``), and what a kind
acts with (``FaultContext``).

A kind is one module of this package defining ``KIND = FaultKind(...)``: its name, family
and one-line summary; ``make``, the constructor scenarios call (its signature and docstring
are the kind's parameters; it builds a ``FaultSpec`` holding ``KIND``); and ``start``, which
applies one ``FaultSpec`` to the brokers its role resolved to and returns the heal: a call that
undoes exactly that and returns what the fault's record should add (e.g. the requests a
protocol fault hit). Optionally ``draw``, which picks one such fault at random
(``harness.explore`` draws schedules with it) from a ``DrawContext``: what a side offers to aim
at and the timeouts that matter.

A ``FaultSpec`` says what to do (its kind and params), to which role, on which listeners and
in which direction. Kinds and specs live in one module because each names the other: a kind
makes specs, a spec holds its kind.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from harness.cluster.kafka import OWN_LINK_LISTENERS

if TYPE_CHECKING:
    from harness.cluster.kafka import KafkaCluster
    from harness.cluster.proxy import ToxiproxyAPI
    from harness.faults.plan import Topic, TransactionalId
    from harness.faults.roles import App, Target

# Undoes one injected fault; returns fields for its record (or None).
Heal = Callable[[], dict[str, Any] | None]


class SelfEnding:
    """A heal for a fault that ends by itself (e.g. once it has caught the app in a window):
    ``ended`` is set then, and the schedule heals it at once (its step's duration, if any, is
    the longest it may take)."""

    def __init__(self) -> None:
        self.ended = threading.Event()

    def __call__(self) -> dict[str, Any] | None:
        raise NotImplementedError


# Families: what explore draws from and what the report groups by.
LINK, PROCESS, OPERATION, PROTOCOL = "link", "process", "operation", "protocol"
# Faults timed by the app's own commits (crash_at_commit): drawn for users' apps (check-app
# --explore), whose progress the harness cannot read from a ledger.
COMMIT = "commit"


class AppHandle(Protocol):
    """What faults need from a workload process (``harness.workloads.process.AppProcess``)."""

    # The consumer group the app commits its input offsets to ("": none the harness knows).
    group: str

    def start(self) -> None: ...

    def running(self) -> bool: ...

    def signal(self, signum: int) -> None: ...

    def restart(self) -> None: ...

    def sent(self) -> int: ...

    def acknowledged(self) -> int: ...

    def commits(self) -> int: ...

    def ledgers(self) -> list[Path]: ...


class FaultContext(Protocol):
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
class DrawContext:
    """What a fault may be drawn against: the roles of one side (naming the parts of its plan, or
    literal names: harness.faults.plan), the listener its apps reach the brokers on, and its
    clients' timeouts, around which durations and delays are drawn."""

    brokers: tuple[Target, ...]  # broker roles: leaders, followers, coordinators, nodes
    apps: tuple[App, ...]
    partitions: tuple[tuple[str | Topic, int], ...]  # (topic, partition) an operation may act on
    client_listener: str = "client"  # where the side's apps connect
    transactional_ids: tuple[str | TransactionalId, ...] = ()
    request_timeout_ms: int = 30_000
    session_timeout_ms: int = 6_000
    transaction_timeout_ms: int = 60_000
    # The Kafka APIs the side's apps send (empty: not known, any): a protocol fault drawn on
    # another would match nothing.
    apis: tuple[str, ...] = ()

    def broker(self, rng: random.Random, *roles: type) -> Target:
        """One of the side's broker roles, of the ``roles`` types when it has any of them."""
        fitting = [b for b in self.brokers if isinstance(b, roles)] if roles else []
        return rng.choice(fitting or self.brokers)

    def target(self, rng: random.Random) -> Target:
        """A broker role or, half the time when the side has apps, an app: the apps are what an
        exactly-once pipeline must get right through their crashes."""
        return rng.choice(self.apps) if self.apps and rng.random() < 1 / 2 else self.broker(rng)

    def listener(self, rng: random.Random) -> str:
        """Mostly the apps' links; sometimes replication or the KRaft quorum between brokers."""
        return rng.choices((self.client_listener, "replication", "controller"), weights=(6, 3, 1))[0]

    def direction(self, rng: random.Random) -> str:
        return rng.choice(("to_broker", "from_broker", "both"))

    def around_timeout_ms(self, rng: random.Random) -> int:
        """A delay that matters: well under, around or just past one of the clients' timeouts."""
        timeout = rng.choice((self.request_timeout_ms, self.session_timeout_ms, self.transaction_timeout_ms))
        return max(50, int(timeout * rng.choice((0.05, 0.25, 0.5, 0.9, 1.1, 1.5))))

    def past_request_timeout_ms(self, rng: random.Random) -> int:
        """Long enough that the client has given up on a request held this long (it checks
        for timed-out requests about once a second, later on a loaded machine), yet short
        enough that its copy still lands while the client is busy with what comes next."""
        return int(self.request_timeout_ms * rng.uniform(1.2, 2.5))


# Draws one fault of a kind (``FaultKind.draw``).
Draw = Callable[[random.Random, DrawContext], "FaultSpec"]


# A kind is one object, its module's ``KIND``: equal only to itself (its functions compare by
# identity anyway), so specs of one kind are equal, read back from JSON too (the registry gives
# the same object).
@dataclass(frozen=True, eq=False)
class FaultKind:
    name: str
    family: str
    summary: str
    make: Callable[..., FaultSpec]
    start: Callable[[FaultContext, FaultSpec, list[int]], Heal]
    on_links: bool = False  # acts on proxies: the spec's listeners and direction apply
    per_connection: bool = False  # takes a toxicity (Toxiproxy draws it per connection)
    instant: bool = False  # an operation: done once, nothing to heal, an instant on the timeline
    draw: Draw | None = None  # None: never drawn by explore
    # The constructor's arguments whose ``FaultSpec.params`` key differs (``ms`` -> ``latency``):
    # how a spec is written back as its constructor's arguments (harness.faults.serial).
    params_as: Mapping[str, str] = field(default_factory=dict)


# The listener a scenario names for "the links of the apps that have their own": a fault
# on it hits only those apps. Each side of a pair run at once has its own such listener
# (``Faults(own_links=...)``); a side's faults on OWN_LINKS go to its listener.
OWN_LINKS = OWN_LINK_LISTENERS[0]

Direction = Literal["to_broker", "from_broker", "both"]
Listeners = str | tuple[str, ...]


@dataclass(frozen=True)
class FaultSpec:
    kind: FaultKind
    target: Target
    listeners: tuple[str, ...] = ("client",)
    direction: Direction = "both"
    params: dict[str, Any] = field(default_factory=dict)
    # A link toxic's chance of acting on each connection, drawn per connection (Toxiproxy's
    # toxicity): below 1, some connections of one link are hit and others, opened while it
    # holds, are not.
    toxicity: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.toxicity <= 1 or (self.toxicity < 1 and not self.kind.per_connection):
            raise ValueError(
                f"{self.kind.name}: toxicity {self.toxicity} must be in (0, 1], and below 1 only for a toxic"
            )

    def describe(self) -> str:
        where = f" on {'+'.join(self.listeners)} ({self.direction})" if self.kind.on_links else ""
        chance = {"toxicity": self.toxicity} if self.toxicity < 1 else {}
        args = ", ".join(f"{k}={v}" for k, v in {**self.params, **chance}.items())
        return f"{self.kind.name}{f'({args})' if args else ''} {self.target}{where}"


def on_links(
    kind: FaultKind,
    target: Target,
    listener: Listeners,
    direction: Direction,
    toxicity: float = 1.0,
    **params: Any,
) -> FaultSpec:
    """A spec acting on the target's links on ``listener`` (one or several)."""
    listeners = (listener,) if isinstance(listener, str) else tuple(listener)
    return FaultSpec(kind, target, listeners, direction, params, toxicity)
