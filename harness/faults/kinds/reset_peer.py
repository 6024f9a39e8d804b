"""reset_peer: connections on the target's links are reset (TCP RST) once data flows."""

from __future__ import annotations

from harness.faults.kinds.link_toxic import toxic_kind
from harness.faults.roles import Target
from harness.faults.specs import Direction, FaultSpec, Listeners, on_links


def reset_peer(
    target: Target, after_ms: int = 0, listener: Listeners = "client", direction: Direction = "both"
) -> FaultSpec:
    """Reset each connection ``after_ms`` after data starts to flow on it."""
    return on_links("reset_peer", target, listener, direction, timeout=after_ms)


KIND = toxic_kind("reset_peer", "reset_peer", "connections reset (RST) once data flows", reset_peer)
