"""Scenarios as data: the story, the workload, the fault schedule, and two variants.

A scenario module in ``scenarios/`` defines ``SCENARIO = Scenario(...)``; the registry
there (``scenarios.get``) finds it by its id (``A1``), so the CLI and the tests share one
list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from harness.checker import catalogue
from harness.cluster.security import Grant
from harness.errors import HarnessError
from harness.faults import Step
from harness.verdict.checks import Check
from harness.verdict.judge import RULES
from harness.workloads import clients
from harness.workloads.base import Workload


@dataclass(frozen=True)
class Variant:
    """One side of a pair: a configuration change and what must then be observed."""

    name: str
    config: dict[str, Any]  # the client configuration under test, over the workload's
    expect: dict[str, str]
    consumer_view: str = "read_committed"  # the isolation level the scenario's consumers read with
    # The scenario's consumer is assigned only these partitions of the main topic (empty: all).
    read_partitions: tuple[int, ...] = ()
    topic_config: dict[str, str] = field(default_factory=dict)  # over the scenario's
    # The side's own workload, e.g. ``replace(scenario_workload, mode="plain")`` or an app
    # bug; None: the scenario's.
    workload: Workload | None = None
    # A cluster of its own for this side: other broker settings, another Kafka version, or
    # client listeners with another security protocol (harness.cluster.security). Both sides asking
    # for the same one share it.
    broker_settings: dict[str, str] = field(default_factory=dict)
    kafka_version: str = ""
    client_security: str = ""
    # ACLs created before the apps start (a secured cluster only): who may do what to the
    # run's topics and its producer's transactional.id.
    acls: tuple[Grant, ...] = ()
    # Conditions beyond the finding counts, each with its reason (harness.verdict.checks):
    # judged like the expectations, by the CLI and the tests alike.
    checks: tuple[Check, ...] = ()

    def __post_init__(self) -> None:
        # A misspelt finding or rule in a scenario file fails when it is imported, not as a
        # silently unjudged expectation.
        for name, rule in self.expect.items():
            if name not in catalogue.BY_NAME:
                raise ValueError(f"{self.name}: unknown finding {name!r}; one of {', '.join(catalogue.NAMES)}")
            if rule not in RULES:
                raise ValueError(f"{self.name}: {name}: unknown expectation {rule!r}; one of {', '.join(RULES)}")


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    story: str
    workload: Workload
    # Built per run because roles name the run's fresh topic (a pipeline's output topic).
    schedule: Callable[[str], list[Step]]
    control: Variant
    guarantee: Variant
    topic_config: dict[str, str] = field(default_factory=dict)
    # A research scenario makes no pass/fail claim: both sides run and the checker's
    # findings are reported (pair outcome "reported").
    research: bool = False
    # Both sides at once, each with its own topics, apps, fault schedule and own-link
    # listener (on one cluster, or each on the cluster it asks for): for sides that cannot
    # disturb each other (no faults, or faults on their own apps or own links). Faults on
    # brokers or on the shared "client" links would hit both, so such pairs run one side
    # after the other.
    sides_together: bool = False


def on_client(scenario: Scenario, client: str) -> Scenario:
    """``scenario`` with the apps of both sides on ``client`` (harness.workloads.clients), for
    the workloads that run on a choice of clients; the others refuse it."""
    clients.check(client)

    def moved(w: Workload | None) -> Workload | None:
        if w is None:
            return None
        if "client" not in {f.name for f in fields(w)}:  # type: ignore[arg-type]
            raise HarnessError(
                f"scenario {scenario.id} runs a {type(w).__name__}, whose client is not a choice; "
                f"--client applies to the producer and pipeline scenarios"
            )
        return replace(w, client=client)  # type: ignore[type-var]

    return replace(
        scenario,
        workload=moved(scenario.workload),
        control=replace(scenario.control, workload=moved(scenario.control.workload)),
        guarantee=replace(scenario.guarantee, workload=moved(scenario.guarantee.workload)),
    )
