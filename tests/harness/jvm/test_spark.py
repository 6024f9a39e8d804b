"""harness.jvm.spark without a cluster: connector jars cached, a local session runs a job and finds Kafka."""

from __future__ import annotations

import importlib.metadata
import subprocess
import time
from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession

from harness.jvm import spark as harness_spark
from harness.settings import Settings

pytestmark = pytest.mark.spark

KAFKA_COLUMNS = ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType"]


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = harness_spark.session(Settings(), "test-spark")
    yield session
    session.stop()


def test_connector_matches_pyspark_and_warm_call_is_free() -> None:
    jars = harness_spark.connector_jars(Settings())
    started = time.monotonic()
    assert harness_spark.connector_jars(Settings()) == jars
    assert time.monotonic() - started < 1.0
    names = {jar.name for jar in jars}
    version = importlib.metadata.version("pyspark")
    assert f"spark-sql-kafka-0-10_2.13-{version}.jar" in names
    assert any(name.startswith("kafka-clients-") for name in names)
    # Shipped by pyspark, so left out of the connector folder.
    assert not any(name.startswith(("spark-tags_", "scala-library-", "slf4j-api-")) for name in names)


def test_shipped_jar_rule() -> None:
    shipped = ["log4j-1.2-api-2.25.4.jar", "zstd-jni-1.5.7-7.jar", "spark-tags_2.13-4.0.0.jar"]
    assert harness_spark._ships(shipped, "zstd-jni")
    assert harness_spark._ships(shipped, "spark-tags_2.13")
    assert not harness_spark._ships(shipped, "log4j")
    assert not harness_spark._ships(shipped, "kafka-clients")


def test_trivial_job(spark: SparkSession) -> None:
    counts = spark.range(100).selectExpr("id % 4 AS k").groupBy("k").count().orderBy("k").collect()
    assert [(row.k, row["count"]) for row in counts] == [(0, 25), (1, 25), (2, 25), (3, 25)]
    assert spark.conf.get("spark.driver.host") == "127.0.0.1"


def test_kafka_source_resolves(spark: SparkSession) -> None:
    # load() finds the source and builds its fixed schema without contacting a broker, so
    # port 1 is never dialled; without the connector it fails with DATA_SOURCE_NOT_FOUND.
    options = {"kafka.bootstrap.servers": "127.0.0.1:1", "subscribe": "x"}
    assert spark.read.format("kafka").options(**options).load().columns == KAFKA_COLUMNS
    assert spark.readStream.format("kafka").options(**options).load().columns == KAFKA_COLUMNS


def test_the_driver_maps_the_class_archive_setup_made(spark: SparkSession) -> None:
    archive = harness_spark.class_archive_path()
    assert archive.is_file(), "make setup makes it"
    jvm = spark.sparkContext._jvm  # type: ignore[union-attr]
    assert f"-XX:SharedArchiveFile={archive}" in list(
        jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
    )
    # A JVM maps an archive only on the class path it was dumped for (or fails, with
    # -Xshare:on): the driver's own class path must be that one.
    classpath = jvm.java.lang.System.getProperty("java.class.path")
    mapped = subprocess.run(
        ["java", "-Xshare:on", f"-XX:SharedArchiveFile={archive}", "-cp", classpath, "-version"],
        capture_output=True,
        text=True,
    )
    assert mapped.returncode == 0, mapped.stdout + mapped.stderr
