"""What a Spark driver does while its class archive is made (``harness.jvm.spark.build_class_archive``).

The scenario jobs' kinds of work, on a built-in source: a batch job with a shuffle and a
Python UDF, then a streaming query with running state and a ``foreachBatch`` callback.
The Kafka connector's own classes come from ``spark.jars``, a class loader whose classes
Java 17 does not archive, so no cluster is needed.

Run as ``python -m harness.jvm.spark_warm_up JVM_OPTION...``: the options go to the driver
JVM, and the process returns only once that JVM has exited (it writes the archive then).
"""

from __future__ import annotations

import sys
import tempfile

from harness.jvm.spark import session
from harness.settings import Settings

WARM_UP_TIMEOUT_S = 120


def main(jvm_options: list[str]) -> None:
    from pyspark import SparkContext
    from pyspark.sql import functions as F

    spark = session(Settings(), "class-archive-warm-up", java_options=" ".join(jvm_options))
    twice = F.udf(lambda n: n * 2, "long")
    spark.range(2000).select(twice("id").alias("n")).groupBy(F.col("n") % 7).count().collect()
    with tempfile.TemporaryDirectory() as checkpoint:
        rows = spark.readStream.format("rate").option("rowsPerSecond", 1000).load()
        totals = rows.groupBy((F.col("value") % 5).alias("key")).count()
        query = (
            totals.writeStream.outputMode("update")
            .option("checkpointLocation", checkpoint)
            .foreachBatch(lambda batch, _: batch.count())
            .start()
        )
        query.processAllAvailable()
        query.stop()
    spark.stop()
    # The JVM exits when its stdin closes (PySpark's gateway watches it for a dead Python);
    # wait for that exit, since the archive is written during it.
    jvm = SparkContext._gateway.proc  # type: ignore[union-attr]
    jvm.stdin.close()
    jvm.wait(timeout=WARM_UP_TIMEOUT_S)


if __name__ == "__main__":
    main(sys.argv[1:])
