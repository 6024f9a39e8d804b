"""The reference app: the control a user's app lacks.

check-app runs it beside your app, on topics of its own, under the same fault schedule: a
consume-transform-produce app on the contract (harness.userapps.contract) that is at-least-once
by construction. Per batch its idempotent producer writes one output per input (keeping the
input's headers, so each output names its input), flushes them, and only then does its consumer
commit the batch's offsets, synchronously. A fault that can expose a consume-transform-produce
app's exactly-once (a crash with outputs written and their offsets not committed) makes it
repeat; a schedule under which it repeats nothing proved nothing about your app either.

Run as ``python -m harness.userapps.reference_app``; it stops on SIGTERM.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from confluent_kafka import Consumer, KafkaException, Message, Producer, TopicPartition

# What handling one input costs: about what a small app spends, so its batches take a while.
WORK_S = 0.005


def offsets_after(batch: list[Message]) -> list[TopicPartition]:
    """Per partition, the offset after the batch's last record."""
    last: dict[tuple[str, int], int] = {}
    for msg in batch:
        key = (msg.topic(), msg.partition())
        last[key] = max(last.get(key, -1), msg.offset())
    return [TopicPartition(topic, partition, offset + 1) for (topic, partition), offset in last.items()]


def main() -> int:
    env = os.environ
    servers = env["KEH_BOOTSTRAP_SERVERS"]
    consumer = Consumer(
        {
            "bootstrap.servers": servers,
            "group.id": env["KEH_GROUP_ID"],
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "session.timeout.ms": 6000,  # a killed incarnation's partitions move on in seconds
        }
    )
    producer = Producer({"bootstrap.servers": servers, "enable.idempotence": True})
    consumer.subscribe([env["KEH_INPUT_TOPIC"]])
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    while not stopping:
        batch = [msg for msg in consumer.consume(100, timeout=0.5) if msg.error() is None]
        if not batch:
            continue
        for msg in batch:
            time.sleep(WORK_S)
            producer.produce(env["KEH_OUTPUT_TOPIC"], (msg.value() or b"").upper(), msg.key(), headers=msg.headers())
        producer.flush()
        try:
            consumer.commit(offsets=offsets_after(batch), asynchronous=False)  # outputs first: at-least-once
        except KafkaException as exc:
            if exc.args[0].fatal():
                raise
            # The group moved on (a rebalance, a coordinator change): whoever reads these
            # partitions next starts from the last commit and writes the batch again, as
            # an at-least-once app does.
            continue
    consumer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
