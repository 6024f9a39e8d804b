"""The Spark engine's inputs as DataFrames: ledger lines, read by ``harness.history.ledger``'s rules,
and the read-backs, from their Parquet files or straight from Kafka."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce
from pathlib import Path

import pyarrow.parquet as pq
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from harness.history import ledger
from harness.history.columns import OFFSET_BITS, TP_SHIFT
from harness.history.format import ISOLATIONS, MARKERS_VIEW, partitions_read, topic_partitions, view_path
from harness.history.ledger import COLUMNS, END_MARK, EVENTS, INT_COLUMNS
from harness.history.readback import watermarks
from harness.history.records import MARKER_ID
from harness.jvm import spark as harness_spark

_CORRUPT = "_corrupt"
_LEDGER_DDL = ", ".join(f"`{c}` STRING" for c in (*COLUMNS, _CORRUPT))
# One physical line at a time, quotes doubled as Python's csv module writes them.
_CSV_OPTIONS = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": _CORRUPT, "escape": '"'}
# Java's $ also matches before a final newline; \z only at the very end.
_INTEGER = rf"^(?:{ledger.INTEGER})\z"


@dataclass
class Ledgers:
    """Every ledger line: ``file`` (index into ``stems``), ``line`` (ascending in file order), ``ok`` (the
    ledger's rules use it), ``event``, the integer columns (-1 when empty), ``topic`` and ``detail``."""

    lines: DataFrame
    stems: list[str]
    not_ledgers: set[int]  # files whose first line is not the header: one ignored line each


def read_ledgers(spark: SparkSession, paths: list[Path]) -> Ledgers:
    frames = []
    not_ledgers = set()
    for i, path in enumerate(paths):
        if ledger.not_a_ledger(path):
            not_ledgers.add(i)
            continue
        if path.stat().st_size == 0:  # nothing written yet: nothing to read, nothing to report
            continue
        # Text, not Spark's CSV reader: that one silently skips blank-looking lines, which the
        # ledger's rules count. Empty lines are skipped by both.
        lines = spark.read.text(str(path)).where(F.col("value") != "")
        frames.append(lines.withColumn("file", F.lit(i)))
    text = reduce(DataFrame.unionByName, frames) if frames else spark.createDataFrame([], "value STRING, file INT")
    # The line number must be taken straight off the scan: within one file it follows the file
    # order, which decides "the last line wins" as in the numpy engine. The header is refused below
    # like any other line (its end column says "end"); the count of ignored lines leaves it out.
    line = F.monotonically_increasing_id().alias("line")
    raw = text.select("file", line, F.from_csv("value", _LEDGER_DDL, _CSV_OPTIONS).alias("r"))
    ints = {c: F.expr(f"try_cast(r.`{c}` AS BIGINT)") for c in INT_COLUMNS}
    ok = F.col(f"r.{_CORRUPT}").isNull() & (F.col("r.end") == END_MARK) & F.col("r.event").isin(*EVENTS)
    for c in INT_COLUMNS:
        ok = ok & (F.col(f"r.{c}").isNull() | (F.col(f"r.{c}").rlike(_INTEGER) & ints[c].isNotNull()))
    parsed = raw.select(
        "file",
        "line",
        F.coalesce(ok, F.lit(False)).alias("ok"),
        F.col("r.event").alias("event"),
        *[F.coalesce(ints[c], F.lit(-1)).alias(c) for c in INT_COLUMNS],  # empty is -1, as in the numpy engine
        F.col("r.topic").alias("topic"),
        F.col("r.detail").alias("detail"),
    )
    return Ledgers(parsed, [p.stem for p in paths], not_ledgers)


def position(code: Column, partition: str | Column, offset: str | Column) -> Column:
    """``harness.history.columns``' position: topic code << 52 | partition << 40 | offset."""
    partition, offset = (F.col(c) if isinstance(c, str) else c for c in (partition, offset))
    return F.shiftleft(code, TP_SHIFT).bitwiseOR(F.shiftleft(partition.cast("long"), OFFSET_BITS)).bitwiseOR(offset)


@dataclass
class Views:
    """The read-backs: per isolation level, rows (topic, partition, offset, id, order: the order that
    decides which topic counts as first); the partitions the readers say they read; and how many
    partitions each topic has, where they say."""

    frames: dict[str, DataFrame]
    declared: set[tuple[str, int]]
    partition_counts: dict[str, int]


def parquet_views(spark: SparkSession, reads: Path) -> Views:
    frames, declared, counts = {}, set(), {}
    for isolation in ISOLATIONS:
        path = view_path(reads, isolation)
        if path.exists():
            schema = pq.read_schema(path)
            declared |= {(t, p) for t, ps in partitions_read(schema).items() for p in ps}
            for t, n in topic_partitions(schema).items():
                counts[t] = max(n, counts.get(t, 0))
            frames[isolation] = spark.read.parquet(str(path)).select(
                "topic",
                F.col("partition").cast("long").alias("partition"),
                F.col("offset").cast("long").alias("offset"),
                F.col("id").cast("long").alias("id"),
                F.monotonically_increasing_id().alias("order"),  # file order
            )
    return Views(frames, declared, counts)


def kafka_views(spark: SparkSession, bootstrap: str, topics: Sequence[str]) -> Views:
    """Both isolation levels' views of ``topics`` from the log starts to the high watermarks taken
    now, as ``harness.history.readback.read_back`` writes them."""
    spans = watermarks(bootstrap, topics, wait_s=10)
    starting = json.dumps({t: {str(p): start for (tt, p), (start, _) in spans.items() if tt == t} for t in topics})
    ending = json.dumps({t: {str(p): end for (tt, p), (_, end) in spans.items() if tt == t} for t in topics})
    assign = json.dumps({t: [p for tt, p in spans if tt == t] for t in topics})
    rank = F.lit(None).cast("long")
    for i, t in enumerate(topics):
        rank = F.when(F.col("topic") == t, F.lit(i)).otherwise(rank)
    frames = {}
    for isolation in ISOLATIONS:
        records = (
            spark.read.format("kafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("assign", assign)
            .option("startingOffsets", starting)
            .option("endingOffsets", ending)
            .option("kafka.isolation.level", isolation)
            # Offsets without a record (markers, aborted data under read_committed) are
            # expected here, not data loss.
            .option("failOnDataLoss", "false")
            .load()
        )
        rows = records.select(
            "topic",
            F.col("partition").cast("long").alias("partition"),
            "offset",
            harness_spark.record_id(F.col("value")).alias("id"),
        )
        if isolation == MARKERS_VIEW and spans:
            # Every offset from the log start to the high watermark that held no record: a
            # transaction marker.
            logs = spark.createDataFrame(
                [(t, p, start, end) for (t, p), (start, end) in spans.items()],
                "topic STRING, partition BIGINT, start BIGINT, end BIGINT",
            )
            offsets = spark.range(max(end for _, end in spans.values())).withColumnRenamed("id", "offset")
            markers = (
                offsets.crossJoin(F.broadcast(logs))
                .where((F.col("offset") >= F.col("start")) & (F.col("offset") < F.col("end")))
                .join(rows, ["topic", "partition", "offset"], "left_anti")
                .select("topic", "partition", "offset", F.lit(MARKER_ID).cast("long").alias("id"))
            )
            rows = rows.unionByName(markers)
        # Topics first appear in the order listed. (read_back's files hold rows as they
        # arrived; that order only matters for a topic no ledger sent to.)
        frames[isolation] = rows.withColumn("order", position(rank, "partition", "offset"))
    return Views(frames, set(spans), {t: sum(1 for tt, _ in spans if tt == t) for t in topics})
