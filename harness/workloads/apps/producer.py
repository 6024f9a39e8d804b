"""A producer process: sends uniquely identified records at a steady rate, writing its ledger.

Run as ``python -m harness.workloads.apps.producer SPEC.json`` so that killing it is a real kill.
The spec (``ProducerSpec``) carries the librdkafka configuration under test verbatim. With
a ``transactional.id`` in that configuration it sends in transactions of ``txn_size``
records (or fewer: with ``txn_ms``, a transaction also ends once it has been open that long)
and aborts every ``abort_every``-th one on purpose; a commit that fails with a retriable error is
asked again, or, with ``on_commit_error="resend"`` (an application bug), taken for not done: its
records are sent again by a fresh producer. A restarted app (an
incarnation after the first) resumes as the harness planned it (``resume``; see
``harness.workloads.resume``).

It sends in **chunks**: every record due by now at the spec's rate, at most ``chunk`` of
them (one at a time at a modest rate, ``chunk`` at a time flat out). A chunk's ``invoke``
lines are written in one ``write()``, and only then are its records handed to
``produce()``; the delivery callbacks' outcome lines are collected and written once per
``poll()``, which follows every chunk (``harness.history.ledger``). So a SIGKILL leaves
every record in the log with its ``invoke`` line, and at most ``chunk`` +
``queue.buffering.max.messages`` sends without an outcome: the rest of the chunk not yet
handed over, and what librdkafka held (queued, in flight, or delivered in the ``poll()``
that was running), which it caps at that many messages.

Its last line of output is a JSON report: outcome counts, error names, the longest
time without an acknowledgement (how long the cluster was unavailable to it), or a
``setup_error`` when the client refused its configuration (exit status 2), or ``fenced``
when a newer producer took its transactional.id (exit status 3).
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from harness.history.ledger import LedgerWriter
from harness.history.records import SOURCE_HEADER, encode_source, encode_value, make_id, own_id
from harness.waits import Deadline
from harness.workloads.apps.transactions import (
    ABORTED,
    FENCED_EXIT,
    aborts_on_purpose,
    end_transaction,
    fenced,
    print_report,
    report_progress_with,
)

INIT_TRANSACTIONS_TIMEOUT_S = 30


@dataclass
class ProducerSpec:
    bootstrap_servers: str
    topic: str
    ledger: str
    session: int = 1  # the app's session: its record ids carry it, restarts continue it
    count: int = 2000
    rate_per_s: float = 200.0
    # Sent in bursts of this many records at the rate, each followed by a pause of pause_s
    # (0: steady): a live input, whose readers reach its end again and again.
    burst: int = 0
    pause_s: float = 0.0
    chunk: int = 1000  # at most this many records per ledger write and produce() burst (module doc)
    value_bytes: int = 100
    keys: int = 0  # 0: no key (sticky partitioning); n: keys k0..k(n-1) round robin
    config: dict[str, Any] = field(default_factory=dict)
    txn_size: int = 10  # with a transactional.id: records per transaction
    txn_ms: float = 0  # with a transactional.id: also end a transaction once open this long (0: by size only)
    abort_every: int = 0  # with a transactional.id: abort every n-th transaction (0: never)
    duplicate_every: int = 0  # an application bug: produce() every n-th record twice (0: never)
    # With a transactional.id, what the app does when a commit fails with a retriable error (a
    # timeout: the outcome is open): "retry" asks again, as the clients' documentation says;
    # "resend" is an application bug: it takes the commit for not done and sends the
    # transaction's records again from a fresh producer.
    on_commit_error: str = "retry"
    commit_timeout_s: float = 60.0  # each commit_transaction call's timeout
    # After a transaction the app did not mean to abort was aborted (a send failed), wait this
    # long before the next one, as apps back off after an error.
    pause_after_abort_ms: int = 0
    # With a transactional.id: each transaction's first record is sent alone and acknowledged
    # before the rest (its partition's leader has the transaction open when the others join).
    open_first: bool = False
    # Each record also carries its id in the header harness.history.records.SOURCE_HEADER (the
    # input of a user's own app: harness.userapps.contract).
    source_header: bool = False
    flush_timeout_s: float = 120.0
    # A restarted app's plan (harness.workloads.resume.producer_resume); None on a first start.
    resume: dict[str, Any] | None = None
    # Its login on a secured cluster (KafkaCluster.client_config), for every client it makes.
    login: dict[str, str] = field(default_factory=dict)

    def save(self, path: Path) -> Path:
        path.write_text(json.dumps(asdict(self), indent=2))
        return path


def outcome_of(err: KafkaError) -> str:
    """``info`` when the broker may have written the record, ``fail`` when it surely did not."""
    # A retriable error or a timeout may follow an attempt the broker did write.
    if err.retriable() or err.code() in (
        KafkaError._MSG_TIMED_OUT,
        KafkaError._TIMED_OUT,
        KafkaError.REQUEST_TIMED_OUT,
        KafkaError._TRANSPORT,
    ):
        return "info"
    return "fail"


class _Sender:
    def __init__(self, spec: ProducerSpec, ledger: LedgerWriter) -> None:
        self.spec, self.ledger = spec, ledger
        self.counts = {"fail": 0, "info": 0}
        self.acknowledged = 0
        self.errors: Counter[str] = Counter()
        self.longest_ack_gap_s = 0.0  # the longest time without any acknowledgement: unavailability
        self.sent = 0
        self.producer = self._new_producer()
        self._retired: list[Producer] = []
        self.started = self._last_ack = time.monotonic()
        self._keys = [f"k{k}" for k in range(spec.keys)]
        self._on_delivery = self._delivered  # one bound method for every record, made once

    def _new_producer(self) -> Producer:
        spec = self.spec
        return Producer({"bootstrap.servers": spec.bootstrap_servers, **spec.config, **spec.login})

    def reopen(self) -> None:
        """A fresh producer with the same transactional.id, initialised: it fences the old one,
        whose open transaction the coordinator finishes first. The old one is kept, not
        destroyed: librdkafka's destroy would wait for its requests still being retried."""
        self._retired.append(self.producer)
        self.producer = self._new_producer()
        self.producer.init_transactions(INIT_TRANSACTIONS_TIMEOUT_S)

    def _delivered(self, err: KafkaError | None, msg: Message) -> None:
        # Once per record: kept to the least work. The record's id is read back from its value
        # rather than bound into a closure per record: a closure per record in flight (up to
        # queue.buffering.max.messages of them) costs more in garbage collection than this.
        record_id = own_id(msg.value())
        if err is None:
            self.ledger.ok(record_id, msg.partition(), msg.offset())
            self.acknowledged += 1
        else:
            kind = outcome_of(err)
            (self.ledger.info if kind == "info" else self.ledger.fail)(record_id, err.name())
            self.counts[kind] += 1
            self.errors[err.name()] += 1

    def poll(self, timeout_s: float) -> None:
        """Serve delivery callbacks, then write the outcomes they collected. The time without an
        acknowledgement is measured here, poll to poll, not per record: the app polls after every
        chunk, and at most every 0.1 s while it waits."""
        acknowledged = self.acknowledged
        self.producer.poll(timeout_s)
        if self.acknowledged != acknowledged:
            now = time.monotonic()
            self.longest_ack_gap_s = max(self.longest_ack_gap_s, now - self._last_ack)
            self._last_ack = now
        self.ledger.flush()

    def send(self, seqs: list[int], txn: int | None, until: float = math.inf) -> int:
        """Send records ``seqs`` in chunks, each record when it falls due at the spec's rate, and no
        chunk after ``until`` (monotonic time) but the first; returns how many were sent."""
        spec, done = self.spec, 0
        while done < len(seqs) and (done == 0 or time.monotonic() < until):
            late_s = time.monotonic() - self.started
            due = min(self._due_by(late_s) - self.sent, spec.chunk, len(seqs) - done)
            if due <= 0:  # the next record is not due yet: serve callbacks meanwhile
                self.poll(self._due_at(self.sent) - late_s)
                continue
            self._chunk(seqs[done : done + due], txn)
            done += due
            self.sent += due
            self.poll(0)
        return done

    def _due_by(self, late_s: float) -> int:
        """How many records have fallen due ``late_s`` seconds after the start."""
        spec = self.spec
        if not spec.burst:
            return int(late_s * spec.rate_per_s) + 1
        cycles, within = divmod(late_s, spec.burst / spec.rate_per_s + spec.pause_s)
        return int(cycles) * spec.burst + min(spec.burst, int(within * spec.rate_per_s) + 1)

    def _due_at(self, n: int) -> float:
        """Seconds after the start at which record ``n`` (from 0) falls due."""
        spec = self.spec
        if not spec.burst:
            return n / spec.rate_per_s
        cycles, i = divmod(n, spec.burst)
        return cycles * (spec.burst / spec.rate_per_s + spec.pause_s) + i / spec.rate_per_s

    def _chunk(self, seqs: list[int], txn: int | None) -> None:
        """Ledger the chunk's sends, then hand them to the client (twice, when the app bug says so)."""
        spec = self.spec
        every = spec.duplicate_every
        sends = [seq for seq in seqs for _ in range(2 if seq % every == every - 1 else 1)] if every else seqs
        ids = [make_id(spec.session, seq) for seq in sends]
        keys = [self._keys[seq % spec.keys] for seq in sends] if spec.keys else [None] * len(sends)
        self.ledger.invokes(spec.session, ids, spec.topic, keys, txn)
        for n, (record_id, key) in enumerate(zip(ids, keys, strict=True)):
            value = encode_value(record_id, spec.value_bytes)
            headers = [(SOURCE_HEADER, encode_source(record_id))] if spec.source_header else None
            while True:
                try:
                    self.producer.produce(spec.topic, value, key, headers=headers, on_delivery=self._on_delivery)
                    break
                except BufferError:  # local queue full: let deliveries drain
                    self.poll(0.1)
                except KafkaException as exc:  # refused, so surely not written, nor the rest of the chunk
                    for never in ids[n:]:
                        self.ledger.fail(never, exc.args[0].name())
                    self.counts["fail"] += len(ids) - n
                    self.errors[exc.args[0].name()] += len(ids) - n
                    raise

    def drain(self, timeout_s: float) -> int:
        """Wait up to ``timeout_s`` for every outcome, writing them as they come; how many have none."""
        # A Deadline, not poll_until: poll() does the waiting, and serves callbacks while it does.
        deadline = Deadline(timeout_s)
        while len(self.producer) and not deadline.expired():
            self.poll(min(0.1, deadline.remaining()))
        return len(self.producer)  # recorded as ``unfinished``; mid-transaction, its end settles the rest

    def report(self, **extra: Any) -> dict[str, Any]:
        return {
            "outcomes": {"ok": self.acknowledged, **self.counts},
            "errors": dict(self.errors),
            "longest_ack_gap_s": round(self.longest_ack_gap_s, 3),
            **extra,
        }


def _resend(spec: ProducerSpec) -> list[int]:
    """The records to send again first (``resume``, planned by the harness:
    harness.workloads.resume): those in doubt only if the log does not hold them committed.
    Asked after ``init_transactions``, which finishes the old transaction first."""
    resume = spec.resume or {}
    resend, in_doubt = resume.get("resend", []), resume.get("in_doubt", [])
    if not in_doubt:
        return list(resend)
    # Imported here, where the log is read back: numpy and pyarrow would add a quarter of a
    # second (of CPU, more of wall time on a busy machine) to every other start of the app.
    import numpy as np

    from harness.history import loading, readback

    with tempfile.TemporaryDirectory(prefix="resume-") as tmp:
        reads = readback.read_back(spec.bootstrap_servers, [spec.topic], Path(tmp), login=spec.login)
        committed_ids = loading.load([], reads).views["read_committed"].id
    committed = np.isin(make_id(spec.session, np.array(in_doubt, np.int64)), committed_ids)
    found = set(np.array(in_doubt)[committed].tolist())
    return [seq for seq in resend if seq not in found]


def run(spec: ProducerSpec) -> dict[str, Any]:
    ledger = LedgerWriter(Path(spec.ledger))
    transactional_id = spec.config.get("transactional.id")
    stage = "create"
    try:
        sender = _Sender(spec, ledger)
        if transactional_id:
            stage = "init_transactions"
            sender.producer.init_transactions(INIT_TRANSACTIONS_TIMEOUT_S)
    except KafkaException as exc:
        err = exc.args[0]
        ledger.close()
        # _INVALID_ARG: librdkafka refused the configuration before talking to anyone.
        config = err.code() in (KafkaError._INVALID_ARG, KafkaError.INVALID_TRANSACTION_TIMEOUT)
        return {"setup_error": {"error": err.name(), "message": err.str(), "config": config, "stage": stage}}
    ledger.session(spec.session, transactional_id)
    resend = _resend(spec)
    report_progress_with(lambda: sender.report(resent=len(resend)))
    resume = spec.resume or {}
    seqs = resend + list(range(resume.get("next_seq", 0), spec.count))
    if not transactional_id:
        sender.send(seqs, None)
        # Whatever is still queued has no outcome: the checker counts it as indeterminate.
        sender.counts["unfinished"] = sender.drain(spec.flush_timeout_s)
    else:
        try:
            _run_transactions(spec, sender, seqs, resume.get("next_txn", 0))
        except KafkaException as exc:
            err = exc.args[0]
            if not fenced(err):
                raise
            ledger.fenced(spec.session, err.name())
            ledger.close()
            return sender.report(resent=len(resend), fenced={"error": err.name(), "message": err.str()})
    ledger.close()
    return sender.report(resent=len(resend))


def _run_transactions(spec: ProducerSpec, sender: _Sender, seqs: list[int], first_txn: int) -> None:
    ledger = sender.ledger
    resend = spec.on_commit_error == "resend"
    done, txn = 0, first_txn
    while done < len(seqs):
        sender.producer.begin_transaction()
        ledger.txn("begin", spec.session, txn)
        until = time.monotonic() + spec.txn_ms / 1000 if spec.txn_ms else math.inf
        try:
            sent = 0
            if spec.open_first:
                sent = sender.send(seqs[done : done + 1], txn, until)
                sender.drain(spec.flush_timeout_s)
            sent += sender.send(seqs[done + sent : done + spec.txn_size], txn, until)
        except KafkaException as exc:
            # The transaction failed under its sends: the rest of its records are not sent (as in
            # the Java app); its end finds the failure and aborts it, or says it is fatal.
            if exc.args[0].code() != KafkaError._STATE:
                raise
            sent = min(spec.txn_size, len(seqs) - done)
        abort = aborts_on_purpose(spec.abort_every, txn)
        try:
            attempts = 1 if resend else 5
            outcome = end_transaction(
                sender.producer, ledger, spec.session, txn, abort, timeout_s=spec.commit_timeout_s, attempts=attempts
            )
            done += sent
            if outcome == ABORTED and not abort:  # a send failed: back off as the spec says
                sender.poll(spec.pause_after_abort_ms / 1000)
        except KafkaException as exc:
            if not resend or fenced(exc.args[0]):
                raise
            sender.reopen()  # the bug: the records go again, in the next transaction
        txn += 1


def main() -> None:
    spec = ProducerSpec(**json.loads(Path(sys.argv[1]).read_text()))
    report = run(spec)
    print_report(report)
    sys.exit(2 if "setup_error" in report else FENCED_EXIT if "fenced" in report else 0)


if __name__ == "__main__":
    main()
