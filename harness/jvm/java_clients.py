"""Workload apps on Kafka's Java client: built once from ``java/``, run on the client version asked for.

The apps (``kafkaeos.ProducerApp``, ``kafkaeos.TransformerApp``) take the same spec JSON as
their Python twins in ``harness.workloads`` (client settings in Java property names), write
the same ledger and print the same report, so one checker judges both. Their jar holds only
their own classes; Kafka's client comes from the class path, so one build runs on every
client version:

- ``app_jar``: ``mvn package`` of ``java/`` into ``<cache>/java-apps/<hash of its sources>``;
- ``client_classpath``: the runtime closure of ``kafka-clients`` (and ``kafka-streams`` on
  request) of one version, with Jackson and an slf4j binding, into
  ``<cache>/java-clients/<version>-<hash of its pom>``;
- ``command``: the ``java`` command line of an app; the spec path goes last;
- ``tools_classpath``: Kafka's own tools (``kafka-tools``: ``ProducerPerformance`` for
  ``make bench-driver``) of one version with an slf4j binding, into
  ``<cache>/java-tools/<version>-<hash of its pom>``.

Each cache folder appears complete (with its marker) or not at all: it is staged beside its
place and renamed into it, so a killed build leaves no half folder, and a warm call only
lists files. The client version follows the cluster's Kafka version unless a scenario pins
another.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import tempfile
import zipfile
from functools import partial
from pathlib import Path

from harness import cache_folders, commands, versions
from harness.build_steps import BuildStep
from harness.errors import HarnessError
from harness.jvm import class_archive
from harness.jvm.maven import maven_closure, mvn, unresolved
from harness.progress import step
from harness.settings import DEFAULT_KAFKA_VERSION, KNOWN_KAFKA_VERSIONS, Settings

JAVA_DIR = Path(__file__).resolve().parents[2] / "java"
PRODUCER_APP = "kafkaeos.ProducerApp"
TRANSFORMER_APP = "kafkaeos.TransformerApp"
STREAMS_APP = "kafkaeos.StreamsApp"
# The oldest kafka-clients (kafka-streams for the Streams app) each Java app runs on, and why: the
# apps are compiled against 4.3.1 and run on the release asked for, so what an app calls must be
# there (docs/versions.md lists what ran on which release).
OLDEST_FOR_APP = {
    PRODUCER_APP: (
        "2.2.0",
        "the producer app calls KafkaProducer.close(Duration), added in 2.2 (KIP-358); on 2.1.1 it fails with "
        "NoSuchMethodError",
    ),
    TRANSFORMER_APP: (
        "2.5.0",
        "the transformer sends its offsets with the consumer's group metadata (KIP-447), added in 2.5; on 2.4.1 "
        "it fails with NoSuchMethodError",
    ),
    STREAMS_APP: (
        "3.3.0",
        "the Streams app reads its group's offsets as stable, with Admin's requireStable of Kafka 3.3 (on 3.1.2 "
        "it fails with NoSuchMethodError)",
    ),
}
OLDEST_CLIENT_VERSION = OLDEST_FOR_APP[PRODUCER_APP][0]
OLDEST_CLIENT_WHY = (
    f"the oldest a Java app runs on: {OLDEST_FOR_APP[PRODUCER_APP][1]}; the transformer needs "
    f"{OLDEST_FOR_APP[TRANSFORMER_APP][0]} and the Streams app {OLDEST_FOR_APP[STREAMS_APP][0]}"
)
# Artifacts whose newest release on Maven Central is older than the newest tested broker
# (kafka-streams and kafka-tools 4.4.0 are not published there): against a newer cluster
# they run at this version, as any client of an older release may.
NEWEST_ON_MAVEN_CENTRAL = {"kafka-streams": "4.3.1", "kafka-tools": "4.3.1"}
TOOLS_VERSIONS = f"{NEWEST_ON_MAVEN_CENTRAL['kafka-tools']} and older"
# The broker's own choices for 4.3.1: slf4j-simple must match the slf4j-api 1.7 that every
# tested kafka-clients version depends on (a 2.x binding does not bind to a 1.7 API).
JACKSON_VERSION = "2.21.2"
SLF4J_VERSION = "1.7.36"
# As for the brokers (settings.broker_jvm_opts): C1-only JIT and the serial collector start a
# client JVM faster and use less CPU on 2 cores, which a restarted app needs more than peak speed.
JVM_OPTIONS = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx512m")
_APP_JAR = "kafka-eos-apps.jar"

_CLIENT_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-eos-harness</groupId><artifactId>java-client-closure</artifactId><version>1</version>
{managed}  <dependencies>
{dependencies}
  </dependencies>
</project>
"""
_DEPENDENCY = "    <dependency><groupId>{}</groupId><artifactId>{}</artifactId><version>{}</version></dependency>"
# Every Jackson module at the release of JACKSON_VERSION's BOM, whoever depends on it: without it
# an older kafka-streams' own jackson-annotations (2.13 for 3.4.0) wins over the one
# jackson-databind 2.21 needs, and the apps fail with NoClassDefFoundError (JsonSerializeAs).
_JACKSON_BOM = """  <dependencyManagement><dependencies>
    <dependency><groupId>com.fasterxml.jackson</groupId><artifactId>jackson-bom</artifactId>
      <version>{}</version><type>pom</type><scope>import</scope></dependency>
  </dependencies></dependencyManagement>
"""


def _sources() -> list[Path]:
    files = [JAVA_DIR / "pom.xml", *sorted(p for p in (JAVA_DIR / "src").rglob("*") if p.is_file())]
    if not files[0].exists():
        raise HarnessError(f"no Java apps at {JAVA_DIR}: the checkout looks incomplete")
    return files


def _app_folder(settings: Settings) -> Path:
    digest = hashlib.sha256()
    for path in _sources():
        digest.update(path.relative_to(JAVA_DIR).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return settings.cache_dir / "java-apps" / digest.hexdigest()[:16]


def _what(version: str, streams: bool) -> str:
    return f"kafka-{'streams' if streams else 'clients'}:{version}"


def _client_folder(settings: Settings, version: str, streams: bool) -> Path:
    """Named by the hash of its pom too: a checkout whose pom differs (another branch sharing the
    cache) gets a folder of its own instead of replacing this one under a running app."""
    pom_hash = hashlib.sha256(_client_pom(version, streams).encode()).hexdigest()[:12]
    return settings.cache_dir / "java-clients" / f"{version}{'-streams' if streams else ''}-{pom_hash}"


def _closure_pom(*artifacts: tuple[str, str, str], managed: str = "") -> str:
    """A pom whose runtime closure is ``artifacts`` and theirs, with slf4j-simple to log through
    (``managed``: a dependencyManagement section)."""
    logging = (
        # Named here so that this version wins over the artifacts' own (nearest wins in Maven).
        ("org.slf4j", "slf4j-api", SLF4J_VERSION),
        ("org.slf4j", "slf4j-simple", SLF4J_VERSION),
    )
    listed = "\n".join(_DEPENDENCY.format(*a) for a in (*artifacts, *logging))
    return _CLIENT_POM.format(managed=managed, dependencies=listed)


def _client_pom(version: str, streams: bool) -> str:
    return _closure_pom(
        ("org.apache.kafka", "kafka-clients", version),
        *([("org.apache.kafka", "kafka-streams", version)] if streams else []),
        ("com.fasterxml.jackson.core", "jackson-databind", JACKSON_VERSION),
        managed=_JACKSON_BOM.format(JACKSON_VERSION),
    )


def _tools_pom(version: str) -> str:
    return _closure_pom(("org.apache.kafka", "kafka-tools", version))


def _tools_folder(settings: Settings, version: str) -> Path:
    pom_hash = hashlib.sha256(_tools_pom(version).encode()).hexdigest()[:12]
    return settings.cache_dir / "java-tools" / f"{version}-{pom_hash}"


def _jars(folder: Path) -> list[Path]:
    return sorted(p.resolve() for p in folder.glob("*.jar"))


def app_jar(settings: Settings) -> Path:
    """The apps' jar, built with ``mvn package`` unless a build of the same sources is cached."""
    folder = _app_folder(settings)
    if cache_folders.complete(folder, folder.name):
        return folder / _APP_JAR
    with step(f"build the Java workload apps ({JAVA_DIR.name}/) with mvn"), cache_folders.staging(folder) as tmp:
        # Built in a copy: the checkout gets no target/ folder, and concurrent builds do not meet.
        work = tmp / "java"
        shutil.copytree(JAVA_DIR, work, ignore=shutil.ignore_patterns("target"))
        mvn(
            work / "pom.xml",
            ["package"],
            "build the Java workload apps",
            "install Maven and a JDK 17 (Debian: apt-get install maven openjdk-17-jdk-headless)",
        )
        staged = tmp / "staged"
        staged.mkdir()
        shutil.copy2(work / "target" / _APP_JAR, staged / _APP_JAR)
        cache_folders.publish(staged, folder, folder.name)
    return folder / _APP_JAR


def check_release(main_class: str, version: str) -> None:
    """A HarnessError when ``main_class``'s app cannot run on the client release ``version``."""
    oldest, why = OLDEST_FOR_APP[main_class]
    name = main_class.rpartition(".")[2]
    versions.release(
        version, f"{'kafka-streams' if main_class == STREAMS_APP else 'kafka-clients'} for {name}", oldest, why
    )


def client_classpath(settings: Settings, version: str, streams: bool = False) -> list[Path]:
    """The jars an app needs at run time to use Kafka's Java client ``version`` (with
    ``streams``, Kafka Streams too), resolved once per version with mvn."""
    artifact = "kafka-streams" if streams else "kafka-clients"
    oldest = OLDEST_FOR_APP[STREAMS_APP][0] if streams else OLDEST_CLIENT_VERSION
    versions.release(version, artifact, oldest, OLDEST_FOR_APP[STREAMS_APP][1] if streams else OLDEST_CLIENT_WHY)
    known = f"{oldest} and newer (kafka-streams up to {NEWEST_ON_MAVEN_CENTRAL['kafka-streams']})"
    return _closure(
        _client_folder(settings, version, streams), _client_pom(version, streams), _what(version, streams), known
    )


def tools_classpath(settings: Settings, version: str) -> list[Path]:
    """The jars to run Kafka's own tools (``org.apache.kafka.tools.ProducerPerformance``,
    ``VerifiableProducer``, ...) for a cluster of ``version``, resolved once per version with mvn."""
    versions.kafka(version)
    version = artifact_version("kafka-tools", version)
    return _closure(_tools_folder(settings, version), _tools_pom(version), f"kafka-tools:{version}", TOOLS_VERSIONS)


def artifact_version(artifact: str, kafka_version: str) -> str:
    """The version of ``artifact`` (kafka-clients, kafka-streams, kafka-tools) used against a
    cluster of ``kafka_version``: the cluster's own, or the newest on Maven Central if older."""
    newest = NEWEST_ON_MAVEN_CENTRAL.get(artifact, kafka_version)
    return min(kafka_version, newest, key=lambda v: tuple(map(int, v.split("."))))


def _closure(folder: Path, pom: str, what: str, known: str) -> list[Path]:
    """The jars of ``pom``'s runtime closure, copied into ``folder`` with mvn unless they are there."""
    if cache_folders.complete(folder, pom):
        return _jars(folder)
    with step(f"resolve {what} and its runtime closure with mvn"), cache_folders.staging(folder) as work:
        (work / "pom.xml").write_text(pom)
        staged = work / "jars"
        try:
            # -U: ask again for artifacts an earlier attempt found missing (Maven waits a day otherwise).
            maven_closure(work / "pom.xml", staged, f"resolve org.apache.kafka:{what}", "-U")
        except HarnessError as exc:
            raise unresolved(exc, f"org.apache.kafka:{what}", known) from exc
        cache_folders.publish(staged, folder, pom)
    return _jars(folder)


def command(settings: Settings, version: str, main_class: str, streams: bool = False) -> list[str]:
    """``java ... -cp <app jar and client jars> <main_class>``: append the spec path to run it."""
    if shutil.which("java") is None:
        raise HarnessError("java not found, needed to run the Java workload apps: install a Java 17 runtime")
    check_release(main_class, version)
    jars = client_classpath(settings, version, streams)
    native = [f"-Djava.library.path={d}" for d in [_rocksdb_native_dir(jars)] if d]
    classpath = [app_jar(settings), *jars]
    archive = class_archive.use(_class_archive_path(settings, version, streams, classpath))
    return ["java", *JVM_OPTIONS, *archive, *native, "-cp", os.pathsep.join(map(str, classpath)), main_class]


def _class_archive_path(settings: Settings, version: str, streams: bool, classpath: list[Path]) -> Path:
    """The class archive (harness.jvm.class_archive) of the apps on this class path."""
    name = f"java-apps-{version}{'-streams' if streams else ''}"
    return class_archive.path(settings.cache_dir / "class-archives", name, classpath)


def _archive_client(settings: Settings, version: str, streams: bool, classpath: list[Path]) -> None:
    """Make the class archive (harness.jvm.class_archive) of the apps on ``classpath``."""

    def check(options: list[str]) -> None:
        cmd = ["java", *JVM_OPTIONS, *options, "-cp", os.pathsep.join(map(str, classpath)), "-version"]
        commands.run(cmd, "map a Java app's class archive", "install a Java 17 runtime")

    def dump(staged: Path) -> None:
        class_archive.dump_every_class(staged, classpath, JVM_OPTIONS)

    class_archive.build(_class_archive_path(settings, version, streams, classpath), dump, check)


# RocksDB's JNI library inside rocksdbjni-*.jar, per machine (RocksDB's Environment names them).
_ROCKSDB_JNI = {"x86_64": "librocksdbjni-linux64.so", "aarch64": "librocksdbjni-linux-aarch64.so"}


def _rocksdb_native_dir(jars: list[Path]) -> Path | None:
    """A folder holding RocksDB's JNI library as ``librocksdbjni.so``, extracted once beside the
    jars. Without it RocksDB copies the 15 MB library into /tmp at every start and deletes it
    only at a clean exit: each SIGKILLed Streams instance would leave one behind."""
    jar = next((j for j in jars if j.name.startswith("rocksdbjni-")), None)
    member = _ROCKSDB_JNI.get(platform.machine())
    if jar is None or member is None or platform.system() != "Linux":
        return None  # RocksDB's own fallback: it extracts the library itself
    folder = jar.parent / "native"
    library = folder / "librocksdbjni.so"  # System.loadLibrary("rocksdbjni") looks for this name
    if not library.exists():
        folder.mkdir(exist_ok=True)
        with zipfile.ZipFile(jar) as archive, tempfile.NamedTemporaryFile(dir=folder, delete=False) as out:
            shutil.copyfileobj(archive.open(member), out)
        Path(out.name).rename(library)  # whole or not at all, for a run started beside this one
    return folder


_APPS_STEP = "java apps jar"


def client_steps(settings: Settings, version: str, streams: bool = False) -> list[BuildStep]:
    """The steps that make an app on the Java client ``version`` (Kafka Streams' with ``streams``)
    ready to start (none when it is; harness.build_steps): the apps' jar and the client's jars
    side by side, then the class archive of their JVM."""
    app, client = _app_folder(settings), _client_folder(settings, version, streams)
    what = _what(version, streams)
    found = []
    if not cache_folders.complete(app, app.name):
        found.append(BuildStep(_APPS_STEP, partial(app_jar, settings), cpu=True, tools=("mvn", "javac")))
    if not cache_folders.complete(client, _client_pom(version, streams)):
        found.append(BuildStep(f"{what} jars", partial(client_classpath, settings, version, streams), tools=("mvn",)))
    if found or not _class_archive_path(settings, version, streams, [app / _APP_JAR, *_jars(client)]).is_file():
        archive = partial(prepare_client, settings, version, streams)
        found.append(BuildStep(f"{what} class archive", archive, after=(_APPS_STEP, f"{what} jars"), cpu=True))
    return found


def prepare_client(settings: Settings, version: str, streams: bool = False) -> None:
    """The apps built, the client ``version``'s jars (Kafka Streams' with ``streams``) fetched and
    the class archive of their JVM made: each once, later calls find them cached."""
    classpath = [app_jar(settings), *client_classpath(settings, version, streams)]
    if not _class_archive_path(settings, version, streams, classpath).is_file():
        with step(f"class archive of the Java apps on {_what(version, streams)} (once; an app starts ~0.3 s sooner)"):
            _archive_client(settings, version, streams, classpath)


def _tested() -> list[tuple[str, bool]]:
    """The clients setup prepares: every tested Kafka version's, and Kafka Streams for the default."""
    streams = artifact_version("kafka-streams", DEFAULT_KAFKA_VERSION)
    return [(v, False) for v in KNOWN_KAFKA_VERSIONS] + [(streams, True)]


def setup_steps(settings: Settings) -> list[BuildStep]:
    """What setup prepares (``client_steps``): the client of every tested Kafka version, and
    Kafka Streams and the tools for the default version (the D scenarios, the benchmarks)."""
    tools = artifact_version("kafka-tools", DEFAULT_KAFKA_VERSION)
    found = [s for version, streams in _tested() for s in client_steps(settings, version, streams)]
    if not cache_folders.complete(_tools_folder(settings, tools), _tools_pom(tools)):
        fetch = partial(tools_classpath, settings, DEFAULT_KAFKA_VERSION)
        found.append(BuildStep(f"kafka-tools:{tools} jars", fetch, tools=("mvn",)))
    return found
