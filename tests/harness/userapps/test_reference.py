"""The reference app as the control of a user's app: a schedule under which it repeated nothing
leaves a passing verdict inconclusive; a repeat lets it pass; a violation fails it anyway; and
the two run at once only when the schedule's faults keep to the app they aim at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.checker.catalogue import ANOMALIES
from harness.checker.result import CheckResult, Finding
from harness.faults import App, Brokers, Leader, Node, Step, blackhole, crash_at_commit, kill
from harness.userapps import reference
from harness.userapps.output import OutputAtLeast
from harness.userapps.workload import APP_LINKS, APP_VARIANT, UserAppWorkload
from harness.verdict.document import side_outcome
from harness.verdict.judge import judge
from harness.verdict.record import SideRecord

IN_HAND = [{"fault": "kill", "target": "app app-1", "injected_at": 12.0}]
SAMPLES = [{"at": 11.5, "committed": 100, "caught_up": False, "outputs": 160}]


def _side(variant: Any, repeated: int) -> Any:
    result = CheckResult({name: Finding(0) for name in ANOMALIES}, {}, {})
    sink = {name: {"count": 0, "examples": []} for name in ("sink_missing", "sink_aborted")}
    sink["sink_repeated"] = {"count": repeated, "examples": []}
    context = {"faults": IN_HAND, "sink": {**sink, "progress": SAMPLES}, "workload": []}
    return judge("APP", variant.name, result, variant.expect, SideRecord.from_json(context), variant.checks)


@pytest.mark.parametrize(
    ("mine", "theirs", "outcome"),
    [(0, 40, "passed"), (0, 0, "inconclusive"), (5, 0, "failed"), (5, 40, "failed")],
    ids=["reference repeated", "reference clean", "violation, reference clean", "violation"],
)
def test_the_reference_decides_whether_a_pass_proves_anything(
    tmp_path: Path, mine: int, theirs: int, outcome: str
) -> None:
    control = _side(reference.VARIANT, theirs)
    assert control.passed == (theirs > 0)  # the reference passes as a control does: it showed the anomaly
    again = reference.with_reference(_side(APP_VARIANT, mine), control, tmp_path)
    assert side_outcome(again) == outcome
    assert (tmp_path / "verdict.json").exists() and again.record.reference["repeated"] == theirs


def test_the_reference_runs_on_topics_of_its_own_with_the_user_s_sizes() -> None:
    twin = reference.workload(UserAppWorkload(("my-app",), "orders", "enriched", inputs=777, instances=2))
    assert (twin.input_topic, twin.output_topic) == ("orders-reference", "enriched-reference")
    assert (twin.inputs, twin.instances, twin.command) == (777, 2, reference.COMMAND)


@pytest.mark.parametrize(
    ("steps", "apart"),
    [
        ([Step(1.0, kill(App("app-1")), 1.0), Step(0.0, crash_at_commit(App("app-1")))], True),
        ([Step(1.0, blackhole(Brokers(), listener=APP_LINKS), 3.0)], True),
        ([Step(1.0, blackhole(Leader("orders")), 3.0)], False),  # the shared client links
        ([Step(1.0, kill(Node(2)), 3.0)], False),  # a broker: both sides would kill it
    ],
)
def test_the_two_run_at_once_only_when_the_faults_keep_apart(steps: list[Step], apart: bool) -> None:
    assert reference.apart_from_the_app(steps) == apart


def test_a_schedule_naming_topics_outright_is_aimed_at_the_reference_s_topics() -> None:
    app = UserAppWorkload(("my-app",), "orders-003", "enriched-003")
    twin = reference.workload(app)
    drawn = [
        Step(0.0, kill(App("app-1")), 1.0, when=OutputAtLeast("enriched-003", 100)),
        Step(2.0, blackhole(Leader("orders-003", 1)), 3.0),
    ]
    aimed = reference.schedule_for(tuple(drawn), app, twin)
    assert aimed[0].when == OutputAtLeast("enriched-003-reference", 100) and aimed[0].fault == drawn[0].fault
    assert aimed[1].fault.target == Leader("orders-003-reference", 1)
