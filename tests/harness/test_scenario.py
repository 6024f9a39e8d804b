"""A scenario side's pins (Kafka version, client release) and how ``--client`` meets them."""

from __future__ import annotations

from dataclasses import replace

import pytest

import scenarios
from harness.errors import HarnessError
from harness.scenario import Variant, on_client, side_workload
from harness.workloads.clients import JAVA, LIBRDKAFKA, ClientSpec


def test_a_side_pins_its_client_and_keeps_it_against_the_command_line() -> None:
    a1 = scenarios.get("A1")
    pinned = replace(a1, control=replace(a1.control, client="librdkafka==2.1.0"))
    assert (side_workload(pinned, pinned.control).client, side_workload(pinned, pinned.control).client_version) == (  # type: ignore[attr-defined]
        LIBRDKAFKA,
        "2.1.0",
    )
    on_java = on_client(pinned, ClientSpec(JAVA, "3.7.1"))
    control, guarantee = side_workload(on_java, on_java.control), side_workload(on_java, on_java.guarantee)
    assert (control.client, control.client_version) == (LIBRDKAFKA, "2.1.0")  # type: ignore[attr-defined]
    assert (guarantee.client, guarantee.client_version) == (JAVA, "3.7.1")  # type: ignore[attr-defined]


def test_the_command_line_client_reaches_every_side_that_pins_none() -> None:
    b1 = on_client(scenarios.get("B1"), ClientSpec(JAVA))
    assert {side_workload(b1, v).client for v in (b1.control, b1.guarantee)} == {JAVA}  # type: ignore[attr-defined]
    d1 = on_client(scenarios.get("D1"), ClientSpec(JAVA, "3.4.0"))  # a Streams app: kafka-streams' release
    assert {side_workload(d1, v).client_version for v in (d1.control, d1.guarantee)} == {"3.4.0"}  # type: ignore[attr-defined]
    with pytest.raises(HarnessError, match="scenario D1 control runs a StreamsWorkload, which runs only on java"):
        on_client(scenarios.get("D1"), ClientSpec(LIBRDKAFKA))


@pytest.mark.parametrize(
    ("pins", "said"),
    [
        ({"client": "librdkafka==2.1"}, "control: confluent-kafka (librdkafka) version '2.1' is not a release"),
        ({"client": "kafka"}, "control: unknown client 'kafka'"),
        ({"kafka_version": "3.2.0"}, "control: Kafka 3.2.0 is too old: 3.3.0 or newer"),
    ],
)
def test_a_malformed_pin_fails_when_the_scenario_module_is_imported(pins: dict[str, str], said: str) -> None:
    with pytest.raises(ValueError) as refused:
        Variant("control", {}, expect={}, **pins)
    assert said in str(refused.value)


def test_a_pin_the_sides_workload_cannot_take_fails_when_the_scenario_is_made() -> None:
    d1 = scenarios.get("D1")
    with pytest.raises(ValueError, match="scenario D1 guarantee runs a StreamsWorkload, which runs only on java"):
        replace(d1, guarantee=replace(d1.guarantee, client="librdkafka==2.1.0"))


def test_under_another_schedule_a_side_keeps_its_promises_but_not_the_checks_of_its_own_fault() -> None:
    r1, r5 = scenarios.get("R1"), scenarios.get("R5")
    assert [c.name for c in r1.guarantee.checks] and not r1.guarantee.under_another_schedule().checks
    kept = [c.name for c in r5.guarantee.under_another_schedule().checks]
    assert kept == ["producer-1 never told INVALID_TXN_STATE"]  # "was told" was the fault's doing
    assert r5.guarantee.under_another_schedule().expect == r5.guarantee.expect
