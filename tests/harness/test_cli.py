"""Bad input gets one clear line on stderr and a non-zero exit, before anything starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def harness(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("==>")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_list_names_a1() -> None:
    proc = harness("list")
    assert proc.returncode == 0 and proc.stdout.startswith("A1 ")


def test_installed_command_finds_every_scenario_from_any_folder(tmp_path: Path) -> None:
    # As a user runs it: the console script, outside the repository, so nothing is
    # importable from the current folder (a package missing from the install shows here).
    command = Path(sys.executable).parent / "kafka-harness"
    proc = subprocess.run([str(command), "list"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    ids = [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]
    assert ids[0] == "A1" and {"B5", "B10", "C1", "C4"} <= set(ids), ids


def test_unknown_scenario() -> None:
    assert "unknown scenario 'Z9'" in one_line_error(harness("run", "Z9"))


def test_malformed_kafka_version() -> None:
    assert "unknown Kafka version 'banana'" in one_line_error(harness("run", "A1", "--kafka-version", "banana"))


def test_kafka_version_without_image() -> None:
    assert "unknown Kafka version 9.9.9" in one_line_error(harness("run", "A1", "--kafka-version", "9.9.9"))


def test_docker_not_reachable() -> None:
    line = one_line_error(harness("run", "A1", DOCKER_HOST="unix:///nonexistent/docker.sock"))
    assert "Docker engine not reachable" in line and "make setup" in line
