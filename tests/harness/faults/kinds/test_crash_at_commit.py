"""crash_at_commit and crash_in_produce as data: they aim at an app, on that app's links, take an
action, and refuse what they cannot do; drawn, they aim at one of the side's apps. (On a real
cluster: B1, D1 and D3, whose checks ask that every window was caught, and the check-app tests
of the example apps, one per action.)"""

from __future__ import annotations

import random

import pytest

from harness.faults import App, Leader, Step, crash_at_commit, crash_in_produce, serial
from harness.faults.kinds import crash_at_commit as kind
from harness.faults.kinds import crash_in_produce as produce_kind
from harness.faults.kinds.base import COMMIT, DrawContext


def test_it_aims_at_an_app_on_its_links_and_round_trips_as_json() -> None:
    spec = crash_at_commit(App("app-1"), after=3, times=2, listener="client2")
    assert (spec.kind, spec.target, spec.listeners, spec.direction) == (
        kind.KIND,
        App("app-1"),
        ("client2",),
        "to_broker",
    )
    assert spec.params == {"after": 3, "times": 2, "restart_after_s": 1.0}
    assert kind.KIND.family == COMMIT and kind.COMMIT_APIS == ("OffsetCommit", "AddOffsetsToTxn", "TxnOffsetCommit")
    (back,) = serial.steps(serial.to_json([Step(0.0, spec)]))
    assert back.fault == spec


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((Leader("orders"),), "aims at an app"),
        ((App("app-1"), 0), "after >= 1"),
        ((App("app-1"), 1, 0), "times >= 1"),
    ],
)
def test_what_it_cannot_do_is_refused(args: tuple[object, ...], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        crash_at_commit(*args)  # type: ignore[arg-type]


def test_drawn_it_aims_at_one_of_the_side_s_apps_on_their_listener() -> None:
    ctx = DrawContext(
        brokers=(Leader("orders"),), apps=(App("app-1"), App("app-2")), partitions=(), client_listener="client2"
    )
    drawn = [kind.draw(random.Random(seed), ctx) for seed in range(20)]
    assert {d.target for d in drawn} == {App("app-1"), App("app-2")}
    assert {d.listeners for d in drawn} == {("client2",)} and all(1 <= d.params["after"] <= 3 for d in drawn)


def test_an_action_other_than_a_kill_is_kept_with_its_hold_only_where_it_counts() -> None:
    assert crash_at_commit(App("app-1"), action="stop").params == {
        "after": 2,
        "times": 1,
        "action": "stop",
        "restart_after_s": 1.0,
    }
    spec = crash_at_commit(App("app-1"), action="pause", hold_s=8.0)
    assert spec.params["hold_s"] == 8.0
    (back,) = serial.steps(serial.to_json([Step(0.0, spec)]))
    assert back.fault == spec
    with pytest.raises(ValueError, match="unknown action 'freeze'"):
        crash_at_commit(App("app-1"), action="freeze")
    with pytest.raises(ValueError, match="hold_s > 0"):
        crash_at_commit(App("app-1"), action="cut", hold_s=0)


def test_its_produce_twin_holds_the_app_s_outputs_and_sees_the_answers() -> None:
    spec = crash_in_produce(App("app-1"), after=3, action="cut", hold_s=5.0, listener="client2")
    assert (spec.kind, spec.listeners, spec.direction) == (produce_kind.KIND, ("client2",), "both")
    assert spec.params == {"after": 3, "times": 1, "action": "cut", "hold_s": 5.0, "restart_after_s": 1.0}
    assert produce_kind.KIND.family == COMMIT


def test_drawn_actions_are_mostly_kills_and_holds_span_the_session_timeout() -> None:
    ctx = DrawContext(brokers=(Leader("orders"),), apps=(App("app-1"),), partitions=(), session_timeout_ms=10_000)
    drawn = [k.draw(random.Random(seed), ctx) for seed in range(200) for k in (kind, produce_kind)]
    actions = [d.params.get("action", "kill") for d in drawn]
    assert set(actions) == {"kill", "stop", "pause", "cut"} and actions.count("kill") > len(drawn) / 4
    holds = [d.params["hold_s"] for d in drawn if "hold_s" in d.params]
    assert 5.0 <= min(holds) < 10.0 < max(holds) <= 15.0
