"""Process faults: a signal to a broker's container or to an app's current incarnation, and how
each comes back. Each process kind module builds its kind with ``process_kind``."""

from __future__ import annotations

import random
import signal
from collections.abc import Callable
from typing import Any

from harness.faults.kinds.base import PROCESS, DrawContext, FaultContext, FaultKind, FaultSpec, Heal
from harness.faults.roles import App, Target
from harness.waits import wait_until


def process_kind(
    name: str,
    summary: str,
    make: Callable[[Target], FaultSpec],
    on_container: Callable[[Any], None],
    app_signal: signal.Signals | None,
) -> FaultKind:
    """A kind that does ``on_container`` to each target broker's container (healed by starting
    or thawing it), or sends ``app_signal`` to an app (healed by SIGCONT after a pause, or by
    the app's next incarnation); ``app_signal`` None: brokers only. Drawn against one broker
    role or, when it applies to apps, an app."""

    def start(ctx: FaultContext, spec: FaultSpec, brokers: list[int]) -> Heal:
        if isinstance(spec.target, App):
            if app_signal is None:
                raise ValueError(f"{name} does not apply to an app")
            return _signal_app(ctx, spec.target.name, app_signal)
        # A broker another fault holds down already (two drawn steps overlapping) is left to that
        # fault: Docker refuses to kill or pause a container that is not running, and bringing it
        # back is the other fault's heal.
        acted = [(b, c) for b, c in ((b, ctx.cluster.broker(b).docker()) for b in brokers) if _running(c)]
        for _, container in acted:
            on_container(container)

        def undo() -> None:
            for _, container in acted:
                revive(container)
            wait_registered(ctx, [b for b, _ in acted])

        return undo

    def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
        return make(ctx.target(rng) if app_signal is not None else ctx.broker(rng))

    return FaultKind(name, PROCESS, summary, make, start, draw=draw)


def _signal_app(ctx: FaultContext, name: str, signum: signal.Signals) -> Heal:
    app = ctx.apps[name]
    app.signal(signum)
    if signum == signal.SIGSTOP:
        return lambda: app.signal(signal.SIGCONT)
    return app.restart  # a killed or stopped app resumes as its next incarnation


def _running(container: Any) -> bool:
    container.reload()
    return bool(container.status == "running")


def revive(container: Any) -> bool:
    """Thaw or start a broker's container if it is not running; True if it had to start."""
    container.reload()
    if container.status == "paused":
        container.unpause()
    elif container.status != "running":
        container.start()
        return True
    return False


def wait_registered(ctx: FaultContext, brokers: list[int], timeout_s: float = 90) -> None:
    wait_until(
        ctx.cluster.registered_brokers,
        lambda ids: set(brokers) <= set(ids),
        timeout_s,
        f"brokers {brokers} registered again",
    )
