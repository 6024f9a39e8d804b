"""What every workload kind implements (``Workload``), what the runner gives it (``SideSetup``), and
what it hands back (``Plan``).

A workload is scenario data (a frozen dataclass: how many records, which mode, which
client) that knows how to plan one side of a pair: create its topics, fill an input,
register its app processes, and say what to read back and check. The runner then runs the
same loop for every kind: up -> plan -> apps + fault schedule -> heal -> read back ->
check -> judge. A new kind of workload is a new module here with a dataclass whose
``plan`` returns a ``Plan``; the runner does not change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from harness.faults.plan import RunNames

if TYPE_CHECKING:
    from harness.cluster.kafka import KafkaCluster
    from harness.history.columns import History
    from harness.workloads.process import AppProcess


@dataclass(frozen=True)
class SideSetup:
    """One side of a pair, as the runner hands it to a workload's ``plan``."""

    cluster: KafkaCluster
    run_dir: Path  # everything the side leaves goes here
    name: str  # unique per side and run: prefixes its topics, groups and transactional.ids
    topic_config: dict[str, str]  # the scenario's topic settings with the side's over them
    client_config: dict[str, Any]  # the client configuration under test (the variant's)
    own_links: str  # the client listener of apps that have links of their own


class SinkCheck(Protocol):
    """Effects a workload leaves outside the ledgers (rows in a database, records of a Spark
    job's output topic), turned into the verdict's ``sink`` section."""

    def collect(self, cluster: KafkaCluster) -> None:
        """Save whatever must be fetched from the cluster before it goes (an output topic's
        read-back) into the run folder."""

    def findings(self, history: History, max_examples: int) -> dict[str, Any]:
        """The ``sink`` section, from the run folder and the history alone."""


@dataclass
class Plan:
    """What one side runs and how it is read back and checked."""

    apps: list[AppProcess]  # fault targets, by name
    autostart: list[AppProcess]  # started with the schedule; the others by a ``launch`` step
    topics: list[str]  # read back after healing
    # What the run calls the parts of its plan a schedule names (its topics, each app's
    # transactional.id and group): the workload's naming rule, said once.
    names: RunNames
    partitions: int  # of the main topic
    config: dict[str, Any]  # the client configuration under test, as the verdict shows it
    budget_s: float  # how long the apps may take before they are killed
    eos_pairs: tuple[tuple[str, str], ...] = ()  # (input topic, output topic) of transform apps
    prefix_ledgers: list[Path] = field(default_factory=list)  # written before the faulted run (an input)
    transactional_ids: list[str] = field(default_factory=list)  # what a side's ACLs name
    sink: SinkCheck | None = None
    client: str = "librdkafka"  # the apps' client (harness.workloads.clients)
    client_version: str = ""  # the release its apps were given (confluent-kafka, kafka-clients, kafka-streams)
    client_requested: str = ""  # the release the workload asked for; "": the default
    client_package: str = "confluent-kafka"  # what client_version is the release of
    # Names among ``apps`` that are the harness's own (a live input's writer): the release their
    # client ran is not the apps' (the verdict's ``client_ran``).
    helpers: tuple[str, ...] = ()

    @property
    def main_topic(self) -> str:
        """What the LSO probe watches (the schedule's ``MAIN``)."""
        return self.names.topics["main"]


class Workload(Protocol):
    def plan(self, side: SideSetup) -> Plan: ...
