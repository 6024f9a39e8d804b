"""``kafka-harness`` as a user runs it, and the helpers the command-line tests share: a command
run as ``python -m harness.cli``, and its one-line error."""

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


def test_installed_command_finds_every_scenario_from_any_folder(tmp_path: Path) -> None:
    # As a user runs it: the console script, outside the repository, so nothing is
    # importable from the current folder (a package missing from the install shows here).
    command = Path(sys.executable).parent / "kafka-harness"
    proc = subprocess.run([str(command), "list"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    ids = [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]
    assert ids[0] == "A1" and {"B5", "B10", "C1", "C4"} <= set(ids), ids
