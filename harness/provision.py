"""Every version a run needs, fetched and built before its first container starts.

A run's versions are data of its scenarios: each side's Kafka version (its own
``Variant.kafka_version``, or the run's) and its apps' client (the side's pin, ``--client``, or
the default; harness.workloads.clients). ``prepare`` fetches whatever of them is not cached
yet, clients first (seconds) and broker images last (a new Kafka version: its jars from Maven
Central and an image build), each with progress lines: a release a registry does not have stops
the run here, in one line, before anything starts. A second run finds everything cached and
spends nothing. ``make setup`` prepares every pin of every scenario module this way, so a pair
that pins an old version is ready to run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from harness.cluster import images
from harness.jvm import java_clients
from harness.scenario import Scenario, side_workload
from harness.settings import Settings
from harness.workloads import clients, librdkafka_versions
from harness.workloads.streams import StreamsWorkload


@dataclass(frozen=True, order=True)
class ClientRelease:
    """The client one side's apps run on, resolved against its cluster's Kafka version."""

    name: str  # harness.workloads.clients.LIBRDKAFKA or JAVA
    version: str  # confluent-kafka's, kafka-clients' or (streams) kafka-streams' release
    streams: bool = False

    def ready(self, settings: Settings) -> bool:
        """Whether its apps start with nothing to fetch."""
        if self.name == clients.LIBRDKAFKA:
            return librdkafka_versions.ready(settings, self.version)
        return java_clients.client_ready(settings, self.version, self.streams)


@dataclass(frozen=True)
class Needs:
    kafka_versions: tuple[str, ...]
    clients: tuple[ClientRelease, ...]


def needs(settings: Settings, chosen: Iterable[Scenario]) -> Needs:
    """The Kafka versions and client releases the sides of ``chosen`` run on, with ``settings``
    (its Kafka version) for the sides that pin none."""
    kafka, wanted = {settings.kafka_version}, set()
    for scenario in chosen:
        for variant in (scenario.control, scenario.guarantee):
            version = variant.kafka_version or settings.kafka_version
            kafka.add(version)
            workload = side_workload(scenario, variant)
            name = getattr(workload, "client", "")
            if not name:
                continue  # a workload with no client of its own to choose (Spark)
            streams = isinstance(workload, StreamsWorkload)
            spec = clients.ClientSpec(name, getattr(workload, "client_version", ""))
            wanted.add(ClientRelease(name, clients.version_for(spec, version, streams), streams))
    return Needs(tuple(sorted(kafka)), tuple(sorted(wanted)))


def ready(settings: Settings, found: Needs) -> bool:
    """Whether ``prepare`` would find everything cached (setup asks before it installs build tools)."""
    return all(c.ready(settings) for c in found.clients) and not any(
        images.missing(settings.with_overrides(kafka_version=v)) for v in found.kafka_versions
    )


def pinned(settings: Settings, every: Iterable[Scenario]) -> Needs:
    """What the sides of ``every`` scenario pin (``Variant.kafka_version``, ``Variant.client``):
    what setup prepares beyond the tested versions, so a pair pinning an old release is ready."""
    sides = [(s, v) for s in every for v in (s.control, s.guarantee) if v.kafka_version or v.client]
    found = needs(settings, [replace(s, control=v, guarantee=v) for s, v in sides])
    pins = {v.kafka_version for _, v in sides if v.kafka_version}
    return Needs(tuple(sorted(pins)), found.clients)


def prepare(settings: Settings, chosen: Iterable[Scenario]) -> Needs:
    """Fetch and build what the sides of ``chosen`` need and the cache lacks; what they need."""
    found = needs(settings, chosen)
    fetch(settings, found)
    return found


def fetch(settings: Settings, found: Needs) -> None:
    """Fetch and build what ``found`` lists and the cache lacks: clients first, images last."""
    for release in found.clients:
        clients.prepare(settings, release.name, release.version, release.streams)
    for version in found.kafka_versions:
        images.ensure(settings.with_overrides(kafka_version=version), pull=False)
