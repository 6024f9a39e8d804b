"""Faults as data (``FaultSpec``): what to do, to which role, on which listeners and in
which direction; and the constructors scenarios write them with (``blackhole``, ``kill``, ...)."""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.cluster.kafka import OWN_LINK_LISTENERS
from harness.faults.roles import App, Replicas, Target

# The listener a scenario names for "the links of the apps that have their own": a fault
# on it hits only those apps. Each side of a pair run at once has its own such listener
# (``Faults(own_links=...)``); a side's faults on OWN_LINKS go to its listener.
OWN_LINKS = OWN_LINK_LISTENERS[0]

Direction = Literal["to_broker", "from_broker", "both"]


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
    # A link toxic's chance of acting on each connection, drawn per connection (Toxiproxy's
    # toxicity): below 1, some connections of one link are hit and others, opened while it
    # holds, are not.
    toxicity: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {self.kind!r}; one of {', '.join(FAULT_KINDS)}")
        if not 0 < self.toxicity <= 1 or (self.toxicity < 1 and self.kind not in LINK_TOXICS):
            raise ValueError(f"{self.kind}: toxicity {self.toxicity} must be in (0, 1], and below 1 only for a toxic")

    def describe(self) -> str:
        link = self.kind in LINK_TOXICS or self.kind == "cut"
        where = f" on {'+'.join(self.listeners)} ({self.direction})" if link else ""
        chance = {"toxicity": self.toxicity} if self.toxicity < 1 else {}
        args = ", ".join(f"{k}={v}" for k, v in {**self.params, **chance}.items())
        return f"{self.kind}{f'({args})' if args else ''} {self.target}{where}"


def _link(
    kind: str,
    target: Target,
    listener: str | tuple[str, ...],
    direction: Direction,
    toxicity: float = 1.0,
    **params: Any,
) -> FaultSpec:
    listeners = (listener,) if isinstance(listener, str) else tuple(listener)
    return FaultSpec(kind, target, listeners, direction, params, toxicity)


def latency(
    target: Target,
    ms: int,
    jitter_ms: int = 0,
    listener: str | tuple[str, ...] = "client",
    direction: Direction = "both",
    toxicity: float = 1.0,
) -> FaultSpec:
    """Bytes arrive ``ms`` (+-``jitter_ms``) late. Removing the toxic lets what it holds through at
    once; bytes a client sent before it closed the connection are still delivered, late."""
    return _link("latency", target, listener, direction, toxicity, latency=ms, jitter=jitter_ms)


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
