"""The client a workload's apps run on, and the one translation between the two.

- ``librdkafka``: confluent-kafka, the Python apps of ``harness.workloads.apps``;
- ``java``: Kafka's Java client, the apps of ``java/`` (``harness.jvm.java_clients``), of the
  cluster's Kafka version unless the workload pins another.

Both take the same spec, write the same ledger and print the same report, so one checker
judges both. Scenarios write client settings in librdkafka's names, as the Python apps
take them; for a Java app each setting becomes the Java client's name for the same knob,
from the one table of names (``harness.configcheck.catalogue``), and a setting Java has
no knob for is left out (``java_config`` says which).
"""

from __future__ import annotations

from typing import Any

from harness.configcheck import catalogue
from harness.configcheck.catalogue import Kind
from harness.errors import HarnessError
from harness.jvm import java_clients
from harness.settings import Settings
from harness.workloads.process import Command, python_app

LIBRDKAFKA, JAVA = "librdkafka", "java"
CLIENTS = (LIBRDKAFKA, JAVA)

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
    """How an app of ``client`` starts: its Python module, or its Java main class on the
    Java client of ``version`` (built and fetched into ``settings``' cache at setup)."""
    if client == LIBRDKAFKA:
        return python_app(python_module)
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
