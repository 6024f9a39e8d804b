"""Binding a schedule to one run: parts of the plan become the run's names, literal names stay,
conditions start afresh and stay shared, and roles resolve against the bound names."""

from __future__ import annotations

from typing import Any, ClassVar, cast

import pytest

import scenarios
from harness.faults import INPUT, MAIN, GroupId, Leader, RunNames, Step, TransactionalId, TxnCoordinator, kill, protocol
from harness.faults.plan import bind
from harness.faults.roles import GroupCoordinator, java_hash

NAMES = RunNames(
    {"main": "r-out", "input": "r-in", "output": "r-out"},
    transactional_ids={"transformer-1": "r-app-1"},
    groups={"transformer-1": "r-group"},
)


class FakeCluster:
    broker_settings: ClassVar[dict[str, str]] = {
        "transaction.state.log.num.partitions": "50",
        "offsets.topic.num.partitions": "50",
    }

    def __init__(self) -> None:
        self.asked: list[tuple[str, int]] = []

    def wait_for_leader(self, topic: str, partition: int, timeout_s: float) -> int:
        self.asked.append((topic, partition))
        return 2


def test_parts_become_the_run_s_names_and_literal_names_stay() -> None:
    steps = (
        Step(0.0, kill(Leader(INPUT, 1))),
        Step(
            1.0,
            protocol(
                Leader("__consumer_offsets"),
                "Produce",
                "hold",
                duration_ms=5,
                transactional_id=TransactionalId("transformer-1"),
            ),
        ),
    )
    bound = bind(steps, NAMES)
    assert bound[0].fault.target == Leader("r-in", 1)
    assert bound[1].fault.target == Leader("__consumer_offsets")
    assert bound[1].fault.params["transactional_id"] == "r-app-1"
    # A fault's kind is no data to bind: the same object, which conditions compare by identity.
    assert [s.fault.kind for s in bound] == [s.fault.kind for s in steps]
    assert bound[0].fault.kind is steps[0].fault.kind


def test_roles_resolve_against_the_bound_names() -> None:
    cluster = FakeCluster()
    txn, group = bind(
        (TxnCoordinator(TransactionalId("transformer-1")), GroupCoordinator(GroupId("transformer-1"))), NAMES
    )
    assert txn.resolve(cast(Any, cluster)) == [2] and group.resolve(cast(Any, cluster)) == [2]
    assert cluster.asked == [
        ("__transaction_state", java_hash("r-app-1") % 50),
        ("__consumer_offsets", java_hash("r-group") % 50),
    ]
    with pytest.raises(TypeError, match="bind the schedule"):
        Leader(MAIN).resolve(cast(Any, cluster))


def test_a_part_the_plan_lacks_says_what_it_has() -> None:
    with pytest.raises(ValueError, match=r"no transactional\.id 'producer-1'; it has transformer-1"):
        bind(TxnCoordinator(TransactionalId("producer-1")), NAMES)
    with pytest.raises(ValueError, match="outside one"):
        bind(Leader(MAIN), None)


def test_conditions_start_afresh_each_run_and_stay_shared_within_it() -> None:
    d4 = scenarios.get("D4").schedule
    first, second = bind(d4, NAMES), bind(d4, NAMES)
    step = next(s for s in first if s.when is not None)
    assert step.fault.target.seen is step.when  # type: ignore[union-attr]
    assert step.when is not next(s for s in second if s.when is not None).when
    assert first == second
