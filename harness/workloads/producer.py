"""A producer process: sends uniquely identified records at a steady rate, writing its ledger.

Run as ``python -m harness.workloads.producer SPEC.json`` so that killing it is a real kill.
The spec (see ``ProducerSpec``) carries the librdkafka configuration under test verbatim.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka import KafkaError, Message, Producer

from harness.ledger import LedgerWriter


@dataclass
class ProducerSpec:
    bootstrap_servers: str
    topic: str
    ledger: str
    process: str = "producer-0"
    count: int = 2000
    rate_per_s: float = 200.0
    value_bytes: int = 100
    keys: int = 0  # 0: no key (sticky partitioning); n: keys k0..k(n-1) round robin
    config: dict[str, Any] = field(default_factory=dict)
    flush_timeout_s: float = 120.0

    def save(self, path: Path) -> Path:
        path.write_text(json.dumps(asdict(self), indent=2))
        return path


def record_id(process: str, seq: int) -> str:
    return f"{process}-{seq:08d}"


def encode_value(op_id: str, value_bytes: int) -> bytes:
    """``<id>|<padding>``: the id is everything before the first ``|``."""
    head = op_id.encode() + b"|"
    return head + b"x" * max(0, value_bytes - len(head))


def decode_id(value: bytes | None) -> str | None:
    if not value:
        return None
    return value.split(b"|", 1)[0].decode(errors="replace")


def _outcome(err: KafkaError) -> str:
    # A retriable error or a timeout after retries may follow an attempt the broker did
    # write: the outcome is unknown ("info"), never a definite failure.
    if err.retriable() or err.code() in (
        KafkaError._MSG_TIMED_OUT,
        KafkaError._TIMED_OUT,
        KafkaError.REQUEST_TIMED_OUT,
        KafkaError._TRANSPORT,
    ):
        return "info"
    return "fail"


def run(spec: ProducerSpec) -> dict[str, int]:
    ledger = LedgerWriter(Path(spec.ledger), spec.process)
    counts = {"ok": 0, "fail": 0, "info": 0}

    def on_delivery(op_id: str, err: KafkaError | None, msg: Message) -> None:
        if err is None:
            ledger.write("ok", op_id, partition=msg.partition(), offset=msg.offset())
            counts["ok"] += 1
        else:
            kind = _outcome(err)
            ledger.write(kind, op_id, error=err.name())
            counts[kind] += 1

    producer = Producer({"bootstrap.servers": spec.bootstrap_servers, **spec.config})
    started = time.monotonic()
    for seq in range(spec.count):
        pause = started + seq / spec.rate_per_s - time.monotonic()
        producer.poll(max(0.0, pause))
        op_id = record_id(spec.process, seq)
        key = f"k{seq % spec.keys}".encode() if spec.keys else None
        ledger.write("invoke", op_id, key=key.decode() if key else None)
        while True:
            try:
                producer.produce(
                    spec.topic,
                    encode_value(op_id, spec.value_bytes),
                    key,
                    on_delivery=lambda err, msg, op_id=op_id: on_delivery(op_id, err, msg),
                )
                break
            except BufferError:  # local queue full: let deliveries drain
                producer.poll(0.1)
    remaining = producer.flush(spec.flush_timeout_s)
    # Whatever is still queued has no outcome; the ledger reader treats it as indeterminate.
    counts["unfinished"] = remaining
    ledger.close()
    return counts


def main() -> None:
    spec = ProducerSpec(**json.loads(Path(sys.argv[1]).read_text()))
    print(json.dumps(run(spec)), flush=True)


if __name__ == "__main__":
    main()
