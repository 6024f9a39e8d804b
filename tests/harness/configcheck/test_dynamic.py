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

from harness import docker_engine
from harness.kafkaconfig.catalogue import Kind
from harness.settings import LABEL_PID

pytestmark = pytest.mark.cluster

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "configs"
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
        (("--kafka-version", "4.3.1,9.9.9"), "cannot resolve Kafka 9.9.9 (org.apache.kafka:kafka_2.13:9.9.9)"),
        (("--kafka-version", "banana"), "Kafka version 'banana' is not a release number X.Y.Z"),
        (("--kafka-version", "4.4.0,3.2.0"), "Kafka 3.2.0 is too old: 3.3.0 or newer"),
        (("--client", "librdkafka=2.1.0"), "unknown client 'librdkafka=2.1.0'"),
        (("--client", "java==2.1.1"), "kafka-clients (java) 2.1.1 is too old"),
    ],
)
def test_bad_choices_are_one_line_exit_2_and_start_nothing(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    proc, left = verify_config(*example_args("safe"), *args, runs=tmp_path)
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("==>")]  # progress: a fetch tried
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert left == []


def test_safe_files_hold(tmp_path: Path) -> None:
    """A1 alone: A3 with these files may end *unavailable* as well as held (the transactional
    producer stalls once replication is cut, the ISR never shrinks, the kill never comes),
    so it would tell nothing here for its 70 s; ``test_lossy_files_violate`` runs it. On the
    versions that fix every reproduced bug (a Java client 4.x on Kafka 4.x): no bug row."""
    safe_versions = ("--client", "java==4.4.0", "--kafka-version", "4.4.0")
    proc, left = verify_config(*example_args("safe"), *safe_versions, "--scenarios", "A1", "--json", runs=tmp_path)
    (row,) = dynamic(proc)["rows"]
    assert row["scenario"] == "A1" and row["outcome"] == "held", row
    assert proc.returncode == 0 and left == []
    assert "report: not written" not in proc.stderr, proc.stderr  # the files' values are text


def test_unsafe_files_fail_statically_and_cannot_deliver(tmp_path: Path) -> None:
    """Their transactional producer, read by librdkafka, also meets KAFKA-17754: a B9 row."""
    proc, left = verify_config(*example_args("unsafe"), "--scenarios", "A1", "--json", runs=tmp_path)
    doc = json.loads(proc.stdout)
    assert doc["counts"]["error"] > 0 and proc.returncode == 1 and left == []
    rows = {r["scenario"]: r for r in doc["dynamic"]["rows"]}
    assert sorted(rows) == ["A1", "B9"] and rows["B9"]["bug"] == "bug.kafka-17754"
    row = rows["A1"]
    assert row["outcome"] == "unavailable" and "refused the configuration" in row["reason"], row


def test_lossy_files_violate(tmp_path: Path) -> None:
    proc, left = verify_config(*example_args("lossy"), "--scenarios", "A1,A3", "--json", runs=tmp_path)
    assert proc.returncode == 1 and left == [], proc.stderr
    rows = {r["scenario"]: r for r in dynamic(proc)["rows"]}
    assert rows["A1"]["outcome"] == "violated" and rows["A1"]["counts"]["guarantee"]["duplicate"] > 0, rows["A1"]
    assert rows["A3"]["outcome"] == "violated" and rows["A3"]["counts"]["guarantee"]["lost"] > 0, rows["A3"]
    assert all(r["example"] for r in rows.values())


def test_a_java_file_runs_on_the_java_client(tmp_path: Path) -> None:
    producer = tmp_path / "producer.properties"
    producer.write_text("acks=all\nenable.idempotence=true\nmax.block.ms=30000\nlinger.ms=5\n")
    runs = tmp_path / "runs"
    proc, left = verify_config(
        "--producer", str(producer), "--client", "java", "--scenarios", "A1", "--json", runs=runs
    )
    (row,) = dynamic(proc)["rows"]
    assert row["outcome"] == "held" and row["producer"] == "yours, on the Java client", row
    guarantee = Path(row["run_dir"])
    assert json.loads((guarantee / "verdict.json").read_text())["client"] == "java"
    spec = json.loads((guarantee / "producer-1.1.spec.json").read_text())
    assert spec["config"]["max.block.ms"] == "30000" and spec["config"]["request.timeout.ms"] == 2500
    assert left == []


def test_a_bug_rule_runs_its_pair_on_your_versions(tmp_path: Path) -> None:
    """confluent-kafka 2.1.0 is librdkafka #4261's release: its rule fires, and its row runs R3
    with the guarantee on 2.1.0 too, which repeats outputs as the control does (violated); the
    JUnit file has the row. (A1's row runs the producer file on 2.1.0: it holds.)"""
    producer = tmp_path / "producer.properties"
    producer.write_text("acks=all\nenable.idempotence=true\n")
    junit = tmp_path / "verify.xml"
    args = ("--producer", str(producer), "--client", "librdkafka==2.1.0", "--scenarios", "A1", "--json")
    proc, left = verify_config(*args, "--junit", str(junit), runs=tmp_path / "runs")
    doc = json.loads(proc.stdout)
    assert [f["rule"] for f in doc["static"] if f["rule"].startswith("bug.")] == ["bug.librdkafka-4261"]
    rows = {r["scenario"]: r for r in dynamic(proc)["rows"]}
    r3 = rows["R3"]
    assert r3["bug"] == "bug.librdkafka-4261" and r3["outcome"] == "violated", r3
    assert r3["counts"]["guarantee"]["eos_repeated"] > 0 and r3["counts"]["control"]["eos_repeated"] > 0, r3
    guarantee = json.loads((Path(r3["run_dir"]) / "verdict.json").read_text())
    assert guarantee["client_version"] == "2.1.0" and guarantee["kafka_version"] == "4.4.0"
    assert rows["A1"]["outcome"] == "held", rows["A1"]
    assert proc.returncode == 1 and left == []
    assert 'name="R3 (bug.librdkafka-4261) on Kafka 4.4.0"' in junit.read_text()
