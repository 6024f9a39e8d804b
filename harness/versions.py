"""Release versions as the harness takes them: ``X.Y.Z``, compared as numbers, each kind with the
oldest release it runs.

Brokers (``org.apache.kafka:kafka_2.13``), confluent-kafka (librdkafka's Python client) and
Kafka's Java clients are all chosen by a release version; this module is the one place that
reads such a string, so every kind refuses a malformed or too old one with the same kind of
line. Whether a well-formed version exists is for its registry to say, when it is fetched
(``harness.provision``).
"""

from __future__ import annotations

import re

from harness.errors import HarnessError
from harness.settings import KNOWN_KAFKA_VERSIONS, OLDEST_KAFKA_VERSION

_RELEASE = re.compile(r"^\d+\.\d+\.\d+$")


def is_release(version: str) -> bool:
    """Whether ``version`` is a final release number ``X.Y.Z`` (not a candidate, not a snapshot)."""
    return bool(_RELEASE.match(version))


def key(version: str) -> tuple[int, ...]:
    """``version`` comparable as numbers: "3.10.0" comes after "3.9.2"."""
    return tuple(int(part) for part in version.split("."))


def release(version: str, what: str, oldest: str, why: str) -> str:
    """``version`` when it is an ``X.Y.Z`` release of ``what`` no older than ``oldest``; otherwise
    a HarnessError saying so, and ``why`` that is the oldest."""
    if not is_release(version):
        raise HarnessError(f"{what} version {version!r} is not a release number X.Y.Z: {oldest} or newer ({why})")
    if key(version) < key(oldest):
        raise HarnessError(f"{what} {version} is too old: {oldest} or newer ({why})")
    return version


def kafka(version: str) -> str:
    """``version`` if it names a Kafka release the clusters can run: KRaft, so 3.3.0 or newer.
    Whether Maven Central has it is known once its jars are resolved (harness.cluster.images)."""
    return release(
        version,
        "Kafka",
        OLDEST_KAFKA_VERSION,
        f"the clusters run in KRaft mode, production-ready since 3.3.0; tested: {', '.join(KNOWN_KAFKA_VERSIONS)}",
    )
