"""latency: bytes on the target's links arrive late (Toxiproxy's ``latency`` toxic)."""

from __future__ import annotations

import random

from harness.faults.kinds.base import Direction, DrawContext, FaultSpec, Listeners, on_links
from harness.faults.kinds.link_toxic import toxic_kind
from harness.faults.roles import Target


def latency(
    target: Target,
    ms: int,
    jitter_ms: int = 0,
    listener: Listeners = "client",
    direction: Direction = "both",
    toxicity: float = 1.0,
) -> FaultSpec:
    """Bytes arrive ``ms`` (+-``jitter_ms``) late. Removing the toxic lets what it holds through at
    once; bytes a client sent before it closed the connection are still delivered, late."""
    return on_links(KIND, target, listener, direction, toxicity, latency=ms, jitter=jitter_ms)


def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
    return latency(
        ctx.broker(rng),
        ctx.around_timeout_ms(rng),
        jitter_ms=rng.choice((0, 0, 100, 1000)),
        listener=ctx.listener(rng),
        direction=ctx.direction(rng),  # type: ignore[arg-type]
        toxicity=rng.choice((1.0, 1.0, 0.5)),
    )


KIND = toxic_kind(
    "latency", "latency", "bytes arrive late", latency, draw, params_as={"ms": "latency", "jitter_ms": "jitter"}
)
