"""Kafka -> ``foreachBatch`` -> SQLite, one row per input record (scenarios C2 and C3).

``--mode idempotent``: the rows are keyed by their input (topic, partition, offset) and
each batch is written, with its batch id, in one database transaction. A batch re-run
after a driver crash replaces its own rows: exactly one row per input, however often the
driver dies. ``--mode plain``: the rows are appended with no key, so a re-run batch adds
them again.

``--pause-after-write-ms`` is the time between the database commit and Spark's own commit
of the batch to its checkpoint: the window a crash must hit to make a batch run twice.

With ``--isolation-level read_uncommitted`` over a transactional topic, records of aborted
transactions reach the table too (C3's control).

    python spark_jobs/sqlite_sink.py --bootstrap-servers 127.0.0.1:9092 --topic in \\
        --checkpoint /tmp/ckpt --db /tmp/sink.sqlite [--mode plain] [--until-caught-up]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from harness.workloads import spark_tables
from spark_jobs import common


def arguments() -> argparse.ArgumentParser:
    return common.add_sqlite_sink(common.parser(__doc__.splitlines()[0]), ("idempotent", "plain"))


def build(spark: SparkSession, args: argparse.Namespace) -> dict[str, Any]:
    common.preflight(spark, args.bootstrap_servers, [args.topic])
    rows = common.read_kafka(spark, args).select("topic", "partition", "offset", common.input_id().alias("input_id"))

    def write(batch: DataFrame, batch_id: int) -> None:
        records = [tuple(r) for r in batch.collect()]
        with spark_tables.connect(args.db) as db:
            spark_tables.write_records(db, records, batch_id, keyed=args.mode == "idempotent")
        time.sleep(args.pause_after_write_ms / 1000)

    return common.run(args, rows.writeStream.foreachBatch(write))


if __name__ == "__main__":
    sys.exit(common.main("sqlite_sink", arguments(), build))
