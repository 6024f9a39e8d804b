"""Local-mode Spark sessions that can read Kafka, without resolving anything at run time.

pyspark ships Spark but not its Kafka connector. ``connector_jars`` fetches the connector
release matching the installed pyspark once, with Maven as images.py fetches the broker
jars, into the cache; ``session`` hands those files to Spark through ``spark.jars``, so
Spark itself never resolves packages over the network (no ``spark.jars.packages``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import re
import shlex
import shutil
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from harness import commands
from harness.build_steps import BuildStep
from harness.errors import HarnessError
from harness.history import records
from harness.jvm import class_archive
from harness.jvm.maven import maven_closure, unresolved
from harness.progress import step
from harness.settings import Settings

if TYPE_CHECKING:
    from pyspark.sql import Column, SparkSession

CONNECTOR_GROUP = "org.apache.spark"
CONNECTOR_ARTIFACT = "spark-sql-kafka-0-10"
# pyspark releases whose connector closure resolved completely from Maven Central as this
# project's machines reach it, when last checked (2026-11-23): 4.2.0 and 4.0.0 (4.2.1 and
# 4.3.0 connectors are not served). A connector from another Spark release is no
# substitute: 4.0.0's batch reads work on pyspark 4.3.0 but its streaming source dies with
# NoSuchMethodError (SerializedOffset), so the versions must match exactly.
KNOWN_PYSPARK_VERSIONS = ("4.2.0", "4.0.0")
# The package extra that installs pyspark (pyproject.toml); the harness runs without it but Spark.
SPARK_EXTRA = "kafka-eos-harness[spark]"
_DONE = "resolved"

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-eos-harness</groupId><artifactId>spark-kafka-closure</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId>
      <version>{version}</version></dependency>
  </dependencies>
</project>
"""

# Spark's POMs declare another repository (a Central mirror on a host we cannot and must
# not reach) that Maven would try first for transitive artifacts. Every repository except
# Central is mirrored to an empty local folder, where lookups simply miss. Passed as the
# global settings so a user's own ~/.m2/settings.xml (proxies, a company mirror) still wins.
_MAVEN_SETTINGS = """<settings>
  <mirrors>
    <mirror><id>central-only</id><mirrorOf>*,!central</mirrorOf><url>{empty}</url></mirror>
  </mirrors>
</settings>
"""


def require_pyspark(feature: str) -> None:
    """Stop with one line, naming the extra that brings it, when ``feature`` needs pyspark and it
    is not installed (it is optional: ``pip install kafka-eos-harness`` leaves it out)."""
    if importlib.util.find_spec("pyspark") is None:
        raise HarnessError(
            f"{feature} needs pyspark, which is not installed: pip install '{SPARK_EXTRA}'"
            " (in a checkout of the harness, `make setup` installs it)"
        )


def _pyspark() -> tuple[str, Path]:
    """Version and jars folder of the installed pyspark, found without importing it (~0.5 s)."""
    require_pyspark("Spark")
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise HarnessError(
            f"pyspark's install looks broken (no package file): pip install --force-reinstall '{SPARK_EXTRA}'"
        )
    return importlib.metadata.version("pyspark"), Path(spec.origin).parent / "jars"


def _scala_binary_version(jars: Path, shipped: list[str]) -> str:
    """2.13 for every pyspark 4.x; read from the spark-core jar to stay right if that changes."""
    for name in shipped:
        if match := re.fullmatch(r"spark-core_(\d+\.\d+)-.+\.jar", name):
            return match.group(1)
    raise HarnessError(f"no spark-core jar in {jars}: the pyspark install looks broken; reinstall it (`make setup`)")


def _ships(shipped: list[str], artifact_id: str) -> bool:
    # pyspark names its jars <artifactId>-<version>.jar; a version starts with a digit and
    # has at most one '-' part (1.5.7-7, 33.4.0-jre). That keeps "log4j" from matching
    # log4j-1.2-api-2.25.4.jar.
    pattern = re.compile(rf"{re.escape(artifact_id)}-\d[^-]*(-[^-]+)?\.jar")
    return any(pattern.fullmatch(name) for name in shipped)


def _connector_coordinates() -> tuple[str, list[str]]:
    """Maven coordinates of the connector matching pyspark, and the jar names pyspark ships."""
    version, jars = _pyspark()
    shipped = sorted(p.name for p in jars.glob("*.jar"))
    return f"{CONNECTOR_GROUP}:{CONNECTOR_ARTIFACT}_{_scala_binary_version(jars, shipped)}:{version}", shipped


def _jars(folder: Path) -> list[Path]:
    return sorted(p.resolve() for p in folder.glob("*.jar"))


def _connector_folder(settings: Settings) -> tuple[Path, str, list[str]]:
    coordinates, shipped = _connector_coordinates()
    version = coordinates.rsplit(":", 1)[1]  # pyspark's
    key = hashlib.sha256(f"{coordinates} pyspark={version}".encode()).hexdigest()[:16]
    return settings.cache_dir / "spark-jars" / key, coordinates, shipped


def connector_jars_cached(settings: Settings) -> bool:
    """Whether connector_jars would return at once, without Maven."""
    return (_connector_folder(settings)[0] / _DONE).exists()


def connector_jars(settings: Settings) -> list[Path]:
    """The Kafka connector for the installed pyspark and the dependencies pyspark lacks.

    Resolved once per connector version into ``<cache>/spark-jars/<hash>``; a folder with
    its completion marker is reused as is, so warm calls only list it.
    """
    folder, coordinates, shipped = _connector_folder(settings)
    if (folder / _DONE).exists():
        return _jars(folder)
    group, artifact, version = coordinates.split(":")
    root = folder.parent
    root.mkdir(parents=True, exist_ok=True)
    with (
        step(f"resolve {coordinates} and its runtime closure with mvn"),
        tempfile.TemporaryDirectory(dir=root) as tmp,
    ):
        work = Path(tmp)
        (work / "empty-repo").mkdir()
        (work / "settings.xml").write_text(_MAVEN_SETTINGS.format(empty=(work / "empty-repo").as_uri()))
        (work / "pom.xml").write_text(_POM.format(group=group, artifact=artifact, version=version))
        try:
            # The repository layout keeps groupId/artifactId/version apart, so the filter
            # below needs no guessing on the resolved side.
            maven_closure(
                work / "pom.xml",
                work / "closure",
                f"resolve the Spark Kafka connector {coordinates}",
                "-gs",
                str(work / "settings.xml"),
                "-Dmdep.useRepositoryLayout=true",
                "-U",  # retry artifacts an earlier attempt found missing (Maven waits a day otherwise)
            )
        except HarnessError as exc:
            known = f"the connectors of pyspark {', '.join(KNOWN_PYSPARK_VERSIONS)}: pin pyspark to one of them"
            raise unresolved(exc, f"the Kafka connector for pyspark {version} ({coordinates})", known) from exc
        # Keep only what pyspark does not already ship, judged by artifactId: the same
        # library twice on the classpath (hadoop-client, scala-library, slf4j-api, lz4,
        # snappy, spark-tags, ... in other versions) invites conflicts, and Spark's own copy is
        # the one it was built and tested with. This drops every Spark module but the two
        # Kafka ones too, since pyspark ships all the others.
        staged = work / "jars"
        staged.mkdir()
        for jar in (work / "closure").rglob("*.jar"):
            artifact_id = jar.parent.parent.name  # .../<groupId path>/<artifactId>/<version>/<file>
            if not _ships(shipped, artifact_id):
                shutil.copy2(jar, staged / jar.name)
        (staged / _DONE).write_text(coordinates + "\n")
        # The folder appears complete or not at all. A concurrent run that got there first
        # wins (its copy is as good); one without a marker was not made by this code.
        if not (folder / _DONE).exists():
            shutil.rmtree(folder, ignore_errors=True)
            try:
                staged.rename(folder)
            except OSError:
                if not (folder / _DONE).exists():
                    raise
    return _jars(folder)


def _check_no_package_resolution() -> None:
    # PYSPARK_SUBMIT_ARGS is passed to spark-submit verbatim and its --packages beats any
    # conf set below; refuse rather than let Spark reach for a repository.
    resolving = ("--packages", "--repositories", "spark.jars.packages", "spark.jars.repositories")
    if any(arg.startswith(resolving) for arg in shlex.split(os.environ.get("PYSPARK_SUBMIT_ARGS", ""))):
        raise HarnessError(
            "PYSPARK_SUBMIT_ARGS asks Spark to resolve packages over the network; unset it "
            "(the harness supplies the Kafka connector jars itself)"
        )


def session(
    settings: Settings,
    app_name: str,
    master: str | None = "local[2]",
    java_options: str = "",
    many_jobs: bool = False,
    kafka: bool = True,
    conf: dict[str, str] | None = None,
) -> SparkSession:
    """A local SparkSession (getOrCreate) with the Kafka connector, bound to 127.0.0.1.

    ``master`` None leaves the master to whoever launched the JVM (spark-submit's
    ``--master``); ``java_options`` are added to the driver JVM's (a log configuration, say).
    ``many_jobs`` is for a session that plans many queries (the checker): it keeps the full
    JIT, which a short-lived driver gives up for a faster start. ``kafka`` False: no Kafka
    connector (a job that reads only files need not resolve it). ``conf``: more settings, or
    other values for these (a standalone cluster's executor memory, say).
    """
    require_pyspark("a Spark session")
    from pyspark.sql import SparkSession  # imported here: ~0.5 s that connector_jars alone need not pay

    jars = connector_jars(settings) if kafka else []
    _check_no_package_resolution()
    # Read by the JVM's own address lookups too (block manager, warnings about the host
    # name); the confs below cover the driver. Loopback only: nothing may leave the machine.
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    settings_of_session = {
        "spark.jars": ",".join(str(j) for j in jars),
        # Explicitly empty: overrides any spark-defaults.conf entry, so nothing is resolved.
        "spark.jars.packages": "",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.host": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",  # progress bars garble test and CLI output
        # Spark's default of 200 shuffle partitions means 200 tiny tasks per shuffle for the
        # few thousand records a scenario reads; 4 keeps both cores busy without that overhead.
        "spark.sql.shuffle.partitions": "4",
        "spark.driver.memory": "1g",
        # As for the brokers (config.broker_jvm_opts): C1-only JIT and the serial collector
        # start the JVM and run small jobs faster on 2 cores (~1 s less per session here).
        # Planning many queries is CPU-bound in the driver, where the full JIT wins: the
        # checker's 20 Spark-engine tests took 146-148 s with it against 163-184 s with C1 only.
        # Spark's classes come from the class archive `make setup` made, when there is one.
        "spark.driver.extraJavaOptions": " ".join(
            [
                "-XX:+UseSerialGC",
                *([] if many_jobs else ["-XX:TieredStopAtLevel=1"]),
                *class_archive.use(class_archive_path()),
                java_options,
            ]
        ).strip(),
        # Python workers must be this interpreter (this venv), not whatever python3 is on PATH.
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
    }
    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    for name, value in {**settings_of_session, **(conf or {})}.items():
        builder = builder.config(name, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def class_archive_path() -> Path:
    """The Spark driver's class archive (harness.jvm.class_archive) for the installed pyspark.

    It lives in the Python environment that holds pyspark, not in the cache: it records the
    jars' own paths, so each checkout's ``.venv`` needs its own, and it goes with the venv."""
    version, jars = _pyspark()
    folder = Path(sys.prefix) / "class-archives"
    return class_archive.path(folder, "spark-driver", sorted(jars.glob("*.jar")), also=[version])


def build_class_archive() -> None:
    """Make the Spark driver's class archive (``make setup``), unless it exists. Its job reads
    nothing from Kafka, but its session loads the connector jars."""

    def warm_up(jvm_options: list[str]) -> None:
        cmd = [sys.executable, "-m", "harness.jvm.spark_warm_up", *jvm_options]
        commands.run(cmd, "run the Spark job that makes the driver's class archive", "run `make setup`")

    with step("spark: class archive of the driver JVM (once; its starts take about half as long)"):
        class_archive.build(class_archive_path(), lambda staged: warm_up(class_archive.dump_at_exit(staged)), warm_up)


def setup_steps(settings: Settings) -> list[BuildStep]:
    """What setup prepares for Spark (harness.build_steps), none of it when it is there: the
    Kafka connector's jars, then the driver's class archive."""
    jars = "spark kafka connector jars"
    found = []
    if not connector_jars_cached(settings):
        found.append(BuildStep(jars, partial(connector_jars, settings), tools=("mvn",)))
    if not class_archive_path().is_file():
        found.append(BuildStep("spark driver class archive", build_class_archive, after=(jars,), cpu=True))
    return found


def record_id(value: Column) -> Column:
    """A Kafka record value's harness id as Spark computes it, by the same rule as
    ``harness.history.records.decode_id``: ``UNDECODABLE_ID`` unless the head is a canonical
    non-negative int64 decimal."""
    from pyspark.sql import functions as F

    head = F.substring_index(value.cast("string"), records.VALUE_SEPARATOR.decode(), 1)
    # Java's $ also matches before a final newline; \z only at the very end.
    decodable = head.rlike(rf"^(?:{records.DECODABLE_HEAD})\z")
    return F.coalesce(F.when(decodable, head.try_cast("long")), F.lit(records.UNDECODABLE_ID))
