"""reset_peer: connections on the target's links are reset (TCP RST) once data flows."""

from __future__ import annotations

import random

from harness.faults.kinds.base import Direction, DrawContext, FaultSpec, Listeners, on_links
from harness.faults.kinds.link_toxic import toxic_kind
from harness.faults.roles import Target


def reset_peer(
    target: Target, after_ms: int = 0, listener: Listeners = "client", direction: Direction = "both"
) -> FaultSpec:
    """Reset each connection ``after_ms`` after data starts to flow on it."""
    return on_links(KIND, target, listener, direction, timeout=after_ms)


def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
    after_ms = rng.choice((0, 100, 1000, 5000))
    return reset_peer(ctx.broker(rng), after_ms, ctx.listener(rng), ctx.direction(rng))  # type: ignore[arg-type]


KIND = toxic_kind(
    "reset_peer", "reset_peer", "connections reset (RST) once data flows", reset_peer, draw, {"after_ms": "timeout"}
)
