"""``run``: bad input gets one clear line on stderr and exit 2, before anything starts."""

from __future__ import annotations

import subprocess
import sys
import time

import docker
import pytest

from harness.settings import LABEL_PID
from tests.harness.cli.test_main import harness, one_line_error


def test_unknown_scenario() -> None:
    assert "unknown scenario 'Z9'" in one_line_error(harness("run", "Z9"))


def harness_starting_nothing(*args: str) -> str:
    """The one-line error of ``kafka-harness ARGS``, which must have created no container: Docker saw
    none labelled with its process id while it ran (other runs on this machine may start theirs
    meanwhile). Its network would come just before the first container; network events carry no
    labels to tell whose they are."""
    since = time.time() - 1
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = proc.communicate(timeout=120)
    events = docker.from_env().events(
        since=since, until=time.time() + 1, filters={"label": f"{LABEL_PID}={proc.pid}"}, decode=True
    )
    created = [(e["Type"], e["Action"]) for e in events]
    assert created == [], created
    return one_line_error(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))


@pytest.mark.parametrize(
    ("version", "said"),
    [
        ("banana", "Kafka version 'banana' is not a release number X.Y.Z: 3.3.0 or newer"),
        ("3.6", "Kafka version '3.6' is not a release number X.Y.Z"),
        ("3.2.0", "Kafka 3.2.0 is too old: 3.3.0 or newer (the clusters run in KRaft mode"),
    ],
)
def test_a_malformed_or_pre_kraft_kafka_version_is_refused(version: str, said: str) -> None:
    assert said in one_line_error(harness("run", "A1", "--kafka-version", version))


def test_a_kafka_version_maven_central_lacks_is_refused_before_any_container_starts() -> None:
    line = harness_starting_nothing("run", "A1", "--kafka-version", "9.9.9")
    assert "cannot resolve Kafka 9.9.9 (org.apache.kafka:kafka_2.13:9.9.9) from Maven Central" in line


@pytest.mark.parametrize(
    ("client", "said"),
    [
        ("rdkafka", "unknown client 'rdkafka' (in 'rdkafka'): librdkafka or java, optionally ==VERSION"),
        ("librdkafka=2.1.0", "unknown client 'librdkafka=2.1.0'"),
        ("librdkafka==2.1", "confluent-kafka (librdkafka) version '2.1' is not a release number X.Y.Z"),
        ("librdkafka==0.0.1", "confluent-kafka (librdkafka) 0.0.1 is too old: 2.0.2 or newer"),
        ("java==0.0.1", "kafka-clients (java) 0.0.1 is too old: 2.2.0 or newer"),
        ("java==", "kafka-clients (java) version '' is not a release number"),
    ],
)
def test_a_malformed_or_too_old_client_is_refused(client: str, said: str) -> None:
    assert said in one_line_error(harness("run", "A1", "--client", client))


def test_a_client_a_scenario_cannot_run_on_is_refused() -> None:
    line = one_line_error(harness("run", "D1", "--client", "librdkafka"))
    assert "scenario D1 control runs a StreamsWorkload, which runs only on java: not librdkafka" in line


@pytest.mark.parametrize(
    ("client", "said"),
    [
        ("librdkafka==9.9.9", "confluent-kafka 9.9.9 (librdkafka) is not on PyPI as a wheel for this Python"),
        ("java==9.9.9", "cannot resolve org.apache.kafka:kafka-clients:9.9.9 from Maven Central"),
    ],
)
def test_a_client_release_no_registry_has_is_refused_before_any_container_starts(client: str, said: str) -> None:
    assert said in harness_starting_nothing("run", "A1", "--client", client)


def test_docker_not_reachable() -> None:
    line = one_line_error(harness("run", "A1", DOCKER_HOST="unix:///nonexistent/docker.sock"))
    assert "Docker engine not reachable" in line and "make setup" in line
