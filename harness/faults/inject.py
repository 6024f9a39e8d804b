"""Injecting faults into one cluster and healing them.

``Faults.inject`` resolves a ``FaultSpec``'s role to brokers (or an app) when it fires, hands
it to its kind (``harness.faults.kinds``) and returns an ``Injected`` whose ``heal()`` undoes
exactly that fault; ``Faults.heal_all`` undoes everything this object did and sweeps up what
a failed heal left. ``Faults`` is what the kinds act with (``kinds.base.FaultContext``).
"""

from __future__ import annotations

import itertools
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from harness.cluster.kafka import LISTENERS
from harness.faults.kinds.base import OWN_LINKS, AppHandle, FaultSpec, Heal
from harness.faults.kinds.process import revive, wait_registered
from harness.progress import say

if TYPE_CHECKING:
    from harness.cluster.kafka import KafkaCluster
    from harness.cluster.proxy import ToxiproxyAPI


@dataclass
class Injected:
    spec: FaultSpec
    brokers: list[int]
    injected_at: float
    # What heals it (its kind's); a kind may let it say more while it lasts, e.g. a protocol
    # fault's hits so far (harness.faults.kinds.protocol.Hits).
    undo: Heal
    healed_at: float | None = None
    found: dict[str, Any] = field(default_factory=dict)  # what the heal reported (e.g. requests hit)

    def heal(self) -> None:
        if self.healed_at is None:
            self.found.update(self.undo() or {})
            self.healed_at = time.time()
            if not self.spec.kind.instant:  # an operation has nothing to undo
                say(f"healed: {self.spec.describe()}" + (f" -> brokers {self.brokers}" if self.brokers else ""))

    def record(self) -> dict[str, Any]:
        kind = self.spec.kind
        return {
            "fault": kind.name,
            "family": kind.family,
            "instant": kind.instant,
            "on_links": kind.on_links,
            "target": str(self.spec.target),
            "brokers": self.brokers,
            "listeners": list(self.spec.listeners),
            "direction": self.spec.direction,
            "params": self.spec.params,
            "toxicity": self.spec.toxicity,
            "injected_at": self.injected_at,
            "healed_at": self.healed_at,
            **self.found,
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
        self._disabled: set[str] = set()

    # --- what kinds act with (kinds.base.FaultContext) ---------------------------------------

    @property
    def proxies(self) -> ToxiproxyAPI:
        api = self.cluster.proxies
        assert api is not None, "the cluster has no Toxiproxy (not started?)"
        return api

    def proxy_names(self, spec: FaultSpec, brokers: list[int]) -> list[str]:
        return [self.cluster.proxy_name(b, listener) for b in brokers for listener in spec.listeners]

    def toxic_name(self, kind: str, stream: str) -> str:
        return f"{self._prefix}-{kind}-{stream}-{next(self._names)}"

    def disabled(self, proxies: list[str]) -> None:
        self._disabled.update(proxies)

    # --- injecting and healing --------------------------------------------------------

    def inject(self, spec: FaultSpec) -> Injected:
        spec = replace(spec, listeners=tuple(self.own_links if lst == OWN_LINKS else lst for lst in spec.listeners))
        brokers = spec.target.resolve(self.cluster)
        undo = spec.kind.start(self, spec, brokers)
        injected = Injected(spec, brokers, time.time(), undo)
        self.log.append(injected)
        say(f"fault: {spec.describe()}" + (f" -> brokers {brokers}" if brokers else ""))
        return injected

    def heal_all(self) -> None:
        """Undo every fault still active, then make sure none of this object's toxics or
        disabled links, and no dead broker, remains."""
        for injected in reversed(self.log):
            try:
                injected.heal()
            except Exception as exc:  # keep healing the rest; the final sweep below retries
                say(f"heal of {injected.spec.describe()} failed: {exc}")
        api = self.cluster.proxies
        if api is not None:
            for proxy in self._disabled:
                api.set_enabled(proxy, True)
            for proxy in (self.cluster.proxy_name(b, lst) for b in self.cluster.brokers for lst in LISTENERS):
                for name in api.toxics(proxy):
                    if name.startswith(self._prefix):
                        api.remove_toxic(proxy, name)
        down = [node_id for node_id, broker in self.cluster.brokers.items() if revive(broker.docker())]
        if down:
            wait_registered(self, down)

    def records(self) -> list[dict[str, Any]]:
        return [i.record() for i in self.log]
