"""A run's history as columns: the ledgers (what clients did) and the read-back (what is stored).

Loading parses the ledgers in pieces of whole lines, side by side on worker threads
(pyarrow's CSV reader), and streams the read-backs from Parquet, into numpy arrays: ten
million records cost a few hundred megabytes, not Python objects. Nothing here judges; the
checker does.

**Slots.** Record ids are ``session << 32 | seq`` with seq counting 0, 1, 2 … per session
(``harness.history.ledger``). Every (session, seq) up to a session's highest invoked seq gets one
slot, and everything known about a send (outcome, transaction, acknowledged position,
source) lives in flat arrays indexed by slot. Looking an id up is then arithmetic, not a
sort or a hash, which is what keeps the checker linear in the number of records.

**Attempts.** An id may be sent more than once: a restarted app resends what it does not know
to be written, in a new ledger file (and an app bug may send it twice). Its slot holds its
last invoke (topic, transaction, source); every earlier invoke is kept aside (``Sends.earlier_*``,
few in any run), and the outcome weighs all of them (``OK`` ... below).

**Positions.** One int64 per stored record: ``topic code << 52 | partition << 40 | offset``,
so a read-back is ascending in position order and two read-backs join by position.

Ledger lines that fail the format (a process killed mid-line, garbage, an unknown event)
are skipped and reported per file as ``LedgerProblem``: they never stop the check.
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from harness.errors import HarnessError
from harness.history import ledger, memory
from harness.history.ledger import COLUMNS, EVENTS
from harness.history.records import MARKER_ID, SEQ_BITS

# Outcome of a send over all its attempts: OK when any ``ok`` line says written; else INFO
# (unknown) when any ``info`` line, or an attempt without a definite failure (in flight at a
# crash, or when the app stopped), leaves it open; FAIL only when every attempt has its
# ``fail`` line (librdkafka reports each produce() once, so as many ``fail`` lines as invokes
# means every attempt failed); NO_OUTCOME when no line says anything.
NO_OUTCOME, INFO, FAIL, OK = 0, 1, 2, 3
_SAW = {INFO: 1, FAIL: 2, OK: 4}  # while loading: which kinds of outcome line an id has, as bits
# Transaction states, by strength.
TXN_OPEN, TXN_UNKNOWN, TXN_ABORTED, TXN_COMMITTED = 0, 1, 2, 3
_TXN_END = {"txn-unknown": TXN_UNKNOWN, "txn-aborted": TXN_ABORTED, "txn-committed": TXN_COMMITTED}
_TXN_STATE_OF_EVENT = np.array([_TXN_END.get(e, TXN_OPEN) for e in EVENTS], np.int8)
_EVENT = {name: i for i, name in enumerate(EVENTS)}

# Read-back: one Parquet file per isolation level, rows in (topic, partition, offset) order.
READ_COLUMNS = ("topic", "partition", "offset", "id", "key")
ISOLATIONS = ("read_committed", "read_uncommitted")
# The one read-back with marker rows (MARKER_ID: an offset that held no record). In any other view a
# negative id is a stored record without a harness id.
MARKERS_VIEW = "read_uncommitted"
# Parquet schema metadata of a read-back: JSON {topic: [partition, ...]} of what it read. A
# partition that held nothing leaves no row, yet "read and empty" must not pass for "not read".
PARTITIONS_READ_KEY = b"kafka-eos-harness.partitions_read"
# And JSON {topic: partitions} of how many partitions each of those topics has: a send never
# acknowledged went to an unknown partition, which was read for sure only if all of them were.
TOPIC_PARTITIONS_KEY = b"kafka-eos-harness.topic_partitions"

OFFSET_BITS, PARTITION_BITS, TOPIC_BITS = 40, 12, 11
TP_SHIFT = OFFSET_BITS + PARTITION_BITS


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
    outcome: np.ndarray  # int8 NO_OUTCOME / INFO / FAIL / OK, over all attempts
    ack_pos: np.ndarray  # int64 acknowledged position (of the last ``ok`` line), -1 none
    # One entry per invoke line that was not its id's last: the slot, and the transaction
    # that attempt was in (-1 outside transactions).
    earlier_slot: np.ndarray  # int64, ascending
    earlier_txn: np.ndarray  # int32


@dataclass
class View:
    """What one reader saw: rows in position order, each (position, id) once.

    A reader returns each offset once. A read-back that holds an offset twice or more is
    faulty there: the copies are one row when they agree (so one offset is never two
    copies of a record), and stay one row per distinct id when they do not (each id was
    read there); either way the position is listed in ``repeated``.
    """

    isolation: str
    pos: np.ndarray  # int64, ascending
    id: np.ndarray  # int64 record id, MARKER_ID or UNDECODABLE_ID; ascending within a position
    # int64 ascending ``topic code << PARTITION_BITS | partition`` of every partition the
    # reader read, including the ones where it found nothing
    partitions: np.ndarray
    repeated: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # int64 positions read twice or more
    # topic code -> how many partitions the topic has, where the read-back says (TOPIC_PARTITIONS_KEY)
    topic_partitions: dict[int, int] = field(default_factory=dict)

    def markers(self) -> np.ndarray:
        """bool per row: a transaction marker, not a record (``MARKERS_VIEW``)."""
        return (self.id == MARKER_ID) if self.isolation == MARKERS_VIEW else np.zeros(len(self.id), bool)

    def conflicts(self) -> np.ndarray:
        """Positions read with two different ids or more (some of ``repeated``), ascending."""
        if not len(self.repeated):
            return self.repeated
        rows = np.flatnonzero(np.isin(self.pos, self.repeated))
        return np.unique(self.pos[rows[1:][self.pos[rows[1:]] == self.pos[rows[:-1]]]])


@dataclass
class History:
    topics: list[str]  # topic code -> name
    sessions: Sessions
    sends: Sends
    txns: Transactions
    views: dict[str, View]
    problems: list[LedgerProblem]

    # -- ids and slots --
    @property
    def slot_dtype(self) -> type:
        """Slots (and row numbers) fit int32 below 2**31 sends: half the memory of int64."""
        return np.int32 if len(self.sends.invoked) < 1 << 31 else np.int64

    def slot_of(self, ids: np.ndarray) -> np.ndarray:
        """Slot of each id, -1 for ids no ledger invoked (or markers)."""
        s = self.sessions
        slots = np.full(len(ids), -1, self.slot_dtype)
        if not len(s.id):
            return slots
        index = _SessionIndex(s)
        for part in chunks(len(ids)):  # a chunk at a time keeps the temporaries small
            k = index.of(ids[part] >> SEQ_BITS)
            seq = ids[part] & ((1 << SEQ_BITS) - 1)
            ok = (k >= 0) & (seq < s.size[k])
            slot = np.where(ok, s.base[k] + seq, -1)
            hit = slot >= 0
            slot[hit] = np.where(self.sends.invoked[slot[hit]], slot[hit], -1)
            slots[part] = slot
        return slots

    def id_of(self, slots: np.ndarray) -> np.ndarray:
        s = self.sessions
        k = np.searchsorted(s.base, slots, side="right") - 1
        return (s.id[k] << SEQ_BITS) | (slots - s.base[k])

    def session_index_of_slots(self) -> np.ndarray:
        """int32 index into ``sessions`` of each slot."""
        return np.repeat(np.arange(len(self.sessions.id), dtype=np.int32), self.sessions.size)

    # -- positions --
    def where(self, pos: int) -> str:
        topic, partition, offset = (
            pos >> TP_SHIFT,
            (pos >> OFFSET_BITS) & ((1 << PARTITION_BITS) - 1),
            pos & ((1 << OFFSET_BITS) - 1),
        )
        return f"{self.topics[topic]}-{partition}@{offset}"

    @staticmethod
    def topic_of(pos: np.ndarray) -> np.ndarray:
        return pos >> TP_SHIFT

    @staticmethod
    def partition_key_of(pos: np.ndarray) -> np.ndarray:
        return pos >> OFFSET_BITS


def position(topic: np.ndarray, partition: np.ndarray, offset: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Positions of (topic code, partition, offset), into ``out`` if given (one temporary, not four)."""
    out = np.left_shift(topic, TP_SHIFT, out=out, dtype=np.int64)
    out |= np.left_shift(partition, OFFSET_BITS, dtype=np.int64)
    out |= offset
    return out


# --- ledgers -------------------------------------------------------------------------


class _Chunks:
    """Per-column chunks, concatenated once (and released) at the end."""

    def __init__(self) -> None:
        self.parts: dict[str, list[np.ndarray]] = {}

    def add(self, **cols: np.ndarray) -> None:
        for name, col in cols.items():
            self.parts.setdefault(name, []).append(col)

    def take(self, name: str, dtype: type) -> np.ndarray:
        parts = self.parts.pop(name, [])
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.empty(0, dtype)


class _TopicCodes:
    def __init__(self) -> None:
        self.names: list[str] = []
        self._code: dict[str, int] = {}

    def __contains__(self, name: str) -> bool:
        return name in self._code

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


# What the checker reads of a ledger: keys not at all.
_LEDGER_COLUMNS = tuple(c for c in COLUMNS if c != "key")
# Pieces parsed at once, a core each (pyarrow and numpy release the GIL); beyond four, more
# pieces in memory would buy little.
_WORKERS = min(4, os.cpu_count() or 2)


@dataclass
class _Lines:
    """What one piece of a ledger says, by kind of line: the columns each kind needs, in line order."""

    invalid: list[str]  # lines refused (wrong number of fields; or all the slow path's reasons)
    dropped: int  # lines without the end mark or with an unknown event
    invoke: dict[str, Any]  # id, topic (dictionary-encoded strings), txn, source
    outcomes: list[tuple[int, np.ndarray]]  # (INFO / FAIL / OK, ids), ascending strength
    ack: dict[str, np.ndarray]  # id, partition, offset of the ``ok`` lines
    txn: dict[str, np.ndarray]  # key, state, begin, commit: the txn-* lines, one row per transaction
    session: list[tuple[int, str, int]]  # (session, detail, time_us) of the ``session`` lines


def _parse(path: Path, start: int, end: int) -> _Lines:
    """Bytes ``start:end`` of a ledger (whole lines after the header), by the ledger's rules; runs in a worker."""
    return _sort_lines(ledger.read_piece(path, start, end, _LEDGER_COLUMNS))


def _sort_lines(lines: ledger.Lines) -> _Lines:
    table, ev = lines.table, lines.event
    ids = _ints(table["id"])
    with_id = ids >= 0  # no id, no slot (and no 2**32-slot session -1)

    def rows(event: str) -> np.ndarray:
        return np.flatnonzero((ev == _EVENT[event]) & with_id)

    invoke, ok = rows("invoke"), rows("ok")
    txn = np.flatnonzero((ev >= _EVENT["txn-begin"]) & (ev <= _EVENT["txn-unknown"]))
    session = np.flatnonzero(ev == _EVENT["session"])
    return _Lines(
        invalid=lines.invalid,
        dropped=lines.dropped,
        invoke={
            "id": ids[invoke],
            "topic": table["topic"].take(invoke).combine_chunks().dictionary_encode(),
            "txn": _ints(table["txn"], invoke).astype(np.int32),
            "source": _ints(table["source"], invoke),
        },
        outcomes=[(code, ids[r]) for code, r in ((INFO, rows("info")), (FAIL, rows("fail")), (OK, ok)) if len(r)],
        ack={"id": ids[ok], "partition": _ints(table["partition"], ok), "offset": _ints(table["offset"], ok)},
        txn=_txn_lines(ev[txn], _ints(table["session"], txn), _ints(table["txn"], txn), _ints(table["time_us"], txn)),
        session=list(
            zip(
                _ints(table["session"], session).tolist(),
                table["detail"].take(session).to_pylist(),
                _ints(table["time_us"], session).tolist(),
                strict=True,
            )
        ),
    )


def _txn_lines(event: np.ndarray, session: np.ndarray, txn: np.ndarray, time_us: np.ndarray) -> dict[str, np.ndarray]:
    """txn-* lines reduced to one row per transaction: its key, strongest state, begin and commit times."""
    key, strongest = _strongest(
        (session << SEQ_BITS) | txn,
        state=_TXN_STATE_OF_EVENT[event],
        begin=np.where(event == _EVENT["txn-begin"], time_us, -1),
        commit=np.where(event == _EVENT["txn-commit"], time_us, -1),
    )
    return {"key": key, **strongest}


def _ints(column: pa.ChunkedArray, rows: np.ndarray | None = None) -> np.ndarray:
    """An integer column (or its ``rows``) as int64, -1 where the ledger left it empty."""
    return pc.fill_null(column if rows is None else column.take(rows), -1).to_numpy()


@dataclass
class _Ledger:
    """What a ledger's ignored lines were, as its pieces are taken."""

    name: str
    invalid: list[str] = field(default_factory=list)
    dropped: int = 0

    def problem(self) -> LedgerProblem | None:
        ignored = len(self.invalid) + self.dropped
        why = ledger.reasons(self.name, self.invalid, self.dropped)
        return LedgerProblem(self.name, ignored, why[:5]) if ignored else None


class _LedgerReader:
    """Reads ledger files into slots, transaction rows and session rows, in file and line order."""

    def __init__(self, topics: _TopicCodes) -> None:
        self.topics = topics
        self.slots = _SlotBuilder()
        self.txns = _Chunks()
        self.session_rows: list[tuple[int, str, str, int]] = []
        self.problems: list[LedgerProblem] = []

    def read(self, paths: list[Path]) -> None:
        ledgers = []
        with ThreadPoolExecutor(_WORKERS) as pool:
            # Workers parse ahead, across file ends too; what they found is taken in order here.
            pending: deque[tuple[_Ledger, Future[_Lines]]] = deque()
            for path in paths:
                ledgers.append(one := _Ledger(path.stem))
                if (reason := ledger.not_a_ledger(path)) is not None:
                    one.invalid.append(f"{one.name}:1: {reason}")
                    continue
                for start, end in ledger.pieces(path):
                    pending.append((one, pool.submit(_parse, path, start, end)))
                    if len(pending) > _WORKERS:
                        self._take(*pending.popleft())
            while pending:
                self._take(*pending.popleft())
        self.problems = [p for ledger in ledgers if (p := ledger.problem())]

    def _take(self, ledger: _Ledger, parsing: Future[_Lines]) -> None:
        lines = parsing.result()
        ledger.invalid += lines.invalid
        ledger.dropped += lines.dropped
        invoke = lines.invoke
        if len(invoke["id"]):
            topic = self.topics.encode(invoke["topic"])
            self.slots.invoke(invoke["id"], topic=topic, txn=invoke["txn"], source=invoke["source"])
        for code, ids in lines.outcomes:
            self.slots.outcome(ids, code)
        ack = lines.ack
        if len(ack["id"]):
            if ack["partition"].max() >= 1 << PARTITION_BITS:
                raise HarnessError(
                    f"{ledger.name}: partition numbers of {1 << PARTITION_BITS} or more are not supported"
                )
            self.slots.ack(ack["id"], ack["partition"], ack["offset"])
        self.txns.add(**lines.txn)
        self.session_rows += [(s, ledger.name, detail, t) for s, detail, t in lines.session]


def load(ledger_paths: list[Path], reads_dir: Path | None) -> History:
    memory.keep_freed_memory_for_reuse()
    topics = _TopicCodes()
    reader = _LedgerReader(topics)
    reader.read(ledger_paths)
    sessions, sends = reader.slots.build(reader.session_rows)
    history = History(topics.names, sessions, sends, _transactions(reader.txns), {}, reader.problems)
    del reader
    memory.release_free_memory()
    if reads_dir is not None:
        for isolation in ISOLATIONS:
            path = view_path(reads_dir, isolation)
            if path.exists():
                history.views[isolation] = _read_view(path, isolation, topics)
                memory.release_free_memory()
    history.topics = topics.names
    return history


class _SlotBuilder:
    """Per-session columns indexed by seq, grown as ledger lines arrive; joined into slots at the end.

    Filling by seq as lines are read keeps memory at one copy of the columns (no staging
    of raw lines). An invoke of a seq invoked before moves the earlier attempt aside
    (``earlier``), and the ids of ``fail`` lines are kept (``failed``): both are few, and they
    are the only lines kept as lines.
    """

    _COLUMNS: ClassVar[dict[str, tuple[type, int | bool]]] = {
        "invoked": (bool, False),
        "topic": (np.int16, -1),
        "txn": (np.int32, -1),
        "source": (np.int64, -1),
        "saw": (np.int8, 0),  # _SAW bits of the outcome lines
        "ack_pos": (np.int64, -1),
    }

    def __init__(self) -> None:
        self.cols: dict[int, dict[str, np.ndarray]] = {}
        self.size: dict[int, int] = {}
        self.earlier: list[tuple[np.ndarray, np.ndarray]] = []  # (ids, txn) of attempts sent again since
        self.failed: list[np.ndarray] = []  # ids of the ``fail`` lines

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
                # Doubling: a session's columns are copied about once in all, not three times.
                cap = max(need, 1024, 2 * len(cols["invoked"]) if cols else 0)
                grown = {}
                for n, (dtype, fill) in self._COLUMNS.items():
                    old = cols[n] if cols else np.empty(0, dtype)
                    grown[n] = np.empty(cap, dtype)
                    grown[n][: len(old)] = old
                    grown[n][len(old) :] = fill
                cols = self.cols[int(session)] = grown
            self.size[int(session)] = max(self.size.get(int(session), 0), need)
            yield cols, seq, pick

    def invoke(self, ids: np.ndarray, topic: np.ndarray, txn: np.ndarray, source: np.ndarray) -> None:
        for cols, seq, pick in self._per_session(ids):
            session_ids, txn_of = ids[pick], txn[pick]
            last: np.ndarray | slice = slice(None)
            if len(seq) > 1 and not np.all(seq[1:] > seq[:-1]):  # a seq twice in this piece: rare
                order = np.argsort(seq, kind="stable")
                again = seq[order[1:]] == seq[order[:-1]]  # in line order: all but each seq's last are earlier
                before = order[:-1][again]
                self.earlier.append((session_ids[before], txn_of[before]))
                last = np.sort(order[np.r_[~again, True]])
            seq = seq[last]
            resent = np.flatnonzero(cols["invoked"][seq])  # invoked in an earlier piece or file
            if len(resent):
                self.earlier.append((session_ids[last][resent], cols["txn"][seq[resent]]))
            cols["invoked"][seq] = True
            cols["topic"][seq] = topic[pick][last]
            cols["txn"][seq] = txn_of[last]
            cols["source"][seq] = source[pick][last]

    def outcome(self, ids: np.ndarray, code: int) -> None:
        for cols, seq, _ in self._per_session(ids):
            cols["saw"][seq] |= _SAW[code]
        if code == FAIL:
            self.failed.append(ids)

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

        def slots(ids: np.ndarray) -> np.ndarray:  # of ids of sessions that are there
            k = np.searchsorted(sessions.id, ids >> SEQ_BITS)
            return sessions.base[k] + (ids & ((1 << SEQ_BITS) - 1))

        earlier_ids = np.concatenate([e[0] for e in self.earlier] or [np.empty(0, np.int64)])
        order = np.argsort(earlier_ids, kind="stable")
        earlier_slot = slots(earlier_ids[order])
        earlier_txn = np.concatenate([e[1] for e in self.earlier] or [np.empty(0, np.int32)])[order]
        failed = slots(np.concatenate(self.failed or [np.empty(0, np.int64)]))
        outcome = _outcome(columns.pop("saw"), failed, earlier_slot)
        return sessions, Sends(
            **columns,
            outcome=outcome,
            earlier_slot=earlier_slot,
            earlier_txn=earlier_txn.astype(np.int32),
        )


def _outcome(saw: np.ndarray, failed: np.ndarray, earlier_slot: np.ndarray) -> np.ndarray:
    """Per slot, the outcome over all attempts (see ``OK``) from the outcome lines seen (``failed``:
    the slot of each ``fail`` line) and the attempts: the last invoke, and one per ``earlier_slot``."""
    outcome = np.full(len(saw), NO_OUTCOME, np.int8)
    outcome[(saw & _SAW[FAIL]) > 0] = FAIL
    outcome[(saw & _SAW[INFO]) > 0] = INFO
    outcome[(saw & _SAW[OK]) > 0] = OK
    if len(earlier_slot):  # an attempt without its own ``fail`` line leaves the id open
        resent, attempts = np.unique(earlier_slot, return_counts=True)
        attempts += 1
        failed = np.sort(failed)
        fails = np.searchsorted(failed, resent, side="right") - np.searchsorted(failed, resent)
        outcome[resent[(outcome[resent] == FAIL) & (fails < attempts)]] = INFO
    return outcome


def distinct(values: np.ndarray) -> np.ndarray:
    """Distinct values; counting beats sorting or hashing for small non-negative ints (sessions)."""
    if len(values) and values.min() >= 0 and values.max() < 1 << 24:
        return np.flatnonzero(np.bincount(values)).astype(values.dtype)
    return np.unique(values)


class _SessionIndex:
    """Index into ``sessions`` of session numbers, -1 if unknown. A lookup table when session
    numbers are small (they are: the runner hands them out), a binary search otherwise."""

    def __init__(self, s: Sessions) -> None:
        self.s = s
        self.top = int(s.id[-1])
        self.table = None
        if self.top < 1 << 22:
            self.table = np.full(self.top + 2, -1, np.int64)
            self.table[s.id] = np.arange(len(s.id))

    def of(self, session: np.ndarray) -> np.ndarray:
        if self.table is not None:
            return self.table[np.clip(session, -1, self.top + 1)]
        k, found = lookup(self.s.id, session)
        return np.where(found, k, -1)


CHUNK = 1 << 18  # elements per step where a whole-array expression would need big temporaries


def chunks(n: int, size: int = CHUNK) -> Iterator[slice]:
    """``0:n`` in steps of ``size``."""
    return (slice(a, min(a + size, n)) for a in range(0, n, size))


def lookup(sorted_keys: np.ndarray, needles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each needle in ``sorted_keys`` (clipped) and whether it is there."""
    if not len(sorted_keys):
        return np.zeros(len(needles), np.int64), np.zeros(len(needles), bool)
    idx = np.minimum(np.searchsorted(sorted_keys, needles), len(sorted_keys) - 1)
    return idx, sorted_keys[idx] == needles


def _transactions(events: _Chunks) -> Transactions:
    keys, strongest = _strongest(
        events.take("key", np.int64),
        state=events.take("state", np.int8),
        begin=events.take("begin", np.int64),
        commit=events.take("commit", np.int64),
    )
    # A time only counts when some line gave one: -1 ("unknown") is the floor.
    return Transactions(
        keys, strongest["state"], np.maximum(strongest["begin"], -1), np.maximum(strongest["commit"], -1)
    )


def _strongest(key: np.ndarray, **values: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The distinct keys, ascending, and each value's largest per key: what the lines about one
    transaction add up to, a piece at a time (most of a transaction's lines are in one piece)
    and then over all pieces."""
    order = np.argsort(key)
    key = key[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.empty(0, np.intp)
    return key[first], {name: np.maximum.reduceat(v[order], first) for name, v in values.items()}


# --- read-back -----------------------------------------------------------------------


def view_path(reads_dir: Path, isolation: str) -> Path:
    return reads_dir / f"{isolation}.parquet"


def _read_view(path: Path, isolation: str, topics: _TopicCodes) -> View:
    f = pq.ParquetFile(path, pre_buffer=False)  # a local file: reading ahead only costs memory
    n = f.metadata.num_rows
    pos, ids = np.empty(n, np.int64), np.empty(n, np.int64)
    at, ascending = 0, True
    for batch in f.iter_batches(batch_size=1 << 20, columns=["topic", "partition", "offset", "id"]):
        k = batch.num_rows
        partition = batch.column("partition").to_numpy()
        if partition.max(initial=0) >= 1 << PARTITION_BITS:
            raise HarnessError(f"{path}: partition numbers of {1 << PARTITION_BITS} or more are not supported")
        rows = slice(at, at + k)
        position(topics.encode(batch.column("topic")), partition, batch.column("offset").to_numpy(), out=pos[rows])
        ids[rows] = batch.column("id").to_numpy()
        window = pos[max(at - 1, 0) : at + k]  # this batch and the row before it
        # Strictly: an offset read twice is as rare as a view out of order, and as cheap to see here.
        ascending = ascending and bool(np.all(window[1:] > window[:-1]))
        at += k
    repeated = np.empty(0, np.int64)
    if not ascending:
        _sort_by_position(pos, ids)
        pos, ids, repeated = _once_per_position(pos, ids)
    read = [_partition_keys_in(pos)]  # what has rows was read, whatever the metadata says
    for topic, partitions in partitions_read(f.schema_arrow).items():
        if topic in topics:  # a topic no ledger sent to and no row came from concerns no send
            read.append((topics.code(topic) << PARTITION_BITS) | np.array(partitions, np.int64))
    counts = {topics.code(t): n for t, n in topic_partitions(f.schema_arrow).items() if t in topics}
    return View(isolation, pos, ids, np.unique(np.concatenate(read)), repeated, counts)


def partitions_read_metadata(
    read: dict[str, list[int]], partition_counts: dict[str, int] | None = None
) -> dict[bytes, bytes]:
    """The schema metadata a read-back writes: which partitions of which topics it read, and how many
    partitions each of those topics has (where known)."""
    metadata = {PARTITIONS_READ_KEY: json.dumps(read, sort_keys=True).encode()}
    if partition_counts is not None:
        metadata[TOPIC_PARTITIONS_KEY] = json.dumps(partition_counts, sort_keys=True).encode()
    return metadata


def topic_partitions(schema: pa.Schema) -> dict[str, int]:
    """How many partitions each topic read has, as the read-back says; empty for files written without it."""
    return json.loads((schema.metadata or {}).get(TOPIC_PARTITIONS_KEY, b"{}"))


def partitions_read(schema: pa.Schema) -> dict[str, list[int]]:
    """What a read-back says it read; empty for files written without the metadata."""
    return json.loads((schema.metadata or {}).get(PARTITIONS_READ_KEY, b"{}"))


def _partition_keys_in(pos: np.ndarray) -> np.ndarray:
    """``topic << PARTITION_BITS | partition`` of every partition with rows: ascending
    positions keep each partition's rows together, so a jump per partition finds them."""
    keys, at = [], 0
    while at < len(pos):
        key = int(pos[at]) >> OFFSET_BITS
        keys.append(key)
        at = int(np.searchsorted(pos, (key + 1) << OFFSET_BITS))
    return np.array(keys, np.int64)


def _once_per_position(pos: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows sorted by position: each (position, id) once, ids ascending within a position, and
    the positions that came more than once."""
    again = np.flatnonzero(pos[1:] == pos[:-1]) + 1
    if not len(again):
        return pos, ids, np.empty(0, np.int64)
    repeated = np.unique(pos[again])
    # Only the rows of repeated positions need ordering by id; the rest stay where they are.
    rows = np.flatnonzero(np.isin(pos, repeated))
    rows = rows[np.lexsort((ids[rows], pos[rows]))]
    ids[np.sort(rows)] = ids[rows]
    keep = np.ones(len(pos), bool)
    keep[1:] = (pos[1:] != pos[:-1]) | (ids[1:] != ids[:-1])
    return pos[keep], ids[keep], repeated


def _sort_by_position(pos: np.ndarray, ids: np.ndarray) -> None:
    """Sorts the rows by position, stably, in place.

    A read-back's rows come in ascending runs (each partition's in offset order). When the
    runs do not overlap, as when whole topics come in another order than their codes' (a
    topic's code comes from the first ledger that sent to it), putting the runs in order
    is a copy, not a sort of the whole view.
    """
    starts = np.r_[0, np.flatnonzero(pos[1:] < pos[:-1]) + 1]
    ends = np.r_[starts[1:], len(pos)]
    order = np.argsort(pos[starts], kind="stable") if len(starts) <= 1 << 12 else None
    if order is not None and np.all(pos[ends[order[:-1]] - 1] < pos[starts[order[1:]]]):

        def take(a: np.ndarray) -> np.ndarray:
            return np.concatenate([a[starts[r] : ends[r]] for r in order])
    else:
        o = np.argsort(pos, kind="stable")

        def take(a: np.ndarray) -> np.ndarray:
            return a[o]

    for a in (pos, ids):  # one array's temporary at a time
        a[:] = take(a)
