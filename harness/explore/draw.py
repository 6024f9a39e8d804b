"""Fault schedules drawn from a seed: 1 to 4 events, each a fault of a chosen family drawn by
its kind (``FaultKind.draw``), fired at a time or once the workload has made some progress,
and healed after a duration around one of the clients' timeouts.

Everything comes from ``random.Random`` seeded with the exploration's seed and the run's
number alone, so the same seed gives the same schedules, byte for byte, and run n's schedule
does not depend on how many runs came before it.
"""

from __future__ import annotations

import random
from typing import Any

from harness.errors import HarnessError
from harness.explore.targets import Reach
from harness.faults import kinds, serial
from harness.faults.kinds import pause as pause_kind
from harness.faults.kinds.base import COMMIT, LINK, OPERATION, PROCESS, PROTOCOL, DrawContext, FaultKind, FaultSpec
from harness.faults.roles import App
from harness.faults.schedule import Step

FAMILIES = (LINK, PROCESS, PROTOCOL, OPERATION)
# A user's app (check-app --explore) is also drawn faults timed by its own commits.
USER_APP_FAMILIES = (*FAMILIES, COMMIT)
MAX_EVENTS = 4
# Durations by the timeout they are drawn around, with how often each is drawn: mostly short
# stalls, often around the consumer's session, now and then around a request or a transaction.
_SHORT_MS = (500, 3_000)
_BANDS = (("short", 4), ("session", 3), ("request", 2), ("transaction", 1))
# An app paused past its transaction timeout comes back a zombie, fenced as it should be; the
# harness's apps then stop for good. Pauses of apps stay below it.
_APP_PAUSE_SHARE = 0.8
_TIME_TRIGGERED = 1 / 3  # the share of events fired at a time rather than at some progress
_WHEN_SLACK_S = 30.0


def families(names: str, offered: tuple[str, ...] = FAMILIES) -> tuple[str, ...]:
    """``--faults``: comma-separated family names among ``offered``, or "all" of them."""
    chosen = offered if names.strip() == "all" else tuple(n.strip() for n in names.split(",") if n.strip())
    unknown = [n for n in chosen if n not in offered]
    if unknown or not chosen:
        raise HarnessError(
            f"--faults: unknown family {', '.join(unknown) or '(none)'}; one or more of {', '.join(offered)}, or all"
        )
    return chosen


def drawable(chosen: tuple[str, ...]) -> dict[str, list[FaultKind]]:
    """The kinds that can be drawn, by family, among ``chosen``."""
    found: dict[str, list[FaultKind]] = {}
    for kind in kinds.registry().values():
        if kind.draw is not None and kind.family in chosen:
            found.setdefault(kind.family, []).append(kind)
    return found


def rng_for(seed: int, run: int) -> random.Random:
    return random.Random(f"kafka-eos-harness/explore/{seed}/{run}")


def schedule(seed: int, run: int, reach: Reach, chosen: tuple[str, ...]) -> dict[str, Any]:
    """Run ``run``'s schedule document (``harness.faults.serial``) for exploration ``seed``."""
    rng = rng_for(seed, run)
    by_family = drawable(chosen)
    steps = [_event(rng, reach, by_family) for _ in range(rng.randint(1, MAX_EVENTS))]
    return serial.to_json(steps)


def _event(rng: random.Random, reach: Reach, by_family: dict[str, list[FaultKind]]) -> Step:
    kind = rng.choice(by_family[rng.choice(sorted(by_family))])
    assert kind.draw is not None
    fault = kind.draw(rng, reach.faults)
    # An operation has nothing to heal; a commit fault ends by itself once it caught its windows.
    duration = None if kind.instant or kind.family == COMMIT else _duration_s(rng, reach.faults, fault)
    if rng.random() < _TIME_TRIGGERED or not reach.triggers:
        return Step(round(rng.uniform(0, reach.span_s), 1), fault, duration)
    when = rng.choice(reach.triggers)(rng)
    return Step(0.0, fault, duration, when=when, when_timeout_s=float(round(2 * reach.span_s + _WHEN_SLACK_S)))


def _duration_s(rng: random.Random, ctx: DrawContext, fault: FaultSpec) -> float:
    band = rng.choices([b for b, _ in _BANDS], weights=[w for _, w in _BANDS])[0]
    ms = {
        "short": lambda: rng.uniform(*_SHORT_MS),
        "session": lambda: ctx.session_timeout_ms * rng.uniform(0.5, 1.5),
        "request": lambda: ctx.request_timeout_ms * rng.uniform(0.5, 1.2),
        "transaction": lambda: ctx.transaction_timeout_ms * rng.uniform(0.9, 1.1),
    }[band]()
    if fault.kind is pause_kind.KIND and isinstance(fault.target, App):
        ms = min(ms, ctx.transaction_timeout_ms * _APP_PAUSE_SHARE)
    return round(ms / 1000, 1)
