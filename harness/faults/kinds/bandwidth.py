"""bandwidth: the target's links carry at most a rate of bytes."""

from __future__ import annotations

from harness.faults.kinds.link_toxic import toxic_kind
from harness.faults.roles import Target
from harness.faults.specs import Direction, FaultSpec, Listeners, on_links


def bandwidth(
    target: Target, kb_per_s: int, listener: Listeners = "client", direction: Direction = "both"
) -> FaultSpec:
    """At most ``kb_per_s`` KB per second per connection."""
    return on_links("bandwidth", target, listener, direction, rate=kb_per_s)


KIND = toxic_kind("bandwidth", "bandwidth", "links limited to a rate", bandwidth)
