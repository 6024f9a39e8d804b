"""A stateful per-key aggregation into SQLite: count and sum of the input ids per key (scenario C4).

``--mode totals``: Spark keeps the running count and sum per key in its checkpointed state
store; each batch's changed totals replace the stored ones (update output mode), so a
batch re-run after a driver crash writes the same totals again. ``--mode increments``:
each batch is aggregated on its own, without state, and its counts are added to the
stored ones, so a re-run batch is counted twice.

``--pause-after-write-ms``: as in sqlite_sink.py, the window between the database commit
and Spark's commit of the batch.

    python spark_jobs/aggregate.py --bootstrap-servers 127.0.0.1:9092 --topic in \\
        --checkpoint /tmp/ckpt --db /tmp/aggregates.sqlite [--mode increments] [--until-caught-up]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from harness.workloads import spark_tables
from spark_jobs import common


def arguments() -> argparse.ArgumentParser:
    return common.add_sqlite_sink(common.parser(__doc__.splitlines()[0]), ("totals", "increments"))


def _per_key(rows: DataFrame) -> DataFrame:
    return rows.groupBy("key").agg(F.count("*").alias("count"), F.sum("input_id").alias("total"))


def build(spark: SparkSession, args: argparse.Namespace) -> dict[str, Any]:
    common.preflight(spark, args.bootstrap_servers, [args.topic])
    rows = common.read_kafka(spark, args).select(F.col("key").cast("string"), common.input_id().alias("input_id"))
    totals = args.mode == "totals"

    def write(batch: DataFrame, batch_id: int) -> None:
        found = [(r.key, r["count"], r.total) for r in (batch if totals else _per_key(batch)).collect()]
        with spark_tables.connect(args.db) as db:
            spark_tables.write_aggregates(db, found, batch_id, totals)
        time.sleep(args.pause_after_write_ms / 1000)

    stream = _per_key(rows).writeStream.outputMode("update") if totals else rows.writeStream
    return common.run(args, stream.foreachBatch(write))


if __name__ == "__main__":
    sys.exit(common.main("aggregate", arguments(), build))
