"""A run's history as columns: the ledgers (what clients did) and the read-back (what is stored).

Loading streams pyarrow's CSV and Parquet readers into numpy arrays, so ten million records
cost a few hundred megabytes, not Python objects. Nothing here judges; the checker does.

**Slots.** Record ids are ``session << 32 | seq`` with seq counting 0, 1, 2 … per session
(``harness.ledger``). Every (session, seq) up to a session's highest invoked seq gets one
slot, and everything known about a send (outcome, transaction, acknowledged position,
source) lives in flat arrays indexed by slot. Looking an id up is then arithmetic, not a
sort or a hash, which is what keeps the checker linear in the number of records.

**Positions.** One int64 per stored record: ``topic code << 52 | partition << 40 | offset``,
so a read-back is ascending in position order and two read-backs join by position.

Ledger lines that fail the format (a process killed mid-line, garbage, an unknown event)
are skipped and reported per file as ``LedgerProblem``: they never stop the check.
"""

from __future__ import annotations

import contextlib
import csv
import ctypes
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from harness.errors import HarnessError
from harness.ledger import COLUMNS, END_MARK, EVENTS, INT_COLUMNS, SEQ_BITS

# Outcome of a send, by strength: a stronger line wins (an ack beats an "info").
NO_OUTCOME, INFO, FAIL, OK = 0, 1, 2, 3
# Transaction states, by strength.
TXN_OPEN, TXN_UNKNOWN, TXN_ABORTED, TXN_COMMITTED = 0, 1, 2, 3
_TXN_END = {"txn-unknown": TXN_UNKNOWN, "txn-aborted": TXN_ABORTED, "txn-committed": TXN_COMMITTED}
_TXN_STATE_OF_EVENT = np.array([_TXN_END.get(e, TXN_OPEN) for e in EVENTS], np.int8)
_EVENT = {name: i for i, name in enumerate(EVENTS)}

# Read-back: one Parquet file per isolation level, rows in (topic, partition, offset) order.
READ_COLUMNS = ("topic", "partition", "offset", "id", "key")
ISOLATIONS = ("read_committed", "read_uncommitted")
MARKER_ID = -1  # an offset inside the log that held no data record: a transaction marker
UNDECODABLE_ID = -2  # a data record whose value carries no harness id

OFFSET_BITS, PARTITION_BITS, TOPIC_BITS = 40, 12, 11
_TP_SHIFT = OFFSET_BITS + PARTITION_BITS

# How the checker reads a ledger: repeated text as dictionaries, keys not at all.
_LEDGER_TYPES = {
    c: pa.dictionary(pa.int32(), pa.string())
    if c in ("event", "topic")
    else pa.int64()
    if c in INT_COLUMNS
    else pa.string()
    for c in COLUMNS
    if c != "key"
}


@dataclass
class LedgerProblem:
    file: str
    ignored_lines: int
    reasons: list[str] = field(default_factory=list)  # the first few, with line numbers where known


@dataclass
class Sessions:
    id: np.ndarray  # int64, ascending: every session that invoked a send or announced itself
    file: list[str]  # ledger file stem of each session (the "producer" in reports)
    transactional_id: list[str]  # "" when not transactional or not announced
    started_us: np.ndarray  # int64 when the session was ready (fences older ones); -1 unknown
    base: np.ndarray  # int64 first slot of each session
    size: np.ndarray  # int64 slots of each session (highest seq + 1)


@dataclass
class Transactions:
    key: np.ndarray  # int64 session << 32 | txn, ascending
    state: np.ndarray  # int8 TXN_*
    begin_us: np.ndarray  # int64, -1 unknown
    commit_us: np.ndarray  # int64 when the commit was requested, -1 never


@dataclass
class Sends:
    """Per slot: what the ledgers say about the send with that id."""

    invoked: np.ndarray  # bool
    topic: np.ndarray  # int16 topic code, -1 unknown
    txn: np.ndarray  # int32 transaction number in its session, -1 outside transactions
    source: np.ndarray  # int64 input record id of a transform output, -1 otherwise
    outcome: np.ndarray  # int8 NO_OUTCOME / INFO / FAIL / OK
    ack_pos: np.ndarray  # int64 acknowledged position, -1 none


@dataclass
class View:
    """What one reader saw: rows in position order."""

    isolation: str
    pos: np.ndarray  # int64, ascending
    id: np.ndarray  # int64 record id, MARKER_ID or UNDECODABLE_ID


@dataclass
class History:
    topics: list[str]  # topic code -> name
    sessions: Sessions
    sends: Sends
    txns: Transactions
    views: dict[str, View]
    problems: list[LedgerProblem]

    # -- ids and slots --
    def slot_of(self, ids: np.ndarray) -> np.ndarray:
        """Slot of each id, -1 for ids no ledger invoked (or markers)."""
        s = self.sessions
        if not len(s.id):
            return np.full(len(ids), -1, np.int64)
        k = _session_index(s, ids >> SEQ_BITS)
        seq = ids & ((1 << SEQ_BITS) - 1)
        ok = (k >= 0) & (seq < s.size[k])
        slot = np.where(ok, s.base[k] + seq, -1)
        hit = slot >= 0
        slot[hit] = np.where(self.sends.invoked[slot[hit]], slot[hit], -1)
        return slot

    def id_of(self, slots: np.ndarray) -> np.ndarray:
        s = self.sessions
        k = np.searchsorted(s.base, slots, side="right") - 1
        return (s.id[k] << SEQ_BITS) | (slots - s.base[k])

    def session_index_of_slots(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.sessions.id)), self.sessions.size)

    # -- positions --
    def where(self, pos: int) -> str:
        topic, partition, offset = (
            pos >> _TP_SHIFT,
            (pos >> OFFSET_BITS) & ((1 << PARTITION_BITS) - 1),
            pos & ((1 << OFFSET_BITS) - 1),
        )
        return f"{self.topics[topic]}-{partition}@{offset}"

    @staticmethod
    def topic_of(pos: np.ndarray) -> np.ndarray:
        return pos >> _TP_SHIFT

    @staticmethod
    def partition_key_of(pos: np.ndarray) -> np.ndarray:
        return pos >> OFFSET_BITS


def position(topic: np.ndarray, partition: np.ndarray, offset: np.ndarray) -> np.ndarray:
    return (topic.astype(np.int64) << _TP_SHIFT) | (partition.astype(np.int64) << OFFSET_BITS) | offset


# --- ledgers -------------------------------------------------------------------------


class _Chunks:
    """Per-column chunks, concatenated once (and released) at the end."""

    def __init__(self) -> None:
        self.parts: dict[str, list[np.ndarray]] = {}

    def add(self, **cols: np.ndarray) -> None:
        for name, col in cols.items():
            self.parts.setdefault(name, []).append(col)

    def mark(self) -> dict[str, int]:
        return {name: len(parts) for name, parts in self.parts.items()}

    def rollback(self, mark: dict[str, int]) -> None:
        for name, parts in self.parts.items():
            del parts[mark.get(name, 0) :]

    def take(self, name: str, dtype: type) -> np.ndarray:
        parts = self.parts.pop(name, [])
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.empty(0, dtype)


class _TopicCodes:
    def __init__(self) -> None:
        self.names: list[str] = []
        self._code: dict[str, int] = {}

    def code(self, name: str) -> int:
        if name not in self._code:
            if len(self.names) >= 1 << TOPIC_BITS:
                raise HarnessError(f"more than {1 << TOPIC_BITS} topics in one history; check fewer at a time")
            self._code[name] = len(self.names)
            self.names.append(name)
        return self._code[name]

    def encode(self, column: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """Dictionary-encoded (or plain string) topic column -> int16 codes; null -> -1."""
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        if not pa.types.is_dictionary(column.type):
            column = column.dictionary_encode()
        mapping = np.array([self.code(str(t)) for t in column.dictionary.to_pylist()] + [-1], dtype=np.int16)
        return mapping[column.indices.fill_null(len(mapping) - 1).to_numpy(zero_copy_only=False)]


def _ints(batch: pa.RecordBatch, name: str) -> np.ndarray:
    return batch.column(name).fill_null(-1).to_numpy(zero_copy_only=False)


PIECE_BYTES = 64 << 20  # ledger bytes parsed at a time: bounds memory, keeps both cores busy


def _pieces(path: Path) -> Iterator[bytes]:
    """The lines after the header, in pieces of whole lines (the last may be torn)."""
    with path.open("rb") as f:
        header = next(csv.reader([f.readline().decode("utf-8", errors="replace")]), [])
        if tuple(header) != COLUMNS:
            raise pa.ArrowInvalid("not a ledger header")
        carry = b""
        while block := f.read(PIECE_BYTES):
            block = carry + block
            cut = block.rfind(b"\n") + 1
            if cut:
                yield block[:cut]
            carry = block[cut:]
        if carry:
            yield carry


def _validate_lines(raw: bytes, name: str) -> tuple[bytes, list[str]]:
    """Slow path for a file the fast reader refused: keep only well-formed lines."""
    kept, reasons = [], []
    lines = raw.decode("utf-8", errors="replace").splitlines(keepends=True)
    for number, line in enumerate(lines, 1):
        try:
            row = next(csv.reader([line]), [])
            reason = None
        except csv.Error:
            row, reason = [], "not CSV"
        if number == 1:
            if tuple(row) != COLUMNS:
                return b"", [f"{name}:1: not a ledger (header is {line.strip()[:60]!r})"]
            kept.append(line)
            continue
        if not line.strip("\r\n"):  # an empty line: the fast reader skips it uncounted, so must this
            continue
        if reason is None and (len(row) != len(COLUMNS) or row[-1] != END_MARK):
            reason = "cut short (no end mark)"
        if reason is None and row[0] not in _EVENT:
            reason = f"unknown event {row[0][:20]!r}"
        if reason is None:
            bad = [c for c in INT_COLUMNS if (v := row[COLUMNS.index(c)]) and not v.lstrip("-").isdigit()]
            reason = f"{bad[0]} is not an integer" if bad else None
        if reason is None:
            kept.append(line)
        else:
            reasons.append(f"{name}:{number}: {reason}")
    return "".join(kept).encode(), reasons


class _LedgerReader:
    """Reads ledger files into per-event column chunks."""

    def __init__(self, topics: _TopicCodes) -> None:
        self.topics = topics
        self.slots = _SlotBuilder()
        self.txns = _Chunks()
        self.session_rows: list[tuple[int, str, str, int]] = []
        self.problems: list[LedgerProblem] = []

    def read(self, path: Path) -> None:
        name = path.stem
        invalid: list[str] = []

        def skip(row: pacsv.InvalidRow) -> str:
            invalid.append(
                f"{name}: line cut short ({row.actual_columns} of {row.expected_columns} fields): {row.text[:60]!r}"
            )
            return "skip"

        def parse(piece: bytes) -> pa.Table:
            return pacsv.read_csv(
                pa.BufferReader(piece),
                read_options=pacsv.ReadOptions(column_names=list(COLUMNS), block_size=16 << 20),
                parse_options=pacsv.ParseOptions(invalid_row_handler=skip),
                convert_options=pacsv.ConvertOptions(column_types=_LEDGER_TYPES, include_columns=list(_LEDGER_TYPES)),
            )

        def consume(pieces: Iterator[bytes]) -> int:
            # The next piece is parsed (pyarrow, GIL released) while this one is filed away.
            dropped = 0
            with ThreadPoolExecutor(1) as pool:
                ahead = None
                for piece in pieces:
                    parsing = pool.submit(parse, piece)
                    if ahead is not None:
                        dropped += sum(self._batch(b, name) for b in ahead.result().to_batches())
                    ahead = parsing
                if ahead is not None:
                    dropped += sum(self._batch(b, name) for b in ahead.result().to_batches())
            return dropped

        txn_mark, n_sessions = self.txns.mark(), len(self.session_rows)
        try:
            dropped = consume(_pieces(path))
        except pa.ArrowInvalid:
            # Something the fast reader cannot type (garbage, a torn quoted field, a bad
            # header): filter the lines in Python, then read the rest the fast way. Slots
            # take the same lines twice harmlessly; transaction and session rows this file
            # gave so far are rolled back so nothing is counted twice.
            self.txns.rollback(txn_mark)
            del self.session_rows[n_sessions:]
            cleaned, invalid[:] = _validate_lines(path.read_bytes(), name)
            body = cleaned.split(b"\n", 1)[1] if cleaned else b""
            dropped = consume(iter([body])) if body else 0
        if dropped:
            invalid.append(f"{name}: {dropped} line(s) without the end mark or with an unknown event")
        ignored = sum(1 for r in invalid if "line(s) without" not in r) + dropped
        if ignored:
            self.problems.append(LedgerProblem(name, ignored, invalid[:5]))

    def _batch(self, batch: pa.RecordBatch, name: str) -> int:
        ev_col = batch.column("event")
        ev_map = np.array([_EVENT.get(str(e), -1) for e in ev_col.dictionary.to_pylist()] + [-1], dtype=np.int8)
        ev = ev_map[ev_col.indices.fill_null(len(ev_map) - 1).to_numpy(zero_copy_only=False)]
        bad = (ev < 0) | (batch.column("end").to_numpy(zero_copy_only=False) != END_MARK)
        if bad.any():
            ev[bad] = -1
        ids = _ints(batch, "id")

        def rows(event: str) -> np.ndarray:
            return ev == _EVENT[event]

        m = rows("invoke") & (ids >= 0)  # no id, no slot (and no 2**32-slot session -1)
        if m.any():
            self.slots.invoke(
                ids[m],
                topic=self.topics.encode(batch.column("topic").filter(pa.array(m))),
                txn=_ints(batch, "txn")[m].astype(np.int32),
                source=_ints(batch, "source")[m],
            )
        for event, code in (("info", INFO), ("fail", FAIL), ("ok", OK)):  # ascending strength
            m = rows(event) & (ids >= 0)
            if m.any():
                self.slots.outcome(ids[m], code)
        m = rows("ok") & (ids >= 0)
        if m.any():
            partition = _ints(batch, "partition")[m]
            if partition.max(initial=0) >= 1 << PARTITION_BITS:
                raise HarnessError(f"{name}: partition numbers of {1 << PARTITION_BITS} or more are not supported")
            self.slots.ack(ids[m], partition, _ints(batch, "offset")[m])
        m = (ev >= _EVENT["txn-begin"]) & (ev <= _EVENT["txn-unknown"])
        if m.any():
            e, t = ev[m], _ints(batch, "time_us")[m]
            self.txns.add(
                key=(_ints(batch, "session")[m] << SEQ_BITS) | _ints(batch, "txn")[m],
                state=_TXN_STATE_OF_EVENT[e],
                begin=np.where(e == _EVENT["txn-begin"], t, -1),
                commit=np.where(e == _EVENT["txn-commit"], t, -1),
            )
        m = rows("session")
        if m.any():
            details = batch.column("detail").filter(pa.array(m)).to_pylist()
            for s, detail, t in zip(_ints(batch, "session")[m], details, _ints(batch, "time_us")[m], strict=True):
                self.session_rows.append((int(s), name, detail or "", int(t)))
        return int(bad.sum())


def load(ledger_paths: list[Path], reads_dir: Path | None) -> History:
    _return_freed_memory_to_the_os()
    topics = _TopicCodes()
    reader = _LedgerReader(topics)
    for path in ledger_paths:
        reader.read(path)

    sessions, sends = reader.slots.build(reader.session_rows)
    history = History(topics.names, sessions, sends, _transactions(reader.txns), {}, reader.problems)
    if reads_dir is not None:
        for isolation in ISOLATIONS:
            path = view_path(reads_dir, isolation)
            if path.exists():
                history.views[isolation] = _read_view(path, isolation, topics)
    history.topics = topics.names
    return history


def _return_freed_memory_to_the_os() -> None:
    # glibc raises its mmap threshold after big frees; from then on the batch-sized arrays
    # loading churns through come from the heap and stay there once freed. A fixed 1 MiB
    # threshold hands them back, which is most of the difference in peak memory at 10M.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD


class _SlotBuilder:
    """Per-session columns indexed by seq, grown as ledger lines arrive; joined into slots at the end.

    Filling by seq as lines are read keeps memory at one copy of the columns (no staging
    of raw lines), and taking the same line twice changes nothing.
    """

    _COLUMNS: ClassVar[dict[str, tuple[type, int | bool]]] = {
        "invoked": (bool, False),
        "topic": (np.int16, -1),
        "txn": (np.int32, -1),
        "source": (np.int64, -1),
        "outcome": (np.int8, NO_OUTCOME),
        "ack_pos": (np.int64, -1),
    }

    def __init__(self) -> None:
        self.cols: dict[int, dict[str, np.ndarray]] = {}
        self.size: dict[int, int] = {}

    def _per_session(self, ids: np.ndarray) -> Iterator[tuple[dict[str, np.ndarray], np.ndarray, np.ndarray | slice]]:
        """(columns of the session, seqs, selector into the batch) for each session in ``ids``."""
        sessions = ids >> SEQ_BITS
        seqs = ids & ((1 << SEQ_BITS) - 1)
        present = distinct(sessions)
        for session in present:
            pick = slice(None) if len(present) == 1 else sessions == session
            seq = seqs[pick]
            need = int(seq.max()) + 1
            cols = self.cols.get(int(session))
            if cols is None or len(cols["invoked"]) < need:
                cap = max(need, 1024, int(1.5 * len(cols["invoked"])) if cols else 0)
                grown = {n: np.full(cap, fill, dtype) for n, (dtype, fill) in self._COLUMNS.items()}
                for n, old in (cols or {}).items():
                    grown[n][: len(old)] = old
                cols = self.cols[int(session)] = grown
            self.size[int(session)] = max(self.size.get(int(session), 0), need)
            yield cols, seq, pick

    def invoke(self, ids: np.ndarray, topic: np.ndarray, txn: np.ndarray, source: np.ndarray) -> None:
        for cols, seq, pick in self._per_session(ids):
            cols["invoked"][seq] = True
            cols["topic"][seq] = topic[pick]
            cols["txn"][seq] = txn[pick]
            cols["source"][seq] = source[pick]

    def outcome(self, ids: np.ndarray, code: int) -> None:
        for cols, seq, _ in self._per_session(ids):
            cols["outcome"][seq] = np.maximum(cols["outcome"][seq], code)

    def ack(self, ids: np.ndarray, partition: np.ndarray, offset: np.ndarray) -> None:
        for cols, seq, pick in self._per_session(ids):
            sent = cols["invoked"][seq]  # acknowledged in the topic it was sent to
            pos = position(cols["topic"][seq], partition[pick], offset[pick])
            cols["ack_pos"][seq[sent]] = pos[sent]

    def build(self, rows: list[tuple[int, str, str, int]]) -> tuple[Sessions, Sends]:
        announced = {r[0]: r for r in rows}
        ids = sorted(set(self.size) | set(announced))
        size = np.array([self.size.get(s, 0) for s in ids], np.int64)
        columns = {}
        for name in self._COLUMNS:  # one column at a time, releasing the per-session parts
            columns[name] = np.concatenate(
                [self.cols[s].pop(name)[: self.size[s]] for s in ids if s in self.cols]
                or [np.empty(0, self._COLUMNS[name][0])]
            )
        info = [announced.get(s) for s in ids]
        sessions = Sessions(
            id=np.array(ids, np.int64),
            file=[r[1] if r else "?" for r in info],
            transactional_id=[r[2] if r else "" for r in info],
            started_us=np.array([r[3] if r else -1 for r in info], np.int64),
            base=np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64),
            size=size,
        )
        return sessions, Sends(**columns)


def distinct(values: np.ndarray) -> np.ndarray:
    """Distinct values; counting beats sorting or hashing for small non-negative ints (sessions)."""
    if len(values) and values.min() >= 0 and values.max() < 1 << 24:
        return np.flatnonzero(np.bincount(values)).astype(values.dtype)
    return np.unique(values)


def _session_index(s: Sessions, session: np.ndarray) -> np.ndarray:
    """Index into ``s`` of each session number, -1 if unknown. A lookup table when session
    numbers are small (they are: the runner hands them out), a binary search otherwise."""
    top = int(s.id[-1])
    if top < 1 << 22:
        table = np.full(top + 2, -1, np.int64)
        table[s.id] = np.arange(len(s.id))
        return table[np.clip(session, -1, top + 1)]
    k, found = lookup(s.id, session)
    return np.where(found, k, -1)


def lookup(sorted_keys: np.ndarray, needles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each needle in ``sorted_keys`` (clipped) and whether it is there."""
    if not len(sorted_keys):
        return np.zeros(len(needles), np.int64), np.zeros(len(needles), bool)
    idx = np.minimum(np.searchsorted(sorted_keys, needles), len(sorted_keys) - 1)
    return idx, sorted_keys[idx] == needles


def _transactions(events: _Chunks) -> Transactions:
    key = events.take("key", np.int64)
    if not len(key):
        empty = np.empty(0, np.int64)
        return Transactions(empty, np.empty(0, np.int8), empty, empty)
    keys, inverse = np.unique(key, return_inverse=True)

    def strongest(values: np.ndarray, dtype: type) -> np.ndarray:
        out = np.full(len(keys), -1 if dtype is np.int64 else 0, dtype)
        np.maximum.at(out, inverse, values)
        return out

    return Transactions(
        keys,
        strongest(events.take("state", np.int8), np.int8),
        strongest(events.take("begin", np.int64), np.int64),
        strongest(events.take("commit", np.int64), np.int64),
    )


# --- read-back -----------------------------------------------------------------------


def view_path(reads_dir: Path, isolation: str) -> Path:
    return reads_dir / f"{isolation}.parquet"


def _read_view(path: Path, isolation: str, topics: _TopicCodes) -> View:
    f = pq.ParquetFile(path)
    n = f.metadata.num_rows
    pos, ids = np.empty(n, np.int64), np.empty(n, np.int64)
    at = 0
    for batch in f.iter_batches(batch_size=1 << 20, columns=["topic", "partition", "offset", "id"]):
        k = batch.num_rows
        partition = batch.column("partition").to_numpy()
        if partition.max(initial=0) >= 1 << PARTITION_BITS:
            raise HarnessError(f"{path}: partition numbers of {1 << PARTITION_BITS} or more are not supported")
        pos[at : at + k] = position(topics.encode(batch.column("topic")), partition, batch.column("offset").to_numpy())
        ids[at : at + k] = batch.column("id").to_numpy()
        at += k
    if len(pos) > 1 and not np.all(pos[1:] >= pos[:-1]):
        o = np.argsort(pos, kind="stable")
        pos, ids = pos[o], ids[o]
    return View(isolation, pos, ids)
