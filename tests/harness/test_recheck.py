"""``kafka-harness check`` on a saved pair (synthetic histories, no cluster): a checker forced to
raise gives the outcome unknown with the reason and exit 3, never a violation, never a crash; a
re-check that succeeds tells again what the run's checker could not."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from harness import recheck as recheck_module
from harness.cli.pairs import cmd_check
from harness.recheck import recheck
from harness.verdict.document import FORBIDDEN, REQUIRED, PairVerdict
from harness.verdict.outcome import Outcome
from tests.harness.report.conftest import _side

RAISED = "the checker raised RuntimeError: forced by the test"


def _broken(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("forced by the test\nand a second line the reason leaves out")


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    """A passed A1 pair's run folder, as ``run`` leaves it."""
    folder = tmp_path / "20261123-120000-A1-beef"
    control = _side(folder / "control", "duplicate", {"duplicate": REQUIRED})
    guarantee = _side(folder / "guarantee", "clean plain", {"duplicate": FORBIDDEN})
    (folder / "verdict.json").write_text(json.dumps(PairVerdict("A1", "lost ack", control, guarantee).to_json()))
    return folder


def _check(folder: Path) -> int:
    return cmd_check(argparse.Namespace(run_dir=str(folder), engine="python", master="local[2]", json=False))


def test_a_saved_pair_checks_again_as_it_ran(saved: Path) -> None:
    assert recheck(saved).outcome == Outcome.PASSED
    assert _check(saved) == 0


def test_a_checker_that_raises_makes_the_pair_unknown_with_the_reason_and_exit_3(
    saved: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(recheck_module, "check", _broken)
    pair = recheck(saved)
    assert isinstance(pair, PairVerdict) and pair.outcome == Outcome.UNKNOWN
    for side in (pair.control, pair.guarantee):
        assert side.record.unknown == [RAISED] and f"unknown: {RAISED}" in side.reasons
    assert pair.to_json()["verdict"] == "unknown"
    capsys.readouterr()
    assert _check(saved) == 3
    out = capsys.readouterr().out
    assert "A1 lost ack: UNKNOWN" in out and f"unknown: {RAISED}" in out
    assert _check(saved / "guarantee") == 3  # one side alone: the same outcome


def test_a_recheck_that_succeeds_tells_again_what_the_run_could_not(saved: Path) -> None:
    path = saved / "guarantee" / "verdict.json"
    doc = json.loads(path.read_text())
    sink_raised = "the Sink check raised ValueError: no rows"
    path.write_text(json.dumps({**doc, "unknown": ["the checker raised MemoryError", sink_raised]}))
    pair = recheck(saved)
    assert pair.guarantee.record.unknown == [sink_raised]  # the sink's check is not made again
    assert pair.outcome == Outcome.UNKNOWN
