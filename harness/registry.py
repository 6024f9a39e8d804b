"""Which releases a registry publishes: Kafka's brokers and Java clients on Maven Central, the
librdkafka Python client (confluent-kafka) on PyPI. What ``bisect`` searches over.

Only final releases (``X.Y.Z``), oldest first. A registry that cannot be reached is one line
saying which and what to do; nothing is cached (a bisection asks once).
"""

from __future__ import annotations

import json
import re
import urllib.request
from urllib.error import URLError

from harness import versions
from harness.errors import HarnessError
from harness.settings import Settings

_TIMEOUT_S = 30


def source(kind: str, settings: Settings | None = None) -> str:
    """Where the releases of ``kind`` are listed (``settings``' KEH_MAVEN_URL, KEH_PYPI_URL)."""
    chosen = settings or Settings()
    return {
        "kafka": f"{chosen.maven_url}/org/apache/kafka/kafka_2.13/maven-metadata.xml",
        "java": f"{chosen.maven_url}/org/apache/kafka/kafka-clients/maven-metadata.xml",
        "librdkafka": f"{chosen.pypi_url}/confluent-kafka/json",
    }[kind]


def published(kind: str) -> list[str]:
    """Every final release of ``kind`` (``kafka``, ``java`` or ``librdkafka``), oldest first."""
    url = source(kind)
    try:
        with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as answer:
            text = answer.read().decode()
    except (URLError, OSError) as exc:
        why = f"cannot list {kind} releases from {url} ({exc})"
        raise HarnessError(f"{why}: check the network, or set a mirror (KEH_MAVEN_URL, KEH_PYPI_URL)") from exc
    found = json.loads(text)["releases"] if kind == "librdkafka" else re.findall(r"<version>([^<]+)</version>", text)
    return sorted((v for v in found if versions.is_release(v)), key=versions.key)
