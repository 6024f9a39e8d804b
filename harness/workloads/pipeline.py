"""The pipeline workload: consume-transform-produce. An input topic is filled first (an
idempotent producer, no faults), then transformer apps in one consumer group turn it into
an output topic, or, with a SQLite sink, into one database row per input.

The apps are ``harness.workloads.apps.transformer`` on librdkafka, or
``kafkaeos.TransformerApp`` on the Java client (``client``, harness.workloads.clients);
every output names its input as its ``source`` in the ledger, so the checker counts
outputs per input (``eos_pairs``).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.checker.sinks import count_effects
from harness.cluster.kafka import KafkaCluster
from harness.configcheck.catalogue import Kind
from harness.errors import HarnessError
from harness.faults import serial
from harness.history.columns import History
from harness.jvm import java_clients
from harness.workloads import clients
from harness.workloads.apps.transformer import TransformerSpec
from harness.workloads.base import Plan, Side
from harness.workloads.input import INPUT_PRODUCER, fill
from harness.workloads.process import AppProcess
from harness.workloads.producer import ProducerWorkload
from harness.workloads.resume import transformer_resume

if TYPE_CHECKING:
    from harness.faults import Faults

PYTHON_APP = "harness.workloads.apps.transformer"
# The apps' budget: their inputs at a slow pace (restarts, rebalances), plus start-up.
_INPUTS_PER_S, _SLACK_S = 50, 180


def transformer(i: int) -> str:
    """Name of a pipeline's i-th transformer app (from 1): fault target and ledger file stem."""
    return f"transformer-{i}"


@dataclass(frozen=True)
class PipelineWorkload:
    """The schedule gets the output topic (the input topic with a SQLite sink); apps are
    ``transformer(1)``, ``transformer(2)`` …."""

    inputs: int = 2000
    partitions: int = 3  # of the input topic and of the output topic
    mode: str = "transactional"  # or "plain" (harness.workloads.apps.transformer)
    instances: int = 1  # transformer apps started at once
    # Apps registered but started only by a ``launch`` step: a replacement instance.
    standby: int = 0
    # True: every instance has the same transactional.id (a replacement fences the
    # original by id); False: one id each, fenced through the group metadata (KIP-447).
    shared_transactional_id: bool = False
    batch_size: int = 50
    pause_before_commit_ms: int = 0
    abort_every: int = 0
    # A PLANTED BUG for testing explore (harness.workloads.apps.transformer): every n-th
    # transaction's offsets committed outside it. 0: the app as it should be.
    bug_offsets_outside_txn_every: int = 0
    producer_config: dict[str, Any] = field(default_factory=dict)
    consumer_config: dict[str, Any] = field(default_factory=dict)
    # Apps (by number) that reach the brokers through links of their own, so a link fault
    # on them (target Brokers(), listener=harness.faults.OWN_LINKS) hits them and nobody else.
    own_links: tuple[int, ...] = ()
    # "kafka": outputs go to the output topic; "sqlite": each input's effect is a row in a
    # SQLite file (harness.workloads.apps.sqlite_sink) at ``sink_db`` (default: sink.sqlite
    # in the run folder).
    sink: str = "kafka"
    sink_db: str = ""
    client: str = clients.LIBRDKAFKA  # or clients.JAVA (no SQLite sink)
    client_version: str = ""  # the Java client's; "": the cluster's Kafka version

    def plan(self, side: Side) -> Plan:
        cluster, run_dir = side.cluster, side.run_dir
        source, output = f"{side.name}-in", f"{side.name}-out"
        sink_db = (Path(self.sink_db) if self.sink_db else run_dir / "sink.sqlite") if self.sink == "sqlite" else None
        to_kafka = sink_db is None
        for topic in (source, output) if to_kafka else (source,):
            cluster.create_topic(topic, self.partitions, config=side.topic_config)
        inputs = ProducerWorkload(count=self.inputs, keys=self.partitions * 4)
        input_ledgers = fill(cluster, run_dir, source, inputs, INPUT_PRODUCER)
        producer_config = {**self.producer_config, **side.client_config}
        client = clients.check(self.client)
        if client == clients.JAVA and not to_kafka:
            raise HarnessError("the Java transformer app has no SQLite sink: run this pipeline on librdkafka")
        if client == clients.JAVA and self.bug_offsets_outside_txn_every:
            raise HarnessError("the planted bug is in the Python transformer app only: run this pipeline on librdkafka")
        version = self.client_version or cluster.settings.kafka_version
        command = clients.app_command(client, PYTHON_APP, java_clients.TRANSFORMER_APP, cluster.settings, version)
        app_producer, app_consumer = producer_config, self.consumer_config
        if client == clients.JAVA:
            app_producer = clients.java_config(producer_config, Kind.PRODUCER)[0]
            app_consumer = clients.java_config(self.consumer_config, Kind.CONSUMER)[0]
        ids = [self._transactional_id(side.name, i) for i in range(1, self.instances + self.standby + 1)]
        apps = []
        for i, transactional_id in enumerate(ids, start=1):
            spec = TransformerSpec(
                bootstrap_servers=cluster.bootstrap_servers(side.own_links if i in self.own_links else "client"),
                input_topic=source,
                output_topic=output,
                group_id=f"{side.name}-group",
                ledger="",
                session=1 + i,  # session 1 is the input producer
                mode=self.mode,
                transactional_id=transactional_id,
                batch_size=self.batch_size,
                pause_before_commit_ms=self.pause_before_commit_ms,
                abort_every=self.abort_every,
                bug_offsets_outside_txn_every=self.bug_offsets_outside_txn_every,
                producer_config=app_producer,
                consumer_config=app_consumer,
                sink_db=str(sink_db or ""),
                login=clients.login(client, cluster.client_config()),
            )

            def spec_for(ledger: Path, earlier: list[Path], spec: TransformerSpec = spec) -> dict[str, Any]:
                doc = asdict(replace(spec, ledger=str(ledger), resume=transformer_resume(earlier, spec.session)))
                if not spec.bug_offsets_outside_txn_every:  # the Java app refuses fields it does not know
                    del doc["bug_offsets_outside_txn_every"]
                return doc

            apps.append(AppProcess(transformer(i), run_dir, spec_for, command))
        return Plan(
            apps,
            apps[: self.instances],
            topics=[source, output] if to_kafka else [source],
            main_topic=output if to_kafka else source,
            partitions=self.partitions,
            config={"mode": self.mode, **app_producer} if to_kafka else {"mode": self.mode, "sink": str(sink_db)},
            budget_s=self.inputs / _INPUTS_PER_S + _SLACK_S,
            eos_pairs=((source, output),) if to_kafka else (),
            prefix_ledgers=input_ledgers,
            transactional_ids=sorted(set(ids)) if self.mode == "transactional" and to_kafka else [],
            sink=None if to_kafka else DatabaseRows(sink_db),  # type: ignore[arg-type]
            client=client,
            client_version=version if client == clients.JAVA else "",
        )

    def _transactional_id(self, side: str, i: int) -> str:
        return f"{side}-app" if self.shared_transactional_id else f"{side}-app-{i}"


# Lines an app writes at once around a batch; the last of them says where it is.
_BATCH_LINES = (b"invoke,", b"offsets-commit,", b"txn-", b"session,", b"fenced,")
_TAIL_BYTES = 1 << 16  # more than a batch's lines (about 100 bytes an input)


@serial.condition
@dataclass(frozen=True)
class BatchUncommitted:
    """Transformer ``app`` has handed a batch's outputs to its client and not yet asked for
    the batch's commit (its newest ledger's last line written at once is an ``invoke``: no
    ``offsets-commit`` or ``txn-commit`` after it), and has sent at least ``after`` outputs
    in all. A stall, a crash or a cut link now leaves outputs written whose inputs' offsets
    are not committed: the window ``pause_before_commit_ms`` holds open. Waiting for it,
    rather than for a count of sends, keeps a fault from landing in the moment between a
    commit and the next batch (B2a's control once found nothing to repeat that way)."""

    app: str
    after: int = 0

    def holds(self, faults: Faults) -> bool:
        app = faults.apps[self.app]
        ledgers = app.ledgers()
        if not ledgers or app.sent() < self.after:
            return False
        with ledgers[-1].open("rb") as ledger:
            ledger.seek(max(0, ledger.seek(0, os.SEEK_END) - _TAIL_BYTES))
            lines = ledger.read().split(b"\n")
        # Whole lines only: the first may be cut by the seek, the last still being written.
        batch_lines = (line for line in reversed(lines[1:-1]) if line.startswith(_BATCH_LINES))
        return next(batch_lines, b"").startswith(b"invoke,")

    def __str__(self) -> str:
        return f"{self.app} has sent >= {self.after} outputs and holds a batch not yet committed"


@dataclass(frozen=True)
class DatabaseRows:
    """A SQLite sink's rows, one per input read committed from the input topic (the only topic
    read back, so every id in that view is an input)."""

    db: Path

    def collect(self, cluster: KafkaCluster) -> None:
        """The database is in the run folder already."""

    def findings(self, history: History, max_examples: int) -> dict[str, Any]:
        inputs = history.views["read_committed"].id
        return {"db": str(self.db), **count_effects(self.db, inputs[inputs >= 0], max_examples)}
