"""slicer: the target's links deliver bytes in small slices with delays between them."""

from __future__ import annotations

import random

from harness.faults.kinds.base import Direction, DrawContext, FaultSpec, Listeners, on_links
from harness.faults.kinds.link_toxic import toxic_kind
from harness.faults.roles import Target


def slicer(
    target: Target,
    average_size: int = 64,
    size_variation: int = 32,
    delay_us: int = 1000,
    listener: Listeners = "client",
    direction: Direction = "both",
) -> FaultSpec:
    """Data cut into slices of about ``average_size`` bytes, ``delay_us`` apart."""
    return on_links(
        KIND, target, listener, direction, average_size=average_size, size_variation=size_variation, delay=delay_us
    )


def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
    size = rng.choice((16, 64, 512))
    return slicer(
        ctx.broker(rng),
        size,
        size // 2,
        rng.choice((100, 1000, 10_000)),
        ctx.listener(rng),
        ctx.direction(rng),  # type: ignore[arg-type]
    )


KIND = toxic_kind("slicer", "slicer", "bytes delivered in small delayed slices", slicer, draw, {"delay_us": "delay"})
