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
(harness.checker.sinks). Its plan's ``MAIN`` topic is the output, which the LSO probe watches.

``StreamsUncommitted`` is the condition a kill or stall waits for: an instance has processed
inputs since its last commit (its own status file says so), so a crash then leaves work to redo.
``CommitLogged`` waits for the coordinator to have just logged a commit of the app (under
exactly-once: PrepareCommit, read from ``__transaction_state``), and ``CommitCoordinator``
is that coordinator as a fault target.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
from confluent_kafka import Consumer, KafkaException, TopicPartition

from harness.checker.sinks import aggregate_mismatch, count_per_input
from harness.cluster.kafka import KafkaCluster
from harness.faults import serial
from harness.faults.plan import RunNames
from harness.faults.roles import TxnCoordinator, java_hash
from harness.history.columns import History
from harness.history.format import view_path
from harness.history.readback import read_back
from harness.jvm import java_clients
from harness.progress import say
from harness.settings import HARNESS_CLIENT_LOG_LEVEL
from harness.waits import Deadline
from harness.workloads import clients
from harness.workloads.base import Plan, SideSetup
from harness.workloads.input import INPUT_PRODUCER, fill
from harness.workloads.process import AppProcess
from harness.workloads.producer import ProducerWorkload

if TYPE_CHECKING:
    from harness.faults import Faults

AT_LEAST_ONCE, EXACTLY_ONCE_V2 = "at_least_once", "exactly_once_v2"
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
_ADMIN_TIMEOUT_S = 5.0  # per request of the conditions' and results' clients
TXN_LOG = "__transaction_state"
# TransactionLogValue.TransactionStatus, as the coordinators write it.
TXN_STATES = ("Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead")
PREPARE_COMMIT = TXN_STATES.index("PrepareCommit")


def streams_app(i: int) -> str:
    """Name of a Streams workload's i-th instance (from 1): fault target and file stem."""
    return f"streams-{i}"


def client_version(kafka_version: str) -> str:
    """The kafka-streams release the app runs on against brokers of ``kafka_version`` unless the
    workload asks for another: the cluster's own, or the newest on Maven Central if older (4.4.0
    is not there)."""
    return clients.version_for(clients.ClientSpec(clients.JAVA), kafka_version, streams=True)


def app_spec(
    cluster: KafkaCluster,
    application_id: str,
    topics: tuple[str, str, str],
    processing_guarantee: str,
    commit_interval_ms: int,
    config: dict[str, Any],
    delay_ms_per_record: float = 0.0,
    expected_inputs: int = 0,
) -> dict[str, Any]:
    """The spec of an instance of ``StreamsApp`` reading ``topics`` (input, output, totals), but
    for its ``app`` name and ``state_dir``. ``expected_inputs``: the records it waits for before
    stopping (0: the input present when it starts)."""
    source, output, totals = topics
    return {
        "bootstrap_servers": cluster.bootstrap_servers(),
        "application_id": application_id,
        "input_topic": source,
        "output_topic": output,
        "aggregates_topic": totals,
        "processing_guarantee": processing_guarantee,
        "commit_interval_ms": commit_interval_ms,
        "delay_ms_per_record": delay_ms_per_record,
        "expected_inputs": expected_inputs,
        "config": {**STREAMS_DEFAULTS, **config},
        "login": cluster.client_config(),
    }


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
    client: str = clients.JAVA  # Streams is Java's: the only choice is kafka-streams' release
    client_version: str = ""  # kafka-streams'; "": the default (clients.version_for)
    client_choices: ClassVar[tuple[str, ...]] = (clients.JAVA,)
    java_main: ClassVar[str] = java_clients.STREAMS_APP

    def plan(self, side: SideSetup) -> Plan:
        cluster, run_dir = side.cluster, side.run_dir
        topics = source, output, totals = f"{side.name}-in", f"{side.name}-out", f"{side.name}-totals"
        for topic in topics:
            cluster.create_topic(topic, self.partitions, config=side.topic_config)
        input_ledgers = fill(
            cluster, run_dir, source, ProducerWorkload(count=self.inputs, keys=self.keys), INPUT_PRODUCER
        )
        version = self.client_version or client_version(cluster.settings.kafka_version)
        java = java_clients.command(cluster.settings, version, self.java_main, streams=True)
        base = app_spec(
            cluster,
            f"{side.name}-app",
            topics,
            self.processing_guarantee,
            self.commit_interval_ms,
            {**self.config, **side.client_config},
            self.delay_ms_per_record,
        )
        apps = []
        for i in range(1, self.instances + self.standby + 1):
            name = streams_app(i)

            def spec_for(ledger: Path, earlier: list[Path], name: str = name) -> dict[str, Any]:
                n = len(earlier) + 1
                state = run_dir / "state" / (f"{name}.{n}" if self.wipe_state else name)
                return {**base, "app": name, "state_dir": str(state), "status_file": str(status_path(run_dir, name, n))}

            apps.append(
                AppProcess(
                    name,
                    run_dir,
                    spec_for,
                    lambda spec_path, spec: [*java, str(spec_path)],
                    group=base["application_id"],
                )
            )
        return Plan(
            apps,
            apps[: self.instances],
            topics=[source],
            names=RunNames(
                {"main": output, "input": source, "output": output, "totals": totals},
                groups={app.name: base["application_id"] for app in apps},
            ),
            partitions=self.partitions,
            config={
                "processing.guarantee": self.processing_guarantee,
                "commit.interval.ms": self.commit_interval_ms,
                **base["config"],
                "kafka-streams": version,
            },
            budget_s=2 * self.inputs * max(self.delay_ms_per_record, _MIN_MS_PER_RECORD) / 1000 + _SLACK_S,
            prefix_ledgers=input_ledgers,
            sink=StreamsResults(output, totals, base["application_id"], run_dir),
            client=clients.JAVA,
            client_version=version,
            client_requested=self.client_version,
            client_package=clients.package(clients.JAVA, streams=True),
        )


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


@serial.condition
@dataclass(frozen=True)
class StreamsUncommitted:
    """Instance ``app`` is mid-stream: it has committed at least once and processed ``records``
    inputs since its last commit (its status file, rewritten every 100 ms): their outputs, store
    updates and changelog records are written, or in its producer's buffer for at most its
    linger (100 ms), and their offsets are not committed. Killed then, an at-least-once
    instance leaves repeats behind; an exactly-once one an open transaction."""

    app: str
    records: int

    def holds(self, faults: Faults) -> bool:
        app = faults.apps[self.app]
        assert isinstance(app, AppProcess)  # the runner's: it knows the run folder
        if not app.incarnations:
            return False
        status = status_path(app.run_dir, self.app, app.current.number)
        if not status.exists():
            return False
        report = json.loads(status.read_text())  # moved into place whole
        done = report["outcomes"]
        return done["commits"] > 0 and done["processed"] - report.get("processed_at_commit", 0) >= self.records

    def __str__(self) -> str:
        return f"{self.app} has committed and processed >= {self.records} inputs since its last commit"


def status_path(run_dir: Path, app: str, incarnation: int) -> Path:
    """Where incarnation ``incarnation`` of the Streams app ``app`` keeps its report while it runs."""
    return run_dir / f"{app}.{incarnation}.status.json"


@dataclass(frozen=True)
class StreamsResults:
    """What the Streams app left in Kafka: its output and aggregates topics, read back (with
    their values) into ``sink-reads/``, and the states its transactional.ids went through in
    the coordinators' log (``sink-reads/transactions.json``, empty under at-least-once)."""

    output: str
    totals: str
    application_id: str
    run_dir: Path

    def collect(self, cluster: KafkaCluster) -> None:
        folder = self.run_dir / "sink-reads"
        login = cluster.client_config()
        read_back(cluster.bootstrap_servers(), [self.output, self.totals], folder, login=login, values=True)
        records, _ = read_transaction_log(cluster.bootstrap_servers(), login, None)
        states: dict[str, list[str]] = {}
        for txn_id, state in records:
            if txn_id.startswith(f"{self.application_id}-"):
                states.setdefault(txn_id, []).append(TXN_STATES[state] if state < len(TXN_STATES) else str(state))
        (folder / "transactions.json").write_text(json.dumps(states, indent=1))

    def findings(self, history: History, max_examples: int) -> dict[str, Any]:
        """Per committed input, the read_committed outputs naming it (``sink_missing``,
        ``sink_repeated``); per key, the last committed totals against a recount of the
        committed input (``aggregate_mismatch``)."""
        committed = pq.read_table(view_path(self.run_dir / "reads", "read_committed"), columns=["key", "id"])
        committed = committed.filter(pc.greater_equal(committed["id"], 0))
        folder = self.run_dir / "sink-reads"
        sink = pq.read_table(view_path(folder, "read_committed"))
        outputs = sink.filter(pc.equal(sink["topic"], self.output))["id"].to_numpy()
        return {
            "output": self.output,
            "aggregates": self.totals,
            **commits_completed(json.loads((folder / "transactions.json").read_text())),
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


def commits_completed(states: dict[str, list[str]]) -> dict[str, int]:
    """Of the commits the coordinators logged as prepared (PrepareCommit), how many were then
    completed (CompleteCommit next for the same transactional.id): once prepared, a commit
    must complete, whatever befalls its coordinator."""
    prepared = completed = 0
    for sequence in states.values():
        for state, then in zip(sequence, [*sequence[1:], None], strict=True):
            if state == "PrepareCommit":
                prepared += 1
                completed += then == "CompleteCommit"
    return {"prepared_commits": prepared, "completed_commits": completed}


def read_transaction_log(
    bootstrap: str, login: dict[str, str], start: dict[int, int] | None
) -> tuple[list[tuple[str, int]], dict[int, int]]:
    """The transaction coordinators' records ``(transactional.id, state)`` in
    ``__transaction_state``, in log order per partition, and the offsets reached: from the
    beginning (``start`` None), or from the offsets in ``start`` and, for partitions it does
    not name, from their end (a reader that only follows what happens next). Records other
    than a transaction's state, and tombstones, are skipped. The read gets 30 s; short of the
    end then, it says so and returns what it read."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"harness-txn-log-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "enable.partition.eof": False,
            "log_level": HARNESS_CLIENT_LOG_LEVEL,
            **login,
        }
    )
    try:
        topic = consumer.list_topics(TXN_LOG, timeout=_ADMIN_TIMEOUT_S).topics[TXN_LOG]
        if topic.error is not None:  # no transaction yet on this cluster
            return [], dict(start or {})
        marks = {
            p: consumer.get_watermark_offsets(TopicPartition(TXN_LOG, p), _ADMIN_TIMEOUT_S) for p in topic.partitions
        }
        reached = {p: low if start is None else start.get(p, high) for p, (low, high) in marks.items()}
        consumer.assign([TopicPartition(TXN_LOG, p, offset) for p, offset in reached.items()])
        records: list[tuple[str, int]] = []
        # A Deadline, not poll_until: consume() does the waiting, and what it reads is kept as it comes.
        deadline = Deadline(30)
        while any(reached[p] < high for p, (_, high) in marks.items()) and not deadline.expired():
            for msg in consumer.consume(num_messages=10_000, timeout=0.2):
                record = transaction_state(msg.key(), msg.value()) if msg.error() is None else None
                if record is not None:
                    records.append(record)
            # Positions, not the last record read: compaction leaves gaps in this log.
            for tp in consumer.position([TopicPartition(TXN_LOG, p) for p in marks]):
                reached[tp.partition] = max(reached[tp.partition], tp.offset)
        behind = {p: f"{reached[p]} of {high}" for p, (_, high) in marks.items() if reached[p] < high}
        if behind:  # what it returns is then short of the log's end: said, not passed off as all of it
            say(f"{TXN_LOG}: read given up after {deadline.elapsed():.0f}s short of its end (reached: {behind})")
        return records, reached
    finally:
        consumer.close()


def transaction_state(key: bytes | None, value: bytes | None) -> tuple[str, int] | None:
    """A TransactionLogKey (version 0: the id as an int16-length string) and the status byte of
    its TransactionLogValue (after version, producer id, epoch and timeout; both versions)."""
    if key is None or value is None or len(key) < 4 or key[:2] != b"\0\0" or len(value) <= 16:
        return None
    size = int.from_bytes(key[2:4], "big")
    return key[4 : 4 + size].decode(errors="replace"), value[16]


@serial.condition
@dataclass(frozen=True)
class CommitLogged:
    """The coordinator of the Streams app ``app``'s commits has just logged one. Exactly-once:
    the app's transactional.id's latest state in ``__transaction_state`` is PrepareCommit (the
    commit request answered, its markers not all written; slow replication links keep it so
    for a while). At-least-once: the group's committed offsets advanced since the last look.
    Only what happens after the first look counts. Remembers whose commit it saw, for
    ``CommitCoordinator``."""

    app: str
    _seen: dict[str, Any] = field(default_factory=dict, compare=False)

    def holds(self, faults: Faults) -> bool:
        app = faults.apps[self.app]
        assert isinstance(app, AppProcess)  # the runner's: it knows the run folder
        if not app.incarnations:
            return False
        spec = json.loads((app.run_dir / f"{self.app}.{app.current.number}.spec.json").read_text())
        self._seen["group"] = spec["application_id"]
        try:
            if spec["processing_guarantee"] == AT_LEAST_ONCE:
                meta = faults.cluster.admin().list_topics(spec["input_topic"], timeout=_ADMIN_TIMEOUT_S)
                inputs = [TopicPartition(spec["input_topic"], p) for p in meta.topics[spec["input_topic"]].partitions]
                committed = sum(max(tp.offset, 0) for tp in _committed(spec, inputs))
                before = self._seen.setdefault("committed", committed)
                self._seen["committed"] = committed
                return committed > before
            records, self._seen["positions"] = read_transaction_log(
                spec["bootstrap_servers"], spec["login"], self._seen.get("positions", {})
            )
        except (KafkaException, KeyError):  # a broker is down, the topic not there yet: ask again
            return False
        states = self._seen.setdefault("states", {})
        states.update((txn_id, state) for txn_id, state in records if txn_id.startswith(f"{spec['application_id']}-"))
        prepared = sorted(txn_id for txn_id, state in states.items() if state == PREPARE_COMMIT)
        if prepared:
            self._seen["transactional_id"] = prepared[0]
        return bool(prepared)

    @property
    def transactional_id(self) -> str | None:
        """The transactional.id whose PrepareCommit it saw (None: none yet, or no transactions)."""
        return self._seen.get("transactional_id")

    @property
    def group(self) -> str:
        return str(self._seen["group"])

    def __str__(self) -> str:
        return f"the coordinator of {self.app}'s commits has just logged one"


@serial.role
@dataclass(frozen=True)
class CommitCoordinator:
    """Fault target: the broker coordinating the commit ``seen`` caught. The transaction
    coordinator of the transactional.id whose PrepareCommit it saw; without transactions, the
    group coordinator of the app's group (the leader of its ``__consumer_offsets`` partition)."""

    seen: CommitLogged

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        if self.seen.transactional_id is not None:
            return TxnCoordinator(self.seen.transactional_id).resolve(cluster)
        partitions = int(cluster.broker_settings["offsets.topic.num.partitions"])
        offsets = java_hash(self.seen.group) % partitions
        return [cluster.wait_for_leader("__consumer_offsets", offsets, timeout_s=30)]

    def __str__(self) -> str:
        return f"coordinator of {self.seen.app}'s commits"
