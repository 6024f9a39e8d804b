"""Order enricher: a consume-transform-produce app, exactly-once with Kafka transactions.

It reads orders, enriches each one (here: upper-cases its value, at a small cost per record)
and writes one enriched order per order. Per batch it begins a transaction, produces the
outputs, adds the input offsets to the same transaction (``send_offsets_to_transaction`` with
the consumer's group metadata) and commits: outputs and progress become visible together or
not at all. Its consumer reads ``read_committed``, so it never sees orders of an aborted
transaction.

Three real bugs, one flag each:

- ``--bug offsets-outside-txn``: the consumer commits its offsets by itself (auto-commit, every
  5 s, of what it has read), outside the transactions. Crash, restart, and the new instance
  starts from offsets that do not match the outputs that were committed: orders are enriched
  twice, or never.
- ``--bug read-uncommitted``: the consumer reads ``read_uncommitted`` (Java's default), so it
  enriches orders whose transaction aborted.
- ``--bug at-least-once``: no transactions: an idempotent producer writes the batch's outputs,
  flushes them, and then the consumer commits the batch's offsets synchronously (the textbook
  at-least-once loop). Killed between the flush and the commit, the restarted instance
  enriches the batch again: its outputs are written twice.

It takes its settings from the environment kafka-eos-harness gives it (KEH_BOOTSTRAP_SERVERS,
KEH_INPUT_TOPIC, KEH_OUTPUT_TOPIC, KEH_GROUP_ID, KEH_TRANSACTIONAL_ID_PREFIX, KEH_INSTANCE) and
runs until it is stopped (SIGTERM). Outputs keep their input's headers, so each names the order
it came from (the ``keh-source`` header).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition

BUGS = ("offsets-outside-txn", "read-uncommitted", "at-least-once")


def enrich(value: bytes | None) -> bytes:
    return (value or b"").upper()


def offsets_after(batch: list[Message]) -> list[TopicPartition]:
    """Per partition, the offset after the batch's last record: where to resume."""
    last: dict[tuple[str, int], int] = {}
    for msg in batch:
        key = (msg.topic(), msg.partition())
        last[key] = max(last.get(key, -1), msg.offset())
    return [TopicPartition(topic, partition, offset + 1) for (topic, partition), offset in last.items()]


def rewind(consumer: Consumer) -> None:
    """Back to the group's committed offsets: the aborted batch is read again."""
    for tp in consumer.committed(consumer.assignment(), timeout=10):
        consumer.seek(TopicPartition(tp.topic, tp.partition, tp.offset if tp.offset >= 0 else 0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", choices=BUGS, help="switch on a real exactly-once bug")
    parser.add_argument("--work-ms", type=float, default=5.0, help="time enriching one order takes")
    args = parser.parse_args(argv)
    env = os.environ
    instance = env.get("KEH_INSTANCE", "1")
    consumer = Consumer(
        {
            "bootstrap.servers": env["KEH_BOOTSTRAP_SERVERS"],
            "group.id": env["KEH_GROUP_ID"],
            "auto.offset.reset": "earliest",
            "enable.auto.commit": args.bug == "offsets-outside-txn",
            "isolation.level": "read_uncommitted" if args.bug == "read-uncommitted" else "read_committed",
            # A killed instance leaves the group in seconds, so its partitions move on quickly.
            "session.timeout.ms": 6000,
        }
    )
    if args.bug == "at-least-once":
        return at_least_once(consumer, env, args.work_ms)
    producer = Producer(
        {
            "bootstrap.servers": env["KEH_BOOTSTRAP_SERVERS"],
            "transactional.id": f"{env['KEH_TRANSACTIONAL_ID_PREFIX']}-{instance}",
        }
    )
    producer.init_transactions(30)  # fences an earlier incarnation of this instance, aborting its transaction
    consumer.subscribe([env["KEH_INPUT_TOPIC"]])
    stopping = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    output = env["KEH_OUTPUT_TOPIC"]
    while not stopping:
        batch = [msg for msg in consumer.consume(100, timeout=0.5) if msg.error() is None]
        if not batch:
            continue
        producer.begin_transaction()
        try:
            for msg in batch:
                time.sleep(args.work_ms / 1000)
                producer.produce(output, enrich(msg.value()), msg.key(), headers=msg.headers())
            if args.bug != "offsets-outside-txn":
                producer.send_offsets_to_transaction(offsets_after(batch), consumer.consumer_group_metadata())
            producer.commit_transaction()
        except KafkaException as exc:
            error: KafkaError = exc.args[0]
            if not error.txn_requires_abort():
                raise  # fenced or fatal: a newer instance took over, or the producer is unusable
            producer.abort_transaction()
            rewind(consumer)
    consumer.close()
    return 0


def at_least_once(consumer: Consumer, env: os._Environ[str], work_ms: float) -> int:
    """The ``at-least-once`` bug: outputs flushed, then offsets committed; nothing ties the two."""
    producer = Producer({"bootstrap.servers": env["KEH_BOOTSTRAP_SERVERS"], "enable.idempotence": True})
    consumer.subscribe([env["KEH_INPUT_TOPIC"]])
    stopping = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    while not stopping:
        batch = [msg for msg in consumer.consume(100, timeout=0.5) if msg.error() is None]
        if not batch:
            continue
        for msg in batch:
            time.sleep(work_ms / 1000)
            producer.produce(env["KEH_OUTPUT_TOPIC"], enrich(msg.value()), msg.key(), headers=msg.headers())
        producer.flush()
        try:
            consumer.commit(offsets=offsets_after(batch), asynchronous=False)
        except KafkaException as exc:
            if exc.args[0].fatal():
                raise
            continue  # the group moved on: the batch is read again by whoever owns it now
    consumer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
