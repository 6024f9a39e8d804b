"""The Spark engine's anomalies: one function per anomaly of ``harness.checker.catalogue``, each named as
the numpy engine's function that finds it (``harness.checker.anomalies``) and returning the same JSON:
``{name: {"count": ..., "examples": [...]}}``. What each anomaly means is in the catalogue; how it is
judged (outcomes over attempts, what must be seen) in the numpy engine's docstring.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pyspark.sql import Row, Window
from pyspark.sql import functions as F

from harness.checker.spark.context import (
    SEQ_MASK,
    Context,
    about,
    acked_at,
    finding,
    partition_key,
    shown,
    where,
)
from harness.history.format import ISOLATIONS
from harness.history.records import SEQ_BITS


def duplicate(c: Context) -> dict[str, Any]:
    t, col = c.counts, F.col
    examples = []
    if t.duplicate:
        for r in c.first(c.facts.where(col("visible") & (col("n_copies") > 1)), "id"):
            examples.append(c.at({**about(r), "copies": r.n_copies, "at": None}, r.id))
    if t.ghost_duplicate and len(examples) < c.n:  # ids nobody sent come after, as in the numpy engine
        ghosts = c.facts.where(col("phantom") & (col("n_copies") > 1))
        for r in c.first(ghosts, "id", limit=c.n - len(examples)):
            examples.append(c.at({"id": r.id, "copies": r.n_copies, "at": None}, r.id))
    return {"duplicate": finding(t.duplicate + t.ghost_duplicate, examples)}


def lost(c: Context) -> dict[str, Any]:
    def make(r: Row) -> dict[str, Any]:
        return {**about(r), "acked_at": acked_at(r), "committed": r.committed_any}

    return {"lost": c.examples("lost", c.counts.lost, make)}


def aborted_read(c: Context) -> dict[str, Any]:
    def make(r: Row) -> dict[str, Any]:
        why = "transaction aborted" if r.aborted_all else "send failed"
        return c.at({**about(r), "why": why, "at": None}, r.id)

    return {"aborted_read": c.examples("aborted_read", c.counts.aborted_read, make)}


def phantom(c: Context) -> dict[str, Any]:
    phantoms = c.first(c.facts.where("phantom"), "id") if c.counts.phantom else []
    examples = [c.at({"id": r.id, "at": None}, r.id) for r in phantoms]
    if c.no_id_rows and len(examples) < c.n:  # values without a harness id: one example for all
        rows = c.first(c.cv.where(c.no_id()), "pos")
        examples.append({"id": None, "at": [where(r.topic, r.partition, r.offset) for r in rows]})
    return {"phantom": finding(c.counts.phantom + c.no_id_rows, examples)}


def order(c: Context) -> dict[str, Any]:
    """First copies of ids sent once, per (session, partition) in offset order: one whose seq is below
    the highest seq stored before it in its group was sent earlier but stored later."""
    col = F.col
    # A resent id's place in the send order is unknown; a duplicated id counts where it was first stored.
    once = c.facts.where(col("sent") & ~col("resent") & (col("n_copies") > 0))
    firsts = once.select(
        "id",
        col("first_pos").alias("pos"),
        *c.place_of("first_pos"),
        F.shiftright("id", SEQ_BITS).alias("session"),
        col("id").bitwiseAND(F.lit(SEQ_MASK)).alias("seq"),
        partition_key("first_pos").alias("tp"),
    )
    before = Window.partitionBy("session", "tp").orderBy("pos").rowsBetween(Window.unboundedPreceding, -1)
    late = firsts.withColumn("top", F.max("seq").over(before)).where(col("seq") < col("top"))
    count = late.count()
    if not count or not c.n:
        return {"order": finding(count, [])}
    # The first late ones in (session, position) order, as the numpy engine picks them.
    chosen = late.orderBy("session", "pos").limit(c.n).join(c.sent.drop("topic", "session"), "id").collect()
    # The record each was stored after: the first earlier one in its group that was sent later.
    picked = c.spark.createDataFrame(
        [(r.id, r.session, r.tp, r.pos, r.seq) for r in chosen],
        "late BIGINT, session BIGINT, tp BIGINT, lpos BIGINT, lseq BIGINT",
    )
    earlier = {
        r.late: r.e
        for r in firsts.join(F.broadcast(picked), ["session", "tp"])
        .where((col("pos") < col("lpos")) & (col("seq") > col("lseq")))
        .groupBy("late")
        .agg(F.min(F.struct("pos", "id", "topic", "partition", "offset")).alias("e"))
        .collect()
    }
    examples = []
    for r in chosen:
        e = earlier[r.id]
        after = {"id": e.id, "at": where(e.topic, e.partition, e.offset)}
        examples.append({**about(r), "at": where(r.topic, r.partition, r.offset), "stored_after": after})
    examples.sort(key=lambda e: e["id"])
    return {"order": finding(count, examples)}


def transactions_read(c: Context) -> dict[str, Any]:
    """torn_transaction: committed or undecided transactions partly in the view, within the partitions
    read; partly_read: committed ones partly in partitions not read."""
    col = F.col
    members = c.facts.where(col("in_txn") & ~col("aborted"))
    per_txn = c.cache(
        members.groupBy("key").agg(
            F.count(F.when(col("to_read"), 1)).alias("sent"),
            F.count(F.when(col("to_read") & col("visible"), 1)).alias("seen"),
            F.count(F.when(~col("to_read") & col("committed"), 1)).alias("unread"),
        )
    )
    # One session per transaction: its producer, for the few examples (numbers only in the aggregation).
    producers = F.broadcast(c.sessions.select(F.col("session").alias("s"), "producer"))
    named = per_txn.join(producers, F.shiftright("key", SEQ_BITS) == col("s"), "left")
    torn = named.where((col("seen") > 0) & (col("seen") < col("sent")))
    partly = named.where((col("sent") > 0) & (col("unread") > 0))
    counts = per_txn.agg(
        F.count(F.when((col("seen") > 0) & (col("seen") < col("sent")), 1)).alias("torn"),
        F.count(F.when((col("sent") > 0) & (col("unread") > 0), 1)).alias("partly"),
    ).first()
    rows = c.first(torn, "key") if counts.torn else []
    missing: dict[int, list[int]] = defaultdict(list)
    if rows:
        rank = F.row_number().over(Window.partitionBy("key").orderBy("id"))
        gone = members.where(col("to_read") & ~col("visible") & col("key").isin([r.key for r in rows]))
        for r in gone.withColumn("k", rank).where(col("k") <= c.n).collect():
            missing[r.key].append(r.id)
    torn_examples = [_transaction(r, seen=r.seen, sent=r.sent, missing=sorted(missing[r.key])) for r in rows]
    partly_rows = c.first(partly, "key") if counts.partly else []
    return {
        "torn_transaction": finding(counts.torn, torn_examples),
        "partly_read": finding(counts.partly, [_transaction(r, read=r.sent, not_read=r.unread) for r in partly_rows]),
    }


def _transaction(r: Row, **counts: Any) -> dict[str, Any]:
    """An example transaction: whose it is, then what was counted of it."""
    return {"producer": r.producer, "session": r.key >> SEQ_BITS, "txn": r.key & SEQ_MASK, **counts}


def inconsistent_offset(c: Context) -> dict[str, Any]:
    examples: list[dict[str, Any]] = []
    count = 0
    for iso in ISOLATIONS:  # offsets a reader returned twice or more
        if iso in c.repeated:
            n = c.repeated[iso].count()
            count += n
            rows = c.first(c.repeated[iso], "pos", limit=c.n - len(examples)) if n else []
            if rows:
                at = c.views[iso].where(F.col("pos").isin([r.pos for r in rows]))
                ids = {
                    r.pos: r.ids
                    for r in at.groupBy("pos").agg(F.array_sort(F.collect_set("id")).alias("ids")).collect()
                }
            for r in rows:
                read = [shown(i) for i in ids[r.pos]]
                examples.append({"at": where(r.topic, r.partition, r.offset), "read_by": iso, "read": read})
    if c.ru is None:
        return {"inconsistent_offset": finding(count, examples)}
    disagree = 0
    if c.rc is not None:  # rows of read_committed that read_uncommitted does not match
        # Where read_uncommitted read several ids at one offset, any of them agrees; shown is the smallest.
        place = ["topic", "partition", "offset"]
        differ = c.rc.join(c.ru.select(*place, "id"), [*place, "id"], "left_anti").join(c.read_at(c.ru), place, "left")
        disagree = differ.count()
        for r in c.first(differ, "pos", limit=c.n - len(examples)) if disagree else []:
            examples.append(
                {
                    "at": where(r.topic, r.partition, r.offset),
                    "read_committed": shown(r.id),
                    "read_uncommitted": shown(r.ru_id) if r.ru_there else None,
                }
            )
    ack_bad = c.counts.ack_bad
    if ack_bad and len(examples) < c.n:
        for r in c.first(c.ack_bad, "id", limit=c.n - len(examples)):
            there = shown(r.ru_id) if r.ru_there else None
            examples.append({"at": acked_at(r), "acknowledged": r.id, "read_uncommitted": there})
    return {"inconsistent_offset": finding(count + disagree + ack_bad, examples)}


def exactly_once(c: Context) -> dict[str, Any]:
    """Per input record in the view, how many distinct outputs in the view name it as their source."""
    col = F.col
    missing, repeated = finding(0, []), finding(0, [])
    for in_topic, out_topic in c.eos_pairs:
        topics = f"{in_topic} -> {out_topic}"
        outputs = c.facts.where(col("visible") & (col("topic") == out_topic) & (col("source") >= 0))
        per_input = outputs.groupBy(col("source").alias("id")).agg(F.count(F.lit(1)).alias("outputs"))
        inputs = (
            c.facts.where(col("visible") & (col("topic") == in_topic))
            .select("id")
            .join(per_input, "id", "left")
            .select("id", F.coalesce("outputs", F.lit(0)).alias("outputs"))
        )
        n = inputs.agg(
            F.count(F.when(col("outputs") == 0, 1)).alias("zero"), F.count(F.when(col("outputs") > 1, 1)).alias("many")
        ).first()
        missing["count"] += n.zero
        for r in c.first(inputs.where(col("outputs") == 0), "id") if n.zero else []:
            missing["examples"].append({"input": r.id, "topics": topics, "outputs": []})
        repeated["count"] += n.many
        rows = c.first(inputs.where(col("outputs") > 1), "id") if n.many else []
        if rows:
            outs: dict[int, list[int]] = defaultdict(list)
            for o in outputs.where(col("source").isin([r.id for r in rows])).select("source", "id").collect():
                outs[o.source].append(o.id)
            for r in rows:
                repeated["examples"].append({"input": r.id, "topics": topics, "outputs": sorted(outs[r.id])})
    missing["examples"], repeated["examples"] = missing["examples"][: c.n], repeated["examples"][: c.n]
    return {"eos_missing": missing, "eos_repeated": repeated}


def zombie_write(c: Context) -> dict[str, Any]:
    def make(r: Row) -> dict[str, Any]:
        return c.at({**about(r), "at": None, "fenced_at_us": r.fence}, r.id)

    return {"zombie_write": c.examples("zombie", c.counts.zombie, make)}


def misplaced(c: Context) -> dict[str, Any]:
    """Ids in the view at a position of another topic than their send's."""

    def make(r: Row) -> dict[str, Any]:
        return c.at({**about(r), "sent_to": r.topic, "at": None}, r.id)

    return {"misplaced": c.examples("misplaced", c.counts.misplaced, make)}
