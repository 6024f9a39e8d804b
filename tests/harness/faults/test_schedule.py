"""A fault schedule without a cluster: a wait that runs out says which steps it leaves to be cut
short, rather than let them go unnoticed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import pytest

from harness.faults import Brokers, Faults, Schedule, Step, protocol


def test_a_wait_that_runs_out_names_the_steps_still_under_way(capsys: pytest.CaptureFixture[str]) -> None:
    healed: list[bool] = []
    faults = cast(Faults, SimpleNamespace(heal_all=lambda: healed.append(True)))
    late = protocol(Brokers(), "EndTxn", "drop")
    schedule = Schedule(faults, [Step(600.0, late)], None).start()
    schedule.wait(0.05)
    schedule.finish()
    said = capsys.readouterr().err
    assert "fault schedule: after 0s still under way, to be cut short" in said and late.describe() in said
    assert healed == [True] and schedule.errors == []


def test_a_wait_with_nothing_left_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    Schedule(cast(Faults, SimpleNamespace(heal_all=lambda: None)), [], None).start().wait(0.05)
    assert capsys.readouterr().err == ""
