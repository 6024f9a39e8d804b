"""The ledger: what one client process did, written as it happens, one CSV line per event.

Every workload process appends to its own ledger file. A line is one ``write()`` of a
complete line on a line-buffered file, so a SIGKILL loses at most the line being written;
its torn remainder fails the reader's checks (too few fields, or no end mark) and is
ignored and reported, never trusted.

Columns (``COLUMNS``; empty means "does not apply"):

======== ==============================================================================
event    one of ``EVENTS`` (below)
time_us  wall clock, microseconds since the epoch (all processes share one machine clock)
session  producer session: one application producer; an app restarted after a crash
         continues its session in a new ledger file (ids and transaction numbers carry on)
id       record id: ``session << 32 | seq`` (``harness.history.records``); unique across a run
key      record key as sent
topic    topic the record was sent to (on ``invoke``; its ``ok`` is in the same topic)
partition intended partition on ``invoke`` (empty: the partitioner chose), actual on ``ok``
offset   offset the broker acknowledged
txn      transaction number within the session
source   for a consume-transform-produce output: the id of the input record it came from
detail   error name, transactional.id, or other text
end      always ``.``: a line without it was cut short
======== ==============================================================================

Events: ``session`` (a producer instance is ready: detail = transactional.id or empty;
its time is when ``init_transactions`` returned, which fences older sessions of the same
transactional.id), ``invoke`` (a send is about to be made), ``ok`` (acknowledged: written
at that partition and offset), ``fail`` (definitely not written), ``info`` (outcome unknown:
timed out, or failed after an attempt the broker may have written), ``txn-begin``,
``txn-commit`` (commit requested), ``txn-committed``, ``txn-aborted``, ``txn-unknown``
(the commit or abort did not say how it ended), ``fenced`` (the session learnt it was fenced).

A send with no ``ok``/``fail``/``info`` line (the process died with it in flight) is
indeterminate, exactly like ``info``.
"""

from __future__ import annotations

import csv
import time
from pathlib import Path
from typing import IO

COLUMNS = ("event", "time_us", "session", "id", "key", "topic", "partition", "offset", "txn", "source", "detail", "end")
INT_COLUMNS = ("time_us", "session", "id", "partition", "offset", "txn", "source")  # the rest are text
END_MARK = "."
EVENTS = (
    "session",
    "invoke",
    "ok",
    "fail",
    "info",
    "txn-begin",
    "txn-commit",
    "txn-committed",
    "txn-aborted",
    "txn-unknown",
    "fenced",
)


def incarnation(path: Path) -> tuple[str, int]:
    """(app, incarnation) of a ledger file: ``producer-1.csv`` is the first incarnation of
    producer-1, ``producer-1.2.csv`` its second (harness.workloads.process names them so)."""
    app, _, n = path.stem.rpartition(".")
    return (app, int(n)) if app and n.isdigit() else (path.stem, 1)


def in_order(paths: list[Path]) -> list[Path]:
    """Ledger files app by app, each app's incarnations in the order they ran: the order a
    history is loaded in, where a later attempt at a send follows an earlier one."""
    return sorted(paths, key=incarnation)


def now_us() -> int:
    return time.time_ns() // 1000


class LedgerWriter:
    """Appends events to one process's ledger file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not path.exists() or path.stat().st_size == 0
        # Line-buffered: each line reaches the kernel when it is complete, and what the
        # kernel has survives the process being killed.
        self._file: IO[str] = path.open("a", buffering=1, encoding="utf-8", newline="")
        self._csv = csv.writer(self._file, lineterminator="\n")
        if fresh:
            self._csv.writerow(COLUMNS)

    def _row(
        self,
        event: str,
        *,
        session: int | None = None,
        id: int | None = None,
        key: str | None = None,
        topic: str | None = None,
        partition: int | None = None,
        offset: int | None = None,
        txn: int | None = None,
        source: int | None = None,
        detail: str | None = None,
    ) -> None:
        fields = (session, id, key, topic, partition, offset, txn, source, detail)
        self._csv.writerow((event, now_us(), *("" if f is None else f for f in fields), END_MARK))

    def session(self, session: int, transactional_id: str | None = None) -> None:
        self._row("session", session=session, detail=transactional_id)

    def invoke(
        self,
        session: int,
        record_id: int,
        topic: str,
        key: str | None = None,
        partition: int | None = None,
        txn: int | None = None,
        source: int | None = None,
    ) -> None:
        self._row(
            "invoke", session=session, id=record_id, key=key, topic=topic, partition=partition, txn=txn, source=source
        )

    def ok(self, record_id: int, partition: int, offset: int) -> None:
        self._row("ok", id=record_id, partition=partition, offset=offset)

    def fail(self, record_id: int, error: str) -> None:
        self._row("fail", id=record_id, detail=error)

    def info(self, record_id: int, error: str) -> None:
        self._row("info", id=record_id, detail=error)

    def txn(self, state: str, session: int, txn: int, detail: str | None = None) -> None:
        """``state``: begin, commit, committed, aborted or unknown."""
        self._row(f"txn-{state}", session=session, txn=txn, detail=detail)

    def fenced(self, session: int, error: str) -> None:
        self._row("fenced", session=session, detail=error)

    def close(self) -> None:
        self._file.close()
