"""Maven Central: the runtime closure of an artifact, copied into a folder with ``mvn``.

Shared by the broker image (harness.cluster.images), Spark's Kafka connector
(harness.jvm.spark) and the Java clients; ``mvn`` runs every Maven command of the harness.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from harness import commands
from harness.errors import HarnessError

# Maven's own JVM, as the brokers' (settings.broker_jvm_opts): C1-only JIT and the serial
# collector. A Maven run of the harness is short and mostly JVM start-up and dependency
# resolution; resolving Kafka 3.6.1's broker closure into an empty repository took 4.2 s and
# 4.9 s of CPU so, against 6.1 s and 8.9 s of CPU with Maven's default JVM (and 1.1 s against
# 1.7 s with the repository filled).
MAVEN_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
_INSTALL_MAVEN = "install Maven (Debian: apt-get install maven)"


def mvn(pom: Path, arguments: list[str], what: str, hint: str = _INSTALL_MAVEN) -> None:
    """``mvn -B -q -f pom ARGUMENTS``: one line on failure (harness.commands). The user's own
    MAVEN_OPTS (a local repository, a proxy) come after ours, so theirs win."""
    options = f"{MAVEN_JVM_OPTIONS} {os.environ.get('MAVEN_OPTS', '')}".strip()
    env = {**os.environ, "MAVEN_OPTS": options}
    commands.run(["mvn", "-B", "-q", "-f", str(pom), *arguments], what, hint, env=env)


def maven_closure(pom: Path, output: Path, what: str, *options: str) -> None:
    """Copy the runtime dependency closure of the project in ``pom`` into ``output`` with mvn.

    ``options`` are extra mvn arguments (a settings file, dependency-plugin properties).
    """
    arguments = ["dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={output}", *options]
    mvn(pom, arguments, what)


def unresolved(exc: HarnessError, what: str, known: str) -> HarnessError:
    """A failed closure said as one line: what could not be had from Maven Central, which
    artifact Maven missed, and what is known to resolve. When ``mvn`` itself is missing,
    ``exc`` already says what to do and is returned as it is."""
    if "not found" in str(exc):
        return exc
    missing = re.search(r"Could not find artifact (\S+)|(\S+) was not found in", exc.detail)
    because = f" (it has no {missing.group(1) or missing.group(2)})" if missing else ""
    return HarnessError(f"cannot resolve {what} from Maven Central{because}; known to resolve: {known}", exc.detail)
