"""Which runs fail: a side that does not hold, or an app error the pair does not allow; a run
whose only trouble is a fault step that did not happen is inconclusive."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.explore import trial
from harness.verdict.document import FAULT_ERROR
from harness.verdict.outcome import Outcome
from harness.verdict.record import SideRecord


@dataclass
class Side:
    """What ``trial.judged`` reads of a side's verdict."""

    reasons: list[str] = field(default_factory=list)
    expect: dict[str, str] = field(default_factory=dict)
    found: dict[str, int] = field(default_factory=dict)
    record: SideRecord = field(default_factory=SideRecord)
    checks: list[dict[str, Any]] = field(default_factory=list)

    def count(self, name: str) -> int:
        return self.found.get(name, 0)


def _judged(side: Side) -> tuple[Outcome, list[str]]:
    return trial.judged(side)  # type: ignore[arg-type]


def test_a_clean_side_passes() -> None:
    assert _judged(Side()) == (Outcome.PASSED, [])


def test_a_broken_expectation_fails() -> None:
    assert _judged(Side(["found 50 eos_missing anomalies, none allowed"])) == (
        Outcome.FAILED,
        ["found 50 eos_missing anomalies, none allowed"],
    )


def test_a_fault_that_did_not_happen_is_inconclusive_unless_something_else_broke() -> None:
    skipped = f"{FAULT_ERROR}at 70s, kill app transformer-1: TimeoutError: ..."
    assert _judged(Side([skipped])) == (Outcome.INCONCLUSIVE, [skipped])
    assert _judged(Side([skipped, "found 3 duplicate anomalies, none allowed"]))[0] == Outcome.FAILED


def test_a_stuck_or_fatally_stopped_app_fails_unless_the_pair_names_it() -> None:
    outcome, reasons = _judged(Side(found={"client_stuck": 1}))
    assert outcome == Outcome.FAILED and reasons[0].startswith("1 client_stuck")
    assert _judged(Side(found={"app_fenced": 1}, expect={"app_fenced": "allowed"})) == (Outcome.PASSED, [])


def test_an_app_errors_reason_says_what_the_app_said() -> None:
    stopped = {"error": "INVALID_TXN_STATE", "message": "Failed to end transaction"}
    lives = [
        {"app": "producer-1", "incarnation": 1, "exit": 3, "fenced": stopped},
        {
            "app": "transformer-1",
            "incarnation": 1,
            "exit": 4,
            "stuck": {"call": "commit", "timeout_s": 30, "waited_s": 45},
        },
    ]
    _, reasons = _judged(Side(found={"app_fenced": 1, "client_stuck": 1}, record=SideRecord(workload=lives)))
    assert reasons[0].startswith("1 client_stuck") and reasons[0].endswith(
        "; transformer-1#1: commit waited 45 s of 30 s"
    )
    assert reasons[1].endswith("; producer-1#1: INVALID_TXN_STATE Failed to end transaction")


def test_what_fired_is_said_with_its_role_resolved_and_its_times() -> None:
    faults = [
        {"fault": "kill", "target": "leader of t-in-2", "brokers": [2], "instant": False},
        {"fault": "kill", "target": "app transformer-1", "brokers": [], "instant": False},
        {"fault": "elect_preferred", "target": "replicas of t-in-0", "brokers": [1, 2, 3], "instant": True},
    ]
    for f, (at, healed) in zip(faults, ((12.0, 14.5), (20.0, None), (30.0, 30.0)), strict=True):
        f.update(injected_at=1000.0 + at, healed_at=None if healed is None else 1000.0 + healed)
    side = Side(record=SideRecord(started_at=1000.0, faults=faults))
    assert trial.fired(side) == [  # type: ignore[arg-type]
        "kill of leader of t-in-2 -> brokers [2] at 12.0 s, healed at 14.5 s",
        "kill of app transformer-1 at 20.0 s",
        "elect_preferred of replicas of t-in-0 -> brokers [1, 2, 3] at 30.0 s",
    ]


def test_a_crashed_app_fails_a_killed_one_does_not() -> None:
    lives = [
        {"app": "transformer-1", "incarnation": 1, "exit": -9},
        {"app": "transformer-1", "incarnation": 2, "exit": 0},
    ]
    assert _judged(Side(record=SideRecord(workload=lives)))[0] == Outcome.PASSED
    lives.append({"app": "transformer-1", "incarnation": 3, "exit": 1})
    assert _judged(Side(record=SideRecord(workload=lives))) == (
        Outcome.FAILED,
        ["transformer-1#3 crashed: exit status 1"],
    )


def test_a_stopped_jvm_and_an_app_refused_at_setup_are_not_crashes() -> None:
    """A Java app sent SIGTERM by a stop fault exits 143 (the JVM's 128 + 15), a Python app -15;
    an app refused at setup exits 2 with the error in its report (its own finding)."""
    lives = [
        {"app": "transformer-1", "incarnation": 1, "exit": 143},
        {"app": "producer-1", "incarnation": 1, "exit": 2, "setup_error": {"error": "_TIMED_OUT"}},
        {"app": "transformer-1", "incarnation": 2, "exit": 0},
    ]
    assert _judged(Side(record=SideRecord(workload=lives)))[0] == Outcome.PASSED


def test_a_checker_that_raised_or_a_check_that_cannot_tell_is_unknown_never_failed() -> None:
    raised = "unknown: the checker raised RuntimeError: forced by the test"
    assert _judged(Side([raised])) == (Outcome.UNKNOWN, [raised])
    cannot = {"name": "exits", "why": "why", "ok": False, "seen": "cannot tell: IndexError x", "unknown": True}
    said = "check failed: exits: cannot tell: IndexError x (why)"
    assert _judged(Side([said], checks=[cannot])) == (Outcome.UNKNOWN, [said])
    broken = "found 3 duplicate anomalies, none allowed"
    assert _judged(Side([raised, broken])) == (Outcome.FAILED, [broken])  # a violation still wins
