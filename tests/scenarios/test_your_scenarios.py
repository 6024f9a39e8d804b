"""Your own scenarios (``KEH_SCENARIO_DIRS``) are judged like the built-in ones: a check a
guarantee breaks fails the pair, and ``kafka-harness run`` and ``check`` exit 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.cluster

# B3 with a bound its guarantee cannot meet: the producer aborts 20 of its 40 transactions.
BROKEN_BOUND = """
from dataclasses import replace

from harness.verdict.checks import stat
from scenarios.b3_isolation_levels import SCENARIO as B3

SCENARIO = replace(
    B3,
    id="X3",
    guarantee=replace(B3.guarantee, checks=(stat("transactions_aborted", 19, "a bound broken on purpose"),)),
)
"""


def test_a_bound_broken_on_purpose_fails_the_pair_in_the_cli(tmp_path: Path) -> None:
    own = tmp_path / "mine"
    own.mkdir()
    (own / "x3_tight_bound.py").write_text(BROKEN_BOUND)
    env = {**os.environ, "KEH_SCENARIO_DIRS": str(own)}
    runs = tmp_path / "runs"

    def harness(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True, env=env, timeout=600
        )

    assert "X3" in harness("list").stdout
    run = harness("run", "X3", "--runs-dir", str(runs))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAILED" in run.stdout and "check FAILED: transactions_aborted == 19: transactions_aborted 20" in run.stdout
    (folder,) = runs.glob("*-X3-*")
    again = harness("check", str(folder))
    assert again.returncode == 1 and "FAILED" in again.stdout, again.stdout + again.stderr
