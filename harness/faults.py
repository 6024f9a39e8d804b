"""Faults: link toxics and process faults behind one API, aimed at roles, healed on demand.

A fault is data (``FaultSpec``): what to do, to which *role* ("the leader of orders-0",
"the app producer-1"), on which listener and direction. The role is resolved to concrete
brokers only when the fault fires, as in Jepsen. ``Faults.inject`` returns an
``Injected`` whose ``heal()`` undoes exactly that fault; ``Faults.heal_all`` undoes
everything. A ``Schedule`` is a timed list of steps (at, optional condition, fault,
duration) run beside a workload, and always heals at its end.

Process faults on an ``App`` hit the workload's OS process: kill is SIGKILL, stop is
SIGTERM, pause is SIGSTOP. Healing a killed or stopped app starts its next incarnation,
which resumes the same work (the app decides how, from its ledger); healing a pause is
SIGCONT.
"""

from __future__ import annotations

import itertools
import signal
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from harness.cluster import LISTENERS, OWN_LINK_LISTENERS
from harness.progress import say
from harness.proxy import FROM_BROKER, TO_BROKER
from harness.waits import wait_until

if TYPE_CHECKING:
    from harness.cluster import KafkaCluster

# The listener a scenario names for "the links of the apps that have their own": a fault
# on it hits only those apps. Each side of a pair run at once has its own such listener
# (``Faults(own_links=...)``); a side's faults on OWN_LINKS go to its listener.
OWN_LINKS = OWN_LINK_LISTENERS[0]

Direction = Literal["to_broker", "from_broker", "both"]
_STREAMS: dict[str, tuple[str, ...]] = {
    "to_broker": (TO_BROKER,),
    "from_broker": (FROM_BROKER,),
    "both": (TO_BROKER, FROM_BROKER),
}


# --- roles --------------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    """A fixed broker by node id."""

    node_id: int

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        return [self.node_id]

    def __str__(self) -> str:
        return f"broker {self.node_id}"


@dataclass(frozen=True)
class Brokers:
    """Every broker: with listener OWN_LINKS, every link of the apps that have their own."""

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        return sorted(cluster.brokers)

    def __str__(self) -> str:
        return "every broker"


@dataclass(frozen=True)
class Leader:
    """The broker leading a partition when the fault fires."""

    topic: str
    partition: int = 0

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        return [cluster.wait_for_leader(self.topic, self.partition, timeout_s=30)]

    def __str__(self) -> str:
        return f"leader of {self.topic}-{self.partition}"


@dataclass(frozen=True)
class Followers:
    """Every replica of a partition except its leader, when the fault fires."""

    topic: str
    partition: int = 0

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        leader = cluster.wait_for_leader(self.topic, self.partition, timeout_s=30)
        return [r for r in sorted(cluster.partition(self.topic, self.partition).replicas) if r != leader]

    def __str__(self) -> str:
        return f"followers of {self.topic}-{self.partition}"


@dataclass(frozen=True)
class Replicas:
    """Every replica of a partition (the target of a leader election)."""

    topic: str
    partition: int = 0

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        return sorted(cluster.partition(self.topic, self.partition).replicas)

    def __str__(self) -> str:
        return f"replicas of {self.topic}-{self.partition}"


@dataclass(frozen=True)
class TxnCoordinator:
    """The broker coordinating a transactional.id: the leader of its ``__transaction_state``
    partition, which Kafka picks as abs(Java hashCode of the id) mod the partition count."""

    transactional_id: str

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        partitions = int(cluster.broker_settings["transaction.state.log.num.partitions"])
        return [
            cluster.wait_for_leader("__transaction_state", java_hash(self.transactional_id) % partitions, timeout_s=30)
        ]

    def __str__(self) -> str:
        return f"transaction coordinator of {self.transactional_id}"


def java_hash(text: str) -> int:
    """Java's String.hashCode, made non-negative the way Kafka's Utils.abs does
    (absolute value, and 0 for Integer.MIN_VALUE)."""
    h = 0
    for unit in text.encode("utf-16-be").hex(" ", 2).split():
        h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
    signed = h - (1 << 32) if h >= 1 << 31 else h
    return 0 if signed == -(1 << 31) else abs(signed)


@dataclass(frozen=True)
class App:
    """A workload process of the run, by the name the runner registered it under."""

    name: str

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        return []

    def __str__(self) -> str:
        return f"app {self.name}"


Target = Node | Brokers | Leader | Followers | Replicas | TxnCoordinator | App


class AppHandle(Protocol):
    """What faults need from a workload process (``harness.workloads.process.AppProcess``)."""

    def start(self) -> None: ...

    def signal(self, signum: int) -> None: ...

    def restart(self) -> None: ...

    def sent(self) -> int: ...


# --- conditions a step can wait for ---------------------------------------------------


@dataclass(frozen=True)
class Isr:
    """The partition's ISR has shrunk to ``at_most`` members (followers cut off have left
    it), or grown back to ``at_least`` (a restarted broker caught up)."""

    topic: str
    partition: int
    at_most: int | None = None
    at_least: int | None = None

    def holds(self, faults: Faults) -> bool:
        size = len(faults.cluster.isr(self.topic, self.partition))
        return (self.at_most is None or size <= self.at_most) and (self.at_least is None or size >= self.at_least)

    def __str__(self) -> str:
        bounds = {"<=": self.at_most, ">=": self.at_least}
        shown = " and ".join(f"{op} {n}" for op, n in bounds.items() if n is not None)
        return f"ISR of {self.topic}-{self.partition} {shown}"


@dataclass(frozen=True)
class AppSent:
    """The app has sent at least ``records`` (over all its incarnations): it is mid-stream,
    with work in hand, rather than still joining its group or starting up."""

    app: str
    records: int

    def holds(self, faults: Faults) -> bool:
        return faults.apps[self.app].sent() >= self.records

    def __str__(self) -> str:
        return f"{self.app} sent >= {self.records} records"


@dataclass(frozen=True)
class Paused:
    """An earlier step's pause holds the app (SIGSTOP sent, SIGCONT not yet): what a
    replacement instance waits for, so it never starts before the stall it replaces."""

    app: str

    def holds(self, faults: Faults) -> bool:
        return any(
            i.spec.kind == "pause" and i.spec.target == App(self.app) and i.healed_at is None for i in faults.log
        )

    def __str__(self) -> str:
        return f"{self.app} paused"


class Condition(Protocol):
    """What a step may wait for (``Isr``, ``AppSent``, ``Paused``, or a workload's own, e.g.
    harness.spark_app.BatchInFlight): asked every half second until it holds."""

    def holds(self, faults: Faults) -> bool: ...


# --- fault specs --------------------------------------------------------------------

# Toxiproxy toxic type behind each link fault.
LINK_TOXICS = {
    "latency": "latency",
    "blackhole": "timeout",  # timeout=0: bytes are swallowed and the connection stays open
    "reset_peer": "reset_peer",
    "bandwidth": "bandwidth",
    "slicer": "slicer",
    "limit_data": "limit_data",
}
PROCESS_FAULTS = ("kill", "stop", "pause", "restart")
APP_SIGNALS = {"kill": signal.SIGKILL, "stop": signal.SIGTERM, "pause": signal.SIGSTOP}
# Operations: done once, nothing to heal.
OPERATIONS = ("elect_preferred", "launch")
FAULT_KINDS = (*LINK_TOXICS, "cut", *PROCESS_FAULTS, *OPERATIONS)


@dataclass(frozen=True)
class FaultSpec:
    kind: str
    target: Target
    listeners: tuple[str, ...] = ("client",)
    direction: Direction = "both"
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {self.kind!r}; one of {', '.join(FAULT_KINDS)}")

    def describe(self) -> str:
        link = self.kind in LINK_TOXICS or self.kind == "cut"
        where = f" on {'+'.join(self.listeners)} ({self.direction})" if link else ""
        args = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.kind}{f'({args})' if args else ''} {self.target}{where}"


def _link(kind: str, target: Target, listener: str | tuple[str, ...], direction: Direction, **params: Any) -> FaultSpec:
    listeners = (listener,) if isinstance(listener, str) else tuple(listener)
    return FaultSpec(kind, target, listeners, direction, params)


def latency(
    target: Target,
    ms: int,
    jitter_ms: int = 0,
    listener: str | tuple[str, ...] = "client",
    direction: Direction = "both",
) -> FaultSpec:
    return _link("latency", target, listener, direction, latency=ms, jitter=jitter_ms)


def blackhole(target: Target, listener: str | tuple[str, ...] = "client", direction: Direction = "both") -> FaultSpec:
    """Bytes vanish, connections stay open: requests time out rather than fail fast."""
    return _link("blackhole", target, listener, direction, timeout=0)


def reset_peer(
    target: Target, after_ms: int = 0, listener: str | tuple[str, ...] = "client", direction: Direction = "both"
) -> FaultSpec:
    return _link("reset_peer", target, listener, direction, timeout=after_ms)


def bandwidth(
    target: Target, kb_per_s: int, listener: str | tuple[str, ...] = "client", direction: Direction = "both"
) -> FaultSpec:
    return _link("bandwidth", target, listener, direction, rate=kb_per_s)


def slicer(
    target: Target,
    average_size: int = 64,
    size_variation: int = 32,
    delay_us: int = 1000,
    listener: str | tuple[str, ...] = "client",
    direction: Direction = "both",
) -> FaultSpec:
    return _link(
        "slicer", target, listener, direction, average_size=average_size, size_variation=size_variation, delay=delay_us
    )


def limit_data(
    target: Target, max_bytes: int, listener: str | tuple[str, ...] = "client", direction: Direction = "both"
) -> FaultSpec:
    return _link("limit_data", target, listener, direction, bytes=max_bytes)


def cut(target: Target, listener: str | tuple[str, ...] = ("client", "replication", "controller")) -> FaultSpec:
    """Refuse new connections and close open ones on the target's proxies."""
    return _link("cut", target, listener, "both")


def kill(target: Target) -> FaultSpec:
    """SIGKILL the broker's JVM; healing starts the same container (same disk) again."""
    return FaultSpec("kill", target)


def stop(target: Target) -> FaultSpec:
    """SIGTERM, a clean shutdown; healing starts it again."""
    return FaultSpec("stop", target)


def pause(target: Target) -> FaultSpec:
    """Freeze every process of the broker (cgroup freezer); healing thaws it."""
    return FaultSpec("pause", target)


def restart(target: Target) -> FaultSpec:
    """A clean bounce: stop then start at once; healing waits until it is registered."""
    return FaultSpec("restart", target)


def launch(target: App) -> FaultSpec:
    """Start an app registered but not running yet (a replacement instance)."""
    return FaultSpec("launch", target)


def elect_preferred(topic: str, partition: int = 0) -> FaultSpec:
    """Move leadership back to the preferred (first) replica, as an operator would."""
    return FaultSpec("elect_preferred", Replicas(topic, partition))


# --- injection ----------------------------------------------------------------------


@dataclass
class Injected:
    spec: FaultSpec
    brokers: list[int]
    injected_at: float
    _undo: Callable[[], None]
    healed_at: float | None = None

    def heal(self) -> None:
        if self.healed_at is None:
            self._undo()
            self.healed_at = time.time()
            if self.spec.kind not in OPERATIONS:  # an operation has nothing to undo
                say(f"healed: {self.spec.describe()}" + (f" -> brokers {self.brokers}" if self.brokers else ""))

    def record(self) -> dict[str, Any]:
        return {
            "fault": self.spec.kind,
            "target": str(self.spec.target),
            "brokers": self.brokers,
            "listeners": list(self.spec.listeners),
            "direction": self.spec.direction,
            "params": self.spec.params,
            "injected_at": self.injected_at,
            "healed_at": self.healed_at,
        }


class Faults:
    """Injects faults into one cluster and remembers them, for healing and for the report."""

    def __init__(
        self, cluster: KafkaCluster, apps: dict[str, AppHandle] | None = None, own_links: str = OWN_LINKS
    ) -> None:
        self.cluster = cluster
        self.apps = apps if apps is not None else {}
        self.own_links = own_links  # the listener this side's own-link apps use
        self.log: list[Injected] = []
        # Toxic names carry this object's own prefix, so two sides running at once on one
        # cluster never collide, and each sweeps up only what it did.
        self._prefix = f"f{uuid.uuid4().hex[:6]}"
        self._names = itertools.count(1)
        self._cut: set[str] = set()  # proxies this object disabled

    def inject(self, spec: FaultSpec) -> Injected:
        spec = replace(spec, listeners=tuple(self.own_links if lst == OWN_LINKS else lst for lst in spec.listeners))
        brokers = spec.target.resolve(self.cluster)
        if isinstance(spec.target, App):
            undo = self._app(spec.kind, spec.target.name)
        elif spec.kind in PROCESS_FAULTS:
            undo = self._process(spec.kind, brokers)
        elif spec.kind in OPERATIONS:
            undo = self._operation(spec)
        else:
            undo = self._link(spec, brokers)
        injected = Injected(spec, brokers, time.time(), undo)
        self.log.append(injected)
        say(f"fault: {spec.describe()}" + (f" -> brokers {brokers}" if brokers else ""))
        return injected

    def _app(self, kind: str, name: str) -> Callable[[], None]:
        app = self.apps[name]
        if kind == "launch":
            app.start()
            return lambda: None
        if kind not in APP_SIGNALS:
            raise ValueError(f"{kind} does not apply to an app; one of {', '.join(APP_SIGNALS)}, launch")
        app.signal(APP_SIGNALS[kind])
        if kind == "pause":
            return lambda: app.signal(signal.SIGCONT)
        return app.restart

    def _operation(self, spec: FaultSpec) -> Callable[[], None]:
        assert isinstance(spec.target, Replicas)
        self.cluster.elect_preferred_leader(spec.target.topic, spec.target.partition)
        return lambda: None

    def _link(self, spec: FaultSpec, brokers: list[int]) -> Callable[[], None]:
        api = self.cluster.proxies
        assert api is not None
        proxies = [self.cluster.proxy_name(b, listener) for b in brokers for listener in spec.listeners]
        if spec.kind == "cut":
            self._cut.update(proxies)
            for proxy in proxies:
                api.set_enabled(proxy, False)

            def reconnect() -> None:
                for proxy in proxies:
                    api.set_enabled(proxy, True)

            return reconnect
        added: list[tuple[str, str]] = []
        for proxy in proxies:
            for stream in _STREAMS[spec.direction]:
                name = f"{self._prefix}-{spec.kind}-{stream}-{next(self._names)}"
                api.add_toxic(proxy, name, LINK_TOXICS[spec.kind], stream, dict(spec.params))
                added.append((proxy, name))

        def remove() -> None:
            for proxy, name in added:
                api.remove_toxic(proxy, name)

        return remove

    def _process(self, kind: str, brokers: list[int]) -> Callable[[], None]:
        containers = [self.cluster.broker(b).docker() for b in brokers]
        for c in containers:
            if kind == "kill":
                c.kill(signal="SIGKILL")
            elif kind == "stop":
                c.stop(timeout=60)
            elif kind == "pause":
                c.pause()
            elif kind == "restart":
                c.restart(timeout=60)

        def undo() -> None:
            for c in containers:
                c.reload()
                if c.status == "paused":
                    c.unpause()
                elif c.status != "running":
                    c.start()
            self.wait_registered(brokers)

        return undo

    def wait_registered(self, brokers: list[int], timeout_s: float = 90) -> None:
        wait_until(
            self.cluster.registered_brokers,
            lambda ids: set(brokers) <= set(ids),
            timeout_s,
            f"brokers {brokers} registered again",
        )

    def heal_all(self) -> None:
        """Undo every fault still active, then make sure none of this object's toxics or cut
        links, and no dead broker, remains."""
        for injected in reversed(self.log):
            try:
                injected.heal()
            except Exception as exc:  # keep healing the rest; the final sweep below retries
                say(f"heal of {injected.spec.describe()} failed: {exc}")
        api = self.cluster.proxies
        if api is not None:
            for proxy in self._cut:
                api.set_enabled(proxy, True)
            for proxy in (self.cluster.proxy_name(b, lst) for b in self.cluster.brokers for lst in LISTENERS):
                for name in api.toxics(proxy):
                    if name.startswith(self._prefix):
                        api.remove_toxic(proxy, name)
        down = []
        for node_id, broker in self.cluster.brokers.items():
            c = broker.docker()
            c.reload()
            if c.status == "paused":
                c.unpause()
            elif c.status != "running":
                c.start()
                down.append(node_id)
        if down:
            self.wait_registered(down)

    def records(self) -> list[dict[str, Any]]:
        return [i.record() for i in self.log]


# --- schedules ----------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """Inject ``fault`` ``at_s`` seconds after the schedule starts, or later once ``when``
    holds; heal ``duration_s`` after injecting (``None``: at the end of the schedule)."""

    at_s: float
    fault: FaultSpec
    duration_s: float | None = None
    when: Condition | None = None
    when_timeout_s: float = 60.0  # the step is skipped, with an error noted, if ``when`` never holds


class Schedule:
    """Runs each step on its own thread beside a workload; ``finish()`` heals everything.

    A thread per step lets a step wait for its condition without delaying the others.
    """

    def __init__(self, faults: Faults, steps: list[Step]) -> None:
        self.faults = faults
        self.steps = sorted(steps, key=lambda s: s.at_s)
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._run, args=(s,), name=f"fault-step-{i}", daemon=True)
            for i, s in enumerate(self.steps)
        ]

    def start(self) -> Schedule:
        self._started = time.monotonic()
        for t in self._threads:
            t.start()
        return self

    def _elapsed(self) -> float:
        return time.monotonic() - self._started

    def _run(self, step: Step) -> None:
        try:
            if self._stop.wait(max(0.0, step.at_s - self._elapsed())):
                return
            if step.when is not None:
                cond = step.when
                deadline = time.monotonic() + step.when_timeout_s
                while not cond.holds(self.faults):
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"{cond} did not hold within {step.when_timeout_s:.0f}s; step skipped")
                    if self._stop.wait(0.5):
                        return
                say(f"condition met at {self._elapsed():.1f}s: {cond}")
            injected = self.faults.inject(step.fault)
            if step.duration_s is not None and not self._stop.wait(step.duration_s):
                injected.heal()
        except Exception as exc:
            self.errors.append(f"at {self._elapsed():.1f}s, {step.fault.describe()}: {type(exc).__name__}: {exc}")
            say(f"fault schedule error: {step.fault.describe()}: {exc}")

    def wait(self, timeout_s: float) -> None:
        """Until every step has been injected and, where it has a duration, healed."""
        deadline = time.monotonic() + timeout_s
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))

    def finish(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()
        self.faults.heal_all()
