"""``kafka-harness verify-config``: the report (table and JSON), exit status 0 / 1 / 2,
and the example config sets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.configcheck.apply import Applied
from harness.configcheck.dynamic import Dynamic, Row
from harness.configcheck.report import SCHEMA, _dynamic_table, verify
from harness.configcheck.rulebook import RuleFinding, Severity
from harness.errors import HarnessError
from harness.kafkaconfig.catalogue import Component, Kind
from harness.workloads.clients import ClientSpec

EXAMPLES = Path(__file__).parents[3] / "examples" / "configs"
FILES = {Kind.BROKER: "server.properties", Kind.PRODUCER: "producer.properties", Kind.CONSUMER: "consumer.properties"}


def example(name: str) -> dict[Kind, Path]:
    return {kind: EXAMPLES / name / file for kind, file in FILES.items()}


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", "verify-config", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
        timeout=120,
    )


def example_args(name: str) -> list[str]:
    return [arg for kind, path in example(name).items() for arg in (f"--{kind}", str(path))]


# The safe examples are safe on the versions that fix every reproduced bug: a Java client 4.x on
# Kafka 4.x. Read by librdkafka, their transactional producer meets KAFKA-17754 (B9), which no
# librdkafka release fixes (test_bugs.py).
SAFE_VERSIONS = ("--client", "java==4.4.0", "--kafka-version", "4.4.0")


def test_safe_examples_pass(tmp_path: Path) -> None:
    proc = harness(*example_args("safe"), *SAFE_VERSIONS, "--static-only")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no findings" in proc.stdout and proc.stdout.rstrip().endswith("exit status 0")


def test_unsafe_examples_fail_with_a_readable_table() -> None:
    proc = harness(*example_args("unsafe"), "--static-only")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    header = next(line for line in out.splitlines() if line.startswith("SEVERITY"))
    assert header.split() == ["SEVERITY", "RULE", "SCENARIO", "APPLIES", "TO", "WHERE"]
    row = next(line for line in out.splitlines() if "broker.unclean-election" in line)
    assert row.split() == [
        "error",
        "broker.unclean-election",
        "A3",
        "broker",
        f"{EXAMPLES / 'unsafe' / 'server.properties'}:10",
    ]
    assert "fix: set unclean.leader.election.enable=false" in out
    details = [line for line in out.splitlines() if line.startswith(" " * len("SEVERITY  "))]
    assert details and max(map(len, details)) <= 100  # explanations are wrapped to the terminal


def test_unsafe_examples_trip_several_rules() -> None:
    report = verify(example("unsafe"), brokers=3, transactional=False)
    rules = {f.rule for f in report.sections["static"]}
    assert {
        "broker.unclean-election",
        "broker.min-isr-below-2",
        "broker.rf-above-brokers",
        "producer.acks-not-all",
        "producer.idempotence-conflict",
        "producer.timeout-conflict",
        "producer.transaction-timeout-above-broker-max",
        "consumer.auto-commit-in-transactions",
        "consumer.isolation-level-unset",
        "unknown-property",
    } <= rules
    assert report.exit_status() == 1


def test_json_report() -> None:
    proc = harness(*example_args("unsafe"), "--json", "--static-only")
    doc = json.loads(proc.stdout)
    assert doc["schema"] == SCHEMA and doc["brokers"] == 3
    assert doc["transactional"] == {"value": True, "why": "the producer sets transactional.id"}
    assert doc["files"]["producer"]["read_by"] == ["java", "librdkafka"]
    assert doc["exit_status"] == proc.returncode == 1
    assert doc["counts"]["error"] == sum(f["severity"] == "error" for f in doc["static"]) > 0
    first = doc["static"][0]
    assert set(first) == {"rule", "severity", "scenarios", "file", "line", "what", "fix", "applies_to"}
    severities = [f["severity"] for f in doc["static"]]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)


def test_the_flags_reach_the_rules(tmp_path: Path) -> None:
    producer = tmp_path / "p.properties"
    producer.write_text("acks=all\nenable.idempotence=true\n")
    doc = json.loads(
        harness("--producer", str(producer), "--transactional", "--client", "java", "--json", "--static-only").stdout
    )
    assert [f["rule"] for f in doc["static"]] == ["producer.no-transactional-id"]
    assert doc["files"]["producer"]["read_by"] == ["java"]
    assert "broker.unclean-election" in doc["skipped_rules"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("acks=maybe\n", ":1: acks='maybe' is not valid: expected all, -1, 0 or 1"),
        ("# ok\nenable.idempotence=perhaps\n", ":2: enable.idempotence='perhaps' is not valid: expected true or false"),
        ("a=1\nb=\\u00zz\n", ":2: malformed \\uXXXX escape"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, text: str, message: str) -> None:
    producer = tmp_path / "p.properties"
    producer.write_text(text)
    proc = harness("--producer", str(producer))
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"kafka-harness: error: {producer}{message}"), proc.stderr


def test_a_broker_value_of_the_wrong_type_is_exit_2(tmp_path: Path) -> None:
    broker = tmp_path / "server.properties"
    broker.write_text("min.insync.replicas=two\n")
    proc = harness("--broker", str(broker))
    assert proc.returncode == 2 and "min.insync.replicas='two' is not valid" in proc.stderr


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"paths": {}, "brokers": 3}, "nothing to check"),
        ({"paths": {Kind.BROKER: Path("/nonexistent/server.properties")}, "brokers": 3}, "no such file"),
        ({"paths": example("safe"), "brokers": 0}, "--brokers must be 1 or more"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    paths = kwargs.pop("paths")
    with pytest.raises(HarnessError, match=message):
        verify(paths, transactional=False, **kwargs)  # type: ignore[arg-type]


def test_the_report_covers_every_section() -> None:
    """Any section of findings added to the report (beside the static one) counts in the
    table, the JSON and the exit status without changes to them."""
    report = verify(
        example("safe"), brokers=3, transactional=True, client=ClientSpec("java", "4.4.0"), kafka_versions=["4.4.0"]
    )
    assert report.exit_status() == 0
    report.sections["dynamic"] = [
        RuleFinding(
            "A1.guarantee", Severity.ERROR, ("A1",), "p.properties", 3, "duplicates: 4", "set x", (Component.JAVA,)
        )
    ]
    assert report.exit_status() == 1 and report.count(Severity.ERROR) == 1
    assert report.to_json()["dynamic"][0]["rule"] == "A1.guarantee"
    table = report.table(width=100)
    assert "static checks\n  no findings" in table and "dynamic checks" in table
    assert "p.properties:3" in table and "fix: set x" in table


def test_the_table_has_a_column_per_version() -> None:
    def row(version: str, outcome: str, example: dict[str, Any] | None) -> Row:
        counts = {"control": {"lost": 3}, "guarantee": {"lost": 1 if example else 0}}
        return Row("A3", "unclean election", "kill leader", version, outcome, "1 lost", counts, example, "runs/x")

    protocol = {"protocol": 2, "transaction.version": 2, "source": "queried (ApiVersions)"}
    versions = {v: {"transaction_protocol": protocol, "wall_s": 60.0} for v in ("3.9.2", "4.3.1")}
    d = Dynamic(Applied(), versions, [row("3.9.2", "violated", {"id": 7}), row("4.3.1", "held", None)])
    lines = _dynamic_table(d, 100)
    header = next(line for line in lines if line.startswith("SCENARIO"))
    assert header.split() == ["SCENARIO", "Kafka", "3.9.2", "Kafka", "4.3.1"]
    assert next(line for line in lines if line.startswith("A3 ")).split() == ["A3", "violated", "held"]
    assert any("3.9.2: 1 lost; e.g. {'id': 7}" in line for line in lines)
    assert d.violated() and d.to_json()["rows"][0]["example"] == {"id": 7}


def test_a_bug_row_has_a_line_of_its_own() -> None:
    counts = {"control": {"eos_repeated": 9}, "guarantee": {"eos_repeated": 0}}
    scenario = Row("R3", "librdkafka #4261", "none", "4.4.0", "held", "clean", counts, None, "runs/x")
    bug = Row(
        "R3", "librdkafka #4261", "none", "4.4.0", "violated", "9 eos_repeated", counts, None, "runs/y", bug="b.r3"
    )
    protocol = {"protocol": 2, "transaction.version": 2, "source": "queried (ApiVersions)"}
    d = Dynamic(Applied(), {"4.4.0": {"transaction_protocol": protocol, "wall_s": 1.0}}, [scenario, bug])
    lines = _dynamic_table(d, 100)
    assert [line.split() for line in lines if line.startswith("R3")] == [["R3", "held"], ["R3", "(b.r3)", "violated"]]
    assert d.to_json()["rows"][1]["bug"] == "b.r3"
