"""elect_preferred: move a partition's leadership back to its preferred (first) replica."""

from __future__ import annotations

import random

from harness.faults.kinds.base import OPERATION, DrawContext, FaultContext, FaultKind, FaultSpec, Heal
from harness.faults.plan import Topic, named
from harness.faults.roles import Replicas


def elect_preferred(topic: str | Topic, partition: int = 0) -> FaultSpec:
    """Move leadership back to the preferred (first) replica, as an operator would."""
    return FaultSpec(KIND, Replicas(topic, partition))


def start(ctx: FaultContext, spec: FaultSpec, brokers: list[int]) -> Heal:
    assert isinstance(spec.target, Replicas)
    ctx.cluster.elect_preferred_leader(named(spec.target.topic), spec.target.partition)
    return lambda: None


def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
    return elect_preferred(*rng.choice(ctx.partitions))


KIND = FaultKind(
    "elect_preferred", OPERATION, "a preferred leader election", elect_preferred, start, instant=True, draw=draw
)
