"""How a side's versions read in the pair summary and the report: Kafka, the client as chosen and as run."""

from __future__ import annotations

from harness.verdict.record import SideRecord
from harness.verdict.summary import versions_text


def test_a_pinned_librdkafka_side_says_the_pin_and_what_the_app_ran() -> None:
    context = {
        "kafka_version": "3.6.1",
        "client": "librdkafka",
        "client_package": "confluent-kafka",
        "client_version": "2.1.0",
        "client_requested": "2.1.0",
        "client_pin": "librdkafka==2.1.0",
        "client_ran": ["2.1.0"],
    }
    assert versions_text(SideRecord.from_json(context)) == (
        "Kafka 3.6.1; librdkafka: confluent-kafka 2.1.0 (pinned by this side: librdkafka==2.1.0), librdkafka 2.1.0 ran"
    )


def test_a_default_client_says_so_and_a_streams_app_names_kafka_streams() -> None:
    default = {"kafka_version": "4.4.0", "client": "librdkafka", "client_package": "confluent-kafka"}
    default |= {"client_version": "2.16.1", "client_requested": "", "client_pin": "", "client_ran": ["2.16.0"]}
    assert (
        versions_text(SideRecord.from_json(default))
        == "Kafka 4.4.0; librdkafka: confluent-kafka 2.16.1 (default), librdkafka 2.16.0 ran"
    )
    streams = {"kafka_version": "4.4.0", "client": "java", "client_package": "kafka-streams"}
    streams |= {"client_version": "3.7.1", "client_requested": "3.7.1", "client_ran": ["3.7.1"]}
    assert (
        versions_text(SideRecord.from_json(streams))
        == "Kafka 4.4.0; java: kafka-streams 3.7.1 (asked for), kafka-clients 3.7.1 ran"
    )


def test_a_verdict_from_before_versions_were_recorded_shows_what_it_has() -> None:
    assert versions_text(SideRecord(kafka_version="3.9.2", client="java")) == "Kafka 3.9.2; java"
    assert versions_text(SideRecord()) == "Kafka unknown"
