"""A producer process: sends uniquely identified records at a steady rate, writing its ledger.

Run as ``python -m harness.workloads.producer SPEC.json`` so that killing it is a real kill.
The spec (``ProducerSpec``) carries the librdkafka configuration under test verbatim. With
a ``transactional.id`` in that configuration it sends in transactions of ``txn_size``
records and aborts every ``abort_every``-th one on purpose.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from harness.history import UNDECODABLE_ID
from harness.ledger import LedgerWriter, make_id


@dataclass
class ProducerSpec:
    bootstrap_servers: str
    topic: str
    ledger: str
    session: int = 1  # unique per producer instance within a run: record ids carry it
    count: int = 2000
    rate_per_s: float = 200.0
    value_bytes: int = 100
    keys: int = 0  # 0: no key (sticky partitioning); n: keys k0..k(n-1) round robin
    config: dict[str, Any] = field(default_factory=dict)
    txn_size: int = 10  # with a transactional.id: records per transaction
    abort_every: int = 0  # with a transactional.id: abort every n-th transaction (0: never)
    flush_timeout_s: float = 120.0

    def save(self, path: Path) -> Path:
        path.write_text(json.dumps(asdict(self), indent=2))
        return path


def encode_value(record_id: int, value_bytes: int) -> bytes:
    """``<id>|<padding>``: the decimal id is everything before the first ``|``."""
    head = b"%d|" % record_id
    return head + b"x" * max(0, value_bytes - len(head))


def decode_id(value: bytes | None) -> int:
    try:
        return int((value or b"").split(b"|", 1)[0])
    except ValueError:
        return UNDECODABLE_ID


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
        self.counts = {"ok": 0, "fail": 0, "info": 0}
        self.producer = Producer({"bootstrap.servers": spec.bootstrap_servers, **spec.config})

    def _delivered(self, record_id: int, err: KafkaError | None, msg: Message) -> None:
        if err is None:
            self.ledger.ok(record_id, msg.partition(), msg.offset())
            self.counts["ok"] += 1
        else:
            kind = outcome_of(err)
            (self.ledger.info if kind == "info" else self.ledger.fail)(record_id, err.name())
            self.counts[kind] += 1

    def send(self, seq: int, txn: int | None, started: float) -> None:
        spec = self.spec
        self.producer.poll(max(0.0, started + seq / spec.rate_per_s - time.monotonic()))
        record_id = make_id(spec.session, seq)
        key = f"k{seq % spec.keys}" if spec.keys else None
        self.ledger.invoke(spec.session, record_id, spec.topic, key=key, txn=txn)
        while True:
            try:
                self.producer.produce(
                    spec.topic,
                    encode_value(record_id, spec.value_bytes),
                    key.encode() if key else None,
                    on_delivery=lambda err, msg, record_id=record_id: self._delivered(record_id, err, msg),
                )
                return
            except BufferError:  # local queue full: let deliveries drain
                self.producer.poll(0.1)


def run(spec: ProducerSpec) -> dict[str, int]:
    ledger = LedgerWriter(Path(spec.ledger))
    sender = _Sender(spec, ledger)
    transactional_id = spec.config.get("transactional.id")
    if transactional_id:
        sender.producer.init_transactions(30)
    ledger.session(spec.session, transactional_id)
    started = time.monotonic()
    if not transactional_id:
        for seq in range(spec.count):
            sender.send(seq, None, started)
        # Whatever is still queued has no outcome: the checker counts it as indeterminate.
        sender.counts["unfinished"] = sender.producer.flush(spec.flush_timeout_s)
    else:
        _run_transactions(spec, sender, started)
    ledger.close()
    return sender.counts


def _run_transactions(spec: ProducerSpec, sender: _Sender, started: float) -> None:
    p, ledger = sender.producer, sender.ledger
    for txn, first in enumerate(range(0, spec.count, spec.txn_size)):
        p.begin_transaction()
        ledger.txn("begin", spec.session, txn)
        for seq in range(first, min(first + spec.txn_size, spec.count)):
            sender.send(seq, txn, started)
        try:
            if spec.abort_every and txn % spec.abort_every == spec.abort_every - 1:
                # Written first, then aborted: an abort with records still queued would
                # purge them locally and the log would never hold anything to hide.
                p.flush(60)
                p.abort_transaction(60)
                ledger.txn("aborted", spec.session, txn, "on purpose")
                continue
            ledger.txn("commit", spec.session, txn)
            p.commit_transaction(60)
            ledger.txn("committed", spec.session, txn)
        except KafkaException as exc:
            err = exc.args[0]
            if err.txn_requires_abort():
                p.abort_transaction(60)
                ledger.txn("aborted", spec.session, txn, err.name())
                continue
            ledger.txn("unknown", spec.session, txn, err.name())
            if err.code() == KafkaError._FENCED or err.fatal():
                ledger.fenced(spec.session, err.name())
            raise


def main() -> None:
    spec = ProducerSpec(**json.loads(Path(sys.argv[1]).read_text()))
    print(json.dumps(run(spec)), flush=True)


if __name__ == "__main__":
    main()
