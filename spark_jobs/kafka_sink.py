"""Kafka -> transform -> Kafka: Spark's Kafka sink, which is at-least-once (scenario C1).

Each output record's value is ``<input id>|from <partition>:<offset>``: it names its input,
so counting outputs per input needs no ledger. A micro-batch re-run after a driver crash
writes again whatever its first attempt had already written.

``--delay-ms-per-record`` makes the transform cost time, so a batch spends seconds writing
and a kill lands while part of it is written.

    python spark_jobs/kafka_sink.py --bootstrap-servers 127.0.0.1:9092 --topic in \\
        --output-topic out --checkpoint /tmp/ckpt [--until-caught-up]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from harness.history import records
from spark_jobs import common


def arguments() -> argparse.ArgumentParser:
    p = common.parser(__doc__.splitlines()[0])
    p.add_argument("--output-topic", required=True)
    p.add_argument("--delay-ms-per-record", type=float, default=0.0)
    return p


def build(spark: SparkSession, args: argparse.Namespace) -> dict[str, Any]:
    common.preflight(spark, args.bootstrap_servers, [args.topic, args.output_topic])
    source = common.read_kafka(spark, args)
    value = F.concat_ws(
        records.VALUE_SEPARATOR.decode(),
        common.input_id().cast("string"),
        F.format_string("from %d:%d", "partition", "offset"),
    )
    if args.delay_ms_per_record > 0:
        delay_s = args.delay_ms_per_record / 1000

        @F.udf("string")
        def slow(text: str) -> str:
            time.sleep(delay_s)
            return text

        value = slow(value)
    out = source.select(F.col("key"), value.alias("value"))
    writer = (
        out.writeStream.format("kafka")
        .option("kafka.bootstrap.servers", args.bootstrap_servers)
        .option("topic", args.output_topic)
    )
    return common.run(args, writer)


if __name__ == "__main__":
    sys.exit(common.main("kafka_sink", arguments(), build))
