"""Where each fault of a user's app run hit, from the group's progress looked at every half
second: a run whose faults all came before the app began or after it caught up is inconclusive,
never passed; a violation still fails it."""

from __future__ import annotations

from typing import Any

import pytest

from harness.checker.catalogue import ANOMALIES
from harness.checker.result import CheckResult, Finding
from harness.userapps.moments import FAULT_HIT_WORK, IN_HAND, moment
from harness.userapps.workload import APP_VARIANT
from harness.verdict.document import side_outcome
from harness.verdict.judge import judge
from harness.verdict.record import SideRecord

# The app started at t=10, wrote and committed from t=11, caught up at t=14.
SAMPLES = [
    {"at": 10.2, "committed": 0, "caught_up": False, "outputs": 0},
    {"at": 11.1, "committed": 0, "caught_up": False, "outputs": 40},
    {"at": 12.0, "committed": 100, "caught_up": False, "outputs": 160},
    {"at": 14.0, "committed": 400, "caught_up": True, "outputs": 410},
]


def _fault(at: float, kind: str = "kill", **more: Any) -> dict[str, Any]:
    return {"fault": kind, "target": "app app-1", "injected_at": at, **more}


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        (_fault(9.0), "before the app's group was first looked at"),
        (_fault(10.5), "before the app had written or committed anything"),
        (_fault(12.3), f"{IN_HAND}: 100 input offsets committed, 160 output offsets written"),
        (_fault(20.0), "after the app had caught up"),
        (_fault(30.0, windows_hit=0, kind="crash_at_commit"), "missed"),
        (_fault(30.0, windows_hit=2, kind="crash_at_commit"), f"{IN_HAND}: caught 2 time(s) on the wire"),
        (
            _fault(30.0, windows_hit=1, kind="crash_in_produce", windows=[{"api": "Produce", "action": "pause"}]),
            f"{IN_HAND}: caught 1 time(s) on the wire (pause at Produce)",
        ),
    ],
)
def test_each_fault_is_placed_against_what_the_app_had_in_hand(fault: dict[str, Any], said: str) -> None:
    assert moment(fault, SAMPLES).startswith(said)


def _side(faults: list[dict[str, Any]], samples: list[dict[str, Any]] | None, repeated: int = 0) -> Any:
    result = CheckResult({name: Finding(0) for name in ANOMALIES}, {}, {})
    sink = {name: {"count": 0, "examples": []} for name in ("sink_missing", "sink_aborted")}
    sink["sink_repeated"] = {"count": repeated, "examples": []}
    context = {"faults": faults, "sink": {**sink, "progress": samples}, "workload": []}
    return judge("APP", "app", result, APP_VARIANT.expect, SideRecord.from_json(context), APP_VARIANT.checks)


def test_faults_that_all_missed_the_work_make_the_run_inconclusive_with_the_reason() -> None:
    side = _side([_fault(10.5), _fault(20.0)], SAMPLES)
    assert side_outcome(side) == "inconclusive"
    (reason,) = side.reasons
    assert "no fault hit the app with work in hand" in reason and "after the app had caught up" in reason


def test_one_fault_with_work_in_hand_is_enough_and_the_verdict_says_where_each_hit() -> None:
    side = _side([_fault(10.5), _fault(12.3)], SAMPLES)
    assert side_outcome(side) == "passed"
    (check,) = [c for c in side.checks if c["name"] == FAULT_HIT_WORK.name]
    assert "kill app app-1: before the app had written" in check["detail"] and IN_HAND in check["detail"]


def test_a_violation_beats_a_fault_that_missed() -> None:
    assert side_outcome(_side([_fault(20.0)], SAMPLES, repeated=3)) == "failed"


@pytest.mark.parametrize(("faults", "samples"), [([], SAMPLES), ([_fault(20.0)], None)], ids=["no faults", "no group"])
def test_a_run_without_faults_or_without_a_watched_group_is_not_judged_by_it(
    faults: list[dict[str, Any]], samples: list[dict[str, Any]] | None
) -> None:
    assert side_outcome(_side(faults, samples)) == "passed"
