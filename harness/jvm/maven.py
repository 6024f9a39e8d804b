"""Maven Central: the runtime closure of an artifact, copied into a folder with ``mvn``.

Shared by the broker image (harness.cluster.images), Spark's Kafka connector
(harness.jvm.spark) and the Java clients.
"""

from __future__ import annotations

from pathlib import Path

from harness import commands


def maven_closure(pom: Path, output: Path, what: str, *options: str) -> None:
    """Copy the runtime dependency closure of the project in ``pom`` into ``output`` with mvn.

    ``options`` are extra mvn arguments (a settings file, dependency-plugin properties).
    """
    commands.run(
        [
            "mvn",
            "-B",
            "-q",
            "-f",
            str(pom),
            "dependency:copy-dependencies",
            "-DincludeScope=runtime",
            f"-DoutputDirectory={output}",
            *options,
        ],
        what,
        "install Maven (Debian: apt-get install maven)",
    )
