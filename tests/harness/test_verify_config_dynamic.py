"""``verify-config``'s dynamic run: the example files through scenario pairs on a cluster.

Each cluster-backed case starts a cluster of its own (the files' broker settings), so they
run on the default Kafka version with the fewest scenarios that still tell the outcomes
apart. ``examples/configs/unsafe``'s producer is refused by the client (idempotence with
acks=1), so its rows are *unavailable*; ``examples/configs/lossy`` runs and loses data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness import config_catalogue, docker_engine
from harness.config import LABEL_PID
from harness.config_catalogue import Kind
from harness.errors import HarnessError
from harness.verify_dynamic import Applied, Dynamic, Row, apply, choose, guarantee_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "configs"
FILES = {Kind.BROKER: "server.properties", Kind.PRODUCER: "producer.properties", Kind.CONSUMER: "consumer.properties"}


def example_args(name: str) -> list[str]:
    return [arg for kind, file in FILES.items() for arg in (f"--{kind}", str(EXAMPLES / name / file))]


def verify_config(*args: str, runs: Path) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """The CLI in a subprocess, and the containers it left (by its pid label)."""
    cmd = [sys.executable, "-m", "harness.cli", "verify-config", *args, "--runs-dir", str(runs)]
    with subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "100"}
    ) as proc:
        out, err = proc.communicate(timeout=900)
    left = docker_engine.client().containers.list(all=True, filters={"label": f"{LABEL_PID}={proc.pid}"})
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), [c.name for c in left]


def dynamic(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)["dynamic"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--scenarios", "A1,Z9"), "unknown scenario 'Z9'"),
        (("--scenarios", "B1"), "scenario B1 cannot run with your files: it is a consume-transform-produce"),
        (("--kafka-version", "4.3.1,9.9.9"), "unknown Kafka version 9.9.9"),
        (("--kafka-version", "banana"), "unknown Kafka version 'banana'"),
    ],
)
def test_bad_choices_are_one_line_exit_2_and_start_nothing(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    proc, left = verify_config(*example_args("safe"), *args, runs=tmp_path)
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert left == []


def test_the_files_become_the_guarantee_s_settings() -> None:
    files = {kind: config_catalogue.load(EXAMPLES / "unsafe" / file, kind) for kind, file in FILES.items()}
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

    java = config_catalogue.load(EXAMPLES / "unsafe" / "consumer.properties", Kind.CONSUMER, config_catalogue.J)
    assert apply({Kind.CONSUMER: java}).consumer_view == "read_uncommitted"  # Java's default


def test_a_java_file_runs_with_java_s_defaults(tmp_path: Path) -> None:
    producer = tmp_path / "producer.properties"
    producer.write_text("acks=all\nkey.serializer=org.apache.kafka.common.serialization.StringSerializer\n")
    applied = apply({Kind.PRODUCER: config_catalogue.load(producer, Kind.PRODUCER)})
    assert applied.producer == {
        "request.required.acks": "all",
        "enable.idempotence": "true",
        "max.in.flight.requests.per.connection": "5",
        "message.timeout.ms": "120000",
    }
    assert applied.notes["producer"]["ignored: Java-only, no librdkafka equivalent"] == ["key.serializer"]
    producer.write_text("acks=1\nmax.block.ms=5\n")  # Java drops its idempotence default for acks=1
    assert (
        apply({Kind.PRODUCER: config_catalogue.load(producer, Kind.PRODUCER)}).producer["enable.idempotence"] == "false"
    )


def test_the_guarantee_runs_the_files_but_keeps_the_fault_timing() -> None:
    files = {kind: config_catalogue.load(EXAMPLES / "lossy" / file, kind) for kind, file in FILES.items()}
    a1, b3 = choose(["a1", "B3"])
    scenario, whose = guarantee_scenario(a1, apply(files))
    g = scenario.guarantee
    assert whose == "yours" and g.app == {"config": {"socket.timeout.ms": 2500}}
    assert g.producer_config["request.required.acks"] == "1" and g.topic_config == {}
    assert scenario.control == a1.control
    # B3's producer writes transactions; the lossy one does not, so the scenario's stays.
    scenario, whose = guarantee_scenario(b3, apply(files))
    assert whose.startswith("the scenario's") and scenario.guarantee.app["config"] == b3.workload.config


@pytest.mark.parametrize(("sid", "why"), [("B1", "pipeline"), ("B9", "research"), ("B10", "ACLs"), ("C2", "Spark")])
def test_scenarios_your_files_cannot_run_are_refused(sid: str, why: str) -> None:
    with pytest.raises(HarnessError, match=why):
        choose([sid])


def test_safe_files_hold(tmp_path: Path) -> None:
    """A3 may also end *unavailable* (2 of 4 runs so far): the safe producer is transactional,
    its transaction stalls once replication is cut, so the partition's ISR never shrinks
    and the kill never comes. That is acks=all refusing to write, never a violation."""
    proc, left = verify_config(*example_args("safe"), "--scenarios", "A1,A3", "--json", runs=tmp_path)
    rows = {r["scenario"]: r for r in dynamic(proc)["rows"]}
    assert rows["A1"]["outcome"] == "held" and rows["A3"]["outcome"] in ("held", "unavailable"), rows
    assert proc.returncode == 0 and left == []


def test_unsafe_files_fail_statically_and_cannot_deliver(tmp_path: Path) -> None:
    proc, left = verify_config(*example_args("unsafe"), "--scenarios", "A1", "--json", runs=tmp_path)
    doc = json.loads(proc.stdout)
    assert doc["counts"]["error"] > 0 and proc.returncode == 1 and left == []
    (row,) = doc["dynamic"]["rows"]
    assert row["outcome"] == "unavailable" and "refused the configuration" in row["reason"], row


def test_lossy_files_violate(tmp_path: Path) -> None:
    proc, left = verify_config(*example_args("lossy"), "--scenarios", "A1,A3", "--json", runs=tmp_path)
    assert proc.returncode == 1 and left == [], proc.stderr
    rows = {r["scenario"]: r for r in dynamic(proc)["rows"]}
    assert rows["A1"]["outcome"] == "violated" and rows["A1"]["counts"]["guarantee"]["duplicate"] > 0, rows["A1"]
    assert rows["A3"]["outcome"] == "violated" and rows["A3"]["counts"]["guarantee"]["lost"] > 0, rows["A3"]
    assert all(r["example"] for r in rows.values())


def test_the_table_has_a_column_per_version() -> None:
    def row(version: str, outcome: str, example: dict[str, Any] | None) -> Row:
        counts = {"control": {"lost": 3}, "guarantee": {"lost": 1 if example else 0}}
        return Row("A3", "unclean election", "kill leader", version, outcome, "1 lost", counts, example, "runs/x")

    protocol = {"protocol": 2, "transaction.version": 2, "source": "queried (ApiVersions)"}
    versions = {v: {"transaction_protocol": protocol, "wall_s": 60.0} for v in ("3.9.2", "4.3.1")}
    d = Dynamic(Applied(), versions, [row("3.9.2", "violated", {"id": 7}), row("4.3.1", "held", None)])
    lines = d.table(100)
    header = next(line for line in lines if line.startswith("SCENARIO"))
    assert header.split() == ["SCENARIO", "Kafka", "3.9.2", "Kafka", "4.3.1"]
    assert next(line for line in lines if line.startswith("A3 ")).split() == ["A3", "violated", "held"]
    assert any("3.9.2: 1 lost; e.g. {'id': 7}" in line for line in lines)
    assert d.violated() and d.to_json()["rows"][0]["example"] == {"id": 7}
