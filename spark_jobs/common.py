"""What every streaming job shares: its arguments, its session, its Kafka source, running until
the input is processed, and failing with one line.

A job is ``python spark_jobs/<job>.py ARGS`` (local mode, ``local[2]`` unless ``--master``)
or ``spark-submit [--master URL] spark_jobs/<job>.py ARGS``, where spark-submit's master
wins. Its last line of output is a JSON report: batches, input rows, and each micro-batch's
id, rows, duration and start time from Spark's progress events.

``--until-caught-up`` stops the query once a batch ends at the offsets the source reported
as the latest: every record present when the job started is processed (the scenarios fill
the input topic first; with ``--until-offsets N``, not before the input's end offsets add
up to N, for an input still being written). Without it the query runs until killed, as a
real job would. ``--real-time-ms`` runs the query in Spark's real-time mode (4.1+).

Before any query starts, ``main`` and ``preflight`` check what a typo would otherwise turn
into a JVM stack trace, a query that waits forever or a checkpoint started afresh: the
parent folders of the checkpoint and the database, a reachable cluster, the topics. Any
failure ends the job with exit status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import DataStreamWriter, StreamingQuery

from harness.errors import HarnessError
from harness.jvm.spark import record_id
from harness.jvm.spark import session as harness_session
from harness.settings import Settings

_LOG_CONFIG = Path(__file__).with_name("log4j2.properties")
# How long the preflight waits for the cluster to answer. A broker that is down or
# unreachable makes Kafka's admin client retry until this deadline.
PREFLIGHT_TIMEOUT_S = 15
ERROR_EXIT = 2


class JobError(Exception):
    """A mistake in the job's arguments or environment: one line says which."""


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--bootstrap-servers", required=True, help="HOST:PORT[,HOST:PORT...] of the Kafka cluster")
    p.add_argument("--topic", required=True, help="input topic")
    p.add_argument("--checkpoint", required=True, help="checkpoint folder (its parent must exist)")
    p.add_argument("--master", help="Spark master URL (default local[2]; spark-submit's --master wins)")
    p.add_argument("--isolation-level", choices=("read_committed", "read_uncommitted"), default="read_committed")
    p.add_argument("--max-offsets-per-trigger", type=int, default=0, help="records per micro-batch (0: no limit)")
    p.add_argument("--trigger-ms", type=int, default=500, help="micro-batch interval")
    p.add_argument(
        "--real-time-ms",
        type=int,
        default=0,
        help="run in Spark's real-time mode (4.1+) with batches this long, the checkpoint interval (0: micro-batches)",
    )
    p.add_argument("--until-caught-up", action="store_true", help="stop once the input present at start is processed")
    p.add_argument(
        "--until-offsets",
        type=int,
        default=0,
        metavar="N",
        help="with --until-caught-up, not before the input's end offsets add up to N (an input still being written)",
    )
    return p


def add_sqlite_sink(p: argparse.ArgumentParser, modes: tuple[str, ...]) -> argparse.ArgumentParser:
    """The arguments of a job whose foreachBatch writes into SQLite; ``modes[0]`` is the default."""
    p.add_argument("--db", required=True, help="SQLite file (created if missing)")
    p.add_argument("--mode", choices=modes, default=modes[0])
    p.add_argument("--pause-after-write-ms", type=int, default=0)
    return p


def session(args: argparse.Namespace, app_name: str) -> SparkSession:
    # Under spark-submit the JVM exists already (PYSPARK_GATEWAY_PORT) and its --master rules.
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    master = args.master or (None if submitted else "local[2]")
    java_options = "" if submitted else f"-Dlog4j2.configurationFile={_LOG_CONFIG.as_uri()}"
    spark = harness_session(Settings(), app_name, master, java_options)
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def preflight(spark: SparkSession, bootstrap: str, topics: list[str]) -> None:
    """Fail early, with one line, on an unreachable cluster or a missing topic."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    props = jvm.java.util.Properties()
    props.put("bootstrap.servers", bootstrap)
    props.put("default.api.timeout.ms", str(PREFLIGHT_TIMEOUT_S * 1000))
    props.put("request.timeout.ms", str(PREFLIGHT_TIMEOUT_S * 1000 // 3))
    try:
        admin = jvm.org.apache.kafka.clients.admin.Admin.create(props)
    except Exception as exc:  # py4j's error carries the Java exception's message
        raise JobError(f"bad --bootstrap-servers {bootstrap!r}: {_java_message(exc)}") from None
    try:
        try:
            existing = set(admin.listTopics().names().get())
        except Exception:
            raise JobError(
                f"no Kafka broker answered at {bootstrap} within {PREFLIGHT_TIMEOUT_S}s; check --bootstrap-servers"
            ) from None
        missing = [t for t in topics if t not in existing]
        if missing:
            raise JobError(f"topic {', '.join(missing)} does not exist at {bootstrap}; create it or fix the name")
    finally:
        admin.close()


def check_folder_of(path: str, option: str) -> None:
    """A local ``path``'s parent folder must exist: a typo there would otherwise create a
    new tree (Spark makes the checkpoint's parents) and lose the old checkpoint."""
    where = urlparse(path)
    if where.scheme in ("", "file"):  # other file systems are the cluster's business
        parent = Path(where.path).absolute().parent
        if not parent.is_dir():
            raise JobError(f"the parent folder {parent} of {option} does not exist; create it or fix {option}")


def read_kafka(spark: SparkSession, args: argparse.Namespace) -> DataFrame:
    reader = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", args.bootstrap_servers)
        .option("subscribe", args.topic)
        .option("startingOffsets", "earliest")
        .option("kafka.isolation.level", args.isolation_level)
    )
    if args.max_offsets_per_trigger:
        reader = reader.option("maxOffsetsPerTrigger", args.max_offsets_per_trigger)
    return reader.load()


def input_id() -> Any:
    """The input record's harness id: the decimal before the first separator of its value
    (harness.history.records)."""
    return record_id(F.col("value"))


def run(args: argparse.Namespace, writer: DataStreamWriter) -> dict[str, Any]:
    """Start the query, wait (until caught up, with ``--until-caught-up``), return the report."""
    writer = writer.option("checkpointLocation", args.checkpoint)
    if args.real_time_ms:  # long-running tasks, one per input partition; update mode is required
        writer = writer.outputMode("update").trigger(realTime=f"{args.real_time_ms} milliseconds")
    else:
        writer = writer.trigger(processingTime=f"{args.trigger_ms} milliseconds")
    query = writer.start()
    batches: dict[int, dict[str, Any]] = {}
    while not query.awaitTermination(0.2):
        for progress in query.recentProgress:
            batches[progress["batchId"]] = progress
        if args.until_caught_up and batches and _caught_up(batches[max(batches)], args.until_offsets):
            query.stop()
    _raise_failure(query)
    return _summary(batches)


def _caught_up(progress: dict[str, Any], offsets: int) -> bool:
    (source,) = progress["sources"]
    latest, end = source.get("latestOffset"), source.get("endOffset")
    return latest is not None and end == latest and _total(end) >= offsets


def _total(offsets: Any) -> int:
    """Spark's offsets of a Kafka source, {topic: {partition: offset}} (as JSON text or parsed), added up."""
    parsed = json.loads(offsets) if isinstance(offsets, str) else offsets
    return sum(o for partitions in parsed.values() for o in partitions.values())


def _raise_failure(query: StreamingQuery) -> None:
    failure = query.exception()
    if failure is not None:
        raise JobError(f"the query failed: {_java_message(failure)}")


def _summary(batches: dict[int, dict[str, Any]]) -> dict[str, Any]:
    done = [batches[b] for b in sorted(batches) if batches[b]["numInputRows"] > 0]
    return {
        "batches": len(done),
        "input_rows": sum(p["numInputRows"] for p in done),
        # Per micro-batch: id, rows, the whole trigger's duration (plan, read, sink, commit) and
        # when the trigger started (wall-clock seconds).
        "micro_batches": [
            [p["batchId"], p["numInputRows"], p["durationMs"]["triggerExecution"], _seconds(p["timestamp"])]
            for p in done
        ],
    }


def _seconds(timestamp: str) -> float:
    """Spark's progress timestamp (ISO 8601 in UTC, e.g. 2026-11-23T04:31:40.123Z) as wall-clock seconds."""
    return datetime.fromisoformat(timestamp).timestamp()


def _java_message(exc: BaseException) -> str:
    """The innermost cause's message of a Java exception as py4j/pyspark hand it over, on one line."""
    java = getattr(exc, "java_exception", None) or getattr(exc, "_origin", None)  # py4j's, pyspark's
    if java is not None:
        while java.getCause() is not None:
            java = java.getCause()
        text = f"{java.getClass().getSimpleName()}: {java.getMessage()}"
    else:
        text = getattr(exc, "desc", None) or str(exc)
    return " ".join(str(text).split())[:300]


def main(
    job: str,
    arguments: argparse.ArgumentParser,
    build: Callable[[SparkSession, argparse.Namespace], dict[str, Any]],
    argv: list[str] | None = None,
) -> int:
    """Parse, build and run the job; print its report, or one error line with exit status 2."""
    args = arguments.parse_args(argv)
    started = time.monotonic()
    try:
        for option in ("checkpoint", "db"):  # before the JVM starts: these need no Spark
            if getattr(args, option, None):
                check_folder_of(getattr(args, option), f"--{option}")
        spark = session(args, job)
        report = build(spark, args)
    except (JobError, HarnessError) as exc:
        print(f"{job}: error: {exc}", file=sys.stderr, flush=True)
        return ERROR_EXIT
    except Exception as exc:  # a Spark or Java failure not foreseen above: still one line
        print(f"{job}: error: {_java_message(exc)}", file=sys.stderr, flush=True)
        return ERROR_EXIT
    print(json.dumps({**report, "wall_s": round(time.monotonic() - started, 1)}), flush=True)
    return 0
