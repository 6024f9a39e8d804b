"""stop: a clean shutdown (SIGTERM) of a broker or an app; healing starts it again."""

from __future__ import annotations

import signal

from harness.faults.kinds.base import FaultSpec
from harness.faults.kinds.process import process_kind
from harness.faults.roles import Target


def stop(target: Target) -> FaultSpec:
    """SIGTERM, a clean shutdown; healing starts it again."""
    return FaultSpec(KIND, target)


KIND = process_kind(
    "stop", "SIGTERM (clean shutdown), then start again", stop, lambda c: c.stop(timeout=60), signal.SIGTERM
)
