"""crash_at_commit as data: it aims at an app, on that app's links, and refuses what it cannot
do; drawn, it aims at one of the side's apps. (On a real cluster: B1 and D1, whose checks ask
that every window was caught, and the check-app tests of the example apps.)"""

from __future__ import annotations

import random

import pytest

from harness.faults import App, Leader, Step, crash_at_commit, serial
from harness.faults.kinds import crash_at_commit as kind
from harness.faults.kinds.base import COMMIT, DrawContext


def test_it_aims_at_an_app_on_its_links_and_round_trips_as_json() -> None:
    spec = crash_at_commit(App("app-1"), after=3, times=2, listener="client2")
    assert (spec.kind, spec.target, spec.listeners, spec.direction) == (
        "crash_at_commit",
        App("app-1"),
        ("client2",),
        "to_broker",
    )
    assert spec.params == {"after": 3, "times": 2, "restart_after_s": 1.0}
    assert kind.KIND.family == COMMIT and kind.COMMIT_APIS == ("OffsetCommit", "AddOffsetsToTxn", "TxnOffsetCommit")
    (back,) = serial.steps(serial.to_json([Step(0.0, spec)], None), None)
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
