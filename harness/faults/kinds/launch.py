"""launch: start an app that was registered but not started (a replacement instance)."""

from __future__ import annotations

from harness.faults.kinds.base import OPERATION, FaultContext, FaultKind, FaultSpec, Heal
from harness.faults.roles import App


def launch(target: App) -> FaultSpec:
    """Start an app registered but not running yet (a replacement instance)."""
    return FaultSpec(KIND, target)


def start(ctx: FaultContext, spec: FaultSpec, brokers: list[int]) -> Heal:
    if not isinstance(spec.target, App):
        raise ValueError(f"launch applies to an app, not to {spec.target}")
    ctx.apps[spec.target.name].start()
    return lambda: None


KIND = FaultKind("launch", OPERATION, "an app started", launch, start, instant=True)
