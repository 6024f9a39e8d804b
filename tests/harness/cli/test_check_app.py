"""``check-app``'s arguments: bad input is one line on stderr and exit 2 before any container
starts; the command printed for a failing explored run asks for what the exploration was asked."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from harness.cli import parser
from harness.cli.check_app import request_of
from harness.explore import user_app
from harness.userapps import check_app
from tests.harness.cli.test_main import harness


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--cmd", "no-such-program --x"], "'no-such-program' is not an executable"),
        (["--cmd", "python3 app.py", "--like", "A1"], "not a consume-transform-produce app"),
        (["--cmd", "python3 app.py", "--schedule", "/nonexistent.json"], "cannot read it"),
        (["--cmd", "python3 app.py", "--extract", "nowhere_at_all:f"], "cannot import nowhere_at_all"),
        (["--cmd", "python3 app.py", "--instances", "0"], "--instances must be 1 or more"),
        (["--cmd", "python3 app.py", "--explore", "2", "--like", "B1"], "--explore draws its own schedules"),
        (["--cmd", "python3 app.py", "--explore", "2", "--faults", "weather"], "unknown family weather"),
    ],
)
def test_bad_input_is_one_line_before_any_container_starts(args: list[str], said: str) -> None:
    proc = harness("check-app", *args, "--input-topic", "in", "--output-topic", "out")
    assert proc.returncode == 2, proc.stderr
    assert said in proc.stderr and proc.stderr.count("\n") == 1 and "start 3-broker" not in proc.stderr


def test_the_command_for_a_failing_run_asks_for_every_choice_on_the_run_s_topics() -> None:
    argv = ["check-app", "--cmd", f"{sys.executable} 'my app.py'", "--input-topic", "orders"]
    argv += ["--output-topic", "enriched", "--explore", "3", "--extract", "shlex:split", "--kafka-version", "3.9.2"]
    argv += ["--output-isolation", "read_uncommitted", "--idle-timeout", "12.5", "--no-reference", "--instances", "2"]
    request = request_of(parser().parse_args(argv))
    app, _, _ = check_app.workload(request, explored=True)
    kept = Path("/runs/x/run-002/schedule.json")
    again = shlex.split(user_app._again(request, user_app.run_of(app, 2), kept.parent))
    assert again[:2] == ["kafka-harness", "check-app"] and "--explore" not in again
    # Parsed as the command line it is: the same request but for the run's topics, its schedule,
    # and the defaults the exploration chose, said outright.
    asked = replace(request, input_topic="orders-002", output_topic="enriched-002", schedule=str(kept))
    assert request_of(parser().parse_args(again[1:])) == replace(asked, inputs=1000, partitions=3, input_mode="live")
