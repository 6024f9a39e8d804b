"""``Paused``: what a replacement instance waits for, optionally a while into the stall."""

from __future__ import annotations

import time
from types import SimpleNamespace

from harness.faults import App, pause
from harness.faults.conditions import Paused
from harness.faults.inject import Injected


def _faults(*log: Injected) -> SimpleNamespace:
    return SimpleNamespace(log=list(log))


def test_paused_holds_while_the_pause_does_and_for_as_long_as_asked() -> None:
    stalled = Injected(pause(App("transformer-1")), [], time.time() - 5, lambda: None)
    faults = _faults(stalled)
    assert Paused("transformer-1").holds(faults)  # type: ignore[arg-type]
    assert Paused("transformer-1", for_s=4).holds(faults)  # type: ignore[arg-type]
    assert not Paused("transformer-1", for_s=10).holds(faults)  # type: ignore[arg-type]
    assert not Paused("transformer-2").holds(faults)  # type: ignore[arg-type]
    stalled.healed_at = time.time()
    assert not Paused("transformer-1").holds(faults)  # type: ignore[arg-type]
    assert str(Paused("transformer-1", for_s=16)) == "transformer-1 paused for 16s"
