"""The scenario file shrink writes: a module like those in scenarios/, loaded by path as
``kafka-harness run FILE`` loads it, running the explored pair under the shrunk schedule."""

from __future__ import annotations

from pathlib import Path

import scenarios
from harness.explore import scenario_file
from harness.explore.kept import Kept
from harness.explore.subject import Subject
from harness.explore.trial import Trial
from harness.faults import MAIN, App, Leader, Step, kill, serial
from harness.verdict.outcome import Outcome
from harness.workloads.pipeline import BatchUncommitted


def _write(tmp_path: Path, steps: list[Step], planted_bug: int = 2) -> Path:
    doc = serial.to_json(steps)
    subject = Subject("B1", planted_bug=planted_bug)
    kept = Kept(tmp_path / "run-003", subject, doc, {"subject": subject.to_json(), "seed": 7, "run": 3})
    proof = Trial(
        tmp_path / "run-003", Outcome.FAILED, ["found 50 eos_missing anomalies, none allowed"], {}, 40.0, 37.0
    )
    return scenario_file.write(tmp_path / scenario_file.name_for(kept), kept, doc, proof)


def test_the_file_runs_the_pair_under_the_shrunk_schedule(tmp_path: Path) -> None:
    steps = [Step(0.0, kill(App("transformer-1")), 1.0, when=BatchUncommitted("transformer-1", after=300))]
    path = _write(tmp_path, steps)
    assert path.name == "b1_explore_7_3.py"
    scenario = scenarios.get(str(path))
    assert scenario.id == "B1-explore-7-3"
    assert scenario.schedule == tuple(steps)
    # B1's sides under another schedule: without the checks that ask B1's own fault to have hit.
    assert scenario.control == scenarios.get("B1").control.under_another_schedule()
    assert scenario.guarantee.workload.bug_offsets_outside_txn_every == 2  # type: ignore[union-attr]
    assert scenario.sides_together  # the steps hit each side's own app only
    assert "kill app transformer-1" in scenario.story and "planted bug" in scenario.story


def test_faults_on_brokers_run_the_sides_one_after_the_other(tmp_path: Path) -> None:
    scenario = scenarios.get(str(_write(tmp_path, [Step(2.0, kill(Leader(MAIN)), 5.0)], planted_bug=0)))
    assert not scenario.sides_together
    assert scenario.guarantee == scenarios.get("B1").guarantee.under_another_schedule()


def test_a_shrunk_pair_leaves_out_the_checks_of_the_explored_pairs_own_fault(tmp_path: Path) -> None:
    doc = serial.to_json([Step(1.0, kill(App("producer-1")), 1.0)])
    subject = Subject("R1", kafka_version="3.5.2")
    kept = Kept(tmp_path / "run-002", subject, doc, {"subject": subject.to_json(), "seed": 1, "run": 2})
    proof = Trial(
        tmp_path / "run-002", Outcome.FAILED, ["found 20 aborted_read anomalies, none allowed"], {}, 20.0, 12.0
    )
    scenario = scenarios.get(str(scenario_file.write(tmp_path / scenario_file.name_for(kept), kept, doc, proof)))
    r1 = scenarios.get("R1")
    assert r1.guarantee.checks and r1.control.checks
    assert scenario.guarantee.checks == () and scenario.control.checks == ()
    assert scenario.guarantee.expect == r1.guarantee.expect


def test_a_shrunk_pair_allows_what_the_exploration_allowed(tmp_path: Path) -> None:
    doc = serial.to_json([Step(1.0, kill(App("transformer-1")), 1.0)])
    subject = Subject("B1", planted_bug=2, allowed=("app_fenced", "client_stuck"))
    kept = Kept(tmp_path / "run-004", subject, doc, {"subject": subject.to_json(), "seed": 7, "run": 4})
    proof = Trial(
        tmp_path / "run-004", Outcome.FAILED, ["found 50 eos_missing anomalies, none allowed"], {}, 40.0, 37.0
    )
    scenario = scenarios.get(str(scenario_file.write(tmp_path / scenario_file.name_for(kept), kept, doc, proof)))
    assert scenario.guarantee.expect == {
        **scenarios.get("B1").guarantee.expect,
        "app_fenced": "allowed",
        "client_stuck": "allowed",
    }
    assert scenario.guarantee.workload.bug_offsets_outside_txn_every == 2  # type: ignore[union-attr]
    assert "--allow app_fenced,client_stuck" in scenario.story
