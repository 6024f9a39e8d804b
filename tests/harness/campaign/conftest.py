"""Run folders as explore and campaigns keep them, written from a few facts: the unit tests of
signatures, triage and the findings page read these instead of real runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.explore import trial
from harness.faults import Brokers, Step, TxnCoordinator, protocol, serial
from harness.verdict.outcome import Outcome

MakeRun = Callable[..., Path]


@pytest.fixture
def make_run() -> MakeRun:
    return _write_run


def _write_run(
    folder: Path,
    outcome: str = Outcome.FAILED,
    counts: dict[str, int] | None = None,
    stopped: str = "",  # the error a fenced app stopped on
    stuck: str = "",  # the call a stuck app waited on
    setup: tuple[str, str] = ("", ""),  # the error an app that never got going stopped on, and where
    kafka: str = "4.4.0",
    client: tuple[str, str] = ("librdkafka", "2.16.0"),
    api: str = "EndTxn",
    matched: int = 1,
    cell: str = "B1-k4.4.0-librdkafka-2.16.1-protocol-s1",
    reasons: list[str] | None = None,
) -> Path:
    """One run's folder: run.json, schedule.json and (unless it could not run) its verdict."""
    folder.mkdir(parents=True)
    fault = protocol(TxnCoordinator("app-{topic}"), api=api, action="hold", duration_ms=3000)
    (folder / trial.SCHEDULE).write_text(serial.dumps_doc(serial.to_json([Step(1.0, fault, 2.0)])))
    counts = counts or {}
    info = {
        "subject": {"like": "B1", "client": f"{client[0]}=={client[1]}", "kafka_version": kafka},
        "seed": 1,
        "run": 1,
        "cell": cell,
        "families": ["protocol"],
        "steps": ["at 1 s: protocol"],
        "outcome": outcome,
        "reasons": reasons if reasons is not None else [f"{n} {k}" for k, n in counts.items()],
        "counts": counts,
        "wall_s": 30.0,
        "workload_s": 25.0,
    }
    (folder / trial.RUN).write_text(json.dumps(info))
    if outcome != trial.ERROR:
        verdict = {
            "counts": counts,
            "kafka_version": kafka,
            "client": client[0],
            "client_ran": [client[1]],
            "workload": [_app(stopped, stuck, setup)],
            "faults": [{"fault": "protocol", "params": {"api": api}, "matched": matched, "target": str(Brokers())}],
        }
        (folder / trial.SIDE).mkdir()
        (folder / trial.SIDE / "verdict.json").write_text(json.dumps(verdict))
    return folder


def _app(stopped: str, stuck: str, setup: tuple[str, str]) -> dict[str, Any]:
    exit_status = 3 if stopped else 4 if stuck else 2 if setup[0] else 0
    report: dict[str, Any] = {"app": "transformer-1", "incarnation": 1, "exit": exit_status}
    if setup[0]:
        report["setup_error"] = {"error": setup[0], "message": "m", "config": False, "stage": setup[1]}
    if stopped:
        report["fenced"] = {"error": stopped, "message": "m"}
    if stuck:
        report["stuck"] = {"call": stuck, "timeout_s": 10, "waited_s": 25}
    return report
