"""Every setting the harness reads, with its default, in one place.

Each value can be overridden by the environment variable named next to it; CLI flags
override the environment. Nothing else in the harness reads ``os.environ`` for settings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

# Kafka versions whose Maven Central artifacts resolved completely when this list was last
# checked (2026-11-23; 4.4.0 since that day), each with every A and B pair run on it: the
# newest is the default, 3.9.2 is the last transaction-protocol-v1 line. Their images are
# built at setup; any other release from OLDEST_KAFKA_VERSION on is built on first use
# (docs/versions.md says which were run end to end).
KNOWN_KAFKA_VERSIONS = ("3.9.2", "4.3.1", "4.4.0")
DEFAULT_KAFKA_VERSION = "4.4.0"
# The clusters are KRaft only (no ZooKeeper): KRaft was declared production-ready in 3.3.0.
OLDEST_KAFKA_VERSION = "3.3.0"
DEFAULT_TOXIPROXY_VERSION = "2.12.0"

# Broker settings every cluster starts with; a cluster (or a scenario) overrides any of
# them. Why each differs from Kafka's own default:
DEFAULT_BROKER_SETTINGS: dict[str, str] = {
    # The production-safe durability baseline: RF 3 internal topics, 2 in-sync copies.
    "default.replication.factor": "3",
    "min.insync.replicas": "2",
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "unclean.leader.election.enable": "false",
    # Fewer internal partitions than Kafka's 50: creating 50 RF-3 partitions costs seconds
    # on a 2-core machine and the scenarios need only a handful of coordinators.
    "offsets.topic.num.partitions": "6",
    "transaction.state.log.num.partitions": "6",
    # Consumer groups form at once instead of waiting 3 s for more members.
    "group.initial.rebalance.delay.ms": "0",
    # A follower that stops fetching leaves the ISR after 10 s instead of 30 s, so faults
    # on replication links show their effect within a test's patience.
    "replica.lag.time.max.ms": "10000",
    # Topics are created explicitly by the harness, never by a typo in a client.
    "auto.create.topics.enable": "false",
}


def _env(name: str, default: str) -> str:
    return os.environ.get(name, default)


@dataclass(frozen=True)
class Settings:
    """Resolved settings for one harness invocation."""

    # KEH_KAFKA_VERSION: Apache Kafka version of the brokers.
    kafka_version: str = field(default_factory=lambda: _env("KEH_KAFKA_VERSION", DEFAULT_KAFKA_VERSION))
    # KEH_KAFKA_IMAGE: broker image. Empty means the locally built
    # kafka-eos-harness/kafka:<version>; set it to apache/kafka:<version> where a registry
    # is reachable (the harness drives both through the same KAFKA_* environment).
    kafka_image_override: str = field(default_factory=lambda: _env("KEH_KAFKA_IMAGE", ""))
    # KEH_TOXIPROXY_VERSION / KEH_TOXIPROXY_IMAGE: same idea for Toxiproxy
    # (ghcr.io/shopify/toxiproxy:<version> online).
    toxiproxy_version: str = field(default_factory=lambda: _env("KEH_TOXIPROXY_VERSION", DEFAULT_TOXIPROXY_VERSION))
    toxiproxy_image_override: str = field(default_factory=lambda: _env("KEH_TOXIPROXY_IMAGE", ""))
    # KEH_CACHE_DIR: rootfs, jars and Go binaries made by `images build`.
    cache_dir: Path = field(
        default_factory=lambda: Path(_env("KEH_CACHE_DIR", str(Path.home() / ".cache" / "kafka-eos-harness")))
    )
    # KEH_STEPS_AT_ONCE: fetch and build steps (`make setup`, a version's first use) run side by
    # side, of which at most one per core keeps a core busy (harness.build_steps). One more than
    # the cores: Maven's resolving keeps a core busy too where the registry answers fast (here).
    steps_at_once: int = field(default_factory=lambda: int(_env("KEH_STEPS_AT_ONCE", str((os.cpu_count() or 1) + 1))))
    # KEH_RUNS_DIR: one folder per scenario run (ledgers, verdict JSON, container logs).
    runs_dir: Path = field(default_factory=lambda: Path(_env("KEH_RUNS_DIR", "runs")))
    # KEH_BROKER_HEAP: JVM heap per broker; three brokers share a 2-core, 24 GiB machine.
    broker_heap: str = field(default_factory=lambda: _env("KEH_BROKER_HEAP", "512m"))
    # KEH_BROKER_JVM_OPTS: JIT/GC flags per broker. C1-only compilation and the serial
    # collector start a JVM markedly faster and use less CPU on 2 cores, which matters more
    # to fault tests than peak throughput (benchmarks may set their own).
    broker_jvm_opts: str = field(
        default_factory=lambda: _env(
            "KEH_BROKER_JVM_OPTS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true"
        )
    )
    # KEH_READY_TIMEOUT: seconds for the cluster to become ready before start fails.
    ready_timeout_s: float = field(default_factory=lambda: float(_env("KEH_READY_TIMEOUT", "120")))
    # KEH_DEBIAN_MIRROR: where debootstrap fetches the Java 17 rootfs packages.
    debian_mirror: str = field(default_factory=lambda: _env("KEH_DEBIAN_MIRROR", "http://deb.debian.org/debian"))
    # KEH_MAVEN_URL / KEH_PYPI_URL: where the lists of published releases are read (`bisect`
    # searches over them; harness.registry): Maven Central and PyPI, or a mirror of each.
    maven_url: str = field(default_factory=lambda: _env("KEH_MAVEN_URL", "https://repo1.maven.org/maven2"))
    pypi_url: str = field(default_factory=lambda: _env("KEH_PYPI_URL", "https://pypi.org/pypi"))
    # KEH_CLIENT_SECURITY: the security protocol of the client listeners. PLAINTEXT: an open
    # cluster, anyone may do anything (Kafka's default). SASL_PLAINTEXT: clients log in with
    # SASL/PLAIN as one of SASL_USERS and the brokers enforce ACLs (harness.cluster.security).
    client_security: str = field(default_factory=lambda: _env("KEH_CLIENT_SECURITY", "PLAINTEXT"))
    # KEH_SCENARIO_DIRS: folders of your own scenario modules (each defining SCENARIO, as in
    # scenarios/), separated by ':'; the registry lists them beside the built-in ones.
    scenario_dirs: tuple[Path, ...] = field(
        default_factory=lambda: tuple(Path(p) for p in _env("KEH_SCENARIO_DIRS", "").split(os.pathsep) if p)
    )

    @property
    def kafka_image(self) -> str:
        return self.kafka_image_override or f"kafka-eos-harness/kafka:{self.kafka_version}"

    def with_overrides(self, **changes: object) -> Settings:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


# Labels on every container and network the harness creates; `kafka-harness clean` and
# the exit handlers find leftovers by them (Ryuk is not used: its image cannot be pulled
# offline).
LABEL = "kafka-eos-harness"
LABEL_RUN = "kafka-eos-harness.run"
LABEL_PID = "kafka-eos-harness.pid"
LABEL_INPUTS = "kafka-eos-harness.inputs"

# The users a secured cluster (client_security SASL_PLAINTEXT) knows, each with a password
# made per cluster. SASL_HARNESS_USER is a super user: the harness's own clients (admin,
# read-back, LSO probe) and every app a scenario gives no user of its own log in as it, so
# any scenario runs unchanged on a secured cluster. The others may only do what ACLs grant
# them (scenario B10: the app, and a foreign producer that tries to take its transactional.id).
SASL_HARNESS_USER = "harness"
SASL_USERS = (SASL_HARNESS_USER, "app", "hijacker")

# librdkafka log level of the harness's own clients (admin, read-back): warnings and up.
# At its default (info) every connection refused while brokers start or are killed is
# printed, which buries the harness's progress; the workload apps keep info-level logs in
# their output files.
HARNESS_CLIENT_LOG_LEVEL = 4
