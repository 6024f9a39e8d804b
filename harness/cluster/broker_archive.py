"""A class-data-sharing archive for the brokers' JVMs, so a cluster starts sooner.

Each broker container runs two JVMs on the same 45 jars: the storage tool that formats its
log directory, then the broker. Both spend much of their start loading and verifying the
same classes. A dynamic archive (``-XX:ArchiveClassesAtExit``) dumped by a broker that
started and stopped cleanly holds those classes parsed and verified; a JVM that maps it
(``-XX:SharedArchiveFile``) skips that work. The broker's semantics do not change: the same
classes from the same jars, only loaded faster.

The archive is made once per broker image (its id in the name), in a throwaway container
of that image that formats a one-node cluster, starts it and stops it (``ensure``; about 15 s,
the first time a cluster of that image starts); ``mount`` hands it to a broker read-only.
A JVM that cannot use it (another image, a damaged file) starts the slower way, as without one.
Only the harness's own broker images: an official ``apache/kafka`` image starts its own way.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from pathlib import Path
from typing import Any

from docker.errors import DockerException, ImageNotFound

from harness import docker_engine
from harness.progress import step
from harness.settings import LABEL, LABEL_PID, Settings

IN_CONTAINER = "/opt/kafka/class-archive.jsa"
_STAGING = "/archives"
# How the throwaway broker is started, stopped once up, and made to dump what it loaded. Its
# cluster id is a real one's form (base64url of 16 bytes): Kafka 3.5 and older refuse others.
_DUMP = """
set -e
conf=/tmp/archive.properties
printf '%s\\n' process.roles=broker,controller node.id=1 controller.quorum.voters=1@localhost:9094 \\
  listeners=PLAINTEXT://localhost:9092,CONTROLLER://localhost:9094 controller.listener.names=CONTROLLER \\
  log.dirs=/tmp/archive-data offsets.topic.replication.factor=1 transaction.state.log.replication.factor=1 \\
  transaction.state.log.min.isr=1 > "$conf"
java $OPTS -cp '/opt/kafka/libs/*' "$KAFKA_STORAGE_TOOL_CLASS" format -t a2Fma2EtZW9zLWhhcm5lcw -c "$conf" >/dev/null
java $OPTS -XX:ArchiveClassesAtExit="$STAGED" -cp '/opt/kafka/libs/*' kafka.Kafka "$conf" > /tmp/broker.log 2>&1 &
broker=$!
for _ in $(seq 1200); do grep -q 'Kafka Server started' /tmp/broker.log && break; sleep 0.1; done
kill -TERM "$broker"
wait "$broker" || true
test -s "$STAGED"
"""


def path(settings: Settings) -> Path | None:
    """Where the archive of the cluster's broker image lives (it may not exist yet); None for an
    image the harness did not build, or one not there."""
    if settings.kafka_image_override:
        return None
    try:
        image_id = docker_engine.client().images.get(settings.kafka_image).id.split(":")[-1][:16]
    except (ImageNotFound, DockerException):
        return None
    # The JVM's options too: an archive is mapped only by a JVM started much as the one that dumped it.
    options = hashlib.sha256(f"{settings.broker_heap} {settings.broker_jvm_opts}".encode()).hexdigest()[:8]
    return settings.cache_dir / "class-archives" / f"kafka-{settings.kafka_version}-{image_id}-{options}.jsa"


def ensure(settings: Settings) -> Path | None:
    """The archive, made first if missing; None when there is none to make or making it failed
    (the cluster then starts without it)."""
    archive = path(settings)
    if archive is None or archive.is_file():
        return archive
    archive.parent.mkdir(parents=True, exist_ok=True)
    staged = archive.with_name(f".{archive.name}.{os.getpid()}")
    try:
        with step(f"make the brokers' class archive (once per broker image): {archive.name}"):
            docker_engine.client().containers.run(
                settings.kafka_image,
                ["bash", "-c", _DUMP],
                entrypoint=[],
                environment={
                    "OPTS": f"-Xmx{settings.broker_heap} {settings.broker_jvm_opts}",
                    "STAGED": f"{_STAGING}/{staged.name}",
                },
                volumes={str(archive.parent): {"bind": _STAGING, "mode": "rw"}},
                labels={LABEL: "class-archive", LABEL_PID: str(os.getpid())},
                network_mode="none",
                remove=True,
            )
        if staged.is_file():
            os.replace(staged, archive)
    except DockerException:
        return None  # a slower start, not a failed one
    finally:
        staged.unlink(missing_ok=True)
    return archive if archive.is_file() else None


def mount(container: Any, archive: Path | None) -> None:
    """Give a broker ``container`` (testcontainers) the archive, read-only, and the JVM option
    that maps it (the image's run script passes ``KAFKA_OPTS`` to both its JVMs)."""
    if archive is None:
        return
    container.with_volume_mapping(str(archive), IN_CONTAINER, "ro")
    options = [f"-XX:SharedArchiveFile={IN_CONTAINER}", "-Xlog:cds=off", "-Xlog:cds+dynamic=off"]
    container.with_env("KAFKA_OPTS", shlex.join(options))
