"""Read back every record of a topic, from the beginning up to the high watermark."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from harness.errors import HarnessError
from harness.workloads.producer import decode_id


@dataclass(frozen=True)
class ReadRecord:
    topic: str
    partition: int
    offset: int
    id: str | None


def read_topic(
    bootstrap: str, topic: str, isolation: str = "read_committed", timeout_s: float = 120
) -> list[ReadRecord]:
    """All records of ``topic`` visible under ``isolation``.

    Caught up means every partition's position reached the high watermark taken at the
    start (the position moves past transaction markers and aborted records too), so
    "not read yet" is never mistaken for "lost".
    """
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"harness-readback-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "isolation.level": isolation,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": False,
        }
    )
    try:
        md = consumer.list_topics(topic, timeout=10)
        partitions = sorted(md.topics[topic].partitions)
        targets = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in partitions}
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        records: list[ReadRecord] = []
        deadline = time.monotonic() + timeout_s
        pending = {p for p, hwm in targets.items() if hwm > 0}
        while pending:
            if time.monotonic() > deadline:
                raise HarnessError(
                    f"read-back of {topic} did not reach the high watermarks {targets} "
                    f"within {timeout_s:.0f}s (partitions still behind: {sorted(pending)})"
                )
            for msg in consumer.consume(num_messages=10000, timeout=0.5):
                if msg.error() is None:
                    records.append(ReadRecord(topic, msg.partition(), msg.offset(), decode_id(msg.value())))
            for tp in consumer.position([TopicPartition(topic, p) for p in pending]):
                if tp.offset >= targets[tp.partition]:
                    pending.discard(tp.partition)
        return records
    finally:
        consumer.close()
