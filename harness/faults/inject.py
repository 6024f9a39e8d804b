"""Injecting faults into one cluster and healing them: link toxics through Toxiproxy, process
faults on broker containers and on workload apps.

``Faults.inject`` resolves a ``FaultSpec``'s role to brokers (or an app) when it fires and
returns an ``Injected`` whose ``heal()`` undoes exactly that fault; ``Faults.heal_all``
undoes everything this object did. Process faults on an ``App`` hit the workload's OS
process: kill is SIGKILL, stop is SIGTERM, pause is SIGSTOP. Healing a killed or stopped
app starts its next incarnation, which resumes the same work; healing a pause is SIGCONT.
"""

from __future__ import annotations

import itertools
import signal
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from harness.cluster.kafka import LISTENERS
from harness.cluster.proxy import FROM_BROKER, TO_BROKER
from harness.faults.roles import App, Replicas
from harness.faults.specs import APP_SIGNALS, LINK_TOXICS, OPERATIONS, OWN_LINKS, PROCESS_FAULTS, FaultSpec
from harness.progress import say
from harness.waits import wait_until

if TYPE_CHECKING:
    from pathlib import Path

    from harness.cluster.kafka import KafkaCluster

_STREAMS: dict[str, tuple[str, ...]] = {
    "to_broker": (TO_BROKER,),
    "from_broker": (FROM_BROKER,),
    "both": (TO_BROKER, FROM_BROKER),
}


class AppHandle(Protocol):
    """What faults need from a workload process (``harness.workloads.process.AppProcess``)."""

    def start(self) -> None: ...

    def signal(self, signum: int) -> None: ...

    def restart(self) -> None: ...

    def sent(self) -> int: ...

    def ledgers(self) -> list[Path]: ...


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
            "toxicity": self.spec.toxicity,
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
                api.add_toxic(proxy, name, LINK_TOXICS[spec.kind], stream, dict(spec.params), spec.toxicity)
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
