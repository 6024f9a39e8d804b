"""The Spark jobs as a package, so the harness (e.g. the ``kafka-harness`` command) can import
them; each job also runs as a script (``python spark_jobs/<job>.py``) or under spark-submit.
They run on pyspark, the ``spark`` extra: without it importing them stops with one line."""

from harness.jvm.spark import require_pyspark

require_pyspark("a Spark job")
