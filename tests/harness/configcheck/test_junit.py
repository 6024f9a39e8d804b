"""``verify-config --junit``: static findings and dynamic rows, parsed back and held to the common
JUnit schema (``tests.junit_schema``)."""

from __future__ import annotations

from pathlib import Path

from harness.configcheck import junit as verify_junit
from harness.configcheck.apply import Applied
from harness.configcheck.dynamic import Dynamic, Row
from harness.configcheck.report import verify
from harness.kafkaconfig.catalogue import Kind
from harness.report import junit
from harness.workloads.clients import ClientSpec
from tests.junit_schema import cases, check_schema

ROOT = Path(__file__).resolve().parents[3]


def test_verify_config_static_errors_fail_and_the_rest_pass_or_skip(tmp_path: Path) -> None:
    unsafe = ROOT / "examples" / "configs" / "unsafe"
    report = verify({Kind.PRODUCER: unsafe / "producer.properties"}, brokers=3, transactional=False)
    root = check_schema(junit.write(verify_junit.tree(report), tmp_path / "v.xml"))
    findings = report.sections["static"]
    errors = sum(str(f.severity) == "error" for f in findings)
    assert errors and root.get("failures") == str(errors)
    assert root.get("skipped") == str(len(report.skipped_rules))  # broker and consumer rules: no file
    passed = [c for c in root.iter("testcase") if not len(c.findall("failure")) and not len(c.findall("skipped"))]
    assert passed and all((c.findtext("system-out") or "").startswith(("warning:", "info:")) for c in passed)


def test_verify_config_dynamic_rows(tmp_path: Path) -> None:
    safe = ROOT / "examples" / "configs" / "safe"
    report = verify({Kind.PRODUCER: safe / "producer.properties"}, brokers=3, transactional=False)

    def row(outcome: str, reason: str) -> Row:
        return Row("A1", "lost ack", "blackhole", "4.3.1", outcome, reason, {}, None, "/runs/x-A1-0000/guarantee")

    report.dynamic = Dynamic(
        Applied(),
        {},
        [
            row("held", "800 duplicate in the control"),
            row("violated", "638 duplicate"),
            row("unavailable", "only 10 of 4000 records acknowledged"),
            row("inconclusive", "expected duplicate anomalies, found none"),
        ],
    )
    root = check_schema(junit.write(verify_junit.tree(report), tmp_path / "v.xml"))
    dynamic = next(s for s in root if s.get("name") == "dynamic checks")
    assert (dynamic.get("tests"), dynamic.get("failures"), dynamic.get("skipped")) == ("4", "1", "2")
    skipped = [c.find("skipped") for c in dynamic.iter("testcase") if c.find("skipped") is not None]
    assert [s.get("message", "").split(":")[0] for s in skipped] == ["unavailable", "inconclusive"]  # type: ignore[union-attr]
    # Failures in the file are exactly what makes verify-config exit 1.
    assert (int(root.get("failures", "0")) > 0) == (report.exit_status() == 1)


def test_verify_config_bug_findings_and_rows(tmp_path: Path) -> None:
    safe = ROOT / "examples" / "configs" / "safe"
    report = verify(
        {Kind.PRODUCER: safe / "producer.properties"},
        brokers=3,
        transactional=False,
        client=ClientSpec("java", "4.4.0"),
        kafka_versions=["3.5.2"],
    )
    counts = {"control": {"aborted_read": 20}, "guarantee": {"aborted_read": 20}}
    bug_row = Row("R1", "KAFKA-14402", "hold", "3.5.2", "violated", "20 aborted_read", counts, None, "", bug="b.r1")
    report.dynamic = Dynamic(Applied(), {}, [bug_row])
    root = check_schema(junit.write(verify_junit.tree(report), tmp_path / "v.xml"))
    names = cases(root)
    assert "verify-config.static bug.kafka-14402 at --kafka-version 3.5.2" in names
    assert "verify-config.dynamic.R1 R1 (b.r1) on Kafka 3.5.2" in names
