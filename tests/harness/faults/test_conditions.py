"""Conditions a step waits for: the k-th commit counts the commits of every incarnation,
transactions and offsets alike; ``Paused`` holds while the pause does, optionally a while into it."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import SimpleNamespace

from harness.faults import App, Committed, pause
from harness.faults.conditions import Paused
from harness.faults.inject import Injected
from harness.workloads.process import AppProcess

# An app incarnation that writes a ledger: two transactions asked to commit, one offsets commit.
_WRITER = """
import json, sys
from pathlib import Path
from harness.history.ledger import LedgerWriter
ledger = LedgerWriter(Path(json.loads(Path(sys.argv[1]).read_text())["ledger"]))
ledger.txn("begin", 2, 0)
ledger.txn("commit", 2, 0)
ledger.txn("committed", 2, 0)
ledger.txn("commit", 2, 1)
ledger.offsets_commit(2)
ledger.close()
"""


def test_commits_count_every_incarnation(tmp_path: Path) -> None:
    app = AppProcess(
        "transformer-1",
        tmp_path,
        lambda ledger, earlier: {"ledger": str(ledger)},
        lambda spec_path, spec: [sys.executable, "-c", _WRITER, str(spec_path)],
    )
    for _ in range(2):
        app.start()
        assert app.wait(30)
    assert app.commits() == 6
    faults = SimpleNamespace(apps={"transformer-1": app})
    assert Committed("transformer-1", 6).holds(faults)  # type: ignore[arg-type]
    assert not Committed("transformer-1", 7).holds(faults)  # type: ignore[arg-type]
    assert str(Committed("transformer-1", 7)) == "transformer-1 asked for commit 7"


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
