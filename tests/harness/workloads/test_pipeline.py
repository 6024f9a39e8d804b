"""``BatchUncommitted`` and ``BatchInHand``, the conditions a fault on a transformer waits for,
read from ledgers written by the ledger writer the apps use: the first holds from a batch's
``invoke`` lines to its commit request, in both modes, and only once the app has sent enough;
the second also from an at-most-once app's ``offsets-committed`` line to its next outputs."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.history import ledger as ledger_module
from harness.history.ledger import LedgerWriter
from harness.history.records import make_id
from harness.workloads import pipeline
from harness.workloads.pipeline import BatchInHand, BatchUncommitted, transformer
from harness.workloads.process import AppProcess

APP = transformer(1)
SESSION = 2


class _App:
    """The part of an app's handle the condition reads: its ledgers, newest last."""

    def __init__(self, ledgers: list[Path]) -> None:
        self._ledgers = ledgers

    def ledgers(self) -> list[Path]:
        return [p for p in self._ledgers if p.exists()]

    sent = AppProcess.sent  # the runner's own count, over these ledgers


def _faults(*ledgers: Path) -> Any:
    return SimpleNamespace(apps={APP: _App(list(ledgers))})


def _batch(ledger: LedgerWriter, first: int, txn: int | None = None) -> None:
    ids = [make_id(SESSION, seq) for seq in range(first, first + 50)]
    ledger.invokes(SESSION, ids, "out", txn=txn, sources=[make_id(1, seq) for seq in range(first, first + 50)])
    for offset, record_id in enumerate(ids, start=first):
        ledger.ok(record_id, 0, offset)
    ledger.flush()


def test_plain_app_holds_a_batch_from_its_sends_to_its_offsets_commit(tmp_path: Path) -> None:
    path = tmp_path / f"{APP}.csv"
    faults, condition = _faults(path), BatchUncommitted(APP)
    assert not condition.holds(faults)  # not started
    ledger = LedgerWriter(path)
    ledger.session(SESSION)
    assert not condition.holds(faults)
    _batch(ledger, 0)
    assert condition.holds(faults)  # acknowledged, offsets not committed
    ledger.offsets_commit(SESSION)
    assert not condition.holds(faults)
    _batch(ledger, 50)
    assert condition.holds(faults)


def test_transactional_app_holds_a_batch_until_its_commit_request(tmp_path: Path) -> None:
    path = tmp_path / f"{APP}.csv"
    faults, condition = _faults(path), BatchUncommitted(APP)
    ledger = LedgerWriter(path)
    ledger.session(SESSION, "app")
    ledger.txn("begin", SESSION, 0)
    assert not condition.holds(faults)  # nothing sent yet
    _batch(ledger, 0, txn=0)
    assert condition.holds(faults)
    ledger.txn("commit", SESSION, 0)
    assert not condition.holds(faults)
    ledger.txn("committed", SESSION, 0)
    assert not condition.holds(faults)


def test_it_waits_for_the_sends_asked_for_over_every_incarnation(tmp_path: Path) -> None:
    first, second = tmp_path / f"{APP}.csv", tmp_path / f"{APP}.2.csv"
    faults, condition = _faults(first, second), BatchUncommitted(APP, after=100)
    ledger = LedgerWriter(first)
    ledger.session(SESSION)
    _batch(ledger, 0)
    assert not condition.holds(faults)  # 50 sent
    ledger.close()  # killed; the restart carries on in its own ledger
    restarted = LedgerWriter(second)
    restarted.session(SESSION)
    assert not condition.holds(faults)  # the newest ledger has no batch in hand
    _batch(restarted, 50)
    assert condition.holds(faults)


def test_a_line_still_being_written_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / f"{APP}.csv"
    ledger = LedgerWriter(path)
    ledger.session(SESSION)
    _batch(ledger, 0)
    ledger.close()
    with path.open("ab") as torn:
        torn.write(b"offsets-com")
    assert BatchUncommitted(APP).holds(_faults(path))


def test_an_at_most_once_app_holds_a_batch_from_its_committed_offsets_to_its_outputs(tmp_path: Path) -> None:
    path = tmp_path / f"{APP}.csv"
    faults = _faults(path)
    in_hand, uncommitted = BatchInHand(APP), BatchUncommitted(APP)
    ledger = LedgerWriter(path)
    ledger.session(SESSION)
    ledger.offsets_commit(SESSION)
    assert not in_hand.holds(faults)  # the commit was asked for, not yet answered
    ledger.offsets_committed(SESSION)
    assert in_hand.holds(faults) and not uncommitted.holds(faults)  # committed, nothing written
    _batch(ledger, 0)
    ledger.offsets_commit(SESSION)  # the next batch's commit, right after the outputs
    assert not in_hand.holds(faults)
    ledger.offsets_committed(SESSION)
    assert in_hand.holds(faults)


def test_batch_in_hand_holds_where_batch_uncommitted_does_for_a_plain_app(tmp_path: Path) -> None:
    path = tmp_path / f"{APP}.csv"
    faults, condition = _faults(path), BatchInHand(APP, after=50)
    ledger = LedgerWriter(path)
    ledger.session(SESSION)
    _batch(ledger, 0)
    assert condition.holds(faults)
    ledger.offsets_commit(SESSION)
    assert not condition.holds(faults)


def test_it_can_wait_for_a_batch_held_for_a_while(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / f"{APP}.csv"
    faults, condition = _faults(path), BatchUncommitted(APP, held_ms=300)
    ledger = LedgerWriter(path)
    ledger.session(SESSION, "app")
    written = ledger_module.now_us()
    _batch(ledger, 0, txn=0)
    monkeypatch.setattr(pipeline.ledger, "now_us", lambda: written + 200_000)
    assert not condition.holds(faults)  # the app may still be adding its offsets
    monkeypatch.setattr(pipeline.ledger, "now_us", lambda: written + 400_000)
    assert condition.holds(faults)
