"""The ledger: what one client process did, one CSV line per event, each line written before it can be wrong.

Every workload process appends to its own ledger file. Lines reach the file in ``write()``
calls of whole lines, so a SIGKILL can cut short at most the line being written; its torn
remainder fails the reader's checks (too few fields, or no end mark) and is ignored and
reported, never trusted. What is in the kernel survives the process being killed.

Two kinds of lines, by what losing one would mean:

- **written at once**: ``invoke`` (a chunk of sends at a time: ``invokes``), ``session``,
  ``txn-*``, ``offsets-commit``, ``offsets-committed`` and ``fenced``. When the call returns
  the lines are in the kernel, so the app hands records to the client only after their
  ``invoke`` lines are: a record in the log always has its ``invoke`` line (never a false phantom), and a
  ``txn-commit`` or ``offsets-commit`` line always precedes the commit it announces.
- **collected**: the outcomes ``ok``, ``fail`` and ``info``, which delivery callbacks
  report by the thousand. They are kept in memory and written in one ``write()`` by the
  app's next ``flush()`` (once per ``poll()``) or with the next line written at once, in the
  order they happened. A SIGKILL loses the collected ones: their sends are left without an
  outcome, indeterminate exactly like the sends still in flight, which the app bounds.

Columns (``COLUMNS``; empty means "does not apply"):

======== ==============================================================================
event    one of ``EVENTS`` (below)
time_us  wall clock, microseconds since the epoch (all processes share one machine clock);
         the ``invoke`` lines of one chunk share the time they were written
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

Fields are written as Python's ``csv`` module writes them (``QUOTE_MINIMAL``, ``\n`` line
ends): a field holding ``,``, ``"`` or a line feed is quoted, its quotes doubled.

Events: ``session`` (a producer instance is ready: detail = transactional.id or empty;
its time is when ``init_transactions`` returned, which fences older sessions of the same
transactional.id), ``invoke`` (a send is about to be made), ``ok`` (acknowledged: written
at that partition and offset), ``fail`` (definitely not written), ``info`` (outcome unknown:
timed out, or failed after an attempt the broker may have written), ``txn-begin``,
``txn-commit`` (commit requested), ``txn-committed``, ``txn-aborted``, ``txn-unknown``
(the commit or abort did not say how it ended), ``fenced`` (the session learnt it was fenced),
``offsets-commit`` (a consume-transform-produce app outside transactions is about to commit
its consumer offsets: what it consumed before this line is done as far as it knows; the
checker does not need it, a fault waits for it: harness.workloads.pipeline.BatchUncommitted),
``offsets-committed`` (that commit returned without error: an at-most-once app, which commits
a batch's offsets before it writes the batch's outputs, writes it; a crash after it loses the
batch. The checker does not need it either; a fault waits for it: ``BatchInHand``).

A send with no ``ok``/``fail``/``info`` line (the process died with it in flight, or
before its outcome was written) is indeterminate, exactly like ``info``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from itertools import repeat
from pathlib import Path

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
    "offsets-commit",
    "offsets-committed",  # last: the columnar reader keys events by their index here
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


def _text(value: str | None) -> str:
    """A text field as the csv module writes it."""
    if value is None:
        return ""
    if "," in value or '"' in value or "\n" in value:
        return '"' + value.replace('"', '""') + '"'
    return value


def _number(value: int | None) -> str:
    return "" if value is None else str(value)


class LedgerWriter:
    """Appends events to one process's ledger file: invoke, session, txn and fenced lines at
    once, outcome lines collected until ``flush()`` (see the module's doc)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Unbuffered, appending: every write() hands whole lines to the kernel.
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._collected: list[str] = []
        if os.fstat(self._fd).st_size == 0:
            self._collected.append(",".join(COLUMNS) + "\n")
            self.flush()

    def flush(self) -> None:
        """Write the collected lines in one write()."""
        if self._collected:
            data = memoryview("".join(self._collected).encode())
            self._collected.clear()
            while data:  # a regular file takes it all at once; a short write is finished, not lost
                data = data[os.write(self._fd, data) :]

    def _at_once(self, event: str, session: int, txn: int | None = None, detail: str | None = None) -> None:
        """Write an event of the session (after whatever was collected) before returning."""
        self._collected.append(f"{event},{now_us()},{session},,,,,,{_number(txn)},,{_text(detail)},.\n")
        self.flush()

    def session(self, session: int, transactional_id: str | None = None) -> None:
        self._at_once("session", session, detail=transactional_id)

    def invokes(
        self,
        session: int,
        ids: Sequence[int],
        topic: str,
        keys: Iterable[str | None] | None = None,
        txn: int | None = None,
        sources: Iterable[int | None] | None = None,
        partition: int | None = None,
    ) -> None:
        """The ``invoke`` lines of a chunk of sends (per send: its id, and its key and source
        when given), written with the collected lines in one write() before returning: only
        then may the records be handed to the client."""
        head = f"invoke,{now_us()},{session},"
        middle = f",{_text(topic)},{_number(partition)},,{_number(txn)},"
        key_fields = repeat("", len(ids)) if keys is None else map(_text, keys)
        source_fields = repeat("", len(ids)) if sources is None else map(_number, sources)
        lines = [f"{head}{i},{k}{middle}{s},,.\n" for i, k, s in zip(ids, key_fields, source_fields, strict=True)]
        self._collected += lines
        self.flush()

    def ok(self, record_id: int, partition: int, offset: int) -> None:
        self._collected.append(f"ok,{now_us()},,{record_id},,,{partition},{offset},,,,.\n")

    def fail(self, record_id: int, error: str) -> None:
        self._collected.append(f"fail,{now_us()},,{record_id},,,,,,,{_text(error)},.\n")

    def info(self, record_id: int, error: str) -> None:
        self._collected.append(f"info,{now_us()},,{record_id},,,,,,,{_text(error)},.\n")

    def txn(self, state: str, session: int, txn: int, detail: str | None = None) -> None:
        """``state``: begin, commit, committed, aborted or unknown."""
        self._at_once(f"txn-{state}", session, txn, detail)

    def fenced(self, session: int, error: str) -> None:
        self._at_once("fenced", session, detail=error)

    def offsets_commit(self, session: int) -> None:
        self._at_once("offsets-commit", session)

    def offsets_committed(self, session: int) -> None:
        self._at_once("offsets-committed", session)

    def close(self) -> None:
        self.flush()
        os.close(self._fd)
