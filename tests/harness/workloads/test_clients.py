"""The one form of a client (``ClientSpec``), its default release, and which workloads take which."""

from __future__ import annotations

import pytest

from harness.errors import HarnessError
from harness.workloads import librdkafka_versions
from harness.workloads.clients import JAVA, LIBRDKAFKA, ClientSpec, on, package, version_for
from harness.workloads.pipeline import PipelineWorkload
from harness.workloads.producer import ProducerWorkload
from harness.workloads.spark import SparkWorkload
from harness.workloads.streams import StreamsWorkload


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("librdkafka", ClientSpec(LIBRDKAFKA)),
        ("java", ClientSpec(JAVA)),
        ("librdkafka==2.1.0", ClientSpec(LIBRDKAFKA, "2.1.0")),
        ("java==3.7.1", ClientSpec(JAVA, "3.7.1")),
        (" java == 3.7.1 ", ClientSpec(JAVA, "3.7.1")),
    ],
)
def test_a_client_reads_as_its_name_and_optional_release(text: str, spec: ClientSpec) -> None:
    assert ClientSpec.parse(text) == spec
    assert ClientSpec.parse(str(spec)) == spec  # what the verdict and messages print reads back


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("rdkafka", "unknown client 'rdkafka' (in 'rdkafka'): librdkafka or java, optionally ==VERSION"),
        ("java:3.7.1", "unknown client 'java:3.7.1'"),
        ("librdkafka==2.1", "confluent-kafka (librdkafka) version '2.1' is not a release number X.Y.Z: 2.0.2"),
        ("librdkafka==1.9.2", "confluent-kafka (librdkafka) 1.9.2 is too old: 2.0.2 or newer (the oldest"),
        ("java==2.1.1", "kafka-clients (java) 2.1.1 is too old: 2.2.0 or newer (the oldest a Java app runs on"),
        ("java==", "kafka-clients (java) version '' is not a release number"),
    ],
)
def test_a_malformed_unknown_or_too_old_client_is_one_line_saying_what_to_write(text: str, said: str) -> None:
    with pytest.raises(HarnessError) as refused:
        ClientSpec.parse(text)
    assert said in str(refused.value)
    assert "\n" not in str(refused.value)


def test_without_a_release_a_client_runs_the_harness_own_or_the_clusters() -> None:
    assert version_for(ClientSpec(LIBRDKAFKA), "3.6.1") == librdkafka_versions.PINNED
    assert version_for(ClientSpec(JAVA), "3.6.1") == "3.6.1"
    assert version_for(ClientSpec(JAVA), "4.4.0", streams=True) == "4.3.1"  # the newest kafka-streams there is
    assert version_for(ClientSpec(JAVA, "3.7.1"), "4.4.0", streams=True) == "3.7.1"
    assert version_for(ClientSpec(LIBRDKAFKA, "2.1.0"), "4.4.0") == "2.1.0"
    assert [package(LIBRDKAFKA), package(JAVA), package(JAVA, streams=True)] == [
        "confluent-kafka",
        "kafka-clients",
        "kafka-streams",
    ]


def test_a_client_goes_to_the_workloads_that_offer_it_and_no_other() -> None:
    spec = ClientSpec(LIBRDKAFKA, "2.1.0")
    moved = on(ProducerWorkload(), spec, "A1 control")
    assert (moved.client, moved.client_version) == (LIBRDKAFKA, "2.1.0")  # type: ignore[attr-defined]
    assert on(PipelineWorkload(), ClientSpec(JAVA, "3.7.1"), "B1 control").client_version == "3.7.1"  # type: ignore[attr-defined]
    assert on(StreamsWorkload(), ClientSpec(JAVA, "3.4.0"), "D1 control").client_version == "3.4.0"  # type: ignore[attr-defined]
    with pytest.raises(
        HarnessError, match="D1 control runs a StreamsWorkload, which runs only on java: not librdkafka"
    ):
        on(StreamsWorkload(), ClientSpec(LIBRDKAFKA), "D1 control")
    with pytest.raises(HarnessError, match="C1 control runs a SparkWorkload, which has no choice of client: not java"):
        on(SparkWorkload(job="kafka_sink"), ClientSpec(JAVA), "C1 control")
