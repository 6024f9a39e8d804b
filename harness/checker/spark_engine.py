"""The checker's Spark engine: the same anomalies and the same JSON as the numpy engine.

``harness.checker.catalogue`` defines every anomaly and ``harness.checker.anomalies`` finds
them with numpy on one machine; this engine computes them with DataFrame joins,
aggregations and window functions, so the history never has to fit on one machine. Only
small results reach the driver: counts, the first few examples, the topic names, one row
per ledger file. The numpy engine is the reference: for the same history ``check(...)``
here returns exactly ``harness.checker.check.check(...).to_json()`` (the tests in
tests/harness/checker compare the two on every synthetic mutation).

It runs as ``kafka-harness check RUN_DIR --engine spark [--master URL]`` on a saved run, or
from Python with the read-backs (``reads``) or a cluster to read the topics from
(``bootstrap``, ``topics``).
"""

from __future__ import annotations

import csv
import json
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from functools import reduce
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from pyspark.sql import Column, DataFrame, Row, SparkSession, Window
from pyspark.sql import functions as F

from harness.checker.anomalies import MAX_EXAMPLES
from harness.checker.catalogue import ANOMALIES
from harness.errors import HarnessError
from harness.history.columns import (
    FAIL,
    INFO,
    ISOLATIONS,
    OFFSET_BITS,
    OK,
    PARTITION_BITS,
    TXN_ABORTED,
    TXN_COMMITTED,
    TXN_UNKNOWN,
    partitions_read,
    topic_partitions,
    view_path,
)
from harness.history.ledger import COLUMNS, END_MARK, EVENTS, INT_COLUMNS
from harness.history.readback import watermarks
from harness.history.records import MARKER_ID, SEQ_BITS
from harness.jvm import spark as harness_spark

_TP_SHIFT = OFFSET_BITS + PARTITION_BITS  # a position is topic code << 52 | partition << 40 | offset
_SEQ_MASK = (1 << SEQ_BITS) - 1
_CORRUPT = "_corrupt"
_LEDGER_DDL = ", ".join(f"`{c}` STRING" for c in (*COLUMNS, _CORRUPT))
# One physical line at a time, quotes doubled as Python's csv module writes them.
_CSV_OPTIONS = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": _CORRUPT, "escape": '"'}
_INTEGER = r"^-?[0-9]+$"  # what history.py accepts in an integer column
_OUTCOME = {"info": INFO, "fail": FAIL, "ok": OK}
_TXN_EVENTS = EVENTS[EVENTS.index("txn-begin") : EVENTS.index("txn-unknown") + 1]


def check(
    spark: SparkSession,
    ledger_paths: Sequence[Path | str],
    reads: Path | str | None = None,
    *,
    bootstrap: str | None = None,
    topics: Sequence[str] = (),
    view: str = "read_committed",
    eos_pairs: Iterable[tuple[str, str]] = (),
    max_examples: int = MAX_EXAMPLES,
) -> dict[str, Any]:
    """The checker's comparable JSON (``CheckResult.to_json()``) for one history.

    The stored records come from ``reads`` (a read-back folder of Parquet files) or, with
    ``bootstrap`` and ``topics``, straight from Kafka under both isolation levels.
    """
    if view not in ISOLATIONS:
        raise HarnessError(f"--view must be one of {', '.join(ISOLATIONS)}, not {view!r}")
    if max_examples < 0:
        raise HarnessError("--max-examples must not be negative")
    if (reads is None) == (bootstrap is None):
        raise HarnessError("give the read-backs (--reads) or a cluster to read (--bootstrap with --topics), not both")
    if bootstrap is not None and not topics:
        raise HarnessError("--bootstrap needs --topics")
    job = _Job(spark, max_examples)
    try:
        parsed = job.parse_ledgers([Path(p) for p in ledger_paths])
        if reads is not None:
            raw_views, declared, counts = _parquet_views(spark, Path(reads))
        else:
            raw_views, declared, counts = _kafka_views(spark, bootstrap, topics)  # type: ignore[arg-type]
        if view not in raw_views:  # the Python checker cannot run without the consumer's view either
            raise HarnessError(f"no {view} read-back in {reads}")
        job.summarize(parsed, raw_views, declared, counts, view)
        return job.run(tuple(eos_pairs))
    finally:
        job.release()


class _Job:
    """One check: the frames every anomaly shares, and the examples still waiting for their positions.

    Actions are few on purpose (each costs planning and code generation): one summary of the
    inputs, one row with every count, then example queries only for anomalies that occurred.
    """

    def __init__(self, spark: SparkSession, max_examples: int) -> None:
        self.spark, self.n = spark, max_examples
        self._cached: list[DataFrame] = []
        self._waiting: list[tuple[dict[str, Any], int]] = []  # (example, id): "at" is filled in one query at the end

    def _cache(self, df: DataFrame) -> DataFrame:
        self._cached.append(df.cache())
        return self._cached[-1]

    def release(self) -> None:
        for df in self._cached:
            df.unpersist()

    # --- inputs -------------------------------------------------------------------------

    def parse_ledgers(self, paths: list[Path]) -> DataFrame:
        """Every ledger line, with ``ok`` saying whether history.py would use it."""
        self.stems = [p.stem for p in paths]
        self.bad_header: set[int] = set()
        frames = []
        for i, path in enumerate(paths):
            state = _header_state(path)
            if state is None:  # empty file: history.py reads nothing and reports nothing
                continue
            if not state:
                self.bad_header.add(i)
                continue
            # Text, not Spark's CSV reader: that one silently skips blank-looking lines,
            # which history.py counts. Empty lines are skipped by both.
            lines = self.spark.read.text(str(path)).where(F.col("value") != "")
            frames.append(lines.withColumn("file", F.lit(i)))
        if frames:
            text = reduce(DataFrame.unionByName, frames)
        else:
            text = self.spark.createDataFrame([], "value STRING, file INT")
        # The line number must be taken straight off the scan: within one file it follows
        # the file order, which decides "the last line wins" as in history.py.
        line = F.monotonically_increasing_id().alias("line")
        raw = text.select("file", line, F.from_csv("value", _LEDGER_DDL, _CSV_OPTIONS).alias("r"))
        ints = {c: F.expr(f"try_cast(r.`{c}` AS BIGINT)") for c in INT_COLUMNS}
        ok = F.col(f"r.{_CORRUPT}").isNull() & (F.col("r.end") == END_MARK) & F.col("r.event").isin(*EVENTS)
        for c in INT_COLUMNS:
            ok = ok & (F.col(f"r.{c}").isNull() | (F.col(f"r.{c}").rlike(_INTEGER) & ints[c].isNotNull()))
        return self._cache(
            raw.select(
                "file",
                "line",
                F.coalesce(ok, F.lit(False)).alias("ok"),
                F.col("r.event").alias("event"),
                *[F.coalesce(ints[c], F.lit(-1)).alias(c) for c in INT_COLUMNS],  # empty is -1, as in history.py
                F.col("r.topic").alias("topic"),
                F.col("r.detail").alias("detail"),
            )
        )

    def summarize(
        self,
        parsed: DataFrame,
        raw_views: dict[str, DataFrame],
        declared: set[tuple[str, int]],
        counts: dict[str, int],
        consumer_view: str,
    ) -> None:
        """One pass for the small facts: ignored lines per file, topics in order of first appearance, view sizes,
        and the partitions read (``declared`` by the readers, and every one with rows; ``counts``: how many
        partitions a topic has, where the readers said)."""
        # Each (position, id) once, as the numpy engine's views hold them; the raw rows only
        # show which offsets a reader returned twice or more.
        place = ["topic", "partition", "offset"]
        raw = {
            iso: self._cache(df.groupBy(*place, "id").agg(F.min("order").alias("order")))
            for iso, df in raw_views.items()
        }
        repeated = {
            iso: df.groupBy(*place).agg(F.count(F.lit(1)).alias("rows"), F.array_sort(F.collect_set("id")).alias("ids"))
            for iso, df in raw_views.items()
        }
        none = F.lit(None).cast("long")
        view_columns = ("data", "markers", "undecodable", "max_partition", "partitions")
        invoke_topic = F.when(F.col("ok") & (F.col("event") == "invoke"), F.coalesce("topic", F.lit("")))
        ledger = (
            parsed.groupBy("file", invoke_topic.alias("topic"))
            .agg(F.count(F.when(~F.col("ok"), 1)).alias("bad"), F.min("line").alias("first"))
            .select(
                F.lit("ledger").alias("kind"),
                "file",
                "topic",
                "bad",
                "first",
                *[none.alias(k) for k in view_columns[:-1]],
                F.lit(None).cast("array<bigint>").alias("partitions"),
            )
        )
        tagged = reduce(DataFrame.unionByName, [df.withColumn("kind", F.lit(iso)) for iso, df in raw.items()])
        views = (
            tagged.groupBy("kind", "topic")
            .agg(
                F.min("order").alias("first"),
                F.count(F.when(F.col("id") != MARKER_ID, 1)).alias("data"),
                F.count(F.when(F.col("id") == MARKER_ID, 1)).alias("markers"),
                F.count(F.when(F.col("id") < MARKER_ID, 1)).alias("undecodable"),
                F.max("partition").alias("max_partition"),
                F.collect_set("partition").alias("partitions"),
            )
            .select("kind", F.lit(None).cast("int").alias("file"), "topic", none.alias("bad"), "first", *view_columns)
        )
        rows = ledger.unionByName(views).collect()

        files = [r for r in rows if r.kind == "ledger"]
        bad = defaultdict(int)
        for r in files:
            bad[r.file] += r.bad
        self.problems: dict[str, int] = {}
        for i, stem in enumerate(self.stems):
            # A read file's header line is itself "invalid" (its end column says "end").
            ignored = 1 if i in self.bad_header else max(0, bad[i] - 1)
            if ignored:
                self.problems[stem] = ignored
        seen = {iso: [r for r in rows if r.kind == iso] for iso in ISOLATIONS}
        for r in (r for rs in seen.values() for r in rs):
            if r.max_partition is not None and r.max_partition >= 1 << PARTITION_BITS:
                raise HarnessError(f"{r.kind}: partition numbers of {1 << PARTITION_BITS} or more are not supported")
        # Topic codes as history.py hands them out: ledger topics by first send, then each
        # view's topics by first row. They order positions, hence examples.
        order = [t for _, _, t in sorted((r.file, r.first, r.topic) for r in files if r.topic is not None)]
        for iso in ISOLATIONS:
            order += [r.topic for r in sorted(seen[iso], key=lambda r: r.first)]
        self.codes = {t: i for i, t in enumerate(dict.fromkeys(t for t in order if t is not None))}
        self.read_partitions = sorted(
            declared | {(r.topic, p) for rs in seen.values() for r in rs if r.topic is not None for p in r.partitions}
        )
        # A topic counts as read for a send of unknown partition when all its partitions were (where known).
        read = set(self.read_partitions)
        self.read_topics = sorted(
            {t for t, _ in read if t not in counts or all((t, p) in read for p in range(counts[t]))}
        )
        self.view_stats = {
            "read_committed_records": sum(r.data for r in seen["read_committed"]),
            "read_uncommitted_records": sum(r.data for r in seen["read_uncommitted"]),
            "markers": sum(r.markers for r in seen["read_uncommitted"]),
        }
        self.undecodable = sum(r.undecodable for r in seen[consumer_view])

        self.lines = parsed.where("ok")
        pos = _position(self._code(F.col("topic")), "partition", "offset")
        self.views = {iso: df.where(F.col("topic").isNotNull()).withColumn("pos", pos) for iso, df in raw.items()}
        self.repeated = {
            iso: df.where((F.col("rows") > 1) & F.col("topic").isNotNull()).withColumn("pos", pos)
            for iso, df in repeated.items()
        }
        self.cv = self.views[consumer_view]
        self.ru = self.views.get("read_uncommitted")
        self.rc = self.views.get("read_committed")

    def _code(self, topic: Column) -> Column:
        return F.try_element_at(_literal_map(self.codes, "long"), topic)

    # --- the check ----------------------------------------------------------------------

    def run(self, eos_pairs: tuple[tuple[str, str], ...]) -> dict[str, Any]:
        self._frames(eos_pairs)
        t = self.counts = self._count(eos_pairs)
        if (t.ok_partition or 0) >= 1 << PARTITION_BITS:
            raise HarnessError(f"ledgers: partition numbers of {1 << PARTITION_BITS} or more are not supported")

        def lost(r: Row) -> dict[str, Any]:
            return {**_about(r), "acked_at": _acked_at(r), "committed": r.committed_any}

        def zombie(r: Row) -> dict[str, Any]:
            return self._at({**_about(r), "at": None, "fenced_at_us": r.fence}, r.id)

        found = {
            "duplicate": self._duplicate(),
            "lost": self._examples("lost", t.lost, lost),
            "aborted_read": self._aborted_read(),
            "phantom": self._phantom(),
            "order": self._order(),
            "torn_transaction": self._torn(),
            "partly_read": self._partly_read(),
            "inconsistent_offset": self._inconsistent(),
            **self._exactly_once(eos_pairs),
            "zombie_write": self._examples("zombie", t.zombie, zombie),
        }
        self._fill_places()
        stats = {
            "sent": t.sent,
            "acknowledged": t.acknowledged,
            "failed": t.failed,
            "indeterminate": t.indeterminate,
            "indeterminate_read": t.indeterminate_read,
            "transactions_committed": t.txn_committed,
            "transactions_aborted": t.txn_aborted,
            "transactions_unknown": t.txn_unknown,
            "sessions": t.sessions,
            "sessions_fenced": t.sessions_fenced,
            **self.view_stats,
            "distinct_read": t.visible + t.phantom,
        }
        anomalies = {name: found[name] for name in ANOMALIES}
        return {"anomalies": anomalies, "stats": stats, "ledger_problems": self.problems}

    def _frames(self, eos_pairs: tuple[tuple[str, str], ...]) -> None:
        """The shared frames, all lazy: sessions, transactions, per-id facts, and what each anomaly counts."""
        lines, ev, c = self.lines, F.col("event"), F.col

        # Sessions: every one that sent (or had an outcome) or announced itself.
        sending = lines.where(ev.isin("invoke", *_OUTCOME) & (c("id") >= 0))
        sending = sending.select(F.shiftright("id", SEQ_BITS).alias("session"))
        announced = (
            lines.where(ev == "session")
            .groupBy("session")
            .agg(F.max(F.struct("file", "line", "detail", "time_us")).alias("a"))  # the last announcement wins
            .select("session", "a.file", F.col("a.detail").alias("txid"), F.col("a.time_us").alias("started"))
        )
        sessions = sending.distinct().join(announced, "session", "full")
        producer = F.try_element_at(_literal_map(dict(enumerate(self.stems)), "string", "int"), c("file"))
        sessions = sessions.select(
            "session",
            F.coalesce(producer, F.lit("?")).alias("producer"),
            F.coalesce("txid", F.lit("")).alias("txid"),
            F.coalesce("started", F.lit(-1)).alias("started"),
        )
        # Fenced when another session of the same transactional.id became ready at the same
        # time or later: the next one in (ready time descending, session ascending) order,
        # the order checker._fence_times walks them in.
        eligible = (c("txid") != "") & (c("started") >= 0)
        newer = Window.partitionBy("txid", eligible).orderBy(F.desc("started"), "session")
        self.sessions = self._cache(sessions.withColumn("fence", F.when(eligible, F.lag("started").over(newer))))

        # Transactions: the strongest end any line reports; when begun and when commit was asked.
        state = (
            F.when(ev == "txn-committed", TXN_COMMITTED)
            .when(ev == "txn-aborted", TXN_ABORTED)
            .when(ev == "txn-unknown", TXN_UNKNOWN)
            .otherwise(0)
        )
        self.txns = self._cache(
            lines.where(ev.isin(*_TXN_EVENTS))
            .groupBy(_txn_key("session", "txn").alias("key"))
            .agg(
                F.max(state).alias("state"),
                F.max(F.when(ev == "txn-begin", c("time_us")).otherwise(-1)).alias("begin_us"),
                F.max(F.when(ev == "txn-commit", c("time_us")).otherwise(-1)).alias("commit_us"),
            )
        )

        # Every attempt (invoke line) with the end of its transaction: over all of them an id is
        # committed when any attempt's transaction committed, and aborted for sure only when all
        # of them aborted (anomalies' docstring).
        attempt_state = F.coalesce(c("state"), F.lit(-1))
        attempts = lines.where((ev == "invoke") & (c("id") >= 0)).select(
            "id",
            "file",
            "line",
            "topic",
            "txn",
            "source",
            F.when(c("txn") >= 0, _txn_key(F.shiftright("id", SEQ_BITS), "txn")).alias("key"),
        )
        invokes = (
            attempts.join(self.txns, "key", "left")
            .groupBy("id")
            .agg(
                F.max(F.struct("file", "line", "topic", "txn", "source")).alias("v"),  # the last invoke line wins
                F.count(F.lit(1)).alias("attempts"),
                F.max(attempt_state == TXN_COMMITTED).alias("any_attempt_committed"),
                F.min(attempt_state == TXN_ABORTED).alias("every_attempt_aborted"),
            )
            .select(
                "id",
                F.lit(True).alias("invoked"),
                F.coalesce("v.topic", F.lit("")).alias("topic"),  # history.py reads an empty topic as ""
                F.col("v.txn").alias("txn"),
                F.col("v.source").alias("source"),
                "attempts",
                "any_attempt_committed",
                "every_attempt_aborted",
            )
        )
        outcomes = (
            lines.where(ev.isin(*_OUTCOME) & (c("id") >= 0))
            .groupBy("id")
            .agg(
                *[F.max(ev == name).alias(f"saw_{name}") for name in _OUTCOME],
                F.count(F.when(ev == "fail", 1)).alias("fails"),
                F.max(F.when(ev == "ok", F.struct("file", "line", "partition", "offset"))).alias("ack"),
                F.max(F.when(ev == "ok", c("partition"))).alias("ok_partition"),
            )
        )
        copies = self.cv.where(c("id") >= 0).groupBy("id").agg(F.count(F.lit(1)).alias("copies"))
        facts = (
            invokes.join(outcomes, "id", "full")
            .join(copies, "id", "full")
            .withColumn("session", F.shiftright("id", SEQ_BITS))
            .join(self.sessions.select("session", "producer", "fence"), "session", "left")
            .select(
                "*",
                F.coalesce("invoked", F.lit(False)).alias("sent"),
                # Over all attempts: an ack beats everything; an info line or an attempt without
                # its own fail line leaves the id open; failed only when every attempt failed.
                F.when(c("saw_ok"), OK)
                .when(c("saw_info"), INFO)
                .when(c("saw_fail") & (c("fails") >= F.greatest(F.coalesce("attempts", F.lit(0)), F.lit(1))), FAIL)
                .when(c("saw_fail"), INFO)
                .otherwise(0)
                .alias("result"),
                F.coalesce("copies", F.lit(0)).alias("n_copies"),
                F.when(c("invoked") & (c("txn") >= 0), _txn_key("session", "txn")).alias("key"),
                F.when(
                    c("invoked") & (c("ack.partition") >= 0) & (c("ack.offset") >= 0),
                    _position(self._code(c("topic")), "ack.partition", "ack.offset"),
                ).alias("ack_pos"),
            )
            .join(self.txns, "key", "left")
        )
        if self.ru is not None:  # what the read_uncommitted reader found where the acknowledgement points
            at_ack = self.ru.groupBy(c("pos").alias("ack_pos")).agg(
                F.min("id").alias("ru_id"), F.collect_set("id").alias("ru_ids"), F.lit(True).alias("ru_there")
            )
            facts = facts.join(at_ack, "ack_pos", "left")
        else:
            facts = facts.select(
                "*",
                F.lit(None).cast("long").alias("ru_id"),
                F.lit(None).cast("array<bigint>").alias("ru_ids"),
                F.lit(None).cast("boolean").alias("ru_there"),
            )

        visible = c("sent") & (c("n_copies") > 0)
        in_txn = c("sent") & c("state").isNotNull()  # a transaction no ledger line names is no transaction
        committed = in_txn & (c("state") == TXN_COMMITTED)
        aborted = in_txn & (c("state") == TXN_ABORTED)
        committed_any = c("sent") & (committed | c("any_attempt_committed"))
        aborted_all = aborted & c("every_attempt_aborted")
        # The acknowledged partition where there is one; a send's topic where its partition is unknown.
        ack_at = F.concat_ws("/", c("topic"), c("ack.partition").cast("string"))
        to_read = c("sent") & F.when(
            c("ack_pos").isNotNull(), ack_at.isin(*[f"{t}/{p}" for t, p in self.read_partitions])
        ).otherwise(c("topic").isin(*self.read_topics))
        acted = F.when(c("commit_us") >= 0, c("commit_us")).otherwise(c("begin_us"))
        flags = {
            "visible": visible,
            "phantom": ~c("sent") & (c("n_copies") > 0),
            "in_txn": in_txn,
            "committed": committed,
            "aborted": aborted,
            "to_read": to_read,
            "committed_any": committed_any,
            "aborted_all": aborted_all,
            "resent": c("sent") & (c("attempts") > 1),
            "lost": to_read & ((~in_txn & (c("result") == OK)) | committed_any) & ~visible,
            "aborted_read": visible & ((c("result") == FAIL) | aborted_all),
            "indeterminate": c("sent") & (c("result") <= INFO) & ~(committed_any | aborted_all),
            "zombie": visible & in_txn & c("fence").isNotNull() & (acted >= c("fence")),
            # An acknowledgement the read_uncommitted reader does not confirm, while that
            # offset holds something else or the id was read elsewhere.
            "ack_bad": c("ack_pos").isNotNull()
            & ~F.coalesce(F.array_contains("ru_ids", c("id")), F.lit(False))
            & (F.coalesce(c("ru_there"), F.lit(False)) | visible)
            & F.lit(self.ru is not None),
        }
        self.facts = self._cache(facts.select("*", *[F.coalesce(v, F.lit(False)).alias(k) for k, v in flags.items()]))

        # torn_transaction: committed or undecided transactions partly in the view, within
        # the partitions read; partly_read: committed ones partly in partitions not read.
        members = self.facts.where(c("in_txn") & ~c("aborted"))
        self.torn_members = members.where("to_read")
        per_txn = self._cache(
            members.groupBy("key").agg(
                F.count(F.when(c("to_read"), 1)).alias("sent"),
                F.count(F.when(c("to_read") & c("visible"), 1)).alias("seen"),
                F.count(F.when(~c("to_read") & c("committed"), 1)).alias("unread"),
                F.max("producer").alias("producer"),  # one session per transaction: its producer
            )
        )
        self.torn = per_txn.where((c("seen") > 0) & (c("seen") < c("sent")))
        self.partly = per_txn.where((c("sent") > 0) & (c("unread") > 0))
        # inconsistent_offset, the readers' part: rows of read_committed that read_uncommitted does not match.
        if self.rc is not None and self.ru is not None:
            # Where read_uncommitted read several ids at one offset, any of them agrees; shown is the smallest.
            ru_at = self.ru.groupBy("pos").agg(F.min("id").alias("ru_id"), F.lit(True).alias("there"))
            self.disagree: DataFrame | None = self.rc.join(self.ru.select("pos", "id"), ["pos", "id"], "left_anti")
            self.disagree = self.disagree.join(ru_at, "pos", "left")
        else:
            self.disagree = None
        # order: first copies per (session, partition) in offset order, against the highest seq before them.
        self.sent = self.facts.where("sent").select("id", "producer", "txn")
        # Ids sent once only: a resent id's place in the send order is unknown.
        once = self.facts.where(c("sent") & ~c("resent")).select("id")
        self.firsts = (
            self.cv.join(once, "id")
            .groupBy("id")
            # A duplicated id counts where it was first stored.
            .agg(F.min(F.struct("pos", "topic", "partition", "offset")).alias("f"))
            .select(
                "id",
                "f.*",
                F.shiftright("id", SEQ_BITS).alias("session"),
                c("id").bitwiseAND(F.lit(_SEQ_MASK)).alias("seq"),
                F.shiftright("f.pos", OFFSET_BITS).alias("tp"),
            )
        )
        before = Window.partitionBy("session", "tp").orderBy("pos").rowsBetween(Window.unboundedPreceding, -1)
        self.late = self.firsts.withColumn("top", F.max("seq").over(before)).where(c("seq") < c("top"))
        # eos: per input record in the view, how many distinct outputs in the view name it as source.
        self.eos_inputs = []
        for in_topic, out_topic in eos_pairs:
            outputs = self.facts.where(c("visible") & (c("topic") == out_topic) & (c("source") >= 0))
            per_input = outputs.groupBy(c("source").alias("id")).agg(F.count(F.lit(1)).alias("outputs"))
            inputs = (
                self.facts.where(c("visible") & (c("topic") == in_topic))
                .select("id")
                .join(per_input, "id", "left")
                .select("id", F.coalesce("outputs", F.lit(0)).alias("outputs"))
            )
            self.eos_inputs.append((outputs, inputs))

    def _count(self, eos_pairs: tuple[tuple[str, str], ...]) -> Row:
        """Every count the result needs, as one row from one action."""
        c = F.col

        def n(cond: Column) -> Column:
            return F.count(F.when(cond, 1))

        parts = [
            self.sessions.agg(F.count(F.lit(1)).alias("sessions"), F.count("fence").alias("sessions_fenced")),
            self.txns.agg(
                n(c("state") == TXN_COMMITTED).alias("txn_committed"),
                n(c("state") == TXN_ABORTED).alias("txn_aborted"),
                n(c("state") < TXN_ABORTED).alias("txn_unknown"),
            ),
            self.facts.agg(
                n(c("sent")).alias("sent"),
                n(c("result") == OK).alias("acknowledged"),
                n(c("result") == FAIL).alias("failed"),
                n(c("indeterminate")).alias("indeterminate"),
                n(c("indeterminate") & c("visible")).alias("indeterminate_read"),
                n(c("visible")).alias("visible"),
                n(c("phantom")).alias("phantom"),
                n(c("visible") & (c("n_copies") > 1)).alias("duplicate"),
                n(c("phantom") & (c("n_copies") > 1)).alias("ghost_duplicate"),
                *[n(c(k)).alias(k) for k in ("lost", "aborted_read", "zombie", "ack_bad")],
                F.max("ok_partition").alias("ok_partition"),
            ),
            self.torn.agg(F.count(F.lit(1)).alias("torn")),
            self.partly.agg(F.count(F.lit(1)).alias("partly")),
            self.late.agg(F.count(F.lit(1)).alias("late")),
        ]
        if self.disagree is not None:
            parts.append(self.disagree.agg(F.count(F.lit(1)).alias("disagree")))
        for iso, df in self.repeated.items():
            parts.append(df.agg(F.count(F.lit(1)).alias(f"repeated_{iso}")))
        for i, (_, inputs) in enumerate(self.eos_inputs):
            parts.append(
                inputs.agg(n(c("outputs") == 0).alias(f"eos_zero_{i}"), n(c("outputs") > 1).alias(f"eos_many_{i}"))
            )
        # Each part is one row; as (name, value) pairs they union into one small collect, no joins.
        pairs = [
            df.select(F.explode(F.create_map(*[x for k in df.columns for x in (F.lit(k), F.col(k).cast("long"))])))
            for df in parts
        ]
        return Row(**{r.key: r.value for r in reduce(DataFrame.unionByName, pairs).collect()})

    # --- examples -----------------------------------------------------------------------

    def _first(self, df: DataFrame, *order: str | Column, limit: int | None = None) -> list[Row]:
        n = self.n if limit is None else limit
        return df.orderBy(*order).limit(n).collect() if n > 0 else []

    def _examples(self, flag: str, count: int, make: Callable[[Row], dict[str, Any]]) -> dict[str, Any]:
        rows = self._first(self.facts.where(flag), "id") if count else []
        return _finding(count, [make(r) for r in rows])

    def _at(self, example: dict[str, Any], record_id: int) -> dict[str, Any]:
        self._waiting.append((example, record_id))
        return example

    def _fill_places(self) -> None:
        """Every example's "at": the first positions of its id in the consumer's view, one query for all."""
        ids = sorted({i for _, i in self._waiting})
        places: dict[int, list[str]] = defaultdict(list)
        if ids and self.n > 0:
            rank = F.row_number().over(Window.partitionBy("id").orderBy("pos"))
            rows = self.cv.where(F.col("id").isin(ids)).withColumn("k", rank).where(F.col("k") <= self.n).collect()
            for r in sorted(rows, key=lambda r: (r.id, r.pos)):
                places[r.id].append(_where(r.topic, r.partition, r.offset))
        for example, record_id in self._waiting:
            example["at"] = places[record_id]

    # --- the anomalies ------------------------------------------------------------------

    def _duplicate(self) -> dict[str, Any]:
        t, c = self.counts, F.col
        examples = []
        if t.duplicate:
            for r in self._first(self.facts.where(c("visible") & (c("n_copies") > 1)), "id"):
                examples.append(self._at({**_about(r), "copies": r.n_copies, "at": None}, r.id))
        if t.ghost_duplicate and len(examples) < self.n:  # ids nobody sent come after, as in the checker
            ghosts = self.facts.where(c("phantom") & (c("n_copies") > 1))
            for r in self._first(ghosts, "id", limit=self.n - len(examples)):
                examples.append(self._at({"id": r.id, "copies": r.n_copies, "at": None}, r.id))
        return _finding(t.duplicate + t.ghost_duplicate, examples)

    def _aborted_read(self) -> dict[str, Any]:
        def make(r: Row) -> dict[str, Any]:
            why = "transaction aborted" if r.aborted_all else "send failed"
            return self._at({**_about(r), "why": why, "at": None}, r.id)

        return self._examples("aborted_read", self.counts.aborted_read, make)

    def _phantom(self) -> dict[str, Any]:
        phantoms = self._first(self.facts.where("phantom"), "id") if self.counts.phantom else []
        examples = [self._at({"id": r.id, "at": None}, r.id) for r in phantoms]
        if self.undecodable and len(examples) < self.n:  # values without a harness id: one example for all
            rows = self._first(self.cv.where(F.col("id") < MARKER_ID), "pos")
            at = [_where(r.topic, r.partition, r.offset) for r in rows]
            examples.append({"id": None, "at": at})
        return _finding(self.counts.phantom + self.undecodable, examples)

    def _order(self) -> dict[str, Any]:
        count = self.counts.late
        if not count or not self.n:
            return _finding(count, [])
        # The first late ones in (session, position) order, as the checker picks them.
        chosen = self.late.orderBy("session", "pos").limit(self.n).join(self.sent, "id").collect()
        # The record each was stored after: the first earlier one in its group that was sent later.
        picked = self.spark.createDataFrame(
            [(r.id, r.session, r.tp, r.pos, r.seq) for r in chosen],
            "late BIGINT, session BIGINT, tp BIGINT, lpos BIGINT, lseq BIGINT",
        )
        earlier = {
            r.late: r.e
            for r in self.firsts.join(F.broadcast(picked), ["session", "tp"])
            .where((F.col("pos") < F.col("lpos")) & (F.col("seq") > F.col("lseq")))
            .groupBy("late")
            .agg(F.min(F.struct("pos", "id", "topic", "partition", "offset")).alias("e"))
            .collect()
        }
        examples = []
        for r in chosen:
            e = earlier[r.id]
            after = {"id": e.id, "at": _where(e.topic, e.partition, e.offset)}
            examples.append({**_about(r), "at": _where(r.topic, r.partition, r.offset), "stored_after": after})
        examples.sort(key=lambda e: e["id"])
        return _finding(count, examples)

    def _torn(self) -> dict[str, Any]:
        c = F.col
        count = self.counts.torn
        rows = self._first(self.torn, "key") if count else []
        missing: dict[int, list[int]] = defaultdict(list)
        if rows:
            rank = F.row_number().over(Window.partitionBy("key").orderBy("id"))
            gone = self.torn_members.where(~c("visible") & c("key").isin([r.key for r in rows]))
            for r in gone.withColumn("k", rank).where(c("k") <= self.n).collect():
                missing[r.key].append(r.id)
        examples = [_transaction(r, seen=r.seen, sent=r.sent, missing=sorted(missing[r.key])) for r in rows]
        return _finding(count, examples)

    def _partly_read(self) -> dict[str, Any]:
        rows = self._first(self.partly, "key") if self.counts.partly else []
        return _finding(self.counts.partly, [_transaction(r, read=r.sent, not_read=r.unread) for r in rows])

    def _inconsistent(self) -> dict[str, Any]:
        t = self.counts
        examples: list[dict[str, Any]] = []
        count = 0
        for iso in ISOLATIONS:  # offsets a reader returned twice or more
            if iso in self.repeated:
                n = t[f"repeated_{iso}"]
                count += n
                for r in self._first(self.repeated[iso], "pos", limit=self.n - len(examples)) if n else []:
                    read = [_shown(i) for i in r.ids]
                    examples.append({"at": _where(r.topic, r.partition, r.offset), "read_by": iso, "read": read})
        if self.ru is None:
            return _finding(count, examples)
        disagree = t.disagree if self.disagree is not None else 0
        rows = self._first(self.disagree, "pos", limit=self.n - len(examples)) if disagree else []  # type: ignore[arg-type]
        for r in rows:
            examples.append(
                {
                    "at": _where(r.topic, r.partition, r.offset),
                    "read_committed": _shown(r.id),
                    "read_uncommitted": _shown(r.ru_id) if r.there else None,
                }
            )
        if t.ack_bad and len(examples) < self.n:
            for r in self._first(self.facts.where("ack_bad"), "id", limit=self.n - len(examples)):
                there = _shown(r.ru_id) if r.ru_there else None
                examples.append({"at": _acked_at(r), "acknowledged": r.id, "read_uncommitted": there})
        return _finding(count + disagree + t.ack_bad, examples)

    def _exactly_once(self, pairs: tuple[tuple[str, str], ...]) -> dict[str, dict[str, Any]]:
        c = F.col
        missing, repeated = _finding(0, []), _finding(0, [])
        for i, ((in_topic, out_topic), (outputs, inputs)) in enumerate(zip(pairs, self.eos_inputs, strict=True)):
            topics = f"{in_topic} -> {out_topic}"
            zero, many = self.counts[f"eos_zero_{i}"], self.counts[f"eos_many_{i}"]
            missing["count"] += zero
            for r in self._first(inputs.where(c("outputs") == 0), "id") if zero else []:
                missing["examples"].append({"input": r.id, "topics": topics, "outputs": []})
            repeated["count"] += many
            rows = self._first(inputs.where(c("outputs") > 1), "id") if many else []
            if rows:
                outs: dict[int, list[int]] = defaultdict(list)
                for o in outputs.where(c("source").isin([r.id for r in rows])).select("source", "id").collect():
                    outs[o.source].append(o.id)
                for r in rows:
                    repeated["examples"].append({"input": r.id, "topics": topics, "outputs": sorted(outs[r.id])})
        missing["examples"], repeated["examples"] = missing["examples"][: self.n], repeated["examples"][: self.n]
        return {"eos_missing": missing, "eos_repeated": repeated}


# --- helpers ------------------------------------------------------------------------------


def _finding(count: int, examples: list[dict[str, Any]]) -> dict[str, Any]:
    return {"count": count, "examples": examples}


def _transaction(r: Row, **counts: Any) -> dict[str, Any]:
    """An example transaction: whose it is, then what was counted of it."""
    return {"producer": r.producer, "session": r.key >> SEQ_BITS, "txn": r.key & _SEQ_MASK, **counts}


def _about(r: Row) -> dict[str, Any]:
    return {"id": r.id, "producer": r.producer or "?", "session": r.session, "txn": r.txn if r.txn >= 0 else None}


def _where(topic: str, partition: int, offset: int) -> str:
    return f"{topic}-{partition}@{offset}"


def _acked_at(r: Row) -> str | None:
    return _where(r.topic, r.ack.partition, r.ack.offset) if r.ack_pos is not None else None


def _shown(record_id: int) -> int | str:
    return "marker" if record_id == MARKER_ID else record_id


def _literal_map(mapping: dict[Any, Any], value_type: str, key_type: str = "string") -> Column:
    """A small driver-side dict as a map column: no join, no broadcast job."""
    if not mapping:
        return F.expr("map()").cast(f"map<{key_type},{value_type}>")
    return F.create_map(*[F.lit(x) for kv in mapping.items() for x in kv]).cast(f"map<{key_type},{value_type}>")


def _txn_key(session: str | Column, txn: str) -> Column:
    return F.shiftleft(session, SEQ_BITS).bitwiseOR(F.col(txn))


def _position(code: Column, partition: str, offset: str) -> Column:
    return (
        F.shiftleft(code, _TP_SHIFT)
        .bitwiseOR(F.shiftleft(F.col(partition).cast("long"), OFFSET_BITS))
        .bitwiseOR(F.col(offset))
    )


def _header_state(path: Path) -> bool | None:
    """True: a ledger header; False: not a ledger (history.py ignores the file, counting one line); None: empty."""
    with path.open("rb") as f:
        first = f.readline()
    if not first:
        return None
    return tuple(next(csv.reader([first.decode("utf-8", errors="replace")]), [])) == COLUMNS


def _parquet_views(
    spark: SparkSession, reads: Path
) -> tuple[dict[str, DataFrame], set[tuple[str, int]], dict[str, int]]:
    """The read-back files, the partitions their readers say they read, and how many each topic has."""
    views, declared, counts = {}, set(), {}
    for isolation in ISOLATIONS:
        path = view_path(reads, isolation)
        if path.exists():
            schema = pq.read_schema(path)
            declared |= {(t, p) for t, ps in partitions_read(schema).items() for p in ps}
            for t, n in topic_partitions(schema).items():
                counts[t] = max(n, counts.get(t, 0))
            views[isolation] = spark.read.parquet(str(path)).select(
                "topic",
                F.col("partition").cast("long").alias("partition"),
                F.col("offset").cast("long").alias("offset"),
                F.col("id").cast("long").alias("id"),
                F.monotonically_increasing_id().alias("order"),  # file order: decides which topic counts as first
            )
    return views, declared, counts


def _kafka_views(
    spark: SparkSession, bootstrap: str, topics: Sequence[str]
) -> tuple[dict[str, DataFrame], set[tuple[str, int]], dict[str, int]]:
    """Both isolation levels' views of ``topics`` from the log starts to the high watermarks
    taken now, as ``read_back`` writes them."""
    spans = watermarks(bootstrap, topics, wait_s=10)
    starting = json.dumps({t: {str(p): start for (tt, p), (start, _) in spans.items() if tt == t} for t in topics})
    ending = json.dumps({t: {str(p): end for (tt, p), (_, end) in spans.items() if tt == t} for t in topics})
    assign = json.dumps({t: [p for tt, p in spans if tt == t] for t in topics})
    rank = F.lit(None).cast("long")
    for i, t in enumerate(topics):
        rank = F.when(F.col("topic") == t, F.lit(i)).otherwise(rank)
    views = {}
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
        if isolation == "read_uncommitted" and spans:
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
        # arrived; that order only matters for a topic no ledger sent to, see summarize.)
        views[isolation] = rows.withColumn("order", _position(rank, "partition", "offset"))
    return views, set(spans), {t: sum(1 for tt, _ in spans if tt == t) for t in topics}


# --- running it ---------------------------------------------------------------------------


def spark_session(app_name: str = "check-history", master: str = "local[2]", kafka: bool = True) -> SparkSession:
    """harness.jvm.spark's session on ``master``; without Kafka a plain one will do when the
    connector cannot be had."""
    from harness.settings import Settings

    try:
        return harness_spark.session(Settings(), app_name, master, many_jobs=True)
    except HarnessError:
        if kafka:
            raise
    # Same loopback-only setup as harness.jvm.spark.session, minus the Kafka connector.
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    builder = SparkSession.builder.master(master).appName(app_name)
    for name, value in {
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.host": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.driver.memory": "1g",
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
    }.items():
        builder = builder.config(name, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark
