"""The one JSON form of a schedule: every scenario's schedule and every drawn fault round-trip
exactly, names of a run become placeholders, and a mistake says which step."""

from __future__ import annotations

import random

import pytest

import scenarios
from harness.explore import targets
from harness.faults import App, Committed, Leader, Step, TxnCoordinator, kill, kinds, serial
from harness.faults.kinds.protocol import protocol

TOPIC = "b1-guarantee-abc123-out"


@pytest.mark.parametrize("scenario_id", list(scenarios.all_scenarios()))
def test_every_scenario_schedule_round_trips(scenario_id: str) -> None:
    topic = f"{scenario_id.lower()}-guarantee-abc123-out"
    steps = scenarios.get(scenario_id).schedule(topic)
    assert serial.steps(serial.loads(serial.dumps(steps, topic)), topic) == steps


def test_every_drawable_kind_round_trips() -> None:
    reach = targets.reach(scenarios.get("B1"))
    rng = random.Random(5)
    drawn = [k for k in kinds.registry().values() if k.draw is not None]
    assert {k.name for k in drawn} >= {"latency", "cut", "kill", "stop", "restart", "pause", "protocol"}
    for kind in drawn:
        for _ in range(20):
            assert kind.draw is not None
            step = Step(1.5, kind.draw(rng, reach.faults), 2.0)
            text = serial.dumps([step], None)
            assert serial.steps(serial.loads(text), None) == [step]


def test_names_of_the_run_become_placeholders_and_come_back_for_another() -> None:
    steps = [
        Step(0.0, kill(Leader("b1-guarantee-abc123-in", 2)), 1.0, when=Committed("transformer-1", 3)),
        Step(2.0, protocol(TxnCoordinator("b1-guarantee-abc123-app-1"), "EndTxn", "hold", duration_ms=3000), 5.0),
    ]
    doc = serial.to_json(steps, TOPIC)
    assert doc["steps"][0]["target"] == {"role": "Leader", "topic": "{side}-in", "partition": 2}
    assert doc["steps"][1]["target"]["transactional_id"] == "{side}-app-1"
    other = serial.steps(doc, "b1-guarantee-ffffff-out")
    assert other[0].fault.target == Leader("b1-guarantee-ffffff-in", 2)


def test_constructor_arguments_not_toxiproxy_names() -> None:
    from harness.faults import latency

    doc = serial.to_json([Step(0.0, latency(Leader(TOPIC), 300, jitter_ms=20, direction="from_broker"), 4.0)], TOPIC)
    step = doc["steps"][0]
    assert step["params"] == {"ms": 300, "jitter_ms": 20, "toxicity": 1.0}
    assert (step["listener"], step["direction"]) == (["client"], "from_broker")


def test_the_same_steps_give_the_same_bytes() -> None:
    steps = scenarios.get("B9").schedule(TOPIC)
    assert serial.dumps(steps, TOPIC) == serial.dumps(scenarios.get("B9").schedule(TOPIC), TOPIC)


def test_equal_conditions_of_one_schedule_are_one_object() -> None:
    topic = "d4-guarantee-abc-out"
    steps = serial.steps(serial.loads(serial.dumps(scenarios.get("D4").schedule(topic), topic)), topic)
    coordinator = next(s for s in steps if s.when is not None)
    assert coordinator.fault.target.seen is coordinator.when  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{", "not JSON"),
        ('{"steps": []}', "expected"),
        (
            '{"schema": "kafka-eos-harness/schedule/1", "steps": [{"at_s": 0, "fault": "melt", '
            '"target": {"role": "Brokers"}}]}',
            "step 1: ValueError: unknown fault 'melt'",
        ),
        (
            '{"schema": "kafka-eos-harness/schedule/1", "steps": [{"at_s": 0, "fault": "kill", '
            '"target": {"role": "Boss"}}]}',
            "unknown role 'Boss'",
        ),
        (
            '{"schema": "kafka-eos-harness/schedule/1", "steps": [{"at_s": 0, "fault": "latency", '
            '"target": {"role": "Brokers"}, "params": {"ms": 5, "colour": 1}}]}',
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
        serial.to_json([Step(0.0, kill(App("x")), 1.0, when=Sometime())], TOPIC)  # type: ignore[arg-type]
