"""``check-app --explore N``: schedules drawn for a user's app from what it offers (its
instances, its links, its topics' leaders, its transactional.ids' coordinators, its output's
progress); on a cluster, the example app's real bug is found and the fixed app is not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.errors import HarnessError
from harness.explore import draw, user_app, words
from harness.faults import INPUT, OUTPUT, App, Leader, TransactionalId, TxnCoordinator, serial
from harness.settings import Settings
from harness.userapps.check_app import AppRequest
from harness.userapps.workload import APP_LINKS, UserAppWorkload

ROOT = Path(__file__).resolve().parents[3]
PYTHON_APP = f"{sys.executable} {ROOT / 'examples' / 'python-app' / 'src' / 'eos_app.py'}"
# Run 1 of this seed, drawn from the process family for 400 inputs: the app killed once its
# output holds 227 records (two transactions committed, their offsets not: the example's buggy
# consumer auto-commits every 5 s), back 2.3 s later. (Seed 266 killed it at 23 records, before
# its first commit: nothing to repeat, and the run passed.)
KILL_SEED = 301
# Run 1 of this seed, drawn from the commit family: once the output holds 23 records, the app
# killed at its next commit, swallowed on the wire. The buggy app's next commit is its
# consumer's auto-commit (outputs of committed transactions beyond it: repeated on restart,
# whenever it comes); the fixed app's is its transaction's offsets (nothing repeats). The
# mechanism decides, not where a drawn kill happens to land on a busy machine.
COMMIT_SEED = 266


def _app(instances: int = 1) -> UserAppWorkload:
    return UserAppWorkload(("python", "app.py"), "orders", "enriched", inputs=400, instances=instances)


def test_a_run_aims_at_the_app_its_links_its_topics_and_its_coordinators() -> None:
    run = user_app.run_of(_app(instances=2), 7)
    assert (run.input_topic, run.output_topic) == ("orders-007", "enriched-007")
    ctx = user_app.reach(run).faults
    assert ctx.apps == (App("app-1"), App("app-2")) and ctx.client_listener == APP_LINKS
    assert ctx.transactional_ids == (TransactionalId("app-1"), TransactionalId("app-2"))
    assert TxnCoordinator(TransactionalId("app-2")) in ctx.brokers and Leader(INPUT, 2) in ctx.brokers
    assert {t for t, _ in ctx.partitions} == {INPUT, OUTPUT}


def test_the_drawn_schedules_come_from_the_seed_and_name_the_plan_s_topics() -> None:
    run = user_app.run_of(_app(), 3)
    first = [draw.schedule(5, n, user_app.reach(run), draw.FAMILIES) for n in range(1, 11)]
    again = [draw.schedule(5, n, user_app.reach(run), draw.FAMILIES) for n in range(1, 11)]
    assert [serial.dumps_doc(d) for d in first] == [serial.dumps_doc(d) for d in again]
    text = " ".join(json.dumps(d) for d in first)
    # Parts of the plan: `--schedule` with the run's topics runs it again as it was.
    assert '{"plan": "input"}' in text or '{"plan": "output"}' in text
    assert "orders-003" not in text and "enriched-003" not in text


def test_the_seed_the_cluster_test_uses_draws_one_kill_at_the_next_commit() -> None:
    doc = draw.schedule(COMMIT_SEED, 1, user_app.reach(user_app.run_of(_app(), 1)), ("commit",))
    (line,) = words.step_lines(doc)
    assert "crash_at_commit(after=1, times=1" in line and "app app-1" in line and ">= 23 records" in line, line


def test_the_process_seed_still_draws_an_early_kill() -> None:
    doc = draw.schedule(KILL_SEED, 1, user_app.reach(user_app.run_of(_app(), 1)), ("process",))
    (line,) = words.step_lines(doc)
    assert "kill app app-1" in line and ">= 227 records" in line and doc["steps"][0]["duration_s"] < 3, line


@pytest.mark.parametrize(
    "asked", [{"like": "B1"}, {"no_faults": True}, {"junit": Path("x.xml")}, {"json": True}], ids=str
)
def test_explore_refuses_what_is_for_one_run(asked: dict[str, Any]) -> None:
    with pytest.raises(HarnessError, match=r"--explore|one run"):
        user_app.explore(AppRequest("python3", "a", "b", **asked), Settings(), 2)


def _explore(tmp_path: Path, bug: str) -> subprocess.CompletedProcess[str]:
    command = f"{PYTHON_APP} --bug {bug}" if bug else PYTHON_APP
    argv = ["check-app", "--cmd", command, "--input-topic", "orders", "--output-topic", "enriched"]
    argv += ["--inputs", "400", "--explore", "1", "--seed", str(COMMIT_SEED), "--faults", "commit"]
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *argv, "--runs-dir", str(tmp_path / "runs")],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.cluster
def test_explore_finds_the_example_s_bug_and_not_in_the_fixed_app(tmp_path: Path) -> None:
    buggy = _explore(tmp_path / "buggy", "offsets-outside-txn")
    assert buggy.returncode == 1, buggy.stdout + buggy.stderr[-2000:]
    assert "1 of 1 runs failed" in buggy.stdout and "sink_" in buggy.stdout, buggy.stdout
    (again,) = [line for line in buggy.stdout.splitlines() if line.strip().startswith("again:")]
    kept = Path(again.split("--schedule ")[1])
    assert kept.name == "schedule.json" and json.loads(kept.read_text())["schema"] == serial.SCHEMA
    assert "--input-topic orders-001 --output-topic enriched-001" in again
    fixed = _explore(tmp_path / "fixed", "")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr[-2000:]
    assert "0 of 1 runs failed, 0 inconclusive" in fixed.stdout  # the fault hit: a pass that proves something
