"""Broker images of any KRaft release, built on first use; and a transactional pair on Kafka 3.6.1."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import scenarios
from harness.cluster import images
from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.runner import run_pair
from harness.settings import KNOWN_KAFKA_VERSIONS, Settings

OLD_BROKER = "3.6.1"


def test_each_version_has_its_own_image_whose_inputs_name_the_version() -> None:
    tags = {v: images._kafka_target(Settings(kafka_version=v)) for v in ("3.6.1", "4.4.0")}
    assert tags["3.6.1"][0] == "kafka-eos-harness/kafka:3.6.1"
    assert tags["3.6.1"][1] != tags["4.4.0"][1]


def test_the_tested_versions_images_are_there_after_setup() -> None:
    assert [images.missing(Settings(kafka_version=v)) for v in KNOWN_KAFKA_VERSIONS] == [[]] * len(KNOWN_KAFKA_VERSIONS)


def test_an_overridden_image_is_never_built_and_must_be_there() -> None:
    settings = Settings(kafka_image_override="kafka-eos-harness/absent:0.0.0")
    assert images.missing(settings) == ["kafka-eos-harness/absent:0.0.0"]
    with pytest.raises(HarnessError, match=r"^image kafka-eos-harness/absent:0.0.0 is not present: pull it"):
        images.ensure(settings, pull=False)


@pytest.mark.cluster
def test_a_transactional_pair_passes_on_a_kafka_3_6_cluster_of_its_own(cluster: KafkaCluster, tmp_path: Path) -> None:
    # Both sides ask for Kafka 3.6.1: one cluster of that version is started for them (its image
    # built first if this machine has none), beside the session's.
    b3 = scenarios.get("B3")
    old = replace(
        b3,
        control=replace(b3.control, kafka_version=OLD_BROKER),
        guarantee=replace(b3.guarantee, kafka_version=OLD_BROKER),
    )
    pair = run_pair(cluster, old, tmp_path)
    assert pair.outcome == "passed", pair.control.reasons + pair.guarantee.reasons
    assert {pair.control.record.kafka_version, pair.guarantee.record.kafka_version} == {OLD_BROKER}
    assert pair.guarantee.result.stats["transactions_committed"] > 0
    assert pair.guarantee.result.stats["transactions_aborted"] > 0
