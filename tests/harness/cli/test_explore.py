"""``explore``, ``replay`` and ``shrink`` on bad input: one line on stderr, exit 2, before any
container starts; ``--dry-run`` prints the same bytes for the same seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.harness.cli.test_main import harness, one_line_error


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("explore", "--like", "C1", "--dry-run"), "SparkWorkload"),
        (("explore", "--like", "Z9", "--dry-run"), "unknown scenario"),
        (("explore", "--like", "B1", "--faults", "weather", "--dry-run"), "--faults"),
        (("explore", "--like", "B1", "--runs", "0", "--dry-run"), "--runs"),
        (("explore", "--like", "B1", "--first-run", "0", "--dry-run"), "--first-run"),
        (("explore", "--like", "A1", "--planted-bug", "2", "--dry-run"), "planted-bug"),
    ],
)
def test_explore_refuses_bad_input_in_one_line(args: tuple[str, ...], said: str) -> None:
    assert said in one_line_error(harness(*args))


def test_dry_run_prints_the_same_schedules_for_the_same_seed() -> None:
    first = harness("explore", "--like", "B1", "--seed", "7", "--runs", "5", "--dry-run")
    again = harness("explore", "--like", "B1", "--seed", "7", "--runs", "5", "--dry-run")
    assert first.returncode == 0 and first.stdout == again.stdout
    shown = json.loads(first.stdout)
    assert len(shown["schedules"]) == 5 and shown["seed"] == 7


def test_a_run_range_draws_what_the_whole_exploration_draws_for_those_runs() -> None:
    """Machines given runs 1-3 and 4-5 of one seed run the schedules one machine's runs 1-5 would."""
    whole = json.loads(harness("explore", "--like", "B1", "--seed", "7", "--runs", "5", "--dry-run").stdout)
    head = json.loads(harness("explore", "--like", "B1", "--seed", "7", "--runs", "3", "--dry-run").stdout)
    tail = harness("explore", "--like", "B1", "--seed", "7", "--runs", "2", "--first-run", "4", "--dry-run")
    shown = json.loads(tail.stdout)
    assert shown["first_run"] == 4
    assert head["schedules"] + shown["schedules"] == whole["schedules"]


def test_replay_and_shrink_want_a_run_folder_of_explore(tmp_path: Path) -> None:
    for command in ("replay", "shrink"):
        assert "not a run folder of explore" in one_line_error(harness(command, str(tmp_path)))


def test_shrink_wants_a_failing_run(tmp_path: Path) -> None:
    (tmp_path / "schedule.json").write_text(json.dumps({"schema": "kafka-eos-harness/schedule/1", "steps": []}))
    run = {"subject": {"like": "B1"}, "seed": 1, "run": 1, "outcome": "passed"}
    (tmp_path / "run.json").write_text(json.dumps(run))
    assert "did not fail" in one_line_error(harness("shrink", str(tmp_path)))
