"""Scenarios as data: the story, the workload, the fault schedule, and two variants.

A scenario module in ``scenarios/`` defines ``SCENARIO = Scenario(...)``; the registry
finds it by its id (``A1``) so the CLI and the tests share one list.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.errors import HarnessError
from harness.faults import Step
from harness.security import Grant

PRODUCER = "producer-1"  # the scenario's producer app: fault target ``App(PRODUCER)``, ledger file stem
HIJACKER = "hijacker"  # a ``ProducerWorkload.hijacker``: fault target ``App(HIJACKER)``, ledger file stem


def transformer(i: int) -> str:
    """Name of a pipeline's i-th transformer app (from 1): fault target and ledger file stem."""
    return f"transformer-{i}"


@dataclass(frozen=True)
class Variant:
    """One side of a pair: a configuration change and what must then be observed."""

    name: str
    producer_config: dict[str, Any]
    expect: dict[str, str]
    consumer_view: str = "read_committed"  # the isolation level the scenario's consumers read with
    # The scenario's consumer is assigned only these partitions of the main topic (empty: all).
    read_partitions: tuple[int, ...] = ()
    topic_config: dict[str, str] = field(default_factory=dict)  # over the scenario's
    app: dict[str, Any] = field(default_factory=dict)  # over the workload's fields, e.g. an app bug
    # A cluster of its own for this side: other broker settings, another Kafka version, or
    # client listeners with another security protocol (harness.security). Both sides asking
    # for the same one share it.
    broker_settings: dict[str, str] = field(default_factory=dict)
    kafka_version: str = ""
    client_security: str = ""
    # ACLs created before the apps start (a secured cluster only): who may do what to the
    # run's topics and its producer's transactional.id.
    acls: tuple[Grant, ...] = ()


@dataclass(frozen=True)
class Hijacker:
    """A foreign producer app (``HIJACKER``) with the scenario producer's transactional.id,
    started by a ``launch`` step: its ``init_transactions`` takes the id over (fencing the
    producer) unless an ACL stops it; then it sends ``count`` records."""

    user: str  # its SASL login on a secured cluster (config.SASL_USERS)
    count: int = 0


@dataclass(frozen=True)
class ProducerWorkload:
    count: int = 2000
    rate_per_s: float = 200.0
    value_bytes: int = 100
    keys: int = 0
    config: dict[str, Any] = field(default_factory=dict)  # shared by both variants
    txn_size: int = 10  # used when the config has a transactional.id
    abort_every: int = 0
    duplicate_every: int = 0  # an application bug: produce() every n-th record twice
    user: str = ""  # the producer's SASL login on a secured cluster; "": the harness's own
    hijacker: Hijacker | None = None


@dataclass(frozen=True)
class PipelineWorkload:
    """Consume-transform-produce: the input topic is filled first (by an idempotent producer,
    no faults), then transformer apps in one consumer group turn it into the output topic.

    The schedule gets the output topic; apps are ``transformer(1)``, ``transformer(2)`` ….
    """

    inputs: int = 2000
    partitions: int = 3  # of the input topic and of the output topic
    mode: str = "transactional"  # or "plain" (harness.workloads.transformer)
    instances: int = 1  # transformer apps started at once
    # Apps registered but started only by a ``launch`` step: a replacement instance.
    standby: int = 0
    # True: every instance has the same transactional.id (a replacement fences the
    # original by id); False: one id each, fenced through the group metadata (KIP-447).
    shared_transactional_id: bool = False
    batch_size: int = 50
    pause_before_commit_ms: int = 0
    abort_every: int = 0
    producer_config: dict[str, Any] = field(default_factory=dict)
    consumer_config: dict[str, Any] = field(default_factory=dict)
    # Apps (by number) that reach the brokers through links of their own, so a link fault
    # on them (target Brokers(), listener=harness.faults.OWN_LINKS) hits them and nobody else.
    own_links: tuple[int, ...] = ()
    # "kafka": outputs go to the output topic; "sqlite": each input's effect is a row in a
    # SQLite file (harness.sink) at ``sink_db`` (default: sink.sqlite in the run folder).
    sink: str = "kafka"
    sink_db: str = ""


@dataclass(frozen=True)
class SparkWorkload:
    """A Spark Structured Streaming job (spark_jobs/) over an input topic filled first (by an
    idempotent producer; transactional with aborts when ``input_txn_size`` is set).

    Its driver is the app ``harness.spark_app.SPARK_DRIVER``; it reads through links of its
    own, so a link fault on them (target Brokers(), listener=harness.faults.OWN_LINKS) hits
    only it, and it stops once it has processed the input. The schedule gets the input topic.
    """

    job: str  # spark_jobs module: kafka_sink, sqlite_sink or aggregate
    mode: str = ""  # the job's --mode, if it has one
    inputs: int = 1200
    partitions: int = 3
    keys: int = 12
    max_offsets_per_trigger: int = 300
    trigger_ms: int = 200
    isolation_level: str = "read_committed"
    pause_after_write_ms: int = 0  # foreachBatch jobs: the window between the sink's and Spark's commit
    delay_ms_per_record: float = 0.0  # kafka_sink: a transform that takes time, so batches are long
    # False: every driver start gets an empty checkpoint, as when it lived on a lost disk.
    keep_checkpoint: bool = True
    input_txn_size: int = 0  # records per input transaction (0: no transactions)
    input_abort_every: int = 0  # abort every n-th input transaction


Workload = ProducerWorkload | PipelineWorkload | SparkWorkload


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
    partitions: int = 1
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

    @property
    def one_line(self) -> str:
        return self.title


def all_scenarios() -> dict[str, Scenario]:
    import scenarios

    found: dict[str, Scenario] = {}
    for module in pkgutil.iter_modules(scenarios.__path__):
        scenario = getattr(importlib.import_module(f"scenarios.{module.name}"), "SCENARIO", None)
        if isinstance(scenario, Scenario):
            found[scenario.id] = scenario
    return dict(sorted(found.items(), key=lambda item: _book_order(item[0])))


def _book_order(scenario_id: str) -> tuple[str, int, str]:
    """A1 … A8, B1, B2a, B2b, … B10: the row number as a number, as the book lists them."""
    match = re.fullmatch(r"([A-Z]+)(\d+)(.*)", scenario_id)
    return (match[1], int(match[2]), match[3]) if match else (scenario_id, 0, "")


def get(scenario_id: str) -> Scenario:
    known = all_scenarios()
    scenario = {sid.upper(): s for sid, s in known.items()}.get(scenario_id.upper())
    if scenario is None:
        raise HarnessError(f"unknown scenario {scenario_id!r}: known are {', '.join(known)} (see `kafka-harness list`)")
    return scenario
