"""The one JSON form of a schedule: every scenario's schedule and every drawn fault round-trip
exactly, parts of the plan stay parts, aliases read as the form they stand for, schedule/1
documents still load, and a mistake says which step."""

from __future__ import annotations

import json
import random

import pytest

import scenarios
from harness.explore import targets
from harness.faults import (
    INPUT,
    MAIN,
    OUTPUT,
    OWN_LINKS,
    App,
    Brokers,
    Committed,
    Isr,
    Leader,
    Node,
    Paused,
    Step,
    TransactionalId,
    TxnCoordinator,
    blackhole,
    kill,
    kinds,
    latency,
    protocol,
    serial,
)
from harness.userapps.output import OutputAtLeast


@pytest.mark.parametrize("scenario_id", list(scenarios.all_scenarios()))
def test_every_scenario_schedule_round_trips(scenario_id: str) -> None:
    steps = scenarios.get(scenario_id).schedule
    assert serial.steps(serial.loads(serial.dumps(steps))) == steps


def test_every_drawable_kind_round_trips() -> None:
    reach = targets.reach(scenarios.get("B1"))
    rng = random.Random(5)
    drawn = [k for k in kinds.registry().values() if k.draw is not None]
    assert {k.name for k in drawn} >= {"latency", "cut", "kill", "stop", "restart", "pause", "protocol"}
    for kind in drawn:
        for _ in range(20):
            assert kind.draw is not None
            step = Step(1.5, kind.draw(rng, reach.faults), 2.0)
            assert serial.steps(serial.loads(serial.dumps([step]))) == (step,)


def test_parts_of_the_plan_are_written_as_such_and_literal_names_as_they_are() -> None:
    steps = [
        Step(0.0, kill(Leader(INPUT, 2)), 1.0, when=Committed("transformer-1", 3)),
        Step(2.0, protocol(TxnCoordinator(TransactionalId("transformer-1")), "EndTxn", "hold", duration_ms=3000), 5.0),
        Step(3.0, kill(Leader("__transaction_state", 4)), 1.0),
    ]
    doc = serial.to_json(steps)
    assert doc["schema"] == "kafka-eos-harness/schedule/2"
    assert doc["steps"][0]["target"] == {"role": "Leader", "topic": {"plan": "input"}, "partition": 2}
    assert doc["steps"][1]["target"]["transactional_id"] == {"plan": "transactional_id", "app": "transformer-1"}
    assert doc["steps"][2]["target"]["topic"] == "__transaction_state"


def test_a_schedule_1_document_with_placeholders_loads_to_the_same_steps() -> None:
    old = {
        "schema": "kafka-eos-harness/schedule/1",
        "steps": [
            {"at_s": 0.0, "fault": "kill", "target": {"role": "Leader", "topic": "{side}-in", "partition": 2}},
            {"at_s": 1.0, "fault": "kill", "target": {"role": "Leader", "topic": "{topic}", "partition": 0}},
            {"at_s": 2.0, "fault": "kill", "target": {"role": "TxnCoordinator", "transactional_id": "{side}-app-2"}},
            {"at_s": 3.0, "fault": "kill", "target": {"role": "TxnCoordinator", "transactional_id": "b9-app-{topic}"}},
        ],
    }
    steps = serial.steps(serial.loads(json.dumps(old)))
    assert [s.fault.target for s in steps] == [
        Leader(INPUT, 2),
        Leader(MAIN, 0),
        TxnCoordinator(TransactionalId("transformer-2")),
        TxnCoordinator(TransactionalId("producer-1")),
    ]


def test_a_schedule_1_name_that_stands_for_no_part_says_how_to_convert() -> None:
    old = {
        "schema": "kafka-eos-harness/schedule/1",
        "steps": [{"at_s": 0, "fault": "kill", "target": {"role": "Leader", "topic": "x-{side}-y"}}],
    }
    with pytest.raises(serial.ScheduleError, match=r"stands for no part of a plan; write the schedule"):
        serial.loads(json.dumps(old))


def test_aliases_parse_to_the_same_steps_as_the_canonical_form() -> None:
    aliased = {
        "steps": [
            {"at_s": 0, "fault": "kill", "target": "app-1", "duration_s": 1, "when": {"output_at_least": 200}},
            {"at_s": 5, "fault": "blackhole", "target": "app-links", "duration_s": 8},
            {"at_s": 3, "fault": "latency", "target": {"leader": "output", "partition": 1}, "params": {"ms": 300}},
            {"at_s": 8, "fault": "kill", "target": {"coordinator_of": "app-1"}, "when": {"paused": "app-2"}},
            {"at_s": 9, "fault": "kill", "target": {"broker": 2}, "when": {"isr_at_most": 1, "topic": "input"}},
            {"at_s": 9, "fault": "latency", "target": "brokers", "listener": "app", "params": {"ms": 5}},
        ]
    }
    canonical = (
        Step(0.0, kill(App("app-1")), 1.0, when=OutputAtLeast(OUTPUT, 200)),
        Step(5.0, blackhole(Brokers(), listener=OWN_LINKS), 8.0),
        Step(3.0, latency(Leader(OUTPUT, 1), 300)),
        Step(8.0, kill(TxnCoordinator(TransactionalId("app-1"))), when=Paused("app-2")),
        Step(9.0, kill(Node(2)), when=Isr(INPUT, 0, at_most=1)),
        Step(9.0, latency(Brokers(), 5, listener=OWN_LINKS)),
    )
    doc = serial.loads(json.dumps(aliased))
    assert serial.steps(doc) == canonical
    assert doc == serial.to_json(canonical)


def test_constructor_arguments_not_toxiproxy_names() -> None:
    doc = serial.to_json([Step(0.0, latency(Leader(OUTPUT), 300, jitter_ms=20, direction="from_broker"), 4.0)])
    step = doc["steps"][0]
    assert step["params"] == {"ms": 300, "jitter_ms": 20, "toxicity": 1.0}
    assert (step["listener"], step["direction"]) == (["client"], "from_broker")


def test_the_same_steps_give_the_same_bytes() -> None:
    assert serial.dumps(scenarios.get("B9").schedule) == serial.dumps(scenarios.get("B9").schedule)


def test_equal_conditions_of_one_schedule_are_one_object() -> None:
    steps = serial.steps(serial.loads(serial.dumps(scenarios.get("D4").schedule)))
    coordinator = next(s for s in steps if s.when is not None)
    assert coordinator.fault.target.seen is coordinator.when  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{", "not JSON"),
        ('{"schema": "kafka-eos-harness/schedule/9", "steps": []}', "expected"),
        (
            '{"steps": [{"at_s": 0, "fault": "melt", "target": {"role": "Brokers"}}]}',
            "step 1: ValueError: unknown fault 'melt'",
        ),
        ('{"steps": [{"at_s": 0, "fault": "kill", "target": {"role": "Boss"}}]}', "unknown role 'Boss'"),
        (
            '{"steps": [{"at_s": 0, "fault": "kill", "target": {"role": "Leader", "topic": {"plan": "side"}}}]}',
            "unknown part of the plan",
        ),
        ('{"steps": [{"at_s": 0, "fault": "kill", "target": "brokers", "every_s": 3}]}', "unknown field 'every_s'"),
        (
            '{"steps": [{"at_s": 0, "fault": "latency", "target": "brokers", "params": {"ms": 5, "colour": 1}}]}',
            "colour",
        ),
    ],
)
def test_a_mistake_says_which_step(text: str, said: str) -> None:
    with pytest.raises(serial.ScheduleError, match=said):
        serial.loads(text)


def test_an_unknown_condition_class_is_refused_when_written() -> None:
    class Sometime:
        def holds(self, faults: object) -> bool:
            return True

    with pytest.raises(ValueError, match=r"serial\.condition"):
        serial.to_json([Step(0.0, kill(App("x")), 1.0, when=Sometime())])  # type: ignore[arg-type]
