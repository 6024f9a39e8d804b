"""A consume-transform-produce app: reads an input topic in a consumer group, writes one
output record per input record to an output topic, writing its ledger.

Run as ``python -m harness.workloads.apps.transformer SPEC.json`` so that killing or pausing it
is real. Each output gets a fresh id of the app's session and names its input as its
``source`` in the ledger, so the checker can count outputs per input (exactly once). A
batch's ``invoke`` lines are written in one ``write()`` before any of its outputs is
produced, and the outcome lines once per batch (``harness.history.ledger``).

Three modes (``TransformerSpec.mode``, ``MODES``):

- **plain** (at-least-once): produce the outputs of a batch, flush, then commit the
  consumer's offsets (an ``offsets-commit`` ledger line first). A crash between the two
  reprocesses the batch after a restart.
- **at_most_once**: commit the batch's offsets first (``offsets-commit`` before the commit,
  ``offsets-committed`` once it returned), then produce its outputs and flush. A crash
  between the two loses the batch: the restarted app starts after it.
- **transactional**: ``init_transactions``; per batch ``begin_transaction``, produce,
  ``send_offsets_to_transaction`` with the consumer's group metadata, commit. On an
  abortable error it aborts and rewinds to the committed offsets; when fenced it records
  the error and exits (status 3), as a zombie must.

With ``sink_db`` set the effect of each input is a row in a SQLite database instead of a
Kafka record (harness.workloads.apps.sqlite_sink): plain mode inserts the rows at once and commits offsets to
Kafka afterwards; transactional mode writes rows and next offsets in one database
transaction and takes its starting offsets from the database (at_most_once has no sink).

``bug_offsets_outside_txn_every`` is a **planted bug, for testing ``kafka-harness explore``**
only: every n-th transaction's input offsets are committed by the consumer, at once and
outside the transaction (an ``offsets-commit`` line first, as in plain mode), instead of with
``send_offsets_to_transaction``. Nothing shows it until the transaction fails to commit (a
crash, an abort): its inputs are then marked done with no output for them (``eos_missing``).

``pause_before_commit_ms`` is the time between a batch's two steps, producing it and
committing it (in at_most_once: committing it and producing it): the window a crash must
hit to matter. The app stops once it has had nothing to do for ``idle_exit_s``: every
partition it owns read up to its end and every other partition of the input stored by the
group up to its end (waiting for a rebalance or for another instance's pending offsets is
not idleness); an app that owns no partition waits ``join_grace_s`` before it looks.
Its last line of output is a JSON report (see ``harness.workloads.apps.producer``).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition

from harness.history.ledger import LedgerWriter
from harness.history.records import decode_id, encode_value, make_id, own_id
from harness.workloads.apps.sqlite_sink import Sink
from harness.workloads.apps.transactions import (
    ABORTED,
    FENCED_EXIT,
    aborts_on_purpose,
    end_transaction,
    every_nth,
    fenced,
    print_report,
    report_progress_with,
    until_answered,
)

PLAIN, AT_MOST_ONCE, TRANSACTIONAL = "plain", "at_most_once", "transactional"
_REWIND_ATTEMPTS = 5
# The local timeouts librdkafka answers a call with when the broker did not answer in time.
_TIMEOUTS = (KafkaError._TIMED_OUT, KafkaError._TIMED_OUT_QUEUE)
MODES = (PLAIN, AT_MOST_ONCE, TRANSACTIONAL)


@dataclass
class TransformerSpec:
    bootstrap_servers: str
    input_topic: str
    output_topic: str
    group_id: str
    ledger: str
    session: int
    # The input topic's partitions, for the idle check: asking the brokers (list_topics) would
    # teach librdkafka 2.1.0 the partitions' leader epochs before the app has read anything, and
    # so hide the rewind R3 shows (librdkafka #4261).
    input_partitions: int
    mode: str = TRANSACTIONAL  # one of MODES
    transactional_id: str = ""  # transactional mode; empty: derived from the group and session
    batch_size: int = 50  # input records per transaction (or per offset commit)
    pause_before_commit_ms: int = 0
    abort_every: int = 0  # transactional: abort every n-th batch on purpose, then redo it
    # PLANTED BUG, for testing explore only: every n-th transaction's offsets committed by the
    # consumer outside the transaction (0: never; see the module's doc).
    bug_offsets_outside_txn_every: int = 0
    value_bytes: int = 100
    idle_exit_s: float = 6.0
    join_grace_s: float = 20.0
    producer_config: dict[str, Any] = field(default_factory=dict)
    consumer_config: dict[str, Any] = field(default_factory=dict)
    resume: dict[str, Any] | None = None  # a restart's plan (harness.workloads.resume.transformer_resume)
    sink_db: str = ""  # a SQLite file: the effects go there, not to the output topic
    login: dict[str, str] = field(default_factory=dict)  # on a secured cluster, for both clients

    def to_json(self) -> dict[str, Any]:
        """The spec file's document, for either app: without the planted bug when it is off, a
        field the Java app does not know and refuses."""
        doc = asdict(self)
        if not self.bug_offsets_outside_txn_every:
            del doc["bug_offsets_outside_txn_every"]
        return doc


class _App:
    def __init__(self, spec: TransformerSpec, ledger: LedgerWriter) -> None:
        if spec.mode not in MODES or (spec.mode == AT_MOST_ONCE and spec.sink_db):
            raise ValueError(f"mode {spec.mode!r}: one of {', '.join(MODES)}; {AT_MOST_ONCE} has no sink_db")
        self.spec, self.ledger = spec, ledger
        self.transactional = spec.mode == TRANSACTIONAL
        self.errors: Counter[str] = Counter()
        self.counts = {"consumed": 0, "produced": 0, "batches": 0, "aborted": 0}
        self.consumer = Consumer(
            {
                "bootstrap.servers": spec.bootstrap_servers,
                "group.id": spec.group_id,
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "isolation.level": "read_committed",
                # The smallest session a broker allows by default: a dead member leaves the
                # group in seconds, so a restarted app is not kept waiting for it.
                "session.timeout.ms": 6000,
                **spec.consumer_config,
                **spec.login,
            }
        )
        producer_config = {"bootstrap.servers": spec.bootstrap_servers, **spec.producer_config, **spec.login}
        if self.transactional:
            producer_config["transactional.id"] = spec.transactional_id or f"{spec.group_id}-{spec.session}"
        self.transactional_id = producer_config.get("transactional.id", "")
        self.producer = Producer(producer_config)
        self._on_delivery = self._delivered  # one bound method for every record, made once
        self.sink = Sink(Path(spec.sink_db), f"session-{spec.session}") if spec.sink_db else None
        report_progress_with(self._report)
        resume = spec.resume or {}  # a restart carries on its ids and transaction numbers
        self.seq, self.txn = resume.get("next_seq", 0), resume.get("next_txn", 0)

    def _delivered(self, err: KafkaError | None, msg: Message) -> None:
        record_id = own_id(msg.value())  # as the producer app does: no closure per record in flight
        if err is None:
            self.ledger.ok(record_id, msg.partition(), msg.offset())
        else:
            self.errors[err.name()] += 1
            self.ledger.info(record_id, err.name())

    def _emit(self, inputs: list[Message], txn: int | None) -> None:
        """The batch's outputs: their ``invoke`` lines in one write, then the records to the client
        (as the producer app does with a chunk), then the outcomes served so far written."""
        spec = self.spec
        out_ids = [make_id(spec.session, seq) for seq in range(self.seq, self.seq + len(inputs))]
        self.seq += len(inputs)
        sources = [decode_id(m.value()) for m in inputs]
        self.ledger.invokes(spec.session, out_ids, spec.output_topic, txn=txn, sources=sources)
        for out_id, m in zip(out_ids, inputs, strict=True):
            self.producer.produce(
                spec.output_topic, encode_value(out_id, spec.value_bytes), m.key(), on_delivery=self._on_delivery
            )
        self.producer.poll(0)
        self.ledger.flush()
        self.counts["produced"] += len(inputs)

    def run(self) -> dict[str, Any]:
        spec = self.spec
        if self.transactional and self.sink is None:
            self.producer.init_transactions(30)
        self.ledger.session(spec.session, self.transactional_id)
        if self.sink is not None and self.transactional:
            self.consumer.subscribe([spec.input_topic], on_assign=self._from_database)
        else:
            self.consumer.subscribe([spec.input_topic])
        started = idle_since = time.monotonic()
        try:
            while time.monotonic() - idle_since < spec.idle_exit_s:
                batch = [m for m in self.consumer.consume(spec.batch_size, timeout=0.5) if m.error() is None]
                if not batch:
                    if not self._nothing_to_do(time.monotonic() - started):
                        idle_since = time.monotonic()
                    continue
                self.counts["consumed"] += len(batch)
                if self.sink is not None:
                    self._effects(batch, self.sink)
                elif self.transactional:
                    self._transaction(batch)
                elif spec.mode == AT_MOST_ONCE:
                    self._at_most_once(batch)
                else:
                    self._plain(batch)
                self.counts["batches"] += 1
                # Idle from the end of the work: a batch slowed down (by a fault, or a busy
                # machine) for longer than idle_exit_s must not end the app before it looks again.
                idle_since = time.monotonic()
        except KafkaException as exc:
            err = exc.args[0]
            self.errors[err.name()] += 1
            if fenced(err):
                self.ledger.fenced(spec.session, err.name())
                return self._report(fenced={"error": err.name(), "message": err.str()})
            raise
        finally:
            self.consumer.close()
        return self._report()

    def _nothing_to_do(self, running_s: float) -> bool:
        """Idle only when the group's whole input is done, not just this app's share: an
        instance stuck in a client call (librdkafka issue 5456) may hold partitions until it
        gives up, and they come back to the survivor only then."""
        owned = self.consumer.assignment()
        if not owned and running_s <= self.spec.join_grace_s:
            return False
        try:
            positions = {(tp.topic, tp.partition): tp.offset for tp in self.consumer.position(owned)} if owned else {}
            for partition in range(self.spec.input_partitions):
                tp = TopicPartition(self.spec.input_topic, partition)
                low, high = self.consumer.get_watermark_offsets(tp, timeout=5, cached=False)
                # Nothing consumed here since the assignment (or not ours): the partition
                # starts where the group's offsets were stored (or at its beginning).
                at = positions.get((tp.topic, tp.partition), -1)
                if max(at if at >= 0 else self._stored_offset(tp), low) < high:
                    return False
        except KafkaException:
            # No answer yet, e.g. the committed offsets wait for another instance's
            # transaction to end (KIP-447): still busy, not idle.
            return False
        return True

    def _stored_offset(self, tp: TopicPartition) -> int:
        if self.sink is not None and self.transactional:
            return self.sink.next_offsets(tp.topic).get(tp.partition, -1)
        (committed,) = self.consumer.committed([tp], timeout=5)
        return committed.offset

    def _effects(self, batch: list[Message], sink: Sink) -> None:
        inputs = [decode_id(m.value()) for m in batch]
        if self.transactional:  # effects and offsets in one database transaction
            self._pause()
            sink.effects_with_offsets(inputs, {(m.topic(), m.partition()): m.offset() + 1 for m in batch})
            return
        for input_id in inputs:  # the side effect happens now, whatever follows
            sink.effect(input_id)
        self._pause()
        self._commit_offsets()

    def _from_database(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        """On assignment: start where the database says, not where the group says."""
        assert self.sink is not None
        stored = self.sink.next_offsets(self.spec.input_topic)
        for tp in partitions:
            tp.offset = stored.get(tp.partition, OFFSET_BEGINNING)
        consumer.assign(partitions)

    def _plain(self, batch: list[Message]) -> None:
        self._write(batch)
        self._pause()
        self._commit_offsets()

    def _at_most_once(self, batch: list[Message]) -> None:
        if self._commit_offsets():
            self.ledger.offsets_committed(self.spec.session)
        self._pause()
        self._write(batch)

    def _write(self, batch: list[Message]) -> None:
        self._emit(batch, None)
        self.producer.flush(60)
        self.ledger.flush()

    def _pause(self) -> None:
        time.sleep(self.spec.pause_before_commit_ms / 1000)

    def _commit_offsets(self) -> bool:
        """The consumed positions committed; False when the group refused them."""
        self.ledger.offsets_commit(self.spec.session)
        try:
            self.consumer.commit(asynchronous=False)
        except KafkaException as exc:
            # The group moved on (a rebalance while this app was away): whoever owns the
            # partitions now starts from the offsets committed before. After the outputs
            # (plain) that repeats the batch: the control's anomaly, not a crash.
            self.errors[exc.args[0].name()] += 1
            return False
        return True

    def _transaction(self, batch: list[Message]) -> None:
        spec, p, c = self.spec, self.producer, self.consumer
        txn, self.txn = self.txn, self.txn + 1
        p.begin_transaction()
        self.ledger.txn("begin", spec.session, txn)
        self._emit(batch, txn)

        def add_offsets() -> None:
            if every_nth(spec.bug_offsets_outside_txn_every, txn):  # the planted bug (module doc)
                self._commit_offsets()
            else:

                def send_offsets_to_transaction(timeout_s: float) -> None:
                    p.send_offsets_to_transaction(c.position(c.assignment()), c.consumer_group_metadata(), timeout_s)

                until_answered(send_offsets_to_transaction, 30, 5)
            self._pause()

        outcome = end_transaction(
            p, self.ledger, spec.session, txn, aborts_on_purpose(spec.abort_every, txn), add_offsets
        )
        if outcome == ABORTED:
            self._rewind()

    def _rewind(self) -> None:
        """Back to the group's committed offsets, so an aborted batch is processed again. Asked
        again while the coordinator does not answer in time (a slow or cut link): the batch was
        aborted because of such a stall, and giving up here would end the app for it."""
        self.counts["aborted"] += 1
        for attempt in range(_REWIND_ATTEMPTS):
            try:
                committed = self.consumer.committed(self.consumer.assignment(), timeout=30)
                break
            except KafkaException as exc:
                err = exc.args[0]
                if attempt == _REWIND_ATTEMPTS - 1 or not (err.retriable() or err.code() in _TIMEOUTS):
                    raise
                self.errors[err.name()] += 1
        for tp in committed:
            self.consumer.seek(TopicPartition(tp.topic, tp.partition, max(tp.offset, 0)))

    def _report(self, **extra: Any) -> dict[str, Any]:
        return {"outcomes": self.counts, "errors": dict(self.errors), **extra}


def main() -> None:
    spec = TransformerSpec(**json.loads(Path(sys.argv[1]).read_text()))
    ledger = LedgerWriter(Path(spec.ledger))
    report = _App(spec, ledger).run()
    ledger.close()
    print_report(report)
    sys.exit(FENCED_EXIT if "fenced" in report else 0)


if __name__ == "__main__":
    main()
