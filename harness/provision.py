"""Every version a run needs, fetched and built before its first container starts.

A run's versions are data of its scenarios: each side's Kafka version (its own
``Variant.kafka_version``, or the run's) and its apps' client (the side's pin, ``--client``, or
the default; harness.workloads.clients). ``prepare`` fetches whatever of them is not cached
yet, side by side where one does not wait for another (harness.build_steps): clients (seconds)
and broker images (a new Kafka version: its jars from Maven Central and an image build), each
with a progress line: a release a registry does not have stops the run here, in one line,
before anything starts. A second run finds everything cached and spends nothing. ``make setup``
prepares every pin of every scenario module this way, beside the tested versions, Spark's
connector and the Java apps (``setup_steps``), so a pair that pins an old version is ready to run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from harness import build_steps
from harness.build_steps import BuildStep
from harness.cluster import images
from harness.jvm import java_clients, spark
from harness.scenario import Scenario, side_workload
from harness.settings import KNOWN_KAFKA_VERSIONS, Settings
from harness.workloads import clients
from harness.workloads.spark import SparkWorkload
from harness.workloads.streams import StreamsWorkload


@dataclass(frozen=True, order=True)
class ClientRelease:
    """The client one side's apps run on, resolved against its cluster's Kafka version."""

    name: str  # harness.workloads.clients.LIBRDKAFKA or JAVA
    version: str  # confluent-kafka's, kafka-clients' or (streams) kafka-streams' release
    streams: bool = False

    def steps(self, settings: Settings) -> list[BuildStep]:
        """What its apps need fetched or made before they start (none once they are)."""
        return clients.steps(settings, self.name, self.version, self.streams)


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
            if name == clients.JAVA and spec.version:
                java_clients.check_release(workload.java_main, spec.version)  # before anything starts
            wanted.add(ClientRelease(name, clients.version_for(spec, version, streams), streams))
    return Needs(tuple(sorted(kafka)), tuple(sorted(wanted)))


def steps(settings: Settings, found: Needs, pull: bool = False) -> list[BuildStep]:
    """The steps (harness.build_steps) that fetch and build what ``found`` lists and the cache
    lacks: the clients (seconds) ahead of the images when both are ready to start. Overridden
    images are pulled with ``pull``, else they must be there."""
    return build_steps.plan(
        *(release.steps(settings) for release in found.clients),
        *(images.steps(settings.with_overrides(kafka_version=v), pull) for v in found.kafka_versions),
    )


def pinned(settings: Settings, every: Iterable[Scenario]) -> Needs:
    """What the sides of ``every`` scenario pin (``Variant.kafka_version``, ``Variant.client``):
    what setup prepares beyond the tested versions, so a pair pinning an old release is ready."""
    sides = [(s, v) for s in every for v in (s.control, s.guarantee) if v.kafka_version or v.client]
    found = needs(settings, [replace(s, control=v, guarantee=v) for s, v in sides])
    pins = {v.kafka_version for _, v in sides if v.kafka_version}
    return Needs(tuple(sorted(pins)), found.clients)


def prepare(settings: Settings, chosen: Iterable[Scenario]) -> Needs:
    """Fetch and build what the sides of ``chosen`` need and the cache lacks; what they need.
    A Spark scenario without pyspark (the ``spark`` extra) stops here, before anything starts."""
    chosen = list(chosen)
    for scenario in chosen:
        if any(isinstance(side_workload(scenario, v), SparkWorkload) for v in (scenario.control, scenario.guarantee)):
            spark.require_pyspark(f"{scenario.id} (a Spark scenario)")
    found = needs(settings, chosen)
    fetch(settings, found)
    return found


def fetch(settings: Settings, found: Needs) -> None:
    """Fetch and build what ``found`` lists and the cache lacks, side by side (``steps``)."""
    build_steps.run(steps(settings, found), settings.steps_at_once)


def setup_steps(settings: Settings, every: Iterable[Scenario]) -> list[BuildStep]:
    """Everything ``make setup`` prepares that is not there yet, as steps to run side by side:
    the images of every tested Kafka version (overridden ones pulled), Spark's connector and
    class archive, the Java apps on every tested client, and every pin of ``every`` scenario.
    The first tested version's images come first: the Java rootfs and Toxiproxy's Go build are
    the longest steps."""
    tested = [settings.with_overrides(kafka_version=v) for v in KNOWN_KAFKA_VERSIONS]
    return build_steps.plan(
        images.steps(tested[0]),
        spark.setup_steps(settings),
        java_clients.setup_steps(settings),
        *(images.steps(s) for s in tested[1:]),
        steps(settings, pinned(settings, every)),
    )
