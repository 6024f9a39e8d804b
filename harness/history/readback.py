"""Read back every record of the touched topics, from the log start up to the high watermark.

Twice, up to the same high watermarks: once as a ``read_committed`` consumer (which gets
there only once no transaction is open below them) and once as a ``read_uncommitted`` one. Each
pass streams its rows into a Parquet file (``harness.history.format.view_path``) in batches, so a
long history never sits in memory as Python objects. In the ``read_uncommitted`` pass every
offset from the log start to the high watermark that returned no record is written as a marker row
(``MARKER_ID``): without compaction or retention, those are the transaction markers.

A topic whose values carry more than an id (a Streams app's running totals, a user app's
outputs) is read with ``values=True``: the rows then keep each record's value and headers too
(``VALUE_SCHEMA``).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from confluent_kafka import Consumer, TopicPartition

from harness.errors import HarnessError
from harness.history.format import (
    ISOLATIONS,
    MARKERS_VIEW,
    SCHEMA,
    VALUE_SCHEMA,
    partitions_read_metadata,
    view_path,
)
from harness.history.records import MARKER_ID, decode_id
from harness.settings import HARNESS_CLIENT_LOG_LEVEL
from harness.waits import Deadline, wait_until

BATCH_ROWS = 100_000
WATERMARK_WAIT_S = 60  # a new leader is elected well within this after a heal


def read_back(
    bootstrap: str,
    topics: list[str],
    out_dir: Path,
    only: dict[str, tuple[int, ...]] | None = None,
    timeout_s: float = 120,
    login: dict[str, str] | None = None,
    values: bool = False,
) -> Path:
    """Write both views of ``topics`` under ``out_dir``; returns ``out_dir``.

    ``only`` limits the named topics to some of their partitions: a consumer assigned a
    part of a topic. Each file records the partitions it read (``partitions_read``), and how
    many partitions each topic has (``topic_partitions``).
    ``login``: on a secured cluster, a user allowed to read them (KafkaCluster.client_config).
    ``values``: keep every record's value and headers as well (``VALUE_SCHEMA``).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    marks = watermarks(bootstrap, topics, login)
    only = only or {}
    targets = {(t, p): span for (t, p), span in marks.items() if t not in only or p in only[t]}
    partitions = {t: sum(1 for tt, _ in marks if tt == t) for t in topics}
    for isolation in ISOLATIONS:
        consumer = _consumer(bootstrap, isolation, login or {})
        schema = VALUE_SCHEMA if values else SCHEMA
        _read_view(consumer, targets, partitions, isolation, view_path(out_dir, isolation), timeout_s, schema)
    return out_dir


def _consumer(bootstrap: str, isolation: str, login: dict[str, str]) -> Consumer:
    return Consumer(
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


def _read_view(
    consumer: Consumer,
    targets: dict[tuple[str, int], tuple[int, int]],
    partitions: dict[str, int],
    isolation: str,
    path: Path,
    timeout_s: float,
    schema: pa.Schema,
) -> None:
    """Read ``targets``' partitions from their (log start, high watermark) with ``consumer``
    (closed at the end) into ``path``, as rows of ``schema``."""
    rows: dict[str, list] = {name: [] for name in schema.names}
    seen: dict[tuple[str, int], list[int]] = {}
    try:
        read: dict[str, list[int]] = {}
        for t, p in targets:
            read.setdefault(t, []).append(p)
        with pq.ParquetWriter(path, schema.with_metadata(partitions_read_metadata(read, partitions))) as out:

            def flush() -> None:
                if rows["id"]:
                    out.write_table(pa.table(rows, schema=schema))
                    for column in rows.values():
                        column.clear()

            # At the log start's own offset: a logical "beginning" costs the consumer an offset
            # lookup that starts fetching about half a second later, in every pass.
            consumer.assign([TopicPartition(t, p, start) for (t, p), (start, _) in targets.items()])
            pending = {tp for tp, (start, hwm) in targets.items() if hwm > start}
            deadline = Deadline(timeout_s)
            while pending:
                if deadline.expired():
                    raise HarnessError(
                        f"{isolation} read-back did not reach the high watermarks within {timeout_s:.0f}s "
                        f"(behind: {sorted(pending)}); an open transaction may be holding the last stable offset"
                    )
                # A short wait: consume() returns early only with a full batch, so a small
                # history would otherwise cost the whole timeout once it is all read.
                for msg in consumer.consume(num_messages=10_000, timeout=0.1):
                    if msg.error() is not None:
                        continue
                    key = msg.key()
                    for name, value in zip(
                        schema.names,
                        (
                            msg.topic(),
                            msg.partition(),
                            msg.offset(),
                            decode_id(msg.value()),
                            key.decode(errors="replace") if key else None,
                            msg.value(),
                            msg.headers(),
                        ),
                        strict=False,  # the value and headers only when the schema has room for them
                    ):
                        rows[name].append(value)
                    seen.setdefault((msg.topic(), msg.partition()), []).append(msg.offset())
                    if len(rows["id"]) >= BATCH_ROWS:
                        flush()
                positions = consumer.position([TopicPartition(t, p) for t, p in pending])
                pending -= {
                    (tp.topic, tp.partition) for tp in positions if tp.offset >= targets[(tp.topic, tp.partition)][1]
                }
            if isolation == MARKERS_VIEW:
                for (topic, partition), (start, hwm) in targets.items():
                    gaps = np.setdiff1d(np.arange(start, hwm), np.array(seen.get((topic, partition), []), np.int64))
                    for offset in gaps.tolist():
                        for name, value in zip(
                            schema.names, (topic, partition, offset, MARKER_ID, None, None, None), strict=False
                        ):
                            rows[name].append(value)
            flush()
    finally:
        consumer.close()


def high_watermarks(
    bootstrap: str, topics: Sequence[str], login: dict[str, str] | None = None, wait_s: float = WATERMARK_WAIT_S
) -> dict[tuple[str, int], int]:
    """Every partition's high watermark, taken now (``watermarks``)."""
    return {tp: high for tp, (_, high) in watermarks(bootstrap, topics, login, wait_s).items()}


def watermarks(
    bootstrap: str, topics: Sequence[str], login: dict[str, str] | None = None, wait_s: float = WATERMARK_WAIT_S
) -> dict[tuple[str, int], tuple[int, int]]:
    """Every partition's log start and high watermark, taken now: where a read begins, and
    where it is caught up.

    Positions move past markers and aborted records too, so "reached the high watermark"
    never mistakes "not read yet" for "lost". Asked as a read_uncommitted client: a
    read_committed one is told the last stable offset instead, and would stop short of
    records behind a still-open transaction. Right after a fault heals a partition may have
    no leader yet and the query fails at once, so it is retried for up to ``wait_s``.
    """
    consumer = _consumer(bootstrap, "read_uncommitted", login or {})

    def probe() -> dict[tuple[str, int], tuple[int, int]]:
        marks = {}
        for topic in topics:
            meta = consumer.list_topics(topic, timeout=10).topics[topic]
            if meta.error is not None or not meta.partitions:
                raise HarnessError(f"topic {topic!r} not found at {bootstrap}")
            for p in sorted(meta.partitions):
                marks[(topic, p)] = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
        return marks

    try:
        return wait_until(probe, lambda _: True, wait_s, f"the high watermarks of {', '.join(topics)}")
    finally:
        consumer.close()
