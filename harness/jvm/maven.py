"""Maven Central: the runtime closure of an artifact, copied into a folder with ``mvn``.

Shared by the broker image (harness.cluster.images), Spark's Kafka connector
(harness.jvm.spark) and the Java clients.
"""

from __future__ import annotations

import re
from pathlib import Path

from harness import commands
from harness.errors import HarnessError


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


def unresolved(exc: HarnessError, what: str, known: str) -> HarnessError:
    """A failed closure said as one line: what could not be had from Maven Central, which
    artifact Maven missed, and what is known to resolve. When ``mvn`` itself is missing,
    ``exc`` already says what to do and is returned as it is."""
    if "not found" in str(exc):
        return exc
    missing = re.search(r"Could not find artifact (\S+)|(\S+) was not found in", exc.detail)
    because = f" (it has no {missing.group(1) or missing.group(2)})" if missing else ""
    return HarnessError(f"cannot resolve {what} from Maven Central{because}; known to resolve: {known}", exc.detail)
