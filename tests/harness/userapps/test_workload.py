"""When a run of a user's app says nothing about exactly-once, and why, in one line: it crashed
on start, broke the output contract, never read, or never committed; and the checks a run that
does say something must pass: no crash, caught up."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from harness.userapps.workload import CAUGHT_UP, NO_CRASH, contract_breach
from harness.verdict.record import SideRecord


def _side(sink: dict[str, Any], workload: list[dict[str, Any]] | None = None) -> Any:
    record = SideRecord(
        sink=sink,
        workload=workload or [],
        run_dir="/runs/x/app",
        producer_config={"group.id": "out-group"},
        topics=["in"],
        started_at=100.0,
        ended_at=130.0,
    )
    return SimpleNamespace(record=record)


def _incarnation(n: int, exit_code: int | None, crashed: bool, **more: Any) -> dict[str, Any]:
    return {
        "app": "app-1",
        "incarnation": n,
        "exit": exit_code,
        "crashed": crashed,
        "started_at": 101.0,
        "ended_at": 101.5,
        **more,
    }


CRASHED = _incarnation(1, 3, True, last_line="KeyError: 'KEH_BOOTSTRAP'")


@pytest.mark.parametrize(
    ("sink", "workload", "said"),
    [
        ({"group_committed": 0, "outputs": 0, "contract": ""}, [CRASHED], "app-1 exited with status 3 0.5s after"),
        # A crash that leaves outputs without ids: the crash is what to fix first.
        ({"group_committed": 0, "contract": "output out-0@1 names no input"}, [CRASHED], "crashed on start"),
        ({"group_committed": 5, "contract": "output out-0@1 names no input"}, [], "output out-0@1 names no input"),
        ({"group_committed": 0, "outputs": 0, "contract": ""}, [], "app-1 ran 30s but never read"),
        ({"group_committed": 0, "outputs": 12, "contract": ""}, [], "wrote 12 output records but group out-group"),
    ],
)
def test_a_run_without_a_verdict_says_why_in_one_line(sink: dict, workload: list, said: str) -> None:
    breach = contract_breach(_side(sink, workload))
    assert breach is not None and said in str(breach) and "\n" not in str(breach)


def test_a_run_that_read_and_committed_has_a_verdict() -> None:
    assert contract_breach(_side({"group_committed": 40, "outputs": 40, "contract": ""})) is None
    # An app the test ran itself: no group known, so nothing to say about commits.
    assert contract_breach(_side({"group_committed": None, "outputs": 0, "contract": ""})) is None


def test_an_app_a_fault_stopped_inside_its_first_transaction_gets_a_verdict_not_a_contract_line() -> None:
    # Outputs written in a transaction that never committed: read committed sees none, the high
    # watermarks do. With a fault injected the verdict says what became of the inputs.
    sink = {"group_committed": 0, "outputs": 0, "contract": "", "progress": [{"outputs": 0}, {"outputs": 300}]}
    faulted = _side(sink)
    faulted.record.faults = [{"fault": "crash_at_commit"}]
    assert contract_breach(faulted) is None
    breach = contract_breach(_side(sink))  # no fault: the app itself never committed
    assert breach is not None and "wrote 300 output records" in str(breach)


def test_a_crash_mid_run_and_an_app_that_gave_up_fail_their_checks() -> None:
    killed = _incarnation(1, -9, False)
    crashed = _incarnation(2, 1, True, last_line="RuntimeError: lost my way")
    stopped = _incarnation(3, -15, False, stopped="no progress for 60s")
    side = _side({}, [killed, crashed, stopped])
    assert NO_CRASH.seen(side) == "app-1#2 exited 1: RuntimeError: lost my way"
    assert CAUGHT_UP.seen(side) == "app-1: no progress for 60s"
    fine = _side({}, [killed, _incarnation(2, 0, False, stopped="caught up")])
    assert NO_CRASH.seen(fine) is None and CAUGHT_UP.seen(fine) is None
