"""Every finding the harness reports, declared once: its name, where it comes from, what it
means, and the function that finds it (for an anomaly of the history, in each engine).

Three sources:

- **history**: anomalies of the stored records against what the clients did, found by the
  checker's two engines over ledgers and read-backs: a function of the numpy engine
  (``harness.checker.anomalies``) and the Spark engine's function of the same name
  (``harness.checker.spark.anomalies``), which gives the same JSON;
- **client**: what an app process went through (its last report) or what the LSO probe
  saw during the run (``harness.checker.client``), counted from the side's record;
- **sink**: effects a workload left outside the ledgers (database rows, a Spark job's
  output), counted per input (``harness.checker.sinks``) into the record's ``sink``.

A scenario's expectations, the verdict's ``counts``, docs/findings.md's table and
``kafka-harness findings`` all come from ``CATALOGUE``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.checker import anomalies, client

HISTORY, CLIENT, SINK = "history", "client", "sink"


@dataclass(frozen=True)
class Definition:
    name: str
    source: str  # HISTORY, CLIENT or SINK
    meaning: str  # one sentence, as docs/findings.md's table shows it
    # HISTORY: the numpy engine's function of its context returning {name: Finding} (one function
    # may find two related anomalies); CLIENT and SINK: a count from the side's record.
    finds: Callable[..., Any]
    # HISTORY only: relative cost, so the numpy engine starts the longest first.
    cost: int = 0
    # HISTORY only: the Spark engine's function (in harness.checker.spark.anomalies, named here
    # because importing it needs pyspark); the same name as ``finds``.
    spark: str = ""


def _sink(name: str) -> Callable[[client.Recorded], int]:
    def count(record: client.Recorded) -> int:
        return int(record.sink.get(name, {}).get("count", 0))

    return count


CATALOGUE: tuple[Definition, ...] = (
    Definition(
        "duplicate",
        HISTORY,
        "one id stored at two or more offsets of the consumer's view (an offset the reader returned twice is one"
        " offset, and an inconsistent_offset)",
        anomalies.duplicate,
        cost=2,
        spark="duplicate",
    ),
    Definition(
        "lost",
        HISTORY,
        "acknowledged (outside a transaction) or sent in a committed transaction, by any of its attempts, to a"
        " partition that was read, absent from the consumer's view (each read-back records the partitions it read,"
        " so 'read and found empty' is never taken for 'not read')",
        anomalies.lost,
        cost=1,
        spark="lost",
    ),
    Definition(
        "aborted_read",
        HISTORY,
        "in the consumer's view although every attempt to send it definitely failed, or every one was in a"
        " transaction that aborted (one attempt of unknown outcome leaves it indeterminate, never failed)",
        anomalies.aborted_read,
        cost=1,
        spark="aborted_read",
    ),
    Definition(
        "phantom",
        HISTORY,
        "in the consumer's view but never sent (or the value carries no harness id)",
        anomalies.phantom,
        cost=1,
        spark="phantom",
    ),
    Definition(
        "order",
        HISTORY,
        "in one partition, a record of a producer session stored after one the session sent later (first copies of"
        " records sent once only: a resent record's place in the send order is unknown)",
        anomalies.order,
        cost=8,
        spark="order",
    ),
    Definition(
        "torn_transaction",
        HISTORY,
        "a committed (or unknown-outcome) transaction partly visible and partly missing, within the"
        " partitions read; per transaction",
        anomalies.transactions_read,
        cost=4,
        spark="transactions_read",
    ),
    Definition(
        "partly_read",
        HISTORY,
        "a committed transaction with records in partitions that were read and in partitions that were not:"
        " what a consumer of some partitions sees (Kafka's documented limit); per transaction",
        anomalies.transactions_read,
        cost=4,
        spark="transactions_read",
    ),
    Definition(
        "inconsistent_offset",
        HISTORY,
        "a reader returned one offset twice or more (per reader and offset), or the two readers disagree about an"
        " offset, or an acknowledgement names an offset that holds another record (or was never read while the id"
        " was read elsewhere)",
        anomalies.inconsistent_offset,
        cost=9,
        spark="inconsistent_offset",
    ),
    Definition(
        "eos_missing",
        HISTORY,
        "consume-transform-produce: an input in the consumer's view with no output naming it as its source",
        anomalies.exactly_once,
        cost=5,
        spark="exactly_once",
    ),
    Definition(
        "eos_repeated",
        HISTORY,
        "consume-transform-produce: an input in the consumer's view with two or more distinct outputs naming it"
        " as their source",
        anomalies.exactly_once,
        cost=5,
        spark="exactly_once",
    ),
    Definition(
        "zombie_write",
        HISTORY,
        "a visible record whose transaction asked to commit after a newer session of the same transactional.id"
        " finished init_transactions",
        anomalies.zombie_write,
        cost=0,
        spark="zombie_write",
    ),
    Definition(
        "misplaced",
        HISTORY,
        "in the consumer's view in a topic its send did not name (the producer wrote it elsewhere, or a copy went"
        " astray); per record, and the copy still counts as read",
        anomalies.misplaced,
        cost=3,
        spark="misplaced",
    ),
    Definition(
        "config_error",
        CLIENT,
        "an app process whose client refused its configuration at start",
        client.config_error,
    ),
    Definition(
        "txn_init_failed",
        CLIENT,
        "an app process whose init_transactions failed for another reason than its configuration or an"
        " authorization (e.g. the transaction log cannot be written)",
        client.txn_init_failed,
    ),
    Definition(
        "txn_id_unauthorized",
        CLIENT,
        "an app process refused its transactional.id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED: no ACL lets its"
        " user use the id)",
        client.txn_id_unauthorized,
    ),
    Definition(
        "app_fenced",
        CLIENT,
        "an app process that stopped on a fatal client error: fenced (a newer producer took its transactional.id,"
        " or its group's place) or another it cannot go on from (e.g. INVALID_TXN_STATE)",
        client.app_fenced,
    ),
    Definition(
        "client_stuck",
        CLIENT,
        "an app process that gave up because a client call outlived its own timeout: a liveness bug of the"
        " client, not of the brokers",
        client.client_stuck,
    ),
    Definition(
        "read_committed_stall",
        CLIENT,
        "a stretch of 5 s or more in which the main topic's last stable offset stood still below its high"
        " watermark, so read_committed readers got nothing new",
        client.read_committed_stall,
    ),
    Definition(
        "sink_missing",
        SINK,
        "an input read committed with no row or output record of the sink naming it",
        _sink("sink_missing"),
    ),
    Definition(
        "sink_repeated",
        SINK,
        "an input read committed with two or more rows or output records of the sink naming it",
        _sink("sink_repeated"),
    ),
    Definition(
        "sink_aborted",
        SINK,
        "a row or output record of the sink naming an input record of an aborted transaction",
        _sink("sink_aborted"),
    ),
    Definition(
        "aggregate_mismatch",
        SINK,
        "a key whose stored count or sum differs from the one recomputed from the committed input",
        _sink("aggregate_mismatch"),
    ),
)

BY_NAME = {d.name: d for d in CATALOGUE}
NAMES = tuple(BY_NAME)
ANOMALIES = tuple(d.name for d in CATALOGUE if d.source == HISTORY)


def record_counts(record: client.Recorded) -> dict[str, int]:
    """Counts of every client and sink finding, from a side's record."""
    return {d.name: d.finds(record) for d in CATALOGUE if d.source != HISTORY}


def markdown_table() -> str:
    """docs/findings.md's table (``kafka-harness findings --markdown``)."""
    rows = ["| finding | source | meaning |", "|---|---|---|"]
    rows += [f"| `{d.name}` | {d.source} | {d.meaning} |" for d in CATALOGUE]
    return "\n".join(rows)
