"""bandwidth: the target's links carry at most a rate of bytes."""

from __future__ import annotations

import random

from harness.faults.kinds.base import Direction, DrawContext, FaultSpec, Listeners, on_links
from harness.faults.kinds.link_toxic import toxic_kind
from harness.faults.roles import Target


def bandwidth(
    target: Target, kb_per_s: int, listener: Listeners = "client", direction: Direction = "both"
) -> FaultSpec:
    """At most ``kb_per_s`` KB per second per connection."""
    return on_links(KIND, target, listener, direction, rate=kb_per_s)


def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
    kb_per_s = rng.choice((1, 10, 100))
    return bandwidth(ctx.broker(rng), kb_per_s, ctx.listener(rng), ctx.direction(rng))  # type: ignore[arg-type]


KIND = toxic_kind("bandwidth", "bandwidth", "links limited to a rate", bandwidth, draw, {"kb_per_s": "rate"})
