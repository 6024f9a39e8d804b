"""limit_data: each connection on the target's links is closed after a number of bytes."""

from __future__ import annotations

from harness.faults.kinds.link_toxic import toxic_kind
from harness.faults.roles import Target
from harness.faults.specs import Direction, FaultSpec, Listeners, on_links


def limit_data(
    target: Target, max_bytes: int, listener: Listeners = "client", direction: Direction = "both"
) -> FaultSpec:
    """Close each connection once ``max_bytes`` have passed."""
    return on_links("limit_data", target, listener, direction, bytes=max_bytes)


KIND = toxic_kind("limit_data", "limit_data", "connections closed after a number of bytes", limit_data)
