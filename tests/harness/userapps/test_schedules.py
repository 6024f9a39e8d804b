"""Fault schedules for a user's app: a scenario's carried over to the user's instances (or
refused, saying why), and the JSON file format, every mistake in it one line before anything
starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.faults import (
    INPUT,
    MAIN,
    OUTPUT,
    App,
    Brokers,
    Isr,
    Leader,
    Node,
    Step,
    TransactionalId,
    TxnCoordinator,
    blackhole,
    kill,
    serial,
)
from harness.userapps import schedules
from harness.userapps.output import OutputAtLeast
from harness.userapps.workload import APP_LINKS


def test_b1_kills_the_users_first_instance_at_its_commits_as_it_killed_its_transformer() -> None:
    steps, pipeline = schedules.like("b1", instances=1)
    (step,) = steps
    assert (step.fault.kind.name, step.fault.target, step.fault.params["times"]) == ("crash_at_commit", App("app-1"), 3)
    assert step.fault.listeners == (APP_LINKS,)  # the user's app's own links, where its commits go
    assert (pipeline.inputs, pipeline.partitions) == (4000, 3)


@pytest.mark.parametrize(
    ("scenario", "said"),
    [
        ("B2b", "reads from the harness app.s ledger"),  # waits for BatchUncommitted
        ("A1", "not a consume-transform-produce app"),
        ("Z9", "unknown scenario"),
    ],
)
def test_a_schedule_that_cannot_be_carried_over_is_refused(scenario: str, said: str) -> None:
    with pytest.raises(HarnessError, match=said):
        schedules.like(scenario, instances=2)


def test_the_default_kills_app_1_mid_stream() -> None:
    (step,) = schedules.default(inputs=400)
    assert (step.fault.kind.name, step.fault.target, step.duration_s) == ("kill", App("app-1"), 1.0)
    assert step.when == OutputAtLeast(OUTPUT, 100)


def _file(tmp_path: Path, steps: object) -> Path:
    path = tmp_path / "schedule.json"
    path.write_text(json.dumps({"steps": steps}))
    return path


def test_a_schedule_file_names_roles_the_users_app_and_its_links(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        [
            {"at_s": 0, "fault": "kill", "target": "app-2", "duration_s": 1, "when": {"output_at_least": 50}},
            {"at_s": 2, "fault": "blackhole", "target": "app-links", "duration_s": 5},
            {
                "at_s": 3,
                "fault": "latency",
                "target": {"leader": "input", "partition": 1},
                "params": {"ms": 300},
                "direction": "from_broker",
            },
            {"at_s": 4, "fault": "kill", "target": {"coordinator_of": "app-1"}, "duration_s": 10},
            {"at_s": 5, "fault": "pause", "target": {"broker": 2}, "when": {"isr_at_most": 2}, "when_timeout_s": 9},
        ],
    )
    kill, cut, slow, coordinator, pause = schedules.from_file(path, instances=2)
    assert (kill.fault.target, kill.when) == (App("app-2"), OutputAtLeast(OUTPUT, 50))
    assert (cut.fault.kind.name, cut.fault.target, cut.fault.listeners) == ("blackhole", Brokers(), (APP_LINKS,))
    assert (slow.fault.target, slow.fault.params["latency"], slow.fault.direction) == (
        Leader(INPUT, 1),
        300,
        "from_broker",
    )
    assert slow.fault.listeners == (APP_LINKS,) and slow.duration_s is None  # healed at the end
    assert coordinator.fault.target == TxnCoordinator(TransactionalId("app-1"))
    assert (pause.fault.target, pause.when, pause.when_timeout_s) == (Node(2), Isr(OUTPUT, 0, at_most=2), 9.0)


@pytest.mark.parametrize(
    ("steps", "said"),
    [
        ({"at_s": 1}, "KeyError: 'target'"),
        ({"at_s": 1, "fault": "explode", "target": "app-1"}, "unknown fault 'explode'"),
        ({"at_s": 1, "fault": "kill", "target": "app-3"}, "aims at app-3; with --instances 2 there is no such"),
        ({"at_s": 1, "fault": "kill", "target": "the leader"}, "aims at the leader"),
        ({"at_s": 1, "fault": "latency", "target": "app-links", "params": {"seconds": 3}}, "'seconds'"),
        ({"at_s": 1, "fault": "kill", "target": "app-links"}, "no link fault"),
        ({"at_s": "soon", "fault": "kill", "target": "app-1"}, "could not convert string to float"),
        ({"at_s": 1, "fault": "kill", "target": "app-1", "when": {"sunny": True}}, "condition object"),
        ({"at_s": 1, "fault": "kill", "target": "app-1", "every_s": 3}, "unknown field 'every_s'"),
    ],
)
def test_a_mistake_in_a_schedule_file_is_one_line(tmp_path: Path, steps: dict[str, object], said: str) -> None:
    with pytest.raises(HarnessError, match=said) as caught:
        schedules.from_file(_file(tmp_path, [steps]), instances=2)
    assert "\n" not in str(caught.value) and "step 1" in str(caught.value)


def test_a_file_that_is_no_schedule_is_one_line(tmp_path: Path) -> None:
    for text, said in (("{", "not JSON"), ('{"steps": 3}', '"steps"')):
        (tmp_path / "s.json").write_text(text)
        with pytest.raises(HarnessError, match=said):
            schedules.from_file(tmp_path / "s.json", 1)
    with pytest.raises(HarnessError, match="cannot read it"):
        schedules.from_file(tmp_path / "absent.json", 1)


def test_a_file_in_the_harness_s_own_form_is_taken_as_it_is(tmp_path: Path) -> None:
    """What explore keeps and shrink writes runs under check-app too; so does a schedule/1 file,
    ``{topic}`` the output."""
    kept = (
        Step(0, kill(App("app-1")), duration_s=1, when=OutputAtLeast(OUTPUT, 200), when_timeout_s=30),
        Step(2, blackhole(Leader(MAIN, 0), listener=APP_LINKS), duration_s=3),
    )
    path = tmp_path / "kept.json"
    path.write_text(serial.dumps(kept))
    assert schedules.from_file(path, 1) == kept
    old = serial.to_json(kept) | {"schema": "kafka-eos-harness/schedule/1"}
    old["steps"][1]["target"]["topic"] = "{topic}"
    path.write_text(json.dumps(old))
    assert schedules.from_file(path, 1) == kept
    path.write_text(json.dumps({"schema": serial.SCHEMA, "steps": [{"at_s": 0, "fault": "melt", "target": {}}]}))
    with pytest.raises(HarnessError, match=r"--schedule .*kept.json: step 1"):
        schedules.from_file(path, 1)
    path.write_text(json.dumps({"schema": serial.SCHEMA}))
    with pytest.raises(HarnessError, match=r'expected \{"schema"'):
        schedules.from_file(path, 1)
