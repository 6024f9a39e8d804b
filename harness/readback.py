"""Read back every record of the touched topics, from the beginning up to the high watermark.

Twice: once as a ``read_committed`` consumer and once as a ``read_uncommitted`` one. Each
pass streams its rows into a Parquet file (``harness.history.view_path``) in batches, so a
long history never sits in memory as Python objects. In the ``read_uncommitted`` pass every
offset below the high watermark that returned no record is written as a marker row
(``MARKER_ID``): without compaction or retention, those are the transaction markers.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from harness.config import HARNESS_CLIENT_LOG_LEVEL
from harness.errors import HarnessError
from harness.history import ISOLATIONS, MARKER_ID, view_path
from harness.workloads.producer import decode_id

SCHEMA = pa.schema(
    [
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("offset", pa.int64()),
        ("id", pa.int64()),
        ("key", pa.string()),
    ]
)
BATCH_ROWS = 100_000


def read_back(
    bootstrap: str, topics: list[str], out_dir: Path, timeout_s: float = 120, login: dict[str, str] | None = None
) -> Path:
    """Write both views of ``topics`` under ``out_dir``; returns ``out_dir``. ``login``: on a
    secured cluster, a user allowed to read them (KafkaCluster.client_config)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for isolation in ISOLATIONS:
        _read_view(bootstrap, topics, isolation, view_path(out_dir, isolation), timeout_s, login or {})
    return out_dir


def _read_view(
    bootstrap: str, topics: list[str], isolation: str, path: Path, timeout_s: float, login: dict[str, str]
) -> None:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"harness-readback-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "isolation.level": isolation,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": False,
            "log_level": HARNESS_CLIENT_LOG_LEVEL,
            **login,
        }
    )
    rows: dict[str, list] = {name: [] for name in SCHEMA.names}
    seen: dict[tuple[str, int], list[int]] = {}
    try:
        with pq.ParquetWriter(path, SCHEMA) as out:

            def flush() -> None:
                if rows["id"]:
                    out.write_table(pa.table(rows, schema=SCHEMA))
                    for column in rows.values():
                        column.clear()

            tps = [
                TopicPartition(t, p)
                for t in topics
                for p in sorted(consumer.list_topics(t, timeout=10).topics[t].partitions)
            ]
            # Caught up means every partition's position reached the high watermark taken
            # now (positions move past markers and aborted records too), so "not read
            # yet" is never mistaken for "lost".
            targets = {(tp.topic, tp.partition): consumer.get_watermark_offsets(tp, timeout=10)[1] for tp in tps}
            consumer.assign([TopicPartition(tp.topic, tp.partition, OFFSET_BEGINNING) for tp in tps])
            pending = {tp for tp, hwm in targets.items() if hwm > 0}
            deadline = time.monotonic() + timeout_s
            while pending:
                if time.monotonic() > deadline:
                    raise HarnessError(
                        f"{isolation} read-back did not reach the high watermarks within {timeout_s:.0f}s "
                        f"(behind: {sorted(pending)}); an open transaction may be holding the last stable offset"
                    )
                for msg in consumer.consume(num_messages=10_000, timeout=0.5):
                    if msg.error() is not None:
                        continue
                    key = msg.key()
                    for name, value in zip(
                        SCHEMA.names,
                        (
                            msg.topic(),
                            msg.partition(),
                            msg.offset(),
                            decode_id(msg.value()),
                            key.decode(errors="replace") if key else None,
                        ),
                        strict=True,
                    ):
                        rows[name].append(value)
                    seen.setdefault((msg.topic(), msg.partition()), []).append(msg.offset())
                    if len(rows["id"]) >= BATCH_ROWS:
                        flush()
                positions = consumer.position([TopicPartition(t, p) for t, p in pending])
                pending -= {
                    (tp.topic, tp.partition) for tp in positions if tp.offset >= targets[(tp.topic, tp.partition)]
                }
            if isolation == "read_uncommitted":
                for (topic, partition), hwm in targets.items():
                    gaps = np.setdiff1d(np.arange(hwm), np.array(seen.get((topic, partition), []), np.int64))
                    for offset in gaps.tolist():
                        for name, value in zip(SCHEMA.names, (topic, partition, offset, MARKER_ID, None), strict=True):
                            rows[name].append(value)
            flush()
    finally:
        consumer.close()
