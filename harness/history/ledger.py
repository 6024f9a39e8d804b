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
         the ``invoke`` lines of one chunk share the time they were written, and the ``ok``
         lines collected together the time they were written (after the poll that served them)
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

**Reading.** Every reader applies the rules below (``refusal``; ``INTEGER`` and ``is_header``
for readers that are not Python): a file is a ledger when its first line is the header
``COLUMNS``; a line is used when it has every column, ends with the end mark, names one of
``EVENTS``, and each integer field is empty or ``INTEGER`` (an optional ``-`` and ASCII digits,
no blank, within int64: an output of an input without a harness id names source -2). Empty
lines are skipped; every other line is ignored and counted, never trusted. ``read`` and
``read_piece`` read a file, or a piece of one, by these rules into columns (the checker's
loader, the report, the benchmarks); ``count`` and ``last_of`` look at raw bytes for the
runner's quick questions (how many sends so far, where a batch stands).
"""

from __future__ import annotations

import csv
import os
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where a ledger is read: the apps only write, and start faster without them
    import numpy as np
    import pyarrow as pa

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
        # Acknowledgements as delivery callbacks report them, made into ``ok`` lines all at once
        # (one clock read) before anything else is collected or written: per record, a callback
        # only appends a tuple, the least an app's hot path can do.
        self._acks: list[tuple[int, int, int]] = []
        if os.fstat(self._fd).st_size == 0:
            self._collected.append(",".join(COLUMNS) + "\n")
            self.flush()

    def _stamp_acks(self) -> None:
        if self._acks:
            at = now_us()
            self._collected += [f"ok,{at},,{i},,,{p},{o},,,,.\n" for i, p, o in self._acks]
            self._acks.clear()

    def flush(self) -> None:
        """Write the collected lines in one write()."""
        self._stamp_acks()
        if self._collected:
            data = memoryview("".join(self._collected).encode())
            self._collected.clear()
            while data:  # a regular file takes it all at once; a short write is finished, not lost
                data = data[os.write(self._fd, data) :]

    def _at_once(self, event: str, session: int, txn: int | None = None, detail: str | None = None) -> None:
        """Write an event of the session (after whatever was collected) before returning."""
        self._stamp_acks()
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
        self._stamp_acks()
        self._collected += lines
        self.flush()

    def ok(self, record_id: int, partition: int, offset: int) -> None:
        """Timed when it is written: acknowledgements collected together share one time."""
        self._acks.append((record_id, partition, offset))

    def fail(self, record_id: int, error: str) -> None:
        self._stamp_acks()
        self._collected.append(f"fail,{now_us()},,{record_id},,,,,,,{_text(error)},.\n")

    def info(self, record_id: int, error: str) -> None:
        self._stamp_acks()
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


# --- reading -------------------------------------------------------------------------------

INTEGER = "-?[0-9]+"  # a non-empty integer field, whole; its value must also fit int64
_INTEGER = re.compile(INTEGER)
_INT64 = range(-(1 << 63), 1 << 63)
WRITTEN_AT_ONCE = ("session", "invoke", "txn-begin", "txn-commit", "txn-committed", "txn-aborted", "txn-unknown",
                   "fenced", "offsets-commit", "offsets-committed")  # fmt: skip
PIECE_BYTES = 16 << 20  # bytes read at a time: bounds memory; many pieces keep several cores busy
_SHOWN = 60  # characters of a refused line shown in its reason


def is_header(line: bytes | str) -> bool:
    """Whether a file's first line is the ledger header (as the csv module reads it: quoted or not)."""
    text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
    return tuple(next(csv.reader([text]), [])) == COLUMNS


def is_integer(text: str) -> bool:
    """Whether a non-empty integer field is well formed: ``INTEGER``, within int64."""
    return _INTEGER.fullmatch(text) is not None and int(text) in _INT64


def refusal(row: Sequence[str]) -> str | None:
    """Why a line (its fields, as the csv module splits it) is ignored; None when it is used."""
    if len(row) != len(COLUMNS) or row[-1] != END_MARK:
        return "cut short (no end mark)"
    if row[0] not in EVENTS:
        return f"unknown event {row[0][:20]!r}"
    bad = [c for c, v in zip(COLUMNS, row, strict=True) if c in INT_COLUMNS and v and not is_integer(v)]
    return f"{bad[0]} is not an integer" if bad else None


def count(data: bytes, event: str) -> int:
    """Whole lines of ``event`` in a ledger's bytes (a line still being written is not one yet)."""
    return data.count(b"\n" + event.encode() + b",", 0, data.rfind(b"\n") + 1)  # up to the last line end


def last_of(tail: bytes, events: Sequence[str]) -> tuple[str, int] | None:
    """The event and time (``time_us``) of the last whole line among ``events`` in the tail of a ledger
    (its first line may be cut by where the tail starts, its last still being written: neither
    counts); None if there is none."""
    wanted = tuple(e.encode() + b"," for e in events)
    for line in reversed(tail.split(b"\n")[1:-1]):
        if line.startswith(wanted) and line.endswith(b"," + END_MARK.encode()):
            event, time_us = line.split(b",", 2)[:2]  # neither field is ever quoted
            return event.decode(), int(time_us)
    return None


@dataclass
class Lines:
    """What a ledger (or a piece of one) says: its lines as columns, and what was ignored.

    ``table`` holds every line with the right number of fields, in file order: text columns as
    strings ("" when empty), ``INT_COLUMNS`` as int64 (null when empty); ``event`` is each row's
    index into ``EVENTS``, -1 for a row that is not used (no end mark, unknown event). ``invalid``
    says why each refused line was (the lines not in ``table``); ``dropped`` counts the rows of
    ``table`` with event -1.
    """

    table: pa.Table
    event: np.ndarray
    invalid: list[str] = field(default_factory=list)
    dropped: int = 0

    @property
    def ignored(self) -> int:
        return len(self.invalid) + self.dropped

    def reasons(self, name: str) -> list[str]:
        return reasons(name, self.invalid, self.dropped)

    def used(self) -> tuple[pa.Table, np.ndarray]:
        """Only the rows used, and their events."""
        import numpy as np

        if not self.dropped:
            return self.table, self.event
        keep = np.flatnonzero(self.event >= 0)
        return self.table.take(keep), self.event[keep]


def reasons(name: str, invalid: list[str], dropped: int) -> list[str]:
    """Why lines of ledger ``name`` were ignored: each refused line's reason, then the dropped ones at once."""
    return invalid + ([f"{name}: {dropped} line(s) without the end mark or with an unknown event"] if dropped else [])


def not_a_ledger(path: Path) -> str | None:
    """Why a file is no ledger (its first line is not the header: one ignored line), or None. An
    empty file is a ledger with nothing written yet."""
    with path.open("rb") as f:
        header = f.readline()
    if not header or is_header(header):
        return None
    return f"not a ledger (header is {header.decode('utf-8', errors='replace').strip()[:_SHOWN]!r})"


def pieces(path: Path, piece_bytes: int | None = None) -> Iterator[tuple[int, int]]:
    """(start, end) of pieces of whole lines after the header (the last line may be torn); only their
    ends are read here."""
    with path.open("rb") as f:
        header = len(f.readline())
    return _pieces(path, header, piece_bytes or PIECE_BYTES)


def _pieces(path: Path, start: int, piece_bytes: int) -> Iterator[tuple[int, int]]:
    with path.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        while start < size:
            end = min(start + piece_bytes, size)
            f.seek(end)
            while end < size:  # on to the end of the line the piece stops in
                window = f.read(1 << 16)
                newline = window.find(b"\n")
                end = min(end + (newline + 1 if newline >= 0 else len(window)), size)
                if newline >= 0 or not window:
                    break
            yield start, end
            start = end


def read_piece(path: Path, start: int, end: int, columns: Sequence[str] = COLUMNS) -> Lines:
    """Bytes ``start:end`` of a ledger (whole lines after the header) as ``Lines`` of ``columns``
    (``event`` and ``end`` are always read). Thread-safe: pieces may be read side by side."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    name = path.stem
    invalid: list[str] = []
    wanted = [c for c in COLUMNS if c in columns or c in ("event", "end")]

    def skip(row: pacsv.InvalidRow) -> str:
        shown = row.text[:_SHOWN]
        invalid.append(f"{name}: line cut short ({row.actual_columns} of {row.expected_columns} fields): {shown!r}")
        return "skip"

    def read(data: pa.Buffer) -> pa.Table:
        # The CSV reader's own int64 parsing is fast, but lets blanks around digits and hexadecimal
        # ("0x1f") pass. A piece with neither a blank at a field's edge nor "0x" anywhere (nearly
        # every piece) can have no such field; any other one has its integers read as text and
        # cast, which refuses all but INTEGER, hexadecimal aside: that is matched to INTEGER first.
        # (ArrowInvalid: the piece takes the slow path.)
        hexadecimal, loose = _loose(np.frombuffer(data, np.uint8))
        types = {c: pa.string() if loose or c not in INT_COLUMNS else pa.int64() for c in wanted}
        table = pacsv.read_csv(
            pa.BufferReader(data),
            # The piece as one block on one thread: pieces side by side are the parallelism, and
            # cheaper; and a line, however long, never straddles blocks.
            read_options=pacsv.ReadOptions(column_names=list(COLUMNS), block_size=data.size + 1, use_threads=False),
            parse_options=pacsv.ParseOptions(invalid_row_handler=skip),
            convert_options=pacsv.ConvertOptions(column_types=types, include_columns=wanted),
        )
        for c in INT_COLUMNS if loose else ():
            if c in wanted:
                text = table[c]
                if hexadecimal and not pc.all(pc.match_substring_regex(text, f"^({INTEGER})?$")).as_py():
                    raise pa.ArrowInvalid(f"{c}: not an integer")
                table = table.set_column(
                    wanted.index(c), c, pc.cast(pc.if_else(pc.equal(text, ""), None, text), pa.int64())
                )
        return table

    if end <= start:
        table = _no_lines(wanted)
        return Lines(table, np.empty(0, np.int8))
    with pa.OSFile(str(path)) as f:  # into Arrow's pool, which reuses what the last piece freed
        f.seek(start)
        piece = f.read_buffer(end - start)
    try:
        table = read(piece)
    except pa.ArrowInvalid:
        # Something the fast reader cannot take (garbage, a torn quoted field, a header mid-file, a
        # malformed integer): keep only the lines ``refusal`` accepts, then read those the fast way.
        with path.open("rb") as f:
            first_line = 1 + f.read(start).count(b"\n")
        cleaned, invalid[:] = _used_lines(piece.to_pybytes(), name, first_line)
        table = read(pa.py_buffer(cleaned)) if cleaned else _no_lines(wanted)
    table = table.combine_chunks()
    event = pc.fill_null(pc.index_in(table["event"], value_set=pa.array(EVENTS)), -1).to_numpy().astype(np.int8)
    event[~pc.equal(table["end"], END_MARK).to_numpy(zero_copy_only=False)] = -1
    return Lines(table, event, invalid, int(np.count_nonzero(event < 0)))


def _loose(raw: np.ndarray) -> tuple[bool, bool]:
    """Whether a piece's bytes hold "0x" (or "0X"), and whether they hold that or a blank (space, tab) next
    to a comma, a quote or a line end: what the CSV reader's int64 parsing would take for a number.
    A megabyte at a time: the temporaries stay small."""
    import numpy as np

    edges = np.frombuffer(b',"\r\n', np.uint8)
    hexadecimal = blank = False
    step = 1 << 20
    for start in range(0, len(raw), step):
        part = raw[max(start - 1, 0) : start + step + 1]  # a byte either side: pairs across the cut
        hexadecimal = hexadecimal or bool(np.any(((part[1:] | 32) == ord("x")) & (part[:-1] == ord("0"))))
        blanks = np.flatnonzero((part == ord(" ")) | (part == ord("\t")))
        if len(blanks) and not blank:
            before = part[np.maximum(blanks - 1, 0)]
            after = part[np.minimum(blanks + 1, len(part) - 1)]
            ends = (blanks == 0) & (start == 0) | (blanks == len(part) - 1) & (start + step >= len(raw))
            blank = bool(np.any(np.isin(before, edges) | np.isin(after, edges) | ends))
        if hexadecimal:
            break
    return hexadecimal, hexadecimal or blank


def _no_lines(columns: Sequence[str]) -> pa.Table:
    import pyarrow as pa

    return pa.schema([(c, pa.int64() if c in INT_COLUMNS else pa.string()) for c in columns]).empty_table()


def _used_lines(raw: bytes, name: str, first_line: int) -> tuple[bytes, list[str]]:
    """Slow path for a piece the fast reader refused: only the lines ``refusal`` accepts, and why
    each other line was refused."""
    kept, reasons = [], []
    for number, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(keepends=True), first_line):
        if not line.strip("\r\n"):  # an empty line: the fast reader skips it uncounted, so must this
            continue
        try:
            reason = refusal(next(csv.reader([line]), []))
        except csv.Error:
            reason = "not CSV"
        if reason is None:
            kept.append(line)
        else:
            reasons.append(f"{name}:{number}: {reason}")
    return "".join(kept).encode(), reasons


def read(path: Path, columns: Sequence[str] = COLUMNS) -> Lines:
    """A whole ledger file as ``Lines`` of ``columns``; a file that is no ledger has no lines and one
    ignored (``not_a_ledger``)."""
    if (reason := not_a_ledger(path)) is not None:
        no_lines = read_piece(path, 0, 0, columns)
        no_lines.invalid.append(f"{path.stem}:1: {reason}")
        return no_lines
    parts = [read_piece(path, start, end, columns) for start, end in pieces(path)]
    if not parts:
        return read_piece(path, 0, 0, columns)
    if len(parts) == 1:
        return parts[0]
    import numpy as np
    import pyarrow as pa

    return Lines(
        pa.concat_tables([p.table for p in parts]).combine_chunks(),
        np.concatenate([p.event for p in parts]),
        [r for p in parts for r in p.invalid],
        sum(p.dropped for p in parts),
    )
