"""What an exploration explores: the guarantee side on the client and Kafka version asked for,
over the pair's own pins, without the checks of the pair's own fault."""

from __future__ import annotations

import pytest

import scenarios
from harness.errors import HarnessError
from harness.explore.subject import Subject
from harness.scenario import side_workload
from harness.workloads.clients import JAVA, LIBRDKAFKA


@pytest.mark.parametrize("like", ["B1", "A1", "R3"])
def test_the_client_asked_for_runs_the_explored_side_even_over_a_pin(like: str) -> None:
    scenario = Subject(like, client="librdkafka==2.1.0").scenario()
    workload = side_workload(scenario, scenario.guarantee)
    assert (workload.client, workload.client_version) == (LIBRDKAFKA, "2.1.0")  # type: ignore[attr-defined]


def test_without_a_client_the_pairs_pin_stays() -> None:
    scenario = Subject("R3").scenario()
    assert side_workload(scenario, scenario.guarantee).client_version == "2.1.1"  # type: ignore[attr-defined]


def test_a_client_by_name_alone_is_taken() -> None:
    scenario = Subject("B1", client="java").scenario()
    assert side_workload(scenario, scenario.guarantee).client == JAVA  # type: ignore[attr-defined]


def test_a_release_too_old_is_one_error() -> None:
    with pytest.raises(HarnessError, match="too old"):
        Subject("B1", client="java==0.0.1").scenario()


def test_the_checks_of_the_pairs_own_fault_are_left_out_and_named() -> None:
    subject = Subject("R1", kafka_version="3.5.2")
    assert subject.guarantee().checks == ()
    assert subject.left_out() == [c.name for c in subject.scenario().guarantee.checks]
    assert subject.guarantee().kafka_version == ""  # the exploration's cluster runs the version asked for


def test_allowed_findings_are_allowed_on_the_explored_side_and_kept_through_json() -> None:
    subject = Subject("R1", kafka_version="3.5.2", allowed=("app_fenced",))
    assert subject.guarantee().expect["app_fenced"] == "allowed"
    assert subject.guarantee().expect["aborted_read"] == "forbidden"
    again = Subject.from_json(subject.to_json())
    assert again == subject and "allowing app_fenced" in str(again)


def test_an_unknown_finding_to_allow_is_one_error() -> None:
    with pytest.raises(HarnessError, match="--allow: unknown finding fenced"):
        Subject("R1", allowed=("fenced",))


def test_an_exact_count_of_the_pair_s_own_schedule_is_left_out_but_still_fails_the_pair() -> None:
    """B3's guarantee checks that exactly 20 transactions were aborted: true of its own run, not of
    drawn faults (a restarted producer's open transaction is aborted too)."""
    assert "transactions_aborted == 20" in Subject("B3").left_out()
    [check] = scenarios.get("B3").guarantee.checks
    assert check.of_the_schedule and not check.of_the_fault  # failing in the pair: failed, not inconclusive
