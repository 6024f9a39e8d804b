"""blackhole: bytes on the target's links vanish while connections stay open (Toxiproxy's
``timeout`` toxic with timeout 0)."""

from __future__ import annotations

from harness.faults.kinds.link_toxic import toxic_kind
from harness.faults.roles import Target
from harness.faults.specs import Direction, FaultSpec, Listeners, on_links


def blackhole(target: Target, listener: Listeners = "client", direction: Direction = "both") -> FaultSpec:
    """Bytes vanish, connections stay open: requests time out rather than fail fast."""
    return on_links("blackhole", target, listener, direction, timeout=0)


KIND = toxic_kind("blackhole", "timeout", "bytes vanish, connections stay open", blackhole)
