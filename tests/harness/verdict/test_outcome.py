"""``Outcome``: each one's exit status, and how outcomes combine (a violation wins, then unknown)."""

from __future__ import annotations

import json

import pytest

from harness.verdict.outcome import Outcome


@pytest.mark.parametrize(
    ("outcome", "code"),
    [
        (Outcome.PASSED, 0),
        (Outcome.REPORTED, 0),
        (Outcome.FAILED, 1),
        (Outcome.INCONCLUSIVE, 3),
        (Outcome.UNKNOWN, 3),
    ],
)
def test_each_outcome_has_its_exit_status(outcome: Outcome, code: int) -> None:
    assert outcome.exit_code == code


def test_a_violation_beats_unknown_which_beats_inconclusive_which_beats_a_pass() -> None:
    assert Outcome.worst([Outcome.PASSED, Outcome.UNKNOWN, Outcome.FAILED, Outcome.INCONCLUSIVE]) == Outcome.FAILED
    assert Outcome.worst([Outcome.INCONCLUSIVE, Outcome.UNKNOWN, Outcome.PASSED]) == Outcome.UNKNOWN
    assert Outcome.worst([Outcome.REPORTED, Outcome.INCONCLUSIVE]) == Outcome.INCONCLUSIVE
    assert Outcome.worst([Outcome.PASSED, Outcome.REPORTED]) == Outcome.REPORTED
    assert Outcome.worst([]) == Outcome.PASSED


def test_json_holds_the_outcome_s_string_as_before() -> None:
    assert json.dumps({"verdict": Outcome.UNKNOWN}) == '{"verdict": "unknown"}'
    assert Outcome("inconclusive") is Outcome.INCONCLUSIVE
