"""limit_data: each connection on the target's links is closed after a number of bytes."""

from __future__ import annotations

import random

from harness.faults.kinds.base import Direction, DrawContext, FaultSpec, Listeners, on_links
from harness.faults.kinds.link_toxic import toxic_kind
from harness.faults.roles import Target


def limit_data(
    target: Target, max_bytes: int, listener: Listeners = "client", direction: Direction = "both"
) -> FaultSpec:
    """Close each connection once ``max_bytes`` have passed."""
    return on_links(KIND, target, listener, direction, bytes=max_bytes)


def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
    max_bytes = rng.choice((1_000, 10_000, 100_000, 1_000_000))
    return limit_data(ctx.broker(rng), max_bytes, ctx.listener(rng), ctx.direction(rng))  # type: ignore[arg-type]


KIND = toxic_kind(
    "limit_data",
    "limit_data",
    "connections closed after a number of bytes",
    limit_data,
    draw,
    {"max_bytes": "bytes"},
)
