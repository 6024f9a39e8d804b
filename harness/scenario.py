"""Scenarios as data: the story, the workload, the fault schedule, and two variants.

A scenario module in ``scenarios/`` defines ``SCENARIO = Scenario(...)``; the registry
there (``scenarios.get``) finds it by its id (``A1``), so the CLI and the tests share one
list.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from harness import versions
from harness.checker import catalogue
from harness.cluster.security import Grant
from harness.errors import HarnessError
from harness.faults import Step
from harness.verdict.checks import Check
from harness.verdict.document import RULES
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
    # The side's own client, pinned: "librdkafka==2.1.0", "java==3.7.1" (a ClientSpec of
    # harness.workloads.clients). Its apps run on it whatever ``--client`` says, which then
    # chooses for the sides that pin nothing; the verdict records the pin (``client_pin``).
    client: str = ""
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
        try:
            if self.kafka_version:
                versions.kafka(self.kafka_version)
            if self.client:
                clients.ClientSpec.parse(self.client)
        except HarnessError as exc:
            raise ValueError(f"{self.name}: {exc}") from exc

    def under_another_schedule(self) -> Variant:
        """The side under a schedule other than its pair's own (explore's, a shrunk one): without
        the checks that ask the pair's own fault to have done its part."""
        return replace(self, checks=tuple(c for c in self.checks if not (c.of_the_fault or c.of_the_schedule)))


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    story: str
    workload: Workload
    # Plain data: its roles and conditions name the parts of the plan (harness.faults.plan),
    # bound to each run's names when its schedule starts.
    schedule: tuple[Step, ...]
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

    def __post_init__(self) -> None:
        # A pin the side's workload cannot take fails when the scenario is imported.
        for variant in (self.control, self.guarantee):
            try:
                side_workload(self, variant)
            except HarnessError as exc:
                raise ValueError(str(exc)) from exc


def side_workload(scenario: Scenario, variant: Variant) -> Workload:
    """The workload ``variant`` runs: its own or the scenario's, on the side's pinned client if it
    pins one."""
    workload = variant.workload or scenario.workload
    if not variant.client:
        return workload
    return clients.on(workload, clients.ClientSpec.parse(variant.client), f"scenario {scenario.id} {variant.name}")


def on_client(scenario: Scenario, client: clients.ClientSpec) -> Scenario:
    """``scenario`` with the apps of every side that pins no client of its own on ``client``
    (``--client``); a workload that offers no choice of client, or not this one, refuses it."""

    def moved(variant: Variant) -> Variant:
        if variant.client:
            return variant
        workload = variant.workload or scenario.workload
        return replace(variant, workload=clients.on(workload, client, f"scenario {scenario.id} {variant.name}"))

    return replace(scenario, control=moved(scenario.control), guarantee=moved(scenario.guarantee))
