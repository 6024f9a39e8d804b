"""crash_in_produce: the app is acted on (killed by default) while its outputs are on the wire.

The other half of the window between an app's outputs and its commit: its ``Produce`` requests
in flight, not yet acknowledged. A ``hold`` protocol toxic on every broker's links of the app's
listener holds the app's ``after``-th ``Produce`` request from now, and every one after it, for
``HELD_MS``; as soon as one is held the app is killed (or stopped, paused or cut off: ``action``,
``app_window``), so the outputs reach the brokers late, from an incarnation that no longer
exists and never committed the inputs they came from (the late copies go on before the next
incarnation starts: the toxics are gone before it sends anything). An at-least-once app reads
those inputs again when it restarts and writes them twice; a transactional app's late outputs
belong to a transaction its next incarnation aborts. What the brokers answered to each late copy
is in the fault's record.

The toxics tell requests apart by connection, not by process: with several instances on the
app's links (``check-app --instances``) the Produce held may be another instance's; each hit
names the client id that sent it.
"""

from __future__ import annotations

import random

from harness.faults.kinds.app_window import Window, draw_action, window_spec
from harness.faults.kinds.base import COMMIT, DrawContext, FaultContext, FaultKind, FaultSpec, Listeners
from harness.faults.roles import App, Target

# How long a held Produce waits: well past the kill, so the outputs land from a dead incarnation.
HELD_MS = 3_000


def crash_in_produce(
    target: Target,
    after: int = 2,
    times: int = 1,
    action: str = "kill",
    hold_s: float = 10.0,
    restart_after_s: float = 1.0,
    listener: Listeners = "client",
) -> FaultSpec:
    """Act on the app (``action``: kill, stop, pause or cut, the last two for ``hold_s``) while its
    ``after``-th Produce request from now is held on the wire (``HELD_MS``); a killed or stopped
    app starts again ``restart_after_s`` later; ``times`` windows, each counted from the
    previous one. ``listener``: where the app reaches the brokers."""
    return window_spec(KIND, "both", target, after, times, action, hold_s, restart_after_s, listener)


def start(ctx: FaultContext, spec: FaultSpec, brokers: list[int]) -> Window:
    assert isinstance(spec.target, App)
    return Window(ctx, spec, [{"api": "Produce", "action": "hold", "duration_ms": HELD_MS}], "produce request").start()


def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
    """One of the apps, caught at one of its next few Produce requests (the first one: often
    before it has written anything), once or twice; the action as ``app_window.draw_action``."""
    action, hold_s = draw_action(rng, ctx)
    return crash_in_produce(
        rng.choice(ctx.apps),
        after=rng.choice((2, 3, 5, 8)),
        times=rng.choice((1, 1, 2)),
        action=action,
        hold_s=hold_s,
        listener=ctx.client_listener,
    )


KIND = FaultKind(
    "crash_in_produce",
    COMMIT,
    "kill (or stop, pause, cut off) an app while its Produce request is held on the wire; it carries on after",
    crash_in_produce,
    start,
    on_links=True,
    draw=draw,
)
