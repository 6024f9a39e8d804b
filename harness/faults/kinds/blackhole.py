"""blackhole: bytes on the target's links vanish while connections stay open (Toxiproxy's
``timeout`` toxic with timeout 0)."""

from __future__ import annotations

import random

from harness.faults.kinds.base import Direction, DrawContext, FaultSpec, Listeners, on_links
from harness.faults.kinds.link_toxic import toxic_kind
from harness.faults.roles import Target


def blackhole(target: Target, listener: Listeners = "client", direction: Direction = "both") -> FaultSpec:
    """Bytes vanish, connections stay open: requests time out rather than fail fast."""
    return on_links(KIND, target, listener, direction, timeout=0)


def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
    return blackhole(ctx.broker(rng), ctx.listener(rng), ctx.direction(rng))  # type: ignore[arg-type]


KIND = toxic_kind("blackhole", "timeout", "bytes vanish, connections stay open", blackhole, draw)
