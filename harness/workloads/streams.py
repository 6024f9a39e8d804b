"""The Kafka Streams workload: the Java app ``kafkaeos.StreamsApp`` (``java/``) over an input topic
filled first (an idempotent producer, no faults).

The app maps each input to one record of the output topic naming the input's id, and keeps a
per-key count and sum of the input ids in a state store (RocksDB with its changelog topic, no
cache), sending each key's running ``<count> <sum>`` to the aggregates topic. Its instances
``streams_app(1)``, ``streams_app(2)`` … form one group (the application id) and share the
input's partitions; each is an OS process that faults kill, pause and restart, with a state
directory of its own in the run folder: the same one across restarts, or an empty one per
incarnation with ``wipe_state`` (the local state lost, as with a lost disk). An instance stops
by itself once the group's committed offsets cover the input.

Streams owns its producer, so the app writes no ledger: ``StreamsResults`` reads the output and
aggregates topics back read_committed and counts outputs per committed input
(``sink_missing``, ``sink_repeated``) and the keys whose last committed totals differ from a
recount of the committed input (``aggregate_mismatch``), as for the Spark jobs
(harness.checker.sinks). The schedule gets the output topic, which the LSO probe watches.

``StreamsUncommitted`` is the condition a fault waits for: the group has written outputs its
committed input offsets do not account for, so a crash then leaves work to redo.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
from confluent_kafka import Consumer, IsolationLevel, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from harness.checker.sinks import aggregate_mismatch, count_per_input
from harness.cluster.kafka import KafkaCluster
from harness.history.columns import History, view_path
from harness.history.readback import read_back
from harness.jvm import java_clients
from harness.settings import HARNESS_CLIENT_LOG_LEVEL
from harness.workloads.base import Plan, Side
from harness.workloads.input import INPUT_PRODUCER, fill
from harness.workloads.process import AppProcess
from harness.workloads.producer import ProducerWorkload

if TYPE_CHECKING:
    from harness.faults import Faults

STREAMS_APP = "kafkaeos.StreamsApp"
AT_LEAST_ONCE, EXACTLY_ONCE_V2 = "at_least_once", "exactly_once_v2"
# kafka-streams 4.4.0 is not on Maven Central: the app runs on the newest client that is.
STREAMS_CLIENT_FALLBACK = {"4.4.0": "4.3.1"}
# Client settings of every instance, under the workload's own ``config`` and the variant's.
STREAMS_DEFAULTS: dict[str, Any] = {
    # The smallest session a broker allows by default: a killed or stalled instance leaves the
    # group in seconds, not in the consumer's default 45 s.
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 1500,
}
# The apps' budget: their processing time twice over (restarts redo work), plus JVM starts,
# group joins and a transaction left to time out.
_SLACK_S = 150
_MIN_MS_PER_RECORD = 1.0
_ADMIN_TIMEOUT_S = 5.0


def streams_app(i: int) -> str:
    """Name of a Streams workload's i-th instance (from 1): fault target and file stem."""
    return f"streams-{i}"


def client_version(kafka_version: str) -> str:
    """The kafka-streams version the app runs on against brokers of ``kafka_version``."""
    return STREAMS_CLIENT_FALLBACK.get(kafka_version, kafka_version)


@dataclass(frozen=True)
class StreamsWorkload:
    inputs: int = 3000
    partitions: int = 3  # of the input, output and aggregates topics
    keys: int = 12
    processing_guarantee: str = AT_LEAST_ONCE  # or EXACTLY_ONCE_V2
    commit_interval_ms: int = 1000
    instances: int = 1  # started at once
    standby: int = 0  # registered, started only by a ``launch`` step (a replacement instance)
    delay_ms_per_record: float = 0.0  # processing cost per input: widens the time between commits
    # True: every incarnation of an instance starts on an empty state directory.
    wipe_state: bool = False
    # Further Streams and client properties, over STREAMS_DEFAULTS; the variant's config goes over these.
    config: dict[str, Any] = field(default_factory=dict)
    # Records the apps wait for before stopping (0: the input present when they start).
    expected_inputs: int = 0

    def plan(self, side: Side) -> Plan:
        cluster, run_dir = side.cluster, side.run_dir
        source, output, totals = f"{side.name}-in", f"{side.name}-out", f"{side.name}-totals"
        for topic in (source, output, totals):
            cluster.create_topic(topic, self.partitions, config=side.topic_config)
        inputs = ProducerWorkload(count=self.inputs, keys=self.keys)
        input_ledgers = fill(cluster, run_dir, source, inputs, INPUT_PRODUCER) if self.inputs else []
        version = client_version(cluster.settings.kafka_version)
        java = java_clients.command(cluster.settings, version, STREAMS_APP, streams=True)
        config = {**STREAMS_DEFAULTS, **self.config, **side.client_config}
        base = {
            "bootstrap_servers": cluster.bootstrap_servers(),
            "application_id": f"{side.name}-app",
            "input_topic": source,
            "output_topic": output,
            "aggregates_topic": totals,
            "processing_guarantee": self.processing_guarantee,
            "commit_interval_ms": self.commit_interval_ms,
            "delay_ms_per_record": self.delay_ms_per_record,
            "expected_inputs": self.expected_inputs,
            "config": config,
            "login": cluster.client_config(),
        }
        apps = []
        for i in range(1, self.instances + self.standby + 1):
            name = streams_app(i)

            def spec_for(ledger: Path, earlier: list[Path], name: str = name) -> dict[str, Any]:
                state = run_dir / "state" / (f"{name}.{len(earlier) + 1}" if self.wipe_state else name)
                return {**base, "app": name, "state_dir": str(state)}

            apps.append(AppProcess(name, run_dir, spec_for, lambda spec_path, spec: [*java, str(spec_path)]))
        ms_per_record = max(self.delay_ms_per_record, _MIN_MS_PER_RECORD)
        return Plan(
            apps,
            apps[: self.instances],
            topics=[source],
            main_topic=output,
            partitions=self.partitions,
            config={
                "processing.guarantee": self.processing_guarantee,
                "commit.interval.ms": self.commit_interval_ms,
                **config,
                "kafka-streams": version,
            },
            budget_s=2 * max(self.inputs, self.expected_inputs) * ms_per_record / 1000 + _SLACK_S,
            prefix_ledgers=input_ledgers,
            sink=StreamsResults(output, totals, run_dir),
        )


def progress(admin: AdminClient, spec: dict[str, Any]) -> tuple[int, int]:
    """How far a Streams app's group (``spec``: an instance's) has got: the input records its
    committed offsets cover (read as stable), and the outputs written that they do not account
    for. At-least-once: the output topic's records beyond the committed input (one output per
    input; both topics hold data records only). Exactly-once: the output records of
    transactions still open (high watermark minus last stable offset)."""
    output, source = spec["output_topic"], spec["input_topic"]
    meta = admin.list_topics(timeout=_ADMIN_TIMEOUT_S).topics
    outputs = [TopicPartition(output, p) for p in meta[output].partitions]

    def ends(isolation: IsolationLevel) -> int:
        futures = admin.list_offsets(
            {tp: OffsetSpec.latest() for tp in outputs}, isolation_level=isolation, request_timeout=_ADMIN_TIMEOUT_S
        )
        return sum(f.result().offset for f in futures.values())

    inputs = [TopicPartition(source, p) for p in meta[source].partitions]
    committed = sum(max(tp.offset, 0) for tp in _committed(spec, inputs))
    if spec["processing_guarantee"] == AT_LEAST_ONCE:
        return committed, ends(IsolationLevel.READ_UNCOMMITTED) - committed
    # The last stable offsets first: high watermarks taken after them are never below them.
    stable = ends(IsolationLevel.READ_COMMITTED)
    return committed, ends(IsolationLevel.READ_UNCOMMITTED) - stable


def _committed(spec: dict[str, Any], partitions: list[TopicPartition]) -> list[TopicPartition]:
    """The group's committed offsets of ``partitions``, as stable offsets (a read_committed
    consumer asks so): a consumer of the group's id that never joins it. Not the admin client's
    ListConsumerGroupOffsets: librdkafka 2.16.0 crashed the harness in it (a null consumer
    group in the admin handle, rd_kafka_cgrp_op)."""
    consumer = Consumer(
        {
            "bootstrap.servers": spec["bootstrap_servers"],
            "group.id": spec["application_id"],
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            "log_level": HARNESS_CLIENT_LOG_LEVEL,
            **spec["login"],
        }
    )
    try:
        return consumer.committed(partitions, timeout=_ADMIN_TIMEOUT_S)
    finally:
        consumer.close()


@dataclass(frozen=True)
class StreamsUncommitted:
    """The group of the Streams app ``app`` is mid-stream: it has committed some input, and
    written at least ``records`` outputs that its committed offsets do not account for
    (``progress``): state and output written, offsets not committed yet. Killed then, an
    at-least-once instance leaves repeats behind; an exactly-once one an open transaction."""

    app: str
    records: int

    def holds(self, faults: Faults) -> bool:
        app = faults.apps[self.app]
        assert isinstance(app, AppProcess)  # the runner's: it knows the run folder
        if not app.incarnations:
            return False
        spec = json.loads((app.run_dir / f"{self.app}.{app.current.number}.spec.json").read_text())
        try:
            committed, uncommitted = progress(faults.cluster.admin(), spec)
        except (KafkaException, KeyError):  # a broker is down, the group not there yet: ask again
            return False
        return committed > 0 and uncommitted >= self.records

    def __str__(self) -> str:
        return f"{self.app}'s group has committed input and >= {self.records} outputs beyond it"


@dataclass(frozen=True)
class StreamsResults:
    """What the Streams app left in Kafka: its output and aggregates topics, read back (with
    their values) into ``sink-reads/``."""

    output: str
    totals: str
    run_dir: Path

    def collect(self, cluster: KafkaCluster) -> None:
        read_back(
            cluster.bootstrap_servers(),
            [self.output, self.totals],
            self.run_dir / "sink-reads",
            login=cluster.client_config(),
            values=True,
        )

    def findings(self, history: History, max_examples: int) -> dict[str, Any]:
        """Per committed input, the read_committed outputs naming it (``sink_missing``,
        ``sink_repeated``); per key, the last committed totals against a recount of the
        committed input (``aggregate_mismatch``)."""
        committed = pq.read_table(view_path(self.run_dir / "reads", "read_committed"), columns=["key", "id"])
        committed = committed.filter(pc.greater_equal(committed["id"], 0))
        sink = pq.read_table(view_path(self.run_dir / "sink-reads", "read_committed"))
        outputs = sink.filter(pc.equal(sink["topic"], self.output))["id"].to_numpy()
        return {
            "output": self.output,
            "aggregates": self.totals,
            **count_per_input(outputs, committed["id"].to_numpy(), max_examples),
            "aggregate_mismatch": aggregate_mismatch(
                committed, last_totals(sink.filter(pc.equal(sink["topic"], self.totals))), max_examples
            ),
        }


def last_totals(rows: Any) -> dict[str, tuple[int, int]]:
    """Each key's last ``<count> <sum>`` among read-back rows of an aggregates topic (a key lives
    in one partition, so its last record there is its latest total)."""
    order = np.lexsort((rows["offset"].to_numpy(), rows["partition"].to_numpy()))
    found: dict[str, tuple[int, int]] = {}
    keys, values = rows["key"].to_pylist(), rows["value"].to_pylist()
    for i in order.tolist():
        count, total = values[i].split()
        found[keys[i]] = (int(count), int(total))
    return found
