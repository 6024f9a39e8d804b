"""A streaming job given a wrong argument fails with one line, not a JVM stack trace.

Each case runs a job as a user would (``python spark_jobs/<job>.py``): exit status 2, and
stderr holds one line from the job saying what is wrong. The JVM's own start-up notices
(the incubator-module warning, Spark's log-level announcement) may precede it; nothing
else may, and no stack trace at all.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.cluster.kafka import KafkaCluster

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
# Printed by the JVM and by Spark's launcher before any job code runs.
_START_UP_NOTICES = ("WARNING: Using incubator modules", "Setting default log level", "To adjust logging level")


def _run(job: str, *args: str) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "spark_jobs" / f"{job}.py"), *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip() and not line.startswith(_START_UP_NOTICES)]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"{job}: error: "), lines[0]
    assert proc.stdout == "", proc.stdout
    return proc.returncode, lines[0]


def test_unreachable_bootstrap_server(tmp_path: Path) -> None:
    # Nothing listens on port 1 of loopback: the connection is refused, the admin client retries.
    status, line = _run(
        "sqlite_sink",
        "--bootstrap-servers",
        "127.0.0.1:1",
        "--topic",
        "t",
        "--checkpoint",
        str(tmp_path / "c"),
        "--db",
        str(tmp_path / "db.sqlite"),
    )
    assert status == 2
    assert "no Kafka broker answered at 127.0.0.1:1" in line


def test_missing_checkpoint_parent(tmp_path: Path) -> None:
    status, line = _run(
        "aggregate",
        "--bootstrap-servers",
        "127.0.0.1:1",
        "--topic",
        "t",
        "--checkpoint",
        str(tmp_path / "no" / "such" / "c"),
        "--db",
        str(tmp_path / "db.sqlite"),
    )
    assert status == 2
    assert f"parent folder {tmp_path / 'no' / 'such'} of --checkpoint does not exist" in line


def test_topic_that_does_not_exist(cluster: KafkaCluster, topic: str, tmp_path: Path) -> None:
    status, line = _run(
        "kafka_sink",
        "--bootstrap-servers",
        cluster.bootstrap_servers(),
        "--topic",
        topic,
        "--output-topic",
        "no-such-topic",
        "--checkpoint",
        str(tmp_path / "c"),
    )
    assert status == 2
    assert "topic no-such-topic does not exist" in line


@pytest.mark.parametrize("job", ["kafka_sink", "sqlite_sink", "aggregate"])
def test_help_names_every_argument(job: str) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "spark_jobs" / f"{job}.py"), "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0
    for option in ("--bootstrap-servers", "--topic", "--checkpoint", "--master", "--until-caught-up"):
        assert option in proc.stdout
