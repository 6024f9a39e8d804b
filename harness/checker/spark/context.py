"""What every anomaly of the Spark engine shares, computed once: the small facts of the inputs,
sessions, transactions, one row of facts per record id, and the counts, as the numpy engine's
``harness.checker.anomalies.Context`` does.

Actions are few on purpose (each costs planning and code generation): one summary of the
inputs, one row with the counts, then example queries only for anomalies that occurred. Only
small results reach the driver: counts, the first few examples, the topic names, one row per
ledger file.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import cached_property, reduce
from typing import Any

from pyspark.sql import Column, DataFrame, Row, SparkSession, Window
from pyspark.sql import functions as F

from harness.checker.spark.inputs import Ledgers, Views, position
from harness.errors import HarnessError
from harness.history.columns import (
    FAIL,
    INFO,
    OFFSET_BITS,
    OK,
    PARTITION_BITS,
    TP_SHIFT,
    TXN_ABORTED,
    TXN_COMMITTED,
    TXN_UNKNOWN,
)
from harness.history.format import ISOLATIONS, MARKERS_VIEW
from harness.history.ledger import EVENTS
from harness.history.records import MARKER_ID, SEQ_BITS

SEQ_MASK = (1 << SEQ_BITS) - 1
_OUTCOME = {"info": INFO, "fail": FAIL, "ok": OK}
_TXN_EVENTS = EVENTS[EVENTS.index("txn-begin") : EVENTS.index("txn-unknown") + 1]
_PLACE = ["topic", "partition", "offset"]


def _marker(kind: Column) -> Column:
    """A row that is a transaction marker, not a record: MARKER_ID in the one view that has them."""
    return (kind == MARKERS_VIEW) & (F.col("id") == MARKER_ID)


class Context:
    """The frames every anomaly reads, and the examples still waiting for their positions."""

    def __init__(
        self,
        spark: SparkSession,
        ledgers: Ledgers,
        views: Views,
        consumer_view: str,
        eos_pairs: tuple[tuple[str, str], ...],
        max_examples: int,
    ) -> None:
        self.spark, self.n, self.eos_pairs = spark, max_examples, eos_pairs
        self.stems = ledgers.stems
        self._cached: list[DataFrame] = []
        self._waiting: list[tuple[dict[str, Any], int]] = []  # (example, id): "at" is filled in one query at the end
        self._summarize(ledgers, views, consumer_view)
        self._frames()

    def cache(self, df: DataFrame) -> DataFrame:
        self._cached.append(df.cache())
        return self._cached[-1]

    def release(self) -> None:
        for df in self._cached:
            df.unpersist()

    # --- the inputs ----------------------------------------------------------------------

    def _summarize(self, ledgers: Ledgers, views: Views, consumer_view: str) -> None:
        """One pass for the small facts: ignored lines per file, topics in order of first appearance, view sizes,
        and the partitions read (declared by the readers, and every one with rows; how many partitions a topic
        has, where the readers said)."""
        parsed = self.cache(ledgers.lines)
        # Each (position, id) once, as the numpy engine's views hold them; the raw rows only
        # show which offsets a reader returned twice or more.
        # Cached partitioned by place: the offsets read twice, what was read at an offset and the
        # comparisons of the two views by place then need no shuffle of their own (see engine.session).
        # Ids are nearly unique per place, so the shuffle comes first rather than after a partial
        # aggregation that would not shrink anything.
        raw = {
            iso: self.cache(
                df.repartition(*_PLACE)
                .groupBy(*_PLACE, "id")
                .agg(F.min("order").alias("order"), F.count(F.lit(1)).alias("rows"))
            )
            for iso, df in views.frames.items()
        }
        repeated = {iso: df.groupBy(*_PLACE).agg(F.sum("rows").alias("rows")) for iso, df in raw.items()}
        none = F.lit(None).cast("long")
        view_columns = ("data", "markers", "no_id", "max_partition", "partitions")
        invoke_topic = F.when(F.col("ok") & (F.col("event") == "invoke"), F.coalesce("topic", F.lit("")))
        per_file = (
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
        marker = _marker(F.col("kind"))
        per_view = (
            tagged.groupBy("kind", "topic")
            .agg(
                F.min("order").alias("first"),
                F.count(F.when(~marker, 1)).alias("data"),
                F.count(F.when(marker, 1)).alias("markers"),
                F.count(F.when((F.col("id") < 0) & ~marker, 1)).alias("no_id"),
                F.max("partition").alias("max_partition"),
                F.collect_set("partition").alias("partitions"),
            )
            .select("kind", F.lit(None).cast("int").alias("file"), "topic", none.alias("bad"), "first", *view_columns)
        )
        rows = per_file.unionByName(per_view).collect()

        files = [r for r in rows if r.kind == "ledger"]
        bad: dict[int, int] = defaultdict(int)
        for r in files:
            bad[r.file] += r.bad
        self.problems: dict[str, int] = {}
        for i, stem in enumerate(ledgers.stems):
            # A ledger's header line is itself refused (its end column says "end"): not counted.
            ignored = 1 if i in ledgers.not_ledgers else max(0, bad[i] - 1)
            if ignored:
                self.problems[stem] = ignored
        seen = {iso: [r for r in rows if r.kind == iso] for iso in ISOLATIONS}
        for r in (r for rs in seen.values() for r in rs):
            if r.max_partition is not None and r.max_partition >= 1 << PARTITION_BITS:
                raise HarnessError(f"{r.kind}: partition numbers of {1 << PARTITION_BITS} or more are not supported")
        # Topic codes as the numpy engine hands them out: ledger topics by first send, then each
        # view's topics by first row. They order positions, hence examples.
        order = [t for _, _, t in sorted((r.file, r.first, r.topic) for r in files if r.topic is not None)]
        for iso in ISOLATIONS:
            order += [r.topic for r in sorted(seen[iso], key=lambda r: r.first)]
        self.codes = {t: i for i, t in enumerate(dict.fromkeys(t for t in order if t is not None))}
        self.read_partitions = sorted(
            views.declared
            | {(r.topic, p) for rs in seen.values() for r in rs if r.topic is not None for p in r.partitions}
        )
        # A topic counts as read for a send of unknown partition when all its partitions were (where known).
        read = set(self.read_partitions)
        counts = views.partition_counts
        self.read_topics = sorted(
            {t for t, _ in read if t not in counts or all((t, p) in read for p in range(counts[t]))}
        )
        self.view_stats = {
            "read_committed_records": sum(r.data for r in seen["read_committed"]),
            "read_uncommitted_records": sum(r.data for r in seen["read_uncommitted"]),
            "markers": sum(r.markers for r in seen[MARKERS_VIEW]),
        }
        self.no_id_rows = sum(r.no_id for r in seen[consumer_view])  # stored records without a harness id

        self.lines = parsed.where("ok")
        pos = position(self.code(F.col("topic")), "partition", "offset")
        self.views = {iso: df.where(F.col("topic").isNotNull()).withColumn("pos", pos) for iso, df in raw.items()}
        self.repeated = {
            iso: df.where((F.col("rows") > 1) & F.col("topic").isNotNull()).withColumn("pos", pos)
            for iso, df in repeated.items()
        }
        self.consumer_view = consumer_view
        self.cv = self.views[consumer_view]
        self.ru = self.views.get("read_uncommitted")
        self.rc = self.views.get("read_committed")

    def code(self, topic: Column) -> Column:
        """A topic's code, as the numpy engine gives it."""
        return F.try_element_at(literal_map(self.codes, "long"), topic)

    def topic_of(self, code: str | Column) -> Column:
        """The name of a topic code (``code``'s inverse)."""
        names = literal_map({i: t for t, i in self.codes.items()}, "string", "long")
        return F.try_element_at(names, F.col(code) if isinstance(code, str) else code)

    def no_id(self) -> Column:
        """A row of the consumer's view that is a stored record without a harness id."""
        return (F.col("id") < 0) & ~_marker(F.lit(self.consumer_view))

    # --- the shared frames ----------------------------------------------------------------

    def _frames(self) -> None:
        """Sessions, transactions and per-id facts, all lazy."""
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
        producer = F.try_element_at(literal_map(dict(enumerate(self.stems)), "string", "int"), c("file"))
        sessions = sessions.select(
            "session",
            F.coalesce(producer, F.lit("?")).alias("producer"),
            F.coalesce("txid", F.lit("")).alias("txid"),
            F.coalesce("started", F.lit(-1)).alias("started"),
        )
        # Fenced when another session of the same transactional.id became ready at the same
        # time or later: the next one in (ready time descending, session ascending) order, the
        # order the numpy engine's fence times walk them in.
        eligible = (c("txid") != "") & (c("started") >= 0)
        newer = Window.partitionBy("txid", eligible).orderBy(F.desc("started"), "session")
        self.sessions = self.cache(sessions.withColumn("fence", F.when(eligible, F.lag("started").over(newer))))

        # Transactions: the strongest end any line reports; when begun and when commit was asked.
        state = (
            F.when(ev == "txn-committed", TXN_COMMITTED)
            .when(ev == "txn-aborted", TXN_ABORTED)
            .when(ev == "txn-unknown", TXN_UNKNOWN)
            .otherwise(0)
        )
        self.txns = self.cache(
            lines.where(ev.isin(*_TXN_EVENTS))
            .groupBy(txn_key("session", "txn").alias("key"))
            .agg(
                F.max(state).alias("state"),
                F.max(F.when(ev == "txn-begin", c("time_us")).otherwise(-1)).alias("begin_us"),
                F.max(F.when(ev == "txn-commit", c("time_us")).otherwise(-1)).alias("commit_us"),
            )
        )

        # Every attempt (invoke line) with the end of its transaction: over all of them an id is
        # committed when any attempt's transaction committed, and aborted for sure only when all
        # of them aborted (harness.checker.anomalies' docstring).
        # Only numbers cross the shuffle by id (topic codes, not names; the ordering line, not a
        # struct): aggregates over fixed-width values hash, and skip their partial step, where
        # strings or structs would sort every row on both sides of the shuffle.
        attempts = (
            lines.where((ev == "invoke") & (c("id") >= 0))
            .select(
                "id",
                c("line").alias("a_line"),
                self.code(F.coalesce("topic", F.lit(""))).alias("code"),  # an invoke without a topic names ""
                "txn",
                "source",
                F.when(c("txn") >= 0, txn_key(F.shiftright("id", SEQ_BITS), "txn")).alias("key"),
            )
            .join(self.txns, "key", "left")
            .drop("key")
        )
        outcomes = lines.where(ev.isin(*_OUTCOME) & (c("id") >= 0)).select(
            "id", ev.alias("outcome"), F.when(ev == "ok", c("line")).alias("ok_line"), "partition", "offset"
        )
        copies = self.cv.where(c("id") >= 0).select("id", c("pos").alias("copy_pos"))
        # One shuffle by id for all three: each row is an attempt, an outcome line or a stored
        # copy, and each aggregate looks at its own kind (the others' columns are null).
        rows = attempts.unionByName(outcomes, allowMissingColumns=True).unionByName(copies, allowMissingColumns=True)
        attempt_state = F.when(c("a_line").isNotNull(), F.coalesce(c("state"), F.lit(-1)))
        out = c("outcome")
        copy_code = F.shiftright("copy_pos", TP_SHIFT)

        # Line numbers ascend in file order, then line order (inputs.read_ledgers): the last line wins.
        def last(name: str, line: str = "a_line") -> Column:
            return F.max_by(name, line).alias(name)

        per_id = (
            rows.repartition("id")
            .groupBy("id")
            .agg(  # nearly one row per kind and id: no partial step first
                *[last(k) for k in ("code", "txn", "source", "state", "begin_us", "commit_us")],
                F.count("a_line").alias("attempts"),
                F.max(attempt_state == TXN_COMMITTED).alias("any_attempt_committed"),
                F.min(attempt_state == TXN_ABORTED).alias("every_attempt_aborted"),
                *[F.max(out == name).alias(f"saw_{name}") for name in _OUTCOME],
                F.count(F.when(out == "fail", 1)).alias("fails"),
                F.max_by("partition", "ok_line").alias("ack_partition"),
                F.max_by("offset", "ok_line").alias("ack_offset"),
                F.max(F.when(out == "ok", c("partition"))).alias("ok_partition"),
                F.count("copy_pos").alias("n_copies"),
                # The first copy (order) and the topics copies are in (misplaced: any other than the send's).
                F.min("copy_pos").alias("first_pos"),
                F.min(copy_code).alias("copy_code_min"),
                F.max(copy_code).alias("copy_code_max"),
            )
        )
        facts = (
            per_id.withColumn("session", F.shiftright("id", SEQ_BITS))
            # One row per session: small, so broadcast rather than shuffle the facts by session.
            .join(F.broadcast(self.sessions.select("session", "producer", "fence")), "session", "left")
            .select(
                "*",
                (c("attempts") > 0).alias("sent"),
                self.topic_of("code").alias("topic"),
                # Over all attempts: an ack beats everything; an info line or an attempt without
                # its own fail line leaves the id open; failed only when every attempt failed.
                F.when(c("saw_ok"), OK)
                .when(c("saw_info"), INFO)
                .when(c("saw_fail") & (c("fails") >= F.greatest(c("attempts"), F.lit(1))), FAIL)
                .when(c("saw_fail"), INFO)
                .otherwise(0)
                .alias("result"),
            )
            .select(
                "*",
                F.when(c("sent") & (c("txn") >= 0), txn_key("session", "txn")).alias("key"),
                F.when(
                    c("sent") & (c("ack_partition") >= 0) & (c("ack_offset") >= 0),
                    position(c("code"), c("ack_partition"), c("ack_offset")),
                ).alias("ack_pos"),
            )
        )

        visible = c("sent") & (c("n_copies") > 0)
        in_txn = c("sent") & c("state").isNotNull()  # a transaction no ledger line names is no transaction
        committed = in_txn & (c("state") == TXN_COMMITTED)
        aborted = in_txn & (c("state") == TXN_ABORTED)
        committed_any = c("sent") & (committed | c("any_attempt_committed"))
        aborted_all = aborted & c("every_attempt_aborted")
        # The acknowledged partition where there is one; a send's topic where its partition is unknown.
        read = [(self.codes[t] << PARTITION_BITS) | p for t, p in self.read_partitions if t in self.codes]
        to_read = c("sent") & F.when(c("ack_pos").isNotNull(), partition_key("ack_pos").isin(*read)).otherwise(
            c("code").isin(*[self.codes[t] for t in self.read_topics if t in self.codes])
        )
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
            "misplaced": visible & ((c("copy_code_min") != c("code")) | (c("copy_code_max") != c("code"))),
        }
        # Cached narrow: what the anomalies and their examples read, and the flags.
        done_with = {"any_attempt_committed", "every_attempt_aborted", "state", "begin_us", "commit_us", "attempts"}
        done_with |= {"copy_code_min", "copy_code_max", "saw_ok", "saw_info", "saw_fail", "fails"}
        kept = [k for k in facts.columns if k not in done_with]
        self.facts = self.cache(facts.select(*kept, *[F.coalesce(v, F.lit(False)).alias(k) for k, v in flags.items()]))
        self.sent = self.facts.where("sent").select("id", "session", "producer", "txn", "topic")
        self.ack_bad = self._unconfirmed_acks()

    def _unconfirmed_acks(self) -> DataFrame:
        """Acknowledgements the read_uncommitted reader does not confirm, while that offset holds
        something else or the id was read elsewhere; with the smallest id read there (``ru_id``) and
        whether anything was (``ru_there``). Only the acknowledged ids' few columns are shuffled."""
        c = F.col
        acks = self.facts.where(c("ack_pos").isNotNull()).select(
            "id", "topic", "ack_partition", "ack_offset", "ack_pos", "visible", "producer", "session", "txn"
        )
        if self.ru is None:  # nothing to confirm against: none
            none = [F.lit(None).cast("long").alias("ru_id"), F.lit(None).cast("boolean").alias("ru_there")]
            return acks.select("*", *none).where(F.lit(False))
        # Confirmed: that id read at that offset (most acknowledgements).
        at = acks.select("*", c("ack_partition").alias("partition"), c("ack_offset").alias("offset"))
        unconfirmed = at.join(self.ru.select(*_PLACE, "id"), [*_PLACE, "id"], "left_anti")
        return unconfirmed.join(self.read_at(self.ru), _PLACE, "left").where(
            F.coalesce("ru_there", F.lit(False)) | c("visible")
        )

    @staticmethod
    def read_at(view: DataFrame) -> DataFrame:
        """Per place (topic, partition, offset) of ``view``: the smallest id read there (``ru_id``), and
        ``ru_there`` True."""
        return view.groupBy(*_PLACE).agg(F.min("id").alias("ru_id"), F.lit(True).alias("ru_there"))

    def place_of(self, pos: str) -> list[Column]:
        """Columns ``topic``, ``partition`` and ``offset`` of a position."""
        p = F.col(pos)
        return [
            self.topic_of(F.shiftright(p, TP_SHIFT)).alias("topic"),
            F.shiftright(p, OFFSET_BITS).bitwiseAND(F.lit((1 << PARTITION_BITS) - 1)).alias("partition"),
            p.bitwiseAND(F.lit((1 << OFFSET_BITS) - 1)).alias("offset"),
        ]

    @cached_property
    def counts(self) -> Row:
        """The counts of the facts every anomaly and the stats need, as one row from one action."""
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
                *[n(c(k)).alias(k) for k in ("lost", "aborted_read", "zombie", "misplaced")],
                F.max("ok_partition").alias("ok_partition"),
            ),
            self.ack_bad.agg(F.count(F.lit(1)).alias("ack_bad")),
        ]
        # Each part is one row; as (name, value) pairs they union into one small collect, no joins.
        pairs = [
            df.select(F.explode(F.create_map(*[x for k in df.columns for x in (F.lit(k), F.col(k).cast("long"))])))
            for df in parts
        ]
        counts = Row(**{r.key: r.value for r in reduce(DataFrame.unionByName, pairs).collect()})
        if (counts.ok_partition or 0) >= 1 << PARTITION_BITS:
            raise HarnessError(f"ledgers: partition numbers of {1 << PARTITION_BITS} or more are not supported")
        return counts

    # --- examples -------------------------------------------------------------------------

    def first(self, df: DataFrame, *order: str | Column, limit: int | None = None) -> list[Row]:
        """The first rows of ``df`` in ``order``: up to ``limit`` (the number of examples by default)."""
        n = self.n if limit is None else limit
        return df.orderBy(*order).limit(n).collect() if n > 0 else []

    def examples(self, flag: str, count: int, make: Callable[[Row], dict[str, Any]]) -> dict[str, Any]:
        """A finding of ``count`` ids with ``flag`` set in the facts, the first ones shown by ``make``."""
        rows = self.first(self.facts.where(flag), "id") if count else []
        return finding(count, [make(r) for r in rows])

    def at(self, example: dict[str, Any], record_id: int) -> dict[str, Any]:
        """``example`` with its "at" to be filled (``fill_places``) with where the consumer's view holds the id."""
        self._waiting.append((example, record_id))
        return example

    def fill_places(self) -> None:
        """Every example's "at": the first positions of its id in the consumer's view, one query for all."""
        ids = sorted({i for _, i in self._waiting})
        places: dict[int, list[str]] = defaultdict(list)
        if ids and self.n > 0:
            rank = F.row_number().over(Window.partitionBy("id").orderBy("pos"))
            rows = self.cv.where(F.col("id").isin(ids)).withColumn("k", rank).where(F.col("k") <= self.n).collect()
            for r in sorted(rows, key=lambda r: (r.id, r.pos)):
                places[r.id].append(where(r.topic, r.partition, r.offset))
        for example, record_id in self._waiting:
            example["at"] = places[record_id]


# --- helpers ------------------------------------------------------------------------------


def finding(count: int, examples: list[dict[str, Any]]) -> dict[str, Any]:
    return {"count": count, "examples": examples}


def about(r: Row) -> dict[str, Any]:
    """A record, as the numpy engine's examples name it."""
    return {"id": r.id, "producer": r.producer or "?", "session": r.session, "txn": r.txn if r.txn >= 0 else None}


def where(topic: str, partition: int, offset: int) -> str:
    return f"{topic}-{partition}@{offset}"


def acked_at(r: Row) -> str | None:
    return where(r.topic, r.ack_partition, r.ack_offset) if r.ack_pos is not None else None


def shown(record_id: int) -> int | str:
    return "marker" if record_id == MARKER_ID else record_id


def literal_map(mapping: dict[Any, Any], value_type: str, key_type: str = "string") -> Column:
    """A small driver-side dict as a map column: no join, no broadcast job."""
    if not mapping:
        return F.expr("map()").cast(f"map<{key_type},{value_type}>")
    return F.create_map(*[F.lit(x) for kv in mapping.items() for x in kv]).cast(f"map<{key_type},{value_type}>")


def txn_key(session: str | Column, txn: str) -> Column:
    return F.shiftleft(session, SEQ_BITS).bitwiseOR(F.col(txn))


def partition_key(pos: str) -> Column:
    """``topic code << PARTITION_BITS | partition`` of a position: which partition it is in."""
    return F.shiftright(pos, OFFSET_BITS)
