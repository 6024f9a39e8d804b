"""Schedules drawn from a seed: the same seed gives the same bytes, events stay within their
families, counts and ranges, and a workload explore cannot draw for is refused."""

from __future__ import annotations

import pytest

import scenarios
from harness.errors import HarnessError
from harness.explore import draw, targets
from harness.faults import INPUT, OUTPUT, TransactionalId, kinds, serial
from harness.faults.kinds.base import LINK, PROCESS, PROTOCOL

B1 = targets.reach(scenarios.get("B1"))


def _texts(seed: int, runs: int, reach: targets.Reach = B1, families: tuple[str, ...] = draw.FAMILIES) -> list[str]:
    return [serial.dumps_doc(draw.schedule(seed, n, reach, families)) for n in range(1, runs + 1)]


def test_the_same_seed_draws_the_same_bytes() -> None:
    assert _texts(7, 30) == _texts(7, 30)


def test_another_seed_draws_other_schedules() -> None:
    assert _texts(7, 10) != _texts(8, 10)


def test_a_run_does_not_depend_on_how_many_runs_came_before() -> None:
    assert _texts(7, 40)[:20] == _texts(7, 20)


def test_every_schedule_has_one_to_four_steps_that_read_back() -> None:
    counts = set()
    for text in _texts(3, 60):
        doc = serial.loads(text)
        counts.add(len(doc["steps"]))
        serial.steps(doc)
    assert counts == {1, 2, 3, 4}


def test_only_the_families_asked_for_are_drawn() -> None:
    for text in _texts(11, 40, families=(LINK,)):
        assert {kinds.get(s["fault"]).family for s in serial.loads(text)["steps"]} == {LINK}


def test_all_families_are_drawn_and_triggers_of_each_kind() -> None:
    docs = [serial.loads(t) for t in _texts(1, 80)]
    seen_families = {kinds.get(s["fault"]).family for d in docs for s in d["steps"]}
    assert seen_families == set(draw.FAMILIES)
    seen_triggers = {s["when"]["condition"] if s.get("when") else "time" for d in docs for s in d["steps"]}
    assert seen_triggers == {"time", "AppSent", "BatchUncommitted", "Committed"}


def test_durations_stay_around_the_clients_timeouts() -> None:
    ctx = B1.faults
    longest = max(ctx.transaction_timeout_ms * 1.1, ctx.request_timeout_ms * 1.2, ctx.session_timeout_ms * 1.5) / 1000
    for text in _texts(5, 80):
        for step in serial.loads(text)["steps"]:
            if kinds.get(step["fault"]).instant:
                assert step["duration_s"] is None
                continue
            assert 0.5 <= step["duration_s"] <= longest + 0.1
            if step["fault"] == "pause" and step["target"]["role"] == "App":
                assert step["duration_s"] <= ctx.transaction_timeout_ms * 0.8 / 1000
            assert 0 <= step["at_s"] <= B1.span_s


def test_roles_and_progress_come_from_the_workload() -> None:
    ctx = B1.faults
    assert ctx.transactional_ids == (TransactionalId("transformer-1"),)
    assert {str(a) for a in ctx.apps} == {"app transformer-1"}
    assert (INPUT, 2) in ctx.partitions and (OUTPUT, 0) in ctx.partitions
    producer = targets.reach(scenarios.get("B9"))
    assert producer.faults.transactional_ids == (TransactionalId("producer-1"),)


def test_a_producer_pair_draws_too() -> None:
    for text in _texts(2, 10, reach=targets.reach(scenarios.get("A1"))):
        assert serial.loads(text)["steps"]


def test_process_faults_hit_apps_and_brokers() -> None:
    roles = {s["target"]["role"] for t in _texts(9, 80, families=(PROCESS,)) for s in serial.loads(t)["steps"]}
    assert "App" in roles and roles - {"App"}


def test_protocol_faults_aim_at_the_apis_the_apps_send_where_they_go() -> None:
    r1 = targets.reach(scenarios.get("R1"))  # a transactional producer: no consumer's APIs
    steps = [s for t in _texts(4, 120, reach=r1, families=(PROTOCOL,)) for s in serial.loads(t)["steps"]]
    on_clients = [s for s in steps if s["listener"] == ["client"]]
    assert {s["params"]["api"] for s in on_clients} == set(r1.faults.apis)
    goes_to = {"Produce": "Leader", "EndTxn": "TxnCoordinator", "InitProducerId": "TxnCoordinator"}
    for step in on_clients:
        if wanted := goes_to.get(step["params"]["api"]):
            assert step["target"]["role"] in (wanted, "Brokers")


def test_most_holds_outlast_the_request_timeout() -> None:
    r1 = targets.reach(scenarios.get("R1"))
    timeout = r1.faults.request_timeout_ms
    holds = [
        s["params"]["duration_ms"]
        for t in _texts(6, 200, reach=r1, families=(PROTOCOL,))
        for s in serial.loads(t)["steps"]
        if s["params"]["action"] == "hold"
    ]
    late = [ms for ms in holds if 1.2 * timeout <= ms <= 2.5 * timeout]
    assert len(late) >= len(holds) * 0.6


@pytest.mark.parametrize("names", ["", "weather", "link,weather"])
def test_unknown_families_are_refused(names: str) -> None:
    with pytest.raises(HarnessError, match="--faults"):
        draw.families(names)


def test_a_spark_pair_is_refused() -> None:
    with pytest.raises(HarnessError, match="SparkWorkload"):
        targets.reach(scenarios.get("C1"))
