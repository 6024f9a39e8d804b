"""The runner's judgement when its checker raises: the sides' outcome is unknown, so the pair is
unknown (exit 3) with the reason, in the tests' judgement and the CLI's alike; never a
violation, never a crash, and the run folder still gets its report."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import scenarios
from harness import runner
from harness.cluster.kafka import KafkaCluster
from harness.report.page import REPORT
from harness.report.run_folder import folder_of
from harness.runner import run_pair
from harness.verdict.outcome import Outcome

ROOT = Path(__file__).resolve().parents[2]
RAISED = "unknown: the checker raised RuntimeError: forced by the test"


def _broken(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("forced by the test")


def test_a_checker_that_raises_makes_the_pair_unknown_with_the_reason(
    cluster: KafkaCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "check", _broken)
    pair = run_pair(cluster, scenarios.get("A1"), tmp_path)
    assert pair.outcome == Outcome.UNKNOWN and pair.outcome.exit_code == 3, pair.to_json()["verdict"]
    for side in (pair.control, pair.guarantee):
        assert RAISED in side.reasons and side.record.unknown
    assert (folder_of(pair) / REPORT).exists()


@pytest.mark.cluster
def test_the_command_exits_3_and_says_why(tmp_path: Path) -> None:
    # The same fault in the command's own process: a sitecustomize on its path breaks its checker.
    (tmp_path / "sitecustomize.py").write_text(
        "import harness.runner\n\n\ndef _broken(*args, **kwargs):\n"
        "    raise RuntimeError('forced by the test')\n\n\nharness.runner.check = _broken\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "harness.cli", "run", "A1", "--runs-dir", str(tmp_path / "runs")],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 3, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "UNKNOWN" in proc.stdout and "unknown: the checker raised RuntimeError" in proc.stdout, proc.stdout
