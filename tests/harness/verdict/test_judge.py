"""The judgement itself, without a cluster: a variant's result against its expectations (``judge``),
and a pair's outcome from its two variants (``PairVerdict.outcome``), over every combination."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

import pytest

from harness.checker.catalogue import ANOMALIES
from harness.checker.result import CheckResult, Finding
from harness.verdict.checks import Check
from harness.verdict.document import (
    ALLOWED,
    FORBIDDEN,
    ONE_OF,
    REQUIRED,
    RULES,
    PairVerdict,
    VariantVerdict,
    side_outcome,
)
from harness.verdict.judge import judge, untold
from harness.verdict.outcome import Outcome
from harness.verdict.record import SideRecord

HISTORY, CLIENT, SINK = "duplicate", "app_fenced", "sink_missing"  # one finding of each source


def _result(**counts: int) -> CheckResult:
    return CheckResult({name: Finding(counts.get(name, 0)) for name in ANOMALIES}, {}, {})


def _context(fault_errors: list[str] | None = None, **counts: int) -> SideRecord:
    """A side's record whose client and sink findings have ``counts``."""
    return SideRecord(
        workload=[{"app": "a", "incarnation": i + 1, "fenced": {}} for i in range(counts.get(CLIENT, 0))],
        sink={SINK: {"count": counts.get(SINK, 0), "examples": []}},
        fault_errors=fault_errors or [],
    )


def _judge(expect: dict[str, str], fault_errors: list[str] | None = None, **counts: int) -> VariantVerdict:
    history = {k: v for k, v in counts.items() if k in ANOMALIES}
    return judge("X1", "control", _result(**history), expect, _context(fault_errors, **counts))


# --- one finding, one rule -------------------------------------------------------------------

MET = {  # (rule, found) -> met
    (REQUIRED, False): False,
    (REQUIRED, True): True,
    (FORBIDDEN, False): True,
    (FORBIDDEN, True): False,
    (ONE_OF, False): False,  # a one-of set of one: that one is required
    (ONE_OF, True): True,
    (ALLOWED, False): True,
    (ALLOWED, True): True,
}


@pytest.mark.parametrize("finding", [HISTORY, CLIENT, SINK])
@pytest.mark.parametrize(("rule", "found"), sorted(MET))
def test_each_rule_for_a_finding_of_each_source(finding: str, rule: str, found: bool) -> None:
    verdict = _judge({finding: rule}, **{finding: 2 * found})
    assert verdict.passed == MET[(rule, found)], verdict.reasons
    assert verdict.count(finding) == 2 * found
    assert len(verdict.reasons) == (not MET[(rule, found)])
    if not verdict.passed:
        assert finding in verdict.reasons[0]


def test_no_expectation_judges_nothing() -> None:
    verdict = _judge({}, **{HISTORY: 3, CLIENT: 1, SINK: 1})
    assert verdict.passed and verdict.reasons == []
    assert verdict.shown() == [HISTORY, CLIENT, SINK]  # found, though unjudged


# --- every combination of two findings -------------------------------------------------------


def _met(expect: dict[str, str], counts: dict[str, int], faulty: bool) -> bool:
    """What the docstring of harness.verdict.document says, spelt out."""
    required = all(counts[a] > 0 for a, r in expect.items() if r == REQUIRED)
    forbidden = all(counts[a] == 0 for a, r in expect.items() if r == FORBIDDEN)
    one_of = [a for a, r in expect.items() if r == ONE_OF]
    return required and forbidden and (not one_of or any(counts[a] > 0 for a in one_of)) and not faulty


@pytest.mark.parametrize(
    ("rules", "counts", "faulty"),
    list(itertools.product(itertools.product(RULES, repeat=2), itertools.product((0, 1), repeat=2), (False, True))),
)
def test_every_combination_of_rules_counts_and_fault_errors(
    rules: tuple[str, str], counts: tuple[int, int], faulty: bool
) -> None:
    findings = (HISTORY, SINK)
    expect = dict(zip(findings, rules, strict=True))
    found = dict(zip(findings, counts, strict=True))
    verdict = _judge(expect, ["step 1 failed"] if faulty else None, **found)
    assert verdict.passed == _met(expect, found, faulty), (expect, found, verdict.reasons)
    assert (not verdict.passed) == bool(verdict.reasons)
    assert any("fault schedule error" in r for r in verdict.reasons) == faulty


def test_one_of_names_the_whole_set_once() -> None:
    verdict = _judge({HISTORY: ONE_OF, "lost": ONE_OF, SINK: ONE_OF})
    assert verdict.reasons == ["expected one of duplicate, lost, sink_missing, found none"]
    assert _judge({HISTORY: ONE_OF, "lost": ONE_OF, SINK: ONE_OF}, lost=1).passed


def test_the_verdict_document_counts_every_finding_and_says_whether_it_passed() -> None:
    verdict = _judge({HISTORY: REQUIRED, CLIENT: FORBIDDEN}, **{HISTORY: 1, CLIENT: 1})
    doc = verdict.to_json()
    assert doc["passed"] is False and doc["reasons"] == ["found 1 app_fenced anomalies, none allowed"]
    assert doc["counts"][HISTORY] == 1 and doc["counts"][CLIENT] == 1 and doc["counts"]["lost"] == 0


# --- a pair's outcome --------------------------------------------------------------------------


def _variant(name: str, passed: bool, faulty: bool) -> VariantVerdict:
    # Passing or not through the judgement itself: the control requires a duplicate, the guarantee forbids it.
    rule = REQUIRED if name == "control" else FORBIDDEN
    verdict = judge(
        "X1",
        name,
        _result(duplicate=int(passed == (name == "control"))),
        {HISTORY: rule},
        _context(["a step did not happen"] if faulty else None),
    )
    assert verdict.passed == (passed and not faulty)
    return verdict


def _outcome(research: bool, control: tuple[bool, bool], guarantee: tuple[bool, bool]) -> str:
    """The pair's rules, in their order: a guarantee that broke its promise fails the pair, even
    when a fault did not happen as written (a found anomaly stands; a research pair claims
    nothing, so its sides have only checks to fail); else a fault that did not happen as written
    proves nothing; a research pair is reported when both sides met what it needs; a clean
    guarantee beside a control that did not show its anomaly proves nothing either."""
    if not research and not guarantee[0]:
        return "failed"
    if control[1] or guarantee[1]:
        return "inconclusive"
    if research:
        return "reported" if control[0] and guarantee[0] else "inconclusive"
    return "passed" if control[0] else "inconclusive"


@pytest.mark.parametrize(
    ("research", "control", "guarantee"),
    list(itertools.product((False, True), *[list(itertools.product((True, False), repeat=2))] * 2)),
)
def test_pair_outcome_over_every_combination(
    research: bool, control: tuple[bool, bool], guarantee: tuple[bool, bool]
) -> None:
    """``control`` and ``guarantee``: (met its expectation, had a fault schedule error)."""
    pair = PairVerdict("X1", "title", _variant("control", *control), _variant("guarantee", *guarantee), research)
    assert pair.outcome == _outcome(research, control, guarantee)
    assert pair.to_json()["verdict"] == pair.outcome


@pytest.mark.parametrize(
    ("control", "guarantee", "outcome"),
    [
        ((True, False), (True, False), "passed"),
        ((False, False), (True, False), "inconclusive"),  # the fault proved nothing
        ((True, False), (False, False), "failed"),
        ((False, False), (False, False), "failed"),  # a broken promise fails, whatever the control did
        ((True, True), (False, False), "failed"),  # the schedule broke, but the violation stands
        ((True, False), (False, True), "failed"),
        ((True, True), (True, False), "inconclusive"),  # the schedule broke: a clean guarantee proves nothing
    ],
)
def test_pair_outcomes_spelt_out(control: tuple[bool, bool], guarantee: tuple[bool, bool], outcome: str) -> None:
    pair = PairVerdict("X1", "title", _variant("control", *control), _variant("guarantee", *guarantee))
    assert pair.outcome == outcome


# --- what could not be told ---------------------------------------------------------------------


def _told(unknown: list[str], duplicates: int = 0, checks: tuple[Check, ...] = ()) -> VariantVerdict:
    record = replace(_context(), unknown=unknown)
    return judge("X1", "guarantee", _result(duplicate=duplicates), {HISTORY: FORBIDDEN}, record, checks)


def _cannot_tell(side: VariantVerdict) -> str | None:
    return side.record.workload[5]["exit"]  # no such report: an IndexError


@pytest.mark.parametrize(
    ("side", "outcome"),
    [
        (lambda: _told(["the checker raised ValueError: boom"]), "unknown"),
        (lambda: _told([], checks=(Check("exits", "why", _cannot_tell),)), "unknown"),
        (lambda: _told(["the checker raised ValueError: boom"], duplicates=2), "failed"),  # a violation beats it
        (lambda: _told([], duplicates=2, checks=(Check("exits", "why", _cannot_tell),)), "failed"),
    ],
    ids=["checker raised", "check cannot tell", "and a violation", "cannot tell and a violation"],
)
def test_what_could_not_be_told_is_unknown_never_a_violation(side: Any, outcome: str) -> None:
    guarantee = side()
    assert not guarantee.passed
    assert side_outcome(guarantee) == outcome
    control = _variant("control", True, False)
    assert PairVerdict("X1", "title", control, guarantee).outcome == outcome
    said = " ".join(guarantee.reasons)
    assert "unknown: the checker raised ValueError: boom" in said or "cannot tell: IndexError" in said


@pytest.mark.parametrize(("duplicates", "outcome"), [(0, "inconclusive"), (3, "failed")])
def test_a_side_alone_fails_on_a_violation_even_when_a_fault_did_not_happen_as_written(
    duplicates: int, outcome: str
) -> None:
    """A user's app: a step that missed proves nothing, but an anomaly found stands."""
    side = judge("APP", "app", _result(duplicate=duplicates), {HISTORY: FORBIDDEN}, _context(["a step missed"]))
    assert side_outcome(side) == outcome


def test_a_checker_that_raised_counts_nothing_and_says_why_in_one_line() -> None:
    result, why = untold(RuntimeError("forced by the test\n  a traceback line"))
    assert why == "the checker raised RuntimeError: forced by the test"
    assert not any(f.count for f in result.anomalies.values()) and set(result.anomalies) == set(ANOMALIES)
    guarantee = _told([why])
    assert guarantee.reasons == [f"unknown: {why}"]
    pair = PairVerdict("X1", "title", _variant("control", True, False), guarantee)
    assert pair.outcome == Outcome.UNKNOWN and pair.outcome.exit_code == 3
    assert pair.to_json()["verdict"] == "unknown"


@pytest.mark.parametrize("research", [False, True])
def test_a_control_that_could_not_be_told_makes_the_pair_unknown_even_beside_a_broken_fault(research: bool) -> None:
    control = judge(
        "X1", "control", _result(), {}, replace(_context(["a step missed"]), unknown=["the checker raised"])
    )
    pair = PairVerdict("X1", "title", control, _variant("guarantee", True, False), research)
    assert pair.outcome == Outcome.UNKNOWN
