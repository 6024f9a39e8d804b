"""crash_at_commit: the app is acted on (killed by default) while its offsets commit is on the wire.

The window that repeats a consume-transform-produce app's output is the one between handing
its outputs to Kafka and committing its input offsets; most apps spend milliseconds there, so a
kill on a clock or on a count of outputs almost never finds it. This kind makes the window
instead of waiting for it (``app_window``): a ``drop`` protocol toxic on every broker's links of
the app's listener swallows the app's ``after``-th request that commits its group's offsets
(``OffsetCommit`` for a plain or at-least-once app; ``AddOffsetsToTxn`` or ``TxnOffsetCommit``
for a transactional one, whose outputs are then in an open transaction), recognised on the
wire by the group id the app commits to. As soon as one is swallowed the app is killed (or
stopped, paused or cut off: ``action``), so it is caught with its outputs written and the commit
that would cover them not carried out; then it carries on. ``times`` such windows.

Why a drop and not a hold: a held commit reaches the broker late, after the kill, and while the
dead member is still in the group it commits the offsets anyway. The fault ends by itself
(``SelfEnding``): when its windows are done, or when the app finished before the next commit
came (the record then says how many windows it caught, and a pair's check or check-app's verdict
says the fault missed). The app needs no change and writes no ledger: the group id comes from
the app's handle when the fault fires.
"""

from __future__ import annotations

import random

from harness.faults.kinds.app_window import Window, draw_action, window_spec
from harness.faults.kinds.base import COMMIT, DrawContext, FaultContext, FaultKind, FaultSpec, Listeners
from harness.faults.roles import App, Target

# The requests that commit a group's input offsets, each naming the group.
COMMIT_APIS = ("OffsetCommit", "AddOffsetsToTxn", "TxnOffsetCommit")


def crash_at_commit(
    target: Target,
    after: int = 2,
    times: int = 1,
    action: str = "kill",
    hold_s: float = 10.0,
    restart_after_s: float = 1.0,
    listener: Listeners = "client",
) -> FaultSpec:
    """Act on the app (``action``: kill, stop, pause or cut, the last two for ``hold_s``) while its
    ``after``-th commit request from now (of its group's offsets) is swallowed on the wire; a
    killed or stopped app starts again ``restart_after_s`` later; ``times`` windows, each counted
    from the previous one. ``listener``: where the app reaches the brokers."""
    return window_spec(KIND, "to_broker", target, after, times, action, hold_s, restart_after_s, listener)


def start(ctx: FaultContext, spec: FaultSpec, brokers: list[int]) -> Window:
    assert isinstance(spec.target, App)
    group = ctx.apps[spec.target.name].group
    if not group:
        raise ValueError(f"crash_at_commit: {spec.target} commits to no consumer group the harness knows")
    catches = [{"api": api, "action": "drop", "group_id": group} for api in COMMIT_APIS]
    return Window(ctx, spec, catches, "commit").start()


def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
    """One of the apps (which commit to a group), caught at one of its next few commits, once or
    twice; killed mostly, else stopped, paused or cut off (``app_window.draw_action``)."""
    action, hold_s = draw_action(rng, ctx)
    return crash_at_commit(
        rng.choice(ctx.apps),
        after=rng.choice((1, 2, 3)),
        times=rng.choice((1, 1, 2)),
        action=action,
        hold_s=hold_s,
        listener=ctx.client_listener,
    )


KIND = FaultKind(
    "crash_at_commit",
    COMMIT,
    "kill (or stop, pause, cut off) an app while its offsets commit is swallowed on the wire; it carries on after",
    crash_at_commit,
    start,
    on_links=True,
    draw=draw,
)
