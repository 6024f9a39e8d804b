"""restart: a clean bounce of a broker; healing waits until it is registered again."""

from __future__ import annotations

from harness.faults.kinds.base import FaultSpec
from harness.faults.kinds.process import process_kind
from harness.faults.roles import Target


def restart(target: Target) -> FaultSpec:
    """A clean bounce: stop then start at once; healing waits until it is registered."""
    return FaultSpec(KIND, target)


KIND = process_kind("restart", "stopped and started at once", restart, lambda c: c.restart(timeout=60), None)
