"""``verify-config``'s files turned into a run's settings, and the scenarios they can run."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.configcheck.apply import apply, guarantee_scenario
from harness.configcheck.dynamic import choose
from harness.errors import HarnessError
from harness.kafkaconfig import catalogue
from harness.kafkaconfig.catalogue import Kind
from harness.workloads.clients import JAVA, LIBRDKAFKA, ClientSpec

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "configs"
FILES = {Kind.BROKER: "server.properties", Kind.PRODUCER: "producer.properties", Kind.CONSUMER: "consumer.properties"}


def test_the_files_become_the_guarantee_s_settings() -> None:
    files = {kind: catalogue.load(EXAMPLES / "unsafe" / file, kind) for kind, file in FILES.items()}
    applied = apply(files)
    assert applied.broker == {
        "unclean.leader.election.enable": "true",
        "min.insync.replicas": "1",
        "default.replication.factor": "2",
        "transaction.state.log.replication.factor": "4",
        "transaction.max.timeout.ms": "300000",
    }
    assert applied.producer["message.timeout.ms"] == "20000" and "delivery.timeout.ms" not in applied.producer
    assert "bootstrap.servers" not in applied.producer and "compresion.type" not in applied.producer
    assert "listeners" in applied.notes["broker"]["ignored: the harness's cluster plumbing"]
    assert applied.consumer_view == "read_committed"  # read by both clients: librdkafka's default

    java = catalogue.load(EXAMPLES / "unsafe" / "consumer.properties", Kind.CONSUMER, catalogue.J)
    assert apply({Kind.CONSUMER: java}).consumer_view == "read_uncommitted"  # Java's default


def test_the_guarantee_runs_the_files_but_keeps_the_fault_timing() -> None:
    files = {kind: catalogue.load(EXAMPLES / "lossy" / file, kind) for kind, file in FILES.items()}
    a1, b3 = choose(["a1", "B3"])
    scenario, whose = guarantee_scenario(a1, apply(files))
    g = scenario.guarantee
    assert whose == "yours" and g.workload is not None and g.workload.config == {"socket.timeout.ms": 2500}
    assert g.config["request.required.acks"] == "1" and g.topic_config == {}
    assert scenario.control == a1.control
    # B3's producer writes transactions; the lossy one does not, so the scenario's stays.
    scenario, whose = guarantee_scenario(b3, apply(files))
    assert whose.startswith("the scenario's") and scenario.guarantee.workload.config == b3.workload.config


@pytest.mark.parametrize(("sid", "why"), [("B1", "pipeline"), ("B12", "research"), ("B10", "ACLs"), ("C2", "Spark")])
def test_scenarios_your_files_cannot_run_are_refused(sid: str, why: str) -> None:
    with pytest.raises(HarnessError, match=why):
        choose([sid])


def test_a_java_file_runs_verbatim_on_the_java_client(tmp_path: Path) -> None:
    producer = tmp_path / "producer.properties"
    producer.write_text(
        "acks=all\nenable.idempotence=true\nmax.block.ms=30000\nrequest.timeout.ms=40000\n"
        "key.serializer=org.apache.kafka.common.serialization.StringSerializer\nbootstrap.servers=kafka:9092\n"
    )
    applied = apply({Kind.PRODUCER: catalogue.load(producer, Kind.PRODUCER)}, ClientSpec(JAVA))
    assert applied.client == "java"
    assert applied.producer == {
        "acks": "all",
        "enable.idempotence": "true",
        "max.block.ms": "30000",
        "request.timeout.ms": "40000",
    }
    (a1,) = choose(["A1"])
    scenario, whose = guarantee_scenario(a1, applied)
    w = scenario.guarantee.workload
    assert whose == "yours, on the Java client" and w is not None and w.client == "java"
    # Verbatim, but the scenario's request timeout (what its fault is sized against) wins.
    assert w.java_config == {"acks": "all", "enable.idempotence": "true", "max.block.ms": "30000"}
    assert w.config == {"socket.timeout.ms": 2500} and scenario.guarantee.config == {}


def test_a_java_only_file_is_not_run_on_librdkafka(tmp_path: Path) -> None:
    producer = tmp_path / "producer.properties"
    producer.write_text("acks=all\nmax.block.ms=5\n")
    pinned = catalogue.load(producer, Kind.PRODUCER, catalogue.L)  # statically: warnings only
    with pytest.raises(HarnessError, match=r"max.block.ms are the Java client's names only.*--client java"):
        apply({Kind.PRODUCER: pinned}, ClientSpec(LIBRDKAFKA))
    # Without --client it is the Java client's file, run verbatim.
    assert apply({Kind.PRODUCER: catalogue.load(producer, Kind.PRODUCER)}).client == "java"
