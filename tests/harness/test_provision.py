"""What a run's versions need before its first container starts, and what setup prepares for pins."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

import scenarios
from harness.errors import HarnessError
from harness.provision import ClientRelease, Needs, needs, pinned
from harness.scenario import on_client
from harness.settings import Settings
from harness.workloads.clients import JAVA, LIBRDKAFKA, ClientSpec
from harness.workloads.librdkafka_versions import PINNED


def test_each_side_needs_its_own_kafka_version_and_client_release() -> None:
    settings = Settings(kafka_version="4.4.0")
    a1 = scenarios.get("A1")
    regression = replace(
        a1,
        control=replace(a1.control, kafka_version="3.6.1", client="librdkafka==2.1.0"),
        guarantee=replace(a1.guarantee, client="java"),
    )
    streams = on_client(scenarios.get("D1"), ClientSpec(JAVA))
    found = needs(settings, [regression, streams, scenarios.get("C1")])
    assert found.kafka_versions == ("3.6.1", "4.4.0")
    assert found.clients == (
        ClientRelease(JAVA, "4.3.1", streams=True),  # kafka-streams is not published for 4.4.0
        ClientRelease(JAVA, "4.4.0"),  # the guarantee's Java client follows its cluster
        ClientRelease(LIBRDKAFKA, "2.1.0"),
    )


def test_without_pins_or_choices_a_run_needs_the_harness_own_client_and_its_kafka_version() -> None:
    found = needs(Settings(kafka_version="3.9.2"), [scenarios.get("A1"), scenarios.get("B3")])
    assert found == Needs(("3.9.2",), (ClientRelease(LIBRDKAFKA, PINNED),))


def test_setup_prepares_what_the_scenario_modules_pin_and_nothing_else() -> None:
    every = scenarios.all_scenarios().values()
    found = pinned(Settings(kafka_version="4.4.0"), every)
    assert "3.9.2" in found.kafka_versions  # B9's control runs on Kafka 3.9
    # Only the releases scenario sides pin: the default is built anyway.
    assert set(found.kafka_versions) == {v.kafka_version for s in every for v in (s.control, s.guarantee)} - {""}


def test_a_new_regression_pair_gets_its_pins_prepared_by_setup_without_a_change_to_setup() -> None:
    a1 = scenarios.get("A1")
    regression = replace(
        a1,
        control=replace(a1.control, kafka_version="3.7.1", client="librdkafka==2.2.0"),
        guarantee=replace(a1.guarantee, kafka_version="3.7.1", client="librdkafka==2.3.0"),
    )
    found = pinned(Settings(kafka_version="4.4.0"), [regression, scenarios.get("B3")])
    assert found == Needs(("3.7.1",), (ClientRelease(LIBRDKAFKA, "2.2.0"), ClientRelease(LIBRDKAFKA, "2.3.0")))


@pytest.mark.parametrize(
    ("pair", "release", "said"),
    [
        ("A4", "2.1.1", "kafka-clients for ProducerApp 2.1.1 is too old: 2.2.0 or newer (the producer app calls"),
        ("B1", "2.4.1", "kafka-clients for TransformerApp 2.4.1 is too old: 2.5.0 or newer (the transformer sends"),
        ("D1", "3.2.3", "kafka-streams for StreamsApp 3.2.3 is too old: 3.3.0 or newer (the Streams app reads"),
    ],
)
def test_each_java_app_s_floor_is_said_before_anything_starts(pair: str, release: str, said: str) -> None:
    """The apps run on the client release asked for: each refuses the releases that lack what it
    calls, in one line, while the versions are being gathered (no image built, no cluster)."""
    chosen = on_client(scenarios.get(pair), ClientSpec(JAVA, release))
    with pytest.raises(HarnessError, match=re.escape(said)):
        needs(Settings(), [chosen])


def test_the_producer_and_transformer_run_on_releases_below_the_streams_floor() -> None:
    for pair, release in (("A4", "2.2.0"), ("B1", "2.5.0")):
        found = needs(Settings(), [on_client(scenarios.get(pair), ClientSpec(JAVA, release))])
        assert ClientRelease(JAVA, release) in found.clients
