"""JUnit XML of pairs and of check-app, parsed back and held to the common JUnit schema
(``tests.junit_schema``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.checker.check import check
from harness.checker.result import CheckResult
from harness.history import loading
from harness.report import junit
from harness.verdict.document import FORBIDDEN, REQUIRED, PairVerdict, VariantVerdict
from harness.verdict.judge import judge
from harness.verdict.record import SideRecord
from tests.harness.checker.synthetic import MUTATIONS
from tests.junit_schema import cases, check_schema


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CheckResult]:
    found = {}
    for name in ("clean plain", "duplicate"):
        m = next(m for m in MUTATIONS if m.name == name)
        paths, reads = m.build(tmp_path_factory.mktemp(name.replace(" ", "-")))
        found[name] = check(loading.load(paths, reads))
    return found


def side(result: CheckResult, variant: str, expect: dict[str, str]) -> VariantVerdict:
    context = {"run_dir": f"/runs/20261123-120000-A1-beef/{variant}", "started_at": 100.0, "ended_at": 112.5}
    return judge("A1", variant, result, expect, SideRecord.from_json(context))


def pair(results: dict[str, CheckResult], control: str, guarantee: str, research: bool = False) -> PairVerdict:
    expect_c, expect_g = ({}, {}) if research else ({"duplicate": REQUIRED}, {"duplicate": FORBIDDEN})
    return PairVerdict(
        "A1",
        "lost ack",
        side(results[control], "control", expect_c),
        side(results[guarantee], "guarantee", expect_g),
        research,
    )


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


def test_a_side_whose_checker_raised_fails_as_unknown_saying_why(results, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    why = "the checker raised RuntimeError: forced by the test"
    record = SideRecord(run_dir="/runs/20261123-120000-A1-beef/guarantee", unknown=[why])
    guarantee = judge("A1", "guarantee", results["clean plain"], {"duplicate": FORBIDDEN}, record)
    unknown = PairVerdict("A1", "lost ack", side(results["duplicate"], "control", {"duplicate": REQUIRED}), guarantee)
    root = check_schema(junit.write(junit.pairs([unknown]), tmp_path / "j.xml"))
    failure = cases(root)["kafka-harness.A1 guarantee"].find("failure")
    assert failure is not None and failure.get("type") == "unknown"
    assert f"could not be told, so the pair is unknown: unknown: {why}" in (failure.get("message") or "")


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
