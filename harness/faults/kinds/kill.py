"""kill: SIGKILL a broker's JVM (healing starts the same container, same disk) or an app
(healing starts its next incarnation)."""

from __future__ import annotations

import signal

from harness.faults.kinds.base import FaultSpec
from harness.faults.kinds.process import process_kind
from harness.faults.roles import Target


def kill(target: Target) -> FaultSpec:
    """SIGKILL the broker's JVM or the app; healing starts it again."""
    return FaultSpec(KIND, target)


KIND = process_kind("kill", "SIGKILL, then start again", kill, lambda c: c.kill(signal="SIGKILL"), signal.SIGKILL)
