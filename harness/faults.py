"""Faults: link toxics and process faults behind one API, aimed at roles, healed on demand.

A fault is data (``FaultSpec``): what to do, to which *role* ("the leader of orders-0"),
on which listener and direction. The role is resolved to concrete brokers only when the
fault fires, as in Jepsen. ``Faults.inject`` returns an ``Injected`` whose ``heal()``
undoes exactly that fault; ``Faults.heal_all`` undoes everything. A ``Schedule`` is a
timed list of (at, fault, duration) run beside a workload, and always heals at its end.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from harness.progress import say
from harness.proxy import FROM_BROKER, TO_BROKER
from harness.waits import wait_until

if TYPE_CHECKING:
    from harness.cluster import KafkaCluster

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


Target = Node | Leader | Followers


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
FAULT_KINDS = (*LINK_TOXICS, "cut", *PROCESS_FAULTS)


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
        where = "" if self.kind in PROCESS_FAULTS else f" on {'+'.join(self.listeners)} ({self.direction})"
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
            say(f"healed: {self.spec.describe()} -> brokers {self.brokers}")

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

    def __init__(self, cluster: KafkaCluster) -> None:
        self.cluster = cluster
        self.log: list[Injected] = []
        self._names = itertools.count(1)

    def inject(self, spec: FaultSpec) -> Injected:
        brokers = spec.target.resolve(self.cluster)
        undo = self._process(spec.kind, brokers) if spec.kind in PROCESS_FAULTS else self._link(spec, brokers)
        injected = Injected(spec, brokers, time.time(), undo)
        self.log.append(injected)
        say(f"fault: {spec.describe()} -> brokers {brokers}")
        return injected

    def _link(self, spec: FaultSpec, brokers: list[int]) -> Callable[[], None]:
        api = self.cluster.proxies
        assert api is not None
        proxies = [self.cluster.proxy_name(b, listener) for b in brokers for listener in spec.listeners]
        if spec.kind == "cut":
            for proxy in proxies:
                api.set_enabled(proxy, False)

            def reconnect() -> None:
                for proxy in proxies:
                    api.set_enabled(proxy, True)

            return reconnect
        added: list[tuple[str, str]] = []
        for proxy in proxies:
            for stream in _STREAMS[spec.direction]:
                name = f"{spec.kind}-{stream}-{next(self._names)}"
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
        """Undo every fault still active, then make sure no toxic or dead broker remains."""
        for injected in reversed(self.log):
            try:
                injected.heal()
            except Exception as exc:  # keep healing the rest; the final sweep below retries
                say(f"heal of {injected.spec.describe()} failed: {exc}")
        if self.cluster.proxies is not None:
            self.cluster.proxies.reset()
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
    """Inject ``fault`` ``at_s`` seconds after the schedule starts; heal after ``duration_s``
    (``None``: at the end of the schedule)."""

    at_s: float
    fault: FaultSpec
    duration_s: float | None = None


class Schedule:
    """Runs steps on a background thread beside a workload; ``finish()`` heals everything."""

    def __init__(self, faults: Faults, steps: list[Step]) -> None:
        self.faults = faults
        self.steps = sorted(steps, key=lambda s: s.at_s)
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fault-schedule", daemon=True)

    def start(self) -> Schedule:
        self._started = time.monotonic()
        self._thread.start()
        return self

    def _sleep_until(self, offset_s: float) -> bool:
        return not self._stop.wait(max(0.0, self._started + offset_s - time.monotonic()))

    def _run(self) -> None:
        timeline: list[tuple[float, int, Callable[[], None]]] = []
        order = itertools.count()
        injected: dict[int, Injected] = {}
        for s in self.steps:
            timeline.append((s.at_s, next(order), lambda s=s: injected.__setitem__(id(s), self.faults.inject(s.fault))))
            if s.duration_s is not None:
                timeline.append((s.at_s + s.duration_s, next(order), lambda s=s: injected[id(s)].heal()))
        for at_s, _, action in sorted(timeline):
            if not self._sleep_until(at_s):
                return
            try:
                action()
            except Exception as exc:
                self.errors.append(f"at {at_s:.1f}s: {type(exc).__name__}: {exc}")
                say(f"fault schedule error at {at_s:.1f}s: {exc}")

    def finish(self) -> None:
        self._stop.set()
        self._thread.join()
        self.faults.heal_all()
