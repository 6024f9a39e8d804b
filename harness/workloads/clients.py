"""The client a workload's apps run on, its version, and the one translation between the two.

- ``librdkafka``: confluent-kafka, the Python apps of ``harness.workloads.apps``: the harness's
  own pinned confluent-kafka, or any release from 2.0.2 on (``harness.workloads.librdkafka_versions``);
- ``java``: Kafka's Java client, the apps of ``java/`` (``harness.jvm.java_clients``), of the
  cluster's Kafka version unless another is asked for (Kafka Streams: kafka-streams' version).

A client is named in one form everywhere (``--client``, a scenario side's ``Variant.client``):
``ClientSpec``, ``librdkafka`` or ``java``, optionally with ``==VERSION``.

Both take the same spec, write the same ledger and print the same report, so one checker
judges both. Scenarios write client settings in librdkafka's names, as the Python apps
take them; for a Java app each setting becomes the Java client's name for the same knob,
from the one table of names (``harness.kafkaconfig.catalogue``), and a setting Java has
no knob for is left out (``java_config`` says which).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from harness import build_steps, versions
from harness.build_steps import BuildStep
from harness.errors import HarnessError
from harness.jvm import java_clients
from harness.kafkaconfig import catalogue
from harness.kafkaconfig.catalogue import Kind
from harness.settings import Settings
from harness.workloads import librdkafka_versions
from harness.workloads.process import Command

if TYPE_CHECKING:
    from harness.workloads.base import Workload

LIBRDKAFKA, JAVA = "librdkafka", "java"
CLIENTS = (LIBRDKAFKA, JAVA)
# The oldest release of each client the apps run on, and why (docs/versions.md: what ran where).
OLDEST = {
    LIBRDKAFKA: (librdkafka_versions.OLDEST, "the oldest confluent-kafka with Python 3.11 wheels on PyPI"),
    JAVA: (java_clients.OLDEST_CLIENT_VERSION, java_clients.OLDEST_CLIENT_WHY),
}
_FORM = "librdkafka or java, optionally ==VERSION (librdkafka==2.1.0, java==3.7.1)"

# librdkafka's client-side timeout of a request is socket.timeout.ms; Java's is
# request.timeout.ms (librdkafka's request.timeout.ms is the broker's ack timeout instead).
_SAME_KNOB = {"socket.timeout.ms": "request.timeout.ms"}
# Java refuses a producer whose delivery timeout is below linger.ms + request.timeout.ms;
# librdkafka has no such rule. Java's default request timeout.
_JAVA_REQUEST_TIMEOUT_MS = 30_000


def check(client: str) -> str:
    if client not in CLIENTS:
        raise HarnessError(f"unknown client {client!r}: one of {', '.join(CLIENTS)}")
    return client


@dataclass(frozen=True)
class ClientSpec:
    """A client and, optionally, its release: ``librdkafka==2.1.0`` is confluent-kafka 2.1.0 with
    the librdkafka its wheel bundles; ``java==3.7.1`` is kafka-clients 3.7.1 (kafka-streams
    3.7.1 for a Streams app). No version: the default (``version_for``)."""

    name: str
    version: str = ""

    @classmethod
    def parse(cls, text: str) -> ClientSpec:
        """``text`` as the CLI and scenarios write it; a HarnessError naming the mistake otherwise.
        Whether the release exists is known once it is fetched (``prepare``)."""
        name, sep, version = text.strip().partition("==")
        name = name.strip()
        if name not in CLIENTS:
            raise HarnessError(f"unknown client {name!r} (in {text!r}): {_FORM}")
        if sep:
            oldest, why = OLDEST[name]
            what = "confluent-kafka (librdkafka)" if name == LIBRDKAFKA else "kafka-clients (java)"
            versions.release(version.strip(), what, oldest, why)
        return cls(name, version.strip())

    def __str__(self) -> str:
        return f"{self.name}=={self.version}" if self.version else self.name


def version_for(spec: ClientSpec, kafka_version: str, streams: bool = False) -> str:
    """The release ``spec``'s apps run on against brokers of ``kafka_version``: the one asked for,
    else the harness's own confluent-kafka (librdkafka), the cluster's kafka-clients (java),
    or for a Streams app the newest kafka-streams on Maven Central not newer than the cluster."""
    if spec.version:
        return spec.version
    if spec.name == LIBRDKAFKA:
        return librdkafka_versions.PINNED
    return java_clients.artifact_version("kafka-streams" if streams else "kafka-clients", kafka_version)


def package(name: str, streams: bool = False) -> str:
    """What a ``name`` client's version is the release of."""
    return "confluent-kafka" if name == LIBRDKAFKA else "kafka-streams" if streams else "kafka-clients"


def steps(settings: Settings, name: str, version: str, streams: bool = False) -> list[BuildStep]:
    """The steps that fetch what an app of client ``name`` at ``version`` needs (none once it is
    cached; harness.build_steps): confluent-kafka into a folder of its own, or the Java apps and
    client jars (with their class archive)."""
    if name != LIBRDKAFKA:
        return java_clients.client_steps(settings, version, streams)
    if librdkafka_versions.ready(settings, version):
        return []
    return [BuildStep(f"confluent-kafka {version}", partial(librdkafka_versions.site, settings, version))]


def prepare(settings: Settings, name: str, version: str, streams: bool = False) -> None:
    """Fetch what an app of client ``name`` at ``version`` needs (``steps``), once. A release the
    registry does not have fails here, in one line."""
    build_steps.run(steps(settings, name, version, streams), settings.steps_at_once)


def on(workload: Workload, spec: ClientSpec, what: str) -> Workload:
    """``workload`` with its apps on ``spec``; a HarnessError when its kind offers no choice of
    client, or not this one (``what``: the scenario and side, for the message)."""
    choices: tuple[str, ...] = getattr(workload, "client_choices", ())
    if spec.name not in choices:
        offered = f"runs only on {' or '.join(choices)}" if choices else "has no choice of client"
        raise HarnessError(f"{what} runs a {type(workload).__name__}, which {offered}: not {spec}")
    return replace(workload, client=spec.name, client_version=spec.version)  # type: ignore[type-var]


def java_config(config: dict[str, Any], kind: Kind) -> tuple[dict[str, Any], list[str]]:
    """``config`` (librdkafka names) as the Java client's settings, and the names left out."""
    java: dict[str, Any] = {}
    left_out = []
    for name, value in config.items():
        target = _SAME_KNOB.get(name) or _java_name(name, kind)
        if target is None:
            left_out.append(name)
        else:
            java[target] = value
    if kind is Kind.PRODUCER and "delivery.timeout.ms" in java and "request.timeout.ms" not in java:
        # Keep the delivery timeout the scenario asked for; shorten the request timeout to fit.
        fits = int(java["delivery.timeout.ms"]) - int(float(java.get("linger.ms", 5)))
        if fits < _JAVA_REQUEST_TIMEOUT_MS:
            java["request.timeout.ms"] = fits
    return java, left_out


def _java_name(name: str, kind: Kind) -> str | None:
    for setting in catalogue.CATALOGUE[kind]:
        if name in setting.names.get(catalogue.L, ()) and catalogue.J in setting.names:
            return setting.names[catalogue.J][0]
    return None


def app_command(client: str, python_module: str, java_main: str, settings: Settings, version: str) -> Command:
    """How an app of ``client`` starts: its Python module on confluent-kafka ``version``, or its
    Java main class on the Java client of ``version`` (each fetched into ``settings``' cache on
    first use, or at setup)."""
    if client == LIBRDKAFKA:
        return librdkafka_versions.command(settings, version, python_module)
    prefix = java_clients.command(settings, version, java_main)
    return lambda spec_path, spec: [*prefix, str(spec_path)]


def login(client: str, librdkafka_login: dict[str, str]) -> dict[str, str]:
    """A cluster login (``KafkaCluster.client_config``, librdkafka's names) for ``client``."""
    if client == LIBRDKAFKA or not librdkafka_login:
        return librdkafka_login
    user, password = librdkafka_login["sasl.username"], librdkafka_login["sasl.password"]
    return {
        "security.protocol": librdkafka_login["security.protocol"],
        "sasl.mechanism": librdkafka_login["sasl.mechanism"],
        "sasl.jaas.config": (
            f'org.apache.kafka.common.security.plain.PlainLoginModule required username="{user}" password="{password}";'
        ),
    }
