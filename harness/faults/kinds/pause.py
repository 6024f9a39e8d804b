"""pause: freeze a broker (cgroup freezer) or an app (SIGSTOP); healing thaws it."""

from __future__ import annotations

import signal

from harness.faults.kinds.base import FaultSpec
from harness.faults.kinds.process import process_kind
from harness.faults.roles import Target


def pause(target: Target) -> FaultSpec:
    """Freeze every process of the broker (cgroup freezer), or the app (SIGSTOP); healing thaws it."""
    return FaultSpec(KIND, target)


KIND = process_kind("pause", "frozen, then thawed", pause, lambda c: c.pause(), signal.SIGSTOP)
