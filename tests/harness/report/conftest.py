"""Pair run folders made without a cluster: synthetic histories (harness.synthetic) run
through the real checker and verdict, written where run_pair writes them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.checker.check import check
from harness.history import loading
from harness.verdict.document import FORBIDDEN, REQUIRED, PairVerdict, VariantVerdict
from harness.verdict.judge import judge
from harness.verdict.record import SideRecord
from tests.harness.checker.synthetic import BASE_US, MUTATIONS

STARTED = BASE_US / 1e6
FAULT = {
    "fault": "blackhole",
    "target": "leader of input-0",
    "brokers": [2],
    "listeners": ["client"],
    "direction": "from_broker",
    "params": {"timeout": 0},
    "injected_at": STARTED + 0.01,
    "healed_at": STARTED + 0.05,
}
MakePair = Callable[..., Path]


def _side(folder: Path, mutation: str, expect: dict[str, str]) -> VariantVerdict:
    m = next(m for m in MUTATIONS if m.name == mutation)
    paths, reads = m.build(folder)
    # Apps as the runner reports them: a producer killed once, and a transformer (other outcomes).
    workload = [
        {"app": "producer-1", "incarnation": 1, "exit": -9, "started_at": STARTED, "ended_at": STARTED + 0.2},
        {
            "app": "producer-1",
            "incarnation": 2,
            "exit": 0,
            "started_at": STARTED + 0.3,
            "ended_at": STARTED + 0.9,
            "outcomes": {"ok": 10, "fail": 0, "info": 0, "unfinished": 0},
            "errors": {"_MSG_TIMED_OUT": 2},
            "longest_ack_gap_s": 1.5,
            "resent": 3,
        },
        {
            "app": "transformer-1",
            "incarnation": 1,
            "exit": 3,
            "started_at": STARTED,
            "ended_at": STARTED + 0.9,
            "outcomes": {"consumed": 600, "produced": 600, "batches": 12, "aborted": 0},
            "errors": {},
            "fenced": {"error": "_FENCED", "message": "fenced by a newer instance"},
        },
    ]
    for r in workload:
        (folder / f"{r['app']}.{r['incarnation']}.spec.json").write_text("{}")
    context = {
        "workload": workload,
        "faults": [FAULT],
        "started_at": STARTED,
        "ended_at": STARTED + 1.0,
        "producer_config": {"acks": "all"},
        "kafka_version": "4.3.1",
        "run_dir": str(folder),
    }
    verdict = judge("A1", folder.name, check(loading.load(paths, reads)), expect, SideRecord.from_json(context))
    (folder / "verdict.json").write_text(json.dumps(verdict.to_json()))
    return verdict


@pytest.fixture
def make_pair(tmp_path: Path) -> MakePair:
    """``make_pair(name, control=..., guarantee=...)``: a finished A1 pair's folder; the sides'
    histories are synthetic mutations by name (the control must show duplicates)."""

    def make(name: str = "20261123-120000-A1-beef", control: str = "duplicate", guarantee: str = "clean plain") -> Path:
        folder = tmp_path / name
        c = _side(folder / "control", control, {"duplicate": REQUIRED})
        g = _side(folder / "guarantee", guarantee, {"duplicate": FORBIDDEN, "lost": FORBIDDEN})
        (folder / "verdict.json").write_text(json.dumps(PairVerdict("A1", "lost ack", c, g).to_json()))
        return folder

    return make
