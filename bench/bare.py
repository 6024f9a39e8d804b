"""The bare client the benchmarks compare the harness's apps with: confluent-kafka doing what any
application must, and nothing else (no ids, no ledger).

Run as a child process: ``python bench/bare.py producer|transformer JSON`` (its arguments as one
JSON object). It imports only confluent-kafka, so its process time is the client's. It prints
one JSON line: ``records`` (acknowledged, or read) and ``records_per_s``: a producer's from its first
``produce()`` to its last ``flush()`` returning, a consumer's from its first record to its last.

- ``producer``: ``count`` records of one constant value of ``value_bytes`` to ``topic``, each
  ``produce()`` with a delivery callback that counts acknowledgements; on ``BufferError``
  ``poll(0.1)`` and again; ``poll(0)`` after every ``poll_every`` records; ``flush()`` at the end.
- ``transformer``: a consumer in group ``group`` (read_committed, no auto commit, from the
  earliest offset) reads ``source`` in batches of up to ``batch`` until it has ``count``
  records; per batch one output per input (the input's key, one constant value) with the
  counting callback, ``poll(0)``, ``flush()``, a synchronous offset commit.
- ``consumer``: reads ``topic``'s ``partitions`` from their beginning (assigned, no group) at
  ``isolation`` until it has ``count`` records. It prints ``ready`` once it reached every
  partition's leader, so that a producer started after that finds it reading; then, per record,
  the end-to-end latency (received minus the record's create time, set by the producing client),
  and the records/s from its first record to its last.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

QUANTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "max": 1.0}
_acknowledged = 0


def _delivered(err: Any, msg: Any) -> None:
    """The delivery callback: counts what was acknowledged."""
    global _acknowledged
    if err is None:
        _acknowledged += 1


def producer(a: dict[str, Any]) -> dict[str, Any]:
    client = Producer({"bootstrap.servers": a["bootstrap"], **a["config"]})
    value, topic, every = b"x" * a["value_bytes"], a["topic"], a["poll_every"]
    started = time.monotonic()
    for n in range(a["count"]):
        while True:
            try:
                client.produce(topic, value, on_delivery=_delivered)
                break
            except BufferError:
                client.poll(0.1)
        if n % every == every - 1:
            client.poll(0)
    client.flush(120)
    return {"records": _acknowledged, "records_per_s": _acknowledged / (time.monotonic() - started)}


def transformer(a: dict[str, Any]) -> dict[str, Any]:
    consumer = Consumer(
        {
            "bootstrap.servers": a["bootstrap"],
            "group.id": a["group"],
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "session.timeout.ms": 6000,
        }
    )
    client = Producer({"bootstrap.servers": a["bootstrap"], **a["config"]})
    value, sink = b"x" * a["value_bytes"], a["sink"]
    consumer.subscribe([a["source"]])
    consumed, started = 0, 0.0
    while consumed < a["count"]:
        batch = [m for m in consumer.consume(a["batch"], timeout=0.5) if m.error() is None]
        if not batch:
            continue
        started = started or time.monotonic()
        for m in batch:
            client.produce(sink, value, m.key(), on_delivery=_delivered)
        client.poll(0)
        client.flush(60)
        consumer.commit(asynchronous=False)
        consumed += len(batch)
    seconds = time.monotonic() - started
    consumer.close()
    return {"records": _acknowledged, "records_per_s": _acknowledged / seconds}


def consumer(a: dict[str, Any]) -> dict[str, Any]:
    client = Consumer(
        {
            "bootstrap.servers": a["bootstrap"],
            "group.id": "unused",  # assigned, never subscribed: no group is joined
            "enable.auto.commit": False,
            "isolation.level": a["isolation"],
        }
    )
    partitions = [TopicPartition(a["topic"], p, OFFSET_BEGINNING) for p in range(a["partitions"])]
    client.assign(partitions)
    for tp in partitions:
        client.get_watermark_offsets(tp, timeout=30)
    print("ready", flush=True)
    latencies_ms, first, received = [], 0.0, 0
    while received < a["count"]:
        for m in client.consume(1000, timeout=0.001):  # what came, at once: a wait would be latency
            if m.error() is None:
                now = time.time()
                first = first or now
                latencies_ms.append(now * 1000 - m.timestamp()[1])
                received += 1
    last = time.time()
    client.close()
    latencies_ms.sort()
    at = {name: latencies_ms[min(len(latencies_ms) - 1, int(q * len(latencies_ms)))] for name, q in QUANTILES.items()}
    return {"records": received, "records_per_s": received / max(1e-6, last - first), "latency_ms": at}


if __name__ == "__main__":
    run = {"producer": producer, "transformer": transformer, "consumer": consumer}[sys.argv[1]]
    print(json.dumps(run(json.loads(sys.argv[2]))))
