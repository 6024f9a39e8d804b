"""JUnit XML of pairs and of verify-config, parsed back and held to the common JUnit schema:
testsuites / testsuite / testcase with name, classname and time; a failure has a message;
every suite's tests, failures, errors and skipped agree with its cases, and the totals
with the suites."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness.checker.anomalies import CheckResult
from harness.checker.check import check
from harness.checker.synthetic import MUTATIONS
from harness.configcheck.apply import Applied
from harness.configcheck.catalogue import Kind
from harness.configcheck.dynamic import Dynamic, Row
from harness.configcheck.report import verify
from harness.history import columns
from harness.report import junit
from harness.verdict.judge import FORBIDDEN, REQUIRED, PairVerdict, VariantVerdict, judge
from harness.workloads.clients import ClientSpec

ROOT = Path(__file__).resolve().parents[3]
_OUTCOMES = ("failure", "error", "skipped")
_CASE_CHILDREN = {*_OUTCOMES, "system-out", "system-err", "properties"}


def check_schema(path: Path) -> ET.Element:
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for suite in root:
        assert suite.tag == "testsuite" and suite.get("name"), suite.attrib
        cases = suite.findall("testcase")
        assert {c.tag for c in suite} <= {"testcase", "properties", "system-out", "system-err"}
        for case in cases:
            assert case.get("name") and case.get("classname"), case.attrib
            assert float(case.get("time", "x")) >= 0
            assert {c.tag for c in case} <= _CASE_CHILDREN, [c.tag for c in case]
            assert sum(case.find(t) is not None for t in _OUTCOMES) <= 1, case.attrib
            failure = case.find("failure")
            assert failure is None or failure.get("message"), case.attrib
        counts = {
            "tests": len(cases),
            "failures": sum(c.find("failure") is not None for c in cases),
            "errors": sum(c.find("error") is not None for c in cases),
            "skipped": sum(c.find("skipped") is not None for c in cases),
        }
        assert {k: int(suite.get(k, "-1")) for k in counts} == counts, suite.attrib
        for k, n in counts.items():
            totals[k] += n
    assert {k: int(root.get(k, "-1")) for k in totals} == totals, root.attrib
    return root


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CheckResult]:
    found = {}
    for name in ("clean plain", "duplicate"):
        m = next(m for m in MUTATIONS if m.name == name)
        paths, reads = m.build(tmp_path_factory.mktemp(name.replace(" ", "-")))
        found[name] = check(columns.load(paths, reads))
    return found


def side(result: CheckResult, variant: str, expect: dict[str, str]) -> VariantVerdict:
    context = {"run_dir": f"/runs/20261123-120000-A1-beef/{variant}", "started_at": 100.0, "ended_at": 112.5}
    return judge("A1", variant, result, expect, context)


def pair(results: dict[str, CheckResult], control: str, guarantee: str, research: bool = False) -> PairVerdict:
    expect_c, expect_g = ({}, {}) if research else ({"duplicate": REQUIRED}, {"duplicate": FORBIDDEN})
    return PairVerdict(
        "A1",
        "lost ack",
        side(results[control], "control", expect_c),
        side(results[guarantee], "guarantee", expect_g),
        research,
    )


def cases(root: ET.Element) -> dict[str, ET.Element]:
    return {f"{c.get('classname')} {c.get('name')}": c for c in root.iter("testcase")}


def test_a_passed_pair_is_two_passed_cases(results, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = check_schema(junit.write(junit.pairs([pair(results, "duplicate", "clean plain")]), tmp_path / "j.xml"))
    assert root.get("tests") == "2" and root.get("failures") == "0"
    control = cases(root)["kafka-harness.A1 control"]
    assert control.get("time") == "12.500"
    out = control.findtext("system-out") or ""
    assert "duplicate=3 [required ok]" in out
    assert "report: /runs/20261123-120000-A1-beef/report.html" in out


def test_a_violated_guarantee_fails_with_its_reasons(results, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = check_schema(junit.write(junit.pairs([pair(results, "duplicate", "duplicate")]), tmp_path / "j.xml"))
    failure = cases(root)["kafka-harness.A1 guarantee"].find("failure")
    assert failure is not None and failure.get("type") == "violated"
    assert "found 3 duplicate anomalies, none allowed" in (failure.get("message") or "")
    assert cases(root)["kafka-harness.A1 control"].find("failure") is None


def test_an_inconclusive_pairs_control_is_a_failure_saying_so(results, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = check_schema(junit.write(junit.pairs([pair(results, "clean plain", "clean plain")]), tmp_path / "j.xml"))
    failure = cases(root)["kafka-harness.A1 control"].find("failure")
    assert failure is not None and failure.get("type") == "inconclusive"
    assert "did not show its anomaly, so the pair is inconclusive" in (failure.get("message") or "")
    assert root.get("failures") == "1"


def test_a_research_pair_passes_with_its_findings(results, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    research = pair(results, "duplicate", "duplicate", research=True)
    root = check_schema(junit.write(junit.pairs([research]), tmp_path / "j.xml"))
    assert root.get("failures") == "0"
    out = cases(root)["kafka-harness.A1 guarantee"].findtext("system-out") or ""
    assert "duplicate=3" in out and "pair outcome: reported" in out


def test_repeated_pairs_get_names_of_their_own(results, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    runs = [pair(results, "duplicate", "clean plain") for _ in range(3)]
    root = check_schema(junit.write(junit.pairs(runs), tmp_path / "j.xml"))
    assert len(cases(root)) == 6 and "kafka-harness.A1 guarantee (run 3)" in cases(root)


def test_verify_config_static_errors_fail_and_the_rest_pass_or_skip(tmp_path: Path) -> None:
    unsafe = ROOT / "examples" / "configs" / "unsafe"
    report = verify({Kind.PRODUCER: unsafe / "producer.properties"}, brokers=3, transactional=False)
    root = check_schema(junit.write(junit.verify_config(report), tmp_path / "v.xml"))
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
    root = check_schema(junit.write(junit.verify_config(report), tmp_path / "v.xml"))
    dynamic = next(s for s in root if s.get("name") == "dynamic checks")
    assert (dynamic.get("tests"), dynamic.get("failures"), dynamic.get("skipped")) == ("4", "1", "2")
    skipped = [c.find("skipped") for c in dynamic.iter("testcase") if c.find("skipped") is not None]
    assert [s.get("message", "").split(":")[0] for s in skipped] == ["unavailable", "inconclusive"]  # type: ignore[union-attr]
    # Failures in the file are exactly what makes verify-config exit 1.
    assert (int(root.get("failures", "0")) > 0) == (report.exit_status() == 1)


def test_check_app_is_one_case_failed_by_its_reasons_or_errored_by_a_broken_contract(  # type: ignore[no-untyped-def]
    results, tmp_path: Path
) -> None:
    report = Path("/runs/20261123-120000-APP-beef/report.html")
    clean = junit.app_run("check-app: python app.py", side(results["clean plain"], "app", {}), report)
    root = check_schema(junit.write(clean, tmp_path / "clean.xml"))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("1", "0", "0")
    assert f"report: {report}" in (cases(root)["kafka-harness.check-app exactly once"].findtext("system-out") or "")
    broken = junit.app_run(
        "check-app: python app.py", side(results["duplicate"], "app", {"duplicate": FORBIDDEN}), report
    )
    failure = check_schema(junit.write(broken, tmp_path / "broken.xml")).find("testsuite/testcase/failure")
    assert failure is not None and failure.get("type") == "violated" and "duplicate" in (failure.get("message") or "")
    line = "app-1 exited with status 3 0.1s after it started, before committing any input offset (it crashed on start)"
    error = check_schema(junit.write(junit.app_run("check-app", None, None, line), tmp_path / "e.xml"))
    assert error.get("errors") == "1" and error.find("testsuite/testcase/error").get("message") == line  # type: ignore[union-attr]


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
    root = check_schema(junit.write(junit.verify_config(report), tmp_path / "v.xml"))
    names = cases(root)
    assert "verify-config.static bug.kafka-14402 at --kafka-version 3.5.2" in names
    assert "verify-config.dynamic.R1 R1 (b.r1) on Kafka 3.5.2" in names
