"""The read-back's file format, which the read-back writes and both checker engines read.

One Parquet file per isolation level (``view_path``), rows in (topic, partition, offset) order,
columns ``SCHEMA`` (``VALUE_SCHEMA`` for topics whose values carry more than an id). The
``read_uncommitted`` file alone holds marker rows (``MARKER_ID``: an offset that held no
record). The schema's metadata says which partitions were read and how many each topic has.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

ISOLATIONS = ("read_committed", "read_uncommitted")
# The one read-back with marker rows (MARKER_ID: an offset that held no record). In any other view a
# negative id is a stored record without a harness id.
MARKERS_VIEW = "read_uncommitted"
# Parquet schema metadata of a read-back: JSON {topic: [partition, ...]} of what it read. A
# partition that held nothing leaves no row, yet "read and empty" must not pass for "not read".
PARTITIONS_READ_KEY = b"kafka-eos-harness.partitions_read"
# And JSON {topic: partitions} of how many partitions each of those topics has: a send never
# acknowledged went to an unknown partition, which was read for sure only if all of them were.
TOPIC_PARTITIONS_KEY = b"kafka-eos-harness.topic_partitions"

SCHEMA = pa.schema(
    [
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("offset", pa.int64()),
        ("id", pa.int64()),
        ("key", pa.string()),
    ]
)
VALUE_SCHEMA = SCHEMA.append(pa.field("value", pa.binary())).append(
    pa.field("headers", pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())])))
)


def view_path(reads_dir: Path, isolation: str) -> Path:
    return reads_dir / f"{isolation}.parquet"


def partitions_read_metadata(
    read: dict[str, list[int]], partition_counts: dict[str, int] | None = None
) -> dict[bytes, bytes]:
    """The schema metadata a read-back writes: which partitions of which topics it read, and how many
    partitions each of those topics has (where known)."""
    metadata = {PARTITIONS_READ_KEY: json.dumps(read, sort_keys=True).encode()}
    if partition_counts is not None:
        metadata[TOPIC_PARTITIONS_KEY] = json.dumps(partition_counts, sort_keys=True).encode()
    return metadata


def topic_partitions(schema: pa.Schema) -> dict[str, int]:
    """How many partitions each topic read has, as the read-back says; empty for files written without it."""
    return json.loads((schema.metadata or {}).get(TOPIC_PARTITIONS_KEY, b"{}"))


def partitions_read(schema: pa.Schema) -> dict[str, list[int]]:
    """What a read-back says it read; empty for files written without the metadata."""
    return json.loads((schema.metadata or {}).get(PARTITIONS_READ_KEY, b"{}"))
