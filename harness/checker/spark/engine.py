"""Running the Spark engine: ``check`` a history on a Spark session (``session``), for the same JSON
as the numpy engine's ``CheckResult.to_json()``.

It runs as ``kafka-harness check RUN_DIR --engine spark [--master URL]`` on a saved run, or from
Python with the read-backs (``reads``) or a cluster to read the topics from (``bootstrap``,
``topics``). The numpy engine is the reference: tests/harness/checker/spark compares the two on
every synthetic mutation and on generated histories.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from harness.checker.catalogue import ANOMALIES, CATALOGUE, HISTORY
from harness.checker.result import MAX_EXAMPLES
from harness.checker.spark import anomalies, inputs
from harness.checker.spark.context import Context
from harness.errors import HarnessError
from harness.history.format import ISOLATIONS
from harness.jvm import spark as harness_spark
from harness.settings import Settings


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
    paths = [Path(p) for p in ledger_paths]
    spark.conf.set(_INITIAL_PARTITIONS, str(shuffle_partitions(paths, None if reads is None else Path(reads))))
    ledgers = inputs.read_ledgers(spark, paths)
    if reads is not None:
        views = inputs.parquet_views(spark, Path(reads))
    else:
        views = inputs.kafka_views(spark, bootstrap, topics)  # type: ignore[arg-type]
    if view not in views.frames:  # the numpy engine cannot run without the consumer's view either
        raise HarnessError(f"no {view} read-back in {reads}")
    c = Context(spark, ledgers, views, view, tuple(eos_pairs), max_examples)
    try:
        found: dict[str, Any] = {}
        for finder in dict.fromkeys(d.spark for d in CATALOGUE if d.source == HISTORY):
            found.update(getattr(anomalies, finder)(c))
        c.fill_places()
        ordered = {name: found[name] for name in ANOMALIES}
        return {"anomalies": ordered, "stats": stats(c), "ledger_problems": c.problems}
    finally:
        c.release()


# Memory per task follows the rows per shuffle partition. A fixed number of them (4, once) made each
# task hold a quarter of the history, and 10M records ran out of a 1 GiB driver; so the shuffles
# start with a partition per SHUFFLE_BYTES of input, and adaptive execution merges the small ones
# (to its advisory 64 MiB). A session with adaptive execution off keeps its own number.
_INITIAL_PARTITIONS = "spark.sql.adaptive.coalescePartitions.initialPartitionNum"
SHUFFLE_BYTES = 8 << 20
# Files are read in splits of this size at most (Spark's default is 128 MiB): a split's parsed
# lines are cached as one block, which must fit a task's share of memory.
SPLIT_BYTES = 32 << 20


def shuffle_partitions(ledgers: list[Path], reads: Path | None) -> int:
    """How many partitions the shuffles of a check of these files start with: one per SHUFFLE_BYTES of input."""
    files = [*ledgers, *(reads.glob("*.parquet") if reads is not None else [])]
    return max(4, -(-sum(f.stat().st_size for f in files) // SHUFFLE_BYTES))


def stats(c: Context) -> dict[str, int]:
    """What the history holds beside its anomalies, as the numpy engine's ``stats``."""
    t = c.counts
    return {
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
        **c.view_stats,
        "distinct_read": t.visible + t.phantom,
    }


def session(
    app_name: str = "check-history", master: str = "local[2]", kafka: bool = True, conf: dict[str, str] | None = None
) -> SparkSession:
    """harness.jvm.spark's session on ``master``, planning many queries; ``kafka`` False for a check of
    saved read-backs, which needs no Kafka connector."""
    conf = {
        "spark.sql.files.maxPartitionBytes": str(SPLIT_BYTES),
        # The views are cached partitioned by (topic, partition, offset); joins on those and the id
        # then use that partitioning as it is instead of shuffling both views again.
        "spark.sql.requireAllClusterKeysForCoPartition": "false",
        **(conf or {}),
    }
    return harness_spark.session(Settings(), app_name, master, many_jobs=True, kafka=kafka, conf=conf)
