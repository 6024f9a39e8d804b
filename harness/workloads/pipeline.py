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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from harness.checker.sinks import count_effects
from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.faults import serial
from harness.faults.plan import RunNames
from harness.faults.roles import GroupCoordinator, TxnCoordinator
from harness.history import ledger
from harness.history.columns import History
from harness.jvm import java_clients
from harness.kafkaconfig.catalogue import Kind
from harness.workloads import clients
from harness.workloads.apps.transformer import AT_MOST_ONCE, MODES, TRANSACTIONAL, TransformerSpec
from harness.workloads.base import Plan, SideSetup
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
    """Name of a pipeline's i-th transformer app (from 1): fault target, ledger file stem and
    its producer's client.id."""
    return f"transformer-{i}"


@dataclass(frozen=True)
class PipelineWorkload:
    """Its plan's topics are ``INPUT`` and ``OUTPUT`` (``MAIN``: the output, the input with a
    SQLite sink); apps are ``transformer(1)``, ``transformer(2)`` …, each with its
    ``TransactionalId`` and ``GroupId``."""

    inputs: int = 2000
    partitions: int = 3  # of the input topic and of the output topic
    mode: str = TRANSACTIONAL  # or PLAIN, AT_MOST_ONCE (harness.workloads.apps.transformer.MODES)
    instances: int = 1  # transformer apps started at once
    # Apps registered but started only by a ``launch`` step: a replacement instance.
    standby: int = 0
    # True: every instance has the same transactional.id (a replacement fences the
    # original by id); False: one id each, fenced through the group metadata (KIP-447).
    shared_transactional_id: bool = False
    # The group's coordinator is another broker than the transaction coordinator of the first
    # app's transactional.id (the group id is chosen so): the group coordinator's checks of a
    # transactional offset commit then cross the inter-broker links, where faults reach them.
    coordinators_apart: bool = False
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
    client_version: str = ""  # the client's release; "": the default (clients.version_for)
    client_choices: ClassVar[tuple[str, ...]] = clients.CLIENTS
    java_main: ClassVar[str] = java_clients.TRANSFORMER_APP

    def plan(self, side: SideSetup) -> Plan:
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
        if self.mode not in MODES or (self.mode == AT_MOST_ONCE and not to_kafka):
            modes = ", ".join(MODES)
            raise HarnessError(f"pipeline mode {self.mode!r}: one of {modes} ({AT_MOST_ONCE} has no SQLite sink)")
        version = clients.version_for(clients.ClientSpec(client, self.client_version), cluster.settings.kafka_version)
        command = clients.app_command(client, PYTHON_APP, self.java_main, cluster.settings, version)
        app_producer, app_consumer = producer_config, self.consumer_config
        if client == clients.JAVA:
            app_producer = clients.java_config(producer_config, Kind.PRODUCER)[0]
            app_consumer = clients.java_config(self.consumer_config, Kind.CONSUMER)[0]
        ids = [self._transactional_id(side.name, i) for i in range(1, self.instances + self.standby + 1)]
        group = self._group(cluster, side.name, ids[0])
        apps = []
        for i, transactional_id in enumerate(ids, start=1):
            spec = TransformerSpec(
                bootstrap_servers=cluster.bootstrap_servers(side.own_links if i in self.own_links else "client"),
                input_topic=source,
                output_topic=output,
                input_partitions=self.partitions,
                group_id=group,
                ledger="",
                session=1 + i,  # session 1 is the input producer
                mode=self.mode,
                transactional_id=transactional_id,
                batch_size=self.batch_size,
                pause_before_commit_ms=self.pause_before_commit_ms,
                abort_every=self.abort_every,
                bug_offsets_outside_txn_every=self.bug_offsets_outside_txn_every,
                # Each app's producer is named after it (unless the config names it), so a
                # protocol fault can pick one instance's requests by their client id (B2d).
                producer_config={"client.id": transformer(i), **app_producer},
                consumer_config=app_consumer,
                sink_db=str(sink_db or ""),
                login=clients.login(client, cluster.client_config()),
            )

            def spec_for(ledger: Path, earlier: list[Path], spec: TransformerSpec = spec) -> dict[str, Any]:
                return replace(spec, ledger=str(ledger), resume=transformer_resume(earlier, spec.session)).to_json()

            apps.append(AppProcess(transformer(i), run_dir, spec_for, command, group=group))
        return Plan(
            apps,
            apps[: self.instances],
            topics=[source, output] if to_kafka else [source],
            names=RunNames(
                {"main": output, "input": source, "output": output} if to_kafka else {"main": source, "input": source},
                transactional_ids={app.name: t for app, t in zip(apps, ids, strict=True)},
                groups={app.name: group for app in apps},
            ),
            partitions=self.partitions,
            config={"mode": self.mode, **app_producer} if to_kafka else {"mode": self.mode, "sink": str(sink_db)},
            budget_s=self.inputs / _INPUTS_PER_S + _SLACK_S,
            eos_pairs=((source, output),) if to_kafka else (),
            prefix_ledgers=input_ledgers,
            transactional_ids=sorted(set(ids)) if self.mode == TRANSACTIONAL and to_kafka else [],
            sink=None if to_kafka else DatabaseRows(sink_db),  # type: ignore[arg-type]
            client=client,
            client_version=version,
            client_requested=self.client_version,
            client_package=clients.package(client),
        )

    def _group(self, cluster: KafkaCluster, side: str, transactional_id: str) -> str:
        if not self.coordinators_apart:
            return f"{side}-group"
        cluster.ensure_transaction_log()
        cluster.ensure_offsets_topic()
        (txn_broker,) = TxnCoordinator(transactional_id).resolve(cluster)
        return next(
            group
            for group in (f"{side}-group-{n}" for n in range(100))
            if GroupCoordinator(group).resolve(cluster) != [txn_broker]
        )

    def _transactional_id(self, side: str, i: int) -> str:
        return f"{side}-app" if self.shared_transactional_id else f"{side}-app-{i}"


_TAIL_BYTES = 1 << 16  # more than a batch's lines (about 100 bytes an input)


def _newest_batch_line(faults: Faults, app_name: str, after: int) -> tuple[str, int] | None:
    """The event and time of the last line ``app_name``'s newest ledger wrote at once around a
    batch; None before it has sent ``after`` outputs."""
    app = faults.apps[app_name]
    ledgers = app.ledgers()
    if not ledgers or app.sent() < after:
        return None
    with ledgers[-1].open("rb") as newest:
        newest.seek(max(0, newest.seek(0, os.SEEK_END) - _TAIL_BYTES))
        return ledger.last_of(newest.read(), ledger.WRITTEN_AT_ONCE)


@serial.condition
@dataclass(frozen=True)
class BatchUncommitted:
    """Transformer ``app`` has handed a batch's outputs to its client and not yet asked for
    the batch's commit (its newest ledger's last line written at once is an ``invoke``: no
    ``offsets-commit`` or ``txn-commit`` after it), and has sent at least ``after`` outputs
    in all. A stall, a crash or a cut link now leaves outputs written whose inputs' offsets
    are not committed: the window ``pause_before_commit_ms`` holds open. Waiting for it,
    rather than for a count of sends, keeps a fault from landing in the moment between a
    commit and the next batch (B2a's control once found nothing to repeat that way). With
    ``held_ms`` the batch has been held that long (its ``invoke`` lines' time): past the
    client calls that follow them (a transactional app adds its offsets), into the pause."""

    app: str
    after: int = 0
    held_ms: int = 0

    def holds(self, faults: Faults) -> bool:
        last = _newest_batch_line(faults, self.app, self.after)
        if last is None or last[0] != "invoke":
            return False
        return not self.held_ms or last[1] <= ledger.now_us() - self.held_ms * 1000

    def __str__(self) -> str:
        held = f" for {self.held_ms} ms" if self.held_ms else ""
        return f"{self.app} has sent >= {self.after} outputs and holds a batch not yet committed{held}"


@serial.condition
@dataclass(frozen=True)
class BatchInHand:
    """Transformer ``app`` is between the two steps of a batch, in whichever order its mode
    takes them: its outputs handed to the client and its offsets not yet committed (plain,
    transactional: as ``BatchUncommitted``), or its offsets committed and its outputs not yet
    handed over (at_most_once: the newest line written at once is ``offsets-committed``); and
    it has sent at least ``after`` outputs. A crash now repeats the batch in the first case and
    loses it in the second: one fault, fair to both orders (B13)."""

    app: str
    after: int = 0

    def holds(self, faults: Faults) -> bool:
        last = _newest_batch_line(faults, self.app, self.after)
        return last is not None and last[0] in ("invoke", "offsets-committed")

    def __str__(self) -> str:
        return f"{self.app} has sent >= {self.after} outputs and is between a batch's outputs and its commit"


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
